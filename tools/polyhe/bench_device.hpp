// Where a scheme benchmark runs (`polyhe bench ckks|bfv|bgv --backend ...`): the CPU, the CUDA
// GPU (device 0), or the emulated device (the CUDA kernel bodies on the host: for correctness at
// small N, its times are host times of the emulation, not device times).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "polyhe/ring/device.hpp"
#include "timing.hpp"

namespace polyhe::cli {

struct BenchBackend {
  std::string name = "cpu";        // cpu, cuda or cuda-emulated: the JSON "backend" field
  std::shared_ptr<Device> device;  // null for the CPU
  /// Waits for the device's work (a timed call ends when its results exist); nothing on the CPU.
  void synchronize() const {
    if (device) device->synchronize();
  }
};

/// On a device backend, the host's share of an op: the median per call of calls enqueued back to
/// back with nothing waited for, the device's work waited for untimed between batches (nullopt on
/// the CPU). Set beside median_ns, which waits for each call's results, it tells an op bound by
/// the host's launches (enqueue_ns ≈ median_ns) from one bound by the device (enqueue_ns ≪
/// median_ns). An op that waits for the device itself shows the wait here too.
template <class F>
std::optional<double> enqueue_median(const BenchBackend& backend, F&& call,
                                     const TimingOptions& timing) {
  if (!backend.device) return std::nullopt;
  const TimingStats stats = measure_prepared([&](std::size_t) { backend.synchronize(); },
                                             [&](std::size_t) { call(); }, timing);
  backend.synchronize();
  return stats.median_ns;
}

/// The timed calls of a device benchmark, marked for a profiler: on the CUDA backend
/// cudaProfilerStart() when made and cudaProfilerStop() when destroyed, so that `ncu
/// --profile-from-start off` sees exactly the kernels of the measured calls (the runbook's
/// profiles.txt, docs/bench/gpu-runbook.md); nothing on the CPU or the emulated device.
class ProfiledRegion {
 public:
  explicit ProfiledRegion(const BenchBackend& backend);
  ~ProfiledRegion();
  ProfiledRegion(const ProfiledRegion&) = delete;
  ProfiledRegion& operator=(const ProfiledRegion&) = delete;

 private:
  bool active_ = false;
};

/// cudaProfilerStart (true) or Stop (false) on the CUDA backend, errors ignored: profiling is
/// optional (bench_device_cuda.cpp; a build without CUDA has no such backend, and
/// bench_device_none.cpp's does nothing). Never throws.
void cuda_profiler(bool start);

/// Host↔device copy rates from and to page-locked memory (32 MiB, the median of 9 after a
/// warm-up), through the Device's own asynchronous copies: the floor of the batch ops.
struct TransferRates {
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
};
TransferRates measure_transfer_rates(Device& device);

/// The first line of a scheme benchmark's table: "<Scheme> benchmark on <where>: ...".
std::string bench_title(const std::string& scheme, const BenchBackend& backend, unsigned threads);

/// The largest log2 N the emulated backend takes (it runs thousands of threads on one core).
inline constexpr int kMaxEmulatedLogN = 14;

/// --backend: cpu, cuda or cuda-emulated (UsageError naming the value otherwise; cuda-emulated
/// refuses log_n above kMaxEmulatedLogN). cuda throws Error naming why when this build has no CUDA
/// or no device is usable.
BenchBackend make_bench_backend(const std::string& backend, int log_n);

/// The CUDA device 0 as a ring Device; Error naming why there is none (bench_device_cuda.cpp, or
/// bench_device_none.cpp in a build without CUDA).
std::shared_ptr<Device> make_cuda_bench_device();

}  // namespace polyhe::cli
