// Weighted sums modulo c, the inner sum of RNS base conversion,
//   out[k] = (Σ_i x_i[k]·w_i) mod c,
// on the vector kernel of the active CPU path where one serves: vec::WeightedSum, the checked
// entry point the rns classes call (the kernels themselves are internal,
// src/cpu/convert_kernel.hpp). Where none serves, the callers keep their scalar 128-bit loops,
// the reference the kernels are tested against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

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

namespace polyhe::vec {

/// Which kernel a WeightedSum runs on the active CPU path.
enum class WeightedSumPath {
  none,    // none serves: the caller's scalar loop
  ifma52,  // IFMA52: every x < 2^52, c < 2^50 (c ≠ 2^49), at most 2048 terms; the IFMA path
  fma50,   // AVX2 + FMA, exact double-precision products: every x ≤ 2^50, c < 2^50; the avx2 path
};

/// Sums modulo c of at most max_terms products x·w with every x below x_bound and every w < c.
/// Immutable; safe to share between threads. Default-constructed, it serves nothing.
class WeightedSum {
 public:
  WeightedSum() = default;
  /// InvalidParameter unless 2 ≤ c < 2^62, max_terms ≥ 1 and x_bound ≥ 1.
  WeightedSum(std::uint64_t c, std::size_t max_terms, std::uint64_t x_bound);

  [[nodiscard]] std::uint64_t modulus() const { return c_; }
  /// The kernel for the active CPU path (cpu_path(), read at each call).
  [[nodiscard]] WeightedSumPath path() const;
  /// out[k] = (Σ_i x[i][k]·w[i]) mod c for k < out.size(), in [0, c), on path()'s kernel: true;
  /// false with nothing written where path() is none. Checked (InvalidParameter): 1 ≤ x.size() ≤
  /// max_terms, w.size() == x.size(), every w < c, no x[i] null. Preconditions: every x[i] points
  /// to out.size() words below x_bound, none overlapping out.
  bool operator()(std::span<const std::uint64_t* const> x, std::span<const std::uint64_t> w,
                  std::span<std::uint64_t> out) const;

 private:
  cpu::WeightedSumModulus constants_{};  // for ifma52
  std::uint64_t c_ = 0;
  std::size_t max_terms_ = 0;
  bool ifma_ok_ = false;
  bool fma_ok_ = false;
};

}  // namespace polyhe::vec
