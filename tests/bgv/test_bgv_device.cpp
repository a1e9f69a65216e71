// BFV and BGV (the one evaluator in both modes) on a device against the CPU, word for word: the
// same keys moved to the device, the same encryption seeds, every evaluator operation (HPS
// multiplication, relinearisation with and without the error multiple t, modulus switching in both
// modes, BGV's level and factor alignment, rotations, plaintext operations) run on both, and every
// device ciphertext equal to the CPU's in every word, level and factor; decryption and the noise
// budget of the device's results agree. Built against the emulated device (label unit) and, with
// CUDA, against the GPU (label gpu).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/slot_array.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_device.hpp"
#include "support/twin.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

using polyhe::test::expect_same;

/// The keys and evaluator of one parameter set under one scheme, on the host and on the device,
/// and seeded encryptors that make the same ciphertexts on both.
struct Twin {
  Twin(const Case& c, Scheme scheme, test::TestRng& rng, const std::shared_ptr<Device>& dev,
       const std::vector<std::int64_t>& steps)
      : host(c, scheme, rng, steps),
        sk(host.sk.to_device(dev)),
        pk(host.pk.to_device(dev)),
        relin(host.relin.to_device(dev)),
        galois(host.galois.to_device(dev)),
        ev(host.ctx, rlwe::share(relin), rlwe::share(galois)),
        pk_seed(make_seed(rng)),
        sk_seed(make_seed(rng)),
        h_pk(host.ctx->encryptor(host.pk, pk_seed)),
        d_pk(host.ctx->encryptor(pk, pk_seed)),
        h_sk(host.ctx->encryptor(host.sk, sk_seed)),
        d_sk(host.ctx->encryptor(sk, sk_seed)),
        dec(host.ctx->decryptor(sk)) {}
  SchemeFixture host;
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey relin;
  rlwe::GaloisKeys galois;
  Evaluator ev;
  Seed pk_seed;
  Seed sk_seed;
  // Host and device encryptors of one seed: the same draws, so the same ciphertexts.
  Encryptor h_pk, d_pk, h_sk, d_sk;
  // The device key's decryptor (the host key's: host.dec).
  Decryptor dec;
};

class SchemeDevice : public ::testing::TestWithParam<std::tuple<Scheme, Case>> {};

TEST_P(SchemeDevice, EveryOperationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const Scheme scheme = std::get<0>(GetParam());
  const Case c = std::get<1>(GetParam());
  const bool bfv = scheme == Scheme::bfv;
  const std::vector<std::int64_t> steps = {1, 2, 3, -5};
  Twin f(c, scheme, rng, dev, steps);
  const Context& ctx = *f.host.ctx;
  const Evaluator& he = f.host.ev;
  const Evaluator& de = f.ev;
  const std::size_t n = ctx.n();
  const auto x = random_slots(rng, n, c.t), y = random_slots(rng, n, c.t);
  const Plaintext px = f.host.encode(x), py = f.host.encode(y);
  const Ciphertext hx = f.h_pk.encrypt(px), dx = f.d_pk.encrypt(px);
  expect_same(hx, dx, "public-key encrypt");
  const Ciphertext hy = f.h_sk.encrypt(py), dy = f.d_sk.encrypt(py);
  expect_same(hy, dy, "symmetric encrypt");
  EXPECT_EQ(f.dec.decrypt(dx).coeffs, px.coeffs);
  EXPECT_EQ(f.dec.noise_budget(dx), f.host.dec.noise_budget(hx));
  EXPECT_EQ(f.dec.noise_budget(dy), f.host.dec.noise_budget(hy));

  expect_same(he.add(hx, hy), de.add(dx, dy), "add");
  expect_same(he.sub(hx, hy), de.sub(dx, dy), "sub");
  expect_same(he.negate(hx), de.negate(dx), "negate");
  expect_same(he.add_plain(hx, py), de.add_plain(dx, py), "add_plain");
  expect_same(he.sub_plain(hx, py), de.sub_plain(dx, py), "sub_plain");
  expect_same(he.multiply_plain(hx, py), de.multiply_plain(dx, py), "multiply_plain");
  const Ciphertext h3 = he.multiply(hx, hy), d3 = de.multiply(dx, dy);
  expect_same(h3, d3, bfv ? "multiply (HPS)" : "multiply");
  // multiply(x, x): BFV's tensor extends its operand once, on both.
  expect_same(he.multiply(hx, hx), de.multiply(dx, dx), "multiply, a square");
  const Ciphertext h2 = he.relinearize(h3), d2 = de.relinearize(d3);
  expect_same(h2, d2, bfv ? "relinearize" : "relinearize (error multiple t)");
  expect_same(he.multiply_relin(h2, hx), de.multiply_relin(d2, dx), "multiply_relin, depth 2");
  for (const std::int64_t s : steps) {
    expect_same(he.rotate_rows(hx, s), de.rotate_rows(dx, s), "rotate_rows " + std::to_string(s));
  }
  expect_same(he.rotate_columns(hx), de.rotate_columns(dx), "rotate_columns");
  {
    const std::vector<Ciphertext> hoisted = de.rotate_rows_many(dx, steps);
    ASSERT_EQ(hoisted.size(), steps.size());
    for (std::size_t r = 0; r < steps.size(); ++r) {
      expect_same(he.rotate_rows(hx, steps[r]), hoisted[r],
                  "rotate_rows_many, step " + std::to_string(steps[r]));
    }
  }
  const auto prod = times(x, y, c.t);
  EXPECT_EQ(ctx.batch_encoder().decode(f.dec.decrypt(d2).coeffs), prod);
  EXPECT_EQ(ctx.batch_encoder().decode(f.dec.decrypt(d3).coeffs), prod) << "size 3";
  EXPECT_EQ(f.dec.noise_budget(d2), f.host.dec.noise_budget(h2));
  if (ctx.params()->max_level() >= 1) {
    const Ciphertext hs = he.mod_switch_to_next(h2), ds = de.mod_switch_to_next(d2);
    expect_same(hs, ds, "mod_switch_to_next");
    expect_same(he.mod_switch_to(hx, 0), de.mod_switch_to(dx, 0), "mod_switch_to 0");
    EXPECT_EQ(ctx.batch_encoder().decode(f.dec.decrypt(ds).coeffs), prod);
    EXPECT_EQ(f.dec.noise_budget(ds), f.host.dec.noise_budget(hs));
    if (bfv) {
      // One level down: the operands switched alike.
      const Ciphertext hxs = he.mod_switch_to_next(hx), dxs = de.mod_switch_to_next(dx);
      expect_same(hxs, dxs, "mod_switch_to_next (fresh)");
      expect_same(he.add(hxs, hs), de.add(dxs, ds), "add one level down");
      expect_same(he.add_plain(hs, px), de.add_plain(ds, px), "add_plain one level down");
    } else {
      // Different levels and factors: aligned by switching and retargeting.
      expect_same(he.add(hx, hs), de.add(dx, ds), "add across levels and factors");
      expect_same(he.sub(hs, hy), de.sub(ds, dy), "sub across levels and factors");
      expect_same(he.add_plain(hs, px), de.add_plain(ds, px), "add_plain with a factor");
      expect_same(he.multiply_relin(hs, hx), de.multiply_relin(ds, dx),
                  "multiply_relin across levels");
    }
  }
}

// The batching sets of the CPU suite: t of 17, 20 and 40 bits, N = 2^12 … 2^14.
INSTANTIATE_TEST_SUITE_P(Sets, SchemeDevice,
                         ::testing::Combine(::testing::Values(Scheme::bfv, Scheme::bgv),
                                            ::testing::ValuesIn(batch_cases())),
                         scheme_case_name);

// BGV over Φ_m on the device (the rings device_serves: φ(m) a power of two on the fused route),
// every operation against the CPU word for word: keys moved to the device, encryption with the
// same seeds, arithmetic, multiply_relin, modulus switching, key-switched automorphisms, and
// HElib's slot rotations (SlotArray) through them.
struct PhiMCase {
  std::size_t m;
  std::vector<int> q_bits;
  u64 t;
  rlwe::SecurityLevel security;
  const char* name;
};

void PrintTo(const PhiMCase& c, std::ostream* os) {
  *os << c.name;
}

class BgvDeviceCyclotomic : public ::testing::TestWithParam<PhiMCase> {};

TEST_P(BgvDeviceCyclotomic, EveryOperationGivesTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const PhiMCase& c = GetParam();
  const auto params = phi_m_params(c.m, c.q_bits, {60}, c.security);
  ASSERT_TRUE(params->ring()->device_serves());
  const auto ctx = Context::create(params, c.t);
  rlwe::KeyGenerator keygen(params, make_seed(rng));
  const rlwe::SecretKey h_sk = keygen.secret_key();
  const rlwe::PublicKey h_pk = keygen.public_key(h_sk);
  const rlwe::KeySwitchKey h_relin = keygen.relinearization_key(h_sk);
  const SlotArray slots(ctx);
  std::vector<u64> elements = slots.rotate_elements(1);
  for (const u64 g : {u64{2}, u64{7}, u64{c.m - 1}}) {  // units of 255, 4369 and 21845
    if (std::find(elements.begin(), elements.end(), g) == elements.end()) elements.push_back(g);
  }
  const rlwe::GaloisKeys h_galois = keygen.galois_keys(h_sk, elements);
  const rlwe::SecretKey d_sk = h_sk.to_device(dev);
  const rlwe::KeySwitchKey d_relin = h_relin.to_device(dev);
  const rlwe::GaloisKeys d_galois = h_galois.to_device(dev);
  const Evaluator he(ctx, rlwe::share(h_relin), rlwe::share(h_galois));
  const Evaluator de(ctx, rlwe::share(d_relin), rlwe::share(d_galois));
  const Seed pk_seed = make_seed(rng), sk_seed = make_seed(rng);
  const Encryptor h_pk_enc = ctx->encryptor(h_pk, pk_seed);
  const Encryptor d_pk_enc = ctx->encryptor(h_pk.to_device(dev), pk_seed);
  const Encryptor h_sk_enc = ctx->encryptor(h_sk, sk_seed);
  const Encryptor d_sk_enc = ctx->encryptor(d_sk, sk_seed);
  const Decryptor h_dec = ctx->decryptor(h_sk);
  const Decryptor d_dec = ctx->decryptor(d_sk);

  const auto random_plain = [&] {
    std::vector<u64> v(ctx->n());
    for (auto& x : v) x = rng.uniform(0, c.t - 1);
    return Plaintext{v};
  };
  const Plaintext px = random_plain(), py = random_plain();
  const Ciphertext hx = h_pk_enc.encrypt(px), dx = d_pk_enc.encrypt(px);
  expect_same(hx, dx, "public-key encrypt");
  const Ciphertext hy = h_sk_enc.encrypt(py), dy = d_sk_enc.encrypt(py);
  expect_same(hy, dy, "symmetric encrypt");
  EXPECT_EQ(d_dec.decrypt(dx).coeffs, px.coeffs);
  EXPECT_EQ(d_dec.noise_budget(dy), h_dec.noise_budget(hy));

  expect_same(he.add(hx, hy), de.add(dx, dy), "add");
  expect_same(he.sub(hx, hy), de.sub(dx, dy), "sub");
  expect_same(he.negate(hx), de.negate(dx), "negate");
  expect_same(he.add_plain(hx, py), de.add_plain(dx, py), "add_plain");
  expect_same(he.multiply_plain(hx, py), de.multiply_plain(dx, py), "multiply_plain");
  const Ciphertext h3 = he.multiply(hx, hy), d3 = de.multiply(dx, dy);
  expect_same(h3, d3, "multiply");
  const Ciphertext h2 = he.relinearize(h3), d2 = de.relinearize(d3);
  expect_same(h2, d2, "relinearize");
  expect_same(he.multiply_relin(h2, hx), de.multiply_relin(d2, dx), "multiply_relin, depth 2");
  EXPECT_EQ(d_dec.decrypt(d2).coeffs, h_dec.decrypt(h2).coeffs);
  const Ciphertext hs = he.mod_switch_to_next(h2), ds = de.mod_switch_to_next(d2);
  expect_same(hs, ds, "mod_switch_to_next");
  expect_same(he.mod_switch_to(hx, 0), de.mod_switch_to(dx, 0), "mod_switch_to 0");
  expect_same(he.add(hx, hs), de.add(dx, ds), "add across levels and factors");
  expect_same(he.multiply_relin(hs, hx), de.multiply_relin(ds, dx), "multiply_relin across levels");
  EXPECT_EQ(d_dec.noise_budget(ds), h_dec.noise_budget(hs));
  for (const u64 g : elements) {
    expect_same(he.apply_galois(hx, g), de.apply_galois(dx, g),
                "apply_galois " + std::to_string(g));
  }
  expect_same(he.apply_galois(hs, 7), de.apply_galois(ds, 7), "apply_galois one level down");
  expect_same(slots.rotate(he, hx, 1), slots.rotate(de, dx, 1), "SlotArray::rotate 1");
}

std::string phi_m_case_name(const ::testing::TestParamInfo<PhiMCase>& p) {
  return p.param.name;
}

INSTANTIATE_TEST_SUITE_P(
    Rings, BgvDeviceCyclotomic,
    ::testing::Values(
        PhiMCase{255, {50, 50, 50}, 257, rlwe::SecurityLevel::insecure_none, "m255"},
        PhiMCase{4369, {60, 60, 60, 60}, 65537, rlwe::SecurityLevel::insecure_none, "m4369"},
        PhiMCase{21845, {60, 60, 60, 60, 60, 60}, 65537, rlwe::SecurityLevel::bits128, "m21845"}),
    phi_m_case_name);

// A 60-bit plaintext modulus above some ciphertext primes (the plaintext lift's wide reduction),
// coefficient encoding, on both.
TEST(BgvDeviceCoefficients, SixtyBitPlaintextModulus) {
  POLYHE_DEVICE_OR_SKIP(dev);
  POLYHE_SEEDED_RNG(rng);
  const u64 t = (u64{1} << 60) - 93;  // not prime: BGV's t need only be coprime to Q
  const Case c{14, {50, 50, 60, 60}, {60}, t, "t60"};
  Twin f(c, Scheme::bgv, rng, dev, {});
  const Context& ctx = *f.host.ctx;
  std::vector<u64> m(ctx.n());
  for (u64& v : m) v = rng.uniform(0, t - 1);
  const Plaintext pm{m};
  const Ciphertext hx = f.h_pk.encrypt(pm), dx = f.d_pk.encrypt(pm);
  expect_same(hx, dx, "encrypt");
  expect_same(f.host.ev.add_plain(hx, pm), f.ev.add_plain(dx, pm), "add_plain");
  EXPECT_EQ(f.dec.decrypt(dx).coeffs, m);
}

}  // namespace
}  // namespace polyhe::bgv
