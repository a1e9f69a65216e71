// Serialisation of CKKS plaintexts. Ciphertexts, keys and parameters are rlwe's (rlwe/serial.hpp,
// which also describes the header, the polynomial blocks and what loading checks).
//
//   plaintext (kind 6)   level u64 (≤ L) | scale f64 (in [1, Q_level)) | poly: poly(level+1)
//                        (evaluation form, limb i < q_i)
//
// CKKS's loaders add its own rules to rlwe's: a scale in [1, Q_l), Q_l the modulus of the
// object's level (a scale below 1 or at least Q_l leaves no bit of the message above the noise
// or below the modulus: such a value decodes to garbage, and a scale of 1e-300 to inf and NaN),
// and a ciphertext's factor 1 (CKKS has no plaintext factor). Ciphertexts serialised with
// `serialize(ct, ckks::origin(key))` record that they are CKKS and the key set they were made
// under; the loader refuses another scheme's or another key set's (MismatchedContext).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::ckks {

using rlwe::serialize;

/// What a CKKS ciphertext's bytes record: the scheme and `key` (rlwe::key_id of the public key;
/// all zero: not recorded). Pass it to serialize(ct, origin).
[[nodiscard]] rlwe::Origin origin(const rlwe::KeyId& key = {});

/// rlwe::load_ciphertext, then CKKS's rules (scale in [1, Q_l), factor 1): CorruptData naming the
/// value and the rule otherwise. MismatchedContext when the bytes record another scheme, or a key
/// set other than `key` (where both are recorded).
[[nodiscard]] Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes,
                                         const ParametersPtr& params, const rlwe::KeyId& key = {});

[[nodiscard]] std::vector<std::uint8_t> serialize(const Plaintext& pt);
/// CorruptData for malformed bytes, MismatchedContext for bytes written under other parameters.
[[nodiscard]] Plaintext load_plaintext(std::span<const std::uint8_t> bytes,
                                       const ParametersPtr& params);

}  // namespace polyhe::ckks
