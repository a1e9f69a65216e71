// PowerfulNtt: the powerful-basis transform of Z_q[X]/Φ_m against its definition (evaluation of
// Σ_j a_j·X^(e_j) at ω^k), products against the power basis's schoolbook-then-divide reference,
// automorphisms against X → X^g, the inverse, forced decompositions, the prime helper, errors.
#include "polyhe/ntt/cyclic/powerful.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cyclotomic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

std::vector<u64> random_vector(std::size_t n, u64 q, u64 seed) {
  test::TestRng rng(seed);
  std::vector<u64> v(n);
  for (auto& x : v) x = rng.uniform(0, q - 1);
  return v;
}

/// The power-basis coefficients (degree < φ(m)) of the element with powerful coordinates a:
/// Σ_j a_j·X^(e_j) reduced mod Φ_m (independent of PowerfulNtt: the exponents and the long
/// division of the reference).
std::vector<u64> to_power_basis(const std::vector<u64>& a, u64 m, const Modulus<u64>& q) {
  const auto e = powerful_exponents(m);
  std::vector<u64> full(m, 0);
  for (std::size_t j = 0; j < a.size(); ++j) full[e[j]] = a[j];
  return test::reduce_by_phi(full, m, q);
}

u64 prime_for(u64 m, int bits = 50) {
  return powerful_ntt_primes(m, bits, 1).front();
}

TEST(PowerfulNtt, FactorsPhiAndExponents) {
  EXPECT_EQ(prime_power_factors(21845), (std::vector<u64>{5, 17, 257}));
  EXPECT_EQ(prime_power_factors(225), (std::vector<u64>{9, 25}));
  EXPECT_EQ(prime_power_factors(8191), (std::vector<u64>{8191}));
  EXPECT_EQ(euler_phi(21845), 16384U);
  EXPECT_EQ(euler_phi(225), 120U);
  EXPECT_EQ(euler_phi(27), 18U);
  for (const u64 m : {15, 27, 105, 225, 4369}) {
    const auto e = powerful_exponents(m);
    ASSERT_EQ(e.size(), euler_phi(m));
    EXPECT_EQ(std::set<u64>(e.begin(), e.end()).size(), e.size()) << "m = " << m;
  }
  // 21845: 257 − 1 = 2^8 and 17 − 1 = 2^4 join m.
  EXPECT_EQ(powerful_ntt_modulus(21845), 21845U * 256U);
  // 8191 − 1 = 2·3²·5·7·13, and Rader's 13 needs 12 in turn.
  for (const u64 d : {8191U, 8190U, 12U}) EXPECT_EQ(powerful_ntt_modulus(8191) % d, 0U) << d;
}

using test::PathGuard;

/// The m whose automatic route is the fused tensor transform (at least two factors, the last
/// one 17 or 257, φ(m)/φ(last) a multiple of 8), with the axis kinds they exercise.
constexpr std::size_t kFusedMs[] = {
    255,    // 3·5·17: two direct axes, a Rader row of 16
    595,    // 5·7·17: direct 7 (a prime with a Rader convolution of 6 elsewhere)
    765,    // 9·5·17: a prime power (direct 9: units 1, 2, 4, 5, 7, 8; fold by Φ_9)
    3825,   // 9·25·17: two prime powers
    3855,   // 3·5·257: Rader row of 256, eight rows
    4369,   // 17·257: a Rader axis that is not the row
    21845,  // 5·17·257
};

// Slot t holds a(ω^k_t) where a = Σ_j a_j X^(e_j): checked by direct evaluation, on every route
// the automatic choice takes (255, 595 and 765 take the fused one).
TEST(PowerfulNtt, ForwardIsEvaluationAtThePrimitiveRoots) {
  for (const std::size_t m : {3, 7, 9, 15, 21, 27, 45, 63, 105, 143, 225, 255, 595, 765}) {
    const u64 q = prime_for(m);
    const auto t = PowerfulNtt::create(m, q);
    if (m == 255 || m == 595 || m == 765) {
      ASSERT_EQ(t->route(), PowerfulNtt::Route::fused) << "m = " << m;
    }
    const Modulus<u64> mod(q);
    const auto a = random_vector(t->degree(), q, 11 + m);
    auto x = a;
    t->forward(x);
    const auto e = powerful_exponents(m);
    const auto ks = t->slot_exponents();
    ASSERT_EQ(std::set<std::size_t>(ks.begin(), ks.end()).size(), t->degree());
    for (std::size_t s = 0; s < t->degree(); ++s) {
      ASSERT_EQ(std::gcd(ks[s], m), 1U);
      u64 value = 0;
      for (std::size_t j = 0; j < a.size(); ++j) {
        const u64 w = pow_mod(t->omega(), (e[j] * ks[s]) % m, q);
        value = (value + mod.mul(a[j], w)) % q;
      }
      ASSERT_EQ(x[s], value) << "m = " << m << ", slot " << s << ", k = " << ks[s];
    }
    t->inverse(x);
    EXPECT_EQ(x, a) << "m = " << m;
  }
}

TEST(PowerfulNtt, InverseUndoesForwardAtSchemeSizes) {
  for (const std::size_t m : {4369, 8191, 21845}) {
    const u64 q = prime_for(m, 60);
    const auto t = PowerfulNtt::create(m, q);
    const auto a = random_vector(t->degree(), q, m);
    auto x = a;
    t->forward(x);
    EXPECT_NE(x, a);
    t->inverse(x);
    EXPECT_EQ(x, a) << "m = " << m << ": " << t->decomposition();
  }
}

// Slot-wise products are products in Z_q[X]/Φ_m: against schoolbook-then-divide in the power
// basis.
TEST(PowerfulNtt, SlotProductsAreRingProducts) {
  for (const std::size_t m : {15, 63, 225, 455, 1105}) {
    const u64 q = prime_for(m);
    const Modulus<u64> mod(q);
    const auto t = PowerfulNtt::create(m, q);
    const auto a = random_vector(t->degree(), q, 3 * m);
    const auto b = random_vector(t->degree(), q, 5 * m);
    auto x = a, y = b;
    t->forward(x);
    t->forward(y);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = mod.mul(x[i], y[i]);
    t->inverse(x);
    const auto expected =
        test::reference_multiply(to_power_basis(a, m, mod), to_power_basis(b, m, mod), m, mod);
    EXPECT_EQ(to_power_basis(x, m, mod), expected) << "m = " << m;
  }
}

// σ_g(a) by the table against the definition: X^i → X^(g·i mod m), reduced mod Φ_m.
TEST(PowerfulNtt, AutomorphismTablesMatchTheDefinition) {
  for (const std::size_t m : {21, 105, 225}) {
    const u64 q = prime_for(m);
    const Modulus<u64> mod(q);
    const auto t = PowerfulNtt::create(m, q);
    const auto a = random_vector(t->degree(), q, 7 * m);
    const auto power = to_power_basis(a, m, mod);
    for (u64 g = 1; g < 2 * m; ++g) {
      if (std::gcd(g, static_cast<u64>(m)) != 1) {
        EXPECT_THROW((void)t->automorphism_table(g), InvalidParameter);
        continue;
      }
      std::vector<u64> full(m, 0);
      for (std::size_t i = 0; i < power.size(); ++i) {
        u64& slot = full[(i * g) % m];
        slot = (slot + power[i]) % q;
      }
      const auto expected = test::reduce_by_phi(full, m, mod);
      auto x = a;
      t->forward(x);
      const auto table = t->automorphism_table(g);
      std::vector<u64> y(x.size());
      for (std::size_t s = 0; s < y.size(); ++s) y[s] = x[table[s]];
      t->inverse(y);
      ASSERT_EQ(to_power_basis(y, m, mod), expected) << "m = " << m << ", g = " << g;
    }
  }
}

// The same values whatever the factors' transforms: Rader padded and Bluestein forced.
TEST(PowerfulNtt, ForcedDecompositionsAgree) {
  const std::size_t m = 3 * 5 * 17;
  const u64 q = powerful_ntt_primes(m, 55, 1).front();
  const auto automatic = PowerfulNtt::create(m, q);
  const auto a = random_vector(automatic->degree(), q, 99);
  auto want = a;
  automatic->forward(want);
  for (const auto d :
       {Decomposition::rader_padded, Decomposition::bluestein, Decomposition::direct}) {
    const auto t = PowerfulNtt::create(m, q, d);
    EXPECT_NE(t->decomposition().find(std::string(to_string(d))), std::string::npos)
        << t->decomposition();
    auto x = a;
    t->forward(x);
    EXPECT_EQ(x, want) << t->decomposition();
    t->inverse(x);
    EXPECT_EQ(x, a) << t->decomposition();
  }
}

// The three routes — per factor, one length-m flattened cyclic transform with the grid
// reduction, the fused pruned tensor transform where it applies — give the same words, both ways,
// with the edge values q − 1 and 0 in the input.
TEST(PowerfulNtt, AllRoutesGiveTheSameWords) {
  std::vector<std::size_t> ms = {15, 105, 1155};
  ms.insert(ms.end(), std::begin(kFusedMs), std::end(kFusedMs));
  for (const std::size_t m : ms) {
    for (const int bits : {40, 60, 62}) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", " + std::to_string(bits) + " bits");
      const u64 q = powerful_ntt_primes(m, bits, 1).front();
      const auto per_factor =
          PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::per_factor);
      EXPECT_EQ(per_factor->route(), PowerfulNtt::Route::per_factor);
      auto a = random_vector(per_factor->degree(), q, m + static_cast<u64>(bits));
      for (std::size_t i = 0; i < 3; ++i) a[i] = q - 1;  // edge values
      a[a.size() - 1] = 0;
      auto want = a;
      per_factor->forward(want);
      auto back = want;
      per_factor->inverse(back);
      ASSERT_EQ(back, a);
      const bool fusable =
          std::find(std::begin(kFusedMs), std::end(kFusedMs), m) != std::end(kFusedMs);
      std::vector<PowerfulNtt::Route> routes = {PowerfulNtt::Route::length_m};
      if (fusable) routes.push_back(PowerfulNtt::Route::fused);
      for (const PowerfulNtt::Route route : routes) {
        const auto t = PowerfulNtt::create(m, q, Decomposition::automatic, route);
        EXPECT_EQ(t->route(), route);
        auto x = a;
        t->forward(x);
        ASSERT_EQ(x, want) << "route " << static_cast<int>(route);
        t->inverse(x);
        ASSERT_EQ(x, a) << "route " << static_cast<int>(route);
      }
      EXPECT_EQ(PowerfulNtt::create(m, q)->route(),
                fusable ? PowerfulNtt::Route::fused : PowerfulNtt::Route::length_m);
    }
  }
  // A forced factor decomposition keeps the per-factor route, which is what it tests.
  const u64 q = powerful_ntt_primes(21845, 60, 1).front();
  EXPECT_EQ(PowerfulNtt::create(21845, q, Decomposition::bluestein)->route(),
            PowerfulNtt::Route::per_factor);
}

// The fused route on every CPU path (scalar, avx2, avx512, ifma for q < 2^50) equal to the scalar
// one word for word, forward and inverse, on random input, all q − 1 and all 0 (the scalar kernel
// is itself checked against the per-factor route above). Paths this CPU or build lacks are skipped.
TEST(PowerfulNtt, FusedRouteEqualOnEveryCpuPath) {
  PathGuard guard;
  for (const std::size_t m : {255UL, 3825UL, 4369UL, 21845UL, 65535UL}) {
    for (const int bits : {40, 49, 60, 61, 62}) {
      SCOPED_TRACE("m = " + std::to_string(m) + ", " + std::to_string(bits) + " bits");
      const u64 q = powerful_ntt_primes(m, bits, 1).front();
      const auto t = PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::fused);
      const std::vector<std::vector<u64>> inputs = {
          random_vector(t->degree(), q, 17 * m + static_cast<u64>(bits)),
          std::vector<u64>(t->degree(), q - 1), std::vector<u64>(t->degree(), 0)};
      for (const auto& a : inputs) {
        set_cpu_path(CpuPath::scalar);
        auto fwd = a;
        t->forward(fwd);
        auto inv = a;
        t->inverse(inv);
        auto back = fwd;
        t->inverse(back);
        ASSERT_EQ(back, a);
        for (const CpuPath path : {CpuPath::avx2, CpuPath::avx512, CpuPath::ifma}) {
          if (const std::optional<std::string> why = cpu_path_unavailable_reason(path)) {
            std::cout << "[ SKIPPED  ] " << to_string(path) << ": " << *why << '\n';
            continue;
          }
          SCOPED_TRACE(to_string(path));
          set_cpu_path(path);
          auto y = a;
          t->forward(y);
          ASSERT_EQ(y, fwd);
          auto z = a;
          t->inverse(z);
          ASSERT_EQ(z, inv);
        }
      }
    }
  }
}

TEST(PowerfulNtt, ForcedFusedRouteRefusedWhereItDoesNotApply) {
  // 15: the last factor's φ is 4; 85 = 5·17: 4 rows; 8191: one factor.
  for (const std::size_t m : {15UL, 85UL, 8191UL}) {
    const u64 q = prime_for(m);
    try {
      (void)PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::fused);
      FAIL() << "m = " << m << ": expected InvalidParameter";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("m = " + std::to_string(m)), std::string::npos)
          << e.what();
    }
    EXPECT_NE(PowerfulNtt::create(m, q)->route(), PowerfulNtt::Route::fused);
  }
}

// 255 = 3·5·17 with a prime that is 1 mod 255 but not 1 mod 16: no Rader convolution for 17,
// so its row axis runs as a direct DFT (the inverse's 1/m on its outputs): same words as the
// per-factor route.
TEST(PowerfulNtt, FusedRouteWithADirectRowAxis) {
  const std::size_t m = 255;
  u64 q = 0;
  for (u64 c = (u64{1} << 50) / m * m + 1;; c += m) {
    if (is_prime(c) && (c - 1) % 16 != 0) {
      q = c;
      break;
    }
  }
  const auto fused = PowerfulNtt::create(m, q);
  ASSERT_EQ(fused->route(), PowerfulNtt::Route::fused);
  const auto per_factor =
      PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::per_factor);
  PathGuard guard;
  for (const CpuPath path : {CpuPath::scalar, CpuPath::avx2, CpuPath::avx512, CpuPath::ifma}) {
    if (cpu_path_unavailable_reason(path)) continue;
    set_cpu_path(path);
    const auto a = random_vector(fused->degree(), q, 5);
    auto x = a, y = a;
    fused->forward(x);
    per_factor->forward(y);
    ASSERT_EQ(x, y) << to_string(path);
    fused->inverse(x);
    ASSERT_EQ(x, a) << to_string(path);
  }
}

TEST(PowerfulNtt, PrimesAreDistinctWideAndServeTheTransform) {
  const auto primes = powerful_ntt_primes(21845, 60, 4);
  ASSERT_EQ(primes.size(), 4U);
  for (std::size_t i = 0; i < primes.size(); ++i) {
    EXPECT_TRUE(is_prime(primes[i]));
    EXPECT_EQ(bit_length(primes[i]), 60);
    EXPECT_EQ((primes[i] - 1) % powerful_ntt_modulus(21845), 0U);
    if (i > 0) {
      EXPECT_LT(primes[i], primes[i - 1]);
    }
  }
  const auto more = powerful_ntt_primes(21845, 60, 2, primes);
  for (const u64 q : more) {
    EXPECT_EQ(std::count(primes.begin(), primes.end(), q), 0);
  }
  EXPECT_NO_THROW((void)PowerfulNtt::create(21845, primes.back()));
}

TEST(PowerfulNtt, RefusesBadInput) {
  const u64 q = prime_for(15);
  EXPECT_THROW((void)PowerfulNtt::create(16, q), InvalidParameter);
  EXPECT_THROW((void)PowerfulNtt::create(1, q), InvalidParameter);
  EXPECT_THROW((void)PowerfulNtt::create(PowerfulNtt::kMaxM + 1, q), InvalidParameter);
  EXPECT_THROW((void)PowerfulNtt::create(15, 17), InvalidParameter);      // 17 ≢ 1 mod 15
  EXPECT_THROW((void)PowerfulNtt::create(15, q + 15), InvalidParameter);  // not a prime
  EXPECT_THROW((void)powerful_ntt_primes(21845, 20, 1), InvalidParameter);
  try {
    (void)powerful_ntt_primes(21845, 30, 1000);
    FAIL() << "expected InvalidParameter";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("21845"), std::string::npos) << e.what();
  }
  const auto t = PowerfulNtt::create(15, q);
  std::vector<u64> wrong(9);
  EXPECT_THROW(t->forward(wrong), InvalidParameter);
  EXPECT_THROW(t->inverse(wrong), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
