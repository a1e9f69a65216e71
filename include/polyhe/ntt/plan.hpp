// NttPlan: the negacyclic NTT over one prime, with its twiddle tables built once.
#pragma once

#include <array>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/core/aligned.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/variant.hpp"

namespace polyhe {

namespace cpu {
class NttKernel64;  // internal (src/cpu/ntt_kernel.hpp): one path's kernel for one plan
}  // namespace cpu

/// A span in a parameter whose word type is deduced elsewhere (from the plan), so that vectors
/// and arrays convert to it implicitly: polymul(a, b, c, plan) with std::vector operands.
template <class T>
using Span = std::type_identity_t<std::span<T>>;

/// The transform of length n (a power of two, 2 ≤ n ≤ 2^17) modulo an NTT-friendly prime q
/// (q ≡ 1 mod 2n; len(q) ≤ 62 on 64-bit words, ≤ 30 on 32-bit words) with ψ a primitive 2n-th
/// root of unity. Immutable once created; share it through std::shared_ptr<const NttPlan>.
/// Threads: every member is const and may run on several threads at once (a kernel that needs a
/// work array takes the calling thread's, core/wipe.hpp's ThreadScratch).
///
/// forward: natural order, [0, q) → bit-reversed evaluation form, [0, q): â[i] = a(ψ^(2·br(i)+1)).
/// inverse: the exact inverse, 1/n included.
template <Word W>
class NttPlan {
 public:
  static constexpr std::size_t kMaxLogN = 17;

  /// Validates n and q (InvalidParameter naming the value and the rule) and takes the smallest
  /// primitive 2n-th root of unity.
  static std::shared_ptr<const NttPlan> create(std::size_t n, W q);
  /// With a caller-chosen ψ (validated to be a primitive 2n-th root).
  static std::shared_ptr<const NttPlan> create(std::size_t n, W q, W psi);
  ~NttPlan();
  NttPlan(const NttPlan&) = delete;
  NttPlan& operator=(const NttPlan&) = delete;

  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] int log_n() const { return log_n_; }
  [[nodiscard]] W q() const { return modulus_.value(); }
  [[nodiscard]] W psi() const { return psi_; }
  [[nodiscard]] const Modulus<W>& modulus() const { return modulus_; }

  [[nodiscard]] bool supports(NttVariant v) const;
  /// Throws InvalidParameter naming q and the variant's rule if the variant cannot serve q.
  void require(NttVariant v) const;

  /// In place, natural → bit-reversed. Requires a.size() == n (checked) and every a[i] < q
  /// (a precondition). Output in [0, q).
  void forward(std::span<W> a, NttVariant v = kDefaultNttVariant) const;
  /// In place, bit-reversed → natural, divided by n. Same requirements.
  void inverse(std::span<W> a, NttVariant v = kDefaultNttVariant) const;

  /// Out of place: out = inverse(in), in only read. Checked: sizes n; in and out either the same
  /// span or disjoint. Where the kernel reads in in its first pass (IFMA, default variant), no
  /// copy is made.
  void inverse(std::span<const W> in, std::span<W> out, NttVariant v = kDefaultNttVariant) const;

  /// out = (c − forward(lift(x)))·s mod q, where lift(x) is the centred lift to q of x's
  /// residues modulo p (vec::lift_centred): rescaling by p for one target limb
  /// (cpu::LiftedForward). One pass over x, c and out where the active kernel fuses the steps
  /// (IFMA), else the three steps in turn; the same words either way. Default variant, 64-bit
  /// words. Checked: every span of n words, 2 ≤ p < 2^62, s < q, work disjoint from x and c,
  /// out either c itself or disjoint from c and x (work may be out when out is not c).
  /// Preconditions: every x[i] < p and c[i] < q. Output in [0, q).
  void forward_lifted(std::span<const W> x, W p, std::span<const W> c, W s, std::span<W> out,
                      std::span<W> work) const requires std::same_as<W, std::uint64_t>;
  /// out = forward(lift(x)), the same without the epilogue: a digit's ModUp to one target limb
  /// (hybrid key switching). One pass over x and out where the active kernel reads x through the
  /// lift in its first pass (IFMA, n ≥ 128, p < 2^52; cpu::NttKernel64::forward_from_lifted),
  /// else vec::lift_centred into out and forward; the same words either way. Default variant,
  /// 64-bit words. Checked: both spans of n words, 2 ≤ p < 2^62, out disjoint from x.
  /// Precondition: every x[i] < p. Output in [0, q), bit-reversed.
  void forward_lifted(std::span<const W> x, W p,
                      std::span<W> out) const requires std::same_as<W, std::uint64_t>;

  /// Tables (index i holds the twiddle for bit-reversed position i; see arith/butterfly.hpp).
  [[nodiscard]] std::span<const W> forward_twiddles() const { return fwd_; }  // ψ^br(i)
  [[nodiscard]] std::span<const W> inverse_twiddles() const { return inv_; }  // ψ^−br(i)
  [[nodiscard]] std::span<const W> inverse_half_twiddles() const { return inv_half_; }

  /// The kernel that runs the default variant (shoup-lazy) on 64-bit words: the one of the
  /// highest path at or below `p` (default: the active cpu_path()) that serves (n, q) — IFMA
  /// serves q < 2^50 only, wider primes fall back to AVX-512. nullptr on 32-bit words, whose
  /// default variant runs the generic scalar schedule.
  [[nodiscard]] const cpu::NttKernel64* cpu_kernel() const { return cpu_kernel(cpu_path()); }
  [[nodiscard]] const cpu::NttKernel64* cpu_kernel(CpuPath p) const;

  /// Runs f with the butterfly policy of variant v (internal; used by the transforms, the
  /// polynomial products and the batched forms). Defined in src/ntt/dispatch.hpp.
  template <class F>
  void visit(NttVariant v, F&& f) const;

 private:
  NttPlan(std::size_t n, W q, W psi);

  std::size_t n_;
  int log_n_;
  Modulus<W> modulus_;
  W psi_;
  AlignedVector<W> fwd_, fwd_shoup_;            // ψ^br(i)
  AlignedVector<W> inv_;                        // ψ^−br(i)
  AlignedVector<W> inv_half_, inv_half_shoup_;  // ψ^−br(i)/2
  AlignedVector<W> fwd_mont_, inv_half_mont_;   // times 2^β (Montgomery)
  AlignedVector<W> fwd_mntt_, inv_half_mntt_;   // times 2^(r·k) (NTT-friendly Montgomery)
  // The kernel of path p, built on its first use (null where this CPU lacks p or p does not
  // serve (n, q)); thread-safe: built under kernel_mutex_, then read through kernel_built_
  // (release/acquire) without the lock.
  [[nodiscard]] const cpu::NttKernel64* kernel_of(CpuPath p) const;
  // The default variant's kernels (64-bit words), indexed by CpuPath: built lazily, so a set
  // keeps only the tables of the paths it runs (each path lays its twiddles out its own way;
  // building all four took about 60 % of a parameter set's memory).
  mutable std::mutex kernel_mutex_;
  mutable std::array<std::atomic<bool>, std::size(kAllCpuPaths)> kernel_built_{};
  mutable std::array<std::unique_ptr<const cpu::NttKernel64>, std::size(kAllCpuPaths)> kernels_;
};

extern template class NttPlan<std::uint32_t>;
extern template class NttPlan<std::uint64_t>;

}  // namespace polyhe
