// Serialisation of CKKS plaintexts (and of CKKS ciphertexts through rlwe's format): round trips
// that decode to the same slots, and corrupt input giving CorruptData or MismatchedContext.
#include "polyhe/ckks/serial.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using Bytes = std::vector<std::uint8_t>;
using ckks::Plaintext;
using rlwe::ParametersPtr;
using test::TestRng;

constexpr std::size_t kHdr = serial::kHeaderBytes;
constexpr std::size_t kLevelAt = kHdr, kScaleAt = kHdr + 8, kPolyAt = kHdr + 16;

ParametersPtr make_params(int log_n, std::vector<int> q_bits = {50, 40, 40}) {
  rlwe::ParametersLiteral lit;
  lit.log_n = log_n;
  lit.q_bits = std::move(q_bits);
  lit.p_bits = {50};
  lit.security = rlwe::SecurityLevel::insecure_none;
  return rlwe::Parameters::create(lit);
}

Seed seed_from(TestRng& rng) {
  Seed s;
  for (std::uint8_t& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

std::vector<std::complex<double>> random_slots(TestRng& rng, std::size_t count) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::complex<double>> z(count);
  for (auto& v : z) v = {u(rng.engine()), u(rng.engine())};
  return z;
}

bool same_plaintext(const Plaintext& a, const Plaintext& b) {
  return a.poly.context() == b.poly.context() && a.poly.limbs() == b.poly.limbs() &&
         a.poly.form() == b.poly.form() && std::ranges::equal(a.poly.data(), b.poly.data()) &&
         std::bit_cast<std::uint64_t>(a.scale) == std::bit_cast<std::uint64_t>(b.scale);
}

Bytes with_u64(Bytes b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  return b;
}

enum class Outcome { loaded, corrupt, mismatched };

// Loads (and re-serialises: a successful load must describe exactly its bytes); any exception
// other than CorruptData / MismatchedContext fails the test.
Outcome run(const ParametersPtr& params, const Bytes& bytes, const std::string& what) {
  try {
    EXPECT_EQ(ckks::serialize(ckks::load_plaintext(bytes, params)), bytes) << what;
    return Outcome::loaded;
  } catch (const CorruptData&) {
    return Outcome::corrupt;
  } catch (const MismatchedContext&) {
    return Outcome::mismatched;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": unexpected exception " << e.what();
    return Outcome::loaded;
  }
}

void expect_corrupt(const ParametersPtr& params, const Bytes& bytes, const std::string& what) {
  EXPECT_EQ(run(params, bytes, what), Outcome::corrupt) << what;
}

// A plaintext at `level`: encoded slots when the encoder works, else a random polynomial.
Plaintext make_plaintext(const ParametersPtr& params, TestRng& rng, std::size_t level,
                         double scale) {
  const ckks::ContextPtr ctx = ckks::Context::create(params, scale);
  return ctx->encode(random_slots(rng, ctx->slots()), level, scale);
}

TEST(CkksSerial, PlaintextRoundTrip) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const ckks::ContextPtr ctx = ckks::Context::create(params);
  for (std::size_t level = 0; level <= params->max_level(); ++level) {
    const double scale = std::ldexp(1.0, 30 + static_cast<int>(level));
    const Plaintext pt = make_plaintext(params, rng, level, scale);
    const Bytes bytes = ckks::serialize(pt);
    EXPECT_EQ(bytes.size(), kPolyAt + (level + 1) * params->n() * 8);
    const Plaintext loaded = ckks::load_plaintext(bytes, params);
    EXPECT_TRUE(same_plaintext(loaded, pt)) << "level " << level;
    EXPECT_EQ(loaded.level(), level);
    EXPECT_EQ(loaded.params, params);
    const auto a = ctx->decode(pt);
    const auto b = ctx->decode(loaded);
    EXPECT_EQ(a, b);
  }
}

TEST(CkksSerial, RandomPolynomialPlaintextRoundTrip) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(5);
  Plaintext pt{params, RnsPoly(params->ring(), 2, PolyForm::kEvaluation), 1234.5};
  Prng prng(seed_from(rng));
  sample_uniform(prng, pt.poly);
  EXPECT_TRUE(same_plaintext(ckks::load_plaintext(ckks::serialize(pt), params), pt));
  // Only evaluation form over the parameters' ring is written.
  Plaintext coeff{params, RnsPoly(params->ring(), 2, PolyForm::kCoefficient), 1.0};
  EXPECT_THROW((void)ckks::serialize(coeff), InvalidParameter);
  Plaintext too_many{params, RnsPoly(params->ring(), 4, PolyForm::kEvaluation), 1.0};
  EXPECT_THROW((void)ckks::serialize(too_many), InvalidParameter);
}

TEST(CkksSerial, CiphertextRoundTripDecodes) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const double scale = std::ldexp(1.0, 35);
  const ckks::ContextPtr ctx = ckks::Context::create(params, scale);
  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const auto slots = random_slots(rng, ctx->slots());
  const Plaintext pt = ctx->encode(slots, params->max_level(), scale);
  const ckks::Encryptor sym = ctx->encryptor(sk, seed_from(rng));
  const ckks::Encryptor pub = ctx->encryptor(pk, seed_from(rng));
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  for (const ckks::Encryptor* enc : {&sym, &pub}) {
    const rlwe::Ciphertext ct = enc->encrypt(pt);
    const Bytes bytes = ckks::serialize(ct);
    const rlwe::Ciphertext loaded = ckks::load_ciphertext(bytes, params);
    EXPECT_EQ(loaded.scale(), scale);
    EXPECT_EQ(loaded.seed(), ct.seed());
    const auto out = ctx->decode(decryptor.decrypt(loaded));
    double err = 0;
    for (std::size_t i = 0; i < slots.size(); ++i) err = std::max(err, std::abs(out[i] - slots[i]));
    EXPECT_LT(err, 1e-6);
  }
}

TEST(CkksSerial, OtherParametersAreMismatchedContext) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(5);
  const ParametersPtr other = make_params(5, {50, 40, 30});
  const ParametersPtr same = make_params(5);
  const Bytes bytes = ckks::serialize(make_plaintext(params, rng, 2, 1e6));
  EXPECT_THROW((void)ckks::load_plaintext(bytes, other), MismatchedContext);
  EXPECT_EQ(ckks::load_plaintext(bytes, same).params, same);  // equal values: loads
  EXPECT_THROW((void)ckks::load_plaintext(bytes, nullptr), InvalidParameter);
}

TEST(CkksSerial, TruncationAndTrailingBytes) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Bytes bytes = ckks::serialize(make_plaintext(params, rng, 1, 1e6));
  ASSERT_EQ(run(params, bytes, "intact"), Outcome::loaded);
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    const Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
    expect_corrupt(params, cut, "cut to " + std::to_string(len));
    if (len >= kHdr) {
      expect_corrupt(params, with_u64(cut, 16, len - kHdr), "cut, size patched");
    }
  }
  Bytes longer = bytes;
  longer.push_back(0);
  expect_corrupt(params, longer, "a trailing byte");
  expect_corrupt(params, with_u64(longer, 16, longer.size() - kHdr),
                 "a trailing byte, size patched");
}

TEST(CkksSerial, FlippedBytes) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Bytes bytes = ckks::serialize(make_plaintext(params, rng, 2, 1e6));
  for (std::size_t bit = 0; bit < 8 * kHdr; ++bit) {
    Bytes b = bytes;
    b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    if (b[4] == 2 && b[5] == 0) {
      // Version 3 → 2: a version this build reads, with the same plaintext payload.
      EXPECT_EQ(ckks::serialize(ckks::load_plaintext(b, params)), bytes) << bit;
      continue;
    }
    EXPECT_NE(run(params, b, "header bit " + std::to_string(bit)), Outcome::loaded) << bit;
  }
  for (std::size_t at = kHdr; at < bytes.size(); ++at) {
    Bytes b = bytes;
    b[at] ^= static_cast<std::uint8_t>(rng.uniform(1, 255));
    EXPECT_NE(run(params, b, "byte " + std::to_string(at)), Outcome::mismatched) << at;
  }
}

TEST(CkksSerial, BadFields) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Bytes bytes = ckks::serialize(make_plaintext(params, rng, 2, 1e6));
  const std::uint64_t big = std::uint64_t{1} << 60;
  for (const std::uint64_t level : {std::uint64_t{1}, std::uint64_t{3}, big}) {
    expect_corrupt(params, with_u64(bytes, kLevelAt, level), "level " + std::to_string(level));
  }
  for (const double scale : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()}) {
    expect_corrupt(params, with_u64(bytes, kScaleAt, std::bit_cast<std::uint64_t>(scale)),
                   "scale " + std::to_string(scale));
  }
  const std::size_t n = params->n();
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint64_t q = params->q_primes()[i];
    const std::size_t at = kPolyAt + 8 * (i * n + rng.uniform(0, n - 1));
    expect_corrupt(params, with_u64(bytes, at, q), "limb " + std::to_string(i) + " word = q");
    EXPECT_EQ(run(params, with_u64(bytes, at, q - 1), "q − 1"), Outcome::loaded);
  }
  Bytes magic = bytes;
  magic[0] ^= 1;
  expect_corrupt(params, magic, "bad magic");
  Bytes version = bytes;
  version[4] = 7;
  expect_corrupt(params, version, "bad version");
  // Another kind: a ciphertext, parameters.
  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  rlwe::Encryptor enc(sk, seed_from(rng));
  expect_corrupt(params, rlwe::serialize(enc.encrypt_zero(2)), "a ciphertext");
  expect_corrupt(params, rlwe::serialize(*params), "parameters");
  EXPECT_THROW((void)ckks::load_ciphertext(bytes, params), CorruptData);
}

// CKKS's own rules on load (issue 19): a scale in [1, 2^(bits(Q_l) − 1)) for plaintexts and
// ciphertexts, and a ciphertext factor of 1. A scale of 1e-300 used to load and decode to NaN.
TEST(CkksSerial, ScaleAndFactorMustBeCkks) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);  // Q_2 = 50 + 40 + 40 bits
  const Bytes pt_bytes = ckks::serialize(make_plaintext(params, rng, 2, 1e6));
  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  rlwe::Encryptor enc(sk, seed_from(rng));
  rlwe::Ciphertext ct = enc.encrypt_zero(2);
  ct.set_scale(1e6);
  const Bytes ct_bytes = ckks::serialize(ct);
  // origin | level u64 | size u64 | scale f64 | factor u64
  constexpr std::size_t kCtScaleAt = kHdr + rlwe::kOriginBytes + 16;
  constexpr std::size_t kCtFactorAt = kCtScaleAt + 8;
  const int bits = params->q_basis().product_bits();
  const auto load_ct = [&](const Bytes& b) {
    return ckks::serialize(ckks::load_ciphertext(b, params));
  };
  for (const double scale : {1e-300, 0.5, std::nextafter(1.0, 0.0), std::ldexp(1.0, bits - 1),
                             std::ldexp(1.0, bits + 10), 1e300}) {
    const std::uint64_t word = std::bit_cast<std::uint64_t>(scale);
    const std::string what = "scale " + std::to_string(std::log2(scale));
    expect_corrupt(params, with_u64(pt_bytes, kScaleAt, word), "plaintext " + what);
    try {
      (void)load_ct(with_u64(ct_bytes, kCtScaleAt, word));
      ADD_FAILURE() << "ciphertext " << what << " loaded";
    } catch (const CorruptData& e) {
      EXPECT_NE(std::string(e.what()).find("range of a CKKS scale"), std::string::npos) << e.what();
    }
  }
  for (const double scale : {1.0, std::ldexp(1.0, bits - 2), std::ldexp(1.0, 40)}) {
    const std::uint64_t word = std::bit_cast<std::uint64_t>(scale);
    EXPECT_EQ(run(params, with_u64(pt_bytes, kScaleAt, word), "plaintext ok"), Outcome::loaded);
    EXPECT_EQ(load_ct(with_u64(ct_bytes, kCtScaleAt, word)), with_u64(ct_bytes, kCtScaleAt, word));
  }
  // rlwe accepts a factor (BGV's); CKKS does not.
  const Bytes factor3 = with_u64(ct_bytes, kCtFactorAt, 3);
  EXPECT_NO_THROW((void)rlwe::load_ciphertext(factor3, params));
  EXPECT_THROW((void)load_ct(factor3), CorruptData);
  EXPECT_EQ(load_ct(ct_bytes), ct_bytes);
}

// A CKKS ciphertext's bytes record the scheme and the key set (ckks::origin): another key set's
// and a BGV/BFV ciphertext's bytes are refused by name (they loaded and decrypted to garbage).
TEST(CkksSerial, CiphertextsRecordSchemeAndKey) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeyId key = rlwe::key_id(keygen.public_key(sk));
  const rlwe::KeyId other = rlwe::key_id(keygen.public_key(keygen.secret_key()));
  rlwe::Encryptor enc(sk, seed_from(rng));
  rlwe::Ciphertext ct = enc.encrypt_zero(2);
  ct.set_scale(1e6);
  const Bytes bytes = ckks::serialize(ct, ckks::origin(key));
  EXPECT_EQ(bytes[kHdr], static_cast<std::uint8_t>(rlwe::SchemeTag::ckks));
  EXPECT_EQ(ckks::serialize(ckks::load_ciphertext(bytes, params, key), ckks::origin(key)), bytes);
  EXPECT_NO_THROW((void)ckks::load_ciphertext(bytes, params));
  try {
    (void)ckks::load_ciphertext(bytes, params, other);
    ADD_FAILURE() << "another key set's ciphertext loaded";
  } catch (const MismatchedContext& e) {
    EXPECT_NE(std::string(e.what()).find("key id: the ciphertext was made under key set " +
                                         rlwe::to_hex(key) + ", the context holds key set " +
                                         rlwe::to_hex(other)),
              std::string::npos)
        << e.what();
  }
  // Scale 1 and factor 1: a BGV/BFV ciphertext that CKKS's own rules cannot tell apart.
  rlwe::Ciphertext integer = enc.encrypt_zero(2);
  for (const rlwe::SchemeTag s : {rlwe::SchemeTag::bgv, rlwe::SchemeTag::bfv}) {
    const Bytes b = rlwe::serialize(integer, rlwe::Origin{s, 65537, key});
    EXPECT_NO_THROW((void)rlwe::load_ciphertext(b, params));
    try {
      (void)ckks::load_ciphertext(b, params, key);
      ADD_FAILURE() << "a " << rlwe::to_string(s) << " ciphertext loaded as CKKS";
    } catch (const MismatchedContext& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("the bytes hold a ") + rlwe::to_string(s) +
                                           " ciphertext, the context is CKKS"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace polyhe
