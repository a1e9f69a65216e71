// The HomomorphicEncryption.org security table for uniform ternary secrets (classical attacks).
#pragma once

#include <cstddef>
#include <optional>

namespace polyhe::rlwe {

/// The security a parameter set must reach. `insecure_none` is the opt-out by name: it turns the
/// check off (tests, toy examples) and is recorded in the parameters and their hash.
enum class SecurityLevel { bits128, bits192, bits256, insecure_none };

[[nodiscard]] const char* to_string(SecurityLevel s);

/// The order of the levels: insecure_none 0 < bits128 1 < bits192 2 < bits256 3 (what a caller's
/// minimum is compared with).
[[nodiscard]] int security_rank(SecurityLevel s);

/// The largest log2(QP) the HomomorphicEncryption.org standard (Albrecht et al., 2018/2019,
/// Table 1, ternary secret) allows for ring dimension n at security s: 128 bits → 27, 54, 109,
/// 218, 438, 881 for n = 2^10 … 2^15, and 1747 (2^16), 3523 (2^17) as extended by OpenFHE;
/// 192 bits → 19, 37, 75, 152, 305, 611; 256 bits → 14, 29, 58, 118, 237, 476 (n ≤ 2^15 only).
/// nullopt where the table has no entry (n < 2^10, or n ≥ 2^16 above 128 bits) or s is
/// insecure_none.
[[nodiscard]] std::optional<int> max_log_qp(std::size_t n, SecurityLevel s);

}  // namespace polyhe::rlwe
