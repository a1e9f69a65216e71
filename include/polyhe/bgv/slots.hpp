// SlotEncoder: the plaintext slots of BGV over Z_t[X]/Φ_m(X) for odd m and t = p^r a prime power
// with p ∤ m, as HElib has them. Φ_m splits mod p into k = φ(m)/d irreducible factors of degree
// d = ord_m(p), which lift uniquely to Z_t (Hensel), and Z_t[X]/Φ_m ≅ E^k (CRT): k slots, each an
// element of E = GF(p^d) for r = 1, the Galois ring GR(p^r, d) for r > 1.
//
// Concretely (Halevi–Shoup, "Algorithms in HElib", §2): E = Z_t[Y]/G(Y) for a fixed monic G of
// degree d irreducible mod p (field_modulus()); ζ ∈ E a primitive m-th root of unity;
// representatives h_i of the k cosets of the subgroup <p> of Z_m^*, arranged as a hypercube h =
// g_1^(e_1)·…·g_r^(e_r) (generators(), orders(); slot index row-major over (e_1, …, e_r), e_1
// outermost). Slot i of a is a(ζ^(h_i)) ∈ E; the factor of Φ_m it belongs to is the minimal
// polynomial F_i of ζ^(h_i).
//
// An automorphism σ_g: X → X^g (g ∈ Z_m^*) moves slots: with g·h_i = h_j·p^e (mod m), slot i of
// σ_g(a) is σ^e(slot j of a), where σ is E's Frobenius: the automorphism with σ(ζ) = ζ^p, which is
// y ↦ y^p for r = 1 (automorphism_action, frobenius). Along a hypercube dimension, σ_(g_r) rotates
// the slots by one step (with Frobenius and carries where the dimension wraps, exactly as
// automorphism_action says).
//
// The factors mod p are the minimal polynomials of the roots ζ^(h_i), found by Berlekamp–Massey
// from the traces of their powers in GF(p^d) (FLINT's finite-field arithmetic); for r > 1, ζ is
// lifted by Newton's iteration on Y^m − 1 and the factors by FLINT's multifactor Hensel lifting.
// Their product is checked against Φ_m mod t when the encoder is built, and the tests compare them
// with FLINT's own factorisation (nmod_poly_factor_equal_deg) mod p. Encoding maps each slot value
// v(Y) to v(γ_i) mod F_i, where γ_i is the residue that X ↦ ζ^(h_i) takes to Y (a d×d table of its
// powers per slot for d ≤ 64, FLINT's modular composition above), and combines the slots by a CRT
// tree; decoding reduces by a remainder tree and evaluates at ζ^(h_i). Plaintexts are
// powerful-basis coordinates (RingContext), converted to and from the power basis on the way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace polyhe::bgv {

/// Immutable once created; shared through std::shared_ptr<const SlotEncoder>. Threads: the const
/// members only read the tables and FLINT objects built by create(), and may run on several
/// threads at once (FLINT is thread-safe on distinct outputs).
class SlotEncoder {
 public:
  using u64 = std::uint64_t;

  /// The largest slot degree served, by the cost of building the encoder, which grows with d and
  /// log p (mostly the search for E's modulus, whose length is random): at d = 256, 0.1–0.3 s for
  /// p = 3 and 2–3 s for a 60-bit p on one core; at d = 546 with a 60-bit p, minutes.
  static constexpr std::size_t kMaxSlotDegree = 256;

  /// Odd m in [3, 2^17], t = p^r below 2^62 (p prime, r ≥ 1) with p ∤ m and ord_m(p) ≤
  /// kMaxSlotDegree (InvalidParameter naming the value and the rule otherwise). Builds E, the
  /// hypercube, the factors and the trees.
  static std::shared_ptr<const SlotEncoder> create(std::size_t m, u64 t);

  ~SlotEncoder();
  SlotEncoder(const SlotEncoder&) = delete;
  SlotEncoder& operator=(const SlotEncoder&) = delete;

  [[nodiscard]] std::size_t m() const { return m_; }
  [[nodiscard]] u64 t() const { return t_; }
  /// t = p^r: the prime p and the exponent r.
  [[nodiscard]] u64 prime() const { return p_; }
  [[nodiscard]] unsigned exponent() const { return r_; }
  /// φ(m): the plaintext's coordinates.
  [[nodiscard]] std::size_t degree() const { return phi_; }
  /// d = ord_m(p): the rank of E over Z_t and the degree of every factor of Φ_m mod t.
  [[nodiscard]] std::size_t slot_degree() const { return d_; }
  /// k = φ(m)/d.
  [[nodiscard]] std::size_t slot_count() const { return k_; }
  /// G's d + 1 coefficients, lowest degree first (monic, each < p, irreducible mod p):
  /// E = Z_t[Y]/G(Y).
  [[nodiscard]] std::span<const u64> field_modulus() const { return field_modulus_; }
  /// ζ's d coefficients in E.
  [[nodiscard]] std::span<const u64> zeta() const { return zeta_; }
  /// The representative h_i of every slot (an element of Z_m^*).
  [[nodiscard]] std::span<const std::size_t> representatives() const { return reps_; }
  /// The hypercube: generators g_r of Z_m^*/⟨p⟩ and their orders n_r there. Slot i's
  /// representative is h_i = g_1^(e_1)·…·g_r^(e_r) mod m, i row-major over (e_1, …, e_r).
  [[nodiscard]] std::span<const std::size_t> generators() const { return generators_; }
  [[nodiscard]] std::span<const std::size_t> orders() const { return orders_; }
  /// A good dimension: g_r^(n_r) ≡ 1 mod m, so σ_(g_r^k) rotates the slots along it by k with no
  /// Frobenius and no other coordinate moving (one automorphism per rotation). The generators are
  /// chosen good wherever the group allows.
  [[nodiscard]] bool good_dimension(std::size_t r) const { return wrap_frobenius_.at(r) == 0; }
  /// A bad dimension where g_r^(n_r) ≡ p^f: the slots that wrap come back as σ^f of what left
  /// (f in [1, d)); 0 for a good dimension; kNotFrobenius where g_r^(n_r) ∉ ⟨p⟩ (the wrap also
  /// moves earlier coordinates). Rotations handle all three (bgv/slot_array.hpp).
  static constexpr std::size_t kNotFrobenius = static_cast<std::size_t>(-1);
  [[nodiscard]] std::size_t wrap_frobenius(std::size_t r) const { return wrap_frobenius_.at(r); }
  /// F_i's d + 1 coefficients (monic), lowest degree first.
  [[nodiscard]] std::vector<u64> factor(std::size_t slot) const;

  /// k slot values (slot i's d coefficients in E at [i·d, (i+1)·d), each < t) → the φ(m)
  /// powerful-basis coordinates of the plaintext, in [0, t). InvalidParameter on a wrong length
  /// or a value ≥ t (naming its index).
  [[nodiscard]] std::vector<u64> encode(std::span<const u64> slots) const;
  /// The inverse: φ(m) coordinates (each < t, checked) → the k·d slot coefficients.
  [[nodiscard]] std::vector<u64> decode(std::span<const u64> coordinates) const;

  /// Where σ_g takes each slot from: slot i of σ_g(a) is σ^frobenius(slot `source` of a).
  struct SlotMove {
    std::size_t source;
    std::size_t frobenius;  // in [0, d)
  };
  /// g a unit mod m (InvalidParameter otherwise).
  [[nodiscard]] std::vector<SlotMove> automorphism_action(u64 g) const;
  /// σ^e of one slot value (d coefficients, each < t; checked): v(Y) ↦ v(σ^e(Y)).
  [[nodiscard]] std::vector<u64> frobenius(std::span<const u64> value, std::size_t e) const;
  /// The product of two slot values in E (the slot-wise product of plaintexts).
  [[nodiscard]] std::vector<u64> multiply(std::span<const u64> x, std::span<const u64> y) const;

 private:
  struct Impl;
  SlotEncoder(std::size_t m, u64 t);

  std::size_t m_;
  u64 t_;
  u64 p_ = 0;
  unsigned r_ = 0;
  std::size_t phi_ = 0;
  std::size_t d_ = 0;
  std::size_t k_ = 0;
  std::vector<u64> field_modulus_;
  std::vector<u64> zeta_;
  std::vector<std::size_t> reps_;
  std::vector<std::size_t> generators_;
  std::vector<std::size_t> orders_;
  std::vector<std::size_t> wrap_frobenius_;  // per dimension: f with g_r^(n_r) = t^f, or kNot…
  std::vector<u64> exponents_;               // powerful_exponents(m)
  std::vector<std::uint32_t> coset_;  // u ∈ Z_m^* → slot j with u ∈ h_j·<p> (m entries)
  std::vector<std::uint32_t> coset_power_;  // … and e with u = h_j·p^e
  std::unique_ptr<Impl> impl_;              // FLINT objects
};

}  // namespace polyhe::bgv
