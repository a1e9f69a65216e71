// Modular addition, subtraction, negation ([GPU-Polymul, Alg. 1]), the constant-time lazy forms
// ([FPGA-FV, Alg. 2/3]) and halving, against unsigned __int128 arithmetic on both word sizes:
// every bit length of q, and exhaustively for q < 2^8.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "arith/arith_cases.hpp"
#include "polyhe/arith/add.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::TestRng;

/// x mod q for a signed x, as the reference for differences.
template <Word W>
W mod_q(__int128 x, W q) {
  const __int128 r = x % static_cast<__int128>(q);
  return static_cast<W>(r < 0 ? r + q : r);
}

/// add_mod, sub_mod, neg_mod on a, b < q: exactly (a ± b) mod q and (−a) mod q.
template <Word W>
::testing::AssertionResult check_add_sub_neg(W a, W b, W q) {
  const W sum = add_mod(a, b, q), diff = sub_mod(a, b, q), neg = neg_mod(a, q);
  const W want_sum = mod_q<W>(__int128{a} + b, q);
  const W want_diff = mod_q<W>(__int128{a} - b, q);
  const W want_neg = mod_q<W>(-__int128{a}, q);
  if (sum == want_sum && diff == want_diff && neg == want_neg) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "a = " << a << ", b = " << b << ", q = " << q << ": add = " << sum << " (want "
         << want_sum << "), sub = " << diff << " (want " << want_diff << "), neg = " << neg
         << " (want " << want_neg << ")";
}

/// add_lazy_ct, sub_lazy_ct on a, b < 2^K (K = len(q)): output < 2^K and congruent.
template <Word W>
::testing::AssertionResult check_lazy(W a, W b, W q) {
  const W bound = W{1} << bit_length(q);  // 2^K, K ≤ β−2
  const W sum = add_lazy_ct(a, b, q), diff = sub_lazy_ct(a, b, q);
  if (sum < bound && diff < bound && sum % q == mod_q<W>(__int128{a} + b, q) &&
      diff % q == mod_q<W>(__int128{a} - b, q)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "a = " << a << ", b = " << b << ", q = " << q << ", 2^K = " << bound
         << ": add_lazy = " << sum << ", sub_lazy = " << diff;
}

/// halve_mod(x) for odd q, x < 2q: 2·out ≡ x, out < q when x < q and out < 2q otherwise.
template <Word W>
::testing::AssertionResult check_halve(W x, W q) {
  const W half = halve_mod(x, q);
  const Wide<W> range = x < q ? Wide<W>{q} : 2 * Wide<W>{q};
  if (half < range && (2 * Wide<W>{half}) % q == x % q) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "x = " << x << ", q = " << q << ": halve = " << half;
}

template <class W>
class AddTest : public ::testing::Test {};
using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(AddTest, Words);

// [GPU-Polymul, Alg. 1] and its kin at every length 2..β−1 (it requires len(q) ≤ β−1).
TYPED_TEST(AddTest, AddSubNegEveryBitLength) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W) { return true; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      for (W a : {W{0}, W{1}, static_cast<W>(q - 1)}) {
        for (W b : {W{0}, W{1}, static_cast<W>(q - 1)}) ASSERT_TRUE(check_add_sub_neg(a, b, q));
      }
      for (int i = 0; i < per_q; ++i) {
        const W a = test::uniform_word_below(rng, q);
        const W b = test::uniform_word_below(rng, q);
        ASSERT_TRUE(check_add_sub_neg(a, b, q));
      }
    }
  }
}

// [FPGA-FV, Alg. 2/3] at every length 2..β−2, inputs anywhere in [0, 2^K).
TYPED_TEST(AddTest, LazyEveryBitLength) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= word_bits<W> - 2; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W) { return true; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    const W top = (W{1} << m) - 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      for (W a : {W{0}, W{1}, static_cast<W>(q - 1), q, top}) {
        for (W b : {W{0}, W{1}, static_cast<W>(q - 1), q, top}) ASSERT_TRUE(check_lazy(a, b, q));
      }
      for (int i = 0; i < per_q; ++i) {
        const W a = test::uniform_word_below<W>(rng, top + 1);
        const W b = test::uniform_word_below<W>(rng, top + 1);
        ASSERT_TRUE(check_lazy(a, b, q));
      }
    }
  }
}

// Halving for odd q at every length 2..β−1, x in [0, 2q).
TYPED_TEST(AddTest, HalveEveryBitLength) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, [](W q) { return q % 2 == 1; });
    const int per_q = test::kSamplesPerLength / static_cast<int>(qs.size()) + 1;
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      for (W x : {W{0}, W{1}, static_cast<W>(q - 2), static_cast<W>(q - 1), q,
                  static_cast<W>(q + 1), static_cast<W>(2 * q - 1)}) {
        ASSERT_TRUE(check_halve(x, q));
      }
      for (int i = 0; i < per_q; ++i) {
        ASSERT_TRUE(check_halve(test::uniform_word_below<W>(rng, i % 2 ? q : 2 * q), q));
      }
    }
  }
}

// Every q < 2^8: every pair a, b < q; for the lazy forms every pair below 2^K; halving on every
// x < 2q for odd q.
TYPED_TEST(AddTest, ExhaustiveSmallModuli) {
  using W = TypeParam;
  for (W q = 2; q < (W{1} << test::kExhaustiveBits); ++q) {
    SCOPED_TRACE("q = " + std::to_string(q));
    for (W a = 0; a < q; ++a) {
      for (W b = 0; b < q; ++b) ASSERT_TRUE(check_add_sub_neg(a, b, q));
    }
    const W two_k = W{1} << bit_length(q);
    for (W a = 0; a < two_k; ++a) {
      for (W b = 0; b < two_k; ++b) ASSERT_TRUE(check_lazy(a, b, q));
    }
    if (q % 2 == 1) {
      for (W x = 0; x < 2 * q; ++x) ASSERT_TRUE(check_halve(x, q));
    }
  }
}

// Known answers from the range analysis of [FPGA-FV, Alg. 2/3] (K-bit inputs and the smallest
// K-bit q = 2^(K−1) + 1): T1 − 2q = 2^K − 4 for a = b = 2^K − 1, and 0 − (2^K − 1) + 2q = 3.
TYPED_TEST(AddTest, LazyKnownAnswers) {
  using W = TypeParam;
  constexpr int K = word_bits<W> - 2;
  const W q = (W{1} << (K - 1)) + 1;
  const W top = (W{1} << K) - 1;
  EXPECT_EQ(add_lazy_ct(top, top, q), static_cast<W>((W{1} << K) - 4));
  EXPECT_EQ(sub_lazy_ct(W{0}, top, q), W{3});
  EXPECT_EQ(add_lazy_ct(W{0}, static_cast<W>(q - 1), q), static_cast<W>(q - 1));
  EXPECT_EQ(sub_lazy_ct(q, q, q), W{0});
}

}  // namespace
}  // namespace polyhe
