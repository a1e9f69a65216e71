// rlwe: parameters (validation, security table, hash), keys, encryption and hybrid key
// switching, checked by decrypting with exact big-integer reconstruction of the error.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/key_switch.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rns/bigint.hpp"
#include "support/test_rng.hpp"

namespace polyhe::rlwe {
namespace {

ParametersLiteral small_literal(int log_n = 10) {
  ParametersLiteral lit;
  lit.log_n = log_n;
  lit.q_bits = {55, 45, 45, 45};
  lit.p_bits = {55};
  lit.security = SecurityLevel::insecure_none;
  return lit;
}

Seed seed_from(test::TestRng& rng) {
  Seed s;
  for (auto& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

// The largest |coefficient| of p (any form) after centred CRT reconstruction, in bits.
double max_bits(const RnsPoly& p_in) {
  RnsPoly p = p_in;
  if (p.form() == PolyForm::kEvaluation) p.to_coefficient();
  const auto values = to_bigint_centred(p.data(), p.context()->basis().prefix(p.limbs()));
  mpz_class m = 0;
  for (const auto& v : values) {
    mpz_class a = abs(v);
    if (a > m) m = a;
  }
  return m == 0 ? 0.0 : static_cast<double>(mpz_sizeinbase(m.get_mpz_t(), 2));
}

TEST(RlweParameters, GeneratesChainsAndChecksSecurity) {
  ParametersLiteral lit;
  lit.log_n = 14;
  lit.q_bits = {50, 40, 40, 40, 40, 40, 40, 40, 40};
  lit.p_bits = {50};
  const auto params = Parameters::create(lit);
  EXPECT_EQ(params->n(), 16384u);
  EXPECT_EQ(params->max_level(), 8u);
  EXPECT_EQ(params->p_count(), 1u);
  EXPECT_EQ(params->dnum(), 9u);  // default: digits of k = 1 prime
  EXPECT_LE(params->log_qp(), 420);
  EXPECT_GE(params->log_qp(), 418);
  for (const auto q : params->q_primes()) EXPECT_EQ(q % (2 * params->n()), 1u);
  std::vector<std::uint64_t> all = params->q_primes();
  all.insert(all.end(), params->p_primes().begin(), params->p_primes().end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "primes must be distinct";

  // 438 bits is the 128-bit bound at N = 2^14; 440 is refused, naming the numbers.
  lit.q_bits = {60, 60, 60, 60, 60, 60, 20};
  lit.p_bits = {60};
  try {
    (void)Parameters::create(lit);
    FAIL() << "440-bit QP at N = 2^14 must be refused";
  } catch (const InsecureParameters& e) {
    EXPECT_NE(std::string(e.what()).find("440"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("438"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("insecure_none"), std::string::npos) << e.what();
  }
  lit.security = SecurityLevel::insecure_none;
  EXPECT_NO_THROW((void)Parameters::create(lit));
  lit.security = SecurityLevel::bits192;
  lit.q_bits = {60, 60, 60, 60, 60};  // 320 > 305
  EXPECT_THROW((void)Parameters::create(lit), InsecureParameters);
  lit.q_bits = {60, 60, 60, 60};  // 260 ≤ 305
  EXPECT_NO_THROW((void)Parameters::create(lit));
  // No table entry below N = 2^10.
  ParametersLiteral tiny = small_literal(9);
  tiny.security = SecurityLevel::bits128;
  EXPECT_THROW((void)Parameters::create(tiny), InsecureParameters);
}

// The table is for uniform ternary secrets: a sparse one gets no security level, whatever its
// log2(QP), unless the caller opts out by name.
TEST(RlweParameters, SparseSecretsClaimNoSecurityLevel) {
  ParametersLiteral lit;
  lit.log_n = 16;
  lit.q_bits = {60, 40};  // log2(QP) = 160, far inside the 1747 bits of the 128-bit row
  lit.p_bits = {60};
  lit.hamming_weight = 192;
  for (const SecurityLevel level :
       {SecurityLevel::bits128, SecurityLevel::bits192, SecurityLevel::bits256}) {
    lit.security = level;
    try {
      (void)Parameters::create(lit);
      ADD_FAILURE() << "a sparse secret accepted at " << to_string(level);
    } catch (const InsecureParameters& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("hamming_weight = 192 at " + std::string(to_string(level))),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("uniform ternary secrets only"), std::string::npos) << what;
      EXPECT_NE(what.find("SecurityLevel::insecure_none to opt out by name"), std::string::npos)
          << what;
    }
  }
  lit.security = SecurityLevel::insecure_none;
  EXPECT_EQ(Parameters::create(lit)->hamming_weight(), 192u);
  lit.security = SecurityLevel::bits128;
  lit.hamming_weight = 0;
  EXPECT_NO_THROW((void)Parameters::create(lit));
}

TEST(RlweParameters, TableValues) {
  const int k128[] = {27, 54, 109, 218, 438, 881, 1747, 3523};
  const int k192[] = {19, 37, 75, 152, 305, 611};
  const int k256[] = {14, 29, 58, 118, 237, 476};
  for (int i = 0; i < 8; ++i) {
    const std::size_t n = std::size_t{1} << (10 + i);
    EXPECT_EQ(max_log_qp(n, SecurityLevel::bits128), k128[i]);
    if (i < 6) {
      EXPECT_EQ(max_log_qp(n, SecurityLevel::bits192), k192[i]);
      EXPECT_EQ(max_log_qp(n, SecurityLevel::bits256), k256[i]);
    } else {
      EXPECT_FALSE(max_log_qp(n, SecurityLevel::bits192).has_value());
    }
  }
  EXPECT_FALSE(max_log_qp(512, SecurityLevel::bits128).has_value());
  EXPECT_FALSE(max_log_qp(3000, SecurityLevel::bits128).has_value());
  EXPECT_FALSE(max_log_qp(1024, SecurityLevel::insecure_none).has_value());
}

TEST(RlweParameters, RejectsBadLiterals) {
  ParametersLiteral lit = small_literal();
  lit.log_n = 0;
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit.log_n = 18;
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit = small_literal();
  lit.q_bits.clear();
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit = small_literal();
  lit.q = {12289};
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);  // both forms given
  lit = small_literal();
  lit.p_bits.clear();
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);  // no special prime
  lit = small_literal();
  lit.dnum = 5;  // > L + 1 = 4
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit = small_literal();
  lit.q_bits = {63};
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit = small_literal();
  lit.q_bits.clear();
  lit.q = {97};  // not 1 mod 2N
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  lit = small_literal();
  lit.hamming_weight = 2000;  // > N
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
  // An explicit P that collides with a generated Q prime.
  lit = small_literal();
  const auto params = Parameters::create(lit);
  lit.p_bits.clear();
  lit.p = {params->q_primes()[0]};
  EXPECT_THROW((void)Parameters::create(lit), InvalidParameter);
}

TEST(RlweParameters, HashNamesTheValues) {
  const auto a = Parameters::create(small_literal());
  const auto b = Parameters::create(small_literal());
  EXPECT_EQ(a->hash(), b->hash());
  EXPECT_TRUE(a->same_values(*b));
  const auto c = Parameters::create(a->literal());
  EXPECT_EQ(c->hash(), a->hash());
  ParametersLiteral lit = small_literal();
  lit.hamming_weight = 64;
  EXPECT_NE(Parameters::create(lit)->hash(), a->hash());
  lit = small_literal();
  lit.p_bits = {55, 50};
  const auto two_special = Parameters::create(lit);
  lit.dnum = 3;
  EXPECT_NE(Parameters::create(lit)->hash(), two_special->hash());
}

class RlweEncryption : public ::testing::TestWithParam<int> {};

TEST_P(RlweEncryption, FreshNoiseIsSmall) {
  POLYHE_SEEDED_RNG(rng);
  ParametersLiteral lit = small_literal(GetParam());
  const auto params = Parameters::create(lit);
  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  // s is ternary: every coefficient in {−1, 0, 1}.
  EXPECT_LE(max_bits(sk.s), 1.0);
  const PublicKey pk = keygen.public_key(sk);
  // b + a·s = e, |e| ≤ 21.
  {
    RnsPoly e = pk.b;
    EXPECT_EQ(pk.b.limbs(), params->q_count() + params->p_count());
    RnsPoly as = pk.a;
    as.multiply(sk.s);
    e.add(as);
    EXPECT_LE(max_bits(e), 5.0);
  }
  Encryptor pk_enc(pk, seed_from(rng));
  Encryptor sk_enc(sk, seed_from(rng));
  for (std::size_t level : {params->max_level(), std::size_t{0}}) {
    const Ciphertext c1 = pk_enc.encrypt_zero(level);
    EXPECT_EQ(c1.level(), level);
    EXPECT_FALSE(c1.seed().has_value());
    // (v·e + e0 + e1·s)/P + rounding: a few units, whatever N (P ≫ N·21).
    EXPECT_LE(max_bits(decrypt_poly(c1, sk)), 0.5 * GetParam() + 3.0);
    const Ciphertext c2 = sk_enc.encrypt_zero(level);
    EXPECT_TRUE(c2.seed().has_value());
    EXPECT_LE(max_bits(decrypt_poly(c2, sk)), 5.0);
  }
  // A message survives: decrypt(encrypt(m)) − m is the small error.
  RnsPoly m(params->ring(), params->q_count());
  for (std::size_t i = 0; i < m.limbs(); ++i) {
    for (auto& w : m.limb(i)) w = rng.uniform(0, params->q_primes()[i] - 1);
  }
  RnsPoly d = decrypt_poly(pk_enc.encrypt(m), sk);
  m.to_evaluation();
  d.sub(m);
  EXPECT_LE(max_bits(d), 0.5 * GetParam() + 3.0);
}

TEST_P(RlweEncryption, SeededGenerationIsReproducible) {
  POLYHE_SEEDED_RNG(rng);
  const auto params = Parameters::create(small_literal(GetParam()));
  const Seed seed = seed_from(rng);
  KeyGenerator g1(params, seed);
  KeyGenerator g2(params, seed);
  const SecretKey s1 = g1.secret_key();
  const SecretKey s2 = g2.secret_key();
  EXPECT_TRUE(std::equal(s1.s.data().begin(), s1.s.data().end(), s2.s.data().begin()));
  KeyGenerator g3(params);
  const SecretKey s3 = g3.secret_key();
  EXPECT_FALSE(std::equal(s1.s.data().begin(), s1.s.data().end(), s3.s.data().begin()));
}

INSTANTIATE_TEST_SUITE_P(LogN, RlweEncryption, ::testing::Values(4, 10, 12));

struct KsCase {
  int log_n;
  std::vector<int> q_bits;
  std::vector<int> p_bits;
  std::size_t dnum;
};

class RlweKeySwitch : public ::testing::TestWithParam<KsCase> {};

// KS(d) decrypts to d·s' up to a small error, at every level, for relinearisation and Galois
// keys: u0 + u1·s − d·s' has |·| far below the moduli.
TEST_P(RlweKeySwitch, SwitchesKeysAtEveryLevel) {
  POLYHE_SEEDED_RNG(rng);
  const KsCase& c = GetParam();
  ParametersLiteral lit;
  lit.log_n = c.log_n;
  lit.q_bits = c.q_bits;
  lit.p_bits = c.p_bits;
  lit.dnum = c.dnum;
  lit.security = SecurityLevel::insecure_none;
  const auto params = Parameters::create(lit);
  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  const KeySwitchKey rlk = keygen.relinearization_key(sk);
  EXPECT_EQ(rlk.parts.count(), params->key_switch_basis().digit_count(params->max_level()));
  const std::uint64_t k = galois_element_for_rotation(params->n(), 3);
  const KeySwitchKey gk = keygen.galois_key(sk, k);
  for (std::size_t level = 0; level <= params->max_level(); ++level) {
    const std::size_t limbs = level + 1;
    RnsPoly d(params->ring(), limbs, PolyForm::kEvaluation);
    for (std::size_t i = 0; i < limbs; ++i) {
      for (auto& w : d.limb(i)) w = rng.uniform(0, params->q_primes()[i] - 1);
    }
    const RnsPoly s = prefix(sk.s, limbs);
    for (int which = 0; which < 2; ++which) {
      const KeySwitchKey& key = which == 0 ? rlk : gk;
      RnsPoly target = which == 0 ? s : prefix(sk.s.automorphism(k), limbs);
      if (which == 0) target.multiply(s);  // s²
      RnsPoly u0(params->ring(), limbs, PolyForm::kEvaluation);
      RnsPoly u1(params->ring(), limbs, PolyForm::kEvaluation);
      key_switch(d, key, u0, u1);
      ASSERT_EQ(u0.limbs(), limbs);
      // err = u0 + u1·s − d·s'.
      u1.multiply(s);
      u0.add(u1);
      RnsPoly ds = d;
      ds.multiply(target);
      u0.sub(ds);
      // Error ≈ Σ_j ‖up_j·e_j‖ / P + rounding: with P ≳ every digit, about 2^(log N / 2 + 4)
      // (measured 6–8 bits at N = 2^10); 2^(log N + 8) still sits 30 bits below the moduli.
      const double bits = max_bits(u0);
      EXPECT_LE(bits, c.log_n + 8.0) << "level " << level << (which ? " galois" : " relin");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Digits, RlweKeySwitch,
    ::testing::Values(KsCase{10, {50, 40, 40, 40, 40}, {50}, 5},      // dnum = L + 1
                      KsCase{10, {50, 40, 40, 40, 40}, {50, 50}, 3},  // α = 2
                      KsCase{10, {45, 45, 45, 45}, {60, 60, 60}, 2},  // dnum 2, k = 3
                      KsCase{10, {45, 45, 45}, {50, 50, 50}, 1},      // one digit
                      KsCase{4, {40, 40}, {45}, 2}));

// relinearize / apply_galois with an error multiple μ (BGV's t): the key-switching error becomes
// a multiple of μ, and the output keeps the input's plaintext factor.
TEST(RlweKeySwitch, ErrorMultipleMakesTheErrorAMultiple) {
  POLYHE_SEEDED_RNG(rng);
  const auto params = Parameters::create(small_literal());
  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  const KeySwitchKey rlk = keygen.relinearization_key(sk);
  const std::uint64_t k = galois_element_for_rotation(params->n(), 1);
  const KeySwitchKey gk = keygen.galois_key(sk, k);
  const std::uint64_t mu = 65537;
  const std::size_t level = 2;
  const std::size_t limbs = level + 1;
  const RnsPoly s = prefix(sk.s, limbs);
  Ciphertext three(params, level, 3);
  for (std::size_t i = 0; i < limbs; ++i) {
    for (auto& w : three[2].limb(i)) w = rng.uniform(0, params->q_primes()[i] - 1);
  }
  three.set_factor(12345);
  const auto centred = [&](const RnsPoly& p) {
    RnsPoly c = p;
    c.to_coefficient();
    return to_bigint_centred(c.data(), params->q_basis().prefix(limbs));
  };
  // err = decrypt(relinearize(c)) − c_2·s² (c_0 = c_1 = 0).
  for (const std::uint64_t m : {std::uint64_t{1}, mu}) {
    const Ciphertext two = relinearize(three, rlk, m);
    EXPECT_EQ(two.factor(), 12345u);
    RnsPoly err = decrypt_poly(two, sk);
    RnsPoly ss = s;
    ss.multiply(s);
    ss.multiply(three[2]);
    err.sub(ss);
    mpz_class worst = 0;
    bool multiples = true;
    for (const mpz_class& v : centred(err)) {
      if (abs(v) > worst) worst = abs(v);
      if (mpz_class(v % mpz_class(static_cast<unsigned long>(m))) != 0) multiples = false;
    }
    EXPECT_TRUE(multiples) << "μ = " << m;
    EXPECT_GT(worst, 0);
    EXPECT_LE(mpz_sizeinbase(worst.get_mpz_t(), 2), (m == 1 ? 0u : 17u) + 10u + 8u);
  }
  // apply_galois of (0, c_1): u_0 + u_1·s = σ_k(c_1)·σ_k(s) + μ·e.
  Ciphertext two(params, level, 2);
  two.parts()[1] = three[2];
  two.set_factor(777);
  const Ciphertext rotated = apply_galois(two, gk, mu);
  EXPECT_EQ(rotated.factor(), 777u);
  RnsPoly err = decrypt_poly(rotated, sk);
  RnsPoly want = two[1].automorphism(k);
  want.multiply(prefix(sk.s.automorphism(k), limbs));
  err.sub(want);
  for (const mpz_class& v : centred(err)) {
    ASSERT_EQ(mpz_class(v % mpz_class(static_cast<unsigned long>(mu))), 0);
  }
  // μ must be a unit mod every q_i; μ = 0 is refused.
  const std::uint64_t q1 = params->q_primes()[1];
  try {
    (void)relinearize(three, rlk, 3 * q1);
    FAIL() << "a multiple of q_1 accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(3 * q1)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::to_string(q1)), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)apply_galois(two, gk, 0), InvalidParameter);
  // Copies keep the factor; 0 is refused.
  const Ciphertext copy = two;
  EXPECT_EQ(copy.factor(), 777u);
  EXPECT_EQ(Ciphertext(params, 0).factor(), 1u);
  Ciphertext z(params, 0);
  EXPECT_THROW(z.set_factor(0), InvalidParameter);
}

Ciphertext random_ciphertext(const ParametersPtr& params, std::size_t level, std::size_t size,
                             test::TestRng& rng) {
  Ciphertext ct(params, level, size, 3.5);
  ct.set_factor(11);
  for (RnsPoly& p : ct.parts()) {
    for (std::size_t i = 0; i < p.limbs(); ++i) {
      for (auto& w : p.limb(i)) w = rng.uniform(0, params->q_primes()[i] - 1);
    }
  }
  return ct;
}

// add/sub into a new ciphertext give the words of add_inplace/sub_inplace on a copy, for every
// pair of sizes (the shorter operand's missing part copied or negated), and keep a's scale and
// factor; decryption of sizes 2 and 3 equals c0 + c1·s (+ c2·s²) formed with RnsPoly operations.
TEST(RlweOperations, OutOfPlaceSumsAndDecryptionEqualTheirDefinitions) {
  POLYHE_SEEDED_RNG(rng);
  const auto params = Parameters::create(small_literal(6));
  const std::size_t level = 2;
  for (std::size_t sa : {2U, 3U}) {
    for (std::size_t sb : {2U, 3U}) {
      const Ciphertext a = random_ciphertext(params, level, sa, rng);
      const Ciphertext b = random_ciphertext(params, level, sb, rng);
      Ciphertext want_sum = a;
      add_inplace(want_sum, b);
      Ciphertext want_diff = a;
      sub_inplace(want_diff, b);
      const Ciphertext sum = add(a, b);
      const Ciphertext diff = sub(a, b);
      ASSERT_EQ(sum.size(), std::max(sa, sb));
      ASSERT_EQ(diff.size(), std::max(sa, sb));
      for (std::size_t i = 0; i < sum.size(); ++i) {
        EXPECT_TRUE(std::ranges::equal(sum[i].data(), want_sum[i].data())) << sa << "+" << sb;
        EXPECT_TRUE(std::ranges::equal(diff[i].data(), want_diff[i].data())) << sa << "-" << sb;
      }
      EXPECT_EQ(sum.scale(), 3.5);
      EXPECT_EQ(diff.factor(), 11U);
      EXPECT_EQ(sum.level(), level);
    }
  }
  const Ciphertext low = random_ciphertext(params, 1, 2, rng);
  const Ciphertext high = random_ciphertext(params, 2, 2, rng);
  EXPECT_THROW((void)add(low, high), InvalidParameter);
  const auto other = Parameters::create(small_literal(6));
  EXPECT_THROW((void)sub(high, random_ciphertext(other, 2, 2, rng)), MismatchedContext);

  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  const RnsPoly s = prefix(sk.s, level + 1);
  for (std::size_t size : {2U, 3U}) {
    const Ciphertext ct = random_ciphertext(params, level, size, rng);
    RnsPoly want = ct[size - 1];
    for (std::size_t i = size - 1; i-- > 0;) {
      want.multiply(s);
      want.add(ct[i]);
    }
    const RnsPoly got = decrypt_poly(ct, sk);
    EXPECT_TRUE(std::ranges::equal(got.data(), want.data())) << "size " << size;
    EXPECT_EQ(got.form(), PolyForm::kEvaluation);
  }
}

TEST(RlweParameters, RefusesSpecialModulusBelowDigits) {
  ParametersLiteral lit = small_literal();
  lit.q_bits = {60, 40, 40, 40, 40, 40};
  lit.p_bits = {60, 60};
  lit.dnum = 2;  // digits of 140 bits over a 120-bit P
  try {
    (void)Parameters::create(lit);
    FAIL() << "P narrower than a digit must be refused";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("140 bits"), std::string::npos) << e.what();
  }
  lit.dnum = 3;  // digits of 100 and 80 bits
  EXPECT_NO_THROW((void)Parameters::create(lit));
}

TEST(RlweKeys, ChecksTheirInputs) {
  POLYHE_SEEDED_RNG(rng);
  const auto params = Parameters::create(small_literal());
  const auto other = Parameters::create(small_literal());
  KeyGenerator keygen(params, seed_from(rng));
  KeyGenerator other_gen(other, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  EXPECT_THROW((void)other_gen.public_key(sk), MismatchedContext);
  EXPECT_THROW((void)keygen.galois_key(sk, 4), InvalidParameter);
  EXPECT_THROW((void)keygen.galois_key(sk, 2 * params->n() + 1), InvalidParameter);
  const SecretKey osk = other_gen.secret_key();
  Encryptor enc(sk, seed_from(rng));
  const Ciphertext ct = enc.encrypt_zero(1);
  EXPECT_THROW((void)decrypt_poly(ct, osk), MismatchedContext);
  EXPECT_THROW((void)enc.encrypt_zero(params->max_level() + 1), InvalidParameter);
  const GaloisKeys gks = keygen.rotation_keys(sk, std::vector<std::int64_t>{1, -1}, true);
  EXPECT_EQ(gks.keys.size(), 3u);
  EXPECT_TRUE(gks.contains(galois_element_for_conjugation(params->n())));
  EXPECT_THROW((void)gks.at(galois_element_for_rotation(params->n(), 2)), InvalidParameter);
  EXPECT_EQ(galois_element_for_rotation(params->n(), 0), 1u);
  EXPECT_EQ(galois_element_for_rotation(params->n(), 1), 5u);
  EXPECT_EQ(
      galois_element_for_rotation(params->n(), -1),
      galois_element_for_rotation(params->n(), static_cast<std::int64_t>(params->n() / 2 - 1)));
}

}  // namespace
}  // namespace polyhe::rlwe
