// The CKKS front door: one object holding the parameters, the encoder built on them and a
// default scale, so that encoding needs only the values; and the objects it makes — key generator,
// encryptor, decryptor, evaluator — in the same shape as bgv::Context's (bgv/context.hpp).
// Everything here is a convenience over ckks.hpp's functions: the same words, checks and messages.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/encoder.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::ckks {

/// Encrypts plaintexts of one context's parameters under a public key (or, made from a secret
/// key, symmetrically). Made by Context::encryptor; copies share one rlwe::Encryptor and so one
/// stream of seeds. Threads and wiping: rlwe::Encryptor's (one encryptor may serve several threads
/// at once).
class Encryptor {
 public:
  /// InvalidParameter for a null encryptor.
  explicit Encryptor(std::shared_ptr<const rlwe::Encryptor> encryptor);

  /// A fresh ciphertext at pt's level and scale, where the key lives (MismatchedContext for a
  /// plaintext of other parameters).
  [[nodiscard]] Ciphertext encrypt(const Plaintext& pt) const;
  /// Where the key lives, and so the ciphertexts (null: host memory).
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return encryptor_->device(); }
  /// The rlwe encryptor underneath (encryptions of zero, the building blocks of rlwe/).
  [[nodiscard]] const rlwe::Encryptor& rlwe_encryptor() const { return *encryptor_; }

 private:
  std::shared_ptr<const rlwe::Encryptor> encryptor_;
};

/// Decrypts with a secret key it owns (shared from a shared_ptr, or a copy of a key given by
/// reference) under fixed options (noise flooding: DecryptOptions). Safe to share between threads
/// without flooding; with flooding each call draws fresh noise, also thread-safe (from the OS).
/// Wiping: the key as rlwe::SecretKey's, the flooding noise once added (the result minus it would
/// undo the flooding); the plaintext returned is the caller's.
class Decryptor {
 public:
  /// InvalidParameter for a null key.
  explicit Decryptor(std::shared_ptr<const rlwe::SecretKey> sk, DecryptOptions options = {});
  explicit Decryptor(const rlwe::SecretKey& sk, DecryptOptions options = {});

  /// m + e (+ the flooding noise) at ct's level and scale. InvalidParameter for a ciphertext of
  /// size other than 2 or 3; MismatchedContext for one of other parameters or another place.
  [[nodiscard]] Plaintext decrypt(const Ciphertext& ct) const;
  [[nodiscard]] const rlwe::SecretKey& key() const { return *sk_; }

 private:
  std::shared_ptr<const rlwe::SecretKey> sk_;
  DecryptOptions options_;
};

/// The parameters, their encoder and the default scale Δ, and the factory of everything that
/// works under them:
///
///     auto ctx = ckks::Context::create(rlwe::Parameters::create(lit));
///     rlwe::KeyGenerator keygen = ctx->key_generator();
///     const rlwe::SecretKey sk = keygen.secret_key();
///     const ckks::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
///     const ckks::Decryptor decryptor = ctx->decryptor(sk);
///     const ckks::Evaluator eval = ctx->evaluator(keygen.relinearization_key(sk));
///
/// bgv::Context makes the same objects for BGV and BFV. Immutable; held through
/// std::shared_ptr<const Context> (ContextPtr) and safe to share between threads.
class Context : public std::enable_shared_from_this<Context> {
 public:
  /// scale: encode()'s default Δ. 0 picks 2^round(log2 q_L), the size of the top prime — the one
  /// the first rescale divides by, so that a product rescaled returns to about Δ, level after
  /// level (with q = {60, 40, 40, 40} that is 2^40). InvalidParameter: null parameters; a scale
  /// that is negative, not finite, or not below Q_L/2 (no message would fit); 0 with a single
  /// prime (L = 0: no rescale to match; pass a scale).
  [[nodiscard]] static std::shared_ptr<const Context> create(rlwe::ParametersPtr params,
                                                             double scale = 0);

  [[nodiscard]] const rlwe::ParametersPtr& params() const { return params_; }
  [[nodiscard]] const Encoder& encoder() const { return encoder_; }
  /// The default scale Δ.
  [[nodiscard]] double scale() const { return scale_; }
  /// N/2 slots.
  [[nodiscard]] std::size_t slots() const { return encoder_.slots(); }
  /// The top level L (fresh encodings and encryptions start there).
  [[nodiscard]] std::size_t max_level() const { return params_->max_level(); }

  /// At the top level and the default scale (the encoder's checks: at most slots() values,
  /// every one finite, coefficients below Q_l/2).
  [[nodiscard]] Plaintext encode(std::span<const double> values) const;
  [[nodiscard]] Plaintext encode(std::span<const std::complex<double>> values) const;
  /// At `level` (≤ L, checked) and `scale` (0: the default).
  [[nodiscard]] Plaintext encode(std::span<const double> values, std::size_t level,
                                 double scale = 0) const;
  [[nodiscard]] Plaintext encode(std::span<const std::complex<double>> values, std::size_t level,
                                 double scale = 0) const;

  /// The slots of pt / pt.scale (MismatchedContext for another parameter set).
  [[nodiscard]] std::vector<std::complex<double>> decode(const Plaintext& pt) const;
  /// Their real parts: what real input decodes to.
  [[nodiscard]] std::vector<double> decode_real(const Plaintext& pt) const;

  /// A key generator of these parameters: fresh operating-system seeds, or with `master_seed`
  /// reproducible (whoever knows that seed knows every key).
  [[nodiscard]] rlwe::KeyGenerator key_generator() const;
  [[nodiscard]] rlwe::KeyGenerator key_generator(const Seed& master_seed) const;

  /// An encryptor of the public key (or, given the secret key, a symmetric one), which it keeps:
  /// a key passed by value is moved in (pass std::move(key), or a temporary, to avoid a copy);
  /// a shared key is shared. `seed` as rlwe::Encryptor's. MismatchedContext for a key of other
  /// parameters; InvalidParameter for a null one.
  [[nodiscard]] Encryptor encryptor(rlwe::PublicKey pk, std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(std::shared_ptr<const rlwe::PublicKey> pk,
                                    std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(rlwe::SecretKey sk, std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                                    std::optional<Seed> seed = {}) const;

  /// A decryptor keeping the secret key (a copy given by value is wiped with it, as every
  /// SecretKey is; a shared key is shared) under `options`. MismatchedContext for a key of other
  /// parameters; InvalidParameter for a null key or options out of range.
  [[nodiscard]] Decryptor decryptor(rlwe::SecretKey sk, DecryptOptions options = {}) const;
  [[nodiscard]] Decryptor decryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                                    DecryptOptions options = {}) const;

  /// An evaluator keeping the relinearisation key and the Galois keys (moved in when given by
  /// value, shared when shared; either may be absent: multiply_relin needs the first, rotations
  /// the second). MismatchedContext for keys of other parameters.
  [[nodiscard]] Evaluator evaluator() const;
  [[nodiscard]] Evaluator evaluator(rlwe::KeySwitchKey relin) const;
  [[nodiscard]] Evaluator evaluator(rlwe::KeySwitchKey relin, rlwe::GaloisKeys galois) const;
  [[nodiscard]] Evaluator evaluator(std::shared_ptr<const rlwe::KeySwitchKey> relin,
                                    std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr) const;

 private:
  Context(rlwe::ParametersPtr params, double scale);

  rlwe::ParametersPtr params_;
  Encoder encoder_;
  double scale_;
};

using ContextPtr = std::shared_ptr<const Context>;

}  // namespace polyhe::ckks
