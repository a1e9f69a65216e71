// The CKKS front door: one object holding the parameters, the encoder built on them and a
// default scale, so that encoding needs only the values; and a decryptor that owns its key.
// Everything here is a convenience over ckks.hpp's functions: the same words, checks and messages.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/encoder.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::ckks {

/// The parameters, their encoder and the default scale Δ. Immutable; held through
/// std::shared_ptr<const Context> (ContextPtr) and safe to share between threads.
class Context {
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

  /// At the top level and the default scale (ckks::encode's checks: at most slots() values,
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

 private:
  Context(rlwe::ParametersPtr params, double scale);

  rlwe::ParametersPtr params_;
  Encoder encoder_;
  double scale_;
};

using ContextPtr = std::shared_ptr<const Context>;

/// Decrypts with a secret key it owns (shared from a shared_ptr, or a copy of a key given by
/// reference) under fixed options (noise flooding: DecryptOptions). Safe to share between threads
/// without flooding; with flooding each call draws fresh noise, also thread-safe (from the OS).
/// Wiping: the key as rlwe::SecretKey's, the flooding noise once added (ckks::decrypt); the
/// plaintext returned is the caller's.
class Decryptor {
 public:
  /// InvalidParameter for a null key.
  explicit Decryptor(std::shared_ptr<const rlwe::SecretKey> sk, DecryptOptions options = {});
  explicit Decryptor(const rlwe::SecretKey& sk, DecryptOptions options = {});

  /// ckks::decrypt(ct, key, options).
  [[nodiscard]] Plaintext decrypt(const Ciphertext& ct) const;
  [[nodiscard]] const rlwe::SecretKey& key() const { return *sk_; }

 private:
  std::shared_ptr<const rlwe::SecretKey> sk_;
  DecryptOptions options_;
};

}  // namespace polyhe::ckks
