// Reference pieces for the cyclotomic-ring tests: schoolbook products and long division by Φ_m.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/ntt/cyclic/cyclotomic.hpp"

namespace polyhe::test {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

/// The full product a·b mod q (degree 2n − 2), with 128-bit accumulators reduced only every
/// `batch` rows, batch·(q − 1)² < 2^128.
inline std::vector<u64> schoolbook_product(const std::vector<u64>& a, const std::vector<u64>& b,
                                           u64 q) {
  const std::size_t n = a.size();
  const u128 max_term = static_cast<u128>(q - 1) * (q - 1);
  const u128 batch128 = max_term == 0 ? n : (~u128{0} - (q - 1)) / max_term;
  const std::size_t batch = batch128 > n ? n : static_cast<std::size_t>(batch128);
  std::vector<u128> acc(2 * n - 1, 0);
  u128* const out = acc.data();
  const u64* const bp = b.data();
  for (std::size_t i = 0; i < n; ++i) {
    const u128 ai = a[i];
    u128* const row = out + i;
    for (std::size_t j = 0; j < n; ++j) row[j] += ai * bp[j];
    if ((i + 1) % batch == 0) {
      for (auto& x : acc) x %= q;
    }
  }
  std::vector<u64> c(acc.size());
  for (std::size_t k = 0; k < acc.size(); ++k) c[k] = static_cast<u64>(acc[k] % q);
  return c;
}

/// r mod (Φ_m, q) by schoolbook long division over Φ_m's integer coefficients (those of
/// cyclotomic_polynomial, reduced here); returns the φ(m) low coefficients.
inline std::vector<u64> reduce_by_phi(std::vector<u64> r, std::uint64_t m, const Modulus<u64>& q) {
  const auto phi = cyclotomic_polynomial(m);
  const std::size_t d = phi.size() - 1;
  std::vector<std::pair<std::size_t, u64>> neg;  // (i, −f_i mod q) for f_i ≠ 0, i < d
  for (std::size_t i = 0; i < d; ++i) {
    if (phi[i] == 0) continue;
    const auto mag = static_cast<u64>(phi[i] < 0 ? -phi[i] : phi[i]) % q.value();
    neg.emplace_back(i, phi[i] < 0 ? mag : (q.value() - mag) % q.value());
  }
  if (r.size() < d) r.resize(d, 0);
  for (std::size_t k = r.size(); k-- > d;) {
    const u64 t = r[k];
    for (const auto& [i, g] : neg) {
      u64& x = r[k - d + i];
      x += q.mul(t, g);
      if (x >= q.value()) x -= q.value();
    }
  }
  r.resize(d);
  return r;
}

/// a·b mod (Φ_m, q): schoolbook product, then division by Φ_m.
inline std::vector<u64> reference_multiply(const std::vector<u64>& a, const std::vector<u64>& b,
                                           std::uint64_t m, const Modulus<u64>& q) {
  return reduce_by_phi(schoolbook_product(a, b, q.value()), m, q);
}

}  // namespace polyhe::test
