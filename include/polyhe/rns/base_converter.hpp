// Fast base conversion ("FastBConv"): residues of x over a basis B = {q_i} to residues over a
// basis C = {c_j}, coefficient by coefficient, in coefficient form (base conversion does not
// commute with the NTT).
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

/// The conversion from basis B (`from`, |B| limbs) to basis C (`to`, |C| limbs), with its tables
/// built once: q̂_i^−1 mod q_i (Shoup), q̂_i mod c_j, v·Q mod c_j for v ≤ |B|, 1/q_i as double.
/// B and C may share primes (the conversion is then still correct, merely redundant).
///
/// Data layout (docs/design.md): the input holds |B| limbs of N words, limb i at [i·N, (i+1)·N)
/// under q_i, every word in [0, q_i) (a precondition, asserted in debug builds); the output holds
/// |C|·N words, all in [0, c_j). N is inferred from the input size (checked: a whole number of
/// limbs and the same N on both sides). Input and output must not overlap (checked).
/// `threads` as in ntt/batch.hpp: 0 = the default pool's size, 1 = the calling thread only,
/// k > 1 = at most k threads; inputs below vec::kParallelMinWords words run inline.
class BaseConverter {
 public:
  BaseConverter(RnsBasis from, RnsBasis to);

  [[nodiscard]] const RnsBasis& from() const { return from_; }
  [[nodiscard]] const RnsBasis& to() const { return to_; }

  /// The approximate conversion, FastBConv ([FPGA-FV, Alg. 8] line 22; [BEHZ16]; the
  /// ModUp inner loop of [RNS-CKKS-GPU, Alg. 7]):
  ///   y_j = Σ_i [x_i·q̂_i^−1]_{q_i} · (q̂_i mod c_j)  mod c_j.
  /// For x ∈ [0, Q) the integer Σ_i [x_i·q̂_i^−1]_{q_i}·q̂_i equals x + u·Q with 0 ≤ u < |B|
  /// (each term is below q_i·q̂_i = Q and the sum is ≡ x mod Q), so y_j = (x + u·Q) mod c_j:
  /// exact up to an unknown small multiple of Q, which the schemes absorb (ModUp) or remove.
  void convert_approx(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                      unsigned threads = 0) const;

  /// The exact conversion of the centred representative, by the floating-point correction of
  /// Halevi–Polyakov–Shoup (HPS, "An improved RNS variant of the BFV homomorphic encryption
  /// scheme", §2.2): with t_i = [x_i·q̂_i^−1]_{q_i}, v = round(Σ_i t_i/q_i) computed in double,
  ///   y_j = (Σ_i t_i·(q̂_i mod c_j) − v·Q) mod c_j = x_c mod c_j,
  /// where x_c ∈ (−Q/2, Q/2] is the centred representative of x mod Q. Σ t_i/q_i = u + x/Q (x
  /// in [0, Q)), so v is exact unless the double sum lands on the wrong side of a half-integer:
  /// the result is exact whenever |x_c| ≤ Q·(1/2 − exact_error_bound()); otherwise it may be
  /// x_c ± Q (never further off). For inputs meant as non-negative values in [0, Q) the result
  /// is x mod c_j for x ≤ Q/2 and (x − Q) mod c_j above: the caller decides the lift.
  void convert_exact(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                     unsigned threads = 0) const;

  /// As above, but out holds M ≥ |C| limbs and target limb j is written to limb
  /// out_limbs[j] < M of out (distinct positions, checked); the other limbs are left untouched
  /// (ModUp writes around the digit's own limbs this way).
  void convert_approx(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                      std::span<const std::size_t> out_limbs, unsigned threads = 0) const;
  void convert_exact(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                     std::span<const std::size_t> out_limbs, unsigned threads = 0) const;

  /// δ, a bound on |Σ_i t_i/q_i computed in double − the exact sum|: |B|·(|B| + 3)·2^−53.
  [[nodiscard]] double exact_error_bound() const;

  /// The conversion's tables, for the device backends that upload them and run the same sums:
  /// q̂_i mod c_j at [j·|B| + i], v·Q mod c_j at [j·(|B| + 1) + v], 1/q_i (double).
  [[nodiscard]] std::span<const std::uint64_t> q_hat_mod_targets() const { return hat_mod_c_; }
  [[nodiscard]] std::span<const std::uint64_t> q_multiples_mod_targets() const { return q_mod_c_; }
  [[nodiscard]] std::span<const double> inverse_primes() const { return inv_q_; }
  /// Distinct for every converter constructed (copies share it, their tables being equal): the
  /// key under which a device keeps its upload of the tables.
  [[nodiscard]] std::uint64_t id() const { return id_; }

 private:
  void convert(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
               std::span<const std::size_t> out_limbs, bool exact, unsigned threads) const;
  void convert_block(const std::uint64_t* t, std::size_t n, std::size_t k0, std::size_t k1,
                     std::uint64_t* out, std::span<const std::size_t> out_limbs, bool exact) const;

  RnsBasis from_;
  RnsBasis to_;
  std::uint64_t id_;
  std::vector<std::uint64_t> hat_mod_c_;  // [j·|B| + i] = q̂_i mod c_j
  std::vector<std::uint64_t> q_mod_c_;    // [j·(|B| + 1) + v] = v·Q mod c_j, v = 0..|B|
  // [j·(|B| + 1) + i]: q̂_i mod c_j for i < |B|, then −Q mod c_j: the exact conversion's weights
  // on the vector sums, v being one more term.
  std::vector<std::uint64_t> exact_w_;
  std::vector<ShoupOperand<std::uint64_t>> q_mod_c_shoup_;  // Q mod c_j with its Shoup companion
  std::vector<double> inv_q_;                               // 1/q_i
  std::vector<WideBarrett> reduce_;                         // per c_j
  std::vector<std::size_t> identity_;  // 0..|C|−1: the contiguous output placement
  std::vector<std::size_t> chunk_;     // per c_j: products summed before a 128-bit overflow
  // Per c_j: the vector weighted sum (IFMA52 or AVX2 + FMA) where one serves on the active
  // path; the same words as the scalar loop. Up to |B| + 1 terms (the exact conversion's v).
  std::vector<vec::WeightedSum> sums_;
};

}  // namespace polyhe
