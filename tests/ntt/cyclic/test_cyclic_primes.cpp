// Primes q ≡ 1 mod L, primitive n-th roots and generators.
#include <gtest/gtest.h>

#include <cstdint>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"

namespace polyhe {
namespace {

TEST(CyclicPrimes, PrimeFactors) {
  EXPECT_EQ(prime_factors(1), (std::vector<std::uint64_t>{}));
  EXPECT_EQ(prime_factors(21845), (std::vector<std::uint64_t>{5, 17, 257}));
  EXPECT_EQ(prime_factors(8190), (std::vector<std::uint64_t>{2, 3, 5, 7, 13}));
  EXPECT_EQ(prime_factors(65537), (std::vector<std::uint64_t>{65537}));
}

TEST(CyclicPrimes, SmallestAndLargestOfASize) {
  for (std::uint64_t L : {1ULL, 15ULL, 21845ULL, 21845ULL * 256, 65537ULL << 18}) {
    for (int bits : {40, 50, 62}) {
      for (auto choice : {PrimeChoice::smallest, PrimeChoice::largest}) {
        const std::uint64_t q = cyclic_prime(bits, L, choice);
        EXPECT_TRUE(is_prime(q)) << q;
        EXPECT_EQ((q - 1) % L, 0U) << q;
        EXPECT_EQ(bit_length(q), bits) << q;
      }
      const std::uint64_t lo = cyclic_prime(bits, L, PrimeChoice::smallest);
      const std::uint64_t hi = cyclic_prime(bits, L, PrimeChoice::largest);
      EXPECT_LE(lo, hi);
      for (std::uint64_t q = (std::uint64_t{1} << (bits - 1)) + 1; q < lo; q += 1) {
        if ((q - 1) % L == 0) {
          ASSERT_FALSE(is_prime(q)) << q;
        }
        if (q > (std::uint64_t{1} << (bits - 1)) + 4096) break;  // a window suffices
      }
    }
  }
  EXPECT_EQ(cyclic_prime(5, 8, PrimeChoice::smallest), 17U);
  EXPECT_EQ(cyclic_prime(5, 8, PrimeChoice::largest), 17U);
  EXPECT_EQ(cyclic_prime(8, 7, PrimeChoice::smallest), 197U);  // 2^7 < 7k + 1, prime
  EXPECT_THROW(cyclic_prime(63, 3), InvalidParameter);
  EXPECT_THROW(cyclic_prime(1, 3), InvalidParameter);
  EXPECT_THROW(cyclic_prime(5, 0), InvalidParameter);
  EXPECT_THROW(cyclic_prime(4, 1000), InvalidParameter);  // no 4-bit q ≡ 1 mod 1000
}

TEST(CyclicPrimes, PrimitiveRoots) {
  const std::uint64_t q = cyclic_prime(50, 21845);
  for (std::uint64_t n : {1ULL, 5ULL, 17ULL, 257ULL, 4369ULL, 21845ULL}) {
    const std::uint64_t w = primitive_nth_root(q, n);
    EXPECT_TRUE(is_primitive_nth_root(w, q, n)) << n;
    EXPECT_EQ(pow_mod(w, n, q), 1U);
  }
  EXPECT_FALSE(is_primitive_nth_root(1, q, 5));
  std::uint64_t r = 3;  // a prime with q ≢ 1 mod r
  while ((q - 1) % r == 0) r += 2;
  EXPECT_THROW(primitive_nth_root(q, r), InvalidParameter);
  EXPECT_THROW(primitive_nth_root(91, 5), InvalidParameter);  // composite
  EXPECT_EQ(multiplicative_generator(17), 3U);
  EXPECT_EQ(multiplicative_generator(257), 3U);
  EXPECT_EQ(multiplicative_generator(7), 3U);
}

}  // namespace
}  // namespace polyhe
