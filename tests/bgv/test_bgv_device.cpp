// BFV and BGV on a device against the CPU, word for word: the same keys moved to the device, the
// same encryption seeds, every evaluator operation (HPS multiplication, relinearisation with and
// without the error multiple t, modulus switching, level and factor alignment, rotations,
// plaintext operations) run on both, and every device ciphertext equal to the CPU's in every
// word, level and factor; decryption and the noise budget of the device's results agree. Built
// against the emulated device (label unit) and, with CUDA, against the GPU (label gpu).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_device.hpp"
#include "support/twin.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

using polyhe::test::expect_same;

/// The keys and evaluators of one parameter set, on the host and on the device, and seeded
/// encryptors that make the same ciphertexts on both.
template <class Evaluator>
struct Twin {
  Twin(const Case& c, test::TestRng& rng, const std::shared_ptr<Device>& dev,
       const std::vector<std::int64_t>& steps)
      : host(c, rng, steps),
        sk(host.sk.to_device(dev)),
        pk(host.pk.to_device(dev)),
        relin(host.relin.to_device(dev)),
        galois(host.galois.to_device(dev)),
        ev(host.ctx, rlwe::share(relin), rlwe::share(galois)),
        pk_seed(make_seed(rng)),
        sk_seed(make_seed(rng)),
        h_pk(host.pk, pk_seed),
        d_pk(pk, pk_seed),
        h_sk(host.sk, sk_seed),
        d_sk(sk, sk_seed) {}
  SchemeFixture<Evaluator> host;
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey relin;
  rlwe::GaloisKeys galois;
  Evaluator ev;
  Seed pk_seed;
  Seed sk_seed;
  // Host and device encryptors of one seed: the same draws, so the same ciphertexts.
  rlwe::Encryptor h_pk, d_pk, h_sk, d_sk;
};

class BfvDevice : public ::testing::TestWithParam<Case> {};

TEST_P(BfvDevice, EveryOperationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  const std::vector<std::int64_t> steps = {1, 2, -5};
  Twin<BfvEvaluator> f(c, rng, dev, steps);
  const Context& ctx = *f.host.ctx;
  const BfvEvaluator& he = f.host.ev;
  const BfvEvaluator& de = f.ev;
  const std::size_t n = ctx.n();
  const auto x = random_slots(rng, n, c.t), y = random_slots(rng, n, c.t);
  const Plaintext px = f.host.encode(x), py = f.host.encode(y);
  const Ciphertext hx = bfv_encrypt(ctx, f.h_pk, px), dx = bfv_encrypt(ctx, f.d_pk, px);
  expect_same(hx, dx, "public-key encrypt");
  const Ciphertext hy = bfv_encrypt(ctx, f.h_sk, py), dy = bfv_encrypt(ctx, f.d_sk, py);
  expect_same(hy, dy, "symmetric encrypt");
  EXPECT_EQ(bfv_decrypt(ctx, dx, f.sk).coeffs, px.coeffs);
  EXPECT_EQ(invariant_noise_budget(ctx, dx, f.sk), invariant_noise_budget(ctx, hx, f.host.sk));

  expect_same(he.add(hx, hy), de.add(dx, dy), "add");
  expect_same(he.sub(hx, hy), de.sub(dx, dy), "sub");
  expect_same(he.negate(hx), de.negate(dx), "negate");
  expect_same(he.add_plain(hx, py), de.add_plain(dx, py), "add_plain");
  expect_same(he.sub_plain(hx, py), de.sub_plain(dx, py), "sub_plain");
  expect_same(he.multiply_plain(hx, py), de.multiply_plain(dx, py), "multiply_plain");
  const Ciphertext h3 = he.multiply(hx, hy), d3 = de.multiply(dx, dy);
  expect_same(h3, d3, "multiply (HPS)");
  const Ciphertext h2 = he.relinearize(h3), d2 = de.relinearize(d3);
  expect_same(h2, d2, "relinearize");
  expect_same(he.multiply_relin(h2, hx), de.multiply_relin(d2, dx), "multiply_relin, depth 2");
  for (const std::int64_t s : steps) {
    expect_same(he.rotate_rows(hx, s), de.rotate_rows(dx, s), "rotate_rows " + std::to_string(s));
  }
  expect_same(he.rotate_columns(hx), de.rotate_columns(dx), "rotate_columns");
  const auto prod = times(x, y, c.t);
  EXPECT_EQ(ctx.batch_encoder().decode(bfv_decrypt(ctx, d2, f.sk).coeffs), prod);
  EXPECT_EQ(ctx.batch_encoder().decode(bfv_decrypt(ctx, d3, f.sk).coeffs), prod) << "size 3";
  EXPECT_EQ(invariant_noise_budget(ctx, d2, f.sk), invariant_noise_budget(ctx, h2, f.host.sk));
}

class BgvDevice : public ::testing::TestWithParam<Case> {};

TEST_P(BgvDevice, EveryOperationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  const std::vector<std::int64_t> steps = {1, 3};
  Twin<BgvEvaluator> f(c, rng, dev, steps);
  const Context& ctx = *f.host.ctx;
  const BgvEvaluator& he = f.host.ev;
  const BgvEvaluator& de = f.ev;
  const std::size_t n = ctx.n();
  const auto x = random_slots(rng, n, c.t), y = random_slots(rng, n, c.t);
  const Plaintext px = f.host.encode(x), py = f.host.encode(y);
  const Ciphertext hx = bgv_encrypt(ctx, f.h_pk, px), dx = bgv_encrypt(ctx, f.d_pk, px);
  expect_same(hx, dx, "public-key encrypt");
  const Ciphertext hy = bgv_encrypt(ctx, f.h_sk, py), dy = bgv_encrypt(ctx, f.d_sk, py);
  expect_same(hy, dy, "symmetric encrypt");
  EXPECT_EQ(bgv_decrypt(ctx, dx, f.sk).coeffs, px.coeffs);
  EXPECT_EQ(bgv_noise_budget(ctx, dy, f.sk), bgv_noise_budget(ctx, hy, f.host.sk));

  expect_same(he.add(hx, hy), de.add(dx, dy), "add");
  expect_same(he.sub(hx, hy), de.sub(dx, dy), "sub");
  expect_same(he.negate(hx), de.negate(dx), "negate");
  expect_same(he.multiply_plain(hx, py), de.multiply_plain(dx, py), "multiply_plain");
  const Ciphertext h3 = he.multiply(hx, hy), d3 = de.multiply(dx, dy);
  expect_same(h3, d3, "multiply");
  const Ciphertext h2 = he.relinearize(h3), d2 = de.relinearize(d3);
  expect_same(h2, d2, "relinearize (error multiple t)");
  for (const std::int64_t s : steps) {
    expect_same(he.rotate_rows(hx, s), de.rotate_rows(dx, s), "rotate_rows " + std::to_string(s));
  }
  expect_same(he.rotate_columns(hx), de.rotate_columns(dx), "rotate_columns");
  if (ctx.params()->max_level() >= 1) {
    const Ciphertext hs = he.mod_switch_to_next(h2), ds = de.mod_switch_to_next(d2);
    expect_same(hs, ds, "mod_switch_to_next");
    // Different levels and factors: aligned by switching and retargeting.
    expect_same(he.add(hx, hs), de.add(dx, ds), "add across levels and factors");
    expect_same(he.sub(hs, hy), de.sub(ds, dy), "sub across levels and factors");
    expect_same(he.add_plain(hs, px), de.add_plain(ds, px), "add_plain with a factor");
    expect_same(he.multiply_relin(hs, hx), de.multiply_relin(ds, dx),
                "multiply_relin across levels");
    expect_same(he.mod_switch_to(hx, 0), de.mod_switch_to(dx, 0), "mod_switch_to 0");
    const auto prod = times(x, y, c.t);
    EXPECT_EQ(ctx.batch_encoder().decode(bgv_decrypt(ctx, ds, f.sk).coeffs), prod);
    EXPECT_EQ(bgv_noise_budget(ctx, ds, f.sk), bgv_noise_budget(ctx, hs, f.host.sk));
  }
  EXPECT_EQ(ctx.batch_encoder().decode(bgv_decrypt(ctx, d3, f.sk).coeffs), times(x, y, c.t));
}

std::string case_name(const ::testing::TestParamInfo<Case>& c) {
  return c.param.name;
}

// The batching sets of the CPU suite: t of 17, 20 and 40 bits, N = 2^12 … 2^14.
INSTANTIATE_TEST_SUITE_P(Sets, BfvDevice, ::testing::ValuesIn(batch_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Sets, BgvDevice, ::testing::ValuesIn(batch_cases()), case_name);

// A 60-bit plaintext modulus above some ciphertext primes (the plaintext lift's wide reduction),
// coefficient encoding, on both.
TEST(BgvDeviceCoefficients, SixtyBitPlaintextModulus) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const u64 t = (u64{1} << 60) - 93;  // not prime: BGV's t need only be coprime to Q
  const Case c{14, {50, 50, 60, 60}, {60}, t, "t60"};
  Twin<BgvEvaluator> f(c, rng, dev, {});
  const Context& ctx = *f.host.ctx;
  std::vector<u64> m(ctx.n());
  for (u64& v : m) v = rng.uniform(0, t - 1);
  const Plaintext pm{m};
  const Ciphertext hx = bgv_encrypt(ctx, f.h_pk, pm), dx = bgv_encrypt(ctx, f.d_pk, pm);
  expect_same(hx, dx, "encrypt");
  expect_same(f.host.ev.add_plain(hx, pm), f.ev.add_plain(dx, pm), "add_plain");
  EXPECT_EQ(bgv_decrypt(ctx, dx, f.sk).coeffs, m);
}

}  // namespace
}  // namespace polyhe::bgv
