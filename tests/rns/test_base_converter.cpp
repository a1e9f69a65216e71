// FastBConv (approximate) and the HPS exact conversion, checked exactly with GMP; the 128-bit
// reduction behind both.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/wide_reduce.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

TEST(WideReduce, MatchesDivision) {
  POLYHE_SEEDED_RNG(rng);
  for (int bits : {2, 3, 30, 31, 50, 61, 62, 63}) {
    for (int rep = 0; rep < 200; ++rep) {
      std::uint64_t q = rng.uniform(std::uint64_t{1} << (bits - 1), (std::uint64_t{1} << bits) - 1);
      if (q < 2) q = 2;
      const auto b = make_wide_barrett(q);
      const u128 edge[] = {0,           1,
                           q - 1,       q,
                           ~u128{0},    ~u128{0} - 1,
                           u128{q} * q, (u128{rng.bits()} << 64) | rng.bits()};
      for (u128 x : edge) ASSERT_EQ(wide_reduce(x, b), static_cast<std::uint64_t>(x % q)) << q;
    }
  }
}

// reduce_word takes 0 ≤ x ≤ 2^63: random words of every size up to that, the multiples of q and
// their neighbours, and the ends.
TEST(WideReduce, WordMatchesDivision) {
  POLYHE_SEEDED_RNG(rng);
  constexpr std::uint64_t kTop = std::uint64_t{1} << 63;
  for (int bits : {2, 3, 30, 31, 40, 50, 61, 62, 63}) {
    for (int rep = 0; rep < 200; ++rep) {
      std::uint64_t q = rng.uniform(std::uint64_t{1} << (bits - 1), (std::uint64_t{1} << bits) - 1);
      if (q < 2) q = 2;
      const auto b = make_wide_barrett(q);
      const std::uint64_t m = (kTop / q) * q;  // the largest multiple of q in range
      const std::uint64_t edge[] = {
          0,     1, q - 1, q,        q + 1, q / 2,           2 * q - 1,
          m - 1, m, m + 1, kTop - 1, kTop,  rng.bits() >> 1, rng.bits() >> rng.uniform(1, 63)};
      for (std::uint64_t x : edge) {
        if (x > kTop) continue;
        ASSERT_EQ(reduce_word(x, b), x % q) << "x " << x << ", q " << q;
      }
    }
  }
}

/// ⌈δ·Q⌉ + 1: beyond this distance from ±Q/2 the exact conversion is exact.
mpz_class exact_margin(const mpz_class& q, double delta) {
  mpz_class scale;
  mpz_ui_pow_ui(scale.get_mpz_t(), 2, 80);
  return q * static_cast<unsigned long>(delta * std::ldexp(1.0, 80) + 1) / scale + 1;
}

/// Whether the centred x_c lies within `margin` of ±Q/2.
bool near_half(const mpz_class& xc, const mpz_class& q, const mpz_class& margin) {
  return abs(abs(xc) * 2 - q) <= 2 * margin;
}

struct ConvCase {
  std::size_t from, to;
  int lo, hi;  // prime sizes, bits
};

class Conversion : public ::testing::TestWithParam<ConvCase> {};

// y_j ≡ x + u·Q (mod c_j) for one u ∈ [0, |B|) shared by all j (checked by CRT over C when C is
// larger than |B|·Q), and the exact variant equals the centred x mod c_j.
TEST_P(Conversion, ApproxOvershootsByLessThanBQAndExactIsExact) {
  POLYHE_SEEDED_RNG(rng);
  const ConvCase p = GetParam();
  std::unordered_set<std::uint64_t> used;
  const RnsBasis from(test::random_primes(rng, p.from, p.lo, p.hi, used));
  const RnsBasis to(test::random_primes(rng, p.to, p.lo, p.hi, used));
  const BaseConverter conv(from, to);
  test::BigRng gmp(rng);
  const std::size_t n = 64;
  const mpz_class& q = big_product(from);
  const auto values = test::random_values(gmp, q, n);
  const auto x = test::to_limbs(values, from);
  std::vector<std::uint64_t> approx(to.size() * n), exact(to.size() * n);
  conv.convert_approx(x, approx);
  conv.convert_exact(x, exact);
  const mpz_class margin = exact_margin(q, conv.exact_error_bound());
  const bool determined = big_product(to) > q * static_cast<unsigned long>(from.size());
  const auto y = to_bigint(approx, to);
  for (std::size_t c = 0; c < n; ++c) {
    // Which u ∈ [0, |B|) fits every target residue?
    int fits = 0;
    for (std::size_t u = 0; u < from.size(); ++u) {
      const mpz_class v = values[c] + q * static_cast<unsigned long>(u);
      bool all = true;
      for (std::size_t j = 0; j < to.size(); ++j) {
        all = all && approx[j * n + c] == mpz_fdiv_ui(v.get_mpz_t(), to.prime(j));
      }
      if (all) {
        ++fits;
        if (determined) {
          EXPECT_EQ(y[c], v);
        }
      }
    }
    EXPECT_GE(fits, 1) << "coefficient " << c << " x = " << values[c].get_str();
    const mpz_class xc = centre(values[c], q);
    if (near_half(xc, q, margin)) continue;  // ErrorBoundNearHalfQ covers ⌊Q/2⌋ and ⌊Q/2⌋ + 1
    for (std::size_t j = 0; j < to.size(); ++j) {
      ASSERT_LT(approx[j * n + c], to.prime(j));
      EXPECT_EQ(exact[j * n + c], mpz_fdiv_ui(xc.get_mpz_t(), to.prime(j)))
          << "coefficient " << c << " target " << j << " x = " << values[c].get_str();
    }
  }
}

// Many coefficients, spread over threads: every thread count gives the single-threaded words.
TEST_P(Conversion, ThreadedEqualsInline) {
  POLYHE_SEEDED_RNG(rng);
  const ConvCase p = GetParam();
  std::unordered_set<std::uint64_t> used;
  const RnsBasis from(test::random_primes(rng, p.from, p.lo, p.hi, used));
  const RnsBasis to(test::random_primes(rng, p.to, p.lo, p.hi, used));
  const BaseConverter conv(from, to);
  const std::size_t n = std::size_t{1} << 13;
  std::vector<std::uint64_t> x(from.size() * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0, from.prime(i / n) - 1);
  std::vector<std::uint64_t> ref(to.size() * n), got(to.size() * n);
  for (bool exact : {false, true}) {
    if (exact) {
      conv.convert_exact(x, ref, 1);
    } else {
      conv.convert_approx(x, ref, 1);
    }
    for (unsigned threads : {0U, 2U, 4U}) {
      std::fill(got.begin(), got.end(), 0);
      if (exact) {
        conv.convert_exact(x, got, threads);
      } else {
        conv.convert_approx(x, got, threads);
      }
      EXPECT_EQ(got, ref) << threads << " threads, exact " << exact;
    }
  }
  // Spot-check one coefficient of the large input against GMP.
  const std::size_t c = n - 1;
  const mpz_class xc = centre(to_bigint(x, from, c), big_product(from));
  for (std::size_t j = 0; j < to.size(); ++j) {
    EXPECT_EQ(ref[j * n + c], mpz_fdiv_ui(xc.get_mpz_t(), to.prime(j)));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, Conversion,
                         ::testing::Values(ConvCase{1, 1, 30, 62}, ConvCase{1, 4, 50, 60},
                                           ConvCase{3, 5, 30, 40}, ConvCase{4, 2, 55, 62},
                                           ConvCase{8, 9, 30, 62}, ConvCase{20, 3, 61, 62},
                                           ConvCase{30, 31, 30, 62}),
                         [](const auto& tp) {
                           const ConvCase& c = tp.param;
                           return std::to_string(c.from) + "to" + std::to_string(c.to) + "_" +
                                  std::to_string(c.lo) + "_" + std::to_string(c.hi) + "bits";
                         });

// Next to ±Q/2 the double-precision v may round the wrong way: the result is then x_c ∓ Q, never
// further off; beyond the documented distance δ·Q from Q/2 it is exact.
TEST(ConversionExact, ErrorBoundNearHalfQ) {
  POLYHE_SEEDED_RNG(rng);
  std::unordered_set<std::uint64_t> used;
  const RnsBasis from(test::random_primes(rng, 6, 55, 62, used));
  const RnsBasis to(test::random_primes(rng, 3, 55, 62, used));
  const BaseConverter conv(from, to);
  const mpz_class& q = big_product(from);
  const double delta = conv.exact_error_bound();
  EXPECT_GT(delta, 0.0);
  EXPECT_LT(delta, 1e-13);
  const mpz_class margin = exact_margin(q, delta);
  std::vector<mpz_class> values;
  for (long d = -40; d <= 40; ++d) values.push_back(q / 2 + d);  // straddling the boundary
  for (long d = -3; d <= 3; ++d) {
    values.push_back(q / 2 + margin + d * 7 + 100);
    values.push_back(q / 2 - margin - d * 7 - 100);
  }
  const auto x = test::to_limbs(values, from);
  const std::size_t n = values.size();
  std::vector<std::uint64_t> y(to.size() * n);
  conv.convert_exact(x, y);
  for (std::size_t c = 0; c < n; ++c) {
    const mpz_class xc = centre(values[c], q);
    bool is_exact = true, is_off_by_q = true;
    for (std::size_t j = 0; j < to.size(); ++j) {
      const std::uint64_t cj = to.prime(j);
      is_exact = is_exact && y[j * n + c] == mpz_fdiv_ui(xc.get_mpz_t(), cj);
      const mpz_class other = xc > 0 ? mpz_class(xc - q) : mpz_class(xc + q);
      is_off_by_q = is_off_by_q && y[j * n + c] == mpz_fdiv_ui(other.get_mpz_t(), cj);
    }
    EXPECT_TRUE(is_exact || is_off_by_q) << "x = " << values[c].get_str();
    if (!near_half(xc, q, margin)) {
      EXPECT_TRUE(is_exact) << "x = " << values[c].get_str();
    }
  }
}

TEST(ConversionErrors, RejectBadShapes) {
  const RnsBasis from(std::vector<std::uint64_t>{1073741789ULL, 1152921504606846883ULL});
  const RnsBasis to(std::vector<std::uint64_t>{2305843009213693951ULL});  // 2^61 − 1
  const BaseConverter conv(from, to);
  std::vector<std::uint64_t> in(8), out(4);
  std::vector<std::uint64_t> odd(7);
  EXPECT_THROW(conv.convert_approx(odd, out), InvalidParameter);
  std::vector<std::uint64_t> short_out(3);
  EXPECT_THROW(conv.convert_approx(in, short_out), InvalidParameter);
  EXPECT_THROW(conv.convert_exact(std::span<const std::uint64_t>(in),
                                  std::span<std::uint64_t>(in).subspan(4)),
               InvalidParameter);  // overlap
  std::vector<std::uint64_t> wide(12);
  const std::size_t bad[] = {3};
  EXPECT_THROW(conv.convert_approx(in, wide, bad), InvalidParameter);
  const std::size_t good[] = {2};
  conv.convert_approx(in, wide, good);  // zeros convert to zeros, in limb 2
  EXPECT_EQ(wide, std::vector<std::uint64_t>(12, 0));
}

}  // namespace
}  // namespace polyhe
