// Primality, NTT-friendly primes and roots of unity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace polyhe {

/// base^exp mod q for q ≥ 1.
std::uint64_t pow_mod(std::uint64_t base, std::uint64_t exp, std::uint64_t q);

/// a^−1 mod q for gcd(a, q) = 1; throws InvalidParameter otherwise.
std::uint64_t inverse_mod(std::uint64_t a, std::uint64_t q);

/// Deterministic Miller–Rabin for every 64-bit n (bases 2..37 suffice below 3.3·10^24).
bool is_prime(std::uint64_t n);

/// The distinct prime factors of n ≥ 1, ascending (trial division).
std::vector<std::uint64_t> prime_factors(std::uint64_t n);

/// n = p^r with p prime and r ≥ 1: {p, r}; {0, 0} when n is not a prime power (n < 2 included).
/// At most 63 integer roots and primality tests, whatever n's factors.
std::pair<std::uint64_t, unsigned> prime_power(std::uint64_t n);

/// Whether n is a power of two ≥ 1.
constexpr bool is_power_of_two(std::uint64_t n) {
  return n != 0 && (n & (n - 1)) == 0;
}

/// The most primes one ntt_primes call finds: 2^16, a bound on its time (about a second at 62
/// bits; a call for 2^63 primes would search for centuries) far above any modulus chain's 64.
inline constexpr std::size_t kMaxNttPrimes = std::size_t{1} << 16;

/// `count` distinct primes q ≡ 1 mod 2n of exactly `bits` bits, largest first.
/// Throws InvalidParameter when n is not a power of two, bits is outside [2, 62], bits is too
/// small to hold 2n + 1, count exceeds kMaxNttPrimes or the number of candidates (the numbers
/// ≡ 1 mod 2n of `bits` bits; checked before any search), or fewer than `count` such primes exist.
std::vector<std::uint64_t> ntt_primes(int bits, std::size_t n, std::size_t count);

/// Checks that q is a prime with q ≡ 1 mod 2n (n a power of two); throws InvalidParameter
/// naming q and the broken rule otherwise.
void check_ntt_prime(std::uint64_t q, std::size_t n);

/// The smallest primitive 2n-th root of unity mod q (ψ with ψ^n ≡ −1). Validates as
/// check_ntt_prime.
std::uint64_t minimal_primitive_root(std::uint64_t q, std::size_t n);

/// Whether psi is a primitive 2n-th root of unity mod q (n a power of two): psi^n ≡ −1.
bool is_primitive_root(std::uint64_t psi, std::uint64_t q, std::size_t n);

}  // namespace polyhe
