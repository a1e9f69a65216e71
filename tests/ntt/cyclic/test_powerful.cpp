// PowerfulNtt: the powerful-basis transform of Z_q[X]/Φ_m against its definition (evaluation of
// Σ_j a_j·X^(e_j) at ω^k), products against the power basis's schoolbook-then-divide reference,
// automorphisms against X → X^g, the inverse, forced decompositions, the prime helper, errors.
#include "polyhe/ntt/cyclic/powerful.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "cyclotomic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
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

// Slot t holds a(ω^k_t) where a = Σ_j a_j X^(e_j): checked by direct evaluation.
TEST(PowerfulNtt, ForwardIsEvaluationAtThePrimitiveRoots) {
  for (const std::size_t m : {3, 7, 9, 15, 21, 27, 45, 63, 105, 143, 225}) {
    const u64 q = prime_for(m);
    const auto t = PowerfulNtt::create(m, q);
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

// The length-m route (one flattened cyclic transform, the grid reduction) and the per-factor
// route give the same words, both ways.
TEST(PowerfulNtt, BothRoutesGiveTheSameWords) {
  for (const std::size_t m : {15, 105, 1155, 4369, 21845}) {
    for (const int bits : {50, 60}) {
      const u64 q = powerful_ntt_primes(m, bits, 1).front();
      const auto per_factor =
          PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::per_factor);
      const auto length_m =
          PowerfulNtt::create(m, q, Decomposition::automatic, PowerfulNtt::Route::length_m);
      EXPECT_EQ(per_factor->route(), PowerfulNtt::Route::per_factor);
      EXPECT_EQ(length_m->route(), PowerfulNtt::Route::length_m);
      auto a = random_vector(per_factor->degree(), q, m + static_cast<u64>(bits));
      for (std::size_t i = 0; i < 3; ++i) a[i] = q - 1;  // edge values
      auto x = a, y = a;
      per_factor->forward(x);
      length_m->forward(y);
      ASSERT_EQ(x, y) << "m = " << m << ", " << bits << " bits";
      length_m->inverse(y);
      ASSERT_EQ(y, a) << "m = " << m << ", " << bits << " bits";
      per_factor->inverse(x);
      ASSERT_EQ(x, a);
    }
  }
  // 21845 at 60 bits runs flattened: the automatic route takes the length-m transform.
  const u64 q = powerful_ntt_primes(21845, 60, 1).front();
  EXPECT_EQ(PowerfulNtt::create(21845, q)->route(), PowerfulNtt::Route::length_m);
  EXPECT_EQ(PowerfulNtt::create(21845, q, Decomposition::bluestein)->route(),
            PowerfulNtt::Route::per_factor);
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
