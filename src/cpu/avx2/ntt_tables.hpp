// What the two AVX2 NTT kernels (ntt_avx2.cpp, integer; ntt_avx2_fma.cpp, double precision) build
// alike from the plan's tables (internal): the lane tables of the regrouped last stages and the
// scales of the last inverse stage, the fused product's ±α² lanes; and the vector fused product
// both call. Header-only, no instruction-set code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"

namespace polyhe::cpu::avx2 {

/// Lane tables of the stages of half-size 2 (m = n/4 blocks) and 1 (m = n/2 blocks) from the
/// broadcast twiddles tw (index m + block): entry k serves elements 8k … 8k + 7, lane l holds
/// the twiddle of its block in the lane orders of the regroupings, (a0 a1 b0 b1 | a2 a3 b2 b3)
/// for half-size 2 and (a0 b0 a2 b2 | a1 b1 a3 b3) for half-size 1. set(entry, l, twiddle).
template <class Tw, class Lane, class Set>
void regrouped_lane_tables(const std::vector<Tw>& tw, std::vector<Lane>& half2,
                           std::vector<Lane>& half1, Set set) {
  const std::size_t n = tw.size();
  constexpr std::size_t kBlock2[4] = {0, 0, 1, 1};
  constexpr std::size_t kBlock1[4] = {0, 2, 1, 3};
  half2.resize(n / 8);
  half1.resize(n / 8);
  for (std::size_t k = 0; k < n / 8; ++k) {
    for (std::size_t l = 0; l < 4; ++l) {
      set(half2[k], l, tw[n / 4 + 2 * k + kBlock2[l]]);
      set(half1[k], l, tw[n / 2 + 4 * k + kBlock1[l]]);
    }
  }
}

/// The last inverse stage multiplies by 2^−stages — 1/N for the whole transform, 2/N after the
/// fused product — and its difference output also by ψ^−br(1) (inv1).
struct LastStageScales {
  std::uint64_t whole, whole_diff, truncated, truncated_diff;
};

inline LastStageScales last_stage_scales(std::size_t n, std::uint64_t q, std::uint64_t inv1) {
  const Modulus<std::uint64_t> m(q);
  const std::uint64_t n_inv = inverse_mod(n, q);
  const std::uint64_t two_n_inv = m.mul(n_inv, 2 % q);
  return {n_inv, m.mul(n_inv, inv1), two_n_inv, m.mul(two_n_inv, inv1)};
}

/// The fused product's ±α² (detail::fused_hadamard in arith/ntt_schedule.hpp) in the lane order of
/// avx2_fused_hadamard: entry 4k + l serves the pair 4k + (0, 2, 1, 3)[l], whose α² is
/// fwd[n/4 + ⌊pair/2⌋], negated (q − α²) for an odd pair. n/2 words; n a multiple of 8.
inline std::vector<std::uint64_t> fused_alpha2_lanes(std::size_t n, std::uint64_t q,
                                                     std::span<const std::uint64_t> fwd) {
  constexpr std::size_t kPair[4] = {0, 2, 1, 3};
  std::vector<std::uint64_t> out(n / 2);
  for (std::size_t k = 0; k < n / 8; ++k) {
    for (std::size_t l = 0; l < 4; ++l) {
      const std::size_t pair = 4 * k + kPair[l];
      const std::uint64_t a2 = fwd[n / 4 + pair / 2];
      out[4 * k + l] = (pair % 2 == 0) ? a2 : q - a2;
    }
  }
  return out;
}

}  // namespace polyhe::cpu::avx2

namespace polyhe::cpu {

/// [GPU-Polymul, Alg. 8]'s middle step on four lanes (elementwise_avx2.cpp, compiled with -mavx2
/// -mfma): detail::fused_hadamard's words, every product by the AVX2 multiply (double-precision FMA
/// below 2^50, [GPU-Polymul, Alg. 4] above), alpha2 from fused_alpha2_lanes. Inputs in [0, q); c
/// may alias a or b; n a multiple of 8.
void avx2_fused_hadamard(const std::uint64_t* a, const std::uint64_t* b,
                         const std::uint64_t* alpha2, std::uint64_t* c, std::size_t n,
                         const BarrettAlg4<std::uint64_t>& r);

}  // namespace polyhe::cpu
