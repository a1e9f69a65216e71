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

/// The constants of an odd c < 2^62 for the wide sums: the weights enter in Montgomery form
/// w·2^104 mod c, and each sum is brought back by a Montgomery reduction in two 52-bit digits.
struct WeightedSumWideModulus {
  std::uint64_t c;
  std::uint64_t cinv52;      // −c^−1 mod 2^52
  std::uint64_t r104;        // 2^104 mod c
  std::uint64_t r104_shoup;  // ⌊r104·2^64 / c⌋, for w·2^104 mod c as a Shoup product
};

/// The constants for an odd c with 3 ≤ c < 2^62.
WeightedSumWideModulus make_weighted_sum_wide_modulus(std::uint64_t c);

/// The constants of an odd c < 2^62 for the wide sums in 32-bit products (AVX2): the weights
/// enter in Montgomery form w·2^(32·steps) mod c, and each sum is brought back by `steps`
/// Montgomery steps of 32 bits: three for c ≥ 2^42, else four.
struct WeightedSumWide32Modulus {
  std::uint64_t c;
  std::uint64_t cinv32;   // −c^−1 mod 2^32
  unsigned steps;         // 3 or 4
  std::uint64_t r;        // 2^(32·steps) mod c
  std::uint64_t r_shoup;  // ⌊r·2^64 / c⌋, for w·2^(32·steps) mod c as a Shoup product
};

/// The constants for an odd c with 3 ≤ c < 2^62.
WeightedSumWide32Modulus make_weighted_sum_wide32_modulus(std::uint64_t c);

}  // namespace polyhe::cpu

namespace polyhe::vec {

/// Which kernel a WeightedSum runs on the active CPU path.
enum class WeightedSumPath {
  none,     // none serves: the caller's scalar loop
  ifma52,   // IFMA52: every x < 2^52, c < 2^50 (c ≠ 2^49), at most 2048 terms; the IFMA path
  ifma62,   // IFMA52 in two-digit words: any x, odd c < 2^62, at most 1024 terms; the IFMA path
            // where ifma52 does not serve (the 60-bit primes of bootstrapping chains)
  fma50,    // exact double-precision products, every x ≤ 2^50, c < 2^50: on four lanes (AVX2 +
            // FMA) on the avx2 path, on eight (AVX-512) on the avx512 path and on the ifma path
            // where IFMA52 does not serve
  avx2_62,  // AVX2's 32-bit products in 21- and 32-bit digits: any x, odd 2^10 ≤ c < 2^62, at
            // most 1024 terms; the avx2 and avx512 paths where fma50 does not serve (the 60-bit
            // primes of bootstrapping chains)
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
  cpu::WeightedSumModulus constants_{};     // for ifma52
  cpu::WeightedSumWideModulus wide_{};      // for ifma62
  cpu::WeightedSumWide32Modulus wide32_{};  // for avx2_62
  std::uint64_t c_ = 0;
  std::size_t max_terms_ = 0;
  bool ifma_ok_ = false;
  bool wide_ok_ = false;    // ifma62
  bool wide32_ok_ = false;  // avx2_62
  bool fma_ok_ = false;
  bool avx512_ok_ = false;  // fma50 on eight lanes
};

/// The exact base conversion's correction count (HPS; rns/base_converter.hpp): for each k,
///   s[k] = Σ_i double(t[i][k])·inv[i], summed left to right from 0 in double, each product and
///          each sum rounded once to nearest (never fused), double(x) the nearest double to x;
///   v[k] = min(⌊s[k] + 1/2⌋, cap), s[k] + 1/2 rounded once.
/// On the active path's vector kernel (AVX2 on avx2, AVX-512 on avx512 and ifma) or the scalar
/// loop: the same words on every path. Checked (InvalidParameter): t non-empty, no t[i] null,
/// inv.size() == t.size(), s.size() == v.size(). Preconditions: every t[i] points to v.size()
/// words below 2^63; Σ_i t[i][k]·inv[i] ≥ 0 and below 2^51 (for BaseConverter: at most |B|).
void fraction_round(std::span<const std::uint64_t* const> t, std::span<const double> inv,
                    std::uint64_t cap, std::span<double> s, std::span<std::uint64_t> v);

/// The scale-and-round's exact and rounded parts (HPS; rns/scale_rounder.hpp): for each k, with
/// a_i = x[i][k] >> 31 and b_i = x[i][k] mod 2^31,
///   g[k]  = Σ_i (a_i·rho[i], then b_i·lambda[i]), summed left to right from 0 in double, each
///           product and each sum rounded once to nearest (never fused);
///   lo[k] = Σ_i (a_i·mu[i] mod 2^32) + ⌊g[k] + 1/2⌋,  hi[k] = Σ_i ⌊a_i·mu[i] / 2^32⌋,
/// so hi·2^32 + lo = Σ_i a_i·mu[i] + ⌊g + 1/2⌋. On the active path's vector kernel (AVX2 on avx2,
/// AVX-512 on avx512 and ifma) or the scalar loop: the same words on every path. Checked
/// (InvalidParameter): x non-empty, no x[i] null, every mu[i] < 2^31, mu, rho and lambda one per
/// term, g, lo and hi of one length. Preconditions: every x[i] points to lo.size() words below
/// 2^62; every rho[i], lambda[i] ≥ 0 and g below 2^52; fewer than 2^31 terms.
void scale_round_parts(std::span<const std::uint64_t* const> x, std::span<const std::uint64_t> mu,
                       std::span<const double> rho, std::span<const double> lambda,
                       std::span<double> g, std::span<std::uint64_t> lo,
                       std::span<std::uint64_t> hi);

}  // namespace polyhe::vec
