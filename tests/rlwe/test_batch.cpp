// The batch API (rlwe/batch.hpp) on a device: host ciphertexts through CKKS multiply + relinearise
// + rescale, and plaintexts through encryption with a device key, give the words of the same
// operations run item by item on the CPU, in order, for every depth; misuse is refused. Built
// against the emulated device (label unit) and, with CUDA, against the GPU (label gpu), where the
// uploads, compute and downloads of different items overlap on three streams.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/batch.hpp"
#include "support/test_device.hpp"

namespace polyhe::rlwe {
namespace {

using ckks::test::Case;

void expect_same(const Ciphertext& expect, const Ciphertext& got, std::size_t item) {
  SCOPED_TRACE("item " + std::to_string(item));
  ASSERT_FALSE(got.device()) << "the batch hands results back in host memory";
  ASSERT_EQ(got.size(), expect.size());
  ASSERT_EQ(got.level(), expect.level());
  EXPECT_EQ(got.scale(), expect.scale());
  EXPECT_EQ(got.factor(), expect.factor());
  for (std::size_t p = 0; p < expect.size(); ++p) {
    EXPECT_TRUE(std::equal(got[p].data().begin(), got[p].data().end(), expect[p].data().begin()))
        << "part " << p;
  }
}

class Batch : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Batch, CiphertextsThroughMultiplyRescaleEqualTheCpu) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const auto params = ckks::test::make_params(Case{12, {60, 40, 40}, {60}, 0, 40});
  const double scale = std::ldexp(1.0, 40);
  const ckks::ContextPtr ctx = ckks::Context::create(params, scale);
  KeyGenerator keygen(params, ckks::test::make_seed(rng));
  const SecretKey sk = keygen.secret_key();
  const KeySwitchKey rlk = keygen.relinearization_key(sk);
  const KeySwitchKey d_rlk = rlk.to_device(dev);
  const ckks::Evaluator host(params, rlwe::share(rlk)), device(params, rlwe::share(d_rlk));
  const ckks::Encryptor enc = ctx->encryptor(sk, ckks::test::make_seed(rng));
  const auto y = ckks::test::random_values(rng, params->n() / 2);
  const Ciphertext cy = enc.encrypt(ctx->encode(y, 2, scale));
  const Ciphertext d_cy = cy.to_device(dev);  // resident operand
  std::vector<Ciphertext> items;
  for (int i = 0; i < 7; ++i) {
    const auto x = ckks::test::random_values(rng, params->n() / 2);
    items.push_back(enc.encrypt(ctx->encode(x, 2, scale)));
  }
  const std::vector<Ciphertext> out = map_on_device(
      dev, items,
      [&](const Ciphertext& x) { return device.rescale(device.multiply_relin(x, d_cy)); },
      GetParam());
  ASSERT_EQ(out.size(), items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    expect_same(host.rescale(host.multiply_relin(items[i], cy)), out[i], i);
  }
}

TEST_P(Batch, PlaintextsThroughEncryptionEqualTheCpu) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const auto params = ckks::test::make_params(Case{11, {50, 40}, {50}, 0, 30});
  const ckks::ContextPtr ctx = ckks::Context::create(params, std::ldexp(1.0, 30));
  KeyGenerator keygen(params, ckks::test::make_seed(rng));
  const SecretKey sk = keygen.secret_key();
  const PublicKey pk = keygen.public_key(sk);
  const PublicKey d_pk = pk.to_device(dev);
  const Seed seed = ckks::test::make_seed(rng);
  Encryptor host(pk, seed), device(d_pk, seed);  // the same draws, item by item
  std::vector<RnsPoly> plaintexts;
  for (int i = 0; i < 5; ++i) {
    const auto x = ckks::test::random_values(rng, params->n() / 2);
    plaintexts.push_back(ctx->encode(x, 1, std::ldexp(1.0, 30)).poly);
  }
  const std::vector<Ciphertext> out = map_on_device(
      dev, plaintexts, [&](const RnsPoly& m) { return device.encrypt(m); }, GetParam());
  for (std::size_t i = 0; i < plaintexts.size(); ++i) {
    expect_same(host.encrypt(plaintexts[i]), out[i], i);
  }
}

INSTANTIATE_TEST_SUITE_P(Depths, Batch, ::testing::Values(1, 2, 3, 16));

TEST(BatchErrors, RefusedWithTheReason) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const auto params = ckks::test::make_params(Case{10, {50, 40}, {50}, 0, 30});
  KeyGenerator keygen(params, ckks::test::make_seed(rng));
  const SecretKey sk = keygen.secret_key();
  Encryptor enc(sk);
  const Ciphertext a = enc.encrypt_zero(1), b = enc.encrypt_zero(0);
  const auto identity = [](const Ciphertext& x) { return x; };
  EXPECT_THROW((void)map_on_device(nullptr, std::vector<Ciphertext>{a}, identity),
               InvalidParameter);
  EXPECT_THROW((void)map_on_device(dev, std::vector<Ciphertext>{a}, identity, 0), InvalidParameter);
  try {
    (void)map_on_device(dev, std::vector<Ciphertext>{a, b}, identity);
    FAIL() << "items of two levels";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("input 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)map_on_device(dev, std::vector<Ciphertext>{a.to_device(dev)}, identity),
               InvalidParameter);
  EXPECT_THROW((void)map_on_device(dev, std::vector<Ciphertext>{a},
                                   [](const Ciphertext& x) { return x.to_host(); }),
               InvalidParameter)
      << "a result off the device";
  // Empty batches are fine.
  EXPECT_TRUE(map_on_device(dev, std::vector<Ciphertext>{}, identity).empty());
}

}  // namespace
}  // namespace polyhe::rlwe
