// Cyclotomic polynomials and CyclotomicRing: known Φ_m, Φ_m | x^m − 1, multiplication against
// schoolbook-then-divide-by-Φ_m, the slots, and the errors.
#include "polyhe/ntt/cyclic/cyclotomic.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "cyclic_reference.hpp"
#include "cyclotomic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;
using Ints = std::vector<std::int64_t>;

std::size_t euler_phi(std::size_t m) {
  std::size_t count = 0;
  for (std::size_t k = 1; k <= m; ++k) count += std::gcd(k, m) == 1 ? 1 : 0;
  return count;
}

TEST(CyclotomicPolynomial, KnownSmallCases) {
  EXPECT_EQ(cyclotomic_polynomial(1), (Ints{-1, 1}));
  EXPECT_EQ(cyclotomic_polynomial(2), (Ints{1, 1}));
  EXPECT_EQ(cyclotomic_polynomial(8), (Ints{1, 0, 0, 0, 1}));
  EXPECT_EQ(cyclotomic_polynomial(9), (Ints{1, 0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(cyclotomic_polynomial(12), (Ints{1, 0, -1, 0, 1}));
  // x^8 − x^7 + x^5 − x^4 + x^3 − x + 1
  EXPECT_EQ(cyclotomic_polynomial(15), (Ints{1, -1, 0, 1, -1, 1, 0, -1, 1}));
  // x^12 − x^11 + x^9 − x^8 + x^6 − x^4 + x^3 − x + 1
  EXPECT_EQ(cyclotomic_polynomial(21), (Ints{1, -1, 0, 1, -1, 0, 1, 0, -1, 1, 0, -1, 1}));
  // Φ_105, the first with a coefficient outside {−1, 0, 1}: −2 at x^7 and x^41.
  const auto phi105 = cyclotomic_polynomial(105);
  ASSERT_EQ(phi105.size(), 49U);
  EXPECT_EQ(phi105[7], -2);
  EXPECT_EQ(phi105[41], -2);
  for (std::size_t i = 0; i < phi105.size(); ++i) {
    if (i != 7 && i != 41) {
      EXPECT_LE(std::abs(phi105[i]), 1) << "x^" << i;
    }
  }
}

// Every m ≤ 600: monic of degree φ(m), palindromic for m ≥ 2, and x^m − 1 ≡ 0 mod Φ_m.
TEST(CyclotomicPolynomial, DegreeIsEulerPhiAndDividesXmMinusOne) {
  for (std::size_t m = 1; m <= 600; ++m) {
    SCOPED_TRACE(::testing::Message() << "m = " << m);
    const auto phi = cyclotomic_polynomial(m);
    const std::size_t d = phi.size() - 1;
    ASSERT_EQ(d, euler_phi(m));
    ASSERT_EQ(phi[d], 1);
    if (m >= 2) {
      for (std::size_t i = 0; i <= d; ++i) ASSERT_EQ(phi[i], phi[d - i]);
    }
    Ints r(m + 1, 0);  // x^m − 1, divided by the monic Φ_m
    r[0] = -1;
    r[m] = 1;
    for (std::size_t k = m; k >= d && k <= m; --k) {
      const std::int64_t t = r[k];
      for (std::size_t i = 0; i <= d; ++i) r[k - d + i] -= t * phi[i];
      if (k == d) break;
    }
    for (std::size_t i = 0; i < d; ++i) ASSERT_EQ(r[i], 0) << "remainder at x^" << i;
  }
}

TEST(CyclotomicPolynomial, LargeIndicesAndErrors) {
  EXPECT_EQ(cyclotomic_polynomial(21845).size(), 16385U);
  EXPECT_EQ(cyclotomic_polynomial(4369).size(), 4097U);
  EXPECT_EQ(cyclotomic_polynomial(std::uint64_t{1} << 17).size(), (std::size_t{1} << 16) + 1);
  EXPECT_THROW((void)cyclotomic_polynomial(0), InvalidParameter);
  EXPECT_THROW((void)cyclotomic_polynomial(kMaxCyclotomicIndex + 1), InvalidParameter);
}

struct RingCase {
  std::size_t m;
  int bits;
  PrimeChoice choice;
};

class CyclotomicRingTest : public ::testing::TestWithParam<RingCase> {
 protected:
  static u64 prime_for(const RingCase& c) {
    return cyclic_prime(c.bits, test::friendly_modulus(c.m, 10), c.choice);
  }
};

// multiply equals the schoolbook product divided by Φ_m, on random inputs and on 0, 1, q − 1
// everywhere; c may alias a or b.
TEST_P(CyclotomicRingTest, MultiplyMatchesSchoolbookThenDivisionByPhi) {
  POLYHE_SEEDED_RNG(rng);
  const RingCase& p = GetParam();
  const u64 q = prime_for(p);
  SCOPED_TRACE(::testing::Message() << "m = " << p.m << ", q = " << q);
  const auto ring = CyclotomicRing::create(p.m, q);
  const std::size_t d = ring->degree();
  ASSERT_EQ(d, euler_phi(p.m));
  ASSERT_EQ(ring->m(), p.m);
  ASSERT_EQ(ring->q(), q);
  ASSERT_EQ(ring->phi().size(), d + 1);
  EXPECT_EQ(ring->phi()[d], 1U);
  const Modulus<u64> mod(q);

  std::vector<std::vector<u64>> inputs = {std::vector<u64>(d, 0), std::vector<u64>(d, 1),
                                          std::vector<u64>(d, q - 1)};
  for (int i = 0; i < 3; ++i) inputs.push_back(test::random_vector(rng, d, q));
  for (const auto& a : inputs) {
    for (const auto& b : inputs) {
      const auto expected = test::reference_multiply(a, b, p.m, mod);
      std::vector<u64> c(d);
      ring->multiply(a, b, c);
      ASSERT_EQ(c, expected);
    }
  }
  auto a = inputs[4];
  const auto& b = inputs[5];
  const auto expected = test::reference_multiply(a, b, p.m, mod);
  ring->multiply(a, b, a);
  EXPECT_EQ(a, expected);
}

// to_slots gives a(ω^k) at the primitive exponents, from_slots inverts it, and the product of
// elements is the pointwise product of slots.
TEST_P(CyclotomicRingTest, SlotsAreEvaluationsAtPrimitiveRoots) {
  POLYHE_SEEDED_RNG(rng);
  const RingCase& p = GetParam();
  const u64 q = prime_for(p);
  SCOPED_TRACE(::testing::Message() << "m = " << p.m << ", q = " << q);
  const auto ring = CyclotomicRing::create(p.m, q);
  const Modulus<u64> mod(q);
  const std::size_t d = ring->degree();
  ASSERT_TRUE(is_primitive_nth_root(ring->omega(), q, p.m));
  ASSERT_EQ(ring->slot_exponents().size(), d);

  const auto a = test::random_vector(rng, d, q);
  const auto b = test::random_vector(rng, d, q);
  const auto sa = ring->to_slots(a);
  ASSERT_EQ(sa.size(), d);
  for (std::size_t s = 0; s < d; ++s) {
    const std::size_t k = ring->slot_exponents()[s];
    ASSERT_EQ(std::gcd(k, p.m), 1U);
    if (s > 0) {
      ASSERT_GT(k, ring->slot_exponents()[s - 1]);
    }
    ASSERT_EQ(sa[s], test::naive_dft_at(a, ring->omega(), k, mod)) << "slot " << s;
  }
  EXPECT_EQ(ring->from_slots(sa), a);

  const auto sb = ring->to_slots(b);
  std::vector<u64> c(d);
  ring->multiply(a, b, c);
  const auto sc = ring->to_slots(c);
  for (std::size_t s = 0; s < d; ++s) ASSERT_EQ(sc[s], mod.mul(sa[s], sb[s])) << "slot " << s;

  const auto v = test::random_vector(rng, d, q);
  EXPECT_EQ(ring->to_slots(ring->from_slots(v)), v);
}

std::string case_name(const ::testing::TestParamInfo<RingCase>& param) {
  return "m" + std::to_string(param.param.m) + "_q" + std::to_string(param.param.bits) +
         (param.param.choice == PrimeChoice::largest ? "_largest" : "_smallest");
}

INSTANTIATE_TEST_SUITE_P(
    OddAndPowerOfTwo, CyclotomicRingTest,
    ::testing::Values(
        RingCase{15, 62, PrimeChoice::largest}, RingCase{15, 40, PrimeChoice::smallest},
        RingCase{21, 62, PrimeChoice::largest}, RingCase{21, 40, PrimeChoice::smallest},
        RingCase{127, 62, PrimeChoice::largest}, RingCase{127, 40, PrimeChoice::smallest},
        RingCase{255, 62, PrimeChoice::largest}, RingCase{255, 40, PrimeChoice::smallest},
        RingCase{105, 50, PrimeChoice::largest}, RingCase{8, 62, PrimeChoice::largest},
        RingCase{8, 30, PrimeChoice::smallest}, RingCase{1024, 62, PrimeChoice::largest},
        RingCase{1024, 40, PrimeChoice::smallest}),
    case_name);

TEST(CyclotomicRing, RejectsBadParameters) {
  const u64 q15 = cyclic_prime(50, test::friendly_modulus(15, 10));
  EXPECT_NO_THROW((void)CyclotomicRing::create(15, q15));
  for (const std::size_t m : {0U, 1U, 2U, 6U, 12U, 30U, 96U}) {
    EXPECT_THROW((void)CyclotomicRing::create(m, q15), InvalidParameter) << "m = " << m;
  }
  EXPECT_THROW((void)CyclotomicRing::create(CyclicNttPlan::kMaxN + 1, q15), InvalidParameter);
  EXPECT_THROW((void)CyclotomicRing::create(CyclotomicRing::kMaxPowerOfTwoM * 2, q15),
               InvalidParameter);
  // q not 1 mod m, q not prime, q too wide.
  EXPECT_THROW((void)CyclotomicRing::create(15, 97), InvalidParameter);        // 96 mod 15 = 6
  EXPECT_THROW((void)CyclotomicRing::create(15, q15 + 15), InvalidParameter);  // even
  EXPECT_THROW((void)CyclotomicRing::create(15, (u64{1} << 63) + 31), InvalidParameter);
  EXPECT_THROW((void)CyclotomicRing::create(1024, 7681), InvalidParameter);  // 1 mod 512 only
  EXPECT_NO_THROW((void)CyclotomicRing::create(16, 7681));
}

TEST(CyclotomicRing, RejectsSizeMismatches) {
  for (const std::size_t m : {15U, 16U}) {
    const auto ring = CyclotomicRing::create(m, cyclic_prime(50, test::friendly_modulus(m, 10)));
    const std::size_t d = ring->degree();
    std::vector<u64> good(d, 1), short_v(d - 1, 1), long_v(d + 1, 1);
    EXPECT_THROW(ring->multiply(short_v, good, good), InvalidParameter);
    EXPECT_THROW(ring->multiply(good, long_v, good), InvalidParameter);
    EXPECT_THROW(ring->multiply(good, good, long_v), InvalidParameter);
    EXPECT_THROW((void)ring->to_slots(short_v), InvalidParameter);
    EXPECT_THROW((void)ring->from_slots(long_v), InvalidParameter);
  }
}

}  // namespace
}  // namespace polyhe
