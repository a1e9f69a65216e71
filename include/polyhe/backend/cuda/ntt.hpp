// Number-theoretic transforms and negacyclic products on the device ([GPU-Polymul]
// §V): the whole transform of a limb in one block's shared
// memory (LOS), longer transforms in two passes over device memory (LOM), every limb of a batch
// in the same launches (TOM), and c = a·b mod (x^n + 1, q) as NTT–Hadamard–INTT or by the fused
// product of [GPU-Polymul, Alg. 8]. Each kernel runs the butterfly policy of an NttVariant
// (arith/butterfly.hpp) — the same POLYHE_HD arithmetic as the CPU — so its words equal NttPlan's,
// bit for bit.
//
// Layout (docs/design.md, "Data layout"): L limbs of n words, limb i at [i·n, (i+1)·n), transformed
// under plan i. Evaluation form is bit-reversed, as on the CPU. Every call is asynchronous on its
// stream.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/device_span.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/variant.hpp"

namespace polyhe::cuda {

/// Which kernels run a transform.
enum class NttKernel {
  automatic,  // one block when n ≤ 2^tile_log, else two passes
  one_block,  // the whole transform in one block's shared memory (n words; 2n for a product)
  two_pass,   // a column pass and a row pass, each in shared memory (n ≥ 8)
  /// One pass over device memory: a thread-block cluster of 2, 4 or 8 blocks holds each limb in
  /// their shared memory and the blocks exchange words through it (compute capability ≥ 9.0;
  /// n ≥ 4·cluster and n ≥ cluster² words).
  cluster,
};

struct NttOptions {
  /// Words per thread per pass: 2, 4, 8 or 16 (the paper's radix; log2(radix) stages run in
  /// registers between two barriers).
  unsigned radix = 8;
  NttKernel kernel = NttKernel::automatic;
  /// log2 of the words a block holds in the two-pass kernels (rows of n2 = 2^tile_log words,
  /// column tiles of about as many) and the largest one-block length under `automatic`.
  /// 0: 11 for 64-bit words, 12 for 32-bit words (16 KiB of shared memory). The cluster kernel
  /// holds 2^tile_log words of each operand per block, a cluster of n/2^tile_log blocks (0: 64 KiB
  /// per block, 2 ≤ cluster ≤ 8).
  unsigned tile_log = 0;
};

/// The twiddle tables and butterfly constants of one variant for every limb of a batch, in the
/// device memory of one context: built from NttPlans, uploaded once (each distinct plan once),
/// and shared by every call on data of that shape. Immutable; share it through shared_ptr.
template <Word W>
class DeviceNttTables {
 public:
  /// One plan per limb, all of the same n (checked: MismatchedContext naming both lengths), each
  /// serving v (InvalidParameter naming q and the rule), at least one plan, at most 65535.
  /// Uploads on ctx's compute stream and waits for the copies.
  static std::shared_ptr<const DeviceNttTables> create(std::shared_ptr<const Context> ctx,
                                                       std::span<const NttPlan<W>* const> plans,
                                                       NttVariant v = kDefaultNttVariant);

  [[nodiscard]] std::size_t limbs() const { return plans_.size(); }
  [[nodiscard]] std::size_t n() const { return plans_[0]->n(); }
  [[nodiscard]] unsigned log_n() const { return static_cast<unsigned>(plans_[0]->log_n()); }
  /// limbs()·n(): the size of every operand.
  [[nodiscard]] std::size_t words() const { return limbs() * n(); }
  [[nodiscard]] NttVariant variant() const { return variant_; }
  [[nodiscard]] const NttPlan<W>& plan(std::size_t limb) const { return *plans_[limb]; }
  [[nodiscard]] const std::shared_ptr<const Context>& context() const { return ctx_; }

  /// The butterfly policies, one per limb, in device memory (internal: read by the kernels as
  /// the policy type of variant()).
  [[nodiscard]] const void* device_policies() const { return policies_.data(); }

 private:
  DeviceNttTables() = default;

  std::shared_ptr<const Context> ctx_;
  std::vector<std::shared_ptr<const NttPlan<W>>> owners_;  // keeps the plans alive
  std::vector<const NttPlan<W>*> plans_;
  NttVariant variant_ = kDefaultNttVariant;
  DeviceBuffer<W> tables_;
  DeviceBuffer<unsigned char> policies_;
};

extern template class DeviceNttTables<std::uint32_t>;
extern template class DeviceNttTables<std::uint64_t>;

/// dst = forward(src) for every limb: natural order in [0, q) → bit-reversed in [0, q). Checked:
/// both spans of tables.words() words, dst either src itself or disjoint from it, the options
/// (InvalidParameter naming the value and the rule). Asynchronous on `s`.
template <Word W>
void forward(const DeviceNttTables<W>& tables, DeviceSpan<const W> src, DeviceSpan<W> dst, Stream s,
             const NttOptions& options = {});
/// dst = inverse(src) (1/n included), bit-reversed → natural. Same checks.
template <Word W>
void inverse(const DeviceNttTables<W>& tables, DeviceSpan<const W> src, DeviceSpan<W> dst, Stream s,
             const NttOptions& options = {});

/// c = a·b mod (x^n + 1, q_i) for every limb i; `fused` selects [GPU-Polymul, Alg. 8] (truncated
/// transforms, the last forward and first inverse stages fused into the product by Karatsuba).
/// Inputs in [0, q) (a precondition), output in [0, q). Checked: every span of tables.words()
/// words, c either a, b or disjoint from both. The two-pass kernels take 2·words() words of scratch
/// from the context's pool on `s`. Asynchronous on `s`.
template <Word W>
void polymul(const DeviceNttTables<W>& tables, DeviceSpan<const W> a, DeviceSpan<const W> b,
             DeviceSpan<W> c, Stream s, bool fused = false, const NttOptions& options = {});

/// c_k = a_k·b mod (x^n + 1, q_i) for k polynomials at once, with b resident on the device in
/// evaluation form: a and c hold k·tables.words() words (polynomial j at [j·words, (j+1)·words),
/// each of tables.limbs() limbs), b_evaluated holds forward(b) (tables.words() words). One
/// forward transform per a_k, the product and the inverse: the throughput mode of the FPGA
/// paper (one operand resident, the other streamed). Checked: a.size() a non-zero multiple of
/// words(), c of a's size and either a or disjoint from a and b_evaluated; the two-pass kernels
/// take k·words() words of scratch from the pool on `s` and allow k·limbs ≤ 65535.
template <Word W>
void polymul_evaluated(const DeviceNttTables<W>& tables, DeviceSpan<const W> a,
                       DeviceSpan<const W> b_evaluated, DeviceSpan<W> c, Stream s,
                       const NttOptions& options = {});

}  // namespace polyhe::cuda
