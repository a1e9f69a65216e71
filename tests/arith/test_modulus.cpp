// Modulus: what it refuses and why, Modulus::mul, and Shoup multiplication by a precomputed
// operand, against unsigned __int128 arithmetic on both word sizes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "arith/arith_cases.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::TestRng;

template <class W>
class ModulusTest : public ::testing::Test {};
using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(ModulusTest, Words);

/// Runs `f`, expecting InvalidParameter whose message contains the decimal `q`.
template <class F>
void expect_invalid_naming(std::uint64_t q, F&& f) {
  try {
    f();
    ADD_FAILURE() << "expected InvalidParameter naming q = " << q;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(q)), std::string::npos) << e.what();
  }
}

TYPED_TEST(ModulusTest, RejectsOutOfRangeModuli) {
  using W = TypeParam;
  constexpr int beta = word_bits<W>;
  const W too_wide = W{1} << (beta - 1);
  for (W q : {W{0}, W{1}, too_wide, static_cast<W>(too_wide + 1), static_cast<W>(~W{0})}) {
    expect_invalid_naming(q, [q] { (void)Modulus<W>(q); });
  }
  // The widest accepted modulus: len(q) = β−1.
  const Modulus<W> widest(static_cast<W>(too_wide - 1));
  EXPECT_EQ(widest.bits(), beta - 1);
  EXPECT_EQ(Modulus<W>(2).bits(), 2);
}

TYPED_TEST(ModulusTest, RefusesAlgorithmsOutsideTheirRange) {
  using W = TypeParam;
  constexpr int beta = word_bits<W>;
  // DQ on a (β−3)-bit q: 29 bits on 32-bit words, 61 bits on 64-bit words.
  const W dq_too_wide = (W{1} << (beta - 3)) - 1;
  // Classical and [GPU-Polymul, Alg. 4] on a (β−1)-bit q.
  const W barrett_too_wide = (W{1} << (beta - 1)) - 1;
  // An even q for both Montgomery forms.
  const W even = (W{1} << (beta - 2)) + 2;
  const struct {
    W q;
    Reduction r;
  } refusals[] = {{dq_too_wide, Reduction::barrett_dq},
                  {barrett_too_wide, Reduction::barrett_classical},
                  {barrett_too_wide, Reduction::barrett_alg4},
                  {barrett_too_wide, Reduction::barrett_dq},
                  {even, Reduction::montgomery},
                  {even, Reduction::montgomery_ntt},
                  {W{2}, Reduction::montgomery}};
  for (const auto& [q, r] : refusals) {
    SCOPED_TRACE(std::string(to_string(r)) + ", q = " + std::to_string(q));
    const Modulus<W> mod(q);
    EXPECT_FALSE(mod.supports(r));
    const auto why = mod.unsupported_reason(r);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find(std::to_string(q)), std::string::npos) << *why;
  }
  expect_invalid_naming(dq_too_wide, [&] { (void)Modulus<W>(dq_too_wide).barrett_dq(); });
  expect_invalid_naming(barrett_too_wide,
                        [&] { (void)Modulus<W>(barrett_too_wide).barrett_classical(); });
  expect_invalid_naming(barrett_too_wide,
                        [&] { (void)Modulus<W>(barrett_too_wide).barrett_alg4(); });
  expect_invalid_naming(even, [&] { (void)Modulus<W>(even).montgomery(); });
  expect_invalid_naming(even, [&] { (void)Modulus<W>(even).montgomery_ntt(); });

  // Shoup serves every Modulus, but only operands w < q.
  const Modulus<W> mod(barrett_too_wide);
  EXPECT_TRUE(mod.supports(Reduction::shoup));
  EXPECT_FALSE(mod.unsupported_reason(Reduction::shoup).has_value());
  for (W w : {mod.value(), static_cast<W>(mod.value() + 1), static_cast<W>(~W{0})}) {
    expect_invalid_naming(mod.value(), [&] { (void)mod.shoup(w); });
  }
  EXPECT_NO_THROW((void)mod.shoup(mod.value() - 1));

  // A modulus every algorithm serves reports no reason for any.
  const Modulus<W> all(97);
  for (Reduction r : kAllReductions) {
    EXPECT_TRUE(all.supports(r)) << to_string(r);
    EXPECT_FALSE(all.unsupported_reason(r).has_value()) << to_string(r);
  }
}

// Modulus::mul at every bit length 2..β−1 (it switches from [GPU-Polymul, Alg. 4] to % above β−2
// bits).
TYPED_TEST(ModulusTest, MulEveryBitLength) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W) { return true; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      const Modulus<W> mod(q);
      ASSERT_EQ(mod.bits(), m);
      ASSERT_EQ(mod.value(), q);
      for (int i = 0; i < per_q; ++i) {
        const W a = i == 0 ? q - 1 : test::uniform_word_below(rng, q);
        const W b = i == 0 ? q - 1 : test::uniform_word_below(rng, q);
        const W want = static_cast<W>(mul_wide(a, b) % q);
        ASSERT_EQ(mod.mul(a, b), want) << "a = " << a << ", b = " << b;
      }
    }
  }
}

/// mul_shoup_lazy(a, w) in [0, 2q) and ≡ a·w, mul_shoup(a, w) = a·w mod q.
template <Word W>
::testing::AssertionResult check_shoup(W a, ShoupOperand<W> w, W q) {
  const W lazy = mul_shoup_lazy(a, w, q);
  const W full = mul_shoup(a, w, q);
  const W want = static_cast<W>(mul_wide(a, w.w) % q);
  if (lazy < 2 * static_cast<Wide<W>>(q) && lazy % q == want && full == want) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "a = " << a << ", w = " << w.w << ", q = " << q << ": lazy = " << lazy
         << ", full = " << full << ", a*w mod q = " << want;
}

// Shoup at every bit length 2..β−1: w' = ⌊w·2^β/q⌋, random and edge w < q, and a anywhere in
// [0, 2^β) (half the samples) or in [0, q).
TYPED_TEST(ModulusTest, ShoupEveryBitLength) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  constexpr int kPerOperand = 16;
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W) { return true; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      const Modulus<W> mod(q);
      ShoupOperand<W> w{};
      for (int i = 0; i < per_q; ++i) {
        if (i % kPerOperand == 0) {
          const int j = i / kPerOperand;
          const W v = j == 0 ? 0 : j == 1 ? 1 : j == 2 ? q - 1 : test::uniform_word_below(rng, q);
          w = mod.shoup(v);
          const W w_shoup = static_cast<W>((static_cast<Wide<W>>(v) << word_bits<W>) / q);
          ASSERT_EQ(w.w, v);
          ASSERT_EQ(w.w_shoup, w_shoup);
          for (W a : {W{0}, W{1}, static_cast<W>(q - 1), static_cast<W>(~W{0})}) {
            ASSERT_TRUE(check_shoup(a, w, q));
          }
        }
        const W a = i % 2 == 0 ? static_cast<W>(rng.bits()) : test::uniform_word_below(rng, q);
        ASSERT_TRUE(check_shoup(a, w, q));
      }
    }
  }
}

// ShoupQuotient (the companions of an NTT plan's tables without a division each) against the
// division, at every bit length 2..β−1 (β − 1: its division fallback), w random and at the edges.
TYPED_TEST(ModulusTest, ShoupQuotientIsTheDivision) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W) { return true; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      const ShoupQuotient<W> quotient(q);
      for (int i = 0; i < per_q; ++i) {
        const W w = i == 0 ? 0 : i == 1 ? 1 : i == 2 ? q - 1 : test::uniform_word_below(rng, q);
        const W want = static_cast<W>((static_cast<Wide<W>>(w) << word_bits<W>) / q);
        ASSERT_EQ(quotient(w), want) << "w = " << w;
        ASSERT_EQ(quotient.operand(w).w_shoup, want);
      }
    }
  }
  for (W q = 2; q < (W{1} << test::kExhaustiveBits); ++q) {
    const ShoupQuotient<W> quotient(q);
    for (W w = 0; w < q; ++w) {
      ASSERT_EQ(quotient(w), static_cast<W>((static_cast<Wide<W>>(w) << word_bits<W>) / q));
    }
  }
}

TYPED_TEST(ModulusTest, ExhaustiveSmallShoup) {
  using W = TypeParam;
  for (W q = 2; q < (W{1} << test::kExhaustiveBits); ++q) {
    const Modulus<W> mod(q);
    for (W v = 0; v < q; ++v) {
      const ShoupOperand<W> w = mod.shoup(v);
      for (W a = 0; a < 2 * q; ++a) ASSERT_TRUE(check_shoup(a, w, q));
    }
  }
}

TEST(Reduction, Names) {
  for (Reduction r : kAllReductions) EXPECT_NE(to_string(r), "unknown");
  EXPECT_EQ(to_string(Reduction::barrett_alg4), "barrett-alg4");
}

}  // namespace
}  // namespace polyhe
