// Internal (src/cpu): the kernels of the inner sum of RNS base conversion (FastBConv, HPS): for
// one target modulus c,
//   out[k] = (Σ_{i < terms} x_i[k]·w_i) mod c,
// with w_i < c (x_i: one pointer per term, e.g. the limbs of a block). Two IFMA52 kernels (x_i[k] <
// 2^52 and c < 2^50; any x_i[k] and odd c < 2^62), double-precision ones on AVX2 + FMA and
// AVX-512 (x_i[k] < 2^50, c < 2^50) and a wide AVX2 one (any x_i[k], odd 2^10 ≤ c < 2^62) exist:
// elsewhere the callers keep their scalar 128-bit loops (rns/base_converter.cpp), which are the
// reference the kernels are tested against (tests/cpu/test_convert_kernel.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "polyhe/cpu/weighted_sum.hpp"

namespace polyhe::cpu {

/// The most terms one call sums: the 52-bit low halves accumulate in 64-bit lanes.
inline constexpr std::size_t kWeightedSumMaxTerms = 2048;

using WeightedSumKernel = void (*)(const std::uint64_t* const* x, std::size_t terms,
                                   const std::uint64_t* w, std::uint64_t* out, std::size_t n,
                                   const WeightedSumModulus& m);

/// The IFMA52 kernel, or nullptr when this build did not compile it (callers check cpu_path()
/// first). Preconditions: 1 ≤ terms ≤ kWeightedSumMaxTerms, x_i[k] < 2^52, w_i < c, out disjoint
/// from x; output in [0, c).
WeightedSumKernel ifma_weighted_sum_kernel();

/// The most terms one call of the wide kernel sums: its middle digit gathers three 52-bit words
/// a term in a 64-bit lane.
inline constexpr std::size_t kWeightedSumWideMaxTerms = 1024;

/// The wide IFMA52 kernel: out[k] = (Σ_i x_i[k]·w_i) mod c for any 64-bit x_i[k] and odd
/// 3 ≤ c < 2^62, the weights given in Montgomery form, w_mont[i] = w_i·2^104 mod c. Each product
/// x·w' is taken in 52-bit digits (x = x1·2^52 + x0, w' = w1·2^52 + w0: seven IFMA products,
/// lazily summed at weights 1, 2^52 and 2^104), and each sum S is brought to S·2^−104 mod c by a
/// Montgomery reduction in two 52-bit steps. nullptr when this build did not compile it.
/// Preconditions: 1 ≤ terms ≤ kWeightedSumWideMaxTerms, every w_mont < c, out disjoint from x;
/// output in [0, c).
using WeightedSumWideKernel = void (*)(const std::uint64_t* const* x, std::size_t terms,
                                       const std::uint64_t* w_mont, std::uint64_t* out,
                                       std::size_t n, const WeightedSumWideModulus& m);
WeightedSumWideKernel ifma_weighted_sum_wide_kernel();

/// The wide AVX2 kernel: out[k] = (Σ_i x_i[k]·w_i) mod c for any 64-bit x_i[k] and odd
/// 2^10 ≤ c < 2^62, the weights given in Montgomery form, w_mont[i] = w_i·2^(32·m.steps) mod c.
/// Each product is six 32 × 32-bit ones (x in two 32-bit digits, w_mont in three 21-bit ones),
/// lazily summed at weights 2^0, 2^21, 2^32, 2^42, 2^53 and 2^74; each sum S is brought to
/// S·2^−32·steps mod c by m.steps 32-bit Montgomery steps. nullptr when this build did not compile
/// the AVX2 kernels. Preconditions: 1 ≤ terms ≤ kWeightedSumWideMaxTerms, every w_mont < c, out
/// disjoint from x; output in [0, c).
using WeightedSumWide32Kernel = void (*)(const std::uint64_t* const* x, std::size_t terms,
                                         const std::uint64_t* w_mont, std::uint64_t* out,
                                         std::size_t n, const WeightedSumWide32Modulus& m);
WeightedSumWide32Kernel avx2_weighted_sum_wide_kernel();

/// Whether the wide AVX2 kernel serves modulus c (any x; at most kWeightedSumWideMaxTerms terms).
constexpr bool avx2_weighted_sum_wide_serves(std::uint64_t c) {
  return (c & 1U) != 0 && c >= (std::uint64_t{1} << 10) && c < (std::uint64_t{1} << 62);
}

/// The AVX2 + FMA kernel: exact double-precision products (each a·w − Q·c in [−0.875c, 0.875c]
/// for a < 2^50, w < c < 2^50), sums centred every eight terms; or nullptr when this build did
/// not compile it (callers check cpu_path() first). Preconditions: terms ≥ 1, x_i[k] < 2^50,
/// w_i < c < 2^50, out disjoint from x; output in [0, c).
using WeightedSumFmaKernel = void (*)(const std::uint64_t* const* x, std::size_t terms,
                                      const std::uint64_t* w, std::uint64_t* out, std::size_t n,
                                      std::uint64_t c);
WeightedSumFmaKernel avx2_weighted_sum_kernel();
/// The same sums on eight lanes (AVX-512 F), the same preconditions and words; nullptr when this
/// build did not compile the AVX-512 kernels.
WeightedSumFmaKernel avx512_weighted_sum_kernel();

/// Whether the AVX2 + FMA kernel serves inputs below `x_bound` (exclusive) and modulus c.
constexpr bool avx2_weighted_sum_serves(std::uint64_t x_bound, std::uint64_t c) {
  return x_bound <= (std::uint64_t{1} << 50) && c < (std::uint64_t{1} << 50);
}

/// The exact base conversion's correction count (HPS; rns/base_converter.hpp), for each k < n:
///   s[k] = Σ_{i < terms} double(t_i[k])·inv_i, summed left to right from 0, each product and each
///          sum rounded once to nearest (never fused), double(x) the nearest double to x < 2^63;
///   v[k] = min(⌊s[k] + 1/2⌋, cap), s[k] + 1/2 rounded once; s[k] ≥ 0 and below 2^51.
/// The vec::fraction_round scalar loop is the reference; the kernels give its words.
using FractionRoundKernel = void (*)(const std::uint64_t* const* t, std::size_t terms,
                                     const double* inv, std::uint64_t cap, double* s,
                                     std::uint64_t* v, std::size_t n);
/// The AVX2 and AVX-512 kernels, or nullptr where this build did not compile them (callers check
/// cpu_path() first).
FractionRoundKernel avx2_fraction_round_kernel();
FractionRoundKernel avx512_fraction_round_kernel();

/// The scale-and-round's exact and rounded parts (HPS; rns/scale_rounder.hpp), for each k < n,
/// with a_i = x_i[k] >> 31 and b_i = x_i[k] mod 2^31 (x_i[k] < 2^62, μ_i < 2^31):
///   g[k]  = Σ_i (a_i·ρ_i, then b_i·λ_i), summed left to right from 0 in double, each product and
///           each sum rounded once to nearest (never fused);
///   lo[k] = Σ_i (a_i·μ_i mod 2^32) + ⌊g[k] + 1/2⌋  (g[k] + 1/2 rounded once; g[k] ≥ 0),
///   hi[k] = Σ_i ⌊a_i·μ_i / 2^32⌋,
/// so that Σ_i a_i·μ_i + ⌊g + 1/2⌋ = hi·2^32 + lo. vec::scale_round_parts' scalar loop is the
/// reference; the kernels give its words.
using ScaleRoundPartsKernel = void (*)(const std::uint64_t* const* x, std::size_t terms,
                                       const std::uint64_t* mu, const double* rho,
                                       const double* lambda, double* g, std::uint64_t* lo,
                                       std::uint64_t* hi, std::size_t n);
/// The AVX2 and AVX-512 kernels, or nullptr where this build did not compile them.
ScaleRoundPartsKernel avx2_scale_round_parts_kernel();
ScaleRoundPartsKernel avx512_scale_round_parts_kernel();

}  // namespace polyhe::cpu
