// Polynomial multiplication: unfused and fused ([GPU-Polymul, Alg. 8]) against schoolbook, every
// variant.
#include <gtest/gtest.h>

#include <algorithm>
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

template <class W>
void check_product(const NttPlan<W>& plan, const std::vector<W>& a, const std::vector<W>& b,
                   const std::vector<W>& expected) {
  for (NttVariant v : kAllNttVariants) {
    if (!plan.supports(v)) continue;
    std::vector<W> c(a.size());
    polymul<W>(a, b, c, plan, v);
    ASSERT_EQ(c, expected) << "polymul N=" << plan.n() << " q=" << plan.q() << " " << to_string(v);
    std::vector<W> f(a.size());
    polymul_fused<W>(a, b, f, plan, v);
    ASSERT_EQ(f, expected) << "polymul_fused N=" << plan.n() << " q=" << plan.q() << " "
                           << to_string(v);
  }
}

// Every N ≤ 2^11, two primes per word size (the word's widest and a 20-bit one).
template <class W>
void every_small_n() {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 1; log_n <= 11; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    for (int bits : {word_bits<W> - 2, 20}) {
      for (auto q64 : ntt_primes(bits, n, 2)) {
        const W q = static_cast<W>(q64);
        auto plan = NttPlan<W>::create(n, q);
        const auto a = random_poly<W>(rng, n, q);
        const auto b = random_poly<W>(rng, n, q);
        check_product(*plan, a, b, test::schoolbook_negacyclic(a, b, q));
      }
    }
  }
}

TEST(Polymul, EqualsSchoolbookEveryNUpTo2048_64) {
  every_small_n<std::uint64_t>();
}
TEST(Polymul, EqualsSchoolbookEveryNUpTo2048_32) {
  every_small_n<std::uint32_t>();
}

TEST(Polymul, MonomialsWrapWithSignChange) {
  const std::size_t n = 256;
  const std::uint64_t q = ntt_primes(60, n, 1)[0];
  auto plan = NttPlan<std::uint64_t>::create(n, q);
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{100}, n - 1}) {
    for (std::size_t j : {std::size_t{0}, std::size_t{3}, std::size_t{200}, n - 1}) {
      std::vector<std::uint64_t> a(n, 0), b(n, 0), expected(n, 0);
      a[i] = 1;
      b[j] = 1;
      // x^i · x^j = x^(i+j), or −x^(i+j−n) past the wrap (x^n = −1).
      if (i + j < n) {
        expected[i + j] = 1;
      } else {
        expected[i + j - n] = q - 1;
      }
      check_product(*plan, a, b, expected);
    }
  }
}

TEST(Polymul, ZeroAndAllMaximal) {
  for (int bits : {62, 50, 30}) {
    const std::size_t n = 512;
    const std::uint64_t q = ntt_primes(bits, n, 1)[0];
    auto plan = NttPlan<std::uint64_t>::create(n, q);
    std::vector<std::uint64_t> zero(n, 0), top(n, q - 1);
    check_product(*plan, zero, top, zero);
    check_product(*plan, top, top, test::schoolbook_negacyclic(top, top, q));
  }
}

TEST(Polymul, OutputMayAliasAnInput) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 1024;
  const std::uint64_t q = ntt_primes(55, n, 1)[0];
  auto plan = NttPlan<std::uint64_t>::create(n, q);
  const auto a = random_poly<std::uint64_t>(rng, n, q);
  const auto b = random_poly<std::uint64_t>(rng, n, q);
  const auto expected = test::schoolbook_negacyclic(a, b, q);
  auto x = a;
  polymul<std::uint64_t>(x, b, x, *plan);
  EXPECT_EQ(x, expected);
  auto y = b;
  polymul_fused<std::uint64_t>(a, y, y, *plan);
  EXPECT_EQ(y, expected);
}

TEST(Polymul, RejectsMismatchedSizes) {
  auto plan = NttPlan<std::uint64_t>::create(16, 97);
  std::vector<std::uint64_t> a(16), b(8), c(16);
  EXPECT_THROW(polymul<std::uint64_t>(a, b, c, *plan), InvalidParameter);
  EXPECT_THROW(polymul_fused<std::uint64_t>(a, b, c, *plan), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
