#include "polyhe/rlwe/keys.hpp"

#include <algorithm>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "wipe_guard.hpp"

namespace polyhe::rlwe {

void check_list_length(std::size_t count, std::size_t cap, const char* op, const char* what,
                       const char* why) {
  if (count > cap) {
    throw InvalidParameter(std::string(op) + ": " + std::to_string(count) + " " + what +
                           ", above the cap of " + std::to_string(cap) + " (" + why + ")");
  }
}

void check_same_params(const ParametersPtr& a, const ParametersPtr& b, const char* what) {
  if (a.get() == b.get()) return;
  std::string why = a && b && a->same_values(*b)
                        ? " (equal values, but separately created Parameters objects: create "
                          "them once and share the pointer, or load objects against one context)"
                        : " (different parameter sets)";
  throw MismatchedContext(std::string(what) + ": operands belong to different Parameters" + why);
}

void check_not_null(const void* key, const char* what) {
  if (key == nullptr) throw InvalidParameter(std::string(what) + ": the key is null");
}

std::uint64_t galois_element_for_rotation(std::size_t n, std::int64_t step) {
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  const auto slots = static_cast<std::int64_t>(n / 2);
  if (slots == 0) return 1;
  std::int64_t r = step % slots;
  if (r < 0) r += slots;
  return pow_mod(5, static_cast<std::uint64_t>(r), two_n);
}

const KeySwitchKey& GaloisKeys::at(std::uint64_t k) const {
  const auto it = keys.find(k);
  if (it == keys.end()) {
    throw InvalidParameter("no Galois key for element " + std::to_string(k) +
                           " (generate it with KeyGenerator::galois_key / rotation_keys for the "
                           "rotation step or conjugation that needs it)");
  }
  return it->second;
}

KeyGenerator::KeyGenerator(ParametersPtr params) : params_(std::move(params)) {
  if (!params_) throw InvalidParameter("KeyGenerator: null parameters");
}

KeyGenerator::KeyGenerator(ParametersPtr params, const Seed& master_seed)
    : params_(std::move(params)), seeds_(master_seed) {
  if (!params_) throw InvalidParameter("KeyGenerator: null parameters");
}

Seed KeyGenerator::next_seed() {
  return seeds_.next();
}

void KeyGenerator::check(const SecretKey& sk) const {
  check_same_params(params_, sk.params, "key generation");
  if (sk.s.on_device()) {
    throw InvalidParameter(
        "key generation: the secret key lives on the device " + sk.s.device()->name() +
        "; keys are generated in host memory (pass the host secret key, move the keys after)");
  }
}

SecretKey::SecretKey(ParametersPtr params_in, RnsPoly s_in)
    : params(std::move(params_in)), s(std::move(s_in)) {}

SecretKey& SecretKey::operator=(const SecretKey& other) {
  if (this != &other) {
    wipe();
    params = other.params;
    s = other.s;
  }
  return *this;
}

SecretKey& SecretKey::operator=(SecretKey&& other) noexcept {
  if (this != &other) {
    wipe();
    params = std::move(other.params);
    s = std::move(other.s);
  }
  return *this;
}

SecretKey::~SecretKey() {
  wipe();
}

void SecretKey::wipe() noexcept {
  try {
    s.wipe();
  } catch (...) {  // NOLINT(bugprone-empty-catch): the device's error (keys.hpp)
  }
}

SecretKey SecretKey::to_device(const std::shared_ptr<Device>& device) const {
  return SecretKey{params, s.to_device(device)};
}

PublicKey PublicKey::to_device(const std::shared_ptr<Device>& device) const {
  return PublicKey{params, b.to_device(device), a.to_device(device), seed};
}

KeySwitchKey KeySwitchKey::to_device(const std::shared_ptr<Device>& device) const {
  return KeySwitchKey{params, parts.to_device(device), seed, galois_element};
}

GaloisKeys GaloisKeys::to_device(const std::shared_ptr<Device>& device) const {
  GaloisKeys out{params, {}};
  for (const auto& [k, key] : keys) out.keys.emplace(k, key.to_device(device));
  return out;
}

SecretKey KeyGenerator::secret_key() {
  const polyhe::detail::SecretScope secret;  // the transform's scratch wiped (core/wipe.hpp)
  const auto& ring = params_->ring();
  RnsPoly s(ring, ring->max_limbs());
  const internal::WipeGuard guard{&s};  // on an exception; moved out (empty) otherwise
  Prng prng(next_seed());
  if (params_->hamming_weight() == 0) {
    sample_ternary(prng, s);
  } else {
    sample_ternary_fixed_weight(prng, params_->hamming_weight(), s);
  }
  s.to_evaluation();
  return SecretKey{params_, std::move(s)};
}

PublicKey KeyGenerator::public_key(const SecretKey& sk) {
  check(sk);
  const auto& ring = params_->ring();
  const std::size_t limbs = ring->max_limbs();  // Q ∪ P: encryption divides its noise by P
  // a is drawn directly in evaluation form (uniform there as anywhere): no transform.
  PublicKey pk{params_, RnsPoly(ring, limbs), RnsPoly(ring, limbs, PolyForm::kEvaluation),
               next_seed()};
  Prng a_prng(pk.seed, kStreamPublicKeyA);
  sample_uniform(a_prng, pk.a);
  const polyhe::detail::SecretScope secret;  // the transform's scratch wiped (core/wipe.hpp)
  internal::WipeGuard error{&pk.b};          // holds e until it becomes b: wiped on an exception
  Prng e_prng(next_seed());
  sample_error(e_prng, pk.b);
  pk.b.to_evaluation();
  // b = e − a·s as −(−e + a·s), in place: no product a·s is left in memory.
  pk.b.negate();
  pk.b.multiply_accumulate(pk.a, sk.s);
  pk.b.negate();
  error.dismiss();
  polyhe::detail::ct_public_poly(pk.b);  // public from here (core/constant_time.hpp)
  return pk;
}

KeySwitchKey KeyGenerator::switching_key(const SecretKey& sk, const RnsPoly& from) {
  check(sk);
  const auto& ring = params_->ring();
  if (from.context() != ring || from.limbs() != ring->max_limbs() ||
      from.form() != PolyForm::kEvaluation) {
    throw InvalidParameter(
        "switching_key: the source key must be a polynomial of this ring over all of Q ∪ P (" +
        std::to_string(ring->max_limbs()) + " limbs) in evaluation form");
  }
  if (from.on_device()) {
    throw InvalidParameter(
        "switching_key: the source key lives on a device; keys are generated "
        "in host memory");
  }
  const std::size_t total = ring->max_limbs();
  const KeySwitchBasis& ks = params_->key_switch_basis();
  const std::size_t dnum = ks.digit_count(params_->max_level());
  KeySwitchKey key{params_, KeySwitchParts(ring, dnum), next_seed(), 0};
  const polyhe::detail::SecretScope secret;  // the transforms' scratch wiped (core/wipe.hpp)
  // b and the share P·s' are reused from digit to digit, overwritten in place, and wiped once at
  // the end (b_j is public once complete, but holds the error before).
  RnsPoly b(ring, total), share(ring, total, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  const internal::WipeGuard guard{&b, &share};
  for (std::size_t j = 0; j < dnum; ++j) {
    RnsPoly a(ring, total, PolyForm::kEvaluation);
    Prng a_prng(key.seed, kStreamKeySwitchA + j);
    sample_uniform(a_prng, a);
    Prng e_prng(next_seed());
    sample_error(e_prng, b);  // coefficient form again
    b.to_evaluation();
    // e − a·s as −(−e + a·s), in place: no product a·s is left in memory.
    b.negate();
    b.multiply_accumulate(a, sk.s);
    b.negate();
    // + (P mod q_i)·s' on the limbs of digit j (0 on every other limb).
    std::vector<std::uint64_t> scalars(total, 0);
    const RnsBasis& digit = ks.digit(params_->max_level(), j);
    for (std::size_t t = 0; t < digit.size(); ++t) {
      const std::size_t i = params_->q_basis().find(digit.prime(t));
      scalars[i] = params_->p_mod_q()[i];
    }
    std::copy(from.data().begin(), from.data().end(), share.data().begin());
    share.multiply_scalar(scalars);
    b.add(share);
    polyhe::detail::ct_public_poly(b);  // b_j is public once complete (core/constant_time.hpp)
    key.parts.set(j, b, a);
  }
  return key;
}

KeyGenerator KeyGenerator::for_parameters(ParametersPtr other) {
  if (!other) throw InvalidParameter("KeyGenerator::for_parameters: null parameters");
  return KeyGenerator(std::move(other), next_seed());
}

SecretKey rebase_secret(const SecretKey& sk, ParametersPtr target) {
  if (!target || !sk.params) throw InvalidParameter("rebase_secret: null parameters");
  if (target->n() != sk.params->n() || !target->power_of_two() || !sk.params->power_of_two()) {
    throw InvalidParameter(
        "rebase_secret: the target ring (N = " + std::to_string(target->n()) +
        ") must be x^N + 1 of the key's degree N = " + std::to_string(sk.params->n()));
  }
  if (sk.s.on_device()) {
    throw InvalidParameter("rebase_secret: the secret key lives on a device; pass the host key");
  }
  const polyhe::detail::SecretScope secret;  // the transforms' scratch wiped (core/wipe.hpp)
  const RingContext& from = *sk.params->ring();
  const auto& ring = target->ring();
  // s's coefficients modulo q_0 (the ternary values, centred by forward_lifted), wiped on every
  // way out.
  std::vector<std::uint64_t> coeffs(sk.params->n());
  struct Wipe {
    std::vector<std::uint64_t>& v;
    ~Wipe() { secure_zero(std::span<std::uint64_t>(v)); }
  } const wipe_coeffs{coeffs};
  from.inverse(0, sk.s.limb(0), coeffs);
  RnsPoly s(ring, ring->max_limbs(), PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  const internal::WipeGuard guard{&s};
  const std::uint64_t q0 = sk.params->q_primes()[0];
  for (std::size_t i = 0; i < ring->max_limbs(); ++i)
    ring->forward_lifted(i, coeffs, q0, s.limb(i));
  SecretKey out{std::move(target), std::move(s)};
  return out;
}

KeySwitchKey KeyGenerator::relinearization_key(const SecretKey& sk) {
  check(sk);
  RnsPoly s2 = sk.s;
  const internal::WipeGuard guard{&s2};
  s2.multiply(sk.s);
  return switching_key(sk, s2);
}

KeySwitchKey KeyGenerator::galois_key(const SecretKey& sk, std::uint64_t k) {
  check(sk);
  if (!params_->ring()->is_galois_element(k)) {
    throw InvalidParameter("Galois element " + std::to_string(k) + " must be " +
                           params_->ring()->galois_rule());
  }
  RnsPoly image = sk.s.automorphism(k);  // σ_k(s): secret
  const internal::WipeGuard guard{&image};
  KeySwitchKey key = switching_key(sk, image);
  key.galois_element = k;
  return key;
}

GaloisKeys KeyGenerator::galois_keys(const SecretKey& sk, std::span<const std::uint64_t> elements) {
  check_list_length(elements.size(), params_->n(), "galois_keys", "Galois elements",
                    "the ring has that many automorphisms");
  GaloisKeys gk{params_, {}};
  for (const std::uint64_t k : elements) {
    if (!gk.contains(k)) gk.keys.emplace(k, galois_key(sk, k));
  }
  return gk;
}

GaloisKeys KeyGenerator::rotation_keys(const SecretKey& sk, std::span<const std::int64_t> steps,
                                       bool conjugation) {
  if (!params_->power_of_two()) {
    throw InvalidParameter(
        "rotation_keys: rotations by 5^step are the slots of x^N + 1; for Phi_m (m = " +
        std::to_string(params_->m()) + ") name the Galois elements (galois_keys)");
  }
  check_list_length(steps.size(), params_->n(), "rotation_keys", "steps",
                    "the ring has that many automorphisms");
  std::vector<std::uint64_t> elements;
  for (const std::int64_t r : steps) {
    elements.push_back(galois_element_for_rotation(params_->n(), r));
  }
  if (conjugation) elements.push_back(galois_element_for_conjugation(params_->n()));
  return galois_keys(sk, elements);
}

}  // namespace polyhe::rlwe
