// Sampled N up to 2^14 against schoolbook (O(N²) each): the `slow` label.
#include <gtest/gtest.h>

#include <vector>

#include "polyhe/polyhe.hpp"
#include "reference/negacyclic.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

template <class W>
void sampled_large_n() {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 12; log_n <= 14; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    const W q = static_cast<W>(ntt_primes(word_bits<W> - 2, n, 1)[0]);
    auto plan = NttPlan<W>::create(n, q);
    std::vector<W> a(n), b(n);
    for (auto& x : a) x = static_cast<W>(rng.uniform(0, q - 1));
    for (auto& x : b) x = static_cast<W>(rng.uniform(0, q - 1));
    const auto expected = test::schoolbook_negacyclic(a, b, q);
    for (NttVariant v : kAllNttVariants) {
      if (!plan->supports(v)) continue;
      std::vector<W> c(n), f(n);
      polymul<W>(a, b, c, *plan, v);
      ASSERT_EQ(c, expected) << "N=" << n << " " << to_string(v);
      polymul_fused<W>(a, b, f, *plan, v);
      ASSERT_EQ(f, expected) << "fused N=" << n << " " << to_string(v);
    }
  }
}

TEST(PolymulSlow, SampledLargeN64) {
  sampled_large_n<std::uint64_t>();
}
TEST(PolymulSlow, SampledLargeN32) {
  sampled_large_n<std::uint32_t>();
}

}  // namespace
}  // namespace polyhe
