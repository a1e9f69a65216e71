// Measurements of the device's floors for the benchmarks (docs/design.md, "Performance method":
// count the floor first): copy bandwidths and the integer multiply rate, each timed with CUDA
// events, and a gate that holds a stream while the host enqueues a timed batch, so that a batch
// measures the device's time and not the host's launch rate. Plain functions over a Context; no
// CUDA header is included (see context.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "polyhe/backend/cuda/context.hpp"

namespace polyhe::cuda::bench {

/// Repetitions of one transfer or kernel: the seconds of each, and the units (bytes or products)
/// each repetition moved or computed.
struct Samples {
  std::vector<double> seconds;
  double units_per_rep = 0;
};

/// `reps` device-to-device copies (cudaMemcpyAsync) of `bytes` bytes between two device buffers,
/// each timed by events on ctx's compute stream after one untimed warm-up copy. units_per_rep =
/// 2·bytes: every byte is read once and written once. The buffers are filled with a non-zero
/// pattern first. Checked: bytes ≥ 1 and reps ≥ 1 (InvalidParameter); DeviceError when the
/// allocation or a call fails.
Samples time_device_copy(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                         std::size_t reps);

/// `reps` copies of `bytes` bytes from page-locked host memory to the device, on the upload
/// stream, timed by events there; units_per_rep = bytes. Same checks.
Samples time_host_to_device(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                            std::size_t reps);

/// `reps` copies of `bytes` bytes from the device to page-locked host memory, on the download
/// stream; units_per_rep = bytes. Same checks.
Samples time_device_to_host(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                            std::size_t reps);

/// Both directions at once: each repetition starts an upload of `bytes` bytes (upload stream)
/// and a download of `bytes` bytes (download stream) at the same event and ends when both are
/// done; units_per_rep = bytes (per direction: rate = bytes / seconds for each direction). Same
/// checks.
Samples time_bidirectional(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                           std::size_t reps);

/// The integer multiply rate: a kernel whose threads (enough blocks to fill every SM several
/// times) each run independent chains of full double-word products — for 64-bit words
/// __umul64hi(x, y) and x·y, for 32-bit words __umulhi(x, y) and x·y; one *product* is one such
/// high/low pair. `reps` launches on the compute stream, timed by events after a warm-up
/// launch; units_per_rep = products per launch. The result is written to device memory so that
/// no product can be removed as dead code. Checked: word_bits 32 or 64, reps ≥ 1.
Samples time_multiply(const std::shared_ptr<const Context>& ctx, unsigned word_bits,
                      std::size_t reps);

/// Starts (true) or stops (false) the profiler's collection: cudaProfilerStart/Stop, so that
/// `ncu --profile-from-start off` profiles only what runs in between (the runbook's profiles.txt
/// marks a benchmark's timed calls this way). Without a profiler attached it does nothing.
/// Never throws: a benchmark must not fail for want of a profiler. Returns whether the call
/// succeeded (its error, if any, is cleared so that no later call reports it).
bool profiler(bool start);

/// Holds a stream on the device until the host releases it: hold(s) enqueues a one-thread
/// kernel that spins on a flag in page-locked, device-mapped host memory; release() sets the
/// flag. Work enqueued on s between the two then starts back to back, whatever the host's
/// launch rate — as long as it fits the launch queue (a few hundred launches): a host that
/// blocks on a full queue cannot release, so the kernel gives up after `timeout_s` and
/// timed_out() tells. One gate holds one stream at a time (hold after the previous hold's
/// kernel has finished, e.g. after synchronising s). Device errors throw DeviceError.
class StreamGate {
 public:
  explicit StreamGate(std::shared_ptr<const Context> ctx);
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  /// Synchronises the context (errors ignored) before freeing the flag.
  ~StreamGate();

  /// Clears the flag and enqueues the spinning kernel on s. Checked: timeout_s in (0, 10].
  void hold(Stream s, double timeout_s = 1.0);
  /// Sets the flag; the kernel sees it within microseconds.
  void release();
  /// Whether the last hold's kernel gave up before release(): meaningful once s has passed it
  /// (after synchronising s or an event recorded after it).
  [[nodiscard]] bool timed_out() const;

 private:
  std::shared_ptr<const Context> ctx_;
  volatile std::uint32_t* host_ = nullptr;  // [0]: release flag, [1]: timed-out flag
  std::uint32_t* device_ = nullptr;         // the same words, mapped into the device
};

}  // namespace polyhe::cuda::bench
