// Shared helpers for the BFV/BGV tests: parameter sets, seeds, random slot vectors and the
// slot-wise arithmetic mod t they are checked against.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/ring/sampler.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv::cases {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

struct Case {
  int log_n;
  std::vector<int> q_bits;
  std::vector<int> p_bits;
  u64 t;
  const char* name;
};

inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

/// Parameters at 128-bit security from the case's bit sizes.
inline rlwe::ParametersPtr make_params(const Case& c) {
  rlwe::ParametersLiteral lit;
  lit.log_n = c.log_n;
  lit.q_bits = c.q_bits;
  lit.p_bits = c.p_bits;
  lit.security = rlwe::SecurityLevel::bits128;
  return rlwe::Parameters::create(lit);
}

/// Parameters over Φ_m (m odd) with generated primes of the given sizes; security `none` unless
/// asked for (the small rings of the slot and refusal tests are below the standard's table).
inline rlwe::ParametersPtr phi_m_params(
    u64 m, std::vector<int> q_bits, std::vector<int> p_bits,
    rlwe::SecurityLevel security = rlwe::SecurityLevel::insecure_none) {
  rlwe::ParametersLiteral lit;
  lit.m = m;
  lit.q_bits = std::move(q_bits);
  lit.p_bits = std::move(p_bits);
  lit.security = security;
  return rlwe::Parameters::create(lit);
}

/// A batching prime t ≡ 1 mod 2N of `bits` bits.
inline u64 batching_prime(int bits, std::size_t n) {
  return ntt_primes(bits, n, 1)[0];
}

inline Seed make_seed(test::TestRng& rng) {
  Seed s;
  for (auto& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

inline std::vector<u64> random_slots(test::TestRng& rng, std::size_t n, u64 t) {
  std::vector<u64> v(n);
  for (auto& x : v) x = rng.uniform(0, t - 1);
  return v;
}

inline u64 mulmod(u64 a, u64 b, u64 t) {
  return static_cast<u64>(u128{a} * b % t);
}

inline std::vector<u64> times(const std::vector<u64>& a, const std::vector<u64>& b, u64 t) {
  std::vector<u64> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = mulmod(a[i], b[i], t);
  return c;
}

inline std::vector<u64> plus(const std::vector<u64>& a, const std::vector<u64>& b, u64 t) {
  std::vector<u64> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = (a[i] + b[i]) % t;
  return c;
}

inline std::vector<u64> minus(const std::vector<u64>& a, const std::vector<u64>& b, u64 t) {
  std::vector<u64> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = (a[i] + t - b[i]) % t;
  return c;
}

/// t at 17, 20, 40 bits (batching) for N = 2^12 .. 2^14, at 128-bit security.
inline std::vector<Case> batch_cases() {
  return {
      {12, {36, 36}, {37}, 65537, "n12_t17"},
      {13, {54, 54, 54}, {55}, 65537, "n13_t17"},
      {13, {54, 54, 54}, {55}, batching_prime(20, std::size_t{1} << 13), "n13_t20"},
      {14, {60, 60, 60, 60, 60}, {60}, batching_prime(40, std::size_t{1} << 14), "n14_t40"},
  };
}

/// `encryptor`'s rlwe encryptor (the same key and the same stream of seeds) beside `ctx`, another
/// context of the same parameters: what one rlwe::Encryptor given to encryptions under two
/// contexts (BGV and BFV over one key) draws.
inline Encryptor rebind(const Encryptor& encryptor, ContextPtr ctx) {
  const auto owner = std::make_shared<const Encryptor>(encryptor);
  return Encryptor(std::move(ctx),
                   std::shared_ptr<const rlwe::Encryptor>(owner, &owner->rlwe_encryptor()));
}

/// Everything one parameter set needs under one scheme: context, keys (Galois keys for `steps`
/// and the row swap), seeded encryptors, the decryptor and the evaluator, with encryption, batch
/// decryption and the noise budget as members.
struct SchemeFixture {
  explicit SchemeFixture(const Case& c, Scheme scheme, test::TestRng& rng,
                         std::vector<std::int64_t> steps = {})
      : ctx(Context::create(make_params(c), c.t, scheme)),
        keygen(ctx->params(), make_seed(rng)),
        sk(keygen.secret_key()),
        pk(keygen.public_key(sk)),
        relin(keygen.relinearization_key(sk)),
        galois(keygen.rotation_keys(sk, steps, /*conjugation=*/true)),
        pk_enc(ctx->encryptor(pk, make_seed(rng))),
        sk_enc(ctx->encryptor(sk, make_seed(rng))),
        dec(ctx->decryptor(sk)),
        ev(ctx, rlwe::share(relin), rlwe::share(galois)) {}

  Plaintext encode(const std::vector<u64>& slots) const {
    return Plaintext{ctx->batch_encoder().encode(slots)};
  }
  /// Public-key encryption of the encoded slots.
  Ciphertext encrypt(const std::vector<u64>& slots) { return pk_enc.encrypt(encode(slots)); }
  std::vector<u64> decrypt(const Ciphertext& ct) const {
    return ctx->batch_encoder().decode(dec.decrypt(ct).coeffs);
  }
  int budget(const Ciphertext& ct) const { return dec.noise_budget(ct); }
  Scheme scheme() const { return ctx->scheme(); }

  ContextPtr ctx;
  rlwe::KeyGenerator keygen;
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey relin;
  rlwe::GaloisKeys galois;
  Encryptor pk_enc;
  Encryptor sk_enc;
  Decryptor dec;
  Evaluator ev;
};

/// Test names: "bfv", "bgv".
inline std::string scheme_name(const ::testing::TestParamInfo<Scheme>& p) {
  return std::string(to_string(p.param));
}
/// Test names: "bfv_n12_t17", ...
inline std::string scheme_case_name(const ::testing::TestParamInfo<std::tuple<Scheme, Case>>& p) {
  return std::string(to_string(std::get<0>(p.param))) + "_" + std::get<1>(p.param).name;
}

/// The linear operations on cx = Enc(x), cy = Enc(y) (add, sub, negate and the plaintext forms,
/// multiply_plain included) decrypt to the slot-wise results mod t.
inline void expect_linear_operations(SchemeFixture& f, const Ciphertext& cx, const Ciphertext& cy,
                                     const std::vector<u64>& x, const std::vector<u64>& y, u64 t) {
  std::vector<u64> neg(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) neg[i] = (t - x[i]) % t;
  const auto sum = plus(x, y, t), diff = minus(x, y, t), prod = times(x, y, t);
  EXPECT_EQ(f.decrypt(f.ev.add(cx, cy)), sum);
  EXPECT_EQ(f.decrypt(f.ev.sub(cx, cy)), diff);
  EXPECT_EQ(f.decrypt(f.ev.negate(cx)), neg);
  EXPECT_EQ(f.decrypt(f.ev.add_plain(cx, f.encode(y))), sum);
  EXPECT_EQ(f.decrypt(f.ev.sub_plain(cx, f.encode(y))), diff);
  EXPECT_EQ(f.decrypt(f.ev.multiply_plain(cx, f.encode(y))), prod);
}

}  // namespace polyhe::bgv::cases
