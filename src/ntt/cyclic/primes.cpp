// Primes q ≡ 1 mod L and primitive n-th roots of unity for cyclic transforms.
#include "polyhe/ntt/cyclic/primes.hpp"

#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {

std::uint64_t cyclic_prime(int bits, std::uint64_t L, PrimeChoice choice) {
  if (bits < 2 || bits > 62) {
    throw InvalidParameter("prime size " + std::to_string(bits) + " bits is outside [2, 62]");
  }
  if (L == 0) throw InvalidParameter("L = 0: no prime is 1 mod 0");
  const std::uint64_t lo = std::uint64_t{1} << (bits - 1);  // q in [lo, 2·lo)
  const std::uint64_t hi = (lo << 1) - 1;
  // q = k·L + 1 with k in [k_min, k_max].
  const std::uint64_t k_min = (lo - 1 + L - 1) / L;
  const std::uint64_t k_max = (hi - 1) / L;
  if (k_min <= k_max) {
    if (choice == PrimeChoice::smallest) {
      for (std::uint64_t k = k_min; k <= k_max; ++k) {
        if (is_prime(k * L + 1)) return k * L + 1;
      }
    } else {
      for (std::uint64_t k = k_max; k >= k_min && k != 0; --k) {
        if (is_prime(k * L + 1)) return k * L + 1;
      }
    }
  }
  throw InvalidParameter("no " + std::to_string(bits) + "-bit prime is 1 mod " + std::to_string(L));
}

bool is_primitive_nth_root(std::uint64_t w, std::uint64_t q, std::uint64_t n) {
  if (n == 0 || w >= q || pow_mod(w, n, q) != 1) return false;
  for (std::uint64_t p : prime_factors(n)) {
    if (pow_mod(w, n / p, q) == 1) return false;
  }
  return true;
}

std::uint64_t primitive_nth_root(std::uint64_t q, std::uint64_t n) {
  if (!is_prime(q)) throw InvalidParameter("q = " + std::to_string(q) + " is not a prime");
  if (n == 0 || (q - 1) % n != 0) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not 1 mod n = " + std::to_string(n) +
                           ": no primitive n-th root of unity");
  }
  if (n == 1) return 1;
  const std::uint64_t e = (q - 1) / n;
  for (std::uint64_t g = 2; g < q; ++g) {
    const std::uint64_t w = pow_mod(g, e, q);
    if (is_primitive_nth_root(w, q, n)) return w;
  }
  throw InvalidParameter("no primitive " + std::to_string(n) + "-th root mod " +
                         std::to_string(q));  // unreachable for a prime q ≡ 1 mod n
}

std::uint64_t multiplicative_generator(std::uint64_t p) {
  return primitive_nth_root(p, p - 1);
}

}  // namespace polyhe
