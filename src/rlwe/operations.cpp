#include "polyhe/rlwe/operations.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/rlwe/key_switch.hpp"

namespace polyhe::rlwe {

namespace {

void check_pair(const Ciphertext& a, const Ciphertext& b, const char* op) {
  check_same_params(a.params(), b.params(), op);
  check_same_place(a, b, op);
  if (a.level() != b.level()) {
    throw InvalidParameter(std::string(op) + ": operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                           "); bring the higher one down to the lower first");
  }
}

void grow_to(Ciphertext& a, std::size_t size) {
  while (a.size() < size) {
    a.parts().emplace_back(a.params()->ring(), a.limbs(), PolyForm::kEvaluation, a.device());
  }
}

// (u_0, u_1) = μ·key_switch(μ^−1·d): u_0 + u_1·s = d·s' + μ·e_ks mod Q_l (operations.hpp).
void switch_with_multiple(const RnsPoly& d, const KeySwitchKey& key, std::uint64_t mu, RnsPoly& u0,
                          RnsPoly& u1, const char* op) {
  if (mu == 1) {
    key_switch(d, key, u0, u1);
    return;
  }
  if (mu == 0) throw InvalidParameter(std::string(op) + ": error multiple 0 is not a unit");
  const RnsBasis& q = key.params->q_basis();
  std::vector<std::uint64_t> mu_mod(d.limbs()), mu_inv(d.limbs());
  for (std::size_t i = 0; i < d.limbs(); ++i) {
    const std::uint64_t qi = q.prime(i);
    mu_mod[i] = mu % qi;
    if (mu_mod[i] == 0) {
      throw InvalidParameter(std::string(op) + ": error multiple " + std::to_string(mu) +
                             " is divisible by the prime q = " + std::to_string(qi) +
                             " of the chain, so it has no inverse modulo Q");
    }
    mu_inv[i] = inverse_mod(mu_mod[i], qi);
  }
  RnsPoly scaled = d;
  scaled.multiply_scalar(mu_inv);
  key_switch(scaled, key, u0, u1);
  u0.multiply_scalar(mu_mod);
  u1.multiply_scalar(mu_mod);
}

// a + b or a − b into a new ciphertext of the larger size, each part in one pass.
Ciphertext combine(const Ciphertext& a, const Ciphertext& b, bool subtract, const char* op) {
  check_pair(a, b, op);
  const std::size_t size = std::max(a.size(), b.size());
  Ciphertext out(a.params(), a.level(), size, a.scale(), RnsPoly::kForOverwrite, a.device());
  out.set_factor(a.factor());
  for (std::size_t i = 0; i < size; ++i) {
    RnsPoly& c = out.parts()[i];
    if (i < a.size() && i < b.size()) {
      c = subtract ? difference(a[i], b[i]) : sum(a[i], b[i]);
    } else if (i < a.size()) {
      c = a[i];
    } else {
      c = subtract ? negation(b[i]) : b[i];
    }
  }
  return out;
}

}  // namespace

Ciphertext add(const Ciphertext& a, const Ciphertext& b) {
  return combine(a, b, false, "add");
}

Ciphertext sub(const Ciphertext& a, const Ciphertext& b) {
  return combine(a, b, true, "sub");
}

void add_inplace(Ciphertext& a, const Ciphertext& b) {
  check_pair(a, b, "add");
  grow_to(a, b.size());
  for (std::size_t i = 0; i < b.size(); ++i) a.parts()[i].add(b[i]);
}

void sub_inplace(Ciphertext& a, const Ciphertext& b) {
  check_pair(a, b, "sub");
  grow_to(a, b.size());
  for (std::size_t i = 0; i < b.size(); ++i) a.parts()[i].sub(b[i]);
}

void negate_inplace(Ciphertext& a) {
  for (RnsPoly& p : a.parts()) p.negate();
}

Ciphertext relinearize(const Ciphertext& a, const KeySwitchKey& key, std::uint64_t error_multiple) {
  check_same_params(a.params(), key.params, "relinearize");
  if (a.size() == 2) return a;
  if (key.galois_element != 0) {
    throw InvalidParameter("relinearize: the key given is a Galois key (element " +
                           std::to_string(key.galois_element) +
                           "), not a relinearisation key (KeyGenerator::relinearization_key)");
  }
  Ciphertext out(a.params(), a.level(), 2, a.scale(), RnsPoly::kForOverwrite, a.device());
  out.set_factor(a.factor());
  switch_with_multiple(a[2], key, error_multiple, out.parts()[0], out.parts()[1], "relinearize");
  out.parts()[0].add(a[0]);
  out.parts()[1].add(a[1]);
  return out;
}

Ciphertext apply_galois(const Ciphertext& a, const KeySwitchKey& key,
                        std::uint64_t error_multiple) {
  check_same_params(a.params(), key.params, "apply_galois");
  if (a.size() != 2) {
    throw InvalidParameter("apply_galois: relinearise the ciphertext first (size " +
                           std::to_string(a.size()) + ")");
  }
  const std::uint64_t k = key.galois_element;
  if (k == 0) {
    throw InvalidParameter(
        "apply_galois: the key given is the relinearisation key, not a Galois key");
  }
  Ciphertext out(a.params(), a.level(), 2, a.scale(), RnsPoly::kForOverwrite, a.device());
  out.set_factor(a.factor());
  switch_with_multiple(a[1].automorphism(k), key, error_multiple, out.parts()[0], out.parts()[1],
                       "apply_galois");
  out.parts()[0].add_automorphism(a[0], k);
  return out;
}

}  // namespace polyhe::rlwe
