// Primality, NTT-friendly primes, primitive roots, modular inverse and power, against trial
// division, brute force and known values.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

bool is_prime_by_trial_division(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::uint64_t mul_mod_ref(std::uint64_t a, std::uint64_t b, std::uint64_t q) {
  return static_cast<std::uint64_t>(u128{a} * b % q);
}

/// Runs `f`, expecting InvalidParameter whose message contains every string in `names`.
template <class F>
void expect_invalid_naming(const std::vector<std::string>& names, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected InvalidParameter";
  } catch (const InvalidParameter& e) {
    for (const auto& name : names) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

TEST(IsPrime, MatchesTrialDivisionBelow100000) {
  for (std::uint64_t n = 0; n < 100'000; ++n) {
    ASSERT_EQ(is_prime(n), is_prime_by_trial_division(n)) << "n = " << n;
  }
}

TEST(IsPrime, KnownValues) {
  // Carmichael numbers (Fermat liars for every coprime base).
  for (std::uint64_t n : {561ULL, 1105ULL, 1729ULL, 41041ULL, 825265ULL, 3215031751ULL}) {
    EXPECT_FALSE(is_prime(n)) << n;
  }
  // Strong pseudoprimes: 2047 to base 2; 3215031751 to bases 2, 3, 5, 7; 3825123056546413051 to
  // every prime base up to 23.
  for (std::uint64_t n : {2047ULL, 1373653ULL, 25326001ULL, 3215031751ULL, 2152302898747ULL,
                          3474749660383ULL, 341550071728321ULL, 3825123056546413051ULL}) {
    EXPECT_FALSE(is_prime(n)) << n;
  }
  const std::uint64_t m31 = (1ULL << 31) - 1;
  EXPECT_TRUE(is_prime(m31));
  EXPECT_FALSE(is_prime(m31 * m31));
  EXPECT_TRUE(is_prime((1ULL << 61) - 1));
  EXPECT_FALSE(is_prime((1ULL << 59) - 1));        // 179951 · 3203431780337
  EXPECT_TRUE(is_prime(18446744073709551557ULL));  // the largest prime below 2^64
  EXPECT_FALSE(is_prime(18446744073709551615ULL));
  EXPECT_FALSE(is_prime(18446744073709551559ULL));
  EXPECT_TRUE(is_prime(994705409));       // the GPU paper's 30-bit prime
  EXPECT_TRUE(is_prime(4294967291ULL));   // the largest prime below 2^32
  EXPECT_FALSE(is_prime(4294967297ULL));  // F5 = 641 · 6700417
  EXPECT_FALSE(is_prime(0));
  EXPECT_FALSE(is_prime(1));
}

TEST(IsPrime, ProductsOfTwoPrimesAreComposite) {
  POLYHE_SEEDED_RNG(rng);
  auto random_prime = [&](std::uint64_t lo, std::uint64_t hi) {
    for (;;) {
      const std::uint64_t p = rng.uniform(lo, hi) | 1;
      if (is_prime_by_trial_division(p)) return p;
    }
  };
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t p = random_prime(1ULL << 20, (1ULL << 32) - 1);
    const std::uint64_t r = random_prime(1ULL << 20, (1ULL << 31) - 1);
    ASSERT_TRUE(is_prime(p)) << p;
    ASSERT_FALSE(is_prime(p * r)) << p << " * " << r;
  }
}

struct NttPrimesCase {
  int bits;
  std::size_t n;
  std::size_t count;
};

class NttPrimesTest : public ::testing::TestWithParam<NttPrimesCase> {};

// ntt_primes: the `count` largest primes ≡ 1 mod 2N of exactly `bits` bits, descending, none
// skipped (every candidate between two of them, and above the first, is composite).
TEST_P(NttPrimesTest, LargestPrimesInOrder) {
  const auto [bits, n, count] = GetParam();
  const std::vector<std::uint64_t> primes = ntt_primes(bits, n, count);
  ASSERT_EQ(primes.size(), count);
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  std::uint64_t above = 1ULL << bits;  // exclusive upper end
  for (std::uint64_t q : primes) {
    EXPECT_EQ(bit_length(q), bits) << q;
    EXPECT_EQ(q % two_n, 1U) << q;
    EXPECT_TRUE(is_prime(q)) << q;
    EXPECT_LT(q, above) << "not strictly descending";
    for (std::uint64_t c = q + two_n; c < above; c += two_n) {
      EXPECT_FALSE(is_prime(c)) << c << " was skipped";
    }
    above = q;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, NttPrimesTest,
                         ::testing::Values(NttPrimesCase{20, 1 << 10, 10},
                                           NttPrimesCase{30, 1 << 16, 20},
                                           NttPrimesCase{62, 1 << 16, 10},
                                           NttPrimesCase{60, 1 << 17, 10},
                                           NttPrimesCase{12, 1 << 4, 5}, NttPrimesCase{5, 2, 2}));

// Against trial division below 2^16, then the extremes: the largest powers of 2 and 3 in 64 bits,
// the square of the largest prime below 2^32, and products of two primes (not powers).
TEST(PrimePower, MatchesTrialDivisionAndExtremes) {
  for (std::uint64_t n = 0; n < (1U << 16); ++n) {
    std::pair<std::uint64_t, unsigned> want{0, 0};
    if (n >= 2) {
      std::uint64_t p = 2;
      while (n % p != 0) ++p;
      std::uint64_t rest = n;
      unsigned r = 0;
      for (; rest % p == 0; rest /= p) ++r;
      if (rest == 1) want = {p, r};
    }
    ASSERT_EQ(prime_power(n), want) << n;
  }
  EXPECT_EQ(prime_power(std::uint64_t{1} << 63), (std::pair<std::uint64_t, unsigned>{2, 63}));
  EXPECT_EQ(prime_power(12157665459056928801ULL), (std::pair<std::uint64_t, unsigned>{3, 40}));
  EXPECT_EQ(prime_power(4294967291ULL * 4294967291ULL),
            (std::pair<std::uint64_t, unsigned>{4294967291ULL, 2}));
  EXPECT_EQ(prime_power(18446744073709551557ULL),  // the largest 64-bit prime
            (std::pair<std::uint64_t, unsigned>{18446744073709551557ULL, 1}));
  EXPECT_EQ(prime_power(4294967291ULL * 4294967279ULL), (std::pair<std::uint64_t, unsigned>{0, 0}));
  EXPECT_EQ(prime_power(65537ULL * 65539), (std::pair<std::uint64_t, unsigned>{0, 0}));
  EXPECT_EQ(prime_power(~std::uint64_t{0}), (std::pair<std::uint64_t, unsigned>{0, 0}));
}

TEST(NttPrimes, SmallCasesByBruteForce) {
  // Every prime ≡ 1 mod 2N of exactly `bits` bits, listed by trial division.
  for (int bits = 3; bits <= 16; ++bits) {
    for (std::size_t n = 2; 2 * n + 1 < (1ULL << bits); n *= 2) {
      std::vector<std::uint64_t> all;
      for (std::uint64_t q = (1ULL << bits) - 1; q >= (1ULL << (bits - 1)); --q) {
        if (q % (2 * n) == 1 && is_prime_by_trial_division(q)) all.push_back(q);
      }
      SCOPED_TRACE("bits = " + std::to_string(bits) + ", N = " + std::to_string(n));
      if (!all.empty()) {
        EXPECT_EQ(ntt_primes(bits, n, all.size()), all);
      }
      EXPECT_THROW(ntt_primes(bits, n, all.size() + 1), InvalidParameter);
    }
  }
}

TEST(NttPrimes, Errors) {
  expect_invalid_naming({"12"}, [] { ntt_primes(30, 12, 1); });  // N not a power of two
  // Counts no search could meet, refused before searching (2^63 used to search for centuries).
  expect_invalid_naming({"9223372036854775808", "65536"},
                        [] { ntt_primes(62, 2, std::size_t{1} << 63); });
  expect_invalid_naming({"65537"}, [] { ntt_primes(62, 2, kMaxNttPrimes + 1); });
  // 20 bits, 2N = 2^11: 2^19 / 2^11 = 256 candidates.
  expect_invalid_naming({"257", "256 candidates"}, [] { ntt_primes(20, 1024, 257); });
  expect_invalid_naming({"0"}, [] { ntt_primes(30, 0, 1); });
  expect_invalid_naming({"1"}, [] { ntt_primes(30, 1, 1); });  // N < 2
  expect_invalid_naming({"1"}, [] { ntt_primes(1, 16, 1); });
  expect_invalid_naming({"63"}, [] { ntt_primes(63, 16, 1); });
  // 2N + 1 = 2049 needs 12 bits.
  expect_invalid_naming({"10", "2048"}, [] { ntt_primes(10, 1 << 10, 1); });
  // 2^19/2^11 = 256 candidates of 20 bits are 1 mod 2^11: far fewer than 1000 primes.
  expect_invalid_naming({"1000", "20", "2048"}, [] { ntt_primes(20, 1 << 10, 1000); });
}

TEST(CheckNttPrime, Errors) {
  EXPECT_NO_THROW(check_ntt_prime(97, 16));                        // 97 = 3·32 + 1
  EXPECT_NO_THROW(check_ntt_prime(994705409, 1 << 16));            // 7589·2^17 + 1
  expect_invalid_naming({"91"}, [] { check_ntt_prime(91, 16); });  // 7 · 13, 91 ≡ 27 mod 32
  expect_invalid_naming({"4294967297"}, [] { check_ntt_prime(4294967297ULL, 16); });  // F5
  expect_invalid_naming({"97", "64"}, [] { check_ntt_prime(97, 32); });  // 97 ≡ 33 mod 64
  expect_invalid_naming({"994705409"}, [] { check_ntt_prime(994705409, 1 << 17); });
  expect_invalid_naming({"24"}, [] { check_ntt_prime(97, 24); });
}

TEST(MinimalPrimitiveRoot, KnownAnswers) {
  // ψ^4 ≡ −1 mod 17: the primitive 8th roots are 2, 8, 9, 15.
  EXPECT_EQ(minimal_primitive_root(17, 4), 2U);
  EXPECT_EQ(minimal_primitive_root(97, 16), 19U);
  expect_invalid_naming({"91"}, [] { minimal_primitive_root(91, 2); });
}

// For every small NTT prime q and N: ψ^N ≡ −1, and ψ is the least x with x^N ≡ −1, found by
// brute force over all of Z_q.
TEST(MinimalPrimitiveRoot, SmallPrimesByBruteForce) {
  int checked = 0;
  for (std::size_t n = 2; n <= 256; n *= 2) {
    for (std::uint64_t q = 2 * n + 1; q < 20'000; q += 2 * n) {
      if (!is_prime(q)) continue;
      std::uint64_t least = 0;
      for (std::uint64_t x = 2; x < q && least == 0; ++x) {
        if (pow_mod(x, n, q) == q - 1) least = x;
      }
      const std::uint64_t psi = minimal_primitive_root(q, n);
      ASSERT_EQ(psi, least) << "q = " << q << ", N = " << n;
      ASSERT_TRUE(is_primitive_root(psi, q, n));
      ASSERT_FALSE(is_primitive_root(mul_mod_ref(psi, psi, q), q, n));  // ψ² has order N
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(MinimalPrimitiveRoot, LargePrimes) {
  for (int bits : {30, 50, 62}) {
    const std::size_t n = 1 << 12;
    const std::uint64_t q = ntt_primes(bits, n, 1)[0];
    const std::uint64_t psi = minimal_primitive_root(q, n);
    EXPECT_EQ(pow_mod(psi, n, q), q - 1) << q;
    EXPECT_EQ(pow_mod(psi, 2 * n, q), 1U) << q;
    // Minimal among the odd powers ψ^j, j < 2N (the primitive 2N-th roots).
    const std::uint64_t psi2 = mul_mod_ref(psi, psi, q);
    std::uint64_t power = psi;
    for (std::size_t j = 1; j < n; ++j) {
      power = mul_mod_ref(power, psi2, q);
      ASSERT_GT(power, psi) << "psi^" << 2 * j + 1 << " is smaller";
    }
  }
}

TEST(InverseMod, RandomAndErrors) {
  POLYHE_SEEDED_RNG(rng);
  for (std::uint64_t q : {2ULL, 3ULL, 97ULL, 994705409ULL, (1ULL << 61) - 1,
                          18446744073709551557ULL, 18446744073709551615ULL}) {
    for (int i = 0; i < 1000; ++i) {
      const std::uint64_t a = rng.uniform(1, q - 1);
      if (std::gcd(a, q) != 1) continue;
      const std::uint64_t inv = inverse_mod(a, q);
      ASSERT_LT(inv, q);
      ASSERT_EQ(mul_mod_ref(a, inv, q), 1U) << "a = " << a << ", q = " << q;
    }
  }
  EXPECT_EQ(inverse_mod(3, 7), 5U);
  EXPECT_EQ(inverse_mod(10, 7), 5U);  // a is reduced mod q first
  expect_invalid_naming({"6", "9"}, [] { inverse_mod(6, 9); });
  expect_invalid_naming({"0", "97"}, [] { inverse_mod(0, 97); });
  expect_invalid_naming({"194", "97"}, [] { inverse_mod(194, 97); });
}

TEST(PowMod, AgainstRepeatedMultiplication) {
  POLYHE_SEEDED_RNG(rng);
  for (std::uint64_t q : {1ULL, 2ULL, 97ULL, 994705409ULL, (1ULL << 62) + 1, ~0ULL}) {
    for (int i = 0; i < 50; ++i) {
      const std::uint64_t base = rng.bits();
      const std::uint64_t exp = rng.uniform(0, 300);
      std::uint64_t want = 1 % q;
      for (std::uint64_t e = 0; e < exp; ++e) want = mul_mod_ref(want, base % q, q);
      ASSERT_EQ(pow_mod(base, exp, q), want) << base << "^" << exp << " mod " << q;
    }
  }
  // Fermat: a^(q−1) ≡ 1 for prime q; 2^64 mod (2^64 − 59) = 59.
  const std::uint64_t p = 18446744073709551557ULL;
  EXPECT_EQ(pow_mod(123456789, p - 1, p), 1U);
  EXPECT_EQ(mul_mod_ref(pow_mod(2, 63, p), 2, p), 59U);
  EXPECT_EQ(pow_mod(0, 0, 97), 1U);
  EXPECT_EQ(pow_mod(5, 0, 1), 0U);
}

}  // namespace
}  // namespace polyhe
