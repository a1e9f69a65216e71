// Reference pieces for the cyclic-NTT tests: the naive DFT and primes that admit every plan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {

using u64 = std::uint64_t;

/// X[k] = Σ_j x[j]·ω^(jk) for one k, by Horner's rule at ω^k: O(n).
inline u64 naive_dft_at(const std::vector<u64>& x, u64 omega, std::size_t k,
                        const Modulus<u64>& q) {
  const u64 w = pow_mod(omega, k, q.value());
  u64 acc = 0;
  for (std::size_t j = x.size(); j-- > 0;) {
    acc = q.mul(acc, w) + x[j];
    if (acc >= q.value()) acc -= q.value();
  }
  return acc;
}

/// The whole naive O(n²) DFT.
inline std::vector<u64> naive_dft(const std::vector<u64>& x, u64 omega, const Modulus<u64>& q) {
  std::vector<u64> out(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) out[k] = naive_dft_at(x, omega, k, q);
  return out;
}

/// lcm(n, 2^pow2_log, p − 1 for every prime p | n): a prime ≡ 1 mod it admits every
/// decomposition at the root of a length-n plan (Rader's L = p − 1 and the power-of-two
/// convolutions of rader_padded and Bluestein for n ≤ 2^(pow2_log − 1)).
inline u64 friendly_modulus(std::size_t n, int pow2_log) {
  u64 L = std::lcm(static_cast<u64>(n), u64{1} << pow2_log);
  for (u64 p : prime_factors(n)) L = std::lcm(L, p - 1);
  return L;
}

inline std::vector<u64> random_vector(TestRng& rng, std::size_t n, u64 q) {
  std::vector<u64> a(n);
  for (auto& x : a) x = rng.uniform(0, q - 1);
  return a;
}

}  // namespace polyhe::test
