// BFV decryption's rounding in RNS: m = round(t·x/Q) mod t from the residues of x over Q, with the
// redundant modulus γ of Bajard–Eynard–Hasan–Zucca (BEHZ, "A full RNS variant of FV like somewhat
// homomorphic encryption schemes", SAC 2016, §4) as SEAL runs it ([FPGA-FV, Alg. 8]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/cpu/weighted_sum.hpp"
#include "polyhe/rns/basis.hpp"
#include "polyhe/rns/wide_reduce.hpp"

namespace polyhe {

/// round(t·x/Q) mod t for x ∈ [0, Q) given over the basis Q = q_0..q_{L−1} (the decryption of a
/// BFV ciphertext: x = [c_0 + c_1·s]_Q in coefficient form), rounding halves up (t·x/Q is never a
/// half-integer when Q is odd).
///
/// Algorithm ([BEHZ16] §4, [FPGA-FV, Alg. 8]), γ a prime coprime to t and Q:
///   1. y = [γ·t·x]_Q, limb by limb, and τ_i = [y_i·q̂_i^−1]_{q_i} (one Shoup product: the
///      constant γ·t·q̂_i^−1 mod q_i folds both);
///   2. FastBConv to {t, γ} times −Q^−1 (folded: s_m = Σ_i τ_i·[−q̂_i·Q^−1]_m mod m). With
///      S = Σ_i τ_i·q̂_i = y + α·Q, 0 ≤ α < L, and W = (γ·t·x − S)/Q ∈ Z, s_m = W mod m for both
///      m = t and m = γ (γ·t·x ≡ 0 mod m);
///   3. e = s_γ centred into (−γ/2, γ/2), and m = (s_t − e)·γ^−1 mod t = A mod t, A = (W − e)/γ.
///
/// Exactness (derived in decrypt_rounder.cpp): write t·x/Q = R + δ with R = round(t·x/Q) and
/// δ ∈ [−1/2, 1/2). Then A = R − 1 when δ ≤ −1/2 + S/(γ·Q) and A = R otherwise; S/(γ·Q) < L/γ.
/// So the output is exactly round(t·x/Q) mod t unless the fractional part of t·x/Q lies in
/// [1/2, 1/2 + L/γ), where it may be one less. For a BFV ciphertext with x ≡ Δ·m + v (mod Q),
/// Δ = ⌊Q/t⌋, r = Q mod t, 0 ≤ m < t, δ = (t·v − r·m)/Q and the output is m exactly whenever
///   |v| ≤ bfv_max_noise(·) = ⌊(γ·Q − 2·L·Q − 2·γ·r·(t − 1)) / (2·γ·t)⌋
/// (i.e. t·|v| + r·(t − 1) ≤ Q·(1/2 − L/γ)), the textbook bound Q/(2t) less Q·L/(γ·t) (γ's
/// share, about 2^−46·Q/t for L = 8 and a 50-bit γ) and r·(t − 1)/t (from Δ·t = Q − r).
///
/// γ: the largest prime that is not a prime of Q and does not divide t, below 2^50 when every
/// prime of Q is below 2^52 (so that the IFMA52 weighted sums serve the conversion to γ; L/γ ≈
/// L·2^−50 is still far below any noise margin a parameter set leaves), else below 2^61 (2^61 − 1
/// unless Q holds it, as SEAL takes a 61-bit prime).
///
/// Data layout (docs/design.md): in holds L limbs of N words, limb i at [i·N, (i+1)·N), each word
/// in [0, q_i) (a precondition, asserted in debug builds); out holds N words, each in [0, t). N is
/// inferred from the input (checked: a whole, non-zero number of limbs; out.size() = N); in and
/// out must not overlap (checked). `threads` as in BaseConverter: 0 = the default pool's size,
/// 1 = the calling thread only, k > 1 = at most k threads; small inputs run inline.
/// No branch depends on the data (the centring of s_γ is a mask).
class BfvDecryptRounder {
 public:
  /// The plaintext moduli served: 2 ≤ t ≤ kMaxPlainModulus (= 2^60 − 1).
  static constexpr std::uint64_t kMaxPlainModulus = (std::uint64_t{1} << 60) - 1;

  /// Validates (InvalidParameter naming the value): t in [2, 2^60); t coprime to every q_i
  /// (q_i does not divide t), since −Q^−1 mod t is needed.
  BfvDecryptRounder(RnsBasis q, std::uint64_t t);

  [[nodiscard]] const RnsBasis& basis() const { return q_; }
  [[nodiscard]] std::uint64_t plain_modulus() const { return t_; }
  /// The redundant prime γ.
  [[nodiscard]] std::uint64_t gamma() const { return gamma_; }
  /// L/γ: the width of the only window [1/2, 1/2 + L/γ) of frac(t·x/Q) where the output may be
  /// one below round(t·x/Q) mod t.
  [[nodiscard]] double inexact_band() const;
  // The largest noise |v| that always decrypts (formula above) is bfv_max_noise(rounder), a big
  // integer (rns/bigint.hpp).

  /// out[c] = round(t·x_c/Q) mod t, x_c the integer in [0, Q) that limbs c of `in` represent
  /// (exact outside the window above).
  void round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
             unsigned threads = 0) const;

 private:
  void round_block(const std::uint64_t* x, std::size_t n, std::size_t k0, std::size_t k1,
                   std::uint64_t* out) const;
  /// Step 3 on len coefficients from s_t and s_γ.
  void finish(const std::uint64_t* s_t, const std::uint64_t* s_g, std::size_t len,
              std::uint64_t* y) const;

  RnsBasis q_;
  std::uint64_t t_;
  std::uint64_t gamma_;
  std::vector<ShoupOperand<std::uint64_t>> scale_;  // [γ·t·q̂_i^−1]_{q_i}
  std::vector<std::uint64_t> to_t_;                 // [−q̂_i·Q^−1]_t
  std::vector<std::uint64_t> to_gamma_;             // [−q̂_i·Q^−1]_γ
  std::size_t chunk_;                               // products summed before a 128-bit overflow
  WideBarrett reduce_t_;
  WideBarrett reduce_gamma_;
  std::uint64_t gamma_mod_t_;
  ShoupOperand<std::uint64_t> gamma_inv_t_;  // γ^−1 mod t
  // The vector weighted sums (IFMA52 or AVX2 + FMA) of the two folds, mod t and mod γ, where
  // they serve on the active path.
  vec::WeightedSum sum_t_;
  vec::WeightedSum sum_gamma_;
};

}  // namespace polyhe
