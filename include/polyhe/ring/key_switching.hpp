// Hybrid key switching, ModDown and public-key encryption's ModDown as ring operations
// ([RNS-CKKS-GPU, Alg. 7/17] ModUp, [RNS-CKKS-GPU, Alg. 8/18] ModDown; Han–Ki hybrid key
// switching, [HK20]); rescaling is ring/rescale.hpp. Each runs where its polynomials live: on the
// host the CPU kernels (fused where the CPU gains by it: ModUp with the inner product limb by limb,
// the lift with the transform), on a device the device's kernels in the order the paper gives them
// — the same words either way. The schemes (rlwe, ckks, bgv) call these; they never touch a kernel.
//
// Layout of a polynomial over Q_l ∪ P (the working basis of key switching): Q_l's l + 1 limbs,
// then P's k limbs; the ring numbers P's primes L + 1 … L + k (they follow Q's in the basis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "polyhe/ring/key_parts.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/key_switch_basis.hpp"

namespace polyhe {

/// What key switching needs of a parameter set (rlwe::Parameters::key_switching() makes it; the
/// pointed-to tables live as long as those parameters). The ring holds Q = q_0..q_L, then P.
struct HybridKeySwitch {
  std::shared_ptr<const RingContext> ring;
  const KeySwitchBasis* basis = nullptr;
  /// P → Q_l for each level l (the exact, centred conversion of ModDown).
  std::span<const BaseConverter> p_to_q;
  /// P^−1 mod q_i and P mod q_i, i ≤ L.
  std::span<const std::uint64_t> p_inv_mod_q;
  std::span<const std::uint64_t> p_mod_q;
  [[nodiscard]] std::size_t max_level() const { return basis->max_level(); }
  [[nodiscard]] std::size_t p_count() const { return basis->p().size(); }
};

/// For d at level l (evaluation form, l + 1 limbs) and a key switching s' → s, (u_0, u_1) at level
/// l, evaluation form, with u_0 + u_1·s ≈ d·s' (error about Σ_j D_j·‖e_j‖·√N / P plus ModDown's
/// rounding): the centred ModUp of each digit D_j of Q_l to Q_l ∪ P, the forward transform of the
/// limbs that are not the digit's own (those are d's), the inner product with the key over
/// Q_l ∪ P, and ModDown in evaluation form (only the k special limbs leave it). accumulate:
/// (u_0, u_1) += the switched pair (both at d's level and placement, evaluation form, checked).
/// Checks: d, the key and the outputs of ks.ring and one placement (MismatchedContext), d in
/// evaluation form with at most L + 1 limbs, the key's count ≥ the digits at d's level.
void key_switch(const HybridKeySwitch& ks, const RnsPoly& d, const KeySwitchParts& key, RnsPoly& u0,
                RnsPoly& u1, bool accumulate = false);

/// Hoisted key switching (Halevi–Shoup's hoisting): for every target r, (u0[r], u1[r]) are the
/// words key_switch(ks, d.automorphism(galois[r]), *keys[r], *u0[r], *u1[r]) gives — on x^N + 1
/// the automorphism commutes with ModUp's centred lift and with the transform, so d's ModUp is
/// made once and each target permutes its digits (a gather) before its inner product and
/// ModDown. Over Φ_m (odd m) it does not commute, and each target is switched on its own. The
/// outputs at d's level and placement, evaluation form. Checks: as key_switch for d and each key;
/// one Galois element (RingContext::is_galois_element), key and pair of outputs per target; no
/// output null, d, or another output.
void key_switch_hoisted(const HybridKeySwitch& ks, const RnsPoly& d,
                        std::span<const std::uint64_t> galois,
                        std::span<const KeySwitchParts* const> keys, std::span<RnsPoly* const> u0,
                        std::span<RnsPoly* const> u1);

/// Public-key encryption over Q_l ∪ P (SEAL's): with v ternary and e_0, e_1 small (signed
/// coefficients, N each, |x| < every prime), (c_0, c_1) = ModDown((v·b + e_0 + P·m, v·a + e_1)):
/// only v is transformed; the errors (and a coefficient-form message m at level l, times P) enter
/// ModDown as coefficient-form addends. (b, a) over all of Q ∪ P in evaluation form; m null or at
/// level l in coefficient form. The results at level l, evaluation form, where the key lives.
/// Checks: the key over ks.ring's L + 1 + k limbs, level ≤ L, sizes N, m's ring, level, form and
/// placement.
void encrypt_with_public_key(const HybridKeySwitch& ks, std::size_t level,
                             std::span<const std::int64_t> v, std::span<const std::int64_t> e0,
                             std::span<const std::int64_t> e1, const RnsPoly& b, const RnsPoly& a,
                             const RnsPoly* m, RnsPoly& c0, RnsPoly& c1);

}  // namespace polyhe
