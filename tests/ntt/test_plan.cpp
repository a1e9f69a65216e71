// NttPlan: construction errors, transforms against the naive DFT, round trips, every variant.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "polyhe/polyhe.hpp"
#include "reference/negacyclic.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::TestRng;

template <class W>
std::vector<W> random_poly(TestRng& rng, std::size_t n, W q) {
  std::vector<W> a(n);
  for (auto& x : a) x = static_cast<W>(rng.uniform(0, q - 1));
  return a;
}

// Several primes per (word, size): at the top of the word's range, below it, in the middle and
// small (20 bits), each the largest of its size that is 1 mod 2N.
template <class W>
std::vector<W> primes_for(std::size_t n) {
  std::vector<W> qs;
  const int max_bits = word_bits<W> - 2;
  for (int bits : {max_bits, max_bits - 1, (max_bits * 2) / 3, 20}) {
    if (bit_length(std::uint64_t{2} * n + 1) > bits) continue;
    const W q = static_cast<W>(ntt_primes(bits, n, 1)[0]);
    if (std::find(qs.begin(), qs.end(), q) == qs.end()) qs.push_back(q);
  }
  return qs;
}

TEST(NttPlan, RejectsBadParameters) {
  EXPECT_THROW(NttPlan<std::uint64_t>::create(12, 97), InvalidParameter);  // N not 2^k
  EXPECT_THROW(NttPlan<std::uint64_t>::create(1, 97), InvalidParameter);   // N < 2
  EXPECT_THROW(NttPlan<std::uint64_t>::create(std::size_t{1} << 18, 786433), InvalidParameter);
  EXPECT_THROW(NttPlan<std::uint64_t>::create(32, 91), InvalidParameter);  // composite
  EXPECT_THROW(NttPlan<std::uint64_t>::create(32, 97), InvalidParameter);  // 97 ≢ 1 mod 64
  EXPECT_THROW(NttPlan<std::uint32_t>::create(16, 2147483713U),
               InvalidParameter);                    // 31 bits on u32
  const std::uint64_t q63 = 9223372036854775783ULL;  // 63-bit prime: too wide for 64-bit words
  EXPECT_THROW(NttPlan<std::uint64_t>::create(16, q63), InvalidParameter);
  EXPECT_THROW(NttPlan<std::uint64_t>::create(16, 97, 5),
               InvalidParameter);  // 5 is not a 32nd root
  try {
    NttPlan<std::uint64_t>::create(32, 97);
    FAIL() << "expected InvalidParameter";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("97"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
  }
  auto plan = NttPlan<std::uint64_t>::create(16, 97);
  std::vector<std::uint64_t> wrong(8);
  EXPECT_THROW(plan->forward(wrong), InvalidParameter);
  EXPECT_THROW(plan->inverse(wrong), InvalidParameter);
}

TEST(NttPlan, BarrettDqRefusesWidePrimes) {
  const auto q = ntt_primes(62, 1024, 1)[0];
  auto plan = NttPlan<std::uint64_t>::create(1024, q);
  EXPECT_FALSE(plan->supports(NttVariant::barrett_dq));
  std::vector<std::uint64_t> a(1024, 1);
  EXPECT_THROW(plan->forward(a, NttVariant::barrett_dq), InvalidParameter);
  const auto q60 = ntt_primes(60, 1024, 1)[0];
  EXPECT_TRUE(NttPlan<std::uint64_t>::create(1024, q60)->supports(NttVariant::barrett_dq));
}

TEST(NttPlan, KnownAnswerN4) {
  // q = 17, N = 4: ψ = 2 has order 8 (2^4 = 16 = −1), the smallest such root.
  auto plan = NttPlan<std::uint64_t>::create(4, 17);
  EXPECT_EQ(plan->psi(), 2U);
  std::vector<std::uint64_t> a = {1, 2, 3, 4};
  // â[i] = a(ψ^(2br(i)+1)): br = 0,2,1,3 → x = 2, 2^5 = 15, 2^3 = 8, 2^7 = 9.
  const std::vector<std::uint64_t> expected =
      test::naive_negacyclic_dft_bitrev<std::uint64_t>(a, 17, 2);
  EXPECT_EQ(expected[0], (1 + 2 * 2 + 3 * 4 + 4 * 8) % 17);
  for (NttVariant v : kAllNttVariants) {
    auto b = a;
    plan->forward(b, v);
    EXPECT_EQ(b, expected) << to_string(v);
    plan->inverse(b, v);
    EXPECT_EQ(b, a) << to_string(v);
  }
}

template <class W>
void check_against_naive_dft(int max_log_n) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 1; log_n <= max_log_n; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    for (W q : primes_for<W>(n)) {
      auto plan = NttPlan<W>::create(n, q);
      const auto a = random_poly<W>(rng, n, q);
      const auto expected = test::naive_negacyclic_dft_bitrev<W>(a, q, plan->psi());
      for (NttVariant v : kAllNttVariants) {
        if (!plan->supports(v)) continue;
        auto b = a;
        plan->forward(b, v);
        ASSERT_EQ(b, expected) << "N=" << n << " q=" << q << " variant=" << to_string(v);
        plan->inverse(b, v);
        ASSERT_EQ(b, a) << "N=" << n << " q=" << q << " variant=" << to_string(v);
      }
    }
  }
}

TEST(NttPlan, ForwardEqualsNaiveDft64) {
  check_against_naive_dft<std::uint64_t>(9);
}
TEST(NttPlan, ForwardEqualsNaiveDft32) {
  check_against_naive_dft<std::uint32_t>(9);
}

template <class W>
void check_round_trips() {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 1; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    for (W q : primes_for<W>(n)) {
      auto plan = NttPlan<W>::create(n, q);
      const auto a = random_poly<W>(rng, n, q);
      std::vector<W> reference_fwd;
      for (NttVariant v : kAllNttVariants) {
        if (!plan->supports(v)) continue;
        auto b = a;
        plan->forward(b, v);
        for (W x : b) ASSERT_LT(x, q);
        if (v == NttVariant::reference) {
          reference_fwd = b;
        } else {
          ASSERT_EQ(b, reference_fwd) << "N=" << n << " q=" << q << " " << to_string(v);
        }
        plan->inverse(b, v);
        ASSERT_EQ(b, a) << "N=" << n << " q=" << q << " variant=" << to_string(v);
      }
    }
  }
}

TEST(NttPlan, RoundTripAndVariantsAgree64) {
  check_round_trips<std::uint64_t>();
}
TEST(NttPlan, RoundTripAndVariantsAgree32) {
  check_round_trips<std::uint32_t>();
}

TEST(NttPlan, EdgeInputs) {
  for (std::uint64_t q : {ntt_primes(62, 1024, 1)[0], ntt_primes(50, 1024, 1)[0]}) {
    auto plan = NttPlan<std::uint64_t>::create(1024, q);
    for (NttVariant v : kAllNttVariants) {
      if (!plan->supports(v)) continue;
      std::vector<std::uint64_t> zero(1024, 0), top(1024, q - 1), one(1024, 0);
      one[0] = 1;
      auto z = zero;
      plan->forward(z, v);
      EXPECT_EQ(z, zero) << to_string(v);
      auto o = one;  // the constant 1 evaluates to 1 everywhere
      plan->forward(o, v);
      EXPECT_EQ(o, std::vector<std::uint64_t>(1024, 1)) << to_string(v);
      auto t = top;
      plan->forward(t, v);
      for (auto x : t) EXPECT_LT(x, q);
      plan->inverse(t, v);
      EXPECT_EQ(t, top) << to_string(v);
    }
  }
}

}  // namespace
}  // namespace polyhe
