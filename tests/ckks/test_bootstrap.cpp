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
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "ckks/fft_stages.hpp"
#include "polyhe/core/error.hpp"

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
  rlwe::Encryptor encryptor;

  explicit Fixture(polyhe::test::TestRng& rng, std::size_t boot_levels)
      : params(make(boot_levels)),
        ctx(Context::create(params, std::ldexp(1.0, 40))),
        keygen(params, test::make_seed(rng)),
        sk(keygen.secret_key()),
        encryptor(sk, test::make_seed(rng)) {}

  // q_0 of 60 bits, two user levels of 40, then the bootstrapping levels of 58 bits (the working
  // scale: the message, 2^40 against q_0·K, keeps ~24 bits above CoeffToSlot's noise); h = 64.
  static rlwe::ParametersPtr make(std::size_t boot_levels) {
    rlwe::ParametersLiteral lit;
    lit.log_n = 10;
    lit.q_bits = {60, 40, 40};
    for (std::size_t i = 0; i < boot_levels; ++i) lit.q_bits.push_back(58);
    lit.p_bits = {60, 60, 60};
    lit.hamming_weight = 64;
    lit.security = rlwe::SecurityLevel::insecure_none;
    return rlwe::Parameters::create(lit);
  }

  Evaluator evaluator(const Bootstrapper& b) {
    const std::vector<std::int64_t> steps = b.rotations();
    return Evaluator(params, rlwe::share(keygen.relinearization_key(sk)),
                     rlwe::share(keygen.rotation_keys(sk, steps, /*conjugation=*/true)));
  }
  Vec decrypt(const Ciphertext& ct) const { return ctx->decode(ckks::decrypt(ct, sk)); }
};

// ModRaise keeps the decryption modulo q_0 and adds q_0·I with I small.
TEST(BootstrapParts, ModRaiseAddsASmallMultipleOfQ0) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng, 4);
  const Evaluator ev(f.params);
  const Ciphertext ct = ckks::encrypt(
      f.encryptor, f.ctx->encode(test::random_values(rng, f.ctx->slots()), std::size_t{1}));
  const Ciphertext raised = mod_raise(ev, ct);
  EXPECT_EQ(raised.level(), f.params->max_level());
  EXPECT_EQ(raised.scale(), ct.scale());
  RnsPoly low = ckks::decrypt(ev.drop_to_level(ct, 0), f.sk).poly;
  RnsPoly high = ckks::decrypt(raised, f.sk).poly;
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
  const Ciphertext low =
      ckks::encrypt(f.encryptor, f.ctx->encode(x, std::size_t{0}, std::ldexp(1.0, 40)));
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

}  // namespace
}  // namespace polyhe::ckks
