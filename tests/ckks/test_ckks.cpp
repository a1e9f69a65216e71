// CKKS end to end: every operation against the same computation in double precision, with the
// precision in bits asserted, for several N and dnum; and every misuse gives its error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::ckks {
namespace {

using test::Case;
using test::Vec;

class CkksOps : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    params = test::make_params(GetParam());
    scale = std::ldexp(1.0, GetParam().scale_bits);
  }
  rlwe::ParametersPtr params;
  double scale = 0;
};

// Encode → encrypt (public and secret key) → decrypt → decode; add, sub, plaintext and constant
// operations; multiply + relinearise + rescale; rotations by every power of two, random steps and
// negative steps; conjugation.
TEST_P(CkksOps, MatchesDoublePrecision) {
  POLYHE_SEEDED_RNG(rng);
  // The bars are set at N ≤ 2^13; each doubling of N above costs about a bit (the noise of s·e
  // grows by √2 per coefficient and the slots sum √2 more of it).
  const double slack = std::max(0, GetParam().log_n - 13);
  const std::size_t slots = params->n() / 2;
  const std::size_t top = params->max_level();
  const ContextPtr ctx = Context::create(params, scale);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  std::vector<std::int64_t> steps;
  for (std::size_t s = 1; s < slots; s *= 2) steps.push_back(static_cast<std::int64_t>(s));
  const std::int64_t random_step = static_cast<std::int64_t>(rng.uniform(1, slots - 1));
  steps.push_back(random_step);
  steps.push_back(-3);
  const rlwe::GaloisKeys gks = keygen.rotation_keys(sk, steps, /*conjugation=*/true);
  Evaluator eval(params, rlwe::share(rlk), rlwe::share(gks));
  const Encryptor pk_enc = ctx->encryptor(pk);
  const Encryptor sk_enc = ctx->encryptor(sk);
  const Decryptor decryptor = ctx->decryptor(sk);

  const Vec x = test::random_values(rng, slots);
  const Vec y = test::random_values(rng, slots);
  const Plaintext px = ctx->encode(x, top, scale);
  EXPECT_GE(test::precision_bits(x, ctx->decode(px)), 30.0 - slack) << "encode/decode";

  const Ciphertext cx = pk_enc.encrypt(px);
  const Ciphertext cy = sk_enc.encrypt(ctx->encode(y, top, scale));
  EXPECT_EQ(cx.level(), top);
  EXPECT_EQ(cx.scale(), scale);
  const double fresh = test::precision_bits(x, ctx->decode(decryptor.decrypt(cx)));
  EXPECT_GE(fresh, 25.0 - slack) << "public-key encrypt/decrypt";
  EXPECT_GE(test::precision_bits(y, ctx->decode(decryptor.decrypt(cy))), 25.0 - slack)
      << "symmetric";

  Vec sum(slots), diff(slots), prod(slots), xc(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    sum[i] = x[i] + y[i];
    diff[i] = x[i] - y[i];
    prod[i] = x[i] * y[i];
    xc[i] = std::conj(x[i]);
  }
  EXPECT_GE(test::precision_bits(sum, ctx->decode(decryptor.decrypt(eval.add(cx, cy)))),
            24.0 - slack);
  EXPECT_GE(test::precision_bits(diff, ctx->decode(decryptor.decrypt(eval.sub(cx, cy)))),
            24.0 - slack);
  EXPECT_GE(
      test::precision_bits(
          sum, ctx->decode(decryptor.decrypt(eval.add_plain(cx, ctx->encode(y, top, scale))))),
      24.0 - slack);  // cx's fresh noise, as for add and sub: the same bar and the same slack
  const std::complex<double> c(0.25, -0.75);
  Vec xpc(slots), xtc(slots), neg(slots);
  for (std::size_t i = 0; i < slots; ++i) {
    xpc[i] = x[i] + c;
    xtc[i] = x[i] * c;
    neg[i] = -x[i];
  }
  EXPECT_GE(test::precision_bits(xpc, ctx->decode(decryptor.decrypt(eval.add_const(cx, c)))),
            24.0 - slack);
  EXPECT_GE(test::precision_bits(neg, ctx->decode(decryptor.decrypt(eval.negate(cx)))),
            24.0 - slack);
  {
    const Ciphertext m = eval.rescale(eval.multiply_const(cx, c));
    EXPECT_EQ(m.level(), top - 1);
    EXPECT_NEAR(m.scale(), scale, scale * 1e-12) << "const_scale = q_l restores the scale";
    EXPECT_GE(test::precision_bits(xtc, ctx->decode(decryptor.decrypt(m))), 22.0 - slack);
  }
  {
    const Ciphertext m = eval.multiply_integer(cx, -3);
    Vec e(slots);
    for (std::size_t i = 0; i < slots; ++i) e[i] = -3.0 * x[i];
    EXPECT_GE(test::precision_bits(e, ctx->decode(decryptor.decrypt(m))), 22.0 - slack);
  }

  // One multiplication: the bar is ≥ 20 bits at Δ = 2^40.
  const Ciphertext cxy3 = eval.multiply(cx, cy);
  EXPECT_EQ(cxy3.size(), 3u);
  // Size 3 decrypts through s²: the rescale's rounding of c_2 (±1/2) meets ‖s²‖ ≈ N/√3, a
  // couple of bits more error than after relinearisation.
  EXPECT_GE(test::precision_bits(prod, ctx->decode(decryptor.decrypt(eval.rescale(cxy3)))),
            17.0 - slack)
      << "size-3 decryption";
  // The fused multiply_relin (no size-3 ciphertext, the key switch added in place) gives the same
  // words as multiply then relinearize.
  {
    const Ciphertext fused = eval.multiply_relin(cx, cy);
    const Ciphertext two_step = eval.relinearize(cxy3);
    ASSERT_EQ(fused.size(), 2u);
    for (std::size_t p = 0; p < 2; ++p) {
      EXPECT_TRUE(
          std::equal(fused[p].data().begin(), fused[p].data().end(), two_step[p].data().begin()))
          << "part " << p;
    }
    EXPECT_EQ(fused.scale(), two_step.scale());
  }
  const Ciphertext cxy = eval.rescale(eval.multiply_relin(cx, cy));
  EXPECT_EQ(cxy.level(), top - 1);
  const double mult_bits = test::precision_bits(prod, ctx->decode(decryptor.decrypt(cxy)));
  EXPECT_GE(mult_bits, 20.0 - slack) << "multiply + relinearise + rescale";
  RecordProperty("multiply_relin_rescale_precision_bits", std::to_string(mult_bits));
  {
    const Plaintext py = ctx->encode(y, top, scale);
    const Ciphertext m = eval.rescale(eval.multiply_plain(cx, py));
    EXPECT_GE(test::precision_bits(prod, ctx->decode(decryptor.decrypt(m))), 20.0 - slack);
  }

  for (const std::int64_t s : steps) {
    const Ciphertext r = eval.rotate(cx, s);
    EXPECT_GE(test::precision_bits(test::rotated(x, s), ctx->decode(decryptor.decrypt(r))),
              22.0 - slack)
        << "rotation by " << s;
  }
  // Rotation at a lower level, and conjugation.
  const Ciphertext r1 = eval.rotate(cxy, 1);
  EXPECT_GE(test::precision_bits(test::rotated(prod, 1), ctx->decode(decryptor.decrypt(r1))),
            19.0 - slack);
  EXPECT_GE(test::precision_bits(xc, ctx->decode(decryptor.decrypt(eval.conjugate(cx)))),
            22.0 - slack);

  // Level drop keeps the message and the scale.
  const Ciphertext low = eval.drop_to_level(cx, 0);
  EXPECT_EQ(low.level(), 0u);
  EXPECT_GE(test::precision_bits(x, ctx->decode(decryptor.decrypt(low))), 24.0 - slack);
}

// A degree-L polynomial by Horner's rule, p(x) = Σ c_i x^i, consuming one level per step:
// depth L at L ≥ 5, against the same evaluation in double.
TEST_P(CkksOps, DeepPolynomial) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t slots = params->n() / 2;
  const std::size_t depth = params->max_level();
  ASSERT_GE(depth, 5u);
  const ContextPtr ctx = Context::create(params, scale);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  Evaluator eval(params, rlwe::share(rlk));
  const Encryptor enc = ctx->encryptor(sk);
  const Decryptor decryptor = ctx->decryptor(sk);
  const Vec x = test::random_values(rng, slots);
  std::vector<double> coeff(depth + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& a : coeff) a = u(rng.engine());

  const Ciphertext cx = enc.encrypt(ctx->encode(x, depth, scale));
  Ciphertext y = eval.rescale(eval.multiply_const(cx, coeff[depth]));
  y = eval.add_const(y, coeff[depth - 1]);
  for (std::size_t i = depth - 1; i-- > 0;) {
    y = eval.rescale(eval.multiply_relin(y, eval.drop_to_level(cx, y.level())));
    y = eval.add_const(y, coeff[i]);
  }
  EXPECT_EQ(y.level(), 0u);
  Vec expected(slots);
  for (std::size_t s = 0; s < slots; ++s) {
    std::complex<double> acc = coeff[depth];
    for (std::size_t i = depth; i-- > 0;) acc = acc * x[s] + coeff[i];
    expected[s] = acc;
  }
  const double bits = test::precision_bits(expected, ctx->decode(decryptor.decrypt(y)));
  EXPECT_GE(bits, 15.0 - std::max(0, GetParam().log_n - 13)) << "depth " << depth;
  RecordProperty("depth_precision_bits", std::to_string(bits));
}

std::string case_name(const ::testing::TestParamInfo<Case>& case_info) {
  return "logN" + std::to_string(case_info.param.log_n) + "_dnum" +
         std::to_string(case_info.param.dnum == 0 ? case_info.param.q_bits.size()
                                                  : case_info.param.dnum);
}

#ifndef POLYHE_CKKS_LARGE
INSTANTIATE_TEST_SUITE_P(
    Sizes, CkksOps,
    ::testing::Values(
        // N = 2^12, L = 5, dnum = L + 1 (one prime per digit, SEAL's default shape).
        Case{12, {60, 40, 40, 40, 40, 40}, {60}, 0, 40},
        // N = 2^13, dnum = 3: digits of two primes, two special primes.
        Case{13, {60, 40, 40, 40, 40, 40}, {60, 60}, 3, 40},
        // N = 2^13, dnum = 2: digits of three primes (140 bits) under three special primes.
        Case{13, {60, 40, 40, 40, 40, 40}, {60, 60, 60}, 2, 40},
        // N = 2^13, dnum = 1 (one digit: P must cover all of Q).
        Case{13, {50, 40, 40, 40, 40, 40}, {60, 60, 60, 60, 60}, 1, 40}),
    case_name);
#else
// The larger rings (label `slow`): the anchor set at N = 2^14 (9 primes, logQP 420,
// 128-bit secure, dnum = L + 1) and N = 2^15 with dnum = 3.
INSTANTIATE_TEST_SUITE_P(
    LargeSizes, CkksOps,
    ::testing::Values(Case{14, {50, 40, 40, 40, 40, 40, 40, 40, 40}, {50}, 0, 40},
                      Case{15, {60, 40, 40, 40, 40, 40}, {60, 60}, 3, 40}),
    case_name);
#endif

#ifndef POLYHE_CKKS_LARGE
TEST(CkksErrors, MismatchesAreNamed) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{10, {50, 40, 40}, {50}, 0, 30};
  const auto params = test::make_params(c);
  const auto other = test::make_params(c);
  const double scale = std::ldexp(1.0, 30);
  const ContextPtr ctx = Context::create(params, scale);
  const ContextPtr octx = Context::create(other, scale);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  Evaluator eval(params, rlwe::share(rlk));
  Evaluator bare(params);
  const Encryptor enc = ctx->encryptor(sk);
  const Vec x = test::random_values(rng, params->n() / 2);
  const Ciphertext a = enc.encrypt(ctx->encode(x, 2, scale));
  const Ciphertext b = eval.drop_to_level(a, 1);

  // Another context (equal values, separate object): MismatchedContext.
  rlwe::KeyGenerator other_gen(other, test::make_seed(rng));
  const rlwe::SecretKey osk = other_gen.secret_key();
  const Encryptor oenc = octx->encryptor(osk);
  const Ciphertext o = oenc.encrypt(octx->encode(x, 2, scale));
  EXPECT_THROW((void)eval.add(a, o), MismatchedContext);
  EXPECT_THROW((void)octx->decryptor(osk).decrypt(a), MismatchedContext);
  EXPECT_THROW((void)Evaluator(other, rlwe::share(rlk)), MismatchedContext);

  // Level mismatch: the message says what to call.
  try {
    (void)eval.add(a, b);
    FAIL();
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("drop_to_level"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)eval.multiply(a, b), InvalidParameter);
  // Scale mismatch.
  const Ciphertext sq = eval.multiply_relin(a, a);
  try {
    (void)eval.add(sq, a);
    FAIL();
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("scale"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)eval.add_plain(a, ctx->encode(x, 2, 2 * scale)), InvalidParameter);
  EXPECT_THROW((void)eval.add_plain(a, ctx->encode(x, 1, scale)), InvalidParameter);
  // The scale would overflow the modulus: 2^90 at level 0 (50 bits).
  const Ciphertext low = eval.drop_to_level(a, 0);
  try {
    (void)eval.multiply(low, low);
    FAIL();
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("rescale"), std::string::npos) << e.what();
  }
  // Rescale at level 0; drop upwards; keys missing.
  EXPECT_THROW((void)eval.rescale(low), InvalidParameter);
  EXPECT_THROW((void)eval.drop_to_level(b, 2), InvalidParameter);
  EXPECT_THROW((void)bare.multiply_relin(a, a), InvalidParameter);
  try {
    (void)eval.rotate(a, 5);
    FAIL();
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("rotation step 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)eval.conjugate(a), InvalidParameter);
  EXPECT_THROW((void)eval.multiply(eval.multiply(a, a), a), InvalidParameter);  // size 3 operand
  EXPECT_THROW((void)ctx->decryptor(sk, DecryptOptions{61}), InvalidParameter);
  EXPECT_THROW((void)ctx->encode(x, 3, scale), InvalidParameter);
}

// Noise flooding (off by default): the decrypted message moves by about 2^b / Δ, no more.
TEST(CkksDecrypt, NoiseFlooding) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{11, {60, 40}, {60}, 0, 40};
  const auto params = test::make_params(c);
  const double scale = std::ldexp(1.0, 40);
  const ContextPtr ctx = Context::create(params, scale);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const Encryptor enc = ctx->encryptor(sk);
  const Decryptor decryptor = ctx->decryptor(sk);
  const Decryptor flooding = ctx->decryptor(sk, DecryptOptions{30});
  const Vec x = test::random_values(rng, params->n() / 2);
  const Ciphertext a = enc.encrypt(ctx->encode(x, 1, scale));
  const double plain = test::precision_bits(x, ctx->decode(decryptor.decrypt(a)));
  const Vec flooded = ctx->decode(flooding.decrypt(a));
  const double noisy = test::precision_bits(x, flooded);
  // Uniform noise of 2^30 per coefficient, N coefficients summed per slot: ≈ 2^(30 + 11/2 − 40).
  EXPECT_LT(noisy, plain - 5.0);
  EXPECT_GT(noisy, 0.0);
  // Two flooded decryptions differ (fresh noise each time).
  const Vec again = ctx->decode(flooding.decrypt(a));
  EXPECT_GT(test::precision_bits(flooded, again), 0.0);
  EXPECT_LT(test::precision_bits(flooded, again), 40.0);
}

#endif  // POLYHE_CKKS_LARGE

}  // namespace
}  // namespace polyhe::ckks
