// Serialisation of CKKS plaintexts. Ciphertexts, keys and parameters are rlwe's (rlwe/serial.hpp,
// which also describes the header, the polynomial blocks and what loading checks).
//
//   plaintext (kind 6)   level u64 (≤ L) | scale f64 (finite, > 0) | poly: poly(level+1)
//                        (evaluation form, limb i < q_i)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::ckks {

using rlwe::load_ciphertext;
using rlwe::serialize;

[[nodiscard]] std::vector<std::uint8_t> serialize(const Plaintext& pt);
/// CorruptData for malformed bytes, MismatchedContext for bytes written under other parameters.
[[nodiscard]] Plaintext load_plaintext(std::span<const std::uint8_t> bytes,
                                       const ParametersPtr& params);

}  // namespace polyhe::ckks
