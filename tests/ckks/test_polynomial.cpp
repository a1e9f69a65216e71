// Polynomials of encrypted slots (ckks/polynomial.hpp) against the same polynomial in double
// precision: power and Chebyshev series of every degree up to 33, the levels consumed (the
// optimal ⌈log2(d + 1)⌉ with two baby steps, as depth() says for any), the result's scale
// exactly the one asked for and unchanged through evaluations chained level after level, fitted
// series of smooth functions, and the refusals.
#include "polyhe/ckks/polynomial.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::ckks {
namespace {

using test::Vec;

struct Fixture {
  rlwe::ParametersPtr params;
  ContextPtr ctx;
  rlwe::KeyGenerator keygen;
  rlwe::SecretKey sk;
  Evaluator ev;
  Encryptor encryptor;
  Decryptor decryptor;

  explicit Fixture(polyhe::test::TestRng& rng)
      : params(test::make_params({6, {60, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40}, {60}, 0, 40})),
        ctx(Context::create(params)),
        keygen(params, test::make_seed(rng)),
        sk(keygen.secret_key()),
        ev(params, rlwe::share(keygen.relinearization_key(sk))),
        encryptor(ctx->encryptor(sk, test::make_seed(rng))),
        decryptor(ctx->decryptor(sk)) {}

  Ciphertext encrypt(const std::vector<double>& x, std::size_t level) {
    return encryptor.encrypt(ctx->encode(x, level));
  }
  std::vector<double> decrypt(const Ciphertext& ct) const {
    return ctx->decode_real(decryptor.decrypt(ct));
  }
};

std::vector<double> uniform(polyhe::test::TestRng& rng, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng.engine());
  return v;
}

double worst(const std::vector<double>& want, const std::vector<double>& got) {
  double w = 0;
  for (std::size_t i = 0; i < want.size(); ++i) w = std::max(w, std::abs(want[i] - got[i]));
  return w;
}

std::size_t optimal(std::size_t d) {
  return static_cast<std::size_t>(std::bit_width(d));
}

TEST(Polynomial, PowerSeriesOfEveryDegreeInOptimalDepth) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::vector<double> x = uniform(rng, slots, -1, 1);
  const Ciphertext ct = f.encrypt(x, f.params->max_level());
  for (std::size_t d = 0; d <= 33; d += d < 9 ? 1 : 8) {
    PowerSeries p{uniform(rng, d + 1, -1, 1)};
    if (d > 0 && p.coeffs[d] == 0.0) p.coeffs[d] = 0.5;
    const std::size_t levels = depth(p);
    EXPECT_EQ(levels, d == 0 ? 0 : optimal(d)) << "degree " << d;
    const Ciphertext y = evaluate(f.ev, ct, p);
    EXPECT_EQ(y.level(), ct.level() - levels) << "degree " << d;
    EXPECT_EQ(y.scale(), ct.scale()) << "degree " << d;
    std::vector<double> want(slots);
    for (std::size_t i = 0; i < slots; ++i) want[i] = p(x[i]);
    // |p| ≤ d + 1 on [−1, 1]; the noise after ⌈log2 d⌉ products at 2^40 is far below 2^-20.
    EXPECT_LT(worst(want, f.decrypt(y)), std::ldexp(1.0, -20)) << "degree " << d;
  }
}

TEST(Polynomial, ChebyshevSeriesAtEveryBabyStepCount) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::vector<double> x = uniform(rng, slots, -1, 1);
  const Ciphertext ct = f.encrypt(x, f.params->max_level());
  for (const std::size_t d : {1, 2, 3, 5, 7, 8, 15, 16, 31}) {
    ChebyshevSeries p{-1, 1, uniform(rng, d + 1, -1, 1)};
    p.coeffs[d] = 0.75;
    std::vector<double> want(slots);
    for (std::size_t i = 0; i < slots; ++i) want[i] = p(x[i]);
    for (const std::size_t k : {0, 2, 4, 8}) {
      SCOPED_TRACE("degree " + std::to_string(d) + ", baby steps " + std::to_string(k));
      const PolynomialOptions o{0, k};
      const std::size_t levels = depth(p, o);
      if (k <= 2) {
        EXPECT_EQ(levels, optimal(d));
      }
      EXPECT_LE(levels, optimal(d) + 1);
      if (levels > ct.level()) continue;
      const Ciphertext y = evaluate(f.ev, ct, p, o);
      EXPECT_EQ(y.level(), ct.level() - levels);
      EXPECT_EQ(y.scale(), ct.scale());
      EXPECT_LT(worst(want, f.decrypt(y)), std::ldexp(1.0, -18));
    }
  }
}

// The default baby steps: the optimal depth, and the fewest ciphertext products of every k that
// keeps it (counted by hand for degrees 3 and 7; dense series of degree 27 and 145 take 5 and 8
// levels with k up to 8 and 16, and far fewer products than with k = 2).
TEST(Polynomial, TheDefaultBabyStepsTakeTheFewestProductsInTheOptimalDepth) {
  POLYHE_SEEDED_RNG(rng);
  const auto dense = [&](std::size_t d) {
    ChebyshevSeries p{-1, 1, uniform(rng, d + 1, -1, 1)};
    p.coeffs[d] = 0.75;
    return p;
  };
  // Degree 3: T_2, then q·T_2 with q of degree 1. Degree 7: T_2, T_4, q·T_4, and one division by
  // T_2 in each of q and r (degree 3).
  EXPECT_EQ(products(dense(3), {0, 2}), 2u);
  EXPECT_EQ(products(dense(7), {0, 2}), 5u);
  const ChebyshevSeries p27 = dense(27);
  EXPECT_EQ(products(p27, {0, 2}), 17u);
  EXPECT_EQ(products(p27, {0, 4}), 11u);
  EXPECT_EQ(depth(p27, {0, 8}), 5u);
  EXPECT_EQ(depth(p27, {0, 16}), 6u);
  EXPECT_EQ(depth(p27), 5u);
  EXPECT_EQ(products(p27), 11u);
  const ChebyshevSeries p145 = dense(145);
  EXPECT_EQ(depth(p145), 8u);
  EXPECT_EQ(products(p145, {0, 2}), 79u);
  EXPECT_EQ(products(p145), products(p145, {0, 16}));
  EXPECT_LT(products(p145), 30u);
  for (std::size_t d = 1; d <= 70; ++d) {
    const ChebyshevSeries p = dense(d);
    const PowerSeries q{p.coeffs};
    EXPECT_EQ(depth(p), optimal(d)) << d;
    EXPECT_EQ(depth(q), optimal(d)) << d;
    for (std::size_t k = 2; k <= 128; k *= 2) {
      if (depth(p, {0, k}) == optimal(d)) {
        EXPECT_LE(products(p), products(p, {0, k})) << d;
      }
      if (depth(q, {0, k}) == optimal(d)) {
        EXPECT_LE(products(q), products(q, {0, k})) << d;
      }
    }
  }
}

// Fitted series on an interval other than [−1, 1] (one more level, for the affine map): the
// sigmoid on [−8, 8] and exp on [−2, 1]; the fit reproduces a polynomial exactly.
TEST(Polynomial, FittedSeriesOfSmoothFunctions) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  struct Fn {
    const char* name;
    double (*f)(double);
    double a, b;
    std::size_t degree;
    double fit_error;
  };
  const Fn fns[] = {
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, -8, 8, 31, 1e-4},
      {"exp", [](double v) { return std::exp(v); }, -2, 1, 15, 1e-12},
  };
  for (const Fn& fn : fns) {
    SCOPED_TRACE(fn.name);
    const ChebyshevSeries p = ChebyshevSeries::fit(fn.f, fn.a, fn.b, fn.degree);
    const std::vector<double> x = uniform(rng, slots, fn.a, fn.b);
    std::vector<double> want(slots), exact(slots);
    for (std::size_t i = 0; i < slots; ++i) {
      want[i] = p(x[i]);
      exact[i] = fn.f(x[i]);
    }
    EXPECT_LT(worst(exact, want), fn.fit_error);
    EXPECT_EQ(depth(p), optimal(fn.degree) + 1);
    const Ciphertext ct = f.encrypt(x, f.params->max_level());
    const Ciphertext y = evaluate(f.ev, ct, p);
    EXPECT_EQ(y.level(), ct.level() - depth(p));
    EXPECT_EQ(y.scale(), ct.scale());
    EXPECT_LT(worst(want, f.decrypt(y)), std::ldexp(1.0, -18));
  }
  // x³ − x = (T_3 − T_1)/4: the interpolant of a cubic at 4 nodes is the cubic.
  const ChebyshevSeries cubic =
      ChebyshevSeries::fit([](double v) { return v * v * v - v; }, -1, 1, 3);
  ASSERT_EQ(cubic.coeffs.size(), 4u);
  EXPECT_NEAR(cubic.coeffs[0], 0.0, 1e-15);
  EXPECT_NEAR(cubic.coeffs[1], -0.25, 1e-15);
  EXPECT_NEAR(cubic.coeffs[2], 0.0, 1e-15);
  EXPECT_NEAR(cubic.coeffs[3], 0.25, 1e-15);
}

// Evaluations chained until the levels run out: each lands on exactly the scale asked for, so
// the scales do not drift however far the primes are from it; and a scale other than the
// input's is met exactly too.
TEST(Polynomial, ScalesStayExactLevelAfterLevel) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  std::vector<double> x = uniform(rng, slots, -1, 1);
  Ciphertext ct = f.encrypt(x, f.params->max_level());
  const double scale = ct.scale();
  const ChebyshevSeries p{-1, 1, {0.1, 0.6, 0.0, 0.3}};  // maps [−1, 1] into itself
  int rounds = 0;
  while (ct.level() >= depth(p)) {
    ct = evaluate(f.ev, ct, p);
    for (double& v : x) v = p(v);
    ++rounds;
    EXPECT_EQ(ct.scale(), scale) << "round " << rounds;
  }
  EXPECT_EQ(rounds, 5);
  EXPECT_LT(worst(x, f.decrypt(ct)), std::ldexp(1.0, -16));
  const Ciphertext fresh = f.encrypt(x, f.params->max_level());
  const Ciphertext other = evaluate(f.ev, fresh, p, PolynomialOptions{std::ldexp(1.0, 45), 0});
  EXPECT_EQ(other.scale(), std::ldexp(1.0, 45));
}

TEST(Polynomial, ConstantsCostNoLevel) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const Ciphertext ct = f.encrypt(uniform(rng, f.ctx->slots(), -1, 1), 3);
  const Ciphertext y = evaluate(f.ev, ct, PowerSeries{{2.5, 0.0, 0.0}});
  EXPECT_EQ(y.level(), 3u);
  for (const double v : f.decrypt(y)) EXPECT_NEAR(v, 2.5, 1e-6);
  EXPECT_EQ(depth(ChebyshevSeries{-3, 5, {1.0}}), 0u);
  const Ciphertext z = evaluate(f.ev, ct, ChebyshevSeries{-3, 5, {0.0}});
  for (const double v : f.decrypt(z)) EXPECT_NEAR(v, 0.0, 1e-6);
}

// An input whose scale is far below its primes: its powers' scales s²/q collapse, and the
// evaluation says so instead of returning noise.
TEST(Polynomial, AnInputScaleFarBelowItsPrimesIsRefused) {
  POLYHE_SEEDED_RNG(rng);
  const rlwe::ParametersPtr params = test::make_params({6, {60, 58, 58, 58, 58}, {60}, 0, 30});
  const ContextPtr ctx = Context::create(params, std::ldexp(1.0, 30));
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const Evaluator ev(params, rlwe::share(keygen.relinearization_key(sk)));
  const Encryptor enc = ctx->encryptor(sk, test::make_seed(rng));
  const Ciphertext ct = enc.encrypt(ctx->encode(uniform(rng, ctx->slots(), -1, 1)));
  try {
    (void)evaluate(ev, ct, PowerSeries{{0, 0, 0, 1}});
    ADD_FAILURE() << "evaluated";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("the power 2 came out at scale 2^2"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW((void)evaluate(ev, ct, PowerSeries{{0, 0.5}}));  // degree 1: no power
}

TEST(Polynomial, BadInputIsRefusedNamingTheRule) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const Ciphertext ct = f.encrypt(uniform(rng, f.ctx->slots(), -1, 1), 2);
  auto refused = [&](auto&& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const PowerSeries deg3{{0, 1, 0, 1}};
  refused([&] { (void)evaluate(f.ev, ct, PowerSeries{std::vector<double>(9, 1.0)}); },
          "the polynomial takes 4 levels and the ciphertext has 2 left");
  refused([&] { (void)evaluate(f.ev, ct, PowerSeries{}); }, "no coefficient");
  refused(
      [&] {
        (void)evaluate(f.ev, ct, PowerSeries{{1.0, std::nan("")}});
      },
      "coefficient 1 is not finite");
  refused([&] { (void)evaluate(f.ev, ct, PowerSeries{std::vector<double>(kMaxDegree + 2, 1)}); },
          "is above the largest evaluated");
  refused(
      [&] {
        (void)evaluate(f.ev, ct, deg3, PolynomialOptions{0, 3});
      },
      "baby_steps = 3 is not 0 or a power of two");
  refused(
      [&] {
        (void)evaluate(f.ev, ct, deg3, PolynomialOptions{0.5, 0});
      },
      "scale 0.500000 is not a finite number >= 1");
  refused(
      [&] {
        (void)evaluate(f.ev, ct, ChebyshevSeries{1, 1, {0, 1}});
      },
      "the interval [1.000000, 1.000000] is not finite with a < b");
  refused([&] { (void)ChebyshevSeries::fit([](double) { return INFINITY; }, -1, 1, 3); },
          "is not finite");
  refused([&] { (void)ChebyshevSeries::fit([](double v) { return v; }, -1, 1, kMaxDegree + 1); },
          "degree 4097 is above 4096");
  const Ciphertext low = f.encrypt(uniform(rng, f.ctx->slots(), -1, 1), 0);
  refused(
      [&] {
        (void)evaluate(f.ev, low, ChebyshevSeries{0, 2, {0, 1}});
      },
      "the map onto [-1, 1] takes a level and the ciphertext has none");
}

}  // namespace
}  // namespace polyhe::ckks
