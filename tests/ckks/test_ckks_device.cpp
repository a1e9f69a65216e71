// CKKS on a device against CKKS on the CPU, word for word: the same keys (moved to the device),
// the same encryption seeds, every evaluator operation run on both, and every ciphertext the
// device makes equal to the CPU's in every word, level and scale; decryption and decoding of the
// device's results meet the same precision bars as the CPU suite. Built twice: against the
// emulated device (the CUDA kernel bodies run on the host; label unit, in CI) and, with CUDA,
// against the GPU (label gpu).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/bootstrap.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/ckks/linear_transform.hpp"
#include "polyhe/ckks/polynomial.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rlwe/serial.hpp"
#include "support/test_device.hpp"
#include "support/twin.hpp"

namespace polyhe::ckks {
namespace {

using test::Case;
using test::Vec;

using polyhe::test::expect_same;

struct Keys {
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey rlk;
  rlwe::GaloisKeys gks;
  Keys to_device(const std::shared_ptr<Device>& dev) const {
    return Keys{sk.to_device(dev), pk.to_device(dev), rlk.to_device(dev), gks.to_device(dev)};
  }
};

class CkksDevice : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    params = test::make_params(GetParam());
    scale = std::ldexp(1.0, GetParam().scale_bits);
  }
  Keys make_keys(polyhe::test::TestRng& rng, const std::vector<std::int64_t>& steps) const {
    rlwe::KeyGenerator keygen(params, test::make_seed(rng));
    rlwe::SecretKey sk = keygen.secret_key();
    rlwe::PublicKey pk = keygen.public_key(sk);
    rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
    rlwe::GaloisKeys gks = keygen.rotation_keys(sk, steps, /*conjugation=*/true);
    return Keys{std::move(sk), std::move(pk), std::move(rlk), std::move(gks)};
  }
  rlwe::ParametersPtr params;
  double scale = 0;
};

// Encoding into a device polynomial: the device reduces the rounded coefficients and transforms
// them. The CPU's words at the case's scale, with coefficients beyond some and beyond every prime
// (reduced on the device from their int64 form), and beyond 2^63 (residues made on the host), at
// the top level and at level 1.
TEST_P(CkksDevice, EncodingOnTheDeviceGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const std::size_t slots = params->n() / 2;
  Encoder encoder(params->ring());
  const Vec x = test::random_values(rng, slots);
  int tried_beyond_2p63 = 0;
  for (const std::size_t level : {params->max_level(), std::size_t{1}}) {
    int q_bits = 0;
    for (std::size_t i = 0; i <= level; ++i) {
      q_bits += static_cast<int>(std::bit_width(params->q_basis().prime(i)));
    }
    // 2^58: coefficients beyond the 40-bit primes, below the 60-bit ones; 2^62: beyond every
    // prime, below 2^63 (|special_ifft(values)| ≤ 1 for values in the unit disc).
    for (const int s_bits : {GetParam().scale_bits, 58, 62, 70}) {
      if (s_bits + 4 > q_bits - 2) continue;  // the coefficients must stay below Q/2
      tried_beyond_2p63 += s_bits == 70 ? 1 : 0;
      const double s = std::ldexp(1.0, s_bits);
      const std::string what =
          "level " + std::to_string(level) + ", scale 2^" + std::to_string(s_bits);
      RnsPoly h(params->ring(), level + 1, PolyForm::kEvaluation);
      RnsPoly d(params->ring(), level + 1, PolyForm::kEvaluation, dev);
      encoder.encode(x, s, h);
      encoder.encode(x, s, d);
      ASSERT_EQ(d.device(), dev) << what;
      EXPECT_EQ(d.form(), PolyForm::kEvaluation) << what;
      EXPECT_EQ(polyhe::test::words_of(d), polyhe::test::words_of(h)) << what;
    }
  }
  EXPECT_GT(tried_beyond_2p63, 0) << "no case reached the host-residue fallback";
}

TEST_P(CkksDevice, EveryOperationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const double slack = std::max(0, GetParam().log_n - 13);
  const std::size_t slots = params->n() / 2;
  const std::size_t top = params->max_level();
  std::vector<std::int64_t> steps;
  for (std::size_t s = 1; s < slots; s *= 2) steps.push_back(static_cast<std::int64_t>(s));
  steps.push_back(static_cast<std::int64_t>(rng.uniform(1, slots - 1)));
  steps.push_back(-3);
  const Keys host = make_keys(rng, steps);
  const Keys device = host.to_device(dev);
  ASSERT_EQ(device.sk.device(), dev);
  ASSERT_EQ(device.rlk.device(), dev);
  const ContextPtr ctx = Context::create(params, scale);
  const Evaluator he(params, rlwe::share(host.rlk), rlwe::share(host.gks));
  const Evaluator de(params, rlwe::share(device.rlk), rlwe::share(device.gks));
  const Seed pk_seed = test::make_seed(rng), sk_seed = test::make_seed(rng);
  const Encryptor h_pk = ctx->encryptor(host.pk, pk_seed),
                  d_pk = ctx->encryptor(device.pk, pk_seed);
  const Encryptor h_sk = ctx->encryptor(host.sk, sk_seed),
                  d_sk = ctx->encryptor(device.sk, sk_seed);
  const Decryptor h_dec = ctx->decryptor(host.sk), d_dec = ctx->decryptor(device.sk);

  const Vec x = test::random_values(rng, slots);
  const Vec y = test::random_values(rng, slots);
  const Plaintext px = ctx->encode(x, top, scale);
  const Plaintext py = ctx->encode(y, top, scale);
  const Plaintext py_dev = py.to_device(dev);

  // Public-key encryption of a host plaintext (uploaded by the encryptor), symmetric encryption
  // of a device plaintext.
  const Ciphertext hx = h_pk.encrypt(px), dx = d_pk.encrypt(px);
  expect_same(hx, dx, "public-key encrypt");
  const Ciphertext hy = h_sk.encrypt(py), dy = d_sk.encrypt(py_dev);
  expect_same(hy, dy, "symmetric encrypt");
  expect_same(h_sk.rlwe_encryptor().encrypt_zero(1), d_sk.rlwe_encryptor().encrypt_zero(1),
              "encrypt_zero");
  // Serialising a device object writes the host object's bytes.
  EXPECT_EQ(rlwe::serialize(dx), rlwe::serialize(hx));
  EXPECT_EQ(rlwe::serialize(dy), rlwe::serialize(hy)) << "seeded, half size";
  EXPECT_EQ(rlwe::serialize(device.rlk), rlwe::serialize(host.rlk));
  EXPECT_EQ(rlwe::serialize(device.pk), rlwe::serialize(host.pk));

  // Decryption on the device gives the CPU's plaintext words; decoding reads them back.
  const Plaintext dec = d_dec.decrypt(dx);
  ASSERT_EQ(dec.poly.device(), dev);
  EXPECT_EQ(polyhe::test::words_of(dec.poly), polyhe::test::words_of(h_dec.decrypt(hx).poly));
  EXPECT_GE(test::precision_bits(x, ctx->decode(dec)), 25.0 - slack);

  const std::complex<double> c(0.25, -0.75);
  expect_same(he.add(hx, hy), de.add(dx, dy), "add");
  expect_same(he.sub(hx, hy), de.sub(dx, dy), "sub");
  expect_same(he.negate(hx), de.negate(dx), "negate");
  expect_same(he.add_plain(hx, py), de.add_plain(dx, py_dev), "add_plain");
  expect_same(he.sub_plain(hx, py), de.sub_plain(dx, py_dev), "sub_plain");
  expect_same(he.add_const(hx, c), de.add_const(dx, c), "add_const (complex)");
  expect_same(he.add_const(hx, -0.5), de.add_const(dx, -0.5), "add_const (real)");
  expect_same(he.multiply_const(hx, c), de.multiply_const(dx, c), "multiply_const (complex)");
  expect_same(he.multiply_const(hx, 0.75), de.multiply_const(dx, 0.75), "multiply_const (real)");
  expect_same(he.multiply_integer(hx, -3), de.multiply_integer(dx, -3), "multiply_integer");
  expect_same(he.multiply_integer(hx, (std::int64_t{1} << 60) + 7),
              de.multiply_integer(dx, (std::int64_t{1} << 60) + 7), "multiply_integer (large)");
  {
    Ciphertext ha = hx, da = dx;
    he.add_inplace(ha, hy);
    de.add_inplace(da, dy);
    he.sub_inplace(ha, hx);
    de.sub_inplace(da, dx);
    expect_same(ha, da, "add_inplace, sub_inplace");
  }

  const Ciphertext h3 = he.multiply(hx, hy), d3 = de.multiply(dx, dy);
  expect_same(h3, d3, "multiply (size 3)");
  const Ciphertext hx2 = he.multiply_const(hx, 1.0, scale), dx2 = de.multiply_const(dx, 1.0, scale);
  expect_same(he.add(h3, hx2), de.add(d3, dx2), "add of sizes 3 and 2");
  expect_same(he.sub(hx2, h3), de.sub(dx2, d3), "sub of sizes 2 and 3");
  expect_same(he.relinearize(h3), de.relinearize(d3), "relinearize");
  const Ciphertext hm = he.multiply_relin(hx, hy), dm = de.multiply_relin(dx, dy);
  expect_same(hm, dm, "multiply_relin");
  const Ciphertext hr = he.rescale(hm), dr = de.rescale(dm);
  expect_same(hr, dr, "rescale");
  {
    Ciphertext hi = h3, di = d3;
    he.rescale_inplace(hi);
    de.rescale_inplace(di);
    expect_same(hi, di, "rescale_inplace (size 3)");
  }
  expect_same(he.multiply_plain(hx, py), de.multiply_plain(dx, py_dev), "multiply_plain");
  for (const std::int64_t s : steps) {
    expect_same(he.rotate(hx, s), de.rotate(dx, s), "rotate " + std::to_string(s));
  }
  expect_same(he.conjugate(hx), de.conjugate(dx), "conjugate");
  expect_same(he.rotate(hr, 1), de.rotate(dr, 1), "rotate at a lower level");
  {
    // Hoisted rotations: one ModUp on the device, each result rotate's words (on the CPU).
    const std::vector<std::int64_t> many = {steps[0], -3, 0, steps[steps.size() - 2], steps[0]};
    for (const auto& [h, d] : {std::pair{&hx, &dx}, std::pair{&hr, &dr}}) {
      const std::vector<Ciphertext> rotated = de.rotate_many(*d, many);
      ASSERT_EQ(rotated.size(), many.size());
      for (std::size_t r = 0; r < many.size(); ++r) {
        expect_same(he.rotate(*h, many[r]), rotated[r],
                    "rotate_many at level " + std::to_string(h->level()) + ", step " +
                        std::to_string(many[r]));
      }
    }
    const std::uint64_t conj = rlwe::galois_element_for_conjugation(params->n());
    const std::vector<const rlwe::KeySwitchKey*> keys = {&device.gks.at(conj)};
    expect_same(rlwe::apply_galois(hx, host.gks.at(conj), 3),
                rlwe::apply_galois_hoisted(dx, keys, 3).at(0),
                "hoisted conjugation with an error multiple");
  }
  expect_same(he.drop_to_level(hx, 0), de.drop_to_level(dx, 0), "drop_to_level");
  expect_same(rlwe::relinearize(h3, host.rlk, 3), rlwe::relinearize(d3, device.rlk, 3),
              "relinearize with an error multiple");

  // The device's results decrypt (on the device) to the right values.
  Vec prod(slots);
  for (std::size_t i = 0; i < slots; ++i) prod[i] = x[i] * y[i];
  EXPECT_GE(test::precision_bits(prod, ctx->decode(d_dec.decrypt(dr))), 20.0 - slack);
  EXPECT_GE(test::precision_bits(test::rotated(x, 1), ctx->decode(d_dec.decrypt(de.rotate(dx, 1)))),
            22.0 - slack);
  EXPECT_GE(test::precision_bits(prod, ctx->decode(d_dec.decrypt(de.rescale(d3)))), 17.0 - slack)
      << "size-3 decryption";
  EXPECT_EQ(polyhe::test::words_of(d_dec.decrypt(d3).poly),
            polyhe::test::words_of(h_dec.decrypt(h3).poly));
  // Noise flooding on the device (fresh noise: compared by its effect, not its words).
  const double plain = test::precision_bits(x, ctx->decode(d_dec.decrypt(dx)));
  const double flooded = test::precision_bits(
      x, ctx->decode(ctx->decryptor(device.sk, DecryptOptions{30}).decrypt(dx)));
  EXPECT_LT(flooded, plain - 5.0);
  EXPECT_GT(flooded, 0.0);
}

// A degree-L polynomial by Horner's rule on both backends: the same words at every level.
TEST_P(CkksDevice, DeepPolynomialStaysEqual) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const std::size_t slots = params->n() / 2;
  const std::size_t depth = params->max_level();
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  const rlwe::SecretKey dsk = sk.to_device(dev);
  const rlwe::KeySwitchKey drlk = rlk.to_device(dev);
  const Evaluator he(params, rlwe::share(rlk)), de(params, rlwe::share(drlk));
  const Seed seed = test::make_seed(rng);
  const ContextPtr ctx = Context::create(params, scale);
  const Encryptor h_enc = ctx->encryptor(sk, seed), d_enc = ctx->encryptor(dsk, seed);
  const Decryptor d_dec = ctx->decryptor(dsk);
  const Vec x = test::random_values(rng, slots);
  std::vector<double> coeff(depth + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& a : coeff) a = u(rng.engine());
  const Plaintext px = ctx->encode(x, depth, scale);
  const Ciphertext hx = h_enc.encrypt(px), dx = d_enc.encrypt(px);
  Ciphertext hy = he.add_const(he.rescale(he.multiply_const(hx, coeff[depth])), coeff[depth - 1]);
  Ciphertext dy = de.add_const(de.rescale(de.multiply_const(dx, coeff[depth])), coeff[depth - 1]);
  expect_same(hy, dy, "first step");
  for (std::size_t i = depth - 1; i-- > 0;) {
    hy =
        he.add_const(he.rescale(he.multiply_relin(hy, he.drop_to_level(hx, hy.level()))), coeff[i]);
    dy =
        de.add_const(de.rescale(de.multiply_relin(dy, de.drop_to_level(dx, dy.level()))), coeff[i]);
    expect_same(hy, dy, "Horner step " + std::to_string(i));
  }
  Vec expected(slots);
  for (std::size_t s = 0; s < slots; ++s) {
    std::complex<double> acc = coeff[depth];
    for (std::size_t i = depth; i-- > 0;) acc = acc * x[s] + coeff[i];
    expected[s] = acc;
  }
  EXPECT_GE(test::precision_bits(expected, ctx->decode(d_dec.decrypt(dy))),
            15.0 - std::max(0, GetParam().log_n - 13));
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return "logN" + std::to_string(info.param.log_n) + "_dnum" +
         std::to_string(info.param.dnum == 0 ? info.param.q_bits.size() : info.param.dnum);
}

// The CPU suite's shapes (ckks/test_ckks.cpp): one-prime digits with one special prime, digits of
// two and three primes under two and three special primes (the exact conversions of ModUp and
// ModDown), a single digit.
// Plaintext matrix × encrypted vector (baby-step giant-step, hoisted baby rotations) on the
// device: the CPU's words, for a banded and a dense-ish matrix, at the top level and one below.
TEST_P(CkksDevice, LinearTransformGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const std::size_t slots = params->n() / 2;
  const ContextPtr ctx = Context::create(params, scale);
  Diagonals band, wide;
  for (const std::size_t k : {std::size_t{0}, std::size_t{1}, slots - 1}) {
    band[k] = test::random_values(rng, slots);
  }
  for (std::size_t k = 0; k < 40; k += 3) wide[k] = test::random_values(rng, slots);
  std::set<std::int64_t> all;
  std::vector<LinearTransform> transforms;
  for (const std::size_t level : {params->max_level(), params->max_level() - 1}) {
    for (const Diagonals* d : {&band, &wide}) {
      transforms.emplace_back(*ctx, *d, level);
      for (const auto s : transforms.back().rotations()) all.insert(s);
    }
  }
  const Keys host = make_keys(rng, {all.begin(), all.end()});
  const Keys device = host.to_device(dev);
  const Evaluator he(params, rlwe::share(host.rlk), rlwe::share(host.gks));
  const Evaluator de(params, rlwe::share(device.rlk), rlwe::share(device.gks));
  const Seed seed = test::make_seed(rng);
  const Encryptor h_enc = ctx->encryptor(host.sk, seed), d_enc = ctx->encryptor(device.sk, seed);
  const Plaintext px = ctx->encode(test::random_values(rng, slots));
  const Ciphertext hx = h_enc.encrypt(px), dx = d_enc.encrypt(px);
  for (const LinearTransform& t : transforms) {
    const Ciphertext h_in = he.drop_to_level(hx, t.level());
    const Ciphertext d_in = de.drop_to_level(dx, t.level());
    expect_same(t.apply(he, h_in), t.to_device(dev).apply(de, d_in),
                "linear transform at level " + std::to_string(t.level()) + ", " +
                    std::to_string(t.diagonal_count()) + " diagonals");
  }
  // A transform left in host memory is refused for a device ciphertext, by name.
  EXPECT_THROW((void)transforms[0].apply(de, dx), InvalidParameter);
}

// Polynomials on the device (the powers, the leaves' scaled constants, the giant products, the
// alignments): the CPU's words, for a Chebyshev series on an interval and a power series.
TEST_P(CkksDevice, PolynomialsGiveTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const std::size_t slots = params->n() / 2;
  const ContextPtr ctx = Context::create(params, scale);
  const Keys host = make_keys(rng, {1});
  const Keys device = host.to_device(dev);
  const Evaluator he(params, rlwe::share(host.rlk), rlwe::share(host.gks));
  const Evaluator de(params, rlwe::share(device.rlk), rlwe::share(device.gks));
  const Seed seed = test::make_seed(rng);
  const Encryptor h_enc = ctx->encryptor(host.sk, seed), d_enc = ctx->encryptor(device.sk, seed);
  const Plaintext px = ctx->encode(test::random_values(rng, slots));
  const Ciphertext hx = h_enc.encrypt(px), dx = d_enc.encrypt(px);
  const ChebyshevSeries cheb{-2.0, 3.0, {0.5, -0.25, 0.125, 0.3, -0.2, 0.1, 0.05, 0.7}};
  for (const std::size_t k : {std::size_t{2}, std::size_t{4}}) {
    const PolynomialOptions o{0, k};
    expect_same(evaluate(he, hx, cheb, o), evaluate(de, dx, cheb, o),
                "Chebyshev series, baby steps " + std::to_string(k));
  }
  const PowerSeries power{{0.0, 1.0, 0.0, -1.0 / 6, 0.0, 1.0 / 120}};
  expect_same(evaluate(he, hx, power), evaluate(de, dx, power), "power series");
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CkksDevice,
    ::testing::Values(Case{12, {60, 40, 40, 40, 40, 40}, {60}, 0, 40},
                      Case{13, {60, 40, 40, 40, 40, 40}, {60, 60}, 3, 40},
                      Case{13, {60, 40, 40, 40, 40, 40}, {60, 60, 60}, 2, 40},
                      Case{13, {50, 40, 40, 40, 40, 40}, {60, 60, 60, 60, 60}, 1, 40}),
    case_name);

// A whole bootstrap on the device (ModRaise's lift in host memory, then CoeffToSlot, the
// conjugation split, EvalMod with double angles, SlotToCoeff): the CPU's words, at N = 2^9.
TEST(CkksDeviceBootstrap, GivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  rlwe::ParametersLiteral lit;
  lit.log_n = 9;
  lit.q_bits = {60, 40};
  for (int i = 0; i < 13; ++i) lit.q_bits.push_back(58);
  lit.p_bits = {60, 60, 60};
  lit.hamming_weight = 64;
  lit.security = rlwe::SecurityLevel::insecure_none;
  const rlwe::ParametersPtr params = rlwe::Parameters::create(lit);
  const ContextPtr ctx = Context::create(params, std::ldexp(1.0, 40));
  BootstrapConfig config;
  config.eval_mod = EvalMod::double_angle;
  const Bootstrapper host_boot(*ctx, config);
  const Bootstrapper device_boot = host_boot.to_device(dev);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  const rlwe::GaloisKeys gks = keygen.rotation_keys(sk, host_boot.rotations(), true);
  const Evaluator he(params, rlwe::share(rlk), rlwe::share(gks));
  const Evaluator de(params, rlwe::share(rlk.to_device(dev)), rlwe::share(gks.to_device(dev)));
  const Seed seed = test::make_seed(rng);
  const Encryptor h_enc = ctx->encryptor(sk, seed), d_enc = ctx->encryptor(sk.to_device(dev), seed);
  const Vec x = test::random_values(rng, ctx->slots());
  const Plaintext px = ctx->encode(x, std::size_t{0});
  const Ciphertext hx = h_enc.encrypt(px), dx = d_enc.encrypt(px);
  const Ciphertext hb = host_boot.bootstrap(he, hx);
  const Ciphertext db = device_boot.bootstrap(de, dx);
  EXPECT_EQ(db.device(), dev);
  expect_same(hb, db, "bootstrap");
  EXPECT_GT(test::precision_bits(x, ctx->decode(ctx->decryptor(sk).decrypt(hb))), 14.0);
}

// The same with a uniform ternary secret and sparse-secret encapsulation (h' = 32): the switch
// to the ephemeral secret at q_0 in host memory, the switch back on the device at the top level;
// and two iterations (the first bootstrap's error, at level 0, bootstrapped again).
TEST(CkksDeviceBootstrap, WithEncapsulationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  rlwe::ParametersLiteral lit;
  lit.log_n = 9;
  lit.q_bits = {60, 40};
  for (int i = 0; i < 14; ++i) lit.q_bits.push_back(58);
  lit.p_bits = {60, 60, 60};
  lit.security = rlwe::SecurityLevel::insecure_none;
  const rlwe::ParametersPtr params = rlwe::Parameters::create(lit);
  const ContextPtr ctx = Context::create(params, std::ldexp(1.0, 40));
  BootstrapConfig config;
  config.eval_mod = EvalMod::double_angle;
  config.encapsulation_weight = 32;
  config.message_ratio_bits = 8;  // the input scaled by 2^b before ModRaise too
  config.iterations = 2;
  const Bootstrapper host_boot(*ctx, config);
  ASSERT_GT(host_boot.input_scaling_bits(), 0);
  const Bootstrapper device_boot = host_boot.to_device(dev);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  const BootstrapKeys keys = host_boot.generate_keys(keygen, sk);
  ASSERT_TRUE(keys.encapsulation.has_value());
  const EncapsulationKeys device_keys = keys.encapsulation->to_device(dev);
  const Evaluator he(params, rlwe::share(rlk), rlwe::share(keys.galois));
  const Evaluator de(params, rlwe::share(rlk.to_device(dev)),
                     rlwe::share(keys.galois.to_device(dev)));
  const Seed seed = test::make_seed(rng);
  const Encryptor h_enc = ctx->encryptor(sk, seed), d_enc = ctx->encryptor(sk.to_device(dev), seed);
  const Vec x = test::random_values(rng, ctx->slots());
  const Plaintext px = ctx->encode(x, std::size_t{0});
  const Ciphertext hx = h_enc.encrypt(px), dx = d_enc.encrypt(px);
  const Ciphertext hb = host_boot.bootstrap(he, hx, *keys.encapsulation);
  const Ciphertext db = device_boot.bootstrap(de, dx, device_keys);
  EXPECT_EQ(db.device(), dev);
  EXPECT_EQ(hb.level(), 1u);
  expect_same(hb, db, "bootstrap with encapsulation, two iterations");
  EXPECT_GT(test::precision_bits(x, ctx->decode(ctx->decryptor(sk).decrypt(hb))), 14.0);
}

TEST(CkksDevicePlacement, MixedPlacementsAreRefused) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const auto params = test::make_params(Case{10, {50, 40, 40}, {50}, 0, 30});
  const double scale = std::ldexp(1.0, 30);
  const ContextPtr ctx = Context::create(params, scale);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  const rlwe::KeySwitchKey drlk = rlk.to_device(dev);
  const Encryptor enc = ctx->encryptor(sk);
  const Vec x = test::random_values(rng, params->n() / 2);
  const Plaintext px = ctx->encode(x, 2, scale);
  const Ciphertext h = enc.encrypt(px);
  const Ciphertext d = h.to_device(dev);
  EXPECT_EQ(polyhe::test::words_of(d[0]), polyhe::test::words_of(h[0]));
  const Evaluator host_keys(params, rlwe::share(rlk)), device_keys(params, rlwe::share(drlk));
  EXPECT_THROW((void)host_keys.add(h, d), MismatchedContext);
  EXPECT_THROW((void)host_keys.multiply(h, d), MismatchedContext);
  EXPECT_THROW((void)host_keys.multiply_relin(d, d), MismatchedContext) << "host key, device ct";
  EXPECT_THROW((void)device_keys.multiply_relin(h, h), MismatchedContext) << "device key, host ct";
  EXPECT_THROW((void)host_keys.multiply_plain(d, px), MismatchedContext) << "host plaintext";
  EXPECT_THROW((void)ctx->decryptor(sk).decrypt(d), MismatchedContext)
      << "host secret key, device ct";
  // A message on another device than the key.
  const rlwe::SecretKey dsk = sk.to_device(dev);
  const Encryptor d_enc = ctx->encryptor(dsk);
  EXPECT_THROW((void)d_enc.encrypt(px.to_device(make_emulated_device())), MismatchedContext);
  // Keys are generated from a host secret.
  EXPECT_THROW((void)keygen.relinearization_key(sk.to_device(dev)), InvalidParameter);
  // Back on the host everything works again.
  EXPECT_NO_THROW((void)host_keys.add(h, d.to_host()));
}

}  // namespace
}  // namespace polyhe::ckks
