// Hybrid key switching (Han–Ki; RNS-CKKS paper KeySwitch with ModUp/ModDown), in evaluation form.
#pragma once

#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/keys.hpp"

#include <span>
#include <vector>

namespace polyhe::rlwe {

/// The working layout of a polynomial over Q_l ∪ P: Q_l's l + 1 limbs, then P's k limbs (the
/// ring numbers P's primes L + 1 … L + k), with the plans and moduli in that order.
struct QpLayout {
  QpLayout(const Parameters& params, std::size_t level);
  std::size_t q_limbs;
  std::size_t p_limbs;
  std::vector<const NttPlan<std::uint64_t>*> plans;
  std::vector<Modulus<std::uint64_t>> moduli;
  [[nodiscard]] std::span<const Modulus<std::uint64_t>> mod_q() const {
    return std::span<const Modulus<std::uint64_t>>(moduli).first(q_limbs);
  }
  [[nodiscard]] std::span<const Modulus<std::uint64_t>> mod_p() const {
    return std::span<const Modulus<std::uint64_t>>(moduli).subspan(q_limbs);
  }
};

/// Per-thread scratch buffers reused across calls (a key switch at N = 2^14 would otherwise
/// allocate and page-fault in several MiB per call). Slot `slot` holds at least `words` words
/// until the next call with the same slot on this thread; internal to rlwe's operations.
enum ScratchSlot : std::size_t {
  kScratchConv,
  kScratchCoef,
  kScratchUp,
  kScratchAcc0,
  kScratchAcc1,
  kScratchEncV,
  kScratchAdd0,
  kScratchAdd1,
  kScratchSlots
};
std::span<std::uint64_t> scratch(std::size_t slot, std::size_t words);

/// ModDown in evaluation form: `acc` holds (l + 1 + k)·N words over Q_l ∪ P (QpLayout order),
/// evaluation form; u receives round(acc/P) over Q_l in evaluation form, exactly (the centred
/// residue mod P converted exactly: a lift for k = 1, the HPS conversion above). Only the k
/// special limbs leave evaluation form: they are converted to Q_l and transformed under each q_i.
/// acc's P limbs are overwritten. `addend`: empty, or (l + 1 + k)·N words over Q_l ∪ P in
/// coefficient form, added to acc before the division (round((acc + addend)/P)) without
/// transforms of its own: its P limbs join acc's after their inverse transform, its Q limbs the
/// converted correction before its forward transform (encryption's errors and message).
/// accumulate: u += the result instead of u = (u must then be at level l, evaluation form).
void mod_down(const Parameters& params, std::size_t level, std::span<std::uint64_t> acc, RnsPoly& u,
              std::span<const std::uint64_t> addend = {}, bool accumulate = false);

/// For d at level l (evaluation form, l + 1 limbs) and a key switching s' → s, computes (u_0, u_1)
/// at level l, evaluation form, with u_0 + u_1·s ≈ d·s' (error about Σ_j D_j·‖e_j‖·√N / P plus
/// the rounding of ModDown). Steps: centred ModUp of each digit D_j of Q_l (coefficient form) to
/// Q_l ∪ P, forward NTT of the limbs that are not the digit's own (those are d's), and the inner
/// product with the key over Q_l ∪ P, limb by limb with both halves at once (for one-prime digits
/// the digits' copies of one target limb are built just before its inner product, so only one
/// limb's copies are live); then ModDown in evaluation form: only the k special limbs go back to
/// coefficient form, are converted to Q_l and transformed again, so the Q_l limbs never leave
/// evaluation form. Limbs are spread over the default thread pool.
/// Checks: key and d share Parameters (MismatchedContext), d in evaluation form.
/// accumulate: (u_0, u_1) += the switched pair instead of = (both at d's level, evaluation form,
/// checked), e.g. straight into the ciphertext being relinearised.
void key_switch(const RnsPoly& d, const KeySwitchKey& key, RnsPoly& u0, RnsPoly& u1,
                bool accumulate = false);

}  // namespace polyhe::rlwe
