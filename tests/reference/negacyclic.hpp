// Slow, obviously correct references for the NTT layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::test {

/// Schoolbook a·b mod (x^n + 1, q): x^i·x^j = x^(i+j) when i + j < n, −x^(i+j−n) otherwise.
template <class W>
std::vector<W> schoolbook_negacyclic(const std::vector<W>& a, const std::vector<W>& b, W q) {
  const std::size_t n = a.size();
  std::vector<u128> pos(n, 0), neg(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const u128 p = static_cast<u128>(a[i]) * b[j] % q;
      if (i + j < n) {
        pos[i + j] += p;
      } else {
        neg[i + j - n] += p;
      }
    }
  }
  std::vector<W> c(n);
  for (std::size_t k = 0; k < n; ++k) {
    c[k] = static_cast<W>((pos[k] % q + q - neg[k] % q) % q);
  }
  return c;
}

/// â[i] = a(ψ^(2·br(i)+1)) mod q, straight from the definition (O(n²)).
template <class W>
std::vector<W> naive_negacyclic_dft_bitrev(const std::vector<W>& a, W q, W psi) {
  const std::size_t n = a.size();
  int log_n = 0;
  while ((std::size_t{1} << log_n) < n) ++log_n;
  std::vector<W> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = 0;
    for (int b = 0; b < log_n; ++b) r |= ((i >> b) & 1U) << (log_n - 1 - b);
    const std::uint64_t x = pow_mod(psi, 2 * r + 1, q);
    u128 acc = 0;
    std::uint64_t xp = 1;
    for (std::size_t j = 0; j < n; ++j) {
      acc = (acc + static_cast<u128>(a[j]) * xp) % q;
      xp = static_cast<std::uint64_t>(static_cast<u128>(xp) * x % q);
    }
    out[i] = static_cast<W>(acc);
  }
  return out;
}

}  // namespace polyhe::test
