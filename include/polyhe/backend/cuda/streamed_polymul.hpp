// Products with one resident operand over data that lives in host memory: the throughput mode of
// the FPGA paper (b stays on the accelerator in evaluation form, the a_k stream through it), with
// the transfers overlapped with the arithmetic through the context's three streams.
//
// Chunk j of `chunk` polynomials goes through slot j % depth of device memory: its upload (upload
// stream), its products (compute stream, polymul_evaluated) and its download (download stream).
// Events order the three stages of a chunk and keep a slot from being reused too early, so the
// upload of chunk j+1, the products of chunk j and the download of chunk j−1 run at once. No CUDA
// header is included (see context.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/ntt.hpp"

namespace polyhe::cuda {

template <Word W>
class StreamedPolymul {
 public:
  /// Keeps `tables` and uploads b (tables->words() words: limb i at [i·n, (i+1)·n), every word
  /// below q_i), transforms it once on the device (forward, in place; it stays resident), and
  /// allocates `depth` slots of chunk·words() words for inputs and as many for outputs, with
  /// their events. Checked (InvalidParameter naming the value): tables not null, b's size, every
  /// b word below its limb's q (the first offender is named), chunk ≥ 1, 2 ≤ depth ≤ 8, the
  /// options (as forward() checks them). Device errors throw DeviceError. Returns once b is
  /// transformed and the slots are allocated (it synchronises the compute stream).
  StreamedPolymul(std::shared_ptr<const DeviceNttTables<W>> tables, std::span<const W> b,
                  std::size_t chunk, unsigned depth = 3, NttOptions options = {});

  StreamedPolymul(const StreamedPolymul&) = delete;
  StreamedPolymul& operator=(const StreamedPolymul&) = delete;
  /// Waits for the context's streams (errors ignored) before the slots are freed.
  ~StreamedPolymul();

  /// c_k = a_k·b mod (x^n + 1, q_i) for the count = a.size() / words() polynomials of a
  /// (polynomial k at [k·words(), (k+1)·words()), every word below its limb's q: a precondition,
  /// not checked). Checked: a and c of the same size, a multiple of words() (InvalidParameter
  /// naming both sizes); a and c must not overlap (a precondition). count = 0 does nothing.
  ///
  /// The copies overlap the products only when a and c are page-locked (PinnedBuffer): from
  /// pageable memory the runtime stages every copy through its own buffer and the host waits
  /// for it, so the result is the same but the transfers serialise with the host.
  /// Returns when c is complete (it synchronises the download stream); a device error throws
  /// DeviceError after waiting for the streams.
  void run(std::span<const W> a, std::span<W> c);

  [[nodiscard]] std::size_t chunk() const { return chunk_; }
  [[nodiscard]] unsigned depth() const { return static_cast<unsigned>(slots_.size()); }
  /// limbs·n: the words of one polynomial.
  [[nodiscard]] std::size_t words() const { return tables_->words(); }
  [[nodiscard]] const DeviceNttTables<W>& tables() const { return *tables_; }

 private:
  struct Slot {
    DeviceBuffer<W> in;   // chunk·words() words uploaded from a
    DeviceBuffer<W> out;  // chunk·words() products, downloaded into c
    Event uploaded;       // on upload: the chunk's input is in `in`
    Event computed;       // on compute: `in` has been read and `out` written
    Event downloaded;     // on download: `out` has been read
  };

  void enqueue(std::size_t j, std::size_t count, std::span<const W> a, std::span<W> c);
  void wait_for_streams() const noexcept;

  std::shared_ptr<const DeviceNttTables<W>> tables_;
  std::size_t chunk_ = 0;
  NttOptions options_;
  DeviceBuffer<W> b_evaluated_;
  std::vector<Slot> slots_;
};

extern template class StreamedPolymul<std::uint32_t>;
extern template class StreamedPolymul<std::uint64_t>;

}  // namespace polyhe::cuda
