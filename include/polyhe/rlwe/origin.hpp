// What a ciphertext was made under beyond its parameter set: the scheme, BFV's and BGV's plaintext
// modulus t, and the key set (a key id). Serialised ciphertexts record it (rlwe/serial.hpp, format
// version 3) and the schemes' loaders check it against the context they load into, so that bytes
// of another scheme, another t or another key set are refused by name (MismatchedContext) instead
// of decrypting to garbage.
//
// A key id names a key set: the first 16 bytes of BLAKE2b over its public key's bytes
// (personalisation "polyhe-keyid"), the same value the Python package's contexts carry. Every
// field may be unrecorded (scheme `unrecorded`, t 0, an all-zero key id): a field is compared only
// where both the bytes and the expectation record it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "polyhe/rlwe/keys.hpp"

namespace polyhe::rlwe {

/// The scheme a ciphertext belongs to. Stored as a u8; values are never reused.
enum class SchemeTag : std::uint8_t { unrecorded = 0, ckks = 1, bfv = 2, bgv = 3 };

[[nodiscard]] const char* to_string(SchemeTag s);

inline constexpr std::size_t kKeyIdBytes = 16;
/// All zero: no key set recorded.
using KeyId = std::array<std::uint8_t, kKeyIdBytes>;

/// BLAKE2b-128 (personalisation "polyhe-keyid") of serialize(pk): the id of pk's key set.
[[nodiscard]] KeyId key_id(const PublicKey& pk);

[[nodiscard]] bool is_recorded(const KeyId& key);
/// 32 hex digits, or "none" for an unrecorded id.
[[nodiscard]] std::string to_hex(const KeyId& key);

struct Origin {
  SchemeTag scheme = SchemeTag::unrecorded;
  std::uint64_t t = 0;  ///< BFV/BGV: the plaintext modulus (≥ 2); 0 otherwise
  KeyId key{};          ///< all zero: unrecorded

  /// CorruptData (prefixed by `what`) unless the fields are consistent: a scheme tag ≤ 3, t = 0
  /// for CKKS and unrecorded schemes, t ≥ 2 for BFV and BGV.
  void validate(const char* what) const;
};

/// MismatchedContext (prefixed by `what`, naming the field and both values) unless `recorded`
/// agrees with `expected` wherever both record a field: the scheme, then t (when both are BFV or
/// BGV), then the key id.
void check_origin(const Origin& recorded, const Origin& expected, const char* what);

}  // namespace polyhe::rlwe
