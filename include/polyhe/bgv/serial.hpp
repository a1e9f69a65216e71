// Serialisation of BFV/BGV plaintexts. Ciphertexts (with BGV's plaintext factor), keys and
// parameters are rlwe's (rlwe/serial.hpp, which also describes the header and what loading
// checks); the plaintext modulus t travels in the plaintext's payload and is checked against the
// context on load. Ciphertexts serialised with `serialize(ct, bgv::origin(ctx, key))` record their
// scheme, t and key set, and the loader refuses another's (MismatchedContext). A plaintext records
// t but not the scheme: BFV's and BGV's plaintexts are the same coefficients mod t.
//
//   BFV/BGV plaintext (kind 8)   t u64 | N u64 | N coefficients u64, each < t
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/bgv/context.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::bgv {

using rlwe::serialize;

/// What a ciphertext of ctx records: its scheme (BFV or BGV), t and `key` (rlwe::key_id of the
/// public key; all zero: not recorded). Pass it to serialize(ct, origin).
[[nodiscard]] rlwe::Origin origin(const Context& ctx, const rlwe::KeyId& key = {});

/// rlwe::load_ciphertext under ctx's parameters, then the scheme's rules (CorruptData naming the
/// value and the rule): scale 1; BGV: a factor f < t with gcd(f, t) = 1 (invertible mod t, as
/// decryption needs); BFV: factor 1. MismatchedContext when the bytes record another scheme,
/// another t, or a key set other than `key` (where both are recorded).
[[nodiscard]] rlwe::Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes,
                                               const Context& ctx, const rlwe::KeyId& key = {});

/// Checks the plaintext against the context (N coefficients, each < t: InvalidParameter).
[[nodiscard]] std::vector<std::uint8_t> serialize(const Plaintext& pt, const Context& ctx);
/// CorruptData for malformed bytes (lengths, a coefficient ≥ t), MismatchedContext for bytes
/// written under other parameters or another t (both values named).
[[nodiscard]] Plaintext load_plaintext(std::span<const std::uint8_t> bytes, const Context& ctx);

}  // namespace polyhe::bgv
