#include "polyhe/ckks/context.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/sampler.hpp"
#include "polyhe/rlwe/operations.hpp"

namespace polyhe::ckks {

namespace {

double log2_modulus(const rlwe::Parameters& params) {
  double s = 0;
  for (std::uint64_t q : params.q_primes()) s += std::log2(static_cast<double>(q));
  return s;
}

void check_options(const DecryptOptions& options) {
  if (options.flooding_bits < 0 || options.flooding_bits > 60) {
    throw InvalidParameter("Decryptor: flooding_bits = " + std::to_string(options.flooding_bits) +
                           " is outside [0, 60] (0: no flooding)");
  }
}

// The words of encoding, encryption and decryption, shared by the context's classes and by
// ckks.hpp's deprecated free functions.

template <class Value>
Plaintext encode_at(const Encoder& encoder, const ParametersPtr& params,
                    std::span<const Value> values, double scale, std::size_t level) {
  if (level > params->max_level()) {
    throw InvalidParameter("encode: level " + std::to_string(level) +
                           " exceeds the top level L = " + std::to_string(params->max_level()));
  }
  Plaintext pt{params, RnsPoly(params->ring(), level + 1), scale};
  encoder.encode(values, scale, pt.poly);
  return pt;
}

Ciphertext encrypt_with(const rlwe::Encryptor& encryptor, const Plaintext& pt) {
  Ciphertext ct = encryptor.encrypt(pt.poly);
  ct.set_scale(pt.scale);
  return ct;
}

Plaintext decrypt_with(const Ciphertext& ct, const rlwe::SecretKey& sk,
                       const DecryptOptions& options) {
  if (ct.size() != 2 && ct.size() != 3) {
    throw InvalidParameter("decrypt: ciphertext of size " + std::to_string(ct.size()));
  }
  RnsPoly m = rlwe::decrypt_poly(ct, sk);
  if (options.flooding_bits != 0) {
    if (options.flooding_bits < 1 || options.flooding_bits > 60) {
      throw InvalidParameter("decrypt: flooding_bits = " + std::to_string(options.flooding_bits) +
                             " is outside [1, 60]");
    }
    // The noise is secret (m + noise − noise is the unflooded m + e): its transform runs in a
    // SecretScope (the kernels' scratch wiped, core/wipe.hpp), its words are wiped once added.
    const polyhe::detail::SecretScope secret;
    RnsPoly noise(m.context(), m.limbs(), PolyForm::kCoefficient, m.device());
    Prng prng(random_seed());
    sample_uniform_bounded(prng, options.flooding_bits, noise);
    noise.to_evaluation();
    m.add(noise);
    noise.wipe();
  }
  // m + e (+ the flooding): revealed to the caller by design (core/constant_time.hpp).
  polyhe::detail::ct_public_poly(m);
  return Plaintext{ct.params(), std::move(m), ct.scale()};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The free functions of ckks.hpp (deprecated): forwards to the words above.

Plaintext encode(const Encoder& encoder, const ParametersPtr& params,
                 std::span<const std::complex<double>> values, double scale, std::size_t level) {
  return encode_at(encoder, params, values, scale, level);
}

Plaintext encode(const Encoder& encoder, const ParametersPtr& params,
                 std::span<const double> values, double scale, std::size_t level) {
  return encode_at(encoder, params, values, scale, level);
}

std::vector<std::complex<double>> decode(const Encoder& encoder, const Plaintext& pt) {
  return encoder.decode(pt.poly, pt.scale);
}

Ciphertext encrypt(const rlwe::Encryptor& encryptor, const Plaintext& pt) {
  return encrypt_with(encryptor, pt);
}

Plaintext decrypt(const Ciphertext& ct, const rlwe::SecretKey& sk, const DecryptOptions& options) {
  return decrypt_with(ct, sk, options);
}

// ---------------------------------------------------------------------------------------------
// Context.

Context::Context(rlwe::ParametersPtr params, double scale)
    : params_(std::move(params)), encoder_(params_->ring()), scale_(scale) {}

std::shared_ptr<const Context> Context::create(rlwe::ParametersPtr params, double scale) {
  if (!params) throw InvalidParameter("ckks::Context: null parameters");
  if (!std::isfinite(scale) || scale < 0) {
    throw InvalidParameter("ckks::Context: scale " + std::to_string(scale) +
                           " must be positive and finite (or 0 for the default)");
  }
  if (scale == 0) {
    if (params->max_level() == 0) {
      throw InvalidParameter(
          "ckks::Context: the chain has one prime (L = 0), so there is no rescale for a default "
          "scale to match; pass a scale");
    }
    const double top = std::log2(static_cast<double>(params->q_primes().back()));
    scale = std::ldexp(1.0, static_cast<int>(std::lround(top)));
  }
  const double log2_q = log2_modulus(*params);
  if (std::log2(scale) >= log2_q - 1) {
    throw InvalidParameter("ckks::Context: scale 2^" + std::to_string(std::log2(scale)) +
                           " leaves no room below Q_L/2 = 2^" + std::to_string(log2_q - 1) +
                           "; choose a smaller scale or more primes");
  }
  return std::shared_ptr<const Context>(new Context(std::move(params), scale));
}

Plaintext Context::encode(std::span<const double> values) const {
  return encode_at(encoder_, params_, values, scale_, params_->max_level());
}

Plaintext Context::encode(std::span<const std::complex<double>> values) const {
  return encode_at(encoder_, params_, values, scale_, params_->max_level());
}

Plaintext Context::encode(std::span<const double> values, std::size_t level, double scale) const {
  return encode_at(encoder_, params_, values, scale == 0 ? scale_ : scale, level);
}

Plaintext Context::encode(std::span<const std::complex<double>> values, std::size_t level,
                          double scale) const {
  return encode_at(encoder_, params_, values, scale == 0 ? scale_ : scale, level);
}

std::vector<std::complex<double>> Context::decode(const Plaintext& pt) const {
  rlwe::check_same_params(params_, pt.params, "ckks::Context::decode");
  return encoder_.decode(pt.poly, pt.scale);
}

std::vector<double> Context::decode_real(const Plaintext& pt) const {
  rlwe::check_same_params(params_, pt.params, "ckks::Context::decode_real");
  return encoder_.decode_real(pt.poly, pt.scale);
}

Decryptor::Decryptor(std::shared_ptr<const rlwe::SecretKey> sk, DecryptOptions options)
    : sk_(std::move(sk)), options_(options) {
  if (!sk_) throw InvalidParameter("Decryptor: the secret key is null");
  check_options(options_);
}

Decryptor::Decryptor(const rlwe::SecretKey& sk, DecryptOptions options)
    : Decryptor(std::make_shared<const rlwe::SecretKey>(sk), options) {}

Plaintext Decryptor::decrypt(const Ciphertext& ct) const {
  return decrypt_with(ct, *sk_, options_);
}

rlwe::KeyGenerator Context::key_generator() const {
  return rlwe::KeyGenerator(params_);
}

rlwe::KeyGenerator Context::key_generator(const Seed& master_seed) const {
  return rlwe::KeyGenerator(params_, master_seed);
}

Encryptor Context::encryptor(rlwe::PublicKey pk, std::optional<Seed> seed) const {
  return encryptor(rlwe::share(std::move(pk)), seed);
}

Encryptor Context::encryptor(std::shared_ptr<const rlwe::PublicKey> pk,
                             std::optional<Seed> seed) const {
  return Encryptor(std::make_shared<const rlwe::Encryptor>(
      rlwe::checked_key(std::move(pk), params_, "ckks::Context::encryptor (public key)"), seed));
}

Encryptor Context::encryptor(rlwe::SecretKey sk, std::optional<Seed> seed) const {
  return encryptor(rlwe::share(std::move(sk)), seed);
}

Encryptor Context::encryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                             std::optional<Seed> seed) const {
  return Encryptor(std::make_shared<const rlwe::Encryptor>(
      rlwe::checked_key(std::move(sk), params_, "ckks::Context::encryptor (secret key)"), seed));
}

Decryptor Context::decryptor(rlwe::SecretKey sk, DecryptOptions options) const {
  return decryptor(rlwe::share(std::move(sk)), options);
}

Decryptor Context::decryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                             DecryptOptions options) const {
  return Decryptor(rlwe::checked_key(std::move(sk), params_, "ckks::Context::decryptor"), options);
}

Evaluator Context::evaluator() const {
  return Evaluator(params_);
}

Evaluator Context::evaluator(rlwe::KeySwitchKey relin) const {
  return Evaluator(params_, rlwe::share(std::move(relin)));
}

Evaluator Context::evaluator(rlwe::KeySwitchKey relin, rlwe::GaloisKeys galois) const {
  return Evaluator(params_, rlwe::share(std::move(relin)), rlwe::share(std::move(galois)));
}

Evaluator Context::evaluator(std::shared_ptr<const rlwe::KeySwitchKey> relin,
                             std::shared_ptr<const rlwe::GaloisKeys> galois) const {
  return Evaluator(params_, std::move(relin), std::move(galois));
}

Encryptor::Encryptor(std::shared_ptr<const rlwe::Encryptor> encryptor)
    : encryptor_(std::move(encryptor)) {
  if (!encryptor_) throw InvalidParameter("ckks::Encryptor: the rlwe encryptor is null");
}

Ciphertext Encryptor::encrypt(const Plaintext& pt) const {
  return encrypt_with(*encryptor_, pt);
}

Evaluator::Evaluator(const std::shared_ptr<const Context>& ctx,
                     std::shared_ptr<const rlwe::KeySwitchKey> relin,
                     std::shared_ptr<const rlwe::GaloisKeys> galois)
    : Evaluator(ctx ? ctx->params() : nullptr, std::move(relin), std::move(galois)) {}

}  // namespace polyhe::ckks
