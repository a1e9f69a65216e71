// The constants of a weighted sum modulo c, the inner sum of RNS base conversion
//   out[k] = (Σ_i x_i[k]·w_i) mod c,
// as the rns classes keep them per target modulus. The kernels that use them are internal
// (src/cpu/convert_kernel.hpp).
#pragma once

#include <cstdint>

namespace polyhe::cpu {

/// The constants of c for the final reduction: the sums are kept as lo/hi halves of 52 bits and
/// folded as H1·2^104 + H0·2^52 + L mod c with Shoup products in 52-bit limbs.
struct WeightedSumModulus {
  std::uint64_t c;
  std::uint64_t one_shoup52;   // ⌊2^52 / c⌋
  std::uint64_t r52;           // 2^52 mod c
  std::uint64_t r52_shoup52;   // ⌊r52·2^52 / c⌋
  std::uint64_t r104;          // 2^104 mod c
  std::uint64_t r104_shoup52;  // ⌊r104·2^52 / c⌋
};

/// The constants for c (2 ≤ c < 2^50, c ≠ 2^49: what ifma_serves accepts).
WeightedSumModulus make_weighted_sum_modulus(std::uint64_t c);

}  // namespace polyhe::cpu
