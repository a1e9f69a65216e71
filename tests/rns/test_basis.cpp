// RnsBasis validation, CRT constants and the big-integer round trips, against GMP.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rns/basis.hpp"
#include "polyhe/rns/bigint.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

template <class F>
void expect_invalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no InvalidParameter; expected one naming " << needle;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RnsBasis, RejectsBadPrimesNamingThem) {
  const std::uint64_t p = 1152921504606846883ULL;  // 2^60 − 93, prime
  const std::uint64_t q = 1073741789ULL;           // 2^30 − 35, prime
  ASSERT_TRUE(is_prime(p) && is_prime(q));
  expect_invalid([] { RnsBasis(std::vector<std::uint64_t>{}); }, "empty");
  expect_invalid([&] { RnsBasis(std::vector<std::uint64_t>{p, q, p}); }, std::to_string(p));
  expect_invalid([&] { RnsBasis(std::vector<std::uint64_t>{q, q * 3}); }, std::to_string(q * 3));
  const std::uint64_t wide = 9223372036854775783ULL;  // 2^63 − 25, prime but 63 bits
  expect_invalid([&] { RnsBasis(std::vector<std::uint64_t>{wide}); }, std::to_string(wide));
  expect_invalid([&] { RnsBasis(std::vector<std::uint64_t>{q, 1}); }, "q = 1 ");
}

// The size is checked before the primes are tested or the CRT constants built (issue 19).
TEST(RnsBasis, SizeIsBounded) {
  const std::vector<std::uint64_t> primes = ntt_primes(40, 2, RnsBasis::kMaxPrimes + 1);
  const std::span<const std::uint64_t> all(primes);
  EXPECT_EQ(RnsBasis(all.first(RnsBasis::kMaxPrimes)).size(), RnsBasis::kMaxPrimes);
  expect_invalid([&] { RnsBasis{all}; }, "257 primes exceed the limit of 256");
  expect_invalid([] { RnsBasis(std::vector<std::uint64_t>(100000, 3)); }, "100000 primes");
  const RnsBasis a(all.first(200));
  const RnsBasis b(all.subspan(200));
  expect_invalid([&] { (void)RnsBasis::concat(a, b); }, "257 primes");
}

TEST(RnsBasis, CrtConstantsMatchGmp) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis b(test::random_primes(rng, 7, 30, 62));
  mpz_class big_q = 1;
  for (std::size_t i = 0; i < b.size(); ++i) big_q *= static_cast<unsigned long>(b.prime(i));
  EXPECT_EQ(big_product(b), big_q);
  EXPECT_EQ(b.product_bits(), static_cast<int>(mpz_sizeinbase(big_q.get_mpz_t(), 2)));
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::uint64_t qi = b.prime(i);
    EXPECT_EQ(big_q_hat(b, i), big_q / static_cast<unsigned long>(qi));
    const mpz_class prod = big_q_hat(b, i) * static_cast<unsigned long>(b.q_hat_inverse(i).w);
    EXPECT_EQ(mpz_fdiv_ui(prod.get_mpz_t(), qi), 1U) << "limb " << i;
    EXPECT_EQ(b.q_hat_inverse(i).w_shoup, make_shoup(b.q_hat_inverse(i).w, qi).w_shoup);
    EXPECT_EQ(b.q_hat_inverses()[i], b.q_hat_inverse(i).w);
    const std::uint64_t m = 1000003;
    EXPECT_EQ(b.q_hat_mod(i, m), mpz_fdiv_ui(big_q_hat(b, i).get_mpz_t(), m));
  }
}

TEST(RnsBasis, SubBasesShareThePrimesAndHaveTheirOwnCrt) {
  POLYHE_SEEDED_RNG(rng);
  const auto primes = test::random_primes(rng, 6, 40, 60);
  const RnsBasis b(primes);
  const RnsBasis level = b.prefix(3);
  const RnsBasis digit = b.range(2, 3);
  EXPECT_EQ(level, RnsBasis(std::vector<std::uint64_t>(primes.begin(), primes.begin() + 3)));
  EXPECT_EQ(digit, RnsBasis(std::vector<std::uint64_t>(primes.begin() + 2, primes.begin() + 5)));
  EXPECT_EQ(&level.modulus(0), &b.modulus(0));  // one shared table
  EXPECT_EQ(&digit.modulus(0), &b.modulus(2));
  const RnsBasis direct(std::vector<std::uint64_t>(primes.begin() + 2, primes.begin() + 5));
  EXPECT_EQ(big_product(digit), big_product(direct));
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(digit.q_hat_inverse(i).w, direct.q_hat_inverse(i).w);
  EXPECT_EQ(RnsBasis::concat(level, b.range(3, 3)), b);
  expect_invalid([&] { (void)RnsBasis::concat(level, digit); }, std::to_string(primes[2]));
  expect_invalid([&] { (void)b.range(4, 3); }, "[4, 7)");
  expect_invalid([&] { (void)b.prefix(0); }, "[0, 0)");
  EXPECT_EQ(b.find(primes[4]), 4U);
  EXPECT_EQ(b.find(3), b.size());
}

// to_bigint ∘ from_bigint is the identity on [0, Q) (and centring on any integer), at 1..30 limbs
// of 30..62-bit primes.
TEST(RnsBigint, RoundTripsAtEveryLimbCount) {
  POLYHE_SEEDED_RNG(rng);
  test::BigRng gmp(rng);
  for (std::size_t limbs = 1; limbs <= 30; ++limbs) {
    const RnsBasis b(test::random_primes(rng, limbs, 30, 62));
    const auto values = test::random_values(gmp, big_product(b), 16);
    const auto x = test::to_limbs(values, b);
    for (std::size_t i = 0; i < x.size(); ++i) ASSERT_LT(x[i], b.prime(i / values.size()));
    EXPECT_EQ(to_bigint(x, b), values) << limbs << " limbs";
    EXPECT_EQ(to_bigint(x, b, 7), values[7]);
    const auto centred = to_bigint_centred(x, b);
    for (std::size_t c = 0; c < values.size(); ++c) {
      EXPECT_EQ(centred[c], centre(values[c], big_product(b)));
      EXPECT_TRUE(2 * centred[c] <= big_product(b) && 2 * centred[c] > -big_product(b));
    }
    // Negative and oversized inputs reduce mod Q.
    const std::vector<mpz_class> odd = {-1, -big_product(b) / 2, big_product(b) * 5 + 3};
    EXPECT_EQ(to_bigint_centred(test::to_limbs(odd, b), b),
              (std::vector<mpz_class>{-1, centre(-big_product(b) / 2, big_product(b)), 3}));
  }
}

TEST(RnsBigint, RejectsBadSizes) {
  const RnsBasis b(std::vector<std::uint64_t>{1073741789ULL, 1152921504606846883ULL});
  std::vector<std::uint64_t> x(5);
  expect_invalid([&] { (void)to_bigint(x, b); }, "5 words");
  x.resize(4);
  expect_invalid([&] { (void)to_bigint(x, b, 2); }, "index 2");
  std::vector<mpz_class> v(3);
  expect_invalid([&] { from_bigint(v, b, x); }, "4 output words");
}

}  // namespace
}  // namespace polyhe
