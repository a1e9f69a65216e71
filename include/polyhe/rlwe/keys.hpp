// RLWE keys: the secret, the public key, key-switching keys (relinearisation and Galois) for
// hybrid key switching, and their generation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "polyhe/ring/key_parts.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/sampler.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::rlwe {

/// Seed streams: which part of a key or ciphertext a Prng stream expands. The `a` halves are
/// public and regenerated from (seed, stream) on load.
inline constexpr std::uint64_t kStreamPublicKeyA = 1;
inline constexpr std::uint64_t kStreamCiphertextA = 2;
inline constexpr std::uint64_t kStreamKeySwitchA = 16;  // + digit j

/// s: ternary (uniform, or exactly h nonzero), kept over all L + 1 + k primes of Q ∪ P in
/// evaluation form. Secret: never serialised by accident (it has its own Kind).
///
/// Wiped: the destructor and both assignments zero the words of s (RnsPoly::wipe: libsodium's
/// sodium_memzero in host memory, the device's zero on a device) before they go back to the
/// polynomial storage cache or the allocator — for every SecretKey, copies and to_device() copies
/// included. Not wiped here: s assigned directly (`sk.s = …`; assign the SecretKey instead), a
/// copy of s taken as a plain RnsPoly (`RnsPoly t = sk.s`: call t.wipe()), the bytes of
/// serialize(sk) and the buffer load_secret_key reads (the caller's: sodium_memzero them), and
/// decrypted results (plaintexts are not treated as secrets).
///
/// Threads: a const SecretKey may be shared by any number of threads (everything here only reads
/// it: encryptors, decryptors, key generators); assigning to it while others read is a race.
struct SecretKey {
  SecretKey(ParametersPtr params_in, RnsPoly s_in);
  SecretKey(const SecretKey& other) = default;
  SecretKey(SecretKey&& other) noexcept = default;
  SecretKey& operator=(const SecretKey& other);
  SecretKey& operator=(SecretKey&& other) noexcept;
  ~SecretKey();

  ParametersPtr params;
  RnsPoly s;
  /// A copy on `device` (null: host memory), for decryption there.
  [[nodiscard]] SecretKey to_device(const std::shared_ptr<Device>& device) const;
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return s.device(); }

 private:
  /// s.wipe(), errors of a device swallowed (called from the destructor and the move assignment;
  /// a device that fails to zero fails to free as well).
  void wipe() noexcept;
};

/// (b, a) = (−a·s + e, a) over all of Q ∪ P (L + 1 + k limbs) in evaluation form, a expanded
/// from (`seed`, kStreamPublicKeyA). Encryption works over Q_l ∪ P and divides by P (as SEAL
/// does), so the fresh noise v·e + e_0 + e_1·s shrinks to about the rounding error.
/// Public (not wiped). Threads: like every key here, a const PublicKey, KeySwitchKey or
/// GaloisKeys may be shared by any number of threads.
struct PublicKey {
  ParametersPtr params;
  RnsPoly b;
  RnsPoly a;
  Seed seed;
  /// A copy on `device` (null: host memory): an Encryptor of it encrypts there.
  [[nodiscard]] PublicKey to_device(const std::shared_ptr<Device>& device) const;
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return b.device(); }
};

/// Switches a ciphertext part from s' to s (hybrid key switching, Han–Ki; the RNS-CKKS paper's
/// KeySwitch): for each of the dnum digits D_j of Q,
///   b_j = −a_j·s + e_j + P·[D_j-idempotent]·s'  over Q ∪ P,  a_j expanded from (seed, j),
/// where the idempotent is 1 mod the primes of D_j and 0 mod the other primes of Q (and P·… is 0
/// mod P), so b_j limb i is −a_j·s + e_j + (P mod q_i)·s' for q_i in D_j, −a_j·s + e_j otherwise.
/// The same key serves every level l ≤ L: restricted to Q_l the idempotents are those of Q_l's
/// digits. The pairs (b_j, a_j) are stored interleaved for the key switch (KeySwitchParts).
struct KeySwitchKey {
  ParametersPtr params;
  KeySwitchParts parts;  // dnum pairs, L + 1 + k limbs, evaluation form
  Seed seed;
  /// The automorphism x → x^k this key undoes (its s' = σ_k(s)); 0 for a relinearisation key.
  std::uint64_t galois_element = 0;
  /// A copy whose parts live on `device` in its layout (null: host memory, the packed layout).
  [[nodiscard]] KeySwitchKey to_device(const std::shared_ptr<Device>& device) const;
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return parts.device(); }
};

/// Galois keys by Galois element k (x → x^k, k odd in [1, 2N)).
struct GaloisKeys {
  ParametersPtr params;
  std::map<std::uint64_t, KeySwitchKey> keys;
  /// The key for k, or MismatchedContext-free InvalidParameter naming k and the rotation it
  /// serves when it was not generated.
  [[nodiscard]] const KeySwitchKey& at(std::uint64_t k) const;
  [[nodiscard]] bool contains(std::uint64_t k) const { return keys.count(k) != 0; }
  /// A copy with every key on `device` (null: host memory).
  [[nodiscard]] GaloisKeys to_device(const std::shared_ptr<Device>& device) const;
};

/// The Galois element of a slot rotation by `step` (left for step > 0): 5^step mod 2N, step
/// taken modulo N/2 (the order of 5). Conjugation (CKKS) / row swap (BGV) is 2N − 1.
[[nodiscard]] std::uint64_t galois_element_for_rotation(std::size_t n, std::int64_t step);
[[nodiscard]] inline std::uint64_t galois_element_for_conjugation(std::size_t n) {
  return 2 * static_cast<std::uint64_t>(n) - 1;
}

/// Generates keys. Randomness per docs/design.md ("Randomness"): every secret and error is
/// expanded by ChaCha20 from a fresh operating-system seed. The seeded constructor makes
/// generation reproducible (known-answer tests, examples): whoever knows that seed knows every key
/// made from it.
///
/// Wiped (core/wipe.hpp): every temporary derived from s or from the errors — s², σ_k(s), the
/// shares P·s', the errors before they become b = e − a·s (computed in place as −(−e + a·s), so
/// no product a·s is ever stored), and the transforms' per-thread scratch they pass through —
/// before its memory is released, also when an exception leaves; the samplers and Prng wipe their
/// own buffers. Not wiped: seeds on the stack and in registers.
///
/// Threads: one generator may be shared (its seed stream is a SeedSource, guarded by a mutex; a
/// seeded generator used from several threads at once hands its seeds out in the order the calls
/// take them, so its keys are reproducible only when made from one thread).
class KeyGenerator {
 public:
  explicit KeyGenerator(ParametersPtr params);
  KeyGenerator(ParametersPtr params, const Seed& master_seed);

  [[nodiscard]] SecretKey secret_key();
  [[nodiscard]] PublicKey public_key(const SecretKey& sk);
  /// Switches s² → s.
  [[nodiscard]] KeySwitchKey relinearization_key(const SecretKey& sk);
  /// Switches σ_k(s) → s, k odd in [1, 2N) (checked).
  [[nodiscard]] KeySwitchKey galois_key(const SecretKey& sk, std::uint64_t k);
  [[nodiscard]] GaloisKeys galois_keys(const SecretKey& sk,
                                       std::span<const std::uint64_t> elements);
  /// Keys for slot rotations by each step (and conjugation when asked).
  [[nodiscard]] GaloisKeys rotation_keys(const SecretKey& sk, std::span<const std::int64_t> steps,
                                         bool conjugation = false);
  /// Switches `from` (given over all of Q ∪ P, evaluation form) → s.
  [[nodiscard]] KeySwitchKey switching_key(const SecretKey& sk, const RnsPoly& from);
  /// A generator for another parameter set, seeded from this one's stream: the keys it makes are
  /// reproducible exactly when this generator's are (e.g. a bootstrapping key at a small modulus
  /// made beside this set's keys).
  [[nodiscard]] KeyGenerator for_parameters(ParametersPtr other);

 private:
  Seed next_seed();
  void check(const SecretKey& sk) const;

  ParametersPtr params_;
  SeedSource seeds_;
};

/// The secret of `sk` as a secret key of `target`, a parameter set of the same ring degree: its
/// coefficients, read centred modulo q_0 (a ternary s is the same there), over every prime of
/// `target`'s Q ∪ P. For keys that join two parameter sets under one secret (bootstrapping's
/// encapsulation keys). Host memory; wiped as every SecretKey is. InvalidParameter: a different
/// ring degree, a ring that is not x^N + 1, or a key on a device.
[[nodiscard]] SecretKey rebase_secret(const SecretKey& sk, ParametersPtr target);

/// A key moved (or copied) into shared ownership: what evaluators and encryptors keep, so that a
/// key outlives every object that uses it. `auto relin =
/// rlwe::share(keygen.relinearization_key(sk));`
template <class Key>
[[nodiscard]] std::shared_ptr<const std::remove_cvref_t<Key>> share(Key&& key) {
  return std::make_shared<const std::remove_cvref_t<Key>>(std::forward<Key>(key));
}

/// Throws MismatchedContext unless `a` and `b` are the same Parameters object, naming `what`.
void check_same_params(const ParametersPtr& a, const ParametersPtr& b, const char* what);

/// InvalidParameter "`what`: the key is null" for a null pointer.
void check_not_null(const void* key, const char* what);

/// `key` itself, once checked: not null (check_not_null) and of `params` (check_same_params).
/// What the scheme contexts' factories keep.
template <class Key>
[[nodiscard]] std::shared_ptr<const Key> checked_key(std::shared_ptr<const Key> key,
                                                     const ParametersPtr& params,
                                                     const char* what) {
  check_not_null(key.get(), what);
  check_same_params(params, key->params, what);
  return key;
}

/// InvalidParameter "op: `count` `what`, above the cap of `cap` (`why`)" when count > cap: every
/// list a call takes is capped before any work, so that no list can exhaust memory or time.
void check_list_length(std::size_t count, std::size_t cap, const char* op, const char* what,
                       const char* why);

}  // namespace polyhe::rlwe
