// CKKS bootstrapping (ckks/bootstrap.hpp) and its parts: the special FFT's stages in diagonal
// form against the encoder's own transform, ModRaise against the decryption it must keep modulo
// q_0, and whole bootstraps with either EvalMod against the slots they started from — the level
// and scale they land on, the precision, a product after them, and the refusals. N = 2^10 with a
// sparse secret (h = 64), insecure parameters for speed. Measured there: 18.5 bits with the
// Chebyshev EvalMod (degree 255), 17.2 with the double angles (degree 63, r = 3).
#include "polyhe/ckks/bootstrap.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <tuple>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "ckks/fft_stages.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::ckks {
namespace {

using test::Vec;
using Complex = std::complex<double>;

Vec times(const Diagonals& d, const Vec& x) {
  const std::size_t n = x.size();
  Vec y(n, 0.0);
  for (const auto& [k, v] : d) {
    for (std::size_t j = 0; j < n; ++j) y[j] += v[j] * x[(j + k) % n];
  }
  return y;
}

Vec bit_reversed(const Vec& x) {
  const std::size_t n = x.size();
  const int bits = std::countr_zero(n);
  Vec y(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = 0;
    for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1U) << (bits - 1 - b);
    y[r] = x[i];
  }
  return y;
}

double worst(const Vec& a, const Vec& b) {
  double w = 0;
  for (std::size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]));
  return w;
}

// The stages, merged into any number of groups, are the encoder's special FFT without its bit
// reversal, both ways.
TEST(BootstrapParts, FftStagesAreTheEncodersTransform) {
  POLYHE_SEEDED_RNG(rng);
  for (const int log_n : {4, 7, 10}) {
    const rlwe::ParametersPtr params = test::make_params({log_n, {50, 40}, {50}, 0, 40});
    const Encoder encoder(params->ring());
    const std::size_t n = encoder.slots();
    const Vec w = test::random_values(rng, n);
    Vec z = w;
    encoder.special_fft(z);
    Vec back = z;
    encoder.special_ifft(back);
    const auto log_slots = static_cast<std::size_t>(std::countr_zero(n));
    for (std::size_t groups = 1; groups <= log_slots; ++groups) {
      SCOPED_TRACE("N = 2^" + std::to_string(log_n) + ", " + std::to_string(groups) + " groups");
      Vec x = bit_reversed(w);
      for (const Diagonals& g : detail::fft_groups(n, groups, false)) x = times(g, x);
      EXPECT_LT(worst(x, z), 1e-9);  // S_{n/2}···S_1·BR(w) = F·w
      Vec y = z;
      for (const Diagonals& g : detail::fft_groups(n, groups, true)) y = times(g, y);
      for (Complex& v : y) v /= static_cast<double>(n);
      EXPECT_LT(worst(y, bit_reversed(back)), 1e-9);  // S'_1···S'_{n/2}·z/n = BR(F⁻¹z)
      // Each group has at most 2^(stages + 1) − 1 diagonals.
      for (const Diagonals& g : detail::fft_groups(n, groups, true)) {
        EXPECT_LE(g.size(), (std::size_t{2} << ((log_slots + groups - 1) / groups)) - 1);
      }
    }
  }
}

struct Fixture {
  rlwe::ParametersPtr params;
  ContextPtr ctx;
  rlwe::KeyGenerator keygen;
  rlwe::SecretKey sk;
  Encryptor encryptor;
  Decryptor decryptor;

  explicit Fixture(polyhe::test::TestRng& rng, std::size_t boot_levels, std::size_t weight = 64)
      : params(make(boot_levels, weight)),
        ctx(Context::create(params, std::ldexp(1.0, 40))),
        keygen(params, test::make_seed(rng)),
        sk(keygen.secret_key()),
        encryptor(ctx->encryptor(sk, test::make_seed(rng))),
        decryptor(ctx->decryptor(sk)) {}

  // q_0 of 60 bits, two user levels of 40, then the bootstrapping levels of 58 bits (the working
  // scale: the message, 2^40 against q_0·K, keeps ~24 bits above CoeffToSlot's noise); h = 64
  // unless said (0: a uniform ternary secret).
  static rlwe::ParametersPtr make(std::size_t boot_levels, std::size_t weight) {
    rlwe::ParametersLiteral lit;
    lit.log_n = 10;
    lit.q_bits = {60, 40, 40};
    for (std::size_t i = 0; i < boot_levels; ++i) lit.q_bits.push_back(58);
    lit.p_bits = {60, 60, 60};
    lit.hamming_weight = weight;
    lit.security = rlwe::SecurityLevel::insecure_none;
    return rlwe::Parameters::create(lit);
  }

  Evaluator evaluator(const Bootstrapper& b) {
    const std::vector<std::int64_t> steps = b.rotations();
    return Evaluator(params, rlwe::share(keygen.relinearization_key(sk)),
                     rlwe::share(keygen.rotation_keys(sk, steps, /*conjugation=*/true)));
  }
  Vec decrypt(const Ciphertext& ct) const { return ctx->decode(decryptor.decrypt(ct)); }
};

// ModRaise keeps the decryption modulo q_0 and adds q_0·I with I small.
TEST(BootstrapParts, ModRaiseAddsASmallMultipleOfQ0) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 4);
  const Evaluator ev(f.params);
  const Ciphertext ct =
      f.encryptor.encrypt(f.ctx->encode(test::random_values(rng, f.ctx->slots()), std::size_t{1}));
  const Ciphertext raised = mod_raise(ev, ct);
  EXPECT_EQ(raised.level(), f.params->max_level());
  EXPECT_EQ(raised.scale(), ct.scale());
  RnsPoly low = f.decryptor.decrypt(ev.drop_to_level(ct, 0)).poly;
  RnsPoly high = f.decryptor.decrypt(raised).poly;
  low.to_coefficient();
  high.to_coefficient();
  const std::uint64_t q0 = f.params->q_primes()[0];
  const std::uint64_t q1 = f.params->q_primes()[1];
  std::int64_t largest = 0;
  for (std::size_t j = 0; j < f.params->n(); ++j) {
    ASSERT_EQ(high.limb(0)[j], low.limb(0)[j]) << j;  // the same modulo q_0
    // Limb 1 holds t mod q_1 for t = m + q_0·I: (t − centred m)/q_0 mod q_1 is I.
    const std::uint64_t m = low.limb(0)[j];
    const std::int64_t centred =
        m > q0 / 2 ? static_cast<std::int64_t>(m - q0) : static_cast<std::int64_t>(m);
    const unsigned __int128 t = high.limb(1)[j];
    const std::int64_t m1 = centred % static_cast<std::int64_t>(q1);
    const unsigned __int128 diff =
        (t + q1 - static_cast<std::uint64_t>(m1 < 0 ? m1 + static_cast<std::int64_t>(q1) : m1)) %
        q1;
    // diff = q_0·I mod q_1: find the small I.
    bool found = false;
    for (std::int64_t i = -40; i <= 40 && !found; ++i) {
      const auto want = static_cast<unsigned __int128>(
          ((static_cast<__int128>(i) * static_cast<__int128>(q0)) % q1 + q1) % q1);
      if (want == diff) {
        found = true;
        largest = std::max(largest, std::abs(i));
      }
    }
    ASSERT_TRUE(found) << "coefficient " << j << ": |I| > 40";
  }
  EXPECT_LE(largest, 16);  // h = 64: σ ≈ 2.3
  EXPECT_GT(largest, 0);
}

class Bootstrap : public ::testing::TestWithParam<EvalMod> {};

TEST_P(Bootstrap, RefreshesTheSlotsAtTheInputsScale) {
  POLYHE_SEEDED_RNG(rng);
  BootstrapConfig config;
  config.eval_mod = GetParam();
  config.k = 16;
  const std::size_t boot_levels = GetParam() == EvalMod::chebyshev ? 12 : 13;
  Fixture f(rng, boot_levels);
  const Bootstrapper boot(*f.ctx, config);
  EXPECT_EQ(boot.depth(), boot_levels);
  EXPECT_EQ(boot.levels_after(), 2u);
  const Evaluator ev = f.evaluator(boot);
  const Vec x = test::random_values(rng, f.ctx->slots());
  // A ciphertext at the bottom, as a computation leaves it.
  const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 40)));
  const Ciphertext fresh = boot.bootstrap(ev, low);
  EXPECT_EQ(fresh.level(), boot.levels_after());
  EXPECT_EQ(fresh.scale(), low.scale());
  const double bits = test::precision_bits(x, f.decrypt(fresh));
  EXPECT_GT(bits, 14.0) << "precision " << bits << " bits";
  // It computes on: a product and a rescale, against the product of the slots.
  const Ciphertext sq = ev.rescale(ev.multiply_relin(fresh, fresh));
  Vec x2(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x2[i] = x[i] * x[i];
  EXPECT_GT(test::precision_bits(x2, f.decrypt(sq)), bits - 2);
  // Bootstrapping again refreshes the refreshed one.
  const Ciphertext again = boot.bootstrap(ev, ev.drop_to_level(fresh, 0));
  EXPECT_GT(test::precision_bits(x, f.decrypt(again)), bits - 2);
}

INSTANTIATE_TEST_SUITE_P(EvalMods, Bootstrap,
                         ::testing::Values(EvalMod::chebyshev, EvalMod::double_angle),
                         [](const auto& param) {
                           return param.param == EvalMod::chebyshev ? "Chebyshev" : "DoubleAngle";
                         });

// EvalMod's degree (sine_degree = 0): the first 2^j − 1 that fits fixes the depth, the smallest
// degree within a bit of its error is used. Fewer products, the same depth, and no precision lost
// against 2^j − 1 itself; a degree that merely meets 2^−40 (140 for this sine) lost five bits.
TEST(BootstrapEvalMod, TheChosenDegreeIsShorterAndLosesNoPrecision) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 13);
  const Vec x = test::random_values(rng, f.ctx->slots());
  const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 40)));
  for (const auto& [method, full, below] :
       {std::tuple{EvalMod::chebyshev, std::size_t{255}, std::size_t{128}},
        std::tuple{EvalMod::double_angle, std::size_t{31}, std::size_t{16}}}) {
    SCOPED_TRACE(method == EvalMod::chebyshev ? "Chebyshev sine" : "double angles");
    BootstrapConfig config;
    config.eval_mod = method;
    const Bootstrapper chosen(*f.ctx, config);
    config.sine_degree = full;
    const Bootstrapper reference(*f.ctx, config);
    EXPECT_LT(chosen.sine_degree(), full);
    EXPECT_GE(chosen.sine_degree(), below);
    EXPECT_EQ(reference.sine_degree(), full);
    EXPECT_EQ(chosen.depth(), reference.depth());
    const Evaluator ev = f.evaluator(chosen);
    const double got = test::precision_bits(x, f.decrypt(chosen.bootstrap(ev, low)));
    const double ref = test::precision_bits(x, f.decrypt(reference.bootstrap(ev, low)));
    EXPECT_GT(got, ref - 1.0) << "degree " << chosen.sine_degree() << ": " << got
                              << " bits, degree " << full << ": " << ref;
  }
}

TEST(BootstrapParts, BadConfigurationsAreRefusedNamingTheRule) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 6);
  auto refused = [&](const BootstrapConfig& c, const std::string& needle) {
    try {
      (void)Bootstrapper(*f.ctx, c);
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  BootstrapConfig c;
  refused(c,
          "bootstrapping takes 12 levels (CoeffToSlot 2, EvalMod 8, SlotToCoeff 2) and the "
          "parameters have L = 8");
  c.coeff_to_slot_levels = 0;
  refused(c, "coeff_to_slot_levels = 0 is outside [1, log2(N/2) = 9]");
  c.coeff_to_slot_levels = 10;
  refused(c, "coeff_to_slot_levels = 10");
  c = {};
  c.k = 0.5;
  refused(c, "K = 0.500000 is outside [1, 2^20]");
  c = {};
  c.eval_mod = EvalMod::double_angle;
  c.double_angles = 0;
  refused(c, "double_angles = 0 is outside [1, 10]");
}

// Two iterations (META-BTS): the first bootstrap's error, times 2^p at level 0, is bootstrapped
// and subtracted at 2^−p. Against the input's own decryption (what a bootstrap keeps) the error
// falls from about 2^−19 to that of the input's noise and the rescales, for one more level; the
// estimated p is 31 + 1.5·4 − ρ' − 2 = 15 bits here (ρ' = log2(q_0/Δ) = 20).
TEST(BootstrapIterations, ASecondIterationDoublesTheBitsForOneLevel) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 12);
  BootstrapConfig config;
  const Bootstrapper once(*f.ctx, config);
  config.iterations = 2;
  const Bootstrapper twice(*f.ctx, config);
  EXPECT_EQ(once.iteration_precision_bits(), 0);
  EXPECT_EQ(twice.iteration_precision_bits(), 15);
  EXPECT_EQ(twice.depth(), once.depth() + 1);
  EXPECT_EQ(twice.levels_after(), 1u);
  EXPECT_EQ(Bootstrapper::depth_for(f.params, config), twice.depth());
  const Evaluator ev = f.evaluator(twice);
  const Vec x = test::random_values(rng, f.ctx->slots());
  const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 40)));
  const Vec kept = f.decrypt(low);  // the input's slots with its noise
  const Ciphertext one = once.bootstrap(ev, low);
  const Ciphertext two = twice.bootstrap(ev, low);
  EXPECT_EQ(two.level(), twice.levels_after());
  EXPECT_EQ(two.scale(), low.scale());
  const double bits_one = test::precision_bits(kept, f.decrypt(one));
  const double bits_two = test::precision_bits(kept, f.decrypt(two));
  EXPECT_GT(bits_two, bits_one + 8.0) << bits_one << " -> " << bits_two << " bits";
  EXPECT_GT(bits_two, 28.0);
  // Against the values themselves it is then the input's noise that is left.
  EXPECT_GT(test::precision_bits(x, f.decrypt(two)),
            std::min(test::precision_bits(x, kept), bits_two) - 1.0);
  // A given p is used as given; a ciphertext above level 0 is dropped first.
  config.iteration_precision_bits = 12;
  const Bootstrapper given(*f.ctx, config);
  EXPECT_EQ(given.iteration_precision_bits(), 12);
  const Ciphertext high = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{2}));
  const Ciphertext three = given.bootstrap(ev, high);
  EXPECT_GT(test::precision_bits(f.decrypt(ev.drop_to_level(high, 0)), f.decrypt(three)),
            bits_one + 6.0);
  // The rules, by name.
  for (const auto& [iterations, p, needle] :
       {std::tuple{std::size_t{0}, 0, "iterations = 0 is neither 1 nor 2"},
        std::tuple{std::size_t{3}, 0, "iterations = 3 is neither 1 nor 2"},
        std::tuple{std::size_t{2}, -1, "iteration_precision_bits = -1 is outside [0, 40]"},
        std::tuple{std::size_t{2}, 41, "iteration_precision_bits = 41 is outside [0, 40]"}}) {
    BootstrapConfig bad;
    bad.iterations = iterations;
    bad.iteration_precision_bits = p;
    try {
      (void)Bootstrapper(*f.ctx, bad);
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  Fixture tight(rng, 11);
  config.iteration_precision_bits = 0;
  try {
    (void)Bootstrapper(*tight.ctx, config);
    ADD_FAILURE() << "a second iteration without its level was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("SlotToCoeff 2, the second iteration 1) and the "
                                         "parameters have L = 13"),
              std::string::npos)
        << e.what();
  }
}

// The message ratio: the input multiplied by 2^b before ModRaise puts the bootstrap's own noise
// 2^b further below the message, while EvalMod's sine misses a coefficient m by a relative
// (2π·m/q_0)²/6: spread-out slots (coefficients about Δ/√N) gain about b bits, and a constant
// vector (one coefficient as large as q_0/2^ρ) keeps about 2ρ − 3.3 of them.
TEST(BootstrapMessageRatio, ScalesTheInputAndTradesNoiseForTheSinesError) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 13);
  BootstrapConfig config;
  config.eval_mod = EvalMod::double_angle;
  const Bootstrapper plain(*f.ctx, config);
  EXPECT_EQ(plain.input_scaling_bits(), 0);
  config.message_ratio_bits = 8;
  const Bootstrapper scaled(*f.ctx, config);
  const double q0_bits = std::log2(static_cast<double>(f.params->q_primes()[0]));
  EXPECT_EQ(scaled.input_scaling_bits(), static_cast<int>(std::floor(q0_bits - 40 - 8)));
  EXPECT_EQ(scaled.rotations(), plain.rotations());
  EXPECT_EQ(scaled.depth(), plain.depth());
  const Evaluator ev = f.evaluator(plain);
  const auto refreshed_bits = [&](const Bootstrapper& b, const Vec& x, double scale) {
    const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, scale));
    const Ciphertext fresh = b.bootstrap(ev, low);
    EXPECT_EQ(fresh.scale(), low.scale());
    return test::precision_bits(x, f.decrypt(fresh));
  };
  const Vec x = test::random_values(rng, f.ctx->slots());
  const double before = refreshed_bits(plain, x, std::ldexp(1.0, 40));
  const double after = refreshed_bits(scaled, x, std::ldexp(1.0, 40));
  EXPECT_GT(after, before + 4.0) << "precision " << before << " -> " << after << " bits";
  // A constant vector: its one coefficient, Δ before the scaling, is q_0/2^ρ' after it
  // (ρ' = log2(q_0/Δ) − b, in [8, 9)), so the sine's relative error (2π/2^ρ')²/6 sets its
  // precision, 2ρ' − 2.7 bits.
  const Vec ones(f.ctx->slots(), Complex(1.0, 0.0));
  const double constant = refreshed_bits(scaled, ones, std::ldexp(1.0, 40));
  const double rho = q0_bits - 40 - scaled.input_scaling_bits();
  EXPECT_NEAR(constant, 2 * rho - 2.7, 0.5)
      << "rho' = " << rho << ", before " << before << ", after " << after;
  EXPECT_GT(refreshed_bits(plain, ones, std::ldexp(1.0, 40)), before - 2.0);
  // A ciphertext at a larger scale than the context's would leave q_0/m below the ratio: refused.
  const Ciphertext big = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 46)));
  try {
    (void)scaled.bootstrap(ev, big);
    ADD_FAILURE() << "a ciphertext at 2^46 was bootstrapped with a ratio made for 2^40";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("under the message ratio 2^8.0"), std::string::npos)
        << e.what();
  }
  for (const double bad : {0.5, -3.0, 63.0}) {
    config.message_ratio_bits = bad;
    try {
      (void)Bootstrapper(*f.ctx, config);
      ADD_FAILURE() << "message_ratio_bits = " << bad << " was accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("is neither 0 (no input scaling) nor in [1, 62]"),
                std::string::npos)
          << e.what();
    }
  }
}

// The arcsine after EvalMod: at a small message ratio (ρ' just under 7) the sine alone leaves a
// constant vector 2ρ' − 2.7 ≈ 11.3 bits; arcsin's series of degree 3 (two levels more) leaves
// 4ρ' − 6.9 ≈ 21, and spread-out slots lose nothing. Both EvalMods.
TEST(BootstrapMessageRatio, TheArcsineLiftsTheConstantVectorsBound) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 15);
  const Vec ones(f.ctx->slots(), Complex(1.0, 0.0));
  const Vec x = test::random_values(rng, f.ctx->slots());
  for (const EvalMod method : {EvalMod::double_angle, EvalMod::chebyshev}) {
    SCOPED_TRACE(method == EvalMod::chebyshev ? "chebyshev" : "double_angle");
    BootstrapConfig config;
    config.eval_mod = method;
    config.message_ratio_bits = 6;
    const Bootstrapper sine(*f.ctx, config);
    config.arcsine_degree = 3;
    const Bootstrapper arcsine(*f.ctx, config);
    EXPECT_EQ(arcsine.depth(), sine.depth() + 2);
    const double rho =
        std::log2(static_cast<double>(f.params->q_primes()[0])) - 40 - arcsine.input_scaling_bits();
    const Evaluator ev = f.evaluator(sine);
    const auto refreshed_bits = [&](const Bootstrapper& b, const Vec& v) {
      const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(v, std::size_t{0}));
      const Ciphertext fresh = b.bootstrap(ev, low);
      EXPECT_EQ(fresh.level(), b.levels_after());
      return test::precision_bits(v, f.decrypt(fresh));
    };
    const double constant_sine = refreshed_bits(sine, ones);
    const double constant_arcsine = refreshed_bits(arcsine, ones);
    EXPECT_NEAR(constant_sine, 2 * rho - 2.7, 0.5) << "rho' = " << rho;
    EXPECT_NEAR(constant_arcsine, 4 * rho - 6.9, 1.0) << "rho' = " << rho;
    EXPECT_GT(refreshed_bits(arcsine, x), refreshed_bits(sine, x) - 1.0);
  }
  BootstrapConfig bad;
  bad.eval_mod = EvalMod::double_angle;
  for (const std::size_t degree : {1, 2, 4, 17}) {
    bad.arcsine_degree = degree;
    try {
      (void)Bootstrapper(*f.ctx, bad);
      ADD_FAILURE() << "arcsine_degree = " << degree << " was accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("is neither 0 (no correction) nor odd in [3, 15]"),
                std::string::npos)
          << e.what();
    }
  }
}

// A uniform ternary secret: ModRaise's I has σ ≈ 7.5 at N = 2^10, beyond K = 16, so the plain
// bootstrapper is refused; with an ephemeral secret of weight 32 the ciphertext is raised under it
// and comes back under the dense secret with the slots it had.
TEST(BootstrapEncapsulation, RefreshesUnderADenseSecret) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 13, /*weight=*/0);
  BootstrapConfig config;
  config.eval_mod = EvalMod::double_angle;
  try {
    (void)Bootstrapper(*f.ctx, config);
    ADD_FAILURE() << "a dense secret without encapsulation was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("is below 6σ = 45.2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("set encapsulation_weight"), std::string::npos)
        << e.what();
  }
  config.encapsulation_weight = 32;
  const Bootstrapper boot(*f.ctx, config);
  ASSERT_NE(boot.encapsulation_parameters(), nullptr);
  const rlwe::Parameters& small = *boot.encapsulation_parameters();
  EXPECT_EQ(small.q_primes(), std::vector<std::uint64_t>{f.params->q_primes()[0]});
  EXPECT_EQ(small.p_primes().size(), 1u);  // one 60-bit special prime covers the 60-bit q_0
  EXPECT_EQ(small.hamming_weight(), 32u);
  BootstrapKeys keys = boot.generate_keys(f.keygen, f.sk);
  ASSERT_TRUE(keys.encapsulation.has_value());
  const Evaluator ev(f.params, rlwe::share(f.keygen.relinearization_key(f.sk)),
                     rlwe::share(std::move(keys.galois)));
  const Vec x = test::random_values(rng, f.ctx->slots());
  const Ciphertext low = f.encryptor.encrypt(f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 40)));
  const Ciphertext fresh = boot.bootstrap(ev, low, *keys.encapsulation);
  EXPECT_EQ(fresh.level(), boot.levels_after());
  EXPECT_EQ(fresh.scale(), low.scale());
  const double bits = test::precision_bits(x, f.decrypt(fresh));
  EXPECT_GT(bits, 14.0) << "precision " << bits << " bits";
  // The keys serialise like every key and the loaded ones give the same words.
  const EncapsulationKeys loaded{
      rlwe::load_key_switch_key(rlwe::serialize(keys.encapsulation->to_sparse),
                                boot.encapsulation_parameters()),
      rlwe::load_key_switch_key(rlwe::serialize(keys.encapsulation->to_dense), f.params)};
  const Ciphertext again = boot.bootstrap(ev, low, loaded);
  for (std::size_t part = 0; part < 2; ++part) {
    EXPECT_TRUE(std::equal(again[part].data().begin(), again[part].data().end(),
                           fresh[part].data().begin()))
        << "part " << part;
  }
  // Without its keys, or keys for a bootstrapper that does not encapsulate: refused by name.
  try {
    (void)boot.bootstrap(ev, low);
    ADD_FAILURE() << "bootstrap without the encapsulation keys was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("pass its EncapsulationKeys"), std::string::npos)
        << e.what();
  }
  // Keys of another set are refused.
  Fixture other(rng, 13, 0);
  const Bootstrapper other_boot(*other.ctx, config);
  const EncapsulationKeys foreign = other_boot.encapsulation_keys(other.keygen, other.sk);
  EXPECT_THROW((void)boot.bootstrap(ev, low, foreign), MismatchedContext);
}

TEST(BootstrapEncapsulation, KeysForABootstrapperWithoutItAreRefused) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 13);
  BootstrapConfig config;
  config.eval_mod = EvalMod::double_angle;
  const Bootstrapper plain(*f.ctx, config);
  EXPECT_EQ(plain.encapsulation_parameters(), nullptr);
  EXPECT_THROW((void)plain.encapsulation_keys(f.keygen, f.sk), InvalidParameter);
  config.encapsulation_weight = 32;
  const Bootstrapper boot(*f.ctx, config);
  const EncapsulationKeys keys = boot.encapsulation_keys(f.keygen, f.sk);
  const Evaluator ev(f.params);
  const Ciphertext low =
      f.encryptor.encrypt(f.ctx->encode(test::random_values(rng, f.ctx->slots()), std::size_t{0}));
  try {
    (void)plain.bootstrap(ev, low, keys);
    ADD_FAILURE() << "encapsulation keys were accepted by a plain bootstrapper";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("without encapsulation"), std::string::npos) << e.what();
  }
}

// The rule K ≥ 6σ, and the security claims encapsulation may make: 128 bits where Bossuat et
// al.'s estimates cover the sparse key at q_0·P' (N = 2^15 and 2^16, h' ≥ 32, bounded modulus).
TEST(BootstrapEncapsulation, ClaimsAndBoundsAreCheckedNamingTheRule) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 13);
  BootstrapConfig c;
  c.k = 10;  // h = 64: 6σ ≈ 14.0
  try {
    (void)Bootstrapper(*f.ctx, c);
    ADD_FAILURE() << "K below 6σ was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("K = 10.000000 is below 6σ = 13.96"), std::string::npos)
        << e.what();
  }
  c = {};
  c.encapsulation_weight = 4096;
  EXPECT_THROW((void)Bootstrapper(*f.ctx, c), InvalidParameter);  // above N
  auto claimed = [](int log_n, std::vector<int> q_bits, std::vector<int> p_bits) {
    rlwe::ParametersLiteral lit;
    lit.log_n = log_n;
    lit.q_bits = std::move(q_bits);
    lit.p_bits = std::move(p_bits);
    return Context::create(rlwe::Parameters::create(lit), std::ldexp(1.0, 40));
  };
  auto insecure = [](const ContextPtr& ctx, std::size_t weight, const std::string& needle) {
    BootstrapConfig config;
    config.encapsulation_weight = weight;
    try {
      (void)Bootstrapper(*ctx, config);
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const InsecureParameters& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // Thirteen levels above q_0 (the default bootstrap takes twelve), within the table's bound.
  auto chain = [](int bits) {
    std::vector<int> q(14, bits);
    q[0] = 60;
    return q;
  };
  // N = 2^14 at 128 bits (log2(QP) = 60 + 13·24 + 60 <= 438): no estimate for the sparse key.
  insecure(claimed(14, chain(24), {60}), 32, "N = 16384, and the parameters claim 128");
  // N = 2^15: a weight below 32, and q_0·P' of 60 + 2·50 bits above the 152-bit bound.
  insecure(claimed(15, chain(40), {60}), 16, "h' = 16");
  insecure(claimed(15, chain(40), {50, 50}), 32, "log2(q_0·P') = 160 bits");
}

}  // namespace
}  // namespace polyhe::ckks
