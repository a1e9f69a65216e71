#include "polyhe/rlwe/operations.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/key_switching.hpp"
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

// μ mod q_i and μ^−1 mod q_i for Q's first `limbs` primes: the error multiple's residues
// (InvalidParameter when μ is 0 or divisible by one of those primes).
struct MultipleResidues {
  std::vector<std::uint64_t> mod;
  std::vector<std::uint64_t> inv;
};
MultipleResidues multiple_residues(const Parameters& params, std::size_t limbs, std::uint64_t mu,
                                   const char* op) {
  if (mu == 0) throw InvalidParameter(std::string(op) + ": error multiple 0 is not a unit");
  const RnsBasis& q = params.q_basis();
  MultipleResidues m{std::vector<std::uint64_t>(limbs), std::vector<std::uint64_t>(limbs)};
  for (std::size_t i = 0; i < limbs; ++i) {
    const std::uint64_t qi = q.prime(i);
    m.mod[i] = mu % qi;
    if (m.mod[i] == 0) {
      throw InvalidParameter(std::string(op) + ": error multiple " + std::to_string(mu) +
                             " is divisible by the prime q = " + std::to_string(qi) +
                             " of the chain, so it has no inverse modulo Q");
    }
    m.inv[i] = inverse_mod(m.mod[i], qi);
  }
  return m;
}

// (u_0, u_1) = μ·key_switch(μ^−1·d): u_0 + u_1·s = d·s' + μ·e_ks mod Q_l (operations.hpp).
void switch_with_multiple(const RnsPoly& d, const KeySwitchKey& key, std::uint64_t mu, RnsPoly& u0,
                          RnsPoly& u1, const char* op) {
  if (mu == 1) {
    key_switch(d, key, u0, u1);
    return;
  }
  const MultipleResidues m = multiple_residues(*key.params, d.limbs(), mu, op);
  RnsPoly scaled = d;
  scaled.multiply_scalar(m.inv);
  key_switch(scaled, key, u0, u1);
  u0.multiply_scalar(m.mod);
  u1.multiply_scalar(m.mod);
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

std::vector<Ciphertext> apply_galois_hoisted(const Ciphertext& a,
                                             std::span<const KeySwitchKey* const> keys,
                                             std::uint64_t error_multiple) {
  const char* const op = "apply_galois_hoisted";
  check_list_length(keys.size(), a.params()->n(), op, "keys",
                    "one output ciphertext each; the ring has that many automorphisms");
  std::vector<std::uint64_t> galois;
  std::vector<const KeySwitchParts*> parts;
  for (std::size_t r = 0; r < keys.size(); ++r) {
    if (keys[r] == nullptr) continue;  // the identity
    check_same_params(a.params(), keys[r]->params, op);
    if (keys[r]->galois_element == 0) {
      throw InvalidParameter(std::string(op) + ": key " + std::to_string(r) +
                             " is the relinearisation key, not a Galois key");
    }
    galois.push_back(keys[r]->galois_element);
    parts.push_back(&keys[r]->parts);
  }
  if (a.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(a.size()) + ")");
  }
  // The error multiple's residues (checked even when every key is the identity).
  const MultipleResidues m = error_multiple == 1
                                 ? MultipleResidues{}
                                 : multiple_residues(*a.params(), a.limbs(), error_multiple, op);
  // The switched outputs (one per non-null key, in order) first; the copies go in after.
  std::vector<Ciphertext> switched;
  switched.reserve(parts.size());
  std::vector<RnsPoly*> u0, u1;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    switched.emplace_back(a.params(), a.level(), 2, a.scale(), RnsPoly::kForOverwrite, a.device());
    switched.back().set_factor(a.factor());
  }
  for (Ciphertext& c : switched) {
    u0.push_back(&c.parts()[0]);
    u1.push_back(&c.parts()[1]);
  }
  if (!parts.empty()) {
    const HybridKeySwitch ks = a.params()->key_switching();
    if (error_multiple == 1) {
      key_switch_hoisted(ks, a[1], galois, parts, u0, u1);
    } else {
      RnsPoly scaled = a[1];
      scaled.multiply_scalar(m.inv);
      key_switch_hoisted(ks, scaled, galois, parts, u0, u1);
      for (std::size_t r = 0; r < switched.size(); ++r) {
        u0[r]->multiply_scalar(m.mod);
        u1[r]->multiply_scalar(m.mod);
      }
    }
    for (std::size_t r = 0; r < switched.size(); ++r) {
      switched[r].parts()[0].add_automorphism(a[0], galois[r]);
    }
  }
  std::vector<Ciphertext> out;
  out.reserve(keys.size());
  std::size_t next = 0;
  for (const KeySwitchKey* key : keys) {
    if (key == nullptr) {
      out.push_back(a);
    } else {
      out.push_back(std::move(switched[next++]));
    }
  }
  return out;
}

}  // namespace polyhe::rlwe
