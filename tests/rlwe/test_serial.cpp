// Serialisation of RLWE parameters, keys and ciphertexts: round trips (equal words, seeds, scale,
// factor, level, Galois elements; loaded keys still decrypt), half-size seeded objects, and corrupt
// input of every kind (truncation at every length, flipped header bits and payload bytes, bad
// fields) giving CorruptData or MismatchedContext, never a crash.
#include "polyhe/rlwe/serial.hpp"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/authentication.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using Bytes = std::vector<std::uint8_t>;
using rlwe::Ciphertext;
using rlwe::ParametersPtr;
using test::TestRng;

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

bool same_poly(const RnsPoly& a, const RnsPoly& b) {
  return a.context() == b.context() && a.limbs() == b.limbs() && a.form() == b.form() &&
         std::ranges::equal(a.data(), b.data());
}

bool same_key(const rlwe::KeySwitchKey& a, const rlwe::KeySwitchKey& b) {
  if (a.galois_element != b.galois_element || a.seed != b.seed ||
      a.parts.count() != b.parts.count()) {
    return false;
  }
  for (std::size_t j = 0; j < a.parts.count(); ++j) {
    if (!same_poly(a.parts.b(j), b.parts.b(j)) || !same_poly(a.parts.a(j), b.parts.a(j))) {
      return false;
    }
  }
  return true;
}

bool same_ciphertext(const Ciphertext& a, const Ciphertext& b) {
  if (a.level() != b.level() || a.size() != b.size() ||
      std::bit_cast<std::uint64_t>(a.scale()) != std::bit_cast<std::uint64_t>(b.scale()) ||
      a.factor() != b.factor() || a.seed() != b.seed()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!same_poly(a[i], b[i])) return false;
  }
  return true;
}

std::uint64_t get_u64(const Bytes& b, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

Bytes with_u64(Bytes b, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  return b;
}

Bytes with_u8(Bytes b, std::size_t at, std::uint8_t v) {
  b[at] = v;
  return b;
}

// Offsets in the layouts of rlwe/serial.hpp.
constexpr std::size_t kHdr = serial::kHeaderBytes;
constexpr std::size_t kHashAt = 8;
constexpr std::size_t kPayloadSizeAt = 16;
constexpr std::size_t kVersionAt = 4;
// A ciphertext: the origin block (scheme u8, t u64, key id), then level, size, scale, factor and
// the seeded flag (33 bytes), then the parts.
constexpr std::size_t kOrigin = kHdr;
constexpr std::size_t kCtFields = kHdr + rlwe::kOriginBytes + 33;

// The bytes of format version 2 that `bytes` (a version-3 ciphertext) stood for: no origin block.
Bytes as_version2_ciphertext(const Bytes& bytes) {
  Bytes out(bytes.begin(), bytes.begin() + kHdr);
  out.insert(out.end(), bytes.begin() + kHdr + rlwe::kOriginBytes, bytes.end());
  out[kVersionAt] = 2;
  return with_u64(out, kPayloadSizeAt, out.size() - kHdr);
}

// A loader under test: loads the bytes and re-serialises what it got (so a load that succeeds on
// damaged bytes can be checked to describe exactly those bytes: the encoding is canonical).
using Loader = std::function<Bytes(const Bytes&)>;

enum class Outcome { loaded, corrupt, mismatched };

// Runs the loader; any exception other than CorruptData / MismatchedContext fails the test.
Outcome run(const Loader& load, const Bytes& bytes, const std::string& what) {
  try {
    const Bytes again = load(bytes);
    EXPECT_EQ(again, bytes) << what << ": a successful load must describe exactly its bytes";
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

void expect_corrupt(const Loader& load, const Bytes& bytes, const std::string& what) {
  EXPECT_EQ(run(load, bytes, what), Outcome::corrupt) << what;
}

// The CorruptData message of a load, which must name what was wrong.
std::string corrupt_message(const Loader& load, const Bytes& bytes) {
  try {
    (void)load(bytes);
  } catch (const CorruptData& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CorruptData";
  return {};
}

// Keys and ciphertexts of one small parameter set, and a loader per object.
struct Objects {
  ParametersPtr params;
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey relin;
  rlwe::GaloisKeys galois;
  Ciphertext ct_public;  // public-key encryption at the top level: every part stored
  Ciphertext ct_seeded;  // symmetric encryption: c_0 and a seed
  Ciphertext ct_three;   // size 3 at level 1, scale 2^40

  static Objects make(const ParametersPtr& params, TestRng& rng) {
    rlwe::KeyGenerator keygen(params, seed_from(rng));
    rlwe::SecretKey sk = keygen.secret_key();
    rlwe::PublicKey pk = keygen.public_key(sk);
    rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
    const std::int64_t steps[] = {1, -1};
    rlwe::GaloisKeys galois = keygen.rotation_keys(sk, steps, true);
    rlwe::Encryptor pk_enc(pk, seed_from(rng));
    rlwe::Encryptor sk_enc(sk, seed_from(rng));
    RnsPoly m(params->ring(), params->q_count(), PolyForm::kEvaluation);
    Prng prng(seed_from(rng));
    sample_uniform(prng, m);
    Ciphertext ct_public = pk_enc.encrypt(m);
    Ciphertext ct_seeded = sk_enc.encrypt(m);
    Ciphertext ct_three(params, 1, 3, std::ldexp(1.0, 40));
    for (std::size_t i = 0; i < 3; ++i) sample_uniform(prng, ct_three[i]);
    return Objects{params,
                   std::move(sk),
                   std::move(pk),
                   std::move(relin),
                   std::move(galois),
                   std::move(ct_public),
                   std::move(ct_seeded),
                   std::move(ct_three)};
  }

  struct Case {
    std::string name;
    Bytes bytes;
    Loader load;
  };

  // Every object's bytes with a loader against `against`.
  [[nodiscard]] std::vector<Case> cases(const ParametersPtr& against) const {
    using namespace rlwe;
    // Re-serialised with the origin the bytes record (rlwe::serialize(ct) records none).
    auto ct_loader = [against](const Bytes& b) {
      return serialize(load_ciphertext(b, against), ciphertext_origin(b));
    };
    return {
        {"parameters", serialize(*params),
         [](const Bytes& b) {
           return serialize(*load_parameters(b, rlwe::SecurityLevel::insecure_none));
         }},
        {"secret key", serialize(sk),
         [against](const Bytes& b) { return serialize(load_secret_key(b, against)); }},
        {"public key", serialize(pk),
         [against](const Bytes& b) { return serialize(load_public_key(b, against)); }},
        {"relinearisation key", serialize(relin),
         [against](const Bytes& b) { return serialize(load_key_switch_key(b, against)); }},
        {"Galois keys", serialize(galois),
         [against](const Bytes& b) { return serialize(load_galois_keys(b, against)); }},
        {"public-key ciphertext", serialize(ct_public), ct_loader},
        {"seeded ciphertext", serialize(ct_seeded), ct_loader},
        {"size-3 ciphertext", serialize(ct_three), ct_loader},
    };
  }
};

// ---- round trips -----------------------------------------------------------------------------

TEST(RlweSerial, ParametersRoundTrip) {
  const std::vector<rlwe::ParametersLiteral> literals = [] {
    std::vector<rlwe::ParametersLiteral> v(3);
    v[0].log_n = 10;
    v[0].q_bits = {50, 40, 40};
    v[0].p_bits = {50};
    v[0].security = rlwe::SecurityLevel::insecure_none;
    v[1].log_n = 12;  // 85 bits: 128-bit secure at N = 2^12 (109 allowed)
    v[1].q_bits = {30, 25};
    v[1].p_bits = {30};
    v[2].log_n = 5;  // several special primes, explicit dnum, a sparse secret
    v[2].q_bits = {40, 30, 30, 30, 30};
    v[2].p_bits = {55, 55};  // P at least as wide as a digit (3 primes, 100 bits)
    v[2].dnum = 2;
    v[2].hamming_weight = 8;
    v[2].security = rlwe::SecurityLevel::insecure_none;
    return v;
  }();
  for (const auto& lit : literals) {
    const ParametersPtr params = rlwe::Parameters::create(lit);
    const Bytes bytes = rlwe::serialize(*params);
    ASSERT_EQ(bytes.size(), kHdr + params->encode_fields().size());
    EXPECT_EQ(get_u64(bytes, kHashAt), params->hash());
    const ParametersPtr loaded = rlwe::load_parameters(bytes, rlwe::SecurityLevel::insecure_none);
    EXPECT_EQ(loaded->hash(), params->hash());
    EXPECT_TRUE(loaded->same_values(*params));
    EXPECT_EQ(loaded->q_primes(), params->q_primes());
    EXPECT_EQ(loaded->p_primes(), params->p_primes());
    EXPECT_EQ(loaded->dnum(), params->dnum());
    EXPECT_EQ(loaded->hamming_weight(), params->hamming_weight());
    EXPECT_EQ(loaded->security(), params->security());
    EXPECT_EQ(rlwe::serialize(*loaded), bytes);
  }
}

TEST(RlweSerial, KeysRoundTrip) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const Objects o = Objects::make(params, rng);

  const rlwe::SecretKey sk = rlwe::load_secret_key(rlwe::serialize(o.sk), params);
  EXPECT_TRUE(same_poly(sk.s, o.sk.s));
  EXPECT_EQ(sk.params, params);

  const Bytes pk_bytes = rlwe::serialize(o.pk);
  const rlwe::PublicKey pk = rlwe::load_public_key(pk_bytes, params);
  EXPECT_TRUE(same_poly(pk.b, o.pk.b));
  EXPECT_TRUE(same_poly(pk.a, o.pk.a));  // regenerated from the seed
  EXPECT_EQ(pk.seed, o.pk.seed);
  // b and a seed: half of what both halves would take.
  const std::size_t half = (params->q_count() + params->p_count()) * params->n() * 8;
  EXPECT_EQ(pk_bytes.size(), kHdr + 8 + kSeedBytes + half);

  const Bytes relin_bytes = rlwe::serialize(o.relin);
  const rlwe::KeySwitchKey relin = rlwe::load_key_switch_key(relin_bytes, params);
  EXPECT_TRUE(same_key(relin, o.relin));
  EXPECT_EQ(relin.galois_element, 0u);
  const std::size_t dnum = params->key_switch_basis().digit_count(params->max_level());
  EXPECT_EQ(
      relin_bytes.size(),
      kHdr + 24 + kSeedBytes + dnum * (params->q_count() + params->p_count()) * params->n() * 8);

  const rlwe::GaloisKeys gk = rlwe::load_galois_keys(rlwe::serialize(o.galois), params);
  ASSERT_EQ(gk.keys.size(), o.galois.keys.size());
  ASSERT_EQ(gk.keys.size(), 3u);  // steps 1, −1 and conjugation
  for (const auto& [k, key] : o.galois.keys) {
    ASSERT_TRUE(gk.contains(k)) << k;
    EXPECT_TRUE(same_key(gk.at(k), key)) << k;
    EXPECT_EQ(gk.at(k).galois_element, k);
  }

  const rlwe::GaloisKeys none{params, {}};
  EXPECT_TRUE(rlwe::load_galois_keys(rlwe::serialize(none), params).keys.empty());
}

TEST(RlweSerial, CiphertextsRoundTrip) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const Objects o = Objects::make(params, rng);
  for (const Ciphertext* ct : {&o.ct_public, &o.ct_seeded, &o.ct_three}) {
    const Ciphertext loaded = rlwe::load_ciphertext(rlwe::serialize(*ct), params);
    EXPECT_TRUE(same_ciphertext(loaded, *ct));
    EXPECT_EQ(loaded.params(), params);
  }
  // A lower level and a scale survive too.
  rlwe::Encryptor enc(o.sk, seed_from(rng));
  Ciphertext low = enc.encrypt_zero(0);
  low.set_scale(std::ldexp(1.0, 30) * 1.25);
  const Ciphertext low_loaded = rlwe::load_ciphertext(rlwe::serialize(low), params);
  EXPECT_TRUE(same_ciphertext(low_loaded, low));
  EXPECT_EQ(low_loaded.level(), 0u);
  EXPECT_EQ(low_loaded.scale(), low.scale());
  // So does a plaintext factor ≠ 1 (BGV's), on a full and on a seeded ciphertext.
  Ciphertext with_factor = o.ct_public;
  with_factor.set_factor(0xFFFF'FFFF'FFFF'FFFFULL);
  const Ciphertext factor_loaded = rlwe::load_ciphertext(rlwe::serialize(with_factor), params);
  EXPECT_TRUE(same_ciphertext(factor_loaded, with_factor));
  EXPECT_EQ(factor_loaded.factor(), 0xFFFF'FFFF'FFFF'FFFFULL);
  Ciphertext seeded_factor = o.ct_seeded;
  seeded_factor.set_factor(12345);
  ASSERT_TRUE(seeded_factor.seed().has_value());
  const Ciphertext seeded_loaded = rlwe::load_ciphertext(rlwe::serialize(seeded_factor), params);
  EXPECT_TRUE(same_ciphertext(seeded_loaded, seeded_factor));
  EXPECT_EQ(seeded_loaded.factor(), 12345u);

  // The seeded ciphertext is stored at half size: c_0 and 32 bytes of seed.
  ASSERT_TRUE(o.ct_seeded.seed().has_value());
  ASSERT_FALSE(o.ct_public.seed().has_value());
  const std::size_t full = rlwe::serialize(o.ct_public).size() - kCtFields;
  const std::size_t seeded = rlwe::serialize(o.ct_seeded).size() - kCtFields;
  EXPECT_EQ(seeded, full / 2 + kSeedBytes);
  // Once touched, it forgets its seed and is stored whole.
  Ciphertext touched = o.ct_seeded;
  (void)touched[1];
  EXPECT_EQ(rlwe::serialize(touched).size(), kCtFields + full);
  EXPECT_TRUE(same_ciphertext(rlwe::load_ciphertext(rlwe::serialize(touched), params), touched));
}

// serialize(ct, out) appends the bytes serialize(ct) returns, growing `out` geometrically, and
// leaves `out` as it was when it throws (here at the second part, after the header and the first
// part were written).
TEST(RlweSerial, CiphertextsAppendToABuffer) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const Objects o = Objects::make(params, rng);
  const Bytes a = rlwe::serialize(o.ct_public);
  const Bytes b = rlwe::serialize(o.ct_seeded);
  Bytes out = {1, 2, 3};
  rlwe::serialize(o.ct_public, out);
  rlwe::serialize(o.ct_seeded, out);
  ASSERT_EQ(out.size(), 3 + a.size() + b.size());
  EXPECT_EQ(Bytes(out.begin(), out.begin() + 3), (Bytes{1, 2, 3}));
  const Bytes first(out.begin() + 3, out.begin() + 3 + static_cast<std::ptrdiff_t>(a.size()));
  const Bytes second(out.begin() + 3 + static_cast<std::ptrdiff_t>(a.size()), out.end());
  EXPECT_EQ(first, a);
  EXPECT_EQ(second, b);
  EXPECT_TRUE(same_ciphertext(rlwe::load_ciphertext(second, params), o.ct_seeded));

  // Appending many grows the buffer geometrically: a handful of reallocations, not one each.
  Bytes many;
  int reallocations = 0;
  for (int i = 0; i < 64; ++i) {
    const std::size_t capacity = many.capacity();
    rlwe::serialize(o.ct_public, many);
    reallocations += many.capacity() != capacity ? 1 : 0;
  }
  EXPECT_EQ(many.size(), 64 * a.size());
  EXPECT_LE(reallocations, 8);
  EXPECT_EQ(Bytes(many.end() - static_cast<std::ptrdiff_t>(a.size()), many.end()), a);

  Ciphertext broken = o.ct_public;
  broken[1].to_coefficient();
  const Bytes before = out;
  EXPECT_THROW(rlwe::serialize(broken, out), InvalidParameter);
  EXPECT_EQ(out, before);
}

// The coefficients of limb 0 of p (either form), centred mod q_0.
std::vector<std::int64_t> centred_limb0(RnsPoly p) {
  if (p.form() == PolyForm::kEvaluation) p.to_coefficient();
  const std::uint64_t q = p.context()->basis().prime(0);
  std::vector<std::int64_t> v;
  for (const std::uint64_t r : p.limb(0)) {
    v.push_back(r > q / 2 ? static_cast<std::int64_t>(r) - static_cast<std::int64_t>(q)
                          : static_cast<std::int64_t>(r));
  }
  return v;
}

TEST(RlweSerial, LoadedKeysStillDecrypt) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(10);
  const Objects o = Objects::make(params, rng);
  const rlwe::SecretKey sk = rlwe::load_secret_key(rlwe::serialize(o.sk), params);
  const rlwe::PublicKey pk = rlwe::load_public_key(rlwe::serialize(o.pk), params);

  // decrypt(loaded ct, loaded sk) is decrypt(ct, sk), word for word.
  for (const Ciphertext* ct : {&o.ct_public, &o.ct_seeded, &o.ct_three}) {
    const Ciphertext loaded = rlwe::load_ciphertext(rlwe::serialize(*ct), params);
    EXPECT_TRUE(same_poly(rlwe::decrypt_poly(loaded, sk), rlwe::decrypt_poly(*ct, o.sk)));
  }

  // A message m·Δ encrypted under the loaded public key decrypts under the original secret key
  // (and the other way round) to m·Δ + small noise.
  const std::size_t n = params->n();
  const std::int64_t delta = std::int64_t{1} << 25;
  std::vector<std::int64_t> m(n);
  for (std::int64_t& v : m) v = static_cast<std::int64_t>(rng.uniform(0, 200)) - 100;
  std::vector<std::int64_t> scaled(n);
  for (std::size_t i = 0; i < n; ++i) scaled[i] = m[i] * delta;
  RnsPoly msg(params->ring(), params->q_count());
  set_signed(scaled, msg);
  const std::pair<const rlwe::PublicKey*, const rlwe::SecretKey*> pairs[] = {{&pk, &o.sk},
                                                                             {&o.pk, &sk}};
  for (const auto& [enc_key, dec_key] : pairs) {
    rlwe::Encryptor enc(*enc_key, seed_from(rng));
    const Ciphertext ct = enc.encrypt(msg);
    const Ciphertext loaded = rlwe::load_ciphertext(rlwe::serialize(ct), params);
    const std::vector<std::int64_t> d = centred_limb0(rlwe::decrypt_poly(loaded, *dec_key));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::llround(static_cast<double>(d[i]) / static_cast<double>(delta)), m[i])
          << "coefficient " << i;
    }
  }
}

TEST(RlweSerial, EqualParametersLoadIntoTheGivenContext) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr a = make_params(5);
  const ParametersPtr b = make_params(5);  // equal values, another object
  ASSERT_NE(a, b);
  const Objects o = Objects::make(a, rng);
  const Ciphertext ct = rlwe::load_ciphertext(rlwe::serialize(o.ct_public), b);
  EXPECT_EQ(ct.params(), b);
  EXPECT_EQ(rlwe::serialize(ct), rlwe::serialize(o.ct_public));
  const ParametersPtr loaded =
      rlwe::load_parameters(rlwe::serialize(*a), rlwe::SecurityLevel::insecure_none);
  EXPECT_NO_THROW((void)rlwe::load_public_key(rlwe::serialize(o.pk), loaded));
}

// ---- other parameters --------------------------------------------------------------------------

TEST(RlweSerial, OtherParametersAreMismatchedContext) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(5);
  const ParametersPtr other = make_params(5, {50, 40, 30});
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(other)) {
    if (c.name == "parameters") continue;
    try {
      (void)c.load(c.bytes);
      ADD_FAILURE() << c.name << " loaded against other parameters";
    } catch (const MismatchedContext& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(rlwe::serial_detail::hex(params->hash())), std::string::npos) << msg;
      EXPECT_NE(msg.find(rlwe::serial_detail::hex(other->hash())), std::string::npos) << msg;
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": " << e.what();
    }
  }
  EXPECT_THROW((void)rlwe::load_ciphertext(rlwe::serialize(o.ct_public), nullptr),
               InvalidParameter);
}

// ---- corrupt input ---------------------------------------------------------------------------

TEST(RlweSerial, TruncationAtEveryLength) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(params)) {
    ASSERT_EQ(run(c.load, c.bytes, c.name), Outcome::loaded) << c.name;
    for (std::size_t len = 0; len < c.bytes.size(); ++len) {
      const Bytes cut(c.bytes.begin(), c.bytes.begin() + static_cast<std::ptrdiff_t>(len));
      expect_corrupt(c.load, cut, c.name + " cut to " + std::to_string(len) + " bytes");
      // The same, with the header's payload size saying what is left: the fields catch it.
      if (len >= kHdr) {
        expect_corrupt(c.load, with_u64(cut, kPayloadSizeAt, len - kHdr),
                       c.name + " cut to " + std::to_string(len) + " bytes, size patched");
      }
    }
  }
}

TEST(RlweSerial, TrailingBytes) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(params)) {
    for (const std::size_t extra : {1, 7, 8, 64}) {
      Bytes longer = c.bytes;
      longer.resize(longer.size() + extra, 0);
      expect_corrupt(c.load, longer, c.name + " + " + std::to_string(extra) + " bytes");
      expect_corrupt(c.load, with_u64(longer, kPayloadSizeAt, longer.size() - kHdr),
                     c.name + " + " + std::to_string(extra) + " bytes, size patched");
    }
  }
}

TEST(RlweSerial, EveryHeaderBitFlipIsRejected) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(params)) {
    for (std::size_t bit = 0; bit < 8 * kHdr; ++bit) {
      Bytes b = c.bytes;
      b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      // Version 3 → 2 is a readable version: the same payload for every kind but a ciphertext
      // (Version2BytesStillLoad); a ciphertext's origin block then reads as its level and size.
      const bool readable_version = b[kVersionAt] == 2 && b[kVersionAt + 1] == 0;
      if (readable_version && c.name.find("ciphertext") == std::string::npos) continue;
      const Outcome out = run(c.load, b, c.name + " header bit " + std::to_string(bit));
      EXPECT_NE(out, Outcome::loaded) << c.name << " header bit " << bit;
      // Only the hash field can be well-formed under other parameters.
      if (bit / 8 < kHashAt || bit / 8 >= kHashAt + 8) {
        EXPECT_EQ(out, Outcome::corrupt) << c.name << " header bit " << bit;
      }
    }
  }
}

TEST(RlweSerial, EveryPayloadByteFlip) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(params)) {
    int loaded = 0;
    for (std::size_t at = kHdr; at < c.bytes.size(); ++at) {
      Bytes b = c.bytes;
      b[at] ^= static_cast<std::uint8_t>(rng.uniform(1, 255));
      const Outcome out = run(c.load, b, c.name + " byte " + std::to_string(at));
      EXPECT_NE(out, Outcome::mismatched) << c.name << " byte " << at;
      loaded += out == Outcome::loaded ? 1 : 0;
    }
    // The parameters' hash covers every payload byte; a secret key must stay ternary, which a
    // changed word of its evaluation form breaks.
    if (c.name == "parameters" || c.name == "secret key") {
      EXPECT_EQ(loaded, 0) << c.name;
    }
  }
}

TEST(RlweSerial, BadHeaderFields) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  const std::vector<Objects::Case> cases = o.cases(params);
  for (const auto& c : cases) {
    expect_corrupt(c.load, with_u8(c.bytes, 0, 'X'), c.name + ": bad magic");
    // Any version this build does not read: 0, 1 (ciphertexts without the BGV factor) and a
    // future one. (Version 2 is read: Version2BytesStillLoad.)
    for (const std::uint8_t other :
         {std::uint8_t{0}, std::uint8_t{serial::kOldestFormatVersion - 1},
          std::uint8_t{serial::kFormatVersion + 1}}) {
      Bytes v = c.bytes;
      v[4] = other;
      expect_corrupt(c.load, v, c.name + ": version " + std::to_string(other));
    }
    for (std::uint16_t kind = 0; kind < 10; ++kind) {
      Bytes k = c.bytes;
      if (kind == k[6]) continue;
      k[6] = static_cast<std::uint8_t>(kind);
      expect_corrupt(c.load, k, c.name + ": kind " + std::to_string(kind));
    }
    expect_corrupt(c.load, with_u64(c.bytes, kPayloadSizeAt, std::uint64_t{1} << 60),
                   c.name + ": payload size 2^60");
    expect_corrupt(c.load, {}, c.name + ": empty");
    // Every other object's bytes are the wrong kind.
    for (const auto& d : cases) {
      if (d.bytes[6] != c.bytes[6]) expect_corrupt(c.load, d.bytes, c.name + " given " + d.name);
    }
  }
}

TEST(RlweSerial, BadCiphertextFields) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  const Loader load = [&](const Bytes& b) {
    return rlwe::serialize(rlwe::load_ciphertext(b, params));
  };
  const Bytes full = rlwe::serialize(o.ct_public);
  const Bytes seeded = rlwe::serialize(o.ct_seeded);
  const Bytes three = rlwe::serialize(o.ct_three);
  constexpr std::size_t kLevel = kOrigin + rlwe::kOriginBytes, kSize = kLevel + 8,
                        kScale = kLevel + 16, kFactor = kLevel + 24, kFlag = kLevel + 32,
                        kParts = kLevel + 33;
  const std::uint64_t big = std::uint64_t{1} << 60;
  for (const std::uint64_t level : {std::uint64_t{3}, std::uint64_t{1}, big, ~std::uint64_t{0}}) {
    expect_corrupt(load, with_u64(full, kLevel, level), "level " + std::to_string(level));
  }
  for (const std::uint64_t size :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{4}, big}) {
    expect_corrupt(load, with_u64(full, kSize, size), "size " + std::to_string(size));
  }
  for (const double scale :
       {0.0, -1.0, -0.0, std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::signaling_NaN()}) {
    expect_corrupt(load, with_u64(full, kScale, std::bit_cast<std::uint64_t>(scale)),
                   "scale " + std::to_string(scale));
  }
  expect_corrupt(load, with_u64(full, kFactor, 0), "factor 0");
  EXPECT_NE(corrupt_message(load, with_u64(full, kFactor, 0)).find("plaintext factor 0"),
            std::string::npos);
  EXPECT_EQ(run(load, with_u64(full, kFactor, 3), "factor 3"), Outcome::loaded);
  expect_corrupt(load, with_u8(full, kFlag, 2), "seeded flag 2");
  expect_corrupt(load, with_u8(full, kFlag, 1), "seeded flag on a full ciphertext");
  expect_corrupt(load, with_u8(seeded, kFlag, 0), "seeded flag cleared");
  expect_corrupt(load, with_u8(three, kFlag, 1), "seeded size-3 ciphertext");
  expect_corrupt(load, with_u64(seeded, kSize, 3), "seeded, size 3");

  // A coefficient of limb i equal to q_i (or any word ≥ q_i) is refused; q_i − 1 is fine.
  const std::size_t n = params->n();
  for (std::size_t i = 0; i < o.ct_public.limbs(); ++i) {
    const std::uint64_t q = params->ring()->basis().prime(i);
    const std::size_t at = kParts + 8 * (i * n + rng.uniform(0, n - 1));
    expect_corrupt(load, with_u64(full, at, q), "c_0 limb " + std::to_string(i) + " = q");
    expect_corrupt(load, with_u64(full, at, ~std::uint64_t{0}), "c_0 word 2^64 − 1");
    EXPECT_EQ(run(load, with_u64(full, at, q - 1), "q − 1"), Outcome::loaded);
    // c_1 too, and c_0 of the seeded one (behind its seed).
    const std::size_t at1 = at + 8 * o.ct_public.limbs() * n;
    expect_corrupt(load, with_u64(full, at1, q), "c_1 limb " + std::to_string(i) + " = q");
    expect_corrupt(load, with_u64(seeded, at + kSeedBytes, q), "seeded c_0 = q");
  }
  // The messages name the field and the rule.
  const std::uint64_t q1 = params->q_primes()[1];
  const std::string coefficient = corrupt_message(load, with_u64(full, kParts + 8 * (n + 3), q1));
  EXPECT_NE(coefficient.find("c_0 limb 1[3] = " + std::to_string(q1) + " is not reduced modulo " +
                             std::to_string(q1)),
            std::string::npos)
      << coefficient;
  const std::string level = corrupt_message(load, with_u64(full, kLevel, 7));
  EXPECT_NE(level.find("level = 7 is outside [0, 2]"), std::string::npos) << level;
  const std::string cut = corrupt_message(load, Bytes(full.begin(), full.end() - 1));
  EXPECT_NE(cut.find("payload size"), std::string::npos) << cut;
}

// The origin block (rlwe/origin.hpp): recorded as given, refused when inconsistent (CorruptData
// naming the field), checked against the loader's expectation where both record a field
// (MismatchedContext naming it), and absent from version-2 bytes, which load unchecked.
TEST(RlweSerial, CiphertextOriginIsRecordedAndChecked) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  const rlwe::KeyId key = rlwe::key_id(o.pk);
  ASSERT_TRUE(rlwe::is_recorded(key));
  EXPECT_EQ(rlwe::key_id(o.pk), key);  // a function of the public key's bytes
  rlwe::KeyGenerator other_gen(params, seed_from(rng));
  const rlwe::KeyId other_key = rlwe::key_id(other_gen.public_key(other_gen.secret_key()));
  EXPECT_NE(other_key, key);
  EXPECT_EQ(rlwe::to_hex(rlwe::KeyId{}), "none");
  EXPECT_EQ(rlwe::to_hex(key).size(), 32u);

  using rlwe::Origin;
  using rlwe::SchemeTag;
  const Origin bgv{SchemeTag::bgv, 65537, key};
  const Bytes bytes = rlwe::serialize(o.ct_public, bgv);
  EXPECT_EQ(bytes[kOrigin], 3);
  EXPECT_EQ(get_u64(bytes, kOrigin + 1), 65537u);
  EXPECT_TRUE(std::equal(key.begin(), key.end(), bytes.begin() + kOrigin + 9));
  EXPECT_EQ(serial::format_version(bytes), serial::kFormatVersion);

  auto outcome = [&](const Bytes& b, const Origin& expected, std::string* message) {
    try {
      const Ciphertext ct = rlwe::load_ciphertext(b, params, expected);
      EXPECT_TRUE(same_ciphertext(ct, o.ct_public));
      return Outcome::loaded;
    } catch (const MismatchedContext& e) {
      *message = e.what();
      return Outcome::mismatched;
    } catch (const CorruptData& e) {
      *message = e.what();
      return Outcome::corrupt;
    }
  };
  std::string msg;
  // Whatever the expectation leaves unrecorded passes.
  EXPECT_EQ(outcome(bytes, Origin{}, &msg), Outcome::loaded);
  EXPECT_EQ(outcome(bytes, bgv, &msg), Outcome::loaded);
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::bgv, 65537, {}}, &msg), Outcome::loaded);
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::unrecorded, 0, key}, &msg), Outcome::loaded);
  // Another scheme, t or key set: refused by name.
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::ckks, 0, key}, &msg), Outcome::mismatched);
  EXPECT_NE(msg.find("scheme: the bytes hold a BGV ciphertext, the context is CKKS"),
            std::string::npos)
      << msg;
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::bfv, 65537, key}, &msg), Outcome::mismatched);
  EXPECT_NE(msg.find("BGV ciphertext, the context is BFV"), std::string::npos) << msg;
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::bgv, 257, key}, &msg), Outcome::mismatched);
  EXPECT_NE(msg.find("t: the ciphertext was made for t = 65537, the context has t = 257"),
            std::string::npos)
      << msg;
  EXPECT_EQ(outcome(bytes, Origin{SchemeTag::bgv, 65537, other_key}, &msg), Outcome::mismatched);
  EXPECT_NE(msg.find("key id: the ciphertext was made under key set " + rlwe::to_hex(key)),
            std::string::npos)
      << msg;
  // Bytes that record nothing load under any expectation.
  const Bytes bare = rlwe::serialize(o.ct_public);
  EXPECT_EQ(outcome(bare, Origin{SchemeTag::ckks, 0, other_key}, &msg), Outcome::loaded);

  // Inconsistent origin fields are corrupt data, named.
  EXPECT_EQ(outcome(with_u8(bytes, kOrigin, 4), Origin{}, &msg), Outcome::corrupt);
  EXPECT_NE(msg.find("scheme tag 4"), std::string::npos) << msg;
  const Bytes ckks = rlwe::serialize(o.ct_public, Origin{SchemeTag::ckks, 0, key});
  EXPECT_EQ(outcome(with_u64(ckks, kOrigin + 1, 5), Origin{}, &msg), Outcome::corrupt);
  EXPECT_NE(msg.find("t = 5 for a CKKS ciphertext"), std::string::npos) << msg;
  EXPECT_EQ(outcome(with_u64(bytes, kOrigin + 1, 1), Origin{}, &msg), Outcome::corrupt);
  EXPECT_NE(msg.find("t = 1 for a BGV ciphertext"), std::string::npos) << msg;
  // The writer refuses to record an inconsistent origin.
  EXPECT_THROW((void)rlwe::serialize(o.ct_public, Origin{SchemeTag::bfv, 0, key}),
               InvalidParameter);
  EXPECT_THROW((void)rlwe::serialize(o.ct_public, Origin{SchemeTag::ckks, 3, key}),
               InvalidParameter);
  EXPECT_THROW((void)rlwe::serialize(o.ct_public, Origin{static_cast<SchemeTag>(9), 0, key}),
               InvalidParameter);

  // Version 2: the same ciphertext without the block loads, its origin unchecked.
  const Bytes v2 = as_version2_ciphertext(bytes);
  EXPECT_EQ(serial::format_version(v2), 2);
  EXPECT_EQ(outcome(v2, Origin{SchemeTag::ckks, 0, other_key}, &msg), Outcome::loaded);
  EXPECT_EQ(rlwe::serialize(rlwe::load_ciphertext(v2, params)), bare);
}

// Bytes of format version 2 still load: every kind but a ciphertext has the same payload, a
// ciphertext lacks the origin block (CiphertextOriginIsRecordedAndChecked).
TEST(RlweSerial, Version2BytesStillLoad) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  for (const auto& c : o.cases(params)) {
    const bool ciphertext = c.name.find("ciphertext") != std::string::npos;
    const Bytes v2 = ciphertext ? as_version2_ciphertext(c.bytes) : with_u8(c.bytes, kVersionAt, 2);
    try {
      EXPECT_EQ(c.load(v2), c.bytes) << c.name;  // loads, and writes itself back as version 3
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": version 2 refused: " << e.what();
    }
  }
  EXPECT_THROW((void)serial::format_version(Bytes{1, 2, 3}), CorruptData);
  EXPECT_THROW((void)serial::format_version(Bytes(8, 0)), CorruptData);
}

TEST(RlweSerial, BadKeyFields) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  const std::uint64_t big = std::uint64_t{1} << 60;
  const std::uint64_t two_n = 2 * params->n();
  using namespace rlwe;

  const Loader load_sk = [&](const Bytes& b) { return serialize(load_secret_key(b, params)); };
  const Bytes sk = serialize(o.sk);
  for (const std::uint64_t limbs : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{5}, big}) {
    expect_corrupt(load_sk, with_u64(sk, kHdr, limbs), "secret key limbs " + std::to_string(limbs));
  }
  const std::uint64_t p0 = params->p_primes()[0];
  expect_corrupt(load_sk, with_u64(sk, sk.size() - 8, p0), "secret key P limb word = p_0");

  const Loader load_pk = [&](const Bytes& b) { return serialize(load_public_key(b, params)); };
  const Bytes pk = serialize(o.pk);
  for (const std::uint64_t limbs : {std::uint64_t{3}, std::uint64_t{5}, big}) {
    expect_corrupt(load_pk, with_u64(pk, kHdr, limbs), "public key limbs " + std::to_string(limbs));
  }
  expect_corrupt(load_pk, with_u64(pk, kHdr + 8 + kSeedBytes, params->q_primes()[0]), "pk b = q_0");
  expect_corrupt(load_pk, with_u64(pk, pk.size() - 8, p0), "pk b P limb word = p_0");

  // Key-switching key: galois element, dnum, limbs.
  const Loader load_ksk = [&](const Bytes& b) { return serialize(load_key_switch_key(b, params)); };
  const Bytes relin = serialize(o.relin);
  for (const std::uint64_t g : {std::uint64_t{2}, two_n, two_n + 1, big + 1}) {
    expect_corrupt(load_ksk, with_u64(relin, kHdr, g), "Galois element " + std::to_string(g));
  }
  EXPECT_EQ(run(load_ksk, with_u64(relin, kHdr, 5), "Galois element 5"), Outcome::loaded);
  const std::uint64_t dnum = params->key_switch_basis().digit_count(params->max_level());
  for (const std::uint64_t d : {std::uint64_t{0}, dnum - 1, dnum + 1, big}) {
    expect_corrupt(load_ksk, with_u64(relin, kHdr + 8, d), "dnum " + std::to_string(d));
  }
  for (const std::uint64_t limbs : {std::uint64_t{3}, big}) {
    expect_corrupt(load_ksk, with_u64(relin, kHdr + 16, limbs),
                   "ksk limbs " + std::to_string(limbs));
  }
  expect_corrupt(load_ksk, with_u64(relin, kHdr + 24 + kSeedBytes, params->q_primes()[0]),
                 "ksk b_0 = q_0");

  // Galois keys: count, order, element 0.
  const Loader load_gk = [&](const Bytes& b) { return serialize(load_galois_keys(b, params)); };
  const Bytes gk = serialize(o.galois);
  ASSERT_EQ(o.galois.keys.size(), 3u);
  for (const std::uint64_t count : {std::uint64_t{0}, std::uint64_t{2}, std::uint64_t{4},
                                    params->n() + 1, big, ~std::uint64_t{0}}) {
    expect_corrupt(load_gk, with_u64(gk, kHdr, count), "Galois key count " + std::to_string(count));
  }
  const std::size_t first = kHdr + 8;
  const std::size_t second = first + (relin.size() - kHdr);
  const std::uint64_t g1 = get_u64(gk, first);
  const std::uint64_t g2 = get_u64(gk, second);
  ASSERT_LT(g1, g2);
  expect_corrupt(load_gk, with_u64(gk, first, g2), "repeated Galois element");
  expect_corrupt(load_gk, with_u64(gk, second, g1), "repeated Galois element");
  expect_corrupt(load_gk, with_u64(gk, first, 0), "Galois element 0 among Galois keys");
  expect_corrupt(load_gk, with_u64(gk, second, 2), "even Galois element");
}

// The fields of stored parameters, re-hashed, so only their validation can refuse them.
Bytes with_fields(const Bytes& fields) {
  EXPECT_GE(sodium_init(), 0);
  std::uint8_t digest[crypto_generichash_BYTES_MIN];
  crypto_generichash(digest, sizeof digest, fields.data(), fields.size(), nullptr, 0);
  std::uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h |= std::uint64_t{digest[i]} << (8 * i);
  Bytes out;
  serial::Writer w(out);
  w.header(serial::Kind::parameters, h);
  w.bytes(fields);
  w.finish();
  return out;
}

TEST(RlweSerial, BadParameterFields) {
  const ParametersPtr params = make_params(4);
  const Bytes bytes = rlwe::serialize(*params);
  const Loader load = [](const Bytes& b) {
    return rlwe::serialize(*rlwe::load_parameters(b, rlwe::SecurityLevel::insecure_none));
  };
  // The fields re-hashed unchanged still load (the helper matches the format).
  ASSERT_EQ(with_fields(params->encode_fields()), bytes);
  const Bytes fields = params->encode_fields();
  // Offsets: log_n 0, |Q| 4, q 8.., |P| 32, p 36, dnum 44, h 48, security 56.
  ASSERT_EQ(fields.size(), 57u);
  auto patched32 = [&](std::size_t at, std::uint32_t v) {
    Bytes f = fields;
    for (int i = 0; i < 4; ++i) f[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    return with_fields(f);
  };
  for (const std::uint32_t log_n : {0u, 18u, 0xffffffffu}) {
    expect_corrupt(load, patched32(0, log_n), "log_n " + std::to_string(log_n));
  }
  for (const std::uint32_t q_count : {0u, 2u, 4u, 300u, 0x10000000u, 0xffffffffu}) {
    expect_corrupt(load, patched32(4, q_count), "|Q| " + std::to_string(q_count));
  }
  for (const std::uint32_t p_count : {0u, 2u, 0xffffffffu}) {
    expect_corrupt(load, patched32(32, p_count), "|P| " + std::to_string(p_count));
  }
  for (const std::uint32_t dnum : {0u, 4u, 0xffffffffu}) {
    expect_corrupt(load, patched32(44, dnum), "dnum " + std::to_string(dnum));
  }
  // Other valid values load (and describe other parameters): a sparse secret.
  EXPECT_EQ(run(load, with_fields(with_u64(fields, 48, 8)), "hamming weight 8"), Outcome::loaded);
  expect_corrupt(load, with_fields(with_u64(fields, 48, 17)), "hamming weight 17 > N");
  expect_corrupt(load, with_fields(with_u8(fields, 56, 4)), "security 4");
  expect_corrupt(load, with_fields(with_u64(fields, 8, 1u << 20)), "q_0 not prime");
  expect_corrupt(load, with_fields(with_u64(fields, 8, std::uint64_t{1} << 62)), "q_0 = 2^62");
  expect_corrupt(load, with_fields(with_u64(fields, 16, get_u64(fields, 8))), "q_1 = q_0");
  expect_corrupt(load, with_fields(with_u64(fields, 36, get_u64(fields, 8))), "p_0 = q_0");
  Bytes longer = fields;
  longer.push_back(0);
  expect_corrupt(load, with_fields(longer), "a trailing byte");
  // Intact (correctly hashed) but insecure: the security check runs again on load.
  EXPECT_THROW((void)rlwe::load_parameters(with_fields(with_u8(fields, 56, 0)),
                                           rlwe::SecurityLevel::insecure_none),
               InsecureParameters);
}

// The caller's minimum, not the file's own claim, decides (issue 19): an insecure set loads only
// when the caller opts out by name, and a 128-bit set fails a 192-bit minimum.
TEST(RlweSerial, LoadingTakesTheCallersMinimumSecurity) {
  const Bytes toy = rlwe::serialize(*make_params(5));
  try {
    (void)rlwe::load_parameters(toy);
    ADD_FAILURE() << "an insecure_none set loaded under the default 128-bit minimum";
  } catch (const InsecureParameters& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("declares security insecure_none"), std::string::npos) << what;
    EXPECT_NE(what.find("minimum 128-bit"), std::string::npos) << what;
    EXPECT_NE(what.find("SecurityLevel::insecure_none"), std::string::npos) << what;
  }
  EXPECT_NO_THROW((void)rlwe::load_parameters(toy, rlwe::SecurityLevel::insecure_none));

  rlwe::ParametersLiteral lit;
  lit.log_n = 12;  // 85 bits: 128-bit secure at N = 2^12 (109 allowed), not 192-bit (75)
  lit.q_bits = {30, 25};
  lit.p_bits = {30};
  const Bytes secure = rlwe::serialize(*rlwe::Parameters::create(lit));
  EXPECT_NO_THROW((void)rlwe::load_parameters(secure));
  EXPECT_NO_THROW((void)rlwe::load_parameters(secure, rlwe::SecurityLevel::bits128));
  EXPECT_THROW((void)rlwe::load_parameters(secure, rlwe::SecurityLevel::bits192),
               InsecureParameters);
  EXPECT_THROW((void)rlwe::load_parameters(secure, rlwe::SecurityLevel::bits256),
               InsecureParameters);
  EXPECT_THROW((void)rlwe::load_parameters(secure, static_cast<rlwe::SecurityLevel>(7)),
               InvalidParameter);
}

// A secret key is checked to be ternary, the same in every limb, with h nonzero coefficients for
// a sparse secret: words changed below their primes no longer load as a key that decrypts wrong.
TEST(RlweSerial, SecretKeyMustBeTernary) {
  POLYHE_SEEDED_RNG(rng);
  for (const std::size_t h : {std::size_t{0}, std::size_t{8}}) {
    rlwe::ParametersLiteral lit;
    lit.log_n = 5;
    lit.q_bits = {50, 40, 40};
    lit.p_bits = {50};
    lit.hamming_weight = h;
    lit.security = rlwe::SecurityLevel::insecure_none;
    const ParametersPtr params = rlwe::Parameters::create(lit);
    rlwe::KeyGenerator keygen(params, seed_from(rng));
    const rlwe::SecretKey sk = keygen.secret_key();
    const Loader load = [&](const Bytes& b) {
      return rlwe::serialize(rlwe::load_secret_key(b, params));
    };
    EXPECT_EQ(run(load, rlwe::serialize(sk), "intact"), Outcome::loaded);
    // Re-encode s after changing one coefficient (in coefficient form) in some limbs only.
    auto altered = [&](std::size_t j, const std::vector<std::int64_t>& per_limb) {
      RnsPoly s = sk.s;
      s.to_coefficient();
      for (std::size_t i = 0; i < per_limb.size(); ++i) {
        const std::uint64_t q = params->ring()->basis().prime(i);
        s.limb(i)[j] = per_limb[i] >= 0 ? static_cast<std::uint64_t>(per_limb[i])
                                        : q - static_cast<std::uint64_t>(-per_limb[i]);
      }
      s.to_evaluation();
      return rlwe::serialize(rlwe::SecretKey{params, std::move(s)});
    };
    const std::size_t limbs = params->q_count() + params->p_count();
    // Find a zero coefficient and a nonzero one.
    RnsPoly c = sk.s;
    c.to_coefficient();
    std::size_t zero = 0;
    while (c.limb(0)[zero] != 0) ++zero;
    std::size_t nonzero = 0;
    while (c.limb(0)[nonzero] == 0) ++nonzero;
    std::string m = corrupt_message(load, altered(zero, std::vector<std::int64_t>(limbs, 2)));
    EXPECT_NE(m.find("not a ternary secret"), std::string::npos) << m;
    EXPECT_NE(m.find("coefficient " + std::to_string(zero)), std::string::npos) << m;
    m = corrupt_message(load, altered(zero, {1}));  // 1 mod q_0, 0 in the other limbs
    EXPECT_NE(m.find("mod prime 1"), std::string::npos) << m;
    if (h != 0) {
      // One more nonzero coefficient, consistent in every limb: ternary, but h + 1 nonzero.
      m = corrupt_message(load, altered(zero, std::vector<std::int64_t>(limbs, -1)));
      EXPECT_NE(m.find(std::to_string(h + 1) + " nonzero coefficients"), std::string::npos) << m;
    } else {
      // Uniform ternary: any consistent ternary change is a valid (other) key.
      EXPECT_EQ(run(load, altered(nonzero, std::vector<std::int64_t>(limbs, 0)), "zeroed"),
                Outcome::loaded);
    }
  }
}

// Authenticated serialisation: every object verifies under its key and loads; any changed,
// truncated or extended byte, or another key, is CorruptData.
TEST(RlweSerial, AuthenticatedBytesDetectTampering) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const Objects o = Objects::make(params, rng);
  const rlwe::MacKey key = rlwe::generate_mac_key();
  rlwe::MacKey other = key;
  other[0] ^= 1;
  for (const auto& c : o.cases(params)) {
    const Bytes sealed = rlwe::authenticate(c.bytes, key);
    ASSERT_EQ(sealed.size(), c.bytes.size() + rlwe::kMacTagBytes);
    const auto object = rlwe::verify(sealed, key);
    EXPECT_TRUE(std::ranges::equal(object, c.bytes)) << c.name;
    EXPECT_EQ(c.load(Bytes(object.begin(), object.end())), c.bytes) << c.name;
    EXPECT_THROW((void)rlwe::verify(sealed, other), CorruptData) << c.name;
    for (std::size_t at = 0; at < sealed.size(); at += 1 + at / 16) {
      Bytes b = sealed;
      b[at] ^= static_cast<std::uint8_t>(rng.uniform(1, 255));
      EXPECT_THROW((void)rlwe::verify(b, key), CorruptData) << c.name << " byte " << at;
    }
    for (const std::size_t cut :
         {std::size_t{0}, std::size_t{1}, rlwe::kMacTagBytes, sealed.size() - 1}) {
      EXPECT_THROW((void)rlwe::verify(std::span(sealed).first(cut), key), CorruptData)
          << c.name << " cut " << cut;
    }
    Bytes longer = sealed;
    longer.push_back(0);
    EXPECT_THROW((void)rlwe::verify(longer, key), CorruptData) << c.name;
  }
  // A Galois key relabelled to another rotation is well formed, so it loads; only the tag tells.
  const auto& [element, galois_key] = *o.galois.keys.begin();
  const Bytes genuine = rlwe::serialize(galois_key);
  const Bytes sealed = rlwe::authenticate(genuine, key);
  Bytes relabelled = genuine;
  const std::uint64_t other_element = element == 3 ? 7 : 3;  // odd, below 2N: a Galois element
  for (int i = 0; i < 8; ++i)
    relabelled[kHdr + i] = static_cast<std::uint8_t>(other_element >> (8 * i));
  EXPECT_EQ(rlwe::load_key_switch_key(relabelled, params).galois_element, other_element);
  Bytes sealed_relabelled = sealed;
  std::copy(relabelled.begin(), relabelled.end(), sealed_relabelled.begin());
  EXPECT_THROW((void)rlwe::verify(sealed_relabelled, key), CorruptData);
  EXPECT_NE(rlwe::generate_mac_key(), key);
}

}  // namespace
}  // namespace polyhe
