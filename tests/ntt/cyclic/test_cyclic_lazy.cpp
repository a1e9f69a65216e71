// What planning leaves to the first transform: the Rader and Bluestein kernels, the radix-2,
// Cooley–Tukey and flattened-PFA tables are built on a plan's first transform (LazyTable,
// src/ntt/cyclic/nodes.hpp), and the index tables that depend on the lengths alone are shared by
// the plans of every prime (src/ntt/cyclic/shared_tables.hpp). Checked here: a fresh plan's first
// transforms, run by several threads at once, agree with the naive DFT; planning's fused_applies
// is make_fused_tables's rule (a plan flattened by the one must get tables from the other); the
// powerful-basis transforms of two primes share their m-only tables.
#include <gtest/gtest.h>

#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "cyclic_reference.hpp"
#include "ntt/cyclic/fused.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

constexpr std::size_t kThreads = 4;

struct LazyCase {
  std::size_t n;
  Decomposition d;
  u64 q;
};

/// The largest 62-bit prime q ≡ 1 mod l with q ≢ 1 mod 2l.
u64 prime_one_mod_exactly(u64 l) {
  for (u64 q = ((u64{1} << 62) - 1) / l * l + 1;; q -= l) {
    if ((q - 1) % (2 * l) != 0 && is_prime(q)) return q;
  }
}

// Every node kind whose tables are lazy: Rader over radix-2 (the negacyclic route:
// q ≡ 1 mod 2·256), padded Rader, Bluestein, Cooley–Tukey, a flattened PFA, a PFA run node by node
// (37 is neither ≤ 31 nor 2^k + 1; its Rader child is a flattened PFA), and radix-2 on its
// butterflies (q ≢ 1 mod 2·1024).
std::vector<LazyCase> lazy_cases() {
  const auto friendly = [](std::size_t n) {
    return cyclic_prime(62, test::friendly_modulus(n, 10));
  };
  return {
      {257, Decomposition::automatic, friendly(257)},
      {257, Decomposition::rader_padded, friendly(257)},
      {255, Decomposition::bluestein, friendly(255)},
      {243, Decomposition::automatic, friendly(243)},
      {4369, Decomposition::automatic, friendly(4369)},
      {2 * 3 * 37, Decomposition::automatic, friendly(2 * 3 * 37)},
      {1024, Decomposition::radix2, prime_one_mod_exactly(1024)},
  };
}

TEST(CyclicNttLazyTables, FirstTransformsOnSeveralThreadsAgreeWithTheNaiveDft) {
  POLYHE_SEEDED_RNG(rng);
  for (const LazyCase& c : lazy_cases()) {
    const u64 q = c.q;
    const Modulus<u64> mod(q);
    const auto plan = CyclicNttPlan::create(c.n, q, c.d);  // fresh: nothing lazy built yet
    SCOPED_TRACE(plan->decomposition());
    std::vector<std::vector<u64>> inputs(kThreads);
    for (auto& x : inputs) x = test::random_vector(rng, c.n, q);
    std::vector<std::vector<u64>> outputs = inputs;
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        if (t % 2 == 0) {
          plan->forward(outputs[t]);
        } else {  // the inverse's first use builds the same tables
          plan->inverse(outputs[t]);
        }
      });
    }
    for (auto& th : threads) th.join();
    const u64 omega = plan->omega();
    const u64 omega_inv = inverse_mod(omega, q);
    const u64 n_inv = inverse_mod(c.n % q, q);
    for (std::size_t t = 0; t < kThreads; ++t) {
      auto expected = test::naive_dft(inputs[t], t % 2 == 0 ? omega : omega_inv, mod);
      if (t % 2 == 1) {
        for (u64& x : expected) x = mod.mul(x, n_inv);
      }
      EXPECT_EQ(outputs[t], expected) << "thread " << t;
    }
  }
}

// Planning flattens a PFA node when fused_applies says so and builds the tables on the first
// transform, so the two must agree everywhere, and the scratch planned must be the tables' own.
TEST(CyclicNttLazyTables, FusedAppliesIsTheRuleOfMakeFusedTables) {
  std::size_t flattened = 0;
  for (std::size_t n = 2; n <= 1200; ++n) {
    // A prime with every root the fused axes may need, and one with only the n-th roots.
    for (const u64 q : {cyclic_prime(62, test::friendly_modulus(n, 12)), cyclic_prime(61, n)}) {
      const auto tables = cyclic::make_fused_tables(n, q, primitive_nth_root(q, n));
      ASSERT_EQ(cyclic::fused_applies(n, q), tables != nullptr) << "n = " << n << ", q = " << q;
      if (tables) {
        ++flattened;
        EXPECT_EQ(cyclic::fused_scratch_words(n), tables->scratch_words()) << "n = " << n;
      }
    }
  }
  EXPECT_GT(flattened, 100U);  // the rule was exercised both ways
}

// The transforms of two primes at one m hold the same m-only tables (one copy per ring, not one
// per prime), and still compute their own prime's slots.
TEST(CyclicNttLazyTables, PowerfulTransformsShareTheirIndexTables) {
  for (const std::size_t m : {8191U, 4369U * 3U}) {
    const auto primes = powerful_ntt_primes(m, 60, 2);
    const auto a = PowerfulNtt::create(m, primes[0]);
    const auto b = PowerfulNtt::create(m, primes[1]);
    EXPECT_EQ(a->slot_exponents().data(), b->slot_exponents().data()) << "m = " << m;
    for (const auto& t : {a, b}) {
      std::vector<u64> x(t->degree(), 0);
      x[0] = 1;  // the constant 1: 1 in every slot
      t->forward(x);
      EXPECT_EQ(x, std::vector<u64>(t->degree(), 1)) << "m = " << m << ", q = " << t->q();
    }
  }
}

}  // namespace
}  // namespace polyhe
