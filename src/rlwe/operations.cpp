#include "polyhe/rlwe/operations.hpp"

#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/key_switch.hpp"

namespace polyhe::rlwe {

namespace {

void check_pair(const Ciphertext& a, const Ciphertext& b, const char* op) {
  check_same_params(a.params(), b.params(), op);
  if (a.level() != b.level()) {
    throw InvalidParameter(std::string(op) + ": operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                           "); bring the higher one down to the lower first");
  }
}

void grow_to(Ciphertext& a, std::size_t size) {
  while (a.size() < size) {
    a.parts().emplace_back(a.params()->ring(), a.limbs(), PolyForm::kEvaluation);
  }
}

}  // namespace

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

Ciphertext relinearize(const Ciphertext& a, const KeySwitchKey& key) {
  check_same_params(a.params(), key.params, "relinearize");
  if (a.size() == 2) return a;
  if (key.galois_element != 0) {
    throw InvalidParameter("relinearize: the key given is a Galois key (element " +
                           std::to_string(key.galois_element) +
                           "), not a relinearisation key (KeyGenerator::relinearization_key)");
  }
  Ciphertext out(a.params(), a.level(), 2, a.scale());
  key_switch(a[2], key, out.parts()[0], out.parts()[1]);
  out.parts()[0].add(a[0]);
  out.parts()[1].add(a[1]);
  return out;
}

Ciphertext apply_galois(const Ciphertext& a, const KeySwitchKey& key) {
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
  Ciphertext out(a.params(), a.level(), 2, a.scale());
  const RnsPoly c1 = a[1].automorphism(k);
  key_switch(c1, key, out.parts()[0], out.parts()[1]);
  out.parts()[0].add_automorphism(a[0], k);
  return out;
}

}  // namespace polyhe::rlwe
