// The CKKS front door (ckks/context.hpp): the default scale, encode/decode through the context
// equal to the encoder it wraps, real values in and out, the Decryptor, an Evaluator built from a
// context, keys that outlive the names they were made under, the objects the context makes (word
// for word those of the rlwe building blocks), the deprecated free functions of ckks.hpp as
// forwards to them, and every refusal by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"
#include "support/expect_error.hpp"

namespace polyhe::ckks {
namespace {

bool same(const RnsPoly& a, const RnsPoly& b) {
  return std::ranges::equal(a.data(), b.data());
}

rlwe::ParametersPtr params_with(std::vector<int> q_bits) {
  rlwe::ParametersLiteral lit;
  lit.log_n = 13;
  lit.q_bits = std::move(q_bits);
  lit.p_bits = {40};
  return rlwe::Parameters::create(lit);
}

TEST(CkksContext, DefaultScaleIsTheTopPrimesSize) {
  const auto ctx = Context::create(params_with({40, 30, 30}));
  EXPECT_EQ(ctx->scale(), std::ldexp(1.0, 30));
  EXPECT_EQ(ctx->slots(), 4096U);
  EXPECT_EQ(ctx->max_level(), 2U);
  const auto given = Context::create(params_with({40, 30, 30}), std::ldexp(1.0, 25));
  EXPECT_EQ(given->scale(), std::ldexp(1.0, 25));
}

TEST(CkksContext, RefusesBadScalesByName) {
  const auto params = params_with({40, 30});
  const auto refused = [&](double scale, const char* what) {
    try {
      (void)Context::create(params, scale);
      ADD_FAILURE() << "accepted scale " << scale;
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused(-1.0, "positive and finite");
  refused(std::numeric_limits<double>::infinity(), "positive and finite");
  refused(std::numeric_limits<double>::quiet_NaN(), "positive and finite");
  refused(std::ldexp(1.0, 70), "no room below Q_L/2");
  EXPECT_THROW((void)Context::create(nullptr), InvalidParameter);
  // One prime: no default to derive, but an explicit scale is fine.
  rlwe::ParametersLiteral lit;
  lit.log_n = 12;
  lit.q_bits = {50};
  lit.p_bits = {50};
  const auto single = rlwe::Parameters::create(lit);
  try {
    (void)Context::create(single);
    ADD_FAILURE() << "a default scale with L = 0";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("pass a scale"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Context::create(single, std::ldexp(1.0, 30))->scale(), std::ldexp(1.0, 30));
}

// The encoder's polynomial at `level` and `scale`: what Context::encode must hold.
template <class Value>
RnsPoly encoded(const Context& ctx, const std::vector<Value>& values, double scale,
                std::size_t level) {
  RnsPoly poly(ctx.params()->ring(), level + 1);
  ctx.encoder().encode(std::span<const Value>(values), scale, poly);
  return poly;
}

TEST(CkksContext, EncodeEqualsTheWrappedEncoder) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = Context::create(params_with({40, 30, 30}));
  const test::Vec z = test::random_values(rng, ctx->slots());
  std::vector<double> x(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = z[i].real();
  const Plaintext a = ctx->encode(z);
  EXPECT_EQ(a.level(), ctx->max_level());
  EXPECT_EQ(a.scale, ctx->scale());
  EXPECT_TRUE(same(a.poly, encoded(*ctx, z, ctx->scale(), ctx->max_level())));
  const Plaintext r = ctx->encode(x, 1, std::ldexp(1.0, 20));
  EXPECT_EQ(r.level(), 1U);
  EXPECT_EQ(r.scale, std::ldexp(1.0, 20));
  EXPECT_TRUE(same(r.poly, encoded(*ctx, x, std::ldexp(1.0, 20), 1)));
  // Real in, real out, to the encoding's precision.
  const std::vector<double> back = ctx->decode_real(ctx->encode(x));
  ASSERT_EQ(back.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back[i], x[i], 1e-6) << i;
  const auto complex_back = ctx->decode(a);
  EXPECT_GE(test::precision_bits(z, complex_back), 20.0);
  EXPECT_THROW((void)ctx->encode(x, 3), InvalidParameter);  // above L = 2
}

TEST(CkksContext, DecodeRefusesAnotherParameterSet) {
  const auto ctx = Context::create(params_with({40, 30}));
  const auto other = Context::create(params_with({40, 30}));
  const std::vector<double> x = {1.0, 2.0};
  EXPECT_THROW((void)ctx->decode(other->encode(x)), MismatchedContext);
  EXPECT_THROW((void)ctx->decode_real(other->encode(x)), MismatchedContext);
}

// Keys made in an inner scope and handed over: the encryptor, evaluator and decryptor own them, so
// the computation after the scope is correct (under ASan this would catch a dangling key).
TEST(CkksContext, ObjectsOwnTheirKeys) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = Context::create(params_with({40, 30, 30}));
  std::unique_ptr<Encryptor> encryptor;
  std::unique_ptr<Evaluator> eval;
  std::unique_ptr<Decryptor> decryptor;
  std::unique_ptr<Decryptor> copied;
  {
    rlwe::KeyGenerator keygen(ctx->params(), test::make_seed(rng));
    rlwe::SecretKey sk = keygen.secret_key();
    encryptor = std::make_unique<Encryptor>(ctx->encryptor(keygen.public_key(sk)));  // moved in
    eval = std::make_unique<Evaluator>(ctx, rlwe::share(keygen.relinearization_key(sk)));
    copied = std::make_unique<Decryptor>(sk);
    decryptor = std::make_unique<Decryptor>(rlwe::share(std::move(sk)));
  }
  std::vector<double> x(ctx->slots()), y(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.5 + 0.001 * static_cast<double>(i % 100);
    y[i] = 1.0 - 0.002 * static_cast<double>(i % 50);
  }
  const Ciphertext cx = encryptor->encrypt(ctx->encode(x));
  const Ciphertext cy = encryptor->encrypt(ctx->encode(y));
  const Ciphertext prod = eval->rescale(eval->multiply_relin(cx, cy));
  const Plaintext pt = decryptor->decrypt(prod);
  EXPECT_TRUE(same(pt.poly, copied->decrypt(prod).poly));
  EXPECT_TRUE(same(pt.poly, rlwe::decrypt_poly(prod, decryptor->key())));
  const std::vector<double> got = ctx->decode_real(pt);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], x[i] * y[i], 1e-4) << i;
}

TEST(CkksContext, RefusesNullKeysAndBadOptions) {
  EXPECT_THROW(Decryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW(rlwe::Encryptor(std::shared_ptr<const rlwe::PublicKey>{}), InvalidParameter);
  EXPECT_THROW(rlwe::Encryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW(Evaluator(std::shared_ptr<const Context>{}), InvalidParameter);
  const auto ctx = Context::create(params_with({40, 30}));
  rlwe::KeyGenerator keygen(ctx->params());
  const auto sk = rlwe::share(keygen.secret_key());
  EXPECT_THROW(Decryptor(sk, DecryptOptions{61}), InvalidParameter);
  EXPECT_THROW(Decryptor(sk, DecryptOptions{-1}), InvalidParameter);
  EXPECT_NO_THROW(Decryptor(sk, DecryptOptions{40}));
}

// The context's factories make, word for word, what the rlwe building blocks make from the same
// seeds: keys, an encryption, a product and a decryption.
TEST(CkksContext, FactoriesEqualTheBuildingBlocks) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = Context::create(params_with({40, 30, 30}));
  const Seed key_seed = test::make_seed(rng), enc_seed = test::make_seed(rng);

  rlwe::KeyGenerator made = ctx->key_generator(key_seed);
  rlwe::KeyGenerator built(ctx->params(), key_seed);
  const rlwe::SecretKey sk = made.secret_key();
  const rlwe::SecretKey sk_built = built.secret_key();
  ASSERT_TRUE(same(sk.s, sk_built.s));
  const rlwe::PublicKey pk = made.public_key(sk);
  const rlwe::KeySwitchKey relin = made.relinearization_key(sk);
  const std::int64_t steps[] = {1, -3};
  const rlwe::GaloisKeys galois = made.rotation_keys(sk, steps);

  const Encryptor encryptor = ctx->encryptor(pk, enc_seed);
  const rlwe::Encryptor rlwe_encryptor(pk, enc_seed);
  const Decryptor decryptor = ctx->decryptor(sk);
  const Evaluator eval = ctx->evaluator(relin, galois);
  const Evaluator built_eval(ctx, rlwe::share(relin), rlwe::share(galois));

  std::vector<double> x(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.25 + 0.001 * static_cast<double>(i % 300);
  const Plaintext pt = ctx->encode(x);
  const Ciphertext ct = encryptor.encrypt(pt);
  const Ciphertext ct_built = rlwe_encryptor.encrypt(pt.poly);
  for (std::size_t j = 0; j < 2; ++j) ASSERT_TRUE(same(ct[j], ct_built[j])) << j;
  EXPECT_EQ(ct.scale(), pt.scale);
  EXPECT_EQ(ct.level(), pt.level());
  EXPECT_EQ(encryptor.device(), nullptr);

  const Ciphertext prod = eval.rotate(eval.rescale(eval.multiply_relin(ct, ct)), -3);
  const Ciphertext prod_built =
      built_eval.rotate(built_eval.rescale(built_eval.multiply_relin(ct, ct)), -3);
  for (std::size_t j = 0; j < 2; ++j) EXPECT_TRUE(same(prod[j], prod_built[j])) << j;
  EXPECT_TRUE(same(decryptor.decrypt(prod).poly, rlwe::decrypt_poly(prod, sk)));

  const std::vector<double> got = ctx->decode_real(decryptor.decrypt(prod));
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double want = x[(i + n - 3) % n] * x[(i + n - 3) % n];
    EXPECT_NEAR(got[i], want, 1e-4) << i;
  }

  // A symmetric encryptor (from the secret key, seeded from the test's seed so that a failure
  // replays) and an evaluator without keys. Two fresh encryptions at Δ = 2^30 summed: each keeps
  // about 15–17 bits in its worst slot (test_ckks's 25-bit bar at Δ = 2^40, 10 bits fewer here),
  // so the sum is within 1e-4 (the product's bar above), not always within 1e-5.
  const Encryptor symmetric = ctx->encryptor(sk, test::make_seed(rng));
  const Evaluator keyless = ctx->evaluator();
  const Ciphertext sum = keyless.add(symmetric.encrypt(pt), ct);
  const std::vector<double> twice = ctx->decode_real(decryptor.decrypt(sum));
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(twice[i], 2 * x[i], 1e-4) << i;
  EXPECT_THROW((void)keyless.multiply_relin(ct, ct), InvalidParameter);
}

// Copies of one encryptor share its stream of seeds: two copies seeded alike never encrypt with
// the same randomness; they draw what one rlwe::Encryptor of that seed draws, in turn.
TEST(CkksContext, EncryptorCopiesShareOneSeedStream) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = Context::create(params_with({40, 30}));
  rlwe::KeyGenerator keygen = ctx->key_generator(test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const auto pk = rlwe::share(keygen.public_key(sk));
  const Seed seed = test::make_seed(rng);
  const Encryptor first = ctx->encryptor(pk, seed);
  const Encryptor second = first;  // NOLINT(performance-unnecessary-copy-initialization)
  const rlwe::Encryptor reference(pk, seed);
  const Plaintext pt = ctx->encode(std::vector<double>{1.0, -2.0});
  const Ciphertext a = first.encrypt(pt), b = second.encrypt(pt);
  EXPECT_FALSE(same(a[1], b[1]));
  EXPECT_TRUE(same(a[1], reference.encrypt(pt.poly)[1]));
  EXPECT_TRUE(same(b[1], reference.encrypt(pt.poly)[1]));
}

// Keys of another parameter set are refused by every factory (MismatchedContext, naming the
// factory), null keys by name (InvalidParameter), a plaintext of other parameters at encryption.
TEST(CkksContext, FactoriesRefuseForeignAndNullKeys) {
  const auto ctx = Context::create(params_with({40, 30}));
  const auto other = Context::create(params_with({40, 30}));  // equal literal, another object
  rlwe::KeyGenerator keygen = other->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const std::int64_t steps[] = {1};
  const rlwe::GaloisKeys galois = keygen.rotation_keys(sk, steps);
  const auto refused = [](const auto& make, const char* what) {
    polyhe::test::expect_error<MismatchedContext>(make, what);
  };
  refused([&] { (void)ctx->encryptor(pk); }, "ckks::Context::encryptor (public key)");
  refused([&] { (void)ctx->encryptor(sk); }, "ckks::Context::encryptor (secret key)");
  refused([&] { (void)ctx->decryptor(sk); }, "ckks::Context::decryptor");
  refused([&] { (void)ctx->evaluator(relin); }, "relinearization key");
  refused([&] { (void)ctx->evaluator(nullptr, rlwe::share(galois)); }, "Galois keys");
  EXPECT_THROW((void)ctx->encryptor(std::shared_ptr<const rlwe::PublicKey>{}), InvalidParameter);
  EXPECT_THROW((void)ctx->encryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW((void)ctx->decryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW((void)ctx->decryptor(rlwe::SecretKey(keygen.secret_key()), DecryptOptions{61}),
               MismatchedContext);
  EXPECT_THROW(Encryptor(std::shared_ptr<const rlwe::Encryptor>{}), InvalidParameter);

  rlwe::KeyGenerator own = ctx->key_generator();
  const rlwe::SecretKey own_sk = own.secret_key();
  EXPECT_THROW((void)ctx->decryptor(own_sk, DecryptOptions{61}), InvalidParameter);
  const Encryptor encryptor = ctx->encryptor(own.public_key(own_sk));
  EXPECT_THROW((void)encryptor.encrypt(other->encode(std::vector<double>{1.0})), MismatchedContext);
}

// The free functions of ckks.hpp are deprecated forwards: the same words as the classes (from the
// same seeds), the same refusals.
TEST(CkksContext, DeprecatedFreeFunctionsForwardToTheClasses) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = Context::create(params_with({40, 30, 30}));
  rlwe::KeyGenerator keygen = ctx->key_generator(test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const Seed seed = test::make_seed(rng);
  const test::Vec z = test::random_values(rng, ctx->slots());
  const std::vector<double> x = {0.5, -1.25, 2.0};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const Plaintext pz = encode(ctx->encoder(), ctx->params(), z, ctx->scale(), 2);
  const Plaintext px = encode(ctx->encoder(), ctx->params(), x, std::ldexp(1.0, 20), 1);
  const Ciphertext ct = encrypt(rlwe::Encryptor(pk, seed), pz);
  const Plaintext back = decrypt(ct, sk);
  const std::vector<std::complex<double>> decoded = decode(ctx->encoder(), back);
  EXPECT_THROW((void)encode(ctx->encoder(), ctx->params(), x, ctx->scale(), 3), InvalidParameter);
  EXPECT_THROW((void)decrypt(ct, sk, DecryptOptions{61}), InvalidParameter);
#pragma GCC diagnostic pop
  EXPECT_TRUE(same(pz.poly, ctx->encode(z, 2).poly));
  EXPECT_TRUE(same(px.poly, ctx->encode(x, 1, std::ldexp(1.0, 20)).poly));
  EXPECT_EQ(px.scale, std::ldexp(1.0, 20));
  const Ciphertext want = ctx->encryptor(pk, seed).encrypt(pz);
  for (std::size_t j = 0; j < 2; ++j) EXPECT_TRUE(same(ct[j], want[j])) << j;
  EXPECT_EQ(ct.scale(), want.scale());
  EXPECT_TRUE(same(back.poly, ctx->decryptor(sk).decrypt(ct).poly));
  EXPECT_EQ(decoded, ctx->decode(back));
}

}  // namespace
}  // namespace polyhe::ckks
