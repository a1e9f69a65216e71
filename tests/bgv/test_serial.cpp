// Serialisation round trips of BFV/BGV objects: plaintexts (kind 8) and ciphertexts (rlwe's, with
// BGV's plaintext factor), full and seeded, and the validation of corrupt or foreign bytes.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;
using Bytes = std::vector<std::uint8_t>;

rlwe::ParametersPtr small_params() {
  rlwe::ParametersLiteral lit;
  lit.log_n = 12;
  lit.q_bits = {36, 36};
  lit.p_bits = {37};
  return rlwe::Parameters::create(lit);
}

void set_u64(Bytes& b, std::size_t at, u64 v) {
  for (int i = 0; i < 8; ++i)
    b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

TEST(BgvSerial, PlaintextRoundTripAndValidation) {
  POLYHE_SEEDED_RNG(rng);
  const ContextPtr ctx = Context::create(small_params(), 65537);
  const std::size_t n = ctx->n();
  const Plaintext pt{ctx->batch_encoder().encode(random_slots(rng, n, 65537))};
  const Bytes bytes = serialize(pt, *ctx);
  EXPECT_EQ(bytes.size(), serial::kHeaderBytes + 16 + 8 * n);
  EXPECT_EQ(load_plaintext(bytes, *ctx).coeffs, pt.coeffs);

  // A coefficient ≥ t, a wrong N, truncation, trailing bytes: CorruptData.
  Bytes big = bytes;
  set_u64(big, serial::kHeaderBytes + 16 + 8 * 5, 65537);
  EXPECT_THROW((void)load_plaintext(big, *ctx), CorruptData);
  Bytes wrong_n = bytes;
  set_u64(wrong_n, serial::kHeaderBytes + 8, n / 2);
  EXPECT_THROW((void)load_plaintext(wrong_n, *ctx), CorruptData);
  EXPECT_THROW((void)load_plaintext(Bytes(bytes.begin(), bytes.end() - 1), *ctx), CorruptData);
  Bytes longer = bytes;
  longer.push_back(0);
  EXPECT_THROW((void)load_plaintext(longer, *ctx), CorruptData);
  for (std::size_t cut = 0; cut < serial::kHeaderBytes + 20; cut += 3) {
    EXPECT_THROW(
        (void)load_plaintext(Bytes(bytes.begin(), bytes.begin() + static_cast<long>(cut)), *ctx),
        CorruptData)
        << "cut at " << cut;
  }
  // Another t on the same parameters, and other parameters: MismatchedContext naming the values.
  const ContextPtr other_t = Context::create(ctx->params(), 257);
  try {
    (void)load_plaintext(bytes, *other_t);
    FAIL() << "loaded under another t";
  } catch (const MismatchedContext& e) {
    EXPECT_NE(std::string(e.what()).find("65537"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("257"), std::string::npos) << e.what();
  }
  const ContextPtr other = Context::create(small_params(), 65537);
  EXPECT_NO_THROW((void)load_plaintext(bytes, *other));  // same values: the hash agrees
  rlwe::ParametersLiteral lit = ctx->params()->literal();
  lit.q.back() = ntt_primes(35, n, 1)[0];
  EXPECT_THROW((void)load_plaintext(bytes, *Context::create(rlwe::Parameters::create(lit), 65537)),
               MismatchedContext);
  // Serialising a plaintext that does not fit the context.
  EXPECT_THROW((void)serialize(Plaintext{std::vector<u64>(n - 1)}, *ctx), InvalidParameter);
}

TEST(BgvSerial, CiphertextsKeepTheirFactorAndDecrypt) {
  POLYHE_SEEDED_RNG(rng);
  const ContextPtr ctx = Context::create(small_params(), 65537);
  // BFV on the same parameters (and so the same keys).
  const ContextPtr bfv_ctx = Context::create(ctx->params(), 65537, Scheme::bfv);
  const std::size_t n = ctx->n();
  rlwe::KeyGenerator keygen(ctx->params(), make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  // The public-key encryptor (one stream of seeds) serves both contexts.
  const Encryptor pk_enc = ctx->encryptor(pk, make_seed(rng));
  const Encryptor bfv_sk_enc = bfv_ctx->encryptor(sk, make_seed(rng));
  const Encryptor bfv_pk_enc = rebind(pk_enc, bfv_ctx);
  const Decryptor dec = ctx->decryptor(sk), bfv_dec = bfv_ctx->decryptor(sk);
  const auto x = random_slots(rng, n, 65537);
  const Plaintext pt{ctx->batch_encoder().encode(x)};
  const Evaluator bgv(ctx, rlwe::share(relin));

  // BFV, public-key and symmetric (seeded: half size).
  const Ciphertext b_pk = bfv_pk_enc.encrypt(pt);
  const Ciphertext b_sk = bfv_sk_enc.encrypt(pt);
  const Bytes full = rlwe::serialize(b_pk);
  const Bytes seeded = rlwe::serialize(b_sk);
  EXPECT_LT(seeded.size(), full.size() * 2 / 3);
  EXPECT_EQ(bfv_dec.decrypt(load_ciphertext(full, *bfv_ctx)).coeffs, pt.coeffs);
  EXPECT_EQ(bfv_dec.decrypt(load_ciphertext(seeded, *bfv_ctx)).coeffs, pt.coeffs);

  // BGV after a modulus switch: the factor q_L^−1 mod t survives the round trip.
  const Ciphertext g = bgv.mod_switch_to_next(pk_enc.encrypt(pt));
  ASSERT_NE(g.factor(), 1U);
  const Ciphertext back = load_ciphertext(rlwe::serialize(g), *ctx);
  EXPECT_EQ(back.factor(), g.factor());
  EXPECT_EQ(back.level(), g.level());
  EXPECT_EQ(ctx->batch_encoder().decode(dec.decrypt(back).coeffs), x);
  // Size 3 (before relinearisation).
  const Ciphertext three = bgv.multiply(pk_enc.encrypt(pt), pk_enc.encrypt(pt));
  const Ciphertext three_back = load_ciphertext(rlwe::serialize(three), *ctx);
  EXPECT_EQ(dec.decrypt(three_back).coeffs, dec.decrypt(three).coeffs);
}

// The scheme's rules on load (issue 19): scale 1; BGV's factor a unit below t (decryption divides
// by it); BFV's factor 1. rlwe alone cannot check them: it does not know t.
TEST(BgvSerial, CiphertextFactorAndScaleAreChecked) {
  POLYHE_SEEDED_RNG(rng);
  const std::uint64_t t = 65536;  // composite: 2 is not a unit
  const ContextPtr ctx = Context::create(small_params(), t);
  const ContextPtr bfv_ctx = Context::create(ctx->params(), t, Scheme::bfv);
  rlwe::KeyGenerator keygen(ctx->params(), make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const Encryptor enc = ctx->encryptor(sk, make_seed(rng));
  const Bytes bytes = rlwe::serialize(enc.encrypt(Plaintext{std::vector<u64>(ctx->n(), 5)}));
  // origin | level u64 | size u64 | scale f64 | factor u64
  constexpr std::size_t kScaleAt = serial::kHeaderBytes + rlwe::kOriginBytes + 16;
  constexpr std::size_t kFactorAt = kScaleAt + 8;
  auto with = [&](std::size_t at, u64 v) {
    Bytes b = bytes;
    set_u64(b, at, v);
    return b;
  };
  auto refused = [](const std::function<void()>& load, const std::string& needle) {
    try {
      load();
      ADD_FAILURE() << "loaded; expected CorruptData with '" << needle << "'";
    } catch (const CorruptData& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  EXPECT_EQ(ctx->decryptor(sk).decrypt(load_ciphertext(bytes, *ctx)).coeffs,
            std::vector<u64>(ctx->n(), 5));
  EXPECT_EQ(load_ciphertext(with(kFactorAt, 3), *ctx).factor(), 3U);
  EXPECT_EQ(load_ciphertext(with(kFactorAt, t - 1), *ctx).factor(), t - 1);
  for (const u64 f : {u64{2}, u64{6}, t, t + 1, ~u64{0}}) {
    refused([&] { (void)load_ciphertext(with(kFactorAt, f), *ctx); }, "not a unit below t");
    EXPECT_NO_THROW((void)rlwe::load_ciphertext(with(kFactorAt, f), ctx->params()));
  }
  refused([&] { (void)load_ciphertext(with(kFactorAt, 3), *bfv_ctx); },
          "BFV has no plaintext factor");
  EXPECT_NO_THROW((void)load_ciphertext(bytes, *bfv_ctx));
  const u64 two = std::bit_cast<u64>(2.0);
  refused([&] { (void)load_ciphertext(with(kScaleAt, two), *ctx); }, "is not 1");
  refused([&] { (void)load_ciphertext(with(kScaleAt, two), *bfv_ctx); }, "is not 1");
}

// Ciphertext bytes record the scheme, t and the key set (bgv::origin): loading into a context of
// the other integer scheme, another t, another key set or CKKS is refused by name; bytes that do
// not record the key load under any key.
TEST(BgvSerial, CiphertextsRecordSchemeTAndKey) {
  POLYHE_SEEDED_RNG(rng);
  const ContextPtr ctx = Context::create(small_params(), 65537);
  const ContextPtr bfv_ctx = Context::create(ctx->params(), 65537, Scheme::bfv);
  const ContextPtr other_t = Context::create(ctx->params(), 257);
  rlwe::KeyGenerator keygen(ctx->params(), make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeyId key = rlwe::key_id(keygen.public_key(sk));
  const rlwe::KeyId other_key = rlwe::key_id(keygen.public_key(keygen.secret_key()));
  // One encryptor (one stream of seeds) for both contexts.
  const Encryptor enc = ctx->encryptor(sk, make_seed(rng));
  const Encryptor bfv_enc = rebind(enc, bfv_ctx);
  const Decryptor dec = ctx->decryptor(sk), bfv_dec = bfv_ctx->decryptor(sk);
  const Plaintext pt{std::vector<u64>(ctx->n(), 7)};
  const Bytes bytes = rlwe::serialize(enc.encrypt(pt), origin(*ctx, key));
  auto mismatch = [](const std::function<void()>& load, const std::string& needle) {
    try {
      load();
      ADD_FAILURE() << "loaded; expected MismatchedContext with '" << needle << "'";
    } catch (const MismatchedContext& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  EXPECT_EQ(dec.decrypt(load_ciphertext(bytes, *ctx, key)).coeffs, pt.coeffs);
  EXPECT_NO_THROW((void)load_ciphertext(bytes, *ctx));  // no key named: not compared
  mismatch([&] { (void)load_ciphertext(bytes, *bfv_ctx, key); },
           "the bytes hold a BGV ciphertext, the context is BFV");
  mismatch([&] { (void)load_ciphertext(bytes, *other_t, key); },
           "made for t = 65537, the context has t = 257");
  mismatch([&] { (void)load_ciphertext(bytes, *ctx, other_key); }, "key id");
  mismatch([&] { (void)ckks::load_ciphertext(bytes, ctx->params()); },
           "the bytes hold a BGV ciphertext, the context is CKKS");
  // BFV bytes into BGV, and CKKS bytes into either.
  const Bytes bfv_bytes = rlwe::serialize(bfv_enc.encrypt(pt), origin(*bfv_ctx, key));
  EXPECT_EQ(bfv_dec.decrypt(load_ciphertext(bfv_bytes, *bfv_ctx, key)).coeffs, pt.coeffs);
  mismatch([&] { (void)load_ciphertext(bfv_bytes, *ctx, key); },
           "the bytes hold a BFV ciphertext, the context is BGV");
  rlwe::Ciphertext zero = enc.rlwe_encryptor().encrypt_zero(ctx->params()->max_level());
  const Bytes ckks_bytes = rlwe::serialize(zero, ckks::origin(key));
  mismatch([&] { (void)load_ciphertext(ckks_bytes, *ctx, key); },
           "the bytes hold a CKKS ciphertext, the context is BGV");
  // Bytes recording nothing (rlwe::serialize without an origin) load as before.
  EXPECT_EQ(dec.decrypt(load_ciphertext(rlwe::serialize(enc.encrypt(pt)), *ctx, key)).coeffs,
            pt.coeffs);
  EXPECT_EQ(origin(*bfv_ctx, key).scheme, rlwe::SchemeTag::bfv);
  EXPECT_EQ(origin(*ctx).t, 65537u);
}

}  // namespace
}  // namespace polyhe::bgv
