// CyclicNttPlan: every n ≤ 300 and every decomposition against the naive DFT, round trips,
// the planner's choices and its errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cyclic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

/// The decompositions that apply at the root of a length-n plan.
std::vector<Decomposition> applicable(std::size_t n) {
  std::vector<Decomposition> ds = {Decomposition::automatic, Decomposition::direct,
                                   Decomposition::bluestein};
  const auto factors = prime_factors(n);
  if (is_power_of_two(n)) ds.push_back(Decomposition::radix2);
  if (factors.size() > 1) ds.push_back(Decomposition::pfa);
  if (n > 1 && !is_prime(n)) ds.push_back(Decomposition::cooley_tukey);
  if (n > 2 && is_prime(n)) {
    ds.push_back(Decomposition::rader);
    ds.push_back(Decomposition::rader_padded);
  }
  return ds;
}

// Each n in [1, 300], two primes (the largest 62-bit and the smallest 40-bit prime that admit
// every decomposition), every decomposition: forward equals the naive DFT, outputs are < q,
// inverse undoes forward.
TEST(CyclicNttPlan, EveryLengthUpTo300EveryDecompositionMatchesNaiveDft) {
  POLYHE_SEEDED_RNG(rng);
  for (std::size_t n = 1; n <= 300; ++n) {
    const u64 L = test::friendly_modulus(n, 10);
    for (const u64 q :
         {cyclic_prime(62, L, PrimeChoice::largest), cyclic_prime(40, L, PrimeChoice::smallest)}) {
      const Modulus<u64> mod(q);
      const u64 omega = primitive_nth_root(q, n);
      const auto x = test::random_vector(rng, n, q);
      const auto expected = test::naive_dft(x, omega, mod);
      for (Decomposition d : applicable(n)) {
        SCOPED_TRACE(::testing::Message() << "n = " << n << ", q = " << q << ", " << to_string(d));
        const auto plan = CyclicNttPlan::create(n, q, d);
        ASSERT_EQ(plan->omega(), omega);
        ASSERT_EQ(plan->n(), n);
        ASSERT_EQ(plan->q(), q);
        if (d != Decomposition::automatic) {
          ASSERT_EQ(plan->kind(), d) << plan->decomposition();
        }
        auto y = x;
        plan->forward(y);
        ASSERT_EQ(y, expected) << plan->decomposition();
        plan->inverse(y);
        ASSERT_EQ(y, x) << plan->decomposition();
      }
    }
  }
}

// Known-answer vectors: 0, 1 (δ at 0 → all ones), and q − 1 everywhere (→ −n at 0, 0 elsewhere).
TEST(CyclicNttPlan, KnownAnswers) {
  for (std::size_t n : {15U, 17U, 21U, 127U, 255U}) {
    const u64 q = cyclic_prime(62, test::friendly_modulus(n, 10));
    const auto plan = CyclicNttPlan::create(n, q);
    std::vector<u64> a(n, 0);
    plan->forward(a);
    EXPECT_EQ(a, std::vector<u64>(n, 0));
    a[0] = 1;
    plan->forward(a);
    EXPECT_EQ(a, std::vector<u64>(n, 1));
    std::vector<u64> b(n, q - 1);
    plan->forward(b);
    std::vector<u64> expected(n, 0);
    expected[0] = q - n;
    EXPECT_EQ(b, expected) << plan->decomposition();
  }
}

TEST(CyclicNttPlan, CallerChosenRoot) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 105;
  const u64 q = cyclic_prime(60, test::friendly_modulus(n, 10));
  const u64 omega = pow_mod(primitive_nth_root(q, n), 11, q);  // 11 is coprime to 105
  const Modulus<u64> mod(q);
  const auto x = test::random_vector(rng, n, q);
  for (Decomposition d : applicable(n)) {
    const auto plan = CyclicNttPlan::create(n, q, omega, d);
    EXPECT_EQ(plan->omega(), omega);
    auto y = x;
    plan->forward(y);
    EXPECT_EQ(y, test::naive_dft(x, omega, mod)) << plan->decomposition();
  }
  EXPECT_THROW(CyclicNttPlan::create(n, q, pow_mod(omega, 5, q), Decomposition::automatic),
               InvalidParameter);  // order 21, not 105
}

TEST(CyclicNttPlan, PlannerChoices) {
  const u64 q = cyclic_prime(62, test::friendly_modulus(21845, 15));
  EXPECT_EQ(CyclicNttPlan::create(21845, q)->decomposition(),
            "pfa(direct(5), pfa(rader(17 -> radix2(16)), rader(257 -> radix2(256))))");
  EXPECT_EQ(CyclicNttPlan::create(4369, q)->decomposition(),
            "pfa(rader(17 -> radix2(16)), rader(257 -> radix2(256)))");
  EXPECT_EQ(CyclicNttPlan::create(4369, q, Decomposition::bluestein)->decomposition(),
            "bluestein(4369 -> radix2(16384))");
  EXPECT_EQ(CyclicNttPlan::create(257, q, Decomposition::rader_padded)->decomposition(),
            "rader_padded(257 -> radix2(512))");
  const u64 q2 = cyclic_prime(62, test::friendly_modulus(1 << 10, 10) * 3 * 3 * 5 * 7);
  EXPECT_EQ(CyclicNttPlan::create(315, q2)->decomposition(),
            "pfa(cooley_tukey(direct(3), direct(3)), pfa(direct(5), rader(7 -> pfa(radix2(2), "
            "direct(3)))))");
  EXPECT_EQ(CyclicNttPlan::create(1024, q2)->decomposition(), "radix2(1024)");
}

// When q lacks the root of Rader's convolution the planner falls back: to the padded
// convolution, to Bluestein, to the direct DFT for primes ≤ 64, and errors beyond.
TEST(CyclicNttPlan, PlannerFallsBackWhenRootsAreMissing) {
  // q ≡ 1 mod 7, q ≢ 1 mod 3 and q ≡ 3 mod 4: no 6th, no 4th root.
  u64 q = 0;
  for (u64 k = 2;; k += 4) {
    if (k % 3 != 0 && is_prime(7 * k + 1)) {
      q = 7 * k + 1;
      if ((q - 1) % 3 != 0) break;
    }
  }
  EXPECT_EQ(CyclicNttPlan::create(7, q)->decomposition(), "direct(7)");
  EXPECT_THROW(CyclicNttPlan::create(7, q, Decomposition::rader), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(7, q, Decomposition::bluestein), InvalidParameter);

  // 257 with the 256th root but not the 512th: plain Rader.
  u64 q257 = 0;
  for (u64 k = 1;; k += 2) {  // q − 1 = 257·256·k, k odd
    if (is_prime(257 * 256 * k + 1)) {
      q257 = 257 * 256 * k + 1;
      break;
    }
  }
  EXPECT_THROW(CyclicNttPlan::create(257, q257, Decomposition::rader_padded), InvalidParameter);
  EXPECT_EQ(CyclicNttPlan::create(257, q257)->decomposition(), "rader(257 -> radix2(256))");
  // q ≡ 1 mod 67 with 4 ∤ q − 1 and 3 ∤ q − 1: no convolution has a root, 67 > 64.
  u64 q67 = 0;
  for (u64 k = 2;; k += 4) {
    if (k % 3 != 0 && is_prime(67 * k + 1)) {
      q67 = 67 * k + 1;
      break;
    }
  }
  try {
    CyclicNttPlan::create(67, q67);
    FAIL() << "expected InvalidParameter";
  } catch (const InvalidParameter& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("67"), std::string::npos) << what;
    EXPECT_NE(what.find("bluestein"), std::string::npos) << what;
  }
}

TEST(CyclicNttPlan, RejectsBadParameters) {
  const u64 q = cyclic_prime(40, 21845ULL * 256);
  EXPECT_THROW(CyclicNttPlan::create(0, q), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(7, 7 * 4 + 1 + 2), InvalidParameter);  // 31 ≢ 1 mod 7
  EXPECT_THROW(CyclicNttPlan::create(5, 91), InvalidParameter);             // composite
  EXPECT_THROW(CyclicNttPlan::create(2, 9223372036854775783ULL), InvalidParameter);  // 63 bits
  EXPECT_THROW(CyclicNttPlan::create(CyclicNttPlan::kMaxN * 2, q), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(85, q, Decomposition::radix2), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(17, q, Decomposition::pfa), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(17, q, Decomposition::cooley_tukey), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(85, q, Decomposition::rader), InvalidParameter);
  EXPECT_THROW(CyclicNttPlan::create(5, q, 1, Decomposition::automatic), InvalidParameter);
  try {
    CyclicNttPlan::create(7, 29 + 2);
    FAIL() << "expected InvalidParameter";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("31"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("7"), std::string::npos) << e.what();
  }
  const auto plan = CyclicNttPlan::create(85, q);
  std::vector<u64> wrong(84);
  EXPECT_THROW(plan->forward(wrong), InvalidParameter);
  EXPECT_THROW(plan->inverse(wrong), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
