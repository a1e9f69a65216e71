// BGV over Z[X]/Φ_m(X) for odd m (HElib's rings): plaintexts are powerful-basis coordinates mod t,
// checked after every operation against arithmetic in Z_t[X]/Φ_m computed independently in the
// power basis — CyclotomicRing (a length-m cyclic NTT and long division by Φ_m) for m = 21845 at
// 128-bit security, schoolbook-then-divide for m = 4369 and the prime m = 8191 — to depth 3 with
// modulus switching; automorphisms against X → X^g; serialisation; the refusals. Also m = 4369
// with every transform forced to Bluestein (ParametersLiteral::transform).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "ntt/cyclic/cyclotomic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/encoder.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/cyclotomic.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "polyhe/rlwe/serial.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using u64 = std::uint64_t;

Seed seed_from(test::TestRng& rng) {
  Seed s;
  for (auto& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

/// Arithmetic in Z_t[X]/Φ_m in the power basis, and the map from powerful coordinates to it.
class Reference {
 public:
  Reference(std::size_t m, u64 t) : m_(m), t_(t), exponents_(powerful_exponents(m)) {
    if ((t - 1) % m == 0) {
      try {
        ring_ = CyclotomicRing::create(m, t);
      } catch (const InvalidParameter&) {
        ring_ = nullptr;  // no cyclic plan mod t: schoolbook
      }
    }
  }
  /// Powerful coordinates → power-basis coefficients (degree < φ(m)).
  [[nodiscard]] std::vector<u64> power(const std::vector<u64>& a) const {
    std::vector<u64> full(m_, 0);
    for (std::size_t j = 0; j < a.size(); ++j) full[exponents_[j]] = a[j];
    return test::reduce_by_phi(full, m_, t_);
  }
  [[nodiscard]] std::vector<u64> multiply(const std::vector<u64>& a,
                                          const std::vector<u64>& b) const {
    if (ring_) {
      std::vector<u64> c(a.size());
      ring_->multiply(a, b, c);
      return c;
    }
    return test::reference_multiply(a, b, m_, t_);
  }
  [[nodiscard]] std::vector<u64> add(const std::vector<u64>& a, const std::vector<u64>& b) const {
    std::vector<u64> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = (a[i] + b[i]) % t_.value();
    return c;
  }
  /// σ_g in the power basis: X^i → X^(i·g mod m), reduced mod Φ_m.
  [[nodiscard]] std::vector<u64> automorphism(const std::vector<u64>& a, u64 g) const {
    std::vector<u64> full(m_, 0);
    for (std::size_t i = 0; i < a.size(); ++i) {
      u64& x = full[(i * g) % m_];
      x = (x + a[i]) % t_.value();
    }
    return test::reduce_by_phi(full, m_, t_);
  }

 private:
  std::size_t m_;
  Modulus<u64> t_;
  std::vector<u64> exponents_;
  std::shared_ptr<const CyclotomicRing> ring_;
};

struct CyclotomicCase {
  std::size_t m;
  std::vector<int> q_bits;
  std::vector<int> p_bits;
  u64 t;
  rlwe::SecurityLevel security;
  const char* name;
  Decomposition transform = Decomposition::automatic;
  std::vector<u64> q = {};  // explicit chains (then q_bits and p_bits are empty)
  std::vector<u64> p = {};
};

/// `count` distinct primes of `bits` bits, largest first, ≡ 1 mod l.
std::vector<u64> primes_one_mod(u64 l, int bits, std::size_t count) {
  std::vector<u64> out;
  for (u64 q = ((u64{1} << bits) - 1) / l * l + 1; out.size() < count; q -= l) {
    if (is_prime(q)) out.push_back(q);
  }
  return out;
}

/// rlwe::ParametersLiteral for a case.
rlwe::ParametersLiteral literal_of(const CyclotomicCase& c) {
  rlwe::ParametersLiteral lit;
  lit.m = c.m;
  lit.q_bits = c.q_bits;
  lit.p_bits = c.p_bits;
  lit.q = c.q;
  lit.p = c.p;
  lit.security = c.security;
  lit.transform = c.transform;
  return lit;
}

void PrintTo(const CyclotomicCase& c, std::ostream* os) {
  *os << c.name;
}

/// A prime t ≡ 1 mod m's transform modulus: CyclotomicRing serves it (d = 1: Z_t slots).
u64 slot_prime(std::size_t m, int bits) {
  return powerful_ntt_primes(m, bits, 1).front();
}

std::vector<CyclotomicCase> cases() {
  const std::vector<u64> all_bluestein = primes_one_mod(u64{4369} * 1024, 60, 6);
  return {
      {21845,
       {60, 60, 60, 60, 60, 60},
       {60},
       slot_prime(21845, 30),
       rlwe::SecurityLevel::bits128,
       "m21845_t30"},
      // Below 2^13 coefficients no set of this depth is secure: the opt-out by name.
      {4369, {60, 60, 60, 60, 60}, {60}, 65537, rlwe::SecurityLevel::insecure_none, "m4369_t17"},
      // A prime m: one Rader transform of length 8191 per prime; φ(m) = 8190 is not a multiple
      // of 8 (the key layout's final smaller group).
      {8191, {60, 60, 60, 60, 60}, {60}, 65537, rlwe::SecurityLevel::insecure_none, "m8191_t17"},
      // Bluestein nodes: the transforms of 17 and 257 forced to Bluestein (the planner never
      // picks it: wherever Bluestein has its power-of-two roots, padded Rader has them too), so
      // every prime is 1 mod 4369·1024 (257's chirp convolution of 1024, 17's of 64).
      {4369,
       {},
       {},
       65537,
       rlwe::SecurityLevel::insecure_none,
       "m4369_bluestein",
       Decomposition::bluestein,
       std::vector<u64>(all_bluestein.begin(), all_bluestein.begin() + 5),
       std::vector<u64>(all_bluestein.begin() + 5, all_bluestein.end())},
  };
}

class BgvCyclotomic : public ::testing::TestWithParam<CyclotomicCase> {};

TEST_P(BgvCyclotomic, DepthThreeWithModulusSwitchingAndAutomorphisms) {
  const CyclotomicCase& c = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto params = rlwe::Parameters::create(literal_of(c));
  ASSERT_FALSE(params->power_of_two());
  ASSERT_EQ(params->n(), euler_phi(c.m));
  ASSERT_EQ(params->m(), c.m);
  if (c.transform != Decomposition::automatic) {
    EXPECT_EQ(params->literal().transform, c.transform);
    for (std::size_t i = 0; i < params->ring()->basis().size(); ++i) {
      const std::string d = params->ring()->powerful(i)->decomposition();
      ASSERT_NE(d.find(to_string(c.transform)), std::string::npos) << d;
    }
  }
  const auto ctx = Context::create(params, c.t);
  EXPECT_FALSE(ctx->batching());
  const std::size_t n = ctx->n();
  const u64 t = c.t;
  const Reference ref(c.m, t);

  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const std::vector<u64> elements{2, 3, c.m - 1};
  const rlwe::GaloisKeys galois = keygen.galois_keys(sk, elements);
  const Encryptor pk_enc = ctx->encryptor(pk, seed_from(rng));
  const Encryptor sk_enc = ctx->encryptor(sk, seed_from(rng));
  const Decryptor decryptor = ctx->decryptor(sk);
  const Evaluator ev(ctx, rlwe::share(relin), rlwe::share(galois));

  const auto random_plain = [&] {
    std::vector<u64> v(n);
    for (auto& x : v) x = rng.uniform(0, t - 1);
    return v;
  };
  const auto dec = [&](const Ciphertext& ct) { return decryptor.decrypt(ct).coeffs; };
  std::vector<std::vector<u64>> plain;
  std::vector<Ciphertext> cts;
  for (int i = 0; i < 4; ++i) {
    plain.push_back(random_plain());
    cts.push_back((i % 2 == 0 ? pk_enc : sk_enc).encrypt(Plaintext{plain.back()}));
    ASSERT_EQ(dec(cts.back()), plain.back()) << "fresh encryption " << i;
  }
  // ((x0·x1)·x2)·x3 with a modulus switch after each product, checked level by level.
  std::vector<u64> want = ref.power(plain[0]);
  Ciphertext acc = cts[0];
  int budget = decryptor.noise_budget(acc);
  for (int depth = 1; depth <= 3; ++depth) {
    acc = ev.mod_switch_to_next(ev.multiply_relin(acc, cts[depth]));
    want = ref.multiply(want, ref.power(plain[depth]));
    const auto got = dec(acc);
    ASSERT_EQ(ref.power(got), want) << "depth " << depth;
    const int now = decryptor.noise_budget(acc);
    EXPECT_GT(now, 0) << "depth " << depth;
    EXPECT_LT(now, budget) << "depth " << depth;
    budget = now;
  }
  EXPECT_EQ(acc.level(), params->max_level() - 3);
  // Additions across levels and factors; plaintext products.
  const auto sum = ev.add(acc, cts[1]);
  EXPECT_EQ(ref.power(dec(sum)), ref.add(want, ref.power(plain[1])));
  const auto prod_plain = ev.multiply_plain(cts[2], Plaintext{plain[3]});
  EXPECT_EQ(ref.power(dec(prod_plain)), ref.multiply(ref.power(plain[2]), ref.power(plain[3])));
  // Key-switched automorphisms against X → X^g, fresh and after a product.
  for (const u64 g : elements) {
    EXPECT_EQ(ref.power(dec(ev.apply_galois(cts[0], g))), ref.automorphism(ref.power(plain[0]), g))
        << "g = " << g;
  }
  EXPECT_EQ(ref.power(dec(ev.apply_galois(acc, 3))), ref.automorphism(want, 3));
  // No such element, and rows/columns are x^N + 1's.
  EXPECT_THROW((void)keygen.galois_key(sk, c.m), InvalidParameter);
  EXPECT_THROW((void)keygen.galois_key(sk, prime_factors(c.m).front()), InvalidParameter);
  EXPECT_THROW((void)ev.rotate_rows(cts[0], 1), InvalidParameter);
  EXPECT_THROW((void)ev.rotate_columns(cts[0]), InvalidParameter);
  EXPECT_THROW((void)ctx->batch_encoder(), InvalidParameter);
  // BFV, BGV's scale-invariant mode, is x^N + 1's only (its HPS multiplication): refused at
  // create, naming the ring and the rule.
  try {
    (void)Context::create(params, c.t, Scheme::bfv);
    ADD_FAILURE() << "a BFV context over Phi_" << c.m;
  } catch (const InvalidParameter& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Phi_" + std::to_string(c.m)), std::string::npos) << what;
    EXPECT_NE(what.find("x^N + 1 only"), std::string::npos) << what;
    EXPECT_NE(what.find("use BGV"), std::string::npos) << what;
  }
}

TEST_P(BgvCyclotomic, ParametersAndCiphertextsRoundTrip) {
  const CyclotomicCase& c = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto params = rlwe::Parameters::create(literal_of(c));
  // The caller's minimum is the set's own level: toy sets are loaded by name.
  const auto loaded = rlwe::load_parameters(rlwe::serialize(*params), c.security);
  EXPECT_TRUE(loaded->same_values(*params));
  EXPECT_EQ(loaded->m(), c.m);
  EXPECT_EQ(loaded->literal().m, c.m);
  const auto ctx = Context::create(params, c.t);
  rlwe::KeyGenerator keygen(params, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const Encryptor enc = ctx->encryptor(sk, seed_from(rng));
  std::vector<u64> v(ctx->n());
  for (auto& x : v) x = rng.uniform(0, c.t - 1);
  const Ciphertext ct = enc.encrypt(Plaintext{v});
  const Ciphertext back = load_ciphertext(rlwe::serialize(ct), *ctx);
  EXPECT_EQ(ctx->decryptor(sk).decrypt(back).coeffs, v);
  const auto gk = keygen.galois_keys(sk, std::vector<u64>{2});
  const auto gk_back = rlwe::load_galois_keys(rlwe::serialize(gk), params);
  EXPECT_TRUE(gk_back.contains(2));
}

// A loaded set is made afresh (its transforms plan again, and build their tables on first use):
// it encrypts, multiplies and decrypts on its own.
TEST_P(BgvCyclotomic, LoadedParametersEncryptMultiplyAndDecrypt) {
  const CyclotomicCase& c = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto loaded =
      rlwe::load_parameters(rlwe::serialize(*rlwe::Parameters::create(literal_of(c))), c.security);
  const auto ctx = Context::create(loaded, c.t);
  const Reference ref(c.m, c.t);
  rlwe::KeyGenerator keygen(loaded, seed_from(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const Evaluator ev(ctx, rlwe::share(keygen.relinearization_key(sk)));
  const Encryptor enc = ctx->encryptor(sk, seed_from(rng));
  const Decryptor dec = ctx->decryptor(sk);
  std::vector<u64> a(ctx->n()), b(ctx->n());
  for (auto& x : a) x = rng.uniform(0, c.t - 1);
  for (auto& x : b) x = rng.uniform(0, c.t - 1);
  const Ciphertext ca = enc.encrypt(Plaintext{a});
  const Ciphertext cb = enc.encrypt(Plaintext{b});
  EXPECT_EQ(dec.decrypt(ca).coeffs, a);
  EXPECT_EQ(ref.power(dec.decrypt(ev.multiply_relin(ca, cb)).coeffs),
            ref.multiply(ref.power(a), ref.power(b)));
}

INSTANTIATE_TEST_SUITE_P(Rings, BgvCyclotomic, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

void expect_refused(const rlwe::ParametersLiteral& lit, const std::string& needle) {
  try {
    (void)rlwe::Parameters::create(lit);
    FAIL() << "expected a refusal mentioning " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(BgvCyclotomicParameters, BadSetsAreRefusedWithTheRule) {
  rlwe::ParametersLiteral lit;
  lit.m = 21845;
  lit.q_bits = {60, 60};
  lit.p_bits = {60};
  lit.log_n = 14;
  expect_refused(lit, "not both");
  lit.log_n = 0;
  lit.m = 21844;
  expect_refused(lit, "must be odd");
  lit.m = 21845;
  lit.q_bits = {20, 20};  // no 20-bit prime is 1 mod 21845·256
  expect_refused(lit, "21845");
  // φ(21845) = 16384: the table's 2^14 row allows 438 bits.
  lit.q_bits = std::vector<int>(8, 60);
  expect_refused(lit, "phi(m) = 16384");
  // φ(4369) = 4096 bits of the 2^12 row: 109 bits.
  lit.m = 4369;
  lit.q_bits = {60, 60};
  expect_refused(lit, "N = 4096");
  // Explicit primes must be 1 mod m.
  lit.q_bits.clear();
  lit.q = {ntt_primes(50, 4096, 1)[0]};
  lit.security = rlwe::SecurityLevel::insecure_none;
  expect_refused(lit, "not 1 mod m = 4369");
  // A forced transform needs its roots: generated primes are 1 mod 4369·256, not the 1024 of
  // 257's Bluestein convolution.
  lit.q.clear();
  lit.q_bits = {60, 60};
  lit.transform = Decomposition::bluestein;
  expect_refused(lit, "not 1 mod 1024");
  // and applies to odd m only.
  lit.m = 0;
  lit.log_n = 12;
  expect_refused(lit, "transform = bluestein");
}

TEST(BgvCyclotomicParameters, PlaintextModulusMustBeCoprimeToM) {
  const auto params = cases::phi_m_params(4369, {60, 60}, {60});  // 17·257
  for (const u64 t : {257, 17 * 3}) {
    try {
      (void)Context::create(params, t);
      FAIL() << "t = " << t << " shares a factor with m";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("coprime"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW((void)Context::create(params, 65537));
}

// CKKS's slots are the complex roots of x^N + 1: its encoder and evaluator refuse Φ_m.
TEST(BgvCyclotomicParameters, CkksRefusesOddM) {
  const auto params = cases::phi_m_params(4369, {50, 50}, {50});
  EXPECT_THROW((void)ckks::Encoder(params->ring()), InvalidParameter);
  EXPECT_THROW((void)ckks::Evaluator(params), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::bgv
