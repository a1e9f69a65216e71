#include "polyhe/rlwe/encryption.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "wipe_guard.hpp"

namespace polyhe::rlwe {

RnsPoly prefix(const RnsPoly& p, std::size_t limbs) {
  return polyhe::prefix(p, limbs);
}

Encryptor::Encryptor(std::shared_ptr<const PublicKey> pk, std::optional<Seed> seed)
    : pk_(std::move(pk)), seeds_(seed) {
  if (!pk_) throw InvalidParameter("Encryptor: the public key is null");
  params_ = pk_->params;
}

Encryptor::Encryptor(std::shared_ptr<const SecretKey> sk, std::optional<Seed> seed)
    : sk_(std::move(sk)), seeds_(seed) {
  if (!sk_) throw InvalidParameter("Encryptor: the secret key is null");
  params_ = sk_->params;
}

Encryptor::Encryptor(const PublicKey& pk, std::optional<Seed> seed)
    : Encryptor(std::make_shared<const PublicKey>(pk), seed) {}

Encryptor::Encryptor(const SecretKey& sk, std::optional<Seed> seed)
    : Encryptor(std::make_shared<const SecretKey>(sk), seed) {}

const std::shared_ptr<Device>& Encryptor::device() const {
  return pk_ != nullptr ? pk_->b.device() : sk_->s.device();
}

Ciphertext Encryptor::encrypt_zero(std::size_t level) const {
  if (level > params_->max_level()) {
    throw InvalidParameter("encrypt: level " + std::to_string(level) + " exceeds the top level " +
                           std::to_string(params_->max_level()));
  }
  return encrypt_message(nullptr, level);  // no zero polynomial made, nothing added
}

Ciphertext Encryptor::encrypt(const RnsPoly& m_in) const {
  if (m_in.context() != params_->ring()) {
    throw MismatchedContext("encrypt: the message polynomial belongs to another ring");
  }
  const std::size_t limbs = m_in.limbs();
  if (limbs > params_->q_count()) {
    throw InvalidParameter(
        "encrypt: the message has " + std::to_string(limbs) +
        " limbs; ciphertexts have at most L + 1 = " + std::to_string(params_->q_count()));
  }
  // The ciphertext is made where the key lives; a message in host memory is uploaded there
  // (encoding runs on the host), one on another device refused.
  const std::shared_ptr<Device>& dev = device();
  if (m_in.on_device() && m_in.device() != dev) {
    throw MismatchedContext("encrypt: the message lives on " + m_in.device()->name() +
                            ", the key " + (dev ? "on " + dev->name() : "in host memory"));
  }
  if (m_in.device() != dev) {
    const RnsPoly placed = m_in.to_device(dev);
    return encrypt_message(&placed, limbs - 1);
  }
  return encrypt_message(&m_in, limbs - 1);
}

namespace {

/// Zeroes the per-thread small polynomials of public-key encryption on every way out.
struct WipeSmall {
  std::vector<std::int64_t>* vectors[3];
  ~WipeSmall() {
    for (std::vector<std::int64_t>* v : vectors) secure_zero(std::span<std::int64_t>(*v));
  }
};

}  // namespace

Ciphertext Encryptor::encrypt_message(const RnsPoly* m, std::size_t level) const {
  const auto& ring = params_->ring();
  const std::size_t n = params_->n();
  const std::size_t limbs = level + 1;
  const std::shared_ptr<Device>& dev = device();
  Ciphertext ct(params_, level, 2, 1.0, RnsPoly::kForOverwrite, dev);
  // The transforms of secret words below wipe their per-thread scratch (core/wipe.hpp).
  const polyhe::detail::SecretScope secret;
  if (pk_ != nullptr) {
    // (v·b + e_0 + P·m, v·a + e_1) over Q_l ∪ P, then ModDown (ring/key_switching.hpp): v, e_0,
    // e_1 drawn in that order from one stream (on the pool: sample_encryption_noise).
    Prng prng(seeds_.next());
    // Per-thread buffers (no allocation per encryption), wiped after use: v is secret.
    thread_local std::vector<std::int64_t> v, e0, e1;
    const WipeSmall wipe{{&v, &e0, &e1}};
    v.resize(n);
    e0.resize(n);
    e1.resize(n);
    sample_encryption_noise(prng, v, e0, e1);
    const bool m_coefficient = m != nullptr && m->form() == PolyForm::kCoefficient;
    encrypt_with_public_key(params_->key_switching(), level, v, e0, e1, pk_->b, pk_->a,
                            m_coefficient ? m : nullptr, ct[0], ct[1]);
    if (m != nullptr && !m_coefficient) ct[0].add(*m);
    // Public from here (polyhe/core/constant_time.hpp); the const parts() keeps the seed.
    for (const RnsPoly& part : std::as_const(ct).parts()) polyhe::detail::ct_public_poly(part);
    return ct;
  }
  const Seed a_seed = seeds_.next();
  RnsPoly a(ring, limbs, PolyForm::kEvaluation, dev);
  Prng a_prng(a_seed, kStreamCiphertextA);
  sample_uniform(a_prng, a);
  Prng e_prng(seeds_.next());
  RnsPoly e(ring, limbs, PolyForm::kCoefficient, dev);
  const internal::WipeGuard wipe{&e};
  sample_error(e_prng, e);
  e.to_evaluation();
  // c0 = e − a·s + m as −(−e + a·s) + m, so that no product a·s is left in memory; c1 = a.
  e.negate();
  RnsPoly c0 = multiply_add_by_prefix(a, sk_->s, e);
  c0.negate();
  if (m != nullptr && m->form() == PolyForm::kEvaluation) {
    c0.add(*m);
  } else if (m != nullptr) {
    RnsPoly m_eval = *m;
    m_eval.to_evaluation();
    c0.add(m_eval);
  }
  ct[0] = std::move(c0);
  ct[1] = std::move(a);
  ct.set_seed(a_seed);
  // Public from here (polyhe/core/constant_time.hpp); the const parts() keeps the seed.
  for (const RnsPoly& part : std::as_const(ct).parts()) polyhe::detail::ct_public_poly(part);
  return ct;
}

RnsPoly decrypt_poly(const Ciphertext& ct, const SecretKey& sk) {
  check_same_params(ct.params(), sk.params, "decrypt");
  if (ct.device() != sk.s.device()) {
    throw MismatchedContext(
        "decrypt: the ciphertext and the secret key live in different places (move one with "
        "to_device() / to_host())");
  }
  if (ct.size() == 3) {
    // c0 + s·(c1 + s·c2), Horner; c1 + s·c2 is secret (it is a ciphertext's part times s).
    RnsPoly inner = multiply_add_by_prefix(ct[2], sk.s, ct[1]);
    const internal::WipeGuard wipe{&inner};
    return multiply_add_by_prefix(inner, sk.s, ct[0]);
  }
  // One pass: m = c0 + c1·s (no copy of c0 first).
  return multiply_add_by_prefix(ct[1], sk.s, ct[0]);
}

Ciphertext::Ciphertext(ParametersPtr params, std::size_t level, std::size_t size, double scale,
                       const std::shared_ptr<Device>& device)
    : params_(std::move(params)), scale_(scale) {
  check_shape(level, size);
  for (std::size_t i = 0; i < size; ++i) {
    parts_.emplace_back(params_->ring(), level + 1, PolyForm::kEvaluation, device);
  }
}

Ciphertext::Ciphertext(ParametersPtr params, std::size_t level, std::size_t size, double scale,
                       RnsPoly::ForOverwrite, const std::shared_ptr<Device>& device)
    : params_(std::move(params)), scale_(scale) {
  check_shape(level, size);
  for (std::size_t i = 0; i < size; ++i) {
    parts_.emplace_back(params_->ring(), level + 1, PolyForm::kEvaluation, RnsPoly::kForOverwrite,
                        device);
  }
}

void check_same_place(const Ciphertext& a, const Ciphertext& b, const char* op) {
  if (a.device() != b.device()) {
    throw MismatchedContext(std::string(op) +
                            ": the operands live in different places (move one with to_device() "
                            "/ to_host())");
  }
}

Ciphertext Ciphertext::to_device(const std::shared_ptr<Device>& device) const {
  Ciphertext out = *this;
  for (RnsPoly& p : out.parts_) p = p.to_device(device);
  return out;
}

void Ciphertext::check_shape(std::size_t level, std::size_t size) const {
  if (!params_) throw InvalidParameter("Ciphertext: null parameters");
  if (level > params_->max_level()) {
    throw InvalidParameter("Ciphertext: level " + std::to_string(level) +
                           " exceeds L = " + std::to_string(params_->max_level()));
  }
  if (size != 2 && size != 3) {
    throw InvalidParameter("Ciphertext: size " + std::to_string(size) + " is not 2 or 3");
  }
}

void Ciphertext::set_factor(std::uint64_t f) {
  if (f == 0) {
    throw InvalidParameter("Ciphertext: plaintext factor 0 is not invertible modulo t");
  }
  factor_ = f;
}

}  // namespace polyhe::rlwe
