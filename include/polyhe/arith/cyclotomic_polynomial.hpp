// The integer coefficients of cyclotomic polynomials Φ_m.
#pragma once

#include <cstdint>
#include <vector>

namespace polyhe {

/// The largest index cyclotomic_polynomial takes.
inline constexpr std::uint64_t kMaxCyclotomicIndex = std::uint64_t{1} << 22;

/// The integer coefficients of the m-th cyclotomic polynomial Φ_m (monic, degree φ(m)), lowest
/// degree first, computed exactly: with r = rad(m) = p1·…·pk, Φ_m(x) = Φ_r(x^(m/r)) and
/// Φ_(n·p)(x) = Φ_n(x^p) / Φ_n(x) for a prime p ∤ n, starting from Φ_1 = x − 1.
/// Throws InvalidParameter when m is 0 or above kMaxCyclotomicIndex, or when a coefficient
/// (or an intermediate one of the exact divisions) does not fit in an int64.
std::vector<std::int64_t> cyclotomic_polynomial(std::uint64_t m);

}  // namespace polyhe
