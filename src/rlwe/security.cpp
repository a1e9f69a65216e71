#include "polyhe/rlwe/security.hpp"

#include <array>

namespace polyhe::rlwe {

const char* to_string(SecurityLevel s) {
  switch (s) {
    case SecurityLevel::bits128: return "128-bit";
    case SecurityLevel::bits192: return "192-bit";
    case SecurityLevel::bits256: return "256-bit";
    case SecurityLevel::insecure_none: return "insecure_none";
  }
  return "unknown";
}

int security_rank(SecurityLevel s) {
  switch (s) {
    case SecurityLevel::insecure_none: return 0;
    case SecurityLevel::bits128: return 1;
    case SecurityLevel::bits192: return 2;
    case SecurityLevel::bits256: return 3;
  }
  return 0;
}

std::optional<int> max_log_qp(std::size_t n, SecurityLevel s) {
  // Rows: log2 n = 10 … 17; 0 = no entry in the standard.
  static constexpr std::array<int, 8> k128 = {27, 54, 109, 218, 438, 881, 1747, 3523};
  static constexpr std::array<int, 8> k192 = {19, 37, 75, 152, 305, 611, 0, 0};
  static constexpr std::array<int, 8> k256 = {14, 29, 58, 118, 237, 476, 0, 0};
  int log_n = -1;
  for (int l = 10; l <= 17; ++l) {
    if (n == (std::size_t{1} << l)) log_n = l;
  }
  if (log_n < 0) return std::nullopt;
  const std::size_t row = static_cast<std::size_t>(log_n - 10);
  int v = 0;
  switch (s) {
    case SecurityLevel::bits128: v = k128[row]; break;
    case SecurityLevel::bits192: v = k192[row]; break;
    case SecurityLevel::bits256: v = k256[row]; break;
    case SecurityLevel::insecure_none: return std::nullopt;
  }
  if (v == 0) return std::nullopt;
  return v;
}

}  // namespace polyhe::rlwe
