#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/context.hpp"
#include "ring/ring_cases.hpp"

namespace polyhe {
namespace {

template <class E, class F>
void expect_throw_with(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RingContext, BuildsOnePlanPerPrime) {
  const auto primes = ntt_primes(40, 64, 3);
  const auto ctx = RingContext::create(64, primes);
  EXPECT_EQ(ctx->n(), 64U);
  EXPECT_EQ(ctx->log_n(), 6);
  EXPECT_EQ(ctx->max_limbs(), 3U);
  EXPECT_EQ(ctx->max_level(), 2U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ctx->plan(i).q(), primes[i]);
    EXPECT_EQ(ctx->plan(i).n(), 64U);
    EXPECT_EQ(ctx->moduli(3)[i].value(), primes[i]);
  }
}

TEST(RingContext, LevelIsAViewSharingThePlans) {
  const auto ctx = test::make_ring(32, 3);
  const RingLevel lv = ctx->level(1);
  EXPECT_EQ(lv.context, ctx);
  EXPECT_EQ(lv.limbs, 2U);
  EXPECT_EQ(lv.basis.size(), 2U);
  EXPECT_EQ(lv.basis.prime(1), ctx->basis().prime(1));
  EXPECT_EQ(ctx->plans(2)[1], &ctx->plan(1));
  expect_throw_with<InvalidParameter>([&] { (void)ctx->level(3); }, "level 3");
}

TEST(RingContext, RefusesBadN) {
  const std::vector<std::uint64_t> primes = {12289};  // 1 mod 2^13
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{48}, std::size_t{1} << 18}) {
    expect_throw_with<InvalidParameter>([&] { (void)RingContext::create(n, primes); },
                                        "N = " + std::to_string(n));
  }
}

TEST(RingContext, RefusesNonNttPrimes) {
  // 97 is prime but 97 mod 64 = 33: not 1 mod 2N for N = 32.
  expect_throw_with<InvalidParameter>(
      [] {
        (void)RingContext::create(32, std::vector<std::uint64_t>{12289, 97});
      },
      "q_1 = 97 is not 1 mod 2N = 64");
  // 129 = 3 · 43 is 1 mod 64 but composite: RnsBasis refuses it.
  EXPECT_THROW((void)RingContext::create(32, std::vector<std::uint64_t>{129}), InvalidParameter);
  EXPECT_THROW((void)RingContext::create(32, std::vector<std::uint64_t>{}), InvalidParameter);
  // A prime twice.
  EXPECT_THROW((void)RingContext::create(32, std::vector<std::uint64_t>{12289, 12289}),
               InvalidParameter);
}

}  // namespace
}  // namespace polyhe
