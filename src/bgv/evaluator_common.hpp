// Internal to polyhe_bgv: what the evaluator's BFV and BGV modes share besides the plaintext lift
// (plaintext_lift.hpp): the product by a lifted plaintext, the Galois-key lookup with its error,
// and the exact noise budget.
#pragma once

#include <gmpxx.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/bgv/context.hpp"
#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe::bgv::detail {

/// Every part of a times p (evaluation form, a's limbs) into a new ciphertext, one pass per part
/// (no copy of a first); a's scale and factor kept.
inline Ciphertext multiply_parts(const Ciphertext& a, const RnsPoly& p) {
  Ciphertext out(a.params(), a.level(), a.size(), a.scale(), RnsPoly::kForOverwrite, a.device());
  out.set_factor(a.factor());
  for (std::size_t i = 0; i < a.size(); ++i) out.parts()[i] = product(a[i], p);
  return out;
}

/// The Galois key for k, or InvalidParameter "<op>: no Galois key for <what>; <hint>".
inline const rlwe::KeySwitchKey& galois_key(const rlwe::GaloisKeys* keys, std::uint64_t k,
                                            const char* op, const std::string& what,
                                            const std::string& hint) {
  if (keys == nullptr || !keys->contains(k)) {
    throw InvalidParameter(std::string(op) + ": no Galois key for " + what + "; " + hint);
  }
  return keys->at(k);
}

/// x moved to host memory (a host x stays), its device words wiped: a decryption's value holds
/// the noise beside the message, which depends on the key.
inline void move_to_host_wiping(RnsPoly& x) {
  if (!x.on_device()) return;
  RnsPoly host = x.to_host();
  x.wipe();
  x = std::move(host);
}

/// log2(Q_l) − 1 − log2 ‖[multiplier·(c_0 + c_1·s (+ c_2·s²))]_{Q_l}‖_∞ (centred), floored at 0,
/// exactly (GMP): BFV's invariant noise budget with multiplier t, BGV's budget with 1.
inline int noise_budget_bits(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk,
                             std::uint64_t multiplier) {
  RnsPoly x = rlwe::decrypt_poly(ct, sk);
  {
    const polyhe::detail::SecretScope secret;  // x's transform: the kernels' scratch wiped
    x.to_coefficient();
  }
  move_to_host_wiping(x);  // the exact budget runs on the host (GMP)
  // Not constant time (GMP's arithmetic, the maximum's comparisons): the budget is the size of
  // the noise by design, so the decrypted words are declassified here (core/constant_time.hpp).
  polyhe::detail::ct_public_poly(x);
  const RnsBasis ql = ctx.params()->q_basis().prefix(ct.limbs());
  const std::vector<mpz_class> values = to_bigint(x.data(), ql);
  const mpz_class& big_q = big_product(ql);
  const mpz_class m(std::to_string(multiplier));
  mpz_class worst = 0;
  for (const mpz_class& v : values) {
    const mpz_class e = abs(centre(mpz_class(v * m), big_q));
    if (e > worst) worst = e;
  }
  const auto q_bits = static_cast<int>(mpz_sizeinbase(big_q.get_mpz_t(), 2));
  const int noise_bits = worst == 0 ? 0 : static_cast<int>(mpz_sizeinbase(worst.get_mpz_t(), 2));
  x.wipe();  // the noise beside the message (key-dependent)
  return std::max(0, q_bits - noise_bits - 1);
}

}  // namespace polyhe::bgv::detail
