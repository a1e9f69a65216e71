// RLWE encryption (public-key and symmetric) and decryption of a message polynomial.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::rlwe {

/// Encrypts message polynomials (already encoded and scaled by the scheme) at their level.
/// Public-key mode: with v ternary and e_0, e_1 from the error distribution,
///   c = (v·b + e_0 + m, v·a + e_1)  over Q_l (the key's first l + 1 limbs).
/// Symmetric mode: with a uniform from a fresh seed (kept in the ciphertext: half-size
/// serialisation) and e from the error distribution, c = (−a·s + e + m, a).
/// Every draw uses a fresh OS seed unless the encryptor was given one (reproducible tests only).
/// The encryptor owns its key: shared (no copy) from a shared_ptr, or a copy of a key given by
/// reference; nothing it holds can dangle. Not to be shared between threads (its seed stream is
/// state); make one per thread from the same shared key.
class Encryptor {
 public:
  /// InvalidParameter for a null key.
  explicit Encryptor(std::shared_ptr<const PublicKey> pk, std::optional<Seed> seed = std::nullopt);
  explicit Encryptor(std::shared_ptr<const SecretKey> sk, std::optional<Seed> seed = std::nullopt);
  /// A copy of the key, owned by the encryptor.
  explicit Encryptor(const PublicKey& pk, std::optional<Seed> seed = std::nullopt);
  explicit Encryptor(const SecretKey& sk, std::optional<Seed> seed = std::nullopt);

  /// m: a polynomial of the parameters' ring with l + 1 ≤ L + 1 limbs (checked; MismatchedContext
  /// for another ring), either form. The ciphertext is at level l, evaluation form, scale 1
  /// (the scheme sets its scale).
  [[nodiscard]] Ciphertext encrypt(const RnsPoly& m);
  /// An encryption of zero at `level`.
  [[nodiscard]] Ciphertext encrypt_zero(std::size_t level);
  /// Where the key lives, and so the ciphertexts this encryptor makes (null: host memory). A
  /// message in host memory is uploaded there; one on another device is refused
  /// (MismatchedContext).
  [[nodiscard]] const std::shared_ptr<Device>& device() const;

 private:
  Seed next_seed();
  /// The encryption of m (null: of zero) at `level`, where the key lives; m checked by the
  /// callers and already there.
  Ciphertext encrypt_message(const RnsPoly* m, std::size_t level);
  ParametersPtr params_;
  std::shared_ptr<const PublicKey> pk_;
  std::shared_ptr<const SecretKey> sk_;
  std::optional<Prng> master_;
};

/// c_0 + c_1·s (+ c_2·s²) at the ciphertext's level, evaluation form, where both live. Checks
/// the key and the ciphertext share Parameters and placement (MismatchedContext).
[[nodiscard]] RnsPoly decrypt_poly(const Ciphertext& ct, const SecretKey& sk);

/// The first `limbs` limbs of p, as a new polynomial in p's form (1 ≤ limbs ≤ p.limbs(), checked).
[[nodiscard]] RnsPoly prefix(const RnsPoly& p, std::size_t limbs);

}  // namespace polyhe::rlwe
