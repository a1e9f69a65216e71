// Ciphertext operations every RLWE scheme shares (CKKS, BFV, BGV): sums, negation, the tensor
// product's relinearisation and Galois automorphisms with key switching. They know nothing of
// scales or plaintext moduli: each scheme checks its own invariants first, then calls these.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::rlwe {

/// a += b (a −= b): same Parameters (MismatchedContext) and level (InvalidParameter naming both);
/// sizes 2 or 3, a grows to b's size. a's scale and factor are kept (the scheme aligns them
/// first).
void add_inplace(Ciphertext& a, const Ciphertext& b);
void sub_inplace(Ciphertext& a, const Ciphertext& b);
void negate_inplace(Ciphertext& a);
/// a + b (a − b) as a new ciphertext of the larger size, written in one pass over both operands
/// (no copy of a first: 3 instead of 5 ciphertexts of memory traffic). Checks as add_inplace; the
/// result keeps a's scale and factor.
[[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b);
[[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b);

/// The size-3 ciphertext (c_0, c_1, c_2) back to size 2 with the relinearisation key
/// (s² → s): (c_0 + u_0, c_1 + u_1) for (u_0, u_1) = key_switch(c_2). A size-2 input is returned
/// as it is. Checks: the key is a relinearisation key of the same Parameters.
///
/// error_multiple = μ > 1 (BGV passes t): the keys' error is not a multiple of t, so the switch
/// runs on μ^−1·c_2 mod Q_l and its result is multiplied by μ:
///   μ·(u_0 + u_1·s) = μ·(μ^−1·c_2·s' + e_ks) = c_2·s' + μ·e_ks  (mod Q_l),
/// an error that is a multiple of μ (BGV's t·e) for one extra scalar pass over c_2 and two over
/// (u_0, u_1). μ must be a unit modulo every q_i ≤ q_l (InvalidParameter naming μ and q_i).
/// μ = 1 is the plain key switch (CKKS, BFV). The output keeps a's scale and factor.
[[nodiscard]] Ciphertext relinearize(const Ciphertext& a, const KeySwitchKey& key,
                                     std::uint64_t error_multiple = 1);

/// σ_k(a) switched back to s with the Galois key for k = key.galois_element:
/// (σ_k(c_0) + u_0, u_1) for (u_0, u_1) = key_switch(σ_k(c_1)). Checks: size 2 (relinearise
/// first), a Galois key (not the relinearisation key), same Parameters. error_multiple as for
/// relinearize (the switch runs on μ^−1·σ_k(c_1)). The output keeps a's scale and factor.
[[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, const KeySwitchKey& key,
                                      std::uint64_t error_multiple = 1);

/// apply_galois(a, *keys[r], error_multiple) for every r, hoisted: c_1's ModUp is made once for
/// all the keys (key_switch_hoisted), and each output is word for word the one apply_galois
/// gives. A null key stands for the identity (rotation by 0): its output is a copy of a. Checks:
/// as apply_galois for a and each key. An empty list gives an empty result.
[[nodiscard]] std::vector<Ciphertext> apply_galois_hoisted(
    const Ciphertext& a, std::span<const KeySwitchKey* const> keys,
    std::uint64_t error_multiple = 1);

}  // namespace polyhe::rlwe
