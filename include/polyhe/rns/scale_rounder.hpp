// BFV multiplication's scale-and-round in RNS: round(t·x/Q) over the special basis P from the
// residues of x over Q ∪ P, by the "complex scaling" of Halevi–Polyakov–Shoup (HPS, "An improved
// RNS variant of the BFV homomorphic encryption scheme", CT-RSA 2019 / ePrint 2018/117, §4.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/cpu/weighted_sum.hpp"
#include "polyhe/rns/basis.hpp"
#include "polyhe/rns/wide_reduce.hpp"

namespace polyhe {

/// Q = q_0..q_{L−1}, P = p_0..p_{K−1} (disjoint) and t: for x given over Q ∪ P, the residues
/// round(t·x/Q) mod p_k, rounding halves up. Any representative of x mod Q·P gives the same
/// residues (t·Q·P/Q = t·P ≡ 0 mod p_k), so the centred x_c ∈ (−QP/2, QP/2] and [0, QP) agree.
///
/// Algorithm (HPS §4.2). With θ_s = [(QP/s)^−1]_s for each prime s of Q ∪ P, the CRT gives
/// x = Σ_i x_i·θ_i·QP/q_i + Σ_k y_k·θ_k·QP/p_k − u·QP for an integer u, so
///   t·x/Q = Σ_i x_i·(t·θ_i·P/q_i) + Σ_k y_k·t·θ_k·P/p_k − u·t·P.
/// Split t·θ_i·P/q_i = ω_i + λ_i (ω_i = ⌊·⌋, λ_i ∈ [0, 1)); modulo p_k only the k-th term of the
/// middle sum survives:
///   round(t·x/Q) ≡ Σ_i x_i·[ω_i]_{p_k} + y_k·[t·θ_k·P/p_k]_{p_k} + round(Σ_i x_i·λ_i)  (mod p_k).
/// The integer constants are precomputed mod p_k; the one real sum F = Σ_i x_i·λ_i is where HPS
/// use double precision. A residue x_i of up to 62 bits times a double λ_i would carry an error
/// of up to 2^9 units, so each x_i is split as a_i·2^31 + b_i (a_i, b_i < 2^31) and
/// 2^31·λ_i = μ_i + ρ_i (μ_i = ⌊·⌋, ρ_i ∈ [0, 1)), as OpenFHE does for its decryption:
///   F = Σ_i a_i·μ_i  (exact, 128-bit)  +  G,   G = Σ_i (a_i·ρ_i + b_i·λ_i)  (double),
/// and round(F) = Σ_i a_i·μ_i + ⌊G + 1/2⌋ with G computed in double. The whole sum, including
/// round(F), accumulates in 128 bits per target prime with one reduction at the end.
///
/// Error bound: λ_i and ρ_i are stored as the doubles nearest to them (error ≤ 2^−54) and every
/// term is below 2^31, so the computed G + 1/2 is within
///   δ = exact_error_bound() = (2·L² + 6·L + 1)·2^−22
/// of the exact value (2L representation errors of 2^−23, 2L product roundings of 2^−22, the
/// j-th partial sum's rounding of j·2^−22, and the final +1/2; a fused multiply-add only removes
/// roundings). frac(G) = frac(t·x/Q), so the output is exactly round(t·x/Q) mod p_k unless the
/// fractional part of t·x/Q lies within δ of 1/2, where it may instead be the other neighbour:
/// always ⌊t·x/Q⌋ or ⌈t·x/Q⌉ (δ < 1/2 needs L ≤ kMaxQPrimes). For L = 8, δ ≈ 4.2·10^−5.
///
/// For BFV (HPS §4): the tensor product of two ciphertexts extended from Q to Q ∪ P by
/// BaseConverter(Q, P).convert_exact is x here; the result over P is lifted back to Q by
/// BaseConverter(P, Q).convert_exact, which is exact when |round(t·x_c/Q)| < P·(1/2 − its
/// exact_error_bound()) — a condition on the parameters (P large enough against t·N·Q), not
/// checked here.
///
/// Data layout: in holds (L + K)·N words, Q's limbs first (limb i under q_i), then P's (limb
/// L + k under p_k), each word below its prime (a precondition, asserted in debug builds); out
/// holds K·N words, limb k under p_k, each in [0, p_k). N is inferred from the input (checked:
/// a whole, non-zero number of limbs; out.size() = K·N); in and out must not overlap (checked).
/// `threads` as in BaseConverter.
class ScaleRounder {
 public:
  /// The plaintext moduli served: 2 ≤ t ≤ kMaxPlainModulus (= 2^60 − 1); t needs no coprimality.
  static constexpr std::uint64_t kMaxPlainModulus = (std::uint64_t{1} << 60) - 1;
  /// The most primes Q may have: beyond it δ could reach 1/2. Every basis qualifies
  /// (RnsBasis::kMaxPrimes is below it, checked at compile time).
  static constexpr std::size_t kMaxQPrimes = 1000;

  /// Validates (InvalidParameter naming the value): t in [2, 2^60); no prime in both Q and P.
  ScaleRounder(RnsBasis q, RnsBasis p, std::uint64_t t);

  [[nodiscard]] const RnsBasis& q_basis() const { return q_; }
  [[nodiscard]] const RnsBasis& p_basis() const { return p_; }
  /// Q ∪ P in the input's limb order.
  [[nodiscard]] const RnsBasis& extended_basis() const { return qp_; }
  [[nodiscard]] std::uint64_t plain_modulus() const { return t_; }

  /// δ: the output is exact unless frac(t·x/Q) is within δ of 1/2.
  [[nodiscard]] double exact_error_bound() const;

  /// out limb k = round(t·x/Q) mod p_k for each coefficient (exact outside the δ-window).
  void round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
             unsigned threads = 0) const;

  /// The split of each residue x_i = a_i·2^kSplit + b_i, and the tables of the algorithm above,
  /// for the device backends that run the same sums: μ_i, λ_i, ρ_i (i < L) and the rows of
  /// [ω_i]_{p_k} (i < L) followed by t·θ_{L+k}·P/p_k mod p_k, L + 1 words per p_k.
  static constexpr int kSplit = 31;
  [[nodiscard]] std::span<const std::uint64_t> mu() const { return mu_; }
  [[nodiscard]] std::span<const double> lambda() const { return lambda_; }
  [[nodiscard]] std::span<const double> rho() const { return rho_; }
  [[nodiscard]] std::span<const std::uint64_t> omega() const { return omega_; }
  /// Distinct per rounder constructed (copies share it): the key of a device's upload.
  [[nodiscard]] std::uint64_t id() const { return id_; }

 private:
  void round_block(const std::uint64_t* x, std::size_t n, std::size_t k0, std::size_t k1,
                   std::uint64_t* out) const;

  RnsBasis q_;
  RnsBasis p_;
  RnsBasis qp_;
  std::uint64_t t_;
  std::uint64_t id_;
  std::vector<std::uint64_t> mu_;     // μ_i = ⌊2^31·λ_i⌋
  std::vector<double> lambda_;        // λ_i = frac(t·θ_i·P/q_i)
  std::vector<double> rho_;           // ρ_i = frac(2^31·λ_i)
  std::vector<std::uint64_t> omega_;  // [k·(L + 1) + i] = ω_i mod p_k; [k·(L + 1) + L] =
                                      // t·θ_{L+k}·P/p_k mod p_k
  std::vector<WideBarrett> reduce_;   // per p_k
  std::vector<std::size_t> chunk_;    // per p_k: products summed before a 128-bit overflow
  // The vector weighted sums per p_k where they serve on the active path (vec::WeightedSum),
  // over L + 3 terms: x_0..x_{L−1}, y_k, and the integer part Σ_i a_i·μ_i + ⌊G + 1/2⌋ as
  // lo + hi·2^32 (vec::scale_round_parts), with the weights ω_0..ω_{L−1}, the own-limb
  // constant, 1 and 2^32 mod p_k.
  std::vector<vec::WeightedSum> sums_;
  std::vector<std::uint64_t> weights_;  // [k·(L + 3) + term]
};

}  // namespace polyhe
