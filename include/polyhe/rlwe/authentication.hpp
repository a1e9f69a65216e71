// Authenticated serialisation: a keyed BLAKE2b-256 tag (libsodium's crypto_generichash) appended
// to any serialised object's bytes, so that a holder of the key detects any change to them.
//
// This is integrity and authenticity between parties who share the key, not secrecy: the bytes
// stay readable, and anyone without the key can still load the untagged object. It detects what
// the loaders' own checks cannot: a ciphertext or public key whose words were changed below their
// primes, a Galois key relabelled to another rotation, a scale or factor altered within its range.
// It does not detect replay (the same tagged bytes sent again) or an object swapped for another
// tagged under the same key: bind what matters (a message number, a session) into your protocol.
//
//   sealed = bytes | tag (32 bytes), tag = BLAKE2b-256_key("polyhe-mac-v1" | bytes)
//
// Use: `auto sealed = authenticate(serialize(ct), key);` then on receipt
// `load_ciphertext(verify(sealed, key), params)`. The key is the caller's secret (32 bytes from
// generate_mac_key(), or derived by the caller's key exchange); the caller owns and wipes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace polyhe::rlwe {

inline constexpr std::size_t kMacKeyBytes = 32;
inline constexpr std::size_t kMacTagBytes = 32;
using MacKey = std::array<std::uint8_t, kMacKeyBytes>;

/// A fresh key from the operating system's CSPRNG (libsodium's randombytes_buf).
[[nodiscard]] MacKey generate_mac_key();

/// `bytes` followed by their tag under `key`.
[[nodiscard]] std::vector<std::uint8_t> authenticate(std::span<const std::uint8_t> bytes,
                                                     const MacKey& key);

/// The object bytes of `sealed` (a view into it, without the tag) when its tag is right under
/// `key`, compared in constant time; CorruptData otherwise ("authentication failed": changed,
/// truncated or extended bytes, or another key), and for input shorter than a tag.
[[nodiscard]] std::span<const std::uint8_t> verify(std::span<const std::uint8_t> sealed,
                                                   const MacKey& key);

}  // namespace polyhe::rlwe
