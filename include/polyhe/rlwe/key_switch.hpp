// Hybrid key switching (Han–Ki; RNS-CKKS paper KeySwitch with ModUp/ModDown), in evaluation form:
// the ring operation of ring/key_switching.hpp under a parameter set's tables and a key.
#pragma once

#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::rlwe {

/// For d at level l (evaluation form, l + 1 limbs) and a key switching s' → s, computes (u_0, u_1)
/// at level l, evaluation form, with u_0 + u_1·s ≈ d·s' (ring/key_switching.hpp: ModUp of each
/// digit, the inner product with the key over Q_l ∪ P, ModDown), where d and the key live (both
/// on the host or both on one device, checked). Checks: key and d share Parameters
/// (MismatchedContext), d in evaluation form. accumulate: (u_0, u_1) += the switched pair
/// instead of = (both at d's level and placement, evaluation form, checked), e.g. straight into
/// the ciphertext being relinearised.
void key_switch(const RnsPoly& d, const KeySwitchKey& key, RnsPoly& u0, RnsPoly& u1,
                bool accumulate = false);

}  // namespace polyhe::rlwe
