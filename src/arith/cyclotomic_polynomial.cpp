// The cyclotomic polynomials Φ_m over the integers, by exact division.
#include "polyhe/arith/cyclotomic_polynomial.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {
namespace {

using Poly = std::vector<std::int64_t>;

[[noreturn]] void overflow(std::uint64_t m) {
  throw InvalidParameter("a coefficient of the cyclotomic polynomial Phi_" + std::to_string(m) +
                         " (or of its exact division) does not fit in an int64");
}

/// f(x^e).
Poly substitute_power(const Poly& f, std::size_t e) {
  Poly out((f.size() - 1) * e + 1, 0);
  for (std::size_t i = 0; i < f.size(); ++i) out[i * e] = f[i];
  return out;
}

/// num / den for a monic den that divides num exactly: long division from the top degree over
/// the nonzero coefficients of den only, O(deg(num/den) · nnz(den)).
Poly exact_divide(Poly num, const Poly& den, std::uint64_t m) {
  const std::size_t dd = den.size() - 1;
  std::vector<std::pair<std::size_t, std::int64_t>> terms;
  for (std::size_t i = 0; i < dd; ++i) {
    if (den[i] != 0) terms.emplace_back(i, den[i]);
  }
  const std::size_t dq = num.size() - 1 - dd;
  Poly quo(dq + 1);
  for (std::size_t k = num.size() - 1; k >= dd; --k) {  // dd ≥ 1: no wrap-around
    const std::int64_t t = num[k];
    quo[k - dd] = t;
    if (t == 0) continue;
    for (const auto& [i, d] : terms) {
      std::int64_t prod = 0;
      std::int64_t& r = num[k - dd + i];
      if (__builtin_mul_overflow(t, d, &prod) || __builtin_sub_overflow(r, prod, &r)) overflow(m);
    }
  }
  for (std::size_t i = 0; i < dd; ++i) {
    if (num[i] != 0) {
      throw Error("internal: Phi_" + std::to_string(m) + " division left a remainder");
    }
  }
  return quo;
}

}  // namespace

std::vector<std::int64_t> cyclotomic_polynomial(std::uint64_t m) {
  if (m == 0 || m > kMaxCyclotomicIndex) {
    throw InvalidParameter("cyclotomic index m = " + std::to_string(m) + " is outside [1, " +
                           std::to_string(kMaxCyclotomicIndex) + "]");
  }
  Poly phi = {-1, 1};  // Φ_1 = x − 1
  std::uint64_t rad = 1;
  for (const std::uint64_t p : prime_factors(m)) {
    // Φ_(rad·p)(x) = Φ_rad(x^p) / Φ_rad(x), p ∤ rad.
    phi = exact_divide(substitute_power(phi, static_cast<std::size_t>(p)), phi, m);
    rad *= p;
  }
  return substitute_power(phi, static_cast<std::size_t>(m / rad));
}

}  // namespace polyhe
