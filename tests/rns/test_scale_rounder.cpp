// HPS scale-and-round: round(t·x/Q) mod p_k from x over Q ∪ P, equal to GMP except within the
// documented distance δ of a half-integer (where it may be the other neighbour); and the BFV
// multiplication chain Q → Q ∪ P → (tensor) → P → Q built from it and BaseConverter::convert_exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/scale_rounder.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

struct ScaleCase {
  std::size_t q_limbs, p_limbs;
  int lo, hi;  // prime sizes, bits
};

enum class PlainKind { two, three, f4, bits20, bits40, bits59, even };

const char* name(PlainKind k) {
  switch (k) {
    case PlainKind::two: return "t2";
    case PlainKind::three: return "t3";
    case PlainKind::f4: return "t65537";
    case PlainKind::bits20: return "t20bit";
    case PlainKind::bits40: return "t40bit";
    case PlainKind::bits59: return "t59bit";
    case PlainKind::even: return "t40bitEven";
  }
  return "?";
}

std::uint64_t make_t(test::TestRng& rng, PlainKind kind) {
  auto random_bits = [&](int bits) {
    return rng.uniform(std::uint64_t{1} << (bits - 1), (std::uint64_t{1} << bits) - 1);
  };
  switch (kind) {
    case PlainKind::two: return 2;
    case PlainKind::three: return 3;
    case PlainKind::f4: return 65537;
    case PlainKind::bits20: return random_bits(20);
    case PlainKind::bits40: return random_bits(40);
    case PlainKind::bits59: return random_bits(59);
    case PlainKind::even: return random_bits(40) & ~std::uint64_t{1};
  }
  return 2;
}

/// ⌊a/b⌋ for b > 0 and any sign of a.
mpz_class floor_div(const mpz_class& a, const mpz_class& b) {
  mpz_class q;
  mpz_fdiv_q(q.get_mpz_t(), a.get_mpz_t(), b.get_mpz_t());
  return q;
}

/// GMP's verdict on t·x/Q: the rounding (halves up), the other neighbour, and whether the
/// fractional part lies within δ of 1/2 (where the scaler may return the other neighbour).
struct Expected {
  mpz_class rounded, other;
  bool near_half;
};

Expected expected(const mpz_class& x, std::uint64_t t, const mpz_class& q, double delta) {
  const mpz_class tx = x * t;
  Expected e;
  e.rounded = floor_div(2 * tx + q, 2 * q);
  mpz_class rem;  // frac(t·x/Q) = rem/Q, rem ∈ [0, Q)
  mpz_fdiv_r(rem.get_mpz_t(), tx.get_mpz_t(), q.get_mpz_t());
  e.other = 2 * rem < q ? mpz_class(e.rounded + 1) : mpz_class(e.rounded - 1);
  // |rem/Q − 1/2| ≤ δ  ⟺  |2·rem − Q|·2^60 ≤ 2·Q·⌈δ·2^60⌉ (δ rounded up: the window only widens).
  const mpz_class scale = mpz_class(1) << 60;
  const mpz_class delta_num = static_cast<unsigned long>(std::ceil(std::ldexp(delta, 60)));
  e.near_half = abs(2 * rem - q) * scale <= 2 * q * delta_num;
  return e;
}

/// Whether every output limb holds v mod p_k at coefficient c.
bool holds(const std::vector<std::uint64_t>& out, const RnsBasis& p, std::size_t n, std::size_t c,
           const mpz_class& v) {
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (out[k * n + c] != mpz_fdiv_ui(v.get_mpz_t(), p.prime(k))) return false;
  }
  return true;
}

class ScaleRound : public ::testing::TestWithParam<std::tuple<ScaleCase, PlainKind>> {};

// Random centred x over all of (−QP/2, QP/2], the ends ±(QP − 1)/2, small values, and x placed
// next to the half-integers of t·x/Q: GMP's rounding everywhere except inside the δ-window.
TEST_P(ScaleRound, MatchesGmpExceptNearHalfIntegers) {
  POLYHE_SEEDED_RNG(rng);
  const auto& [sc, kind] = GetParam();
  std::unordered_set<std::uint64_t> used;
  const RnsBasis q(test::random_primes(rng, sc.q_limbs, sc.lo, sc.hi, used));
  const RnsBasis p(test::random_primes(rng, sc.p_limbs, sc.lo, sc.hi, used));
  const std::uint64_t t = make_t(rng, kind);
  const ScaleRounder sr(q, p, t);
  ASSERT_EQ(sr.extended_basis(), RnsBasis::concat(q, p));
  const double delta = sr.exact_error_bound();
  const mpz_class& big_q = big_product(q);
  const mpz_class qp = big_product(sr.extended_basis());
  const mpz_class half = (qp - 1) / 2;  // QP is odd: x_c ∈ [−half, half]
  test::BigRng gmp(rng);

  std::vector<mpz_class> values = {0, 1, -1, big_q - 1, -(big_q - 1), big_q, half, -half};
  for (long j = 1; j < 4; ++j) values.insert(values.end(), {half - j, -half + j});
  const std::size_t randoms = 2000;
  for (std::size_t c = 0; c < randoms; ++c) values.push_back(gmp.get_z_range(qp) - half);
  // Next to a half-integer: x = ⌊(2R + 1)·Q/(2t)⌋ + d puts t·x/Q within t·|d + 1|/Q of R + 1/2.
  for (int rep = 0; rep < 40; ++rep) {
    const mpz_class r = floor_div(mpz_class(gmp.get_z_range(qp) - half) * t, big_q);
    const mpz_class x0 = floor_div((2 * r + 1) * big_q, mpz_class(2 * mpz_class(t)));
    for (long d = -1; d <= 2; ++d) {
      const mpz_class x = x0 + d;
      if (abs(x) <= half) values.push_back(x);
    }
  }
  const std::size_t n = values.size();
  const auto in = test::to_limbs(values, sr.extended_basis());
  std::vector<std::uint64_t> out(p.size() * n);
  sr.round(in, out);

  std::size_t near = 0, near_random = 0, deviations = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const Expected e = expected(values[c], t, big_q, delta);
    for (std::size_t k = 0; k < p.size(); ++k) ASSERT_LT(out[k * n + c], p.prime(k));
    if (holds(out, p, n, c, e.rounded)) {
      near += e.near_half;
      near_random += e.near_half && c >= 14 && c < 14 + randoms;
      continue;
    }
    ASSERT_TRUE(e.near_half) << "coefficient " << c << " t = " << t
                             << " x = " << values[c].get_str() << ": off outside the δ-window";
    EXPECT_TRUE(holds(out, p, n, c, e.other))
        << "coefficient " << c << " x = " << values[c].get_str() << ": not even a neighbour";
    ++near;
    ++deviations;
  }
  // Uniform x land in the window with probability 2δ: a handful at most.
  EXPECT_LE(near_random, 6 + static_cast<std::size_t>(20 * 2 * delta * randoms));
  EXPECT_LE(deviations, near);
  RecordProperty("near_half", static_cast<int>(near));
  RecordProperty("deviations", static_cast<int>(deviations));
}

INSTANTIATE_TEST_SUITE_P(
    Bases, ScaleRound,
    ::testing::Combine(::testing::Values(ScaleCase{1, 1, 30, 30}, ScaleCase{1, 2, 60, 60},
                                         ScaleCase{2, 3, 30, 40}, ScaleCase{3, 4, 50, 60},
                                         ScaleCase{4, 1, 60, 60}, ScaleCase{5, 6, 30, 60},
                                         ScaleCase{6, 7, 61, 62}, ScaleCase{8, 9, 55, 60},
                                         ScaleCase{10, 11, 30, 60}, ScaleCase{8, 9, 40, 50}),
                       ::testing::Values(PlainKind::two, PlainKind::three, PlainKind::f4,
                                         PlainKind::bits20, PlainKind::bits40, PlainKind::bits59,
                                         PlainKind::even)),
    [](const auto& tp) {
      const ScaleCase& s = std::get<0>(tp.param);
      std::string id = std::to_string(s.q_limbs) + "Q" + std::to_string(s.p_limbs) + "P_";
      id += std::to_string(s.lo) + "_" + std::to_string(s.hi) + "bits_";
      return id + name(std::get<1>(tp.param));
    });

// BFV multiplication's RNS chain (HPS §4): c, d ∈ [0, Q) extended to Q ∪ P by
// BaseConverter::convert_exact (centred), multiplied limb-wise, scaled by ScaleRounder into P and
// lifted back to Q by convert_exact: round(t·c_c·d_c/Q) mod Q, c_c and d_c centred.
class HpsChain : public ::testing::TestWithParam<PlainKind> {};

TEST_P(HpsChain, TensorScaleAndLiftEqualsGmp) {
  POLYHE_SEEDED_RNG(rng);
  std::unordered_set<std::uint64_t> used;
  const RnsBasis q(test::random_primes(rng, 4, 45, 55, used));
  const RnsBasis p(test::random_primes(rng, 5, 58, 60, used));
  const std::uint64_t t = make_t(rng, GetParam());
  const ScaleRounder sr(q, p, t);
  const RnsBasis& qp = sr.extended_basis();
  const mpz_class& big_q = big_product(q);
  ASSERT_GT(big_product(p), big_q * t) << "P must exceed t·Q/2 with room for the lift";
  const BaseConverter up(q, p), down(p, q);
  test::BigRng gmp(rng);
  const std::size_t n = 256;
  const auto cv = test::random_values(gmp, big_q, n);
  std::vector<mpz_class> dv = test::random_values(gmp, big_q, n);
  std::reverse(dv.begin(), dv.end());  // pair the edge values with random ones
  const std::size_t lq = q.size(), lp = p.size();
  std::vector<std::size_t> p_limbs(lp);
  std::iota(p_limbs.begin(), p_limbs.end(), lq);
  auto extend = [&](const std::vector<mpz_class>& v) {
    const auto limbs = test::to_limbs(v, q);
    std::vector<std::uint64_t> ext((lq + lp) * n);
    std::copy(limbs.begin(), limbs.end(), ext.begin());
    up.convert_exact(limbs, ext, p_limbs);
    return ext;
  };
  const auto ec = extend(cv);
  const auto ed = extend(dv);
  std::vector<std::uint64_t> prod(ec.size()), scaled(lp * n), lifted(lq * n);
  vec::multiply(ec, ed, prod, qp.moduli());
  sr.round(prod, scaled);
  down.convert_exact(scaled, lifted);
  const auto got = to_bigint(lifted, q);
  // The extension is centred except within Q·δ' of ±Q/2, where convert_exact may lift to the
  // neighbour representative (random_values puts ⌊Q/2⌋ and ⌊Q/2⌋ + 1 there): take the lifts
  // actually made, after checking that they are such representatives.
  const auto xc = to_bigint_centred(ec, qp);
  const auto xd = to_bigint_centred(ed, qp);
  const mpz_class reach = big_q / 2 + 1 + big_q / (mpz_class(1) << 40);
  for (std::size_t c = 0; c < n; ++c) {
    ASSERT_EQ(mpz_class(xc[c] - cv[c]) % big_q, 0);
    ASSERT_EQ(mpz_class(xd[c] - dv[c]) % big_q, 0);
    ASSERT_LE(abs(xc[c]), reach);
    ASSERT_LE(abs(xd[c]), reach);
  }
  std::size_t deviations = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const mpz_class x = xc[c] * xd[c];
    const Expected e = expected(x, t, big_q, sr.exact_error_bound());
    const mpz_class want = e.rounded % big_q;
    if (got[c] == (want < 0 ? mpz_class(want + big_q) : want)) continue;
    ASSERT_TRUE(e.near_half) << "coefficient " << c << " c = " << cv[c].get_str()
                             << " d = " << dv[c].get_str();
    mpz_class other = e.other % big_q;
    if (other < 0) other += big_q;
    EXPECT_EQ(got[c], other);
    ++deviations;
  }
  EXPECT_LE(deviations, 2U);
}

INSTANTIATE_TEST_SUITE_P(PlainModuli, HpsChain,
                         ::testing::Values(PlainKind::two, PlainKind::f4, PlainKind::bits40,
                                           PlainKind::even),
                         [](const auto& tp) { return std::string(name(tp.param)); });

// Many coefficients over threads (the timing shape: 8 primes of Q, 9 of P): every thread count
// gives the single-threaded words.
TEST(ScaleRoundLarge, ThreadedEqualsInline) {
  POLYHE_SEEDED_RNG(rng);
  std::unordered_set<std::uint64_t> used;
  const RnsBasis q(test::random_primes(rng, 8, 50, 60, used));
  const RnsBasis p(test::random_primes(rng, 9, 50, 60, used));
  const ScaleRounder sr(q, p, 65537);
  const RnsBasis& qp = sr.extended_basis();
  const std::size_t n = std::size_t{1} << 12;
  std::vector<std::uint64_t> x(qp.size() * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0, qp.prime(i / n) - 1);
  std::vector<std::uint64_t> ref(p.size() * n), got(ref.size());
  sr.round(x, ref, 1);
  for (unsigned threads : {0U, 2U, 4U}) {
    std::fill(got.begin(), got.end(), 0);
    sr.round(x, got, threads);
    EXPECT_EQ(got, ref) << threads << " threads";
  }
  const std::size_t c = n - 1;
  const Expected e = expected(to_bigint(x, qp, c), 65537, big_product(q), sr.exact_error_bound());
  EXPECT_TRUE(holds(ref, p, n, c, e.rounded) || e.near_half);
}

TEST(ScaleRoundBound, ValueForEightPrimes) {
  const RnsBasis q(std::vector<std::uint64_t>{1073741789ULL});
  const RnsBasis p(std::vector<std::uint64_t>{1152921504606846883ULL});
  EXPECT_DOUBLE_EQ(ScaleRounder(q, p, 2).exact_error_bound(), 9.0 * std::ldexp(1.0, -22));
  test::TestRng rng(11);
  const RnsBasis q8(test::random_primes(rng, 8, 50, 60));
  const ScaleRounder sr(q8, p, 2);
  EXPECT_DOUBLE_EQ(sr.exact_error_bound(), 177.0 * std::ldexp(1.0, -22));  // ≈ 4.2e−5
}

void expect_message(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << needle;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ScaleRoundErrors, NameTheOffendingValue) {
  const std::uint64_t q0 = 1073741789ULL, p0 = 1152921504606846883ULL;
  const RnsBasis q(std::vector<std::uint64_t>{q0});
  const RnsBasis p(std::vector<std::uint64_t>{p0});
  expect_message([&] { ScaleRounder s(q, p, 0); }, "t = 0");
  expect_message([&] { ScaleRounder s(q, p, 1); }, "t = 1");
  expect_message([&] { ScaleRounder s(q, p, std::uint64_t{1} << 60); },
                 "t = " + std::to_string(std::uint64_t{1} << 60));
  const RnsBasis shared(std::vector<std::uint64_t>{p0, q0});
  expect_message([&] { ScaleRounder s(q, shared, 2); }, std::to_string(q0));
  // Q of more than kMaxQPrimes primes cannot be made: a basis holds at most RnsBasis::kMaxPrimes.
  static_assert(RnsBasis::kMaxPrimes <= ScaleRounder::kMaxQPrimes);

  const ScaleRounder sr(q, p, 17);
  std::vector<std::uint64_t> in(8), out(4);
  sr.round(in, out);  // zeros scale to zeros
  EXPECT_EQ(out, std::vector<std::uint64_t>(4, 0));
  std::vector<std::uint64_t> odd(7), short_out(3), empty;
  expect_message([&] { sr.round(odd, out); }, "7 words");
  expect_message([&] { sr.round(empty, out); }, "0 words");
  expect_message([&] { sr.round(in, short_out); }, "3 words");
  expect_message([&] { sr.round(in, std::span<std::uint64_t>(in).subspan(2, 4)); }, "overlap");
}

}  // namespace
}  // namespace polyhe
