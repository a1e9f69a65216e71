// Primes and roots of unity for cyclic transforms of any length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "polyhe/arith/primes.hpp"  // prime_factors

namespace polyhe {

enum class PrimeChoice { smallest, largest };

/// The smallest or largest prime q ≡ 1 mod L of exactly `bits` bits. Throws InvalidParameter
/// when bits is outside [2, 62], L is 0, or no such prime exists.
std::uint64_t cyclic_prime(int bits, std::uint64_t L, PrimeChoice choice = PrimeChoice::largest);

/// Whether w is a primitive n-th root of unity mod the prime q: w^n ≡ 1 and w^(n/p) ≢ 1 for
/// every prime p | n.
bool is_primitive_nth_root(std::uint64_t w, std::uint64_t q, std::uint64_t n);

/// g^((q−1)/n) for the smallest g ≥ 2 that makes it a primitive n-th root of unity mod the prime
/// q. Throws InvalidParameter unless q is a prime with q ≡ 1 mod n.
std::uint64_t primitive_nth_root(std::uint64_t q, std::uint64_t n);

/// A generator of the multiplicative group mod the prime p (the smallest).
std::uint64_t multiplicative_generator(std::uint64_t p);

}  // namespace polyhe
