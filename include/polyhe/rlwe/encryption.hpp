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
/// reference; nothing it holds can dangle.
///
/// Threads: one encryptor may be shared by any number of threads, which encrypt in parallel. Its
/// only state is its seed stream (a SeedSource: a mutex held just while a seed is taken); the key
/// is only read, and the scratch of an encryption is the calling thread's (and, for the
/// transforms, the default pool's: ThreadPool::parallel_for runs a second caller's job on that
/// caller alone while the pool is busy). A seeded encryptor shared by threads hands its seeds out
/// in the order the calls take them: its ciphertexts are then not reproducible.
///
/// Wiped (core/wipe.hpp), before their memory is released or left in a per-thread buffer, also
/// when an exception leaves: v, e_0, e_1 and e (libsodium's sodium_memzero); v's transform, the
/// P limbs of v·b and v·a and ModDown's intermediate words (over Q_l the products are accumulated
/// in the ciphertext's own words, which ModDown overwrites in place); and the kernels' per-thread
/// scratch they pass through. Symmetric mode computes c_0 = −(−e + a·s) + m, so no product a·s is
/// stored. Not wiped: the message m (and its copy P·m), the ciphertext, and seeds on the stack.
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
  [[nodiscard]] Ciphertext encrypt(const RnsPoly& m) const;
  /// An encryption of zero at `level`.
  [[nodiscard]] Ciphertext encrypt_zero(std::size_t level) const;
  /// Where the key lives, and so the ciphertexts this encryptor makes (null: host memory). A
  /// message in host memory is uploaded there; one on another device is refused
  /// (MismatchedContext).
  [[nodiscard]] const std::shared_ptr<Device>& device() const;

 private:
  /// The encryption of m (null: of zero) at `level`, where the key lives; m checked by the
  /// callers and already there.
  Ciphertext encrypt_message(const RnsPoly* m, std::size_t level) const;
  ParametersPtr params_;
  std::shared_ptr<const PublicKey> pk_;
  std::shared_ptr<const SecretKey> sk_;
  mutable SeedSource seeds_;
};

/// c_0 + c_1·s (+ c_2·s²) at the ciphertext's level, evaluation form, where both live. Checks
/// the key and the ciphertext share Parameters and placement (MismatchedContext). The result is
/// the caller's (a decrypted plaintext with its noise: not wiped); the intermediate c_1 + c_2·s
/// of a size-3 ciphertext is wiped. Safe to call from several threads on one key.
[[nodiscard]] RnsPoly decrypt_poly(const Ciphertext& ct, const SecretKey& sk);

/// The first `limbs` limbs of p, as a new polynomial in p's form (1 ≤ limbs ≤ p.limbs(), checked).
[[nodiscard]] RnsPoly prefix(const RnsPoly& p, std::size_t limbs);

}  // namespace polyhe::rlwe
