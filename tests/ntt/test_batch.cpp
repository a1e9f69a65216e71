// Batched forms: many primes and many polynomials in one call, single- and multi-threaded (on the
// default thread pool).
#include <gtest/gtest.h>

#include <vector>

#include "polyhe/core/thread_pool.hpp"
#include "polyhe/polyhe.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

TEST(Batch, ManyPrimesEqualsPerLimbCalls) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 2048;
  const auto qs = ntt_primes(50, n, 5);
  std::vector<std::shared_ptr<const NttPlan<std::uint64_t>>> owned;
  std::vector<const NttPlan<std::uint64_t>*> plans;
  for (auto q : qs) {
    owned.push_back(NttPlan<std::uint64_t>::create(n, q));
    plans.push_back(owned.back().get());
  }
  // A second polynomial under the first prime: batches mix primes and polynomials freely.
  plans.push_back(owned[0].get());
  const std::size_t limbs = plans.size();
  std::vector<std::uint64_t> a(limbs * n), b(limbs * n);
  for (std::size_t i = 0; i < limbs; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      a[i * n + j] = rng.uniform(0, plans[i]->q() - 1);
      b[i * n + j] = rng.uniform(0, plans[i]->q() - 1);
    }
  }
  // 0: the default pool's size; 1: inline; more threads than the pool has: capped at the pool.
  for (unsigned threads : {0U, 1U, 2U, 4U, 64U}) {
    auto x = a;
    forward_batch<std::uint64_t>(x, plans, kDefaultNttVariant, threads);
    for (std::size_t i = 0; i < limbs; ++i) {
      std::vector<std::uint64_t> y(a.begin() + i * n, a.begin() + (i + 1) * n);
      plans[i]->forward(y);
      ASSERT_TRUE(std::equal(y.begin(), y.end(), x.begin() + i * n)) << "limb " << i;
    }
    inverse_batch<std::uint64_t>(x, plans, kDefaultNttVariant, threads);
    EXPECT_EQ(x, a) << threads << " threads";
    for (bool fused : {false, true}) {
      std::vector<std::uint64_t> c(limbs * n);
      polymul_batch<std::uint64_t>(a, b, c, plans, fused, kDefaultNttVariant, threads);
      for (std::size_t i = 0; i < limbs; ++i) {
        std::vector<std::uint64_t> ai(a.begin() + i * n, a.begin() + (i + 1) * n);
        std::vector<std::uint64_t> bi(b.begin() + i * n, b.begin() + (i + 1) * n);
        std::vector<std::uint64_t> ci(n);
        polymul<std::uint64_t>(ai, bi, ci, *plans[i]);
        ASSERT_TRUE(std::equal(ci.begin(), ci.end(), c.begin() + i * n)) << "limb " << i;
      }
    }
  }
}

TEST(Batch, DefaultPoolSizes) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 256;
  const auto qs = ntt_primes(40, n, 3);
  std::vector<std::shared_ptr<const NttPlan<std::uint64_t>>> owned;
  std::vector<const NttPlan<std::uint64_t>*> plans;
  for (std::size_t i = 0; i < 12; ++i) {
    owned.push_back(NttPlan<std::uint64_t>::create(n, qs[i % qs.size()]));
    plans.push_back(owned.back().get());
  }
  std::vector<std::uint64_t> a(plans.size() * n);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] = rng.uniform(0, plans[i]->q() - 1);
  }
  auto want = a;
  forward_batch<std::uint64_t>(want, plans, kDefaultNttVariant, 1);
  const unsigned before = thread_count();
  for (unsigned pool : {1U, 3U, 5U}) {
    set_thread_count(pool);
    auto x = a;
    forward_batch<std::uint64_t>(x, plans);  // threads = 0: the whole pool
    EXPECT_EQ(x, want) << "pool of " << pool;
    inverse_batch<std::uint64_t>(x, plans);
    EXPECT_EQ(x, a) << "pool of " << pool;
  }
  set_thread_count(before);
}

TEST(Batch, RejectsInconsistentShapes) {
  auto p16 = NttPlan<std::uint64_t>::create(16, 97);
  auto p32 = NttPlan<std::uint64_t>::create(32, 193);
  std::vector<const NttPlan<std::uint64_t>*> mixed = {p16.get(), p32.get()};
  std::vector<std::uint64_t> data(48);
  EXPECT_THROW(forward_batch<std::uint64_t>(data, mixed), InvalidParameter);
  std::vector<const NttPlan<std::uint64_t>*> two = {p16.get(), p16.get()};
  std::vector<std::uint64_t> short_data(31);
  EXPECT_THROW(forward_batch<std::uint64_t>(short_data, two), InvalidParameter);
  std::vector<const NttPlan<std::uint64_t>*> none;
  EXPECT_THROW(forward_batch<std::uint64_t>(data, none), InvalidParameter);
  std::vector<const NttPlan<std::uint64_t>*> null_plan = {nullptr};
  std::vector<std::uint64_t> d16(16);
  EXPECT_THROW(forward_batch<std::uint64_t>(d16, null_plan), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
