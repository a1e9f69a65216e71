// Cyclotomic rings Z_q[x]/Φ_m(x): multiplication through length-m cyclic transforms followed by
// reduction modulo Φ_m, and evaluation at the φ(m) primitive m-th roots of unity (the "slots").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/cyclotomic_polynomial.hpp"  // cyclotomic_polynomial
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/plan.hpp"

namespace polyhe {

/// Z_q[x]/Φ_m(x) for m odd (3 ≤ m ≤ CyclicNttPlan::kMaxN) or m a power of two
/// (4 ≤ m ≤ 2^18), with q a prime of at most 62 bits and q ≡ 1 mod m. Elements are coefficient
/// vectors of length degree() = φ(m) in [0, q).
///
/// Odd m: a·b is computed mod x^m − 1 by a length-m CyclicNttPlan (Φ_m | x^m − 1, so the
/// residue mod Φ_m is unchanged), then reduced by long division over the nonzero coefficients
/// of the monic Φ_m. Power-of-two m: Φ_m = x^(m/2) + 1 and the product is the negacyclic one of
/// NttPlan<uint64_t> and polymul.
///
/// Slots: the values a(ω^k) for the φ(m) exponents 1 ≤ k < m with gcd(k, m) = 1, ascending,
/// with ω = omega() a primitive m-th root of unity (the cyclic plan's ω; the negacyclic plan's ψ
/// for power-of-two m). The map is a ring isomorphism onto Z_q^φ(m) with the pointwise product.
///
/// Immutable once created; share through std::shared_ptr<const CyclotomicRing>.
class CyclotomicRing {
 public:
  using u64 = std::uint64_t;

  static constexpr std::size_t kMaxPowerOfTwoM = std::size_t{2} << NttPlan<u64>::kMaxLogN;

  /// Throws InvalidParameter naming the value and the rule when m is neither an odd number in
  /// [3, CyclicNttPlan::kMaxN] nor a power of two in [4, kMaxPowerOfTwoM], or when q is not a
  /// prime of at most 62 bits with q ≡ 1 mod m (or the cyclic planner finds no plan for q).
  static std::shared_ptr<const CyclotomicRing> create(std::size_t m, u64 q);

  CyclotomicRing(const CyclotomicRing&) = delete;
  CyclotomicRing& operator=(const CyclotomicRing&) = delete;

  [[nodiscard]] std::size_t m() const { return m_; }
  /// φ(m): the number of coefficients (and of slots) of an element.
  [[nodiscard]] std::size_t degree() const { return degree_; }
  [[nodiscard]] u64 q() const { return mod_.value(); }
  [[nodiscard]] const Modulus<u64>& modulus() const { return mod_; }
  /// The primitive m-th root of unity that defines the slots.
  [[nodiscard]] u64 omega() const { return omega_; }
  /// Φ_m's coefficients mod q, in [0, q), lowest degree first (degree() + 1 of them).
  [[nodiscard]] std::span<const u64> phi() const { return phi_; }
  /// The slot exponents k: 1 ≤ k < m with gcd(k, m) = 1, ascending (degree() of them).
  [[nodiscard]] std::span<const std::size_t> slot_exponents() const { return slot_k_; }

  /// c = a·b mod (Φ_m, q). Requires a, b, c of size degree() (checked) with coefficients in
  /// [0, q) (a precondition); c may alias a or b. Output in [0, q).
  void multiply(std::span<const u64> a, std::span<const u64> b, std::span<u64> c) const;

  /// The slots of a: a(ω^k) for k in slot_exponents(). Requires a.size() == degree() (checked),
  /// coefficients in [0, q). Output in [0, q).
  [[nodiscard]] std::vector<u64> to_slots(std::span<const u64> a) const;
  /// The element whose slots are v: the exact inverse of to_slots. Same requirements.
  [[nodiscard]] std::vector<u64> from_slots(std::span<const u64> v) const;

 private:
  /// −f_i mod q for a nonzero coefficient f_i of Φ_m, i < φ(m), with its Shoup companion.
  struct PhiTerm {
    std::size_t index;
    ShoupOperand<u64> neg_coeff;
  };

  CyclotomicRing(std::size_t m, u64 q);
  void check_size(std::span<const u64> a, const char* what) const;
  /// Reduces c (length m, entries in [0, q)) mod Φ_m in place: afterwards c[0, φ(m)) holds the
  /// remainder, in [0, q); the entries above are left as they were.
  void reduce_mod_phi(std::span<u64> c) const;

  std::size_t m_;
  std::size_t degree_;
  Modulus<u64> mod_;
  u64 omega_ = 0;
  std::shared_ptr<const CyclicNttPlan> cyclic_;     // odd m
  std::shared_ptr<const NttPlan<u64>> negacyclic_;  // power-of-two m, of length m/2
  std::vector<u64> phi_;
  std::vector<PhiTerm> phi_terms_;
  std::vector<std::size_t> slot_k_;
};

}  // namespace polyhe
