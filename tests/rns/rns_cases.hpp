// Shared helpers for the rns tests: random prime bases and random big integers, from the seeded
// test generator.
#pragma once

#include <gmpxx.h>

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/rns/basis.hpp"
#include "polyhe/rns/bigint.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {

/// A random prime of exactly `bits` bits (2 < bits ≤ 62), not in `avoid`.
inline std::uint64_t random_prime(TestRng& rng, int bits,
                                  const std::unordered_set<std::uint64_t>& avoid) {
  for (;;) {
    std::uint64_t x = rng.uniform(std::uint64_t{1} << (bits - 1), (std::uint64_t{1} << bits) - 1);
    x |= 1;
    while (bit_length(x) == bits && (!is_prime(x) || avoid.contains(x))) x += 2;
    if (bit_length(x) == bits) return x;
  }
}

/// `count` distinct random primes of lo..hi bits each (uniformly chosen per prime), not in
/// `avoid` (which receives them).
inline std::vector<std::uint64_t> random_primes(TestRng& rng, std::size_t count, int lo, int hi,
                                                std::unordered_set<std::uint64_t>& avoid) {
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < count; ++i) {
    const int bits = static_cast<int>(
        rng.uniform(static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)));
    out.push_back(random_prime(rng, bits, avoid));
    avoid.insert(out.back());
  }
  return out;
}

inline std::vector<std::uint64_t> random_primes(TestRng& rng, std::size_t count, int lo, int hi) {
  std::unordered_set<std::uint64_t> avoid;
  return random_primes(rng, count, lo, hi, avoid);
}

/// GMP's generator, seeded from the test generator (so the run seed replays it too).
class BigRng : public gmp_randclass {
 public:
  explicit BigRng(TestRng& rng) : gmp_randclass(gmp_randinit_default) {
    seed(static_cast<unsigned long>(rng.bits()));
  }
};

/// n uniform integers in [0, m), plus the edge cases 0, 1, m − 1, ⌊m/2⌋, ⌊m/2⌋ + 1 first.
inline std::vector<mpz_class> random_values(gmp_randclass& r, const mpz_class& m, std::size_t n) {
  std::vector<mpz_class> v = {0, 1, m - 1, m / 2, m / 2 + 1};
  v.resize(std::min(v.size(), n));
  while (v.size() < n) v.push_back(r.get_z_range(m));
  return v;
}

/// The limbs of `values` over `basis` (from_bigint into a fresh vector).
inline std::vector<std::uint64_t> to_limbs(const std::vector<mpz_class>& values,
                                           const RnsBasis& basis) {
  std::vector<std::uint64_t> out(values.size() * basis.size());
  from_bigint(values, basis, out);
  return out;
}

}  // namespace polyhe::test
