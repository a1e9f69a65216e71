// Serialisation of CKKS plaintexts. Ciphertexts, keys and parameters are rlwe's (rlwe/serial.hpp,
// which also describes the header, the polynomial blocks and what loading checks).
//
//   plaintext (kind 6)   level u64 (≤ L) | scale f64 (in [1, Q_level)) | poly: poly(level+1)
//                        (evaluation form, limb i < q_i)
//
// CKKS's loaders add its own rules to rlwe's: a scale in [1, Q_l), Q_l the modulus of the
// object's level (a scale below 1 or at least Q_l leaves no bit of the message above the noise
// or below the modulus: such a value decodes to garbage, and a scale of 1e-300 to inf and NaN),
// and a ciphertext's factor 1 (CKKS has no plaintext factor).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::ckks {

using rlwe::serialize;

/// rlwe::load_ciphertext, then CKKS's rules (scale in [1, Q_l), factor 1): CorruptData naming the
/// value and the rule otherwise.
[[nodiscard]] Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes,
                                         const ParametersPtr& params);

[[nodiscard]] std::vector<std::uint8_t> serialize(const Plaintext& pt);
/// CorruptData for malformed bytes, MismatchedContext for bytes written under other parameters.
[[nodiscard]] Plaintext load_plaintext(std::span<const std::uint8_t> bytes,
                                       const ParametersPtr& params);

}  // namespace polyhe::ckks
