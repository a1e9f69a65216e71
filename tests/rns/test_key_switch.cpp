// Hybrid key switching's RNS steps: digit decomposition, ModUp and ModDown, against GMP.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/key_switch_basis.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

struct KsCase {
  std::size_t primes;   // L + 1
  std::size_t special;  // k
  std::size_t dnum;     // 0: L + 1
};

class KeySwitch : public ::testing::TestWithParam<KsCase> {
 protected:
  void SetUp() override {
    const KsCase c = GetParam();
    dnum_ = c.dnum == 0 ? c.primes : c.dnum;
  }
  std::size_t dnum_ = 1;
};

KeySwitchBasis make_ks(test::TestRng& rng, const KsCase& c, std::size_t dnum) {
  std::unordered_set<std::uint64_t> used;
  RnsBasis q(test::random_primes(rng, c.primes, 30, 62, used));
  RnsBasis p(test::random_primes(rng, c.special, 55, 62, used));
  return KeySwitchBasis(q, p, dnum);
}

TEST_P(KeySwitch, DigitsPartitionEachLevel) {
  POLYHE_SEEDED_RNG(rng);
  const KsCase c = GetParam();
  const auto ks = make_ks(rng, c, dnum_);
  EXPECT_EQ(ks.alpha(), (c.primes + dnum_ - 1) / dnum_);
  EXPECT_EQ(ks.digit_count(ks.max_level()), (c.primes + ks.alpha() - 1) / ks.alpha());
  EXPECT_LE(ks.digit_count(ks.max_level()), dnum_);
  for (std::size_t l = 0; l <= ks.max_level(); ++l) {
    std::vector<std::uint64_t> joined;
    for (std::size_t j = 0; j < ks.digit_count(l); ++j) {
      const auto d = ks.digit(l, j).primes();
      EXPECT_LE(d.size(), ks.alpha());
      joined.insert(joined.end(), d.begin(), d.end());
    }
    EXPECT_EQ(joined, ks.q().prefix(l + 1).primes()) << "level " << l;
  }
  int max_bits = 0;
  for (std::size_t j = 0; j < ks.digit_count(ks.max_level()); ++j) {
    const int bits = ks.digit_modulus_bits(j);
    EXPECT_EQ(bits, ks.digit(ks.max_level(), j).product_bits());
    max_bits = std::max(max_bits, bits);
  }
  EXPECT_EQ(ks.max_digit_modulus_bits(), max_bits);
  EXPECT_EQ(ks.special_modulus_bits(), ks.p().product_bits());
}

// ModUp of digit j: every limb of Q_l ∪ P holds (x + u·D_j) mod its prime, one u ∈ [0, |digit|).
TEST_P(KeySwitch, ModUpExtendsEachDigit) {
  POLYHE_SEEDED_RNG(rng);
  const KsCase c = GetParam();
  const auto ks = make_ks(rng, c, dnum_);
  test::BigRng gmp(rng);
  const std::size_t n = 16;
  for (std::size_t l : {ks.max_level(), ks.max_level() / 2}) {
    const RnsBasis all = RnsBasis::concat(ks.q().prefix(l + 1), ks.p());
    for (std::size_t j = 0; j < ks.digit_count(l); ++j) {
      const RnsBasis& d = ks.digit(l, j);
      const auto values = test::random_values(gmp, big_product(d), n);
      const auto in = test::to_limbs(values, d);
      std::vector<std::uint64_t> out(all.size() * n);
      ks.mod_up(l, j, in, out);
      for (std::size_t k = 0; k < n; ++k) {
        bool found = false;
        for (std::size_t u = 0; u < d.size() && !found; ++u) {
          const mpz_class v = values[k] + big_product(d) * static_cast<unsigned long>(u);
          bool all_limbs = true;
          for (std::size_t i = 0; i < all.size(); ++i) {
            all_limbs = all_limbs && out[i * n + k] == mpz_fdiv_ui(v.get_mpz_t(), all.prime(i));
          }
          found = all_limbs;
        }
        EXPECT_TRUE(found) << "level " << l << " digit " << j << " x = " << values[k].get_str();
      }
    }
  }
}

// Centred ModUp: every limb of Q_l ∪ P holds x_c mod its prime, x_c the centred representative of
// x mod D_j (x_c ∓ D_j allowed only within D_j·δ of ±D_j/2, which random inputs never hit).
TEST_P(KeySwitch, CentredModUpLiftsTheCentredResidue) {
  POLYHE_SEEDED_RNG(rng);
  const KsCase c = GetParam();
  const auto ks = make_ks(rng, c, dnum_);
  test::BigRng gmp(rng);
  const std::size_t n = 16;
  for (std::size_t l : {ks.max_level(), ks.max_level() / 2}) {
    const RnsBasis all = RnsBasis::concat(ks.q().prefix(l + 1), ks.p());
    for (std::size_t j = 0; j < ks.digit_count(l); ++j) {
      const RnsBasis& d = ks.digit(l, j);
      const auto values = test::random_values(gmp, big_product(d), n);
      const auto in = test::to_limbs(values, d);
      std::vector<std::uint64_t> out(all.size() * n);
      ks.mod_up_centred(l, j, in, out);
      for (std::size_t k = 0; k < n; ++k) {
        const mpz_class centred =
            2 * values[k] > big_product(d) ? mpz_class(values[k] - big_product(d)) : values[k];
        // Within D·2^-40 of D/2 the double-precision correction may pick the other side.
        const mpz_class gap = abs(mpz_class(2 * values[k] - big_product(d)));
        const bool near_half = gap * (mpz_class(1) << 40) < big_product(d);
        const mpz_class other = centred < 0 ? values[k] : mpz_class(values[k] - big_product(d));
        for (std::size_t i = 0; i < all.size(); ++i) {
          const std::uint64_t want = mpz_fdiv_ui(centred.get_mpz_t(), all.prime(i));
          const std::uint64_t alt = mpz_fdiv_ui(other.get_mpz_t(), all.prime(i));
          EXPECT_TRUE(out[i * n + k] == want || (near_half && out[i * n + k] == alt))
              << "level " << l << " digit " << j << " limb " << i << " x = " << values[k].get_str();
        }
      }
    }
  }
}

// ModDown: floor and round within [0, k) below ⌊x/P⌋ and round(x/P); round_exact equal to
// round(x/P) (off by one only within δ·P of a half-integer); P·x comes back exactly as x from
// floor and round_exact.
TEST_P(KeySwitch, ModDownDividesByP) {
  POLYHE_SEEDED_RNG(rng);
  const KsCase c = GetParam();
  const auto ks = make_ks(rng, c, dnum_);
  test::BigRng gmp(rng);
  const std::size_t n = 24;
  const mpz_class& p = big_product(ks.p());
  const unsigned long k = ks.p().size();
  const double delta = static_cast<double>(k * (k + 3)) * std::ldexp(1.0, -53);
  const mpz_class margin =
      p * static_cast<unsigned long>(delta * 1e15 + 1) / 1000000000000000UL + 1;
  for (std::size_t l : {ks.max_level(), std::size_t{0}}) {
    const RnsBasis ql = ks.q().prefix(l + 1);
    const RnsBasis all = RnsBasis::concat(ql, ks.p());
    auto values = test::random_values(gmp, big_product(all), n);
    for (std::size_t m = 0; m < 4; ++m) values.push_back(gmp.get_z_range(big_product(ql)) * p);
    const auto in = test::to_limbs(values, all);
    const std::size_t count = values.size();
    for (ModDownMode mode : {ModDownMode::floor, ModDownMode::round, ModDownMode::round_exact}) {
      std::vector<std::uint64_t> out(ql.size() * count);
      ks.mod_down(l, in, out, mode);
      const auto r = to_bigint(out, ql);
      for (std::size_t m = 0; m < count; ++m) {
        const mpz_class& x = values[m];
        const mpz_class fl = x / p;
        const mpz_class rd = (x + p / 2) / p;
        mpz_class diff;
        const mpz_class target = mode == ModDownMode::floor ? fl : rd;
        diff = target - r[m];
        mpz_fdiv_r(diff.get_mpz_t(), diff.get_mpz_t(), big_product(ql).get_mpz_t());
        std::ostringstream what;
        what << "level " << l << " mode " << static_cast<int>(mode) << " x = " << x.get_str();
        if (m >= n && mode != ModDownMode::round) {  // (P·x)_P = 0 converts exactly
          EXPECT_EQ(diff, 0) << "P·x, " << what.str();
        } else if (mode == ModDownMode::round_exact) {
          const mpz_class xp = x % p;
          if (abs(2 * xp - p) <= 2 * margin) {
            EXPECT_TRUE(diff <= 1 || diff == big_product(ql) - 1) << what.str();  // off by ≤ 1
          } else {
            EXPECT_EQ(diff, 0) << what.str();
          }
        } else {
          EXPECT_LT(diff, k) << what.str();
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, KeySwitch,
                         ::testing::Values(KsCase{1, 1, 1}, KsCase{6, 2, 1}, KsCase{6, 2, 2},
                                           KsCase{6, 2, 0}, KsCase{7, 3, 2}, KsCase{7, 1, 3},
                                           KsCase{12, 4, 0}),
                         [](const auto& tp) {
                           const KsCase& c = tp.param;
                           std::ostringstream name;
                           name << "L" << c.primes - 1 << "_k" << c.special << "_dnum";
                           if (c.dnum == 0) {
                             name << "Lplus1";
                           } else {
                             name << c.dnum;
                           }
                           return name.str();
                         });

template <class F>
void expect_invalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no InvalidParameter; expected one naming " << needle;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(KeySwitchErrors, RejectBadParametersNamingThem) {
  POLYHE_SEEDED_RNG(rng);
  std::unordered_set<std::uint64_t> used;
  const RnsBasis q(test::random_primes(rng, 4, 40, 50, used));
  const RnsBasis p(test::random_primes(rng, 2, 55, 60, used));
  expect_invalid([&] { KeySwitchBasis(q, p, 0); }, "dnum = 0");
  expect_invalid([&] { KeySwitchBasis(q, p, 5); }, "dnum = 5");
  expect_invalid([&] { KeySwitchBasis(q, RnsBasis::concat(p, q.range(2, 1)), 2); },
                 std::to_string(q.prime(2)));
  const KeySwitchBasis ks(q, p, 2);
  expect_invalid([&] { (void)ks.digit_count(4); }, "level 4");
  expect_invalid([&] { (void)ks.digit(1, 1); }, "digit 1");
  std::vector<std::uint64_t> in(2 * 8), out(6 * 8);
  ks.mod_up(3, 1, in, out);  // fine: 2 limbs → 4 + 2 limbs
  std::vector<std::uint64_t> short_out(5 * 8);
  expect_invalid([&] { ks.mod_up(3, 1, in, short_out); }, "40 words");
  std::vector<std::uint64_t> odd(15);
  expect_invalid([&] { ks.mod_up(3, 1, odd, out); }, "15 words");
  std::vector<std::uint64_t> down(4 * 8);
  ks.mod_down(3, out, down);
  EXPECT_EQ(down, std::vector<std::uint64_t>(32, 0));
  expect_invalid([&] { ks.mod_down(2, out, down); }, "for 5 primes");
  std::vector<std::uint64_t> in5(5 * 8);
  expect_invalid([&] { ks.mod_down(2, in5, down); }, "expected 3 limbs");
  expect_invalid([&] { ks.mod_down(5, out, down); }, "level 5");
}

}  // namespace
}  // namespace polyhe
