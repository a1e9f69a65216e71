#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/poly.hpp"
#include "reference/negacyclic.hpp"
#include "ring/ring_cases.hpp"

namespace polyhe {
namespace {

using test::random_poly;
using test::to_vector;
constexpr std::size_t kLimbs = 3;

class RnsPolyTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RnsPolyTest, LayoutIsLimbMajorAndAligned) {
  const auto ctx = test::make_ring(GetParam(), kLimbs);
  RnsPoly p(ctx, kLimbs);
  EXPECT_EQ(p.data().size(), kLimbs * GetParam());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.data().data()) % 64, 0U);
  for (std::size_t i = 0; i < kLimbs; ++i) {
    EXPECT_EQ(p.limb(i).data(), p.data().data() + i * GetParam());
  }
}

TEST_P(RnsPolyTest, RoundTripThroughEvaluationForm) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(GetParam(), kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  RnsPoly b = a;
  b.to_evaluation();
  EXPECT_EQ(b.form(), PolyForm::kEvaluation);
  b.to_coefficient();
  EXPECT_EQ(b.form(), PolyForm::kCoefficient);
  EXPECT_EQ(to_vector(b.data()), to_vector(a.data()));
}

TEST_P(RnsPolyTest, MultiplyIsTheNegacyclicProduct) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(GetParam(), kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  const RnsPoly b = random_poly(rng, ctx, kLimbs);
  const RnsPoly c0 = random_poly(rng, ctx, kLimbs);
  RnsPoly ea = a, eb = b, prod = a, acc = c0;
  ea.to_evaluation();
  eb.to_evaluation();
  prod.to_evaluation();
  acc.to_evaluation();
  prod.multiply(eb);
  acc.multiply_accumulate(ea, eb);
  prod.to_coefficient();
  acc.to_coefficient();
  for (std::size_t i = 0; i < kLimbs; ++i) {
    const std::uint64_t q = ctx->basis().prime(i);
    const auto want = test::schoolbook_negacyclic(to_vector(a.limb(i)), to_vector(b.limb(i)), q);
    EXPECT_EQ(to_vector(prod.limb(i)), want) << "limb " << i;
    std::vector<std::uint64_t> want_acc(want.size());
    for (std::size_t j = 0; j < want.size(); ++j) want_acc[j] = (want[j] + c0.limb(i)[j]) % q;
    EXPECT_EQ(to_vector(acc.limb(i)), want_acc) << "limb " << i;
  }
}

TEST_P(RnsPolyTest, AddSubNegateScalarMatchTheScalarReference) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  const RnsPoly a = random_poly(rng, ctx, kLimbs);
  const RnsPoly b = random_poly(rng, ctx, kLimbs);
  const std::uint64_t s = rng.bits();
  std::vector<std::uint64_t> residues(kLimbs);
  for (std::size_t i = 0; i < kLimbs; ++i) residues[i] = rng.uniform(0, ctx->basis().prime(i) - 1);
  for (const PolyForm form : {PolyForm::kCoefficient, PolyForm::kEvaluation}) {
    RnsPoly x = a, y = b;
    if (form == PolyForm::kEvaluation) {
      x.to_evaluation();
      y.to_evaluation();
    }
    RnsPoly sum = x, diff = x, neg = x, sc = x, sr = x;
    sum.add(y);
    diff.sub(y);
    neg.negate();
    sc.multiply_scalar(s);
    sr.multiply_scalar(residues);
    for (std::size_t i = 0; i < kLimbs; ++i) {
      const std::uint64_t q = ctx->basis().prime(i);
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t u = x.limb(i)[j], v = y.limb(i)[j];
        ASSERT_EQ(sum.limb(i)[j], (u + v) % q);
        ASSERT_EQ(diff.limb(i)[j], (u + q - v) % q);
        ASSERT_EQ(neg.limb(i)[j], (q - u) % q);
        ASSERT_EQ(sc.limb(i)[j], static_cast<std::uint64_t>(static_cast<u128>(u) * (s % q) % q));
        ASSERT_EQ(sr.limb(i)[j],
                  static_cast<std::uint64_t>(static_cast<u128>(u) * residues[i] % q));
      }
    }
  }
}

TEST_P(RnsPolyTest, DropLastLimbKeepsTheLowerLimbs) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(GetParam(), kLimbs);
  RnsPoly a = random_poly(rng, ctx, kLimbs);
  const auto before = to_vector(a.data());
  a.drop_last_limb();
  EXPECT_EQ(a.limbs(), kLimbs - 1);
  EXPECT_EQ(a.level(), kLimbs - 2);
  ASSERT_EQ(a.data().size(), (kLimbs - 1) * GetParam());
  EXPECT_EQ(to_vector(a.data()),
            std::vector<std::uint64_t>(before.begin(), before.begin() + a.data().size()));
  // The dropped poly still round-trips at its level.
  RnsPoly b = a;
  b.to_evaluation();
  b.to_coefficient();
  EXPECT_EQ(to_vector(b.data()), to_vector(a.data()));
  a.drop_last_limb();
  EXPECT_THROW(a.drop_last_limb(), InvalidParameter);
}

TEST_P(RnsPolyTest, WipeLeavesTheZeroPolynomialOfTheSameShapeInPlace) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const auto ctx = test::make_ring(n, kLimbs);
  RnsPoly a = random_poly(rng, ctx, kLimbs);
  a.to_evaluation();
  const std::uint64_t* words = a.data().data();
  a.wipe();
  EXPECT_EQ(a.data().data(), words);  // the same block: zeroed, not replaced
  EXPECT_EQ(a.limbs(), kLimbs);
  EXPECT_EQ(a.form(), PolyForm::kEvaluation);
  EXPECT_EQ(to_vector(a.data()), std::vector<std::uint64_t>(kLimbs * n, 0));
  // With a limb dropped (its words stay in the block, and the wipe covers the whole block).
  RnsPoly b = random_poly(rng, ctx, kLimbs);
  b.drop_last_limb();
  b.wipe();
  EXPECT_EQ(b.limbs(), kLimbs - 1);
  EXPECT_EQ(to_vector(b.data()), std::vector<std::uint64_t>((kLimbs - 1) * n, 0));
  // A moved-from polynomial has nothing to wipe.
  RnsPoly c = std::move(b);
  b.wipe();  // NOLINT(bugprone-use-after-move): wiping a moved-from polynomial is allowed
  EXPECT_EQ(c.limbs(), kLimbs - 1);
}

INSTANTIATE_TEST_SUITE_P(Sizes, RnsPolyTest, ::testing::ValuesIn(test::kRingSizes));

template <class E, class F>
void expect_throw_with(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RnsPolyErrors, EveryMisuseIsRefusedWithItsReason) {
  const auto ctx = test::make_ring(16, 3);
  const auto other = test::make_ring(32, 2);
  RnsPoly a(ctx, 3), b(ctx, 3), low(ctx, 2), foreign(other, 2);
  RnsPoly ea(ctx, 3, PolyForm::kEvaluation), eb(ctx, 3, PolyForm::kEvaluation);

  expect_throw_with<MismatchedContext>([&] { a.add(foreign); },
                                       "N = 16 with 3 limbs vs N = 32 with 2 limbs");
  expect_throw_with<MismatchedContext>([&] { a.sub(low); }, "limb counts differ (3 vs 2)");
  expect_throw_with<InvalidParameter>([&] { a.add(ea); },
                                      "forms differ (coefficient vs evaluation)");
  expect_throw_with<InvalidParameter>([&] { a.multiply(b); }, "convert with to_evaluation()");
  expect_throw_with<InvalidParameter>([&] { a.multiply_accumulate(b, b); }, "evaluation form");
  expect_throw_with<MismatchedContext>([&] { ea.multiply_accumulate(eb, low); }, "3 vs 2");
  expect_throw_with<InvalidParameter>([&] { ea.to_evaluation(); }, "already in evaluation");
  expect_throw_with<InvalidParameter>([&] { a.to_coefficient(); }, "already in coefficient");
  expect_throw_with<InvalidParameter>(
      [&] {
        a.multiply_scalar(std::vector<std::uint64_t>{1, 2});
      },
      "2 residues given for 3");
  const std::uint64_t q1 = ctx->basis().prime(1);
  expect_throw_with<InvalidParameter>(
      [&] {
        a.multiply_scalar(std::vector<std::uint64_t>{1, q1, 2});
      },
      "is not below q_1");
  expect_throw_with<InvalidParameter>([&] { (void)a.limb(3); }, "limb 3 out of range");
  expect_throw_with<InvalidParameter>([&] { RnsPoly(ctx, 4); }, "4 limbs requested");
  expect_throw_with<InvalidParameter>([&] { RnsPoly(ctx, 0); }, "0 limbs requested");
}

}  // namespace
}  // namespace polyhe
