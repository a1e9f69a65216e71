// The per-word arithmetic of the device ring operations that elementwise_body.hpp does not cover:
// the degree-2 tensor product, the automorphisms σ_k, and the RNS steps of key switching and
// rescaling (centred and signed lifts, base conversion, the key inner product, (a − b)·s). One
// functor per operation, applied to
// index i of the flattened limbs (limb i >> log_n); POLYHE_HD, so the CUDA device (device_ring.hpp
// through a grid-stride kernel) and the emulated device run the very same code. Preconditions as
// ring/device.hpp states them; the functors validate nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/backend/cuda/elementwise.hpp"
#include "polyhe/rns/wide_reduce.hpp"

// Loops of a compile-time count unrolled on the device (registers, not local memory), as in
// ntt_body.hpp.
#ifndef POLYHE_UNROLL
#if defined(__CUDACC__)
#define POLYHE_UNROLL _Pragma("unroll")
#else
#define POLYHE_UNROLL
#endif
#endif

namespace polyhe::cuda {

/// (c0, c1, c2) = (a0·b0, a0·b1 + a1·b0, a1·b1) slot-wise with [GPU-Polymul, Alg. 4] Barrett
/// reductions; the middle term as a0·b1 + (a1·b0 mod q) ≤ (q−1)² + q − 1 < q² ≤ 2^(2m), inside
/// [GPU-Polymul, Alg. 4]'s input range (the unreduced sum of two products, up to 2(q−1)², would not
/// be).
template <Word W>
struct TensorBody {
  const LimbModulus<W>* moduli;
  const W* a0;
  const W* a1;
  const W* b0;
  const W* b1;
  W* c0;
  W* c1;
  W* c2;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    const LimbModulus<W>& m = moduli[i >> log_n];
    const W x0 = a0[i], x1 = a1[i], y0 = b0[i], y1 = b1[i];
    c0[i] = mul_mod(x0, y0, m.barrett);
    c1[i] = barrett_alg4_reduce(mul_wide(x0, y1) + mul_mod(x1, y0, m.barrett), m.barrett);
    c2[i] = mul_mod(x1, y1, m.barrett);
  }
};

/// σ_k in evaluation form: slot t of every limb takes slot map[t] of the source (the permutation
/// RingContext::automorphism_table gives), c = σ_k(a) or, accumulating, c += σ_k(a).
template <Word W>
struct GatherBody {
  const LimbModulus<W>* moduli;
  const W* a;
  W* c;
  const std::uint32_t* map;  // N entries
  int log_n;
  bool accumulate;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t mask = (std::size_t{1} << log_n) - 1;
    const std::size_t base = i & ~mask;
    const W x = a[base + map[i & mask]];
    c[i] = accumulate ? add_mod(c[i], x, moduli[i >> log_n].q) : x;
  }
};

/// σ_k in coefficient form, by source index: coefficient j of every limb moves to j·k mod 2N,
/// negated when that is ≥ N (x^N = −1). k odd makes j → j·k mod 2N a bijection, so each output
/// word has exactly one writer. Accumulating: c += σ_k(a).
template <Word W>
struct CoefficientAutomorphismBody {
  const LimbModulus<W>* moduli;
  const W* a;
  W* c;
  std::uint64_t k;
  int log_n;
  bool accumulate;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t n = std::size_t{1} << log_n;
    const std::size_t base = i & ~(n - 1);
    const W q = moduli[i >> log_n].q;
    const std::uint64_t j = (static_cast<std::uint64_t>(i & (n - 1)) * k) & (2 * n - 1);
    const W x = j < n ? a[i] : neg_mod(a[i], q);
    W& out = c[base + (j & (n - 1))];
    out = accumulate ? add_mod(out, x, q) : x;
  }
};

/// c = (a − b)·s_l mod q_l (Shoup), s_l = scalars[l]; Scalars as in MultiplyScalarBody.
template <Word W, class Scalars>
struct SubMultiplyScalarBody {
  const LimbModulus<W>* moduli;
  const W* a;
  const W* b;
  W* c;
  int log_n;
  Scalars scalars;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t limb = i >> log_n;
    const W q = moduli[limb].q;
    c[i] = mul_shoup(sub_mod(a[i], b[i], q), scalars[limb], q);
  }
};

/// c = (a − b)·s mod q, or c += that when `accumulate` (c read only then: an output may be
/// uninitialised): the last step of rescale and of ModDown, word by word (a, b, c in [0, q)).
template <Word W>
POLYHE_HD inline void sub_scale(W& c, W a, W b, const ShoupOperand<W>& s, W q, bool accumulate) {
  const W x = mul_shoup(sub_mod(a, b, q), s, q);
  c = accumulate ? add_mod(c, x, q) : x;
}

/// At most this many polynomials per launch of the batched bodies below (their pointers travel in
/// the kernel's parameters); the Device splits longer lists into launches of this many.
inline constexpr std::size_t kBatchPointers = 8;

/// SubMultiplyScalarBody over up to kBatchPointers polynomials at once: at word i of limb
/// l = i >> log_n, c[p][i] = (a[p][i] − b[p·limbs·N + i])·s_l, or c[p][i] += that when
/// `accumulate`, for every p < parts. The word index runs over one polynomial; each thread does
/// that word of every polynomial.
template <Word W, class Scalars>
struct SubMultiplyScalarPartsBody {
  const LimbModulus<W>* moduli;
  const W* a[kBatchPointers];
  const W* b;
  W* c[kBatchPointers];
  std::size_t parts;
  std::size_t part_words;  // limbs·N: the stride of b
  int log_n;
  bool accumulate;
  Scalars scalars;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t limb = i >> log_n;
    const W q = moduli[limb].q;
    for (std::size_t p = 0; p < parts; ++p) {
      sub_scale(c[p][i], a[p][i], b[p * part_words + i], scalars[limb], q, accumulate);
    }
  }
};

/// dst[p][i] = src[p][i] for every p < count: word i of each of up to kBatchPointers copies.
struct CopyBatchBody {
  const std::uint64_t* src[kBatchPointers];
  std::uint64_t* dst[kBatchPointers];
  std::size_t count;
  POLYHE_HD void operator()(std::size_t i) const {
    for (std::size_t p = 0; p < count; ++p) dst[p][i] = src[p][i];
  }
};

/// c = a + k or a·k for the split constant k: lo[l] on the first N/2 words of limb l, hi[l] on
/// the rest (the residue in .w; Shoup for the product).
template <Word W, class Scalars>
struct SplitConstantBody {
  const LimbModulus<W>* moduli;
  const W* a;
  W* c;
  int log_n;
  Scalars lo;
  Scalars hi;
  bool multiply;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t limb = i >> log_n;
    const bool low = (i & ((std::size_t{1} << log_n) - 1)) < (std::size_t{1} << (log_n - 1));
    const ShoupOperand<W>& k = low ? lo[limb] : hi[limb];
    const W q = moduli[limb].q;
    c[i] = multiply ? mul_shoup(a[i], k, q) : add_mod(a[i], k.w, q);
  }
};

/// v (a residue modulo p, v < p < 2^63) lifted centred — v − p where v > ⌊p/2⌋, else v — and
/// reduced modulo w.q exactly (reduce_word of the magnitude, at most p/2, then its negation).
POLYHE_HD inline std::uint64_t lift_centred_word(std::uint64_t v, std::uint64_t p,
                                                 const WideBarrett& w) {
  // One reduction, not one per side of a branch that a warp's random words take both ways.
  const bool negative = v > p / 2;
  const std::uint64_t r = reduce_word(negative ? p - v : v, w);
  return negative ? neg_mod(r, w.q) : r;
}

/// Limb l of buffer j of c (`limbs` limbs each) = the centred lift of x's limb j (N words
/// modulo p) to q_l: x − p where x > ⌊p/2⌋, else x, reduced modulo q_l exactly (wide_reduce takes
/// any x < 2^128). One buffer per part of a ciphertext: their rescales share the launch.
struct LiftCentredBody {
  const WideBarrett* wide;
  const std::uint64_t* x;
  std::uint64_t p;
  std::uint64_t* c;
  int log_n;
  std::uint32_t limbs;  // of one buffer of c
  POLYHE_HD void operator()(std::size_t i) const {
    const auto row = static_cast<std::uint32_t>(i >> log_n);  // limb of c, over every buffer
    const std::uint32_t part = row / limbs;
    const std::size_t k = i & ((std::size_t{1} << log_n) - 1);
    c[i] = lift_centred_word(x[(static_cast<std::size_t>(part) << log_n) | k], p,
                             wide[row - part * limbs]);
  }
};

/// ModUp of one-prime digits at word (j, t, k): limb t of buffer j (the Q_l ∪ P layout, q_limbs
/// of Q then the rest from ring limb p_first) = the centred lift of x's limb j (modulo q_j) to
/// that limb's prime.
struct LiftDigitsBody {
  const LimbModulus<std::uint64_t>* moduli;  // every limb of the ring
  const WideBarrett* wide;                   // every limb of the ring
  const std::uint64_t* x;
  std::uint64_t* c;
  std::size_t q_limbs;
  std::size_t p_first;
  std::size_t limbs;  // of one buffer
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t n = std::size_t{1} << log_n;
    const std::size_t k = i & (n - 1);
    // 32-bit division: a 64-bit one is a long subroutine on the GPU, run for every word.
    const auto row = static_cast<std::uint32_t>(i >> log_n);  // limb over every buffer
    const std::uint32_t j = row / static_cast<std::uint32_t>(limbs);
    const std::size_t t = row - j * static_cast<std::uint32_t>(limbs);
    const std::size_t ring_limb = t < q_limbs ? t : p_first + (t - q_limbs);
    c[i] = lift_centred_word(x[j * n + k], moduli[j].q, wide[ring_limb]);
  }
};

/// Limb l of c = small[k] mod q_l for any signed 64-bit small[k]: secrets and errors (small), CKKS
/// encoding's rounded coefficients (up to 2^63). No branch on the value (the secrets): |v| reduced
/// by the 128-bit Barrett reduction whatever its size, the sign applied by a select.
struct LiftSignedBody {
  const WideBarrett* wide;  // per limb
  const std::int64_t* small;
  std::uint64_t* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    const auto v = static_cast<std::uint64_t>(small[i & ((std::size_t{1} << log_n) - 1)]);
    const WideBarrett& w = wide[i >> log_n];
    const bool negative = (v >> 63) != 0;
    const std::uint64_t magnitude = negative ? std::uint64_t{0} - v : v;  // |v| ≤ 2^63
    const std::uint64_t r = wide_reduce(u128{magnitude}, w);
    c[i] = negative ? neg_mod(r, w.q) : r;
  }
};

/// s + x·y rounded twice, never fused: the CPU's double arithmetic (ISO C++ contracts nothing),
/// so the HPS correction below agrees bit for bit (nvcc would otherwise fuse into an FMA).
POLYHE_HD inline double add_product_rn(double s, double x, double y) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(s, __dmul_rn(x, y));
#else
  return s + x * y;
#endif
}

/// BaseConverter at targets j0 … j0 + G − 1, coefficient k of input `poly` (both steps in one
/// body, no scratch between them): t_i = [x_i·q̂_i^−1]_{q_i} (Shoup, as vec::multiply_scalar), then
///   y_j = Σ_i t_i·(q̂_i mod c_j) mod c_j                    (approximate, FastBConv)
///   y_j = Σ_i t_i·(q̂_i mod c_j) − v·Q mod c_j, v = round(Σ_i t_i/q_i)   (exact, HPS),
/// v summed in double in the CPU's order and capped at |B| as it does; each target's 128-bit sum
/// reduced every 8 products (each below 2^124). Index i runs over inputs, then groups of G
/// targets (the last group may be short), then coefficients; input p (|B| limbs at x + p·|B|·N) is
/// written to limb positions[j] of the buffer at out + p·out_stride. Each thread makes the t_i
/// and v it needs itself, once for its G targets: ⌈|C|/G⌉ Shoup products per source and
/// coefficient instead of one, against a launch and a pass over a scratch. G = 1 is the body as
/// it ran on the H200 until 2026-11-27; G > 1 makes fewer, longer threads, the same words. The
/// device ring runs G = 3 unless POLYHE_CUDA_CONVERT_GROUP says otherwise (ring_ntt_options.hpp).
template <unsigned G = 1>
struct ConvertBody {
  static_assert(G >= 1 && G <= 4);
  const std::uint64_t* x;                         // inputs of |B| limbs of N words each
  const LimbModulus<std::uint64_t>* from_moduli;  // q_i
  const ShoupOperand<std::uint64_t>* q_hat_inv;   // q̂_i^−1 mod q_i
  std::size_t sources;                            // |B|
  std::uint32_t targets;                          // |C|
  const std::uint64_t* hat;                       // [j·|B| + i] = q̂_i mod c_j
  const std::uint64_t* qmod;                      // [j·(|B| + 1) + v] = v·Q mod c_j
  const double* inv;                              // 1/q_i
  const WideBarrett* wide;                        // per target c_j
  const std::uint32_t* positions;
  std::uint64_t* out;
  std::size_t out_stride;  // words between two inputs' output buffers
  int log_n;
  bool exact;

  /// Groups of G targets: the body runs over inputs · groups() · N indices.
  [[nodiscard]] POLYHE_HD std::uint32_t groups() const { return (targets + G - 1) / G; }

  POLYHE_HD void operator()(std::size_t i) const {
    const auto row = static_cast<std::uint32_t>(i >> log_n);  // group over every input
    const std::uint32_t per_poly = groups();
    const std::uint32_t poly = row / per_poly;
    const std::uint32_t j0 = (row - poly * per_poly) * G;
    const std::uint32_t count = targets - j0 < G ? targets - j0 : G;
    const std::size_t n = std::size_t{1} << log_n;
    const std::size_t k = i & (n - 1);
    const std::uint64_t* xp = x + static_cast<std::size_t>(poly) * sources * n;
    u128 acc[G];
    POLYHE_UNROLL
    for (unsigned g = 0; g < G; ++g) acc[g] = 0;
    double sum = 0;
    for (std::size_t s = 0; s < sources; ++s) {
      const std::uint64_t t = mul_shoup(xp[s * n + k], q_hat_inv[s], from_moduli[s].q);
      POLYHE_UNROLL
      for (unsigned g = 0; g < G; ++g) {
        if (g < count) {
          acc[g] += mul_wide(t, hat[static_cast<std::size_t>(j0 + g) * sources + s]);
          if ((s & 7) == 7) acc[g] = wide_reduce(acc[g], wide[j0 + g]);
        }
      }
      if (exact) sum = add_product_rn(sum, static_cast<double>(t), inv[s]);
    }
    std::uint64_t v = 0;
    if (exact) {
      v = static_cast<std::uint64_t>(sum + 0.5);
      if (v > sources) v = sources;
    }
    POLYHE_UNROLL
    for (unsigned g = 0; g < G; ++g) {
      if (g < count) {
        const std::uint32_t j = j0 + g;
        const WideBarrett& w = wide[j];
        std::uint64_t y = wide_reduce(acc[g], w);
        if (exact) y = sub_mod(y, qmod[j * (sources + 1) + v], w.q);
        out[static_cast<std::size_t>(poly) * out_stride +
            static_cast<std::size_t>(positions[j]) * n + k] = y;
      }
    }
  }
};

/// ScaleRounder::round at word (j, k): start = Σ_i a_i·μ_i + ⌊G + 1/2⌋ with
/// G = Σ_i (a_i·ρ_i + b_i·λ_i) summed in double in the CPU's order (x_i = a_i·2^31 + b_i), then
/// start + Σ_i x_i·[ω_i]_{p_j} + y_j·[t·θ_j·P/p_j]_{p_j} reduced mod p_j (the 128-bit sum reduced
/// every 8 products).
struct ScaleRoundBody {
  const std::uint64_t* x;   // Q's limbs (of input 0; input p's at x + p·|Q|·N)
  const std::uint64_t* xp;  // P's limbs (input p's at xp + p·|P|·N)
  std::size_t q_limbs;
  std::uint32_t p_limbs;
  const std::uint64_t* mu;
  const double* lambda;
  const double* rho;
  const std::uint64_t* omega;  // [j·(L + 1) + i]
  const WideBarrett* wide;     // per p_j
  std::uint64_t* out;
  int log_n;
  POLYHE_HD void operator()(std::size_t idx) const {
    const std::size_t n = std::size_t{1} << log_n;
    const auto limb = static_cast<std::uint32_t>(idx >> log_n);  // of P, over every input
    const std::uint32_t poly = limb / p_limbs;
    const std::uint32_t j = limb - poly * p_limbs;
    const std::size_t k = idx & (n - 1);
    const std::uint64_t* const xq = x + static_cast<std::size_t>(poly) * q_limbs * n;
    const std::uint64_t* const xr = xp + static_cast<std::size_t>(poly) * p_limbs * n;
    u128 start = 0;
    double g = 0;
    for (std::size_t i = 0; i < q_limbs; ++i) {
      const std::uint64_t xi = xq[i * n + k];
      const std::uint64_t a = xi >> 31;
      const std::uint64_t b = xi & ((std::uint64_t{1} << 31) - 1);
      start += mul_wide(a, mu[i]);
      g = add_product_rn(g, static_cast<double>(static_cast<std::int64_t>(a)), rho[i]);
      g = add_product_rn(g, static_cast<double>(static_cast<std::int64_t>(b)), lambda[i]);
    }
    start += static_cast<std::uint64_t>(g + 0.5);
    const WideBarrett& w = wide[j];
    const std::uint64_t* row = omega + j * (q_limbs + 1);
    u128 acc = wide_reduce(start, w);
    for (std::size_t i = 0; i < q_limbs; ++i) {
      acc += mul_wide(xq[i * n + k], row[i]);
      if ((i & 7) == 7) acc = wide_reduce(acc, w);
    }
    acc += mul_wide(xr[j * n + k], row[q_limbs]);
    out[idx] = wide_reduce(acc, w);
  }
};

/// The key-switching inner product at word (t, k) of Q_l ∪ P: acc0 = Σ_j up_j·b_j, acc1 =
/// Σ_j up_j·a_j, the key in its device layout (ring/key_parts.hpp) at the ring's limb of t.
struct KeyInnerProductBody {
  const LimbModulus<std::uint64_t>* moduli;  // every limb of the ring
  const std::uint64_t* up;
  const std::uint64_t* key;
  std::uint64_t* acc0;
  std::uint64_t* acc1;
  std::size_t digits;
  std::size_t count;    // the key's parts
  std::size_t q_limbs;  // l + 1
  std::size_t p_first;  // the ring's limb of p_0
  std::size_t limbs;    // q_limbs + k
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t n = std::size_t{1} << log_n;
    const std::size_t t = i >> log_n;
    const std::size_t k = i & (n - 1);
    const std::size_t kt = t < q_limbs ? t : p_first + (t - q_limbs);
    const LimbModulus<std::uint64_t>& m = moduli[kt];
    std::uint64_t s0 = 0, s1 = 0;
    for (std::size_t j = 0; j < digits; ++j) {
      const std::uint64_t x = up[(j * limbs + t) * n + k];
      const std::uint64_t* kj = key + (kt * count + j) * 2 * n;
      s0 = add_mod(s0, mul_mod(x, kj[k], m.barrett), m.q);
      s1 = add_mod(s1, mul_mod(x, kj[n + k], m.barrett), m.q);
    }
    acc0[i] = s0;
    acc1[i] = s1;
  }
};

}  // namespace polyhe::cuda
