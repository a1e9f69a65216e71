#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/poly.hpp"
#include "ring/ring_cases.hpp"

namespace polyhe {
namespace {

using test::random_poly;
using test::to_vector;
constexpr std::size_t kLimbs = 3;

class AutomorphismTest : public ::testing::TestWithParam<std::size_t> {};

// Odd exponents to try: 1, 2N − 1 (conjugation), 5 and its powers (the Galois rotations), and a
// few random odd ones.
std::vector<std::uint64_t> exponents(test::TestRng& rng, std::size_t n) {
  const std::uint64_t two_n = 2 * n;
  std::vector<std::uint64_t> ks = {1, two_n - 1, 5 % two_n, 25 % two_n};
  for (int i = 0; i < 4; ++i) ks.push_back(rng.uniform(0, n - 1) * 2 + 1);
  return ks;
}

TEST_P(AutomorphismTest, EvaluationFormPermutationMatchesCoefficientForm) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  RnsPoly ea = a;
  ea.to_evaluation();
  for (const std::uint64_t k : exponents(rng, n)) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const RnsPoly by_coeff = a.automorphism(k);
    RnsPoly by_eval = ea.automorphism(k);
    EXPECT_EQ(by_eval.form(), PolyForm::kEvaluation);
    by_eval.to_coefficient();
    EXPECT_EQ(to_vector(by_eval.data()), to_vector(by_coeff.data()));
  }
}

TEST_P(AutomorphismTest, InverseExponentUndoesIt) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  RnsPoly ea = a;
  ea.to_evaluation();
  for (const std::uint64_t k : exponents(rng, n)) {
    SCOPED_TRACE("k = " + std::to_string(k));
    // k is odd, so a unit mod 2N; its inverse by brute force (2N is small here).
    std::uint64_t k_inv = 1;
    while ((k * k_inv) % (2 * n) != 1) k_inv += 2;
    EXPECT_EQ(to_vector(a.automorphism(k).automorphism(k_inv).data()), to_vector(a.data()));
    EXPECT_EQ(to_vector(ea.automorphism(k).automorphism(k_inv).data()), to_vector(ea.data()));
  }
}

TEST_P(AutomorphismTest, MapsXToXToTheKWithItsSign) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  RnsPoly x(ctx, kLimbs);
  for (std::size_t i = 0; i < kLimbs; ++i) x.limb(i)[1] = 1;
  for (const std::uint64_t k : exponents(rng, n)) {
    SCOPED_TRACE("k = " + std::to_string(k));
    const RnsPoly y = x.automorphism(k);
    for (std::size_t i = 0; i < kLimbs; ++i) {
      std::vector<std::uint64_t> want(n, 0);
      // x^k = x^k for k < N, and −x^(k−N) for N ≤ k < 2N.
      if (k < n) {
        want[k] = 1;
      } else {
        want[k - n] = ctx->basis().prime(i) - 1;
      }
      EXPECT_EQ(to_vector(y.limb(i)), want) << "limb " << i;
    }
  }
}

// Large enough (3·2^15 words) that the limbs are spread over the thread pool.
TEST(AutomorphismLarge, BothFormsAgreeOnThePooledPath) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = std::size_t{1} << 15;
  const auto ctx = test::make_ring(n, kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  RnsPoly ea = a;
  ea.to_evaluation();
  for (const std::uint64_t k : {std::uint64_t{5}, 2 * n - 1}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    RnsPoly by_eval = ea.automorphism(k);
    by_eval.to_coefficient();
    EXPECT_EQ(to_vector(by_eval.data()), to_vector(a.automorphism(k).data()));
  }
}

TEST_P(AutomorphismTest, AddAutomorphismEqualsAddOfTheImage) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  RnsPoly a = random_poly(rng, ctx, kLimbs);
  RnsPoly b = random_poly(rng, ctx, kLimbs);
  for (const bool evaluation : {false, true}) {
    if (evaluation) {
      a.to_evaluation();
      b.to_evaluation();
    }
    for (const std::uint64_t k : exponents(rng, n)) {
      SCOPED_TRACE("k = " + std::to_string(k) + (evaluation ? " evaluation" : " coefficient"));
      RnsPoly want = b;
      want.add(a.automorphism(k));
      RnsPoly got = b;
      got.add_automorphism(a, k);
      EXPECT_EQ(to_vector(got.data()), to_vector(want.data()));
      // Aliased: b + σ_k(b).
      RnsPoly self = b;
      self.add_automorphism(self, k);
      RnsPoly self_want = b;
      self_want.add(b.automorphism(k));
      EXPECT_EQ(to_vector(self.data()), to_vector(self_want.data()));
    }
  }
  // The table is computed once per k and shared: the same span on a second call.
  const std::uint64_t k = 2 * n - 1;
  const auto t1 = ctx->automorphism_table(k);
  const auto t2 = ctx->automorphism_table(k);
  EXPECT_EQ(t1.data(), t2.data());
  EXPECT_EQ(t1.size(), n);
}

INSTANTIATE_TEST_SUITE_P(Sizes, AutomorphismTest, ::testing::ValuesIn(test::kRingSizes));

TEST(AutomorphismErrors, RefusesEvenOrOutOfRangeK) {
  const auto ctx = test::make_ring(16, 2);
  const RnsPoly a(ctx, 2);
  for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{16},
                                std::uint64_t{33}, std::uint64_t{35}}) {
    try {
      (void)a.automorphism(k);
      ADD_FAILURE() << "k = " << k << " accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("k = " + std::to_string(k)), std::string::npos)
          << e.what();
    }
    EXPECT_THROW((void)ctx->automorphism_table(k), InvalidParameter);
    RnsPoly b(ctx, 2);
    EXPECT_THROW(b.add_automorphism(a, k), InvalidParameter);
  }
  const auto other = test::make_ring(32, 2);
  RnsPoly c(other, 2);
  EXPECT_THROW(c.add_automorphism(a, 5), MismatchedContext);
}

}  // namespace
}  // namespace polyhe
