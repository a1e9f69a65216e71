#include "polyhe/arith/primes.hpp"

#include <cmath>
#include <string>

#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {

namespace {

std::uint64_t mul_mod_u64(std::uint64_t a, std::uint64_t b, std::uint64_t q) {
  return static_cast<std::uint64_t>(mul_wide(a, b) % q);
}

}  // namespace

std::uint64_t pow_mod(std::uint64_t base, std::uint64_t exp, std::uint64_t q) {
  std::uint64_t result = 1 % q;
  base %= q;
  while (exp != 0) {
    if (exp & 1) result = mul_mod_u64(result, base, q);
    base = mul_mod_u64(base, base, q);
    exp >>= 1;
  }
  return result;
}

std::uint64_t inverse_mod(std::uint64_t a, std::uint64_t q) {
  // Extended Euclid on signed 128-bit values.
  __extension__ using i128 = __int128;
  i128 r0 = q, r1 = a % q, s0 = 0, s1 = 1;
  while (r1 != 0) {
    const i128 quot = r0 / r1;
    const i128 r2 = r0 - quot * r1;
    r0 = r1;
    r1 = r2;
    const i128 s2 = s0 - quot * s1;
    s0 = s1;
    s1 = s2;
  }
  if (r0 != 1) {
    throw InvalidParameter(std::to_string(a) + " has no inverse modulo " + std::to_string(q));
  }
  if (s0 < 0) s0 += q;
  return static_cast<std::uint64_t>(s0);
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  constexpr std::uint64_t kBases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (std::uint64_t p : kBases) {
    if (n % p == 0) return n == p;
  }
  std::uint64_t d = n - 1;
  int s = 0;
  while ((d & 1) == 0) {
    d >>= 1;
    ++s;
  }
  for (std::uint64_t a : kBases) {
    std::uint64_t x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (int i = 1; i < s; ++i) {
      x = mul_mod_u64(x, x, n);
      if (x == n - 1) {
        composite = false;
        break;
      }
    }
    if (composite) return false;
  }
  return true;
}

namespace {

void check_n(std::size_t n) {
  if (!is_power_of_two(n) || n < 2) {
    throw InvalidParameter("N = " + std::to_string(n) + " is not a power of two >= 2");
  }
}

}  // namespace

std::vector<std::uint64_t> prime_factors(std::uint64_t n) {
  std::vector<std::uint64_t> factors;
  for (std::uint64_t p = 2; p * p <= n; ++p) {
    if (n % p != 0) continue;
    factors.push_back(p);
    while (n % p == 0) n /= p;
  }
  if (n > 1) factors.push_back(n);
  return factors;
}

std::pair<std::uint64_t, unsigned> prime_power(std::uint64_t n) {
  if (is_prime(n)) return {n, 1};
  // For each r ≥ 2 with 2^r ≤ n, the r-th root (below 2^32) near its floating-point estimate,
  // confirmed in exact arithmetic.
  for (unsigned r = 2; r < 64 && (n >> r) != 0; ++r) {
    const auto estimate =
        static_cast<std::uint64_t>(std::llround(std::pow(static_cast<double>(n), 1.0 / r)));
    for (std::uint64_t root = estimate > 2 ? estimate - 1 : 2; root <= estimate + 1; ++root) {
      unsigned __int128 power = 1;
      for (unsigned e = 0; e < r && power <= n; ++e) power *= root;
      if (power == n) {
        if (is_prime(root)) return {root, r};
        break;
      }
    }
  }
  return {0, 0};
}

std::vector<std::uint64_t> ntt_primes(int bits, std::size_t n, std::size_t count) {
  check_n(n);
  if (bits < 2 || bits > 62) {
    throw InvalidParameter("prime bit length " + std::to_string(bits) + " is outside [2, 62]");
  }
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  const std::uint64_t lo = std::uint64_t{1} << (bits - 1);
  const std::uint64_t hi = (std::uint64_t{1} << bits) - 1;
  if (two_n + 1 > hi) {
    throw InvalidParameter("no " + std::to_string(bits) + "-bit prime can be 1 mod 2N = " +
                           std::to_string(two_n) + ": 2N + 1 needs more bits");
  }
  // The largest candidate ≡ 1 mod 2N below 2^bits, then downwards in steps of 2N.
  std::uint64_t q = (hi - 1) / two_n * two_n + 1;
  const std::uint64_t candidates = q < lo ? 0 : (q - lo) / two_n + 1;
  if (count > kMaxNttPrimes || count > candidates) {
    throw InvalidParameter("ntt_primes: count = " + std::to_string(count) + " primes of " +
                           std::to_string(bits) + " bits, 1 mod 2N = " + std::to_string(two_n) +
                           ", requested; at most " +
                           std::to_string(std::min<std::uint64_t>(kMaxNttPrimes, candidates)) +
                           " can be (kMaxNttPrimes = " + std::to_string(kMaxNttPrimes) + ", " +
                           std::to_string(candidates) + " candidates)");
  }
  std::vector<std::uint64_t> primes;
  while (primes.size() < count && q >= lo) {
    if (is_prime(q)) primes.push_back(q);
    if (q < two_n) break;
    q -= two_n;
  }
  if (primes.size() < count) {
    throw InvalidParameter("only " + std::to_string(primes.size()) + " primes of " +
                           std::to_string(bits) + " bits are 1 mod 2N = " + std::to_string(two_n) +
                           "; " + std::to_string(count) + " were requested");
  }
  return primes;
}

void check_ntt_prime(std::uint64_t q, std::size_t n) {
  check_n(n);
  if (!is_prime(q)) throw InvalidParameter("q = " + std::to_string(q) + " is not prime");
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  if (q % two_n != 1) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not 1 mod 2N = " +
                           std::to_string(two_n) + " (q mod 2N = " + std::to_string(q % two_n) +
                           "), so it has no primitive 2N-th root of unity");
  }
}

bool is_primitive_root(std::uint64_t psi, std::uint64_t q, std::size_t n) {
  // For n a power of two, ψ has order exactly 2n iff ψ^n = −1.
  return psi < q && pow_mod(psi, n, q) == q - 1;
}

std::uint64_t minimal_primitive_root(std::uint64_t q, std::size_t n) {
  check_ntt_prime(q, n);
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  // Some g^((q−1)/2N) has order 2N: a quadratic non-residue g gives one. Then every primitive
  // 2N-th root is ψ^j for odd j; take the smallest.
  std::uint64_t psi = 0;
  for (std::uint64_t g = 2; g < q; ++g) {
    const std::uint64_t c = pow_mod(g, (q - 1) / two_n, q);
    if (pow_mod(c, n, q) == q - 1) {
      psi = c;
      break;
    }
  }
  const std::uint64_t psi2 = mul_mod_u64(psi, psi, q);
  std::uint64_t best = psi;
  std::uint64_t cur = psi;
  for (std::uint64_t j = 1; j < n; ++j) {
    cur = mul_mod_u64(cur, psi2, q);  // ψ^(2j+1)
    if (cur < best) best = cur;
  }
  return best;
}

}  // namespace polyhe
