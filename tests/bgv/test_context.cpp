// The objects a bgv::Context makes (key generator, encryptor, decryptor, evaluator), for BGV and
// BFV alike: word for word those of the building blocks from the same seeds, copies of an
// encryptor sharing one seed stream, keys of other parameters or null keys refused by name, and
// the deprecated free functions of bgv.hpp as forwards to the classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/expect_error.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

bool same(const RnsPoly& a, const RnsPoly& b) {
  return std::ranges::equal(a.data(), b.data());
}

class BgvContextFactories : public ::testing::TestWithParam<Scheme> {};

TEST_P(BgvContextFactories, EqualTheBuildingBlocks) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "factories"};
  const ContextPtr ctx = Context::create(make_params(c), c.t, GetParam());
  const Seed key_seed = make_seed(rng), enc_seed = make_seed(rng);

  rlwe::KeyGenerator made = ctx->key_generator(key_seed);
  rlwe::KeyGenerator built(ctx->params(), key_seed);
  const rlwe::SecretKey sk = made.secret_key();
  ASSERT_TRUE(same(sk.s, built.secret_key().s));
  const rlwe::PublicKey pk = made.public_key(sk);
  const rlwe::KeySwitchKey relin = made.relinearization_key(sk);
  const std::int64_t steps[] = {1};
  const rlwe::GaloisKeys galois = made.rotation_keys(sk, steps);

  const Encryptor encryptor = ctx->encryptor(pk, enc_seed);
  const Encryptor built_encryptor(ctx, std::make_shared<const rlwe::Encryptor>(pk, enc_seed));
  const Decryptor decryptor = ctx->decryptor(sk);
  const Decryptor built_decryptor(ctx, sk);
  const Evaluator eval = ctx->evaluator(relin, galois);
  const Evaluator built_eval(ctx, rlwe::share(relin), rlwe::share(galois));
  EXPECT_EQ(encryptor.context(), ctx);
  EXPECT_EQ(decryptor.context(), ctx);
  EXPECT_EQ(encryptor.device(), nullptr);

  const std::size_t n = ctx->n(), row = n / 2;
  const std::vector<u64> x = random_slots(rng, n, c.t);
  const Plaintext pt = ctx->encode(std::vector<std::uint64_t>(x));
  const Ciphertext ct = encryptor.encrypt(pt);
  const Ciphertext ct_built = built_encryptor.encrypt(pt);
  for (std::size_t j = 0; j < 2; ++j) ASSERT_TRUE(same(ct[j], ct_built[j])) << j;

  const Ciphertext prod = eval.rotate_rows(eval.multiply_relin(ct, ct), 1);
  const Ciphertext prod_built = built_eval.rotate_rows(built_eval.multiply_relin(ct, ct), 1);
  for (std::size_t j = 0; j < 2; ++j) EXPECT_TRUE(same(prod[j], prod_built[j])) << j;
  EXPECT_EQ(decryptor.decrypt(prod).coeffs, built_decryptor.decrypt(prod).coeffs);
  EXPECT_EQ(decryptor.noise_budget(prod), built_decryptor.noise_budget(prod));

  const std::vector<u64> got = ctx->decode(decryptor.decrypt(prod));
  const std::vector<u64> squares = times(x, x, c.t);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i / row) * row + (i % row + 1) % row;  // slot i holds slot j
    ASSERT_EQ(got[i], squares[j]) << i;
  }

  // A symmetric encryptor and an evaluator without keys.
  const Encryptor symmetric = ctx->encryptor(sk);
  const Evaluator keyless = ctx->evaluator();
  const Ciphertext sum = keyless.add(symmetric.encrypt(pt), ct);
  EXPECT_EQ(ctx->decode(decryptor.decrypt(sum)), plus(x, x, c.t));
  EXPECT_THROW((void)keyless.relinearize(keyless.multiply(ct, ct)), InvalidParameter);
}

// Two copies seeded alike never encrypt with the same randomness: they draw what one rlwe
// encryptor of that seed draws, in turn.
TEST_P(BgvContextFactories, EncryptorCopiesShareOneSeedStream) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "copies"};
  const ContextPtr ctx = Context::create(make_params(c), c.t, GetParam());
  rlwe::KeyGenerator keygen = ctx->key_generator(make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const auto pk = rlwe::share(keygen.public_key(sk));
  const Seed seed = make_seed(rng);
  const Encryptor first = ctx->encryptor(pk, seed);
  const Encryptor second = first;  // NOLINT(performance-unnecessary-copy-initialization)
  const Encryptor reference(ctx, std::make_shared<const rlwe::Encryptor>(pk, seed));
  const Plaintext pt = ctx->encode(std::vector<std::uint64_t>{1, 2, 3});
  const Ciphertext a = first.encrypt(pt), b = second.encrypt(pt);
  EXPECT_FALSE(same(a[1], b[1]));
  EXPECT_TRUE(same(a[1], reference.encrypt(pt)[1]));
  EXPECT_TRUE(same(b[1], reference.encrypt(pt)[1]));
}

// The free functions of bgv.hpp are deprecated forwards: the same words as the classes from the
// same seeds, the same refusals.
TEST_P(BgvContextFactories, DeprecatedFreeFunctionsForwardToTheClasses) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "deprecated"};
  const ContextPtr ctx = Context::create(make_params(c), c.t, GetParam());
  const ContextPtr other = Context::create(make_params(c), c.t, GetParam());
  rlwe::KeyGenerator keygen = ctx->key_generator(make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const Seed seed = make_seed(rng);
  const Plaintext pt = ctx->encode(random_slots(rng, ctx->n(), c.t));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const Ciphertext ct = encrypt(*ctx, rlwe::Encryptor(pk, seed), pt);
  const Plaintext back = decrypt(*ctx, ct, sk);
  const int budget = noise_budget(*ctx, ct, sk);
  EXPECT_THROW((void)encrypt(*other, rlwe::Encryptor(pk, seed), pt), MismatchedContext);
  EXPECT_THROW((void)decrypt(*other, ct, sk), MismatchedContext);
#pragma GCC diagnostic pop
  const Ciphertext want = ctx->encryptor(pk, seed).encrypt(pt);
  for (std::size_t j = 0; j < 2; ++j) EXPECT_TRUE(same(ct[j], want[j])) << j;
  EXPECT_EQ(back.coeffs, pt.coeffs);
  EXPECT_EQ(back.coeffs, ctx->decryptor(sk).decrypt(ct).coeffs);
  EXPECT_EQ(budget, ctx->decryptor(sk).noise_budget(ct));
  EXPECT_GT(budget, 0);
}

TEST_P(BgvContextFactories, RefuseForeignAndNullKeys) {
  const Case c{12, {36, 36}, {37}, 65537, "refusals"};
  const ContextPtr ctx = Context::create(make_params(c), c.t, GetParam());
  const ContextPtr other = Context::create(make_params(c), c.t, GetParam());  // another object
  rlwe::KeyGenerator keygen = other->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const std::int64_t steps[] = {1};
  const rlwe::GaloisKeys galois = keygen.rotation_keys(sk, steps);
  const auto refused = [](const auto& make, const char* what) {
    polyhe::test::expect_error<MismatchedContext>(make, what);
  };
  refused([&] { (void)ctx->encryptor(pk); }, "bgv::Context::encryptor (public key)");
  refused([&] { (void)ctx->encryptor(sk); }, "bgv::Context::encryptor (secret key)");
  refused([&] { (void)ctx->decryptor(sk); }, "bgv::Decryptor");
  refused([&] { (void)ctx->evaluator(relin); }, "bgv::Evaluator");
  refused([&] { (void)ctx->evaluator(nullptr, rlwe::share(galois)); }, "bgv::Evaluator");
  EXPECT_THROW((void)ctx->encryptor(std::shared_ptr<const rlwe::PublicKey>{}), InvalidParameter);
  EXPECT_THROW((void)ctx->encryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW((void)ctx->decryptor(std::shared_ptr<const rlwe::SecretKey>{}), InvalidParameter);
  EXPECT_THROW(Encryptor(ctx, nullptr), InvalidParameter);
  EXPECT_THROW(Encryptor(nullptr, std::make_shared<const rlwe::Encryptor>(pk)), InvalidParameter);

  // An encryptor of this context's key refuses nothing of its own, and a foreign encryptor put
  // beside this context is refused at encryption.
  const Encryptor foreign(ctx, std::make_shared<const rlwe::Encryptor>(pk));
  EXPECT_THROW((void)foreign.encrypt(ctx->encode(std::vector<std::uint64_t>{1})),
               MismatchedContext);
}

INSTANTIATE_TEST_SUITE_P(BothSchemes, BgvContextFactories,
                         ::testing::Values(Scheme::bgv, Scheme::bfv), scheme_name);

}  // namespace
}  // namespace polyhe::bgv
