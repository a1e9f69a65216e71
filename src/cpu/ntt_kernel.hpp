// The interface between NttPlan<uint64_t> and its per-instruction-set kernels (scalar, AVX2,
// AVX-512, IFMA52), for the default transform (Harvey's lazy butterflies with Shoup twiddles). A
// kernel is built once per plan and path from the plan's tables, rearranged as its path needs; it
// is immutable afterwards and safe to call from many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "polyhe/cpu/features.hpp"

namespace polyhe::cpu {

/// The plan's tables, borrowed while a kernel is constructed (a kernel copies what it keeps).
/// Index i holds the twiddle of bit-reversed position i, as in arith/butterfly.hpp.
struct NttTables64 {
  std::size_t n = 0;
  std::uint64_t q = 0;                            // an NTT prime, len(q) ≤ 62
  std::span<const std::uint64_t> fwd;             // ψ^br(i)
  std::span<const std::uint64_t> fwd_shoup;       // ⌊ψ^br(i)·2^64 / q⌋
  std::span<const std::uint64_t> inv;             // ψ^−br(i)
  std::span<const std::uint64_t> inv_half;        // ψ^−br(i)/2 mod q
  std::span<const std::uint64_t> inv_half_shoup;  // ⌊(ψ^−br(i)/2)·2^64 / q⌋
};

/// The operands of NttKernel64::forward_lifted: out = (c − forward(lift(x)))·s mod q, where
/// lift(x) is the centred lift to q of residues modulo p (vec::lift_centred: x − p where
/// x > ⌊p/2⌋) — the step of rescaling by p (and of ModDown) for one target limb. Every array
/// holds n words: x (natural order, each < p) and c (evaluation form, each < q) are read; out
/// is written and may be c; work is scratch, disjoint from x and c (it may be out when out is
/// not c). s < q; 2 ≤ p.
struct LiftedForward {
  const std::uint64_t* x = nullptr;
  std::uint64_t p = 0;
  const std::uint64_t* c = nullptr;
  std::uint64_t s = 0;
  std::uint64_t* out = nullptr;
  std::uint64_t* work = nullptr;
};

/// One (N, q) on one path. Every entry point takes and returns values in [0, q); evaluation
/// form is bit-reversed, as everywhere in polyhe. Pointers need no alignment; a, b, c may
/// alias each other where the entry point says so.
class NttKernel64 {
 public:
  virtual ~NttKernel64() = default;

  [[nodiscard]] virtual CpuPath path() const = 0;

  /// Natural → bit-reversed, in place.
  virtual void forward(std::uint64_t* a) const = 0;
  /// Bit-reversed → natural, in place, including the factor 1/N.
  virtual void inverse(std::uint64_t* a) const = 0;
  /// The same out of place, out = inverse(in), where this kernel reads in in its first pass
  /// (returning true; in is only read and does not overlap out); false (nothing written) where
  /// it has no such form, and the caller copies and transforms in place.
  virtual bool inverse_from(const std::uint64_t* in, std::uint64_t* out) const {
    (void)in;
    (void)out;
    return false;
  }
  /// c[i] = a[i]·b[i] mod q; c may alias a or b.
  virtual void hadamard(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c) const = 0;

  /// [GPU-Polymul, Alg. 8] in three steps: the forward transform without its last stage; the
  /// Karatsuba product of the pairs (c may alias a or b; see detail::fused_hadamard for the
  /// mathematics); the inverse transform without its first stage, including 1/N.
  virtual void forward_truncated(std::uint64_t* a) const = 0;
  virtual void fused_hadamard(const std::uint64_t* a, const std::uint64_t* b,
                              std::uint64_t* c) const = 0;
  virtual void inverse_truncated(std::uint64_t* a) const = 0;

  /// The fused form of LiftedForward where this kernel has one for (n, q, p), returning true;
  /// false (nothing written) where it has none, and the caller composes the three steps — the
  /// same words either way.
  virtual bool forward_lifted(const LiftedForward& f) const {
    (void)f;
    return false;
  }
  /// out = forward(lift(x)) without the epilogue: the transform of the centred lift to q of x's
  /// residues modulo p (vec::lift_centred), x read through the lift in this kernel's first pass
  /// where it has that form for (n, q, p), returning true (x, natural order, each < p, is only
  /// read and does not overlap out; 2 ≤ p); false (nothing written) where it has none, and the
  /// caller lifts into out and transforms in place — the same words either way.
  virtual bool forward_from_lifted(const std::uint64_t* x, std::uint64_t p,
                                   std::uint64_t* out) const {
    (void)x;
    (void)p;
    (void)out;
    return false;
  }
};

/// Always available.
std::unique_ptr<NttKernel64> make_scalar_ntt_kernel(const NttTables64& t);
/// nullptr when the build lacks the kernels or the kernel does not serve (n, q) (too small an n,
/// or, for IFMA, q ≥ 2^50). Callers fall back to the next lower path.
std::unique_ptr<NttKernel64> make_avx2_ntt_kernel(const NttTables64& t);
std::unique_ptr<NttKernel64> make_avx512_ntt_kernel(const NttTables64& t);
std::unique_ptr<NttKernel64> make_ifma_ntt_kernel(const NttTables64& t);

}  // namespace polyhe::cpu
