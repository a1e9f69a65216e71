// Constant-time validation (docs/security.md, "Constant time"): key generation, encryption and
// decryption of CKKS, BFV and BGV run under Valgrind's memcheck, where the library marks every
// secret word as undefined where it is drawn and as defined where it becomes public
// (polyhe/core/constant_time.hpp). memcheck then reports each conditional jump, table index or
// address that depends on a secret; each test counts the reports its own calls caused and wants
// none. CTest runs this binary under valgrind once per CPU path Valgrind can run (scalar, avx2);
// outside valgrind every test fails, so that it can never pass without looking.
#include <gtest/gtest.h>
#include <valgrind/memcheck.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/constant_time.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

unsigned reports() {
  return VALGRIND_COUNT_ERRORS;
}

class ConstantTime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RUNNING_ON_VALGRIND) << "run this binary under valgrind --tool=memcheck (CTest "
                                        "does): outside it no secret is watched";
    ASSERT_TRUE(detail::ct_annotations_built())
        << "the library was built without valgrind/memcheck.h: it marks no secret";
  }
};

// The path CTest asked for (POLYHE_CPU) is the one that runs: cpu_path() would throw were it
// unavailable under Valgrind, and this names it in the log.
TEST_F(ConstantTime, RunsThePathAskedFor) {
  const char* asked = std::getenv("POLYHE_CPU");
  ASSERT_NE(asked, nullptr) << "CTest sets POLYHE_CPU";
  EXPECT_EQ(to_string(cpu_path()), std::string(asked));
}

// The harness itself: a branch and a table index on a marked word are reported, once each.
[[gnu::noinline]] int taken(int x) {
  return x * 3 + 1;
}
[[gnu::noinline]] int not_taken(int x) {
  return x * 5 + 2;
}
volatile int g_sink = 0;

TEST_F(ConstantTime, TheHarnessReportsABranchOnASecret) {
  u64 secret = 0x5a5a;
  detail::ct_secret(&secret, sizeof secret);
  const unsigned before = reports();
  if ((secret & 1) != 0) {  // NOLINT: the branch is the point
    g_sink = taken(g_sink);
  } else {
    g_sink = not_taken(g_sink);
  }
  EXPECT_EQ(reports(), before + 1);
}

TEST_F(ConstantTime, TheHarnessReportsATableIndexBySecret) {
  static const int table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  u64 secret = 7;
  detail::ct_secret(&secret, sizeof secret);
  const unsigned before = reports();
  g_sink = table[secret & 15];
  EXPECT_GT(reports(), before);
  detail::ct_public(&secret, sizeof secret);
  const unsigned after = reports();
  g_sink = table[secret & 15];  // declassified: no report
  EXPECT_EQ(reports(), after);
}

rlwe::ParametersPtr params(std::vector<int> q_bits, std::vector<int> p_bits, int log_n = 10) {
  rlwe::ParametersLiteral lit;
  lit.log_n = log_n;
  lit.q_bits = std::move(q_bits);
  lit.p_bits = std::move(p_bits);
  lit.security = rlwe::SecurityLevel::insecure_none;  // small N: valgrind is ~50x slower
  return rlwe::Parameters::create(lit);
}

double max_error(const std::vector<std::complex<double>>& want,
                 const std::vector<std::complex<double>>& got) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(want[i] - got[i]));
  return worst;
}

// CKKS with one special prime (ModDown's centred lift) and with two (its exact base conversion).
class CkksConstantTime : public ConstantTime, public ::testing::WithParamInterface<int> {};

TEST_P(CkksConstantTime, KeysEncryptionAndDecryption) {
  const int special = GetParam();
  const auto p = params({50, 40, 40}, std::vector<int>(static_cast<std::size_t>(special), 50));
  const double scale = std::ldexp(1.0, 40);
  const ckks::ContextPtr ctx = ckks::Context::create(p, scale);
  std::vector<std::complex<double>> x(p->n() / 2);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = {std::cos(0.1 * static_cast<double>(i)), std::sin(0.3 * static_cast<double>(i))};
  }
  const ckks::Plaintext px = ctx->encode(x, p->max_level(), scale);

  const unsigned before = reports();
  rlwe::KeyGenerator keygen(p);
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const std::vector<std::int64_t> steps{1};
  const rlwe::GaloisKeys galois = keygen.rotation_keys(sk, steps, /*conjugation=*/true);
  const ckks::Encryptor pk_enc = ctx->encryptor(pk);
  const ckks::Encryptor sk_enc = ctx->encryptor(sk);
  const ckks::Ciphertext c_pk = pk_enc.encrypt(px);
  const ckks::Ciphertext c_sk = sk_enc.encrypt(px);
  const ckks::Evaluator ev(p, rlwe::share(relin), rlwe::share(galois));
  const ckks::Ciphertext square = ev.multiply(c_pk, c_sk);  // size 3: decryption with s² too
  const ckks::Decryptor decryptor = ctx->decryptor(sk);
  const ckks::Plaintext d_pk = decryptor.decrypt(c_pk);
  const ckks::Plaintext d_sk = decryptor.decrypt(c_sk);
  const ckks::Plaintext d_square = decryptor.decrypt(square);
  const ckks::Plaintext d_flooded = ctx->decryptor(sk, ckks::DecryptOptions{20}).decrypt(c_pk);
  EXPECT_EQ(reports(), before) << "a branch or an index on a secret (valgrind's log above)";

  EXPECT_LT(max_error(x, ctx->decode(d_pk)), 1e-5);
  EXPECT_LT(max_error(x, ctx->decode(d_sk)), 1e-5);
  EXPECT_LT(max_error(x, ctx->decode(d_flooded)), 1e-3);
  std::vector<std::complex<double>> xx(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xx[i] = x[i] * x[i];
  EXPECT_LT(max_error(xx, ctx->decode(d_square)), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(SpecialPrimes, CkksConstantTime, ::testing::Values(1, 2));

std::string scheme_name(const ::testing::TestParamInfo<bgv::Scheme>& p) {
  return std::string(bgv::to_string(p.param));
}

// BFV and BGV: keys, public-key and symmetric encryption, decryption of sizes 2 and 3.
class BgvConstantTime : public ConstantTime, public ::testing::WithParamInterface<bgv::Scheme> {};

TEST_P(BgvConstantTime, KeysEncryptionAndDecryption) {
  const auto p = params({50, 50, 50}, {50, 50});
  const u64 t = ntt_primes(20, p->n(), 1)[0];
  const bgv::ContextPtr ctx = bgv::Context::create(p, t, GetParam());
  std::vector<u64> x(p->n());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i * i + 7) % t;
  const bgv::Plaintext px{ctx->batch_encoder().encode(x)};

  const unsigned before = reports();
  rlwe::KeyGenerator keygen(p);
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const bgv::Encryptor pk_enc = ctx->encryptor(pk);
  const bgv::Encryptor sk_enc = ctx->encryptor(sk);
  const bgv::Ciphertext c_pk = pk_enc.encrypt(px);
  const bgv::Ciphertext c_sk = sk_enc.encrypt(px);
  const bgv::Evaluator ev(ctx, rlwe::share(relin), nullptr);
  const bgv::Ciphertext square = ev.multiply(c_pk, c_sk);
  const bgv::Decryptor decryptor = ctx->decryptor(sk);
  const bgv::Plaintext d_pk = decryptor.decrypt(c_pk);
  const bgv::Plaintext d_sk = decryptor.decrypt(c_sk);
  const bgv::Plaintext d_square = decryptor.decrypt(square);
  EXPECT_EQ(reports(), before) << "a branch or an index on a secret (valgrind's log above)";

  EXPECT_EQ(ctx->batch_encoder().decode(d_pk.coeffs), x);
  EXPECT_EQ(ctx->batch_encoder().decode(d_sk.coeffs), x);
  std::vector<u64> xx(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    xx[i] = static_cast<u64>(static_cast<unsigned __int128>(x[i]) * x[i] % t);
  }
  EXPECT_EQ(ctx->batch_encoder().decode(d_square.coeffs), xx);
}

INSTANTIATE_TEST_SUITE_P(Schemes, BgvConstantTime,
                         ::testing::Values(bgv::Scheme::bfv, bgv::Scheme::bgv), scheme_name);

// A sparse secret (fixed Hamming weight: the bitonic sort) and the secret key's serialisation.
TEST_F(ConstantTime, SparseSecretAndItsSerialisation) {
  rlwe::ParametersLiteral lit;
  lit.log_n = 10;
  lit.q_bits = {50, 40};
  lit.p_bits = {50};
  lit.hamming_weight = 64;
  lit.security = rlwe::SecurityLevel::insecure_none;
  const auto p = rlwe::Parameters::create(lit);
  const unsigned before = reports();
  rlwe::KeyGenerator keygen(p);
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::PublicKey pk = keygen.public_key(sk);
  const std::vector<std::uint8_t> bytes = rlwe::serialize(sk);
  EXPECT_EQ(reports(), before) << "a branch or an index on a secret (valgrind's log above)";
  detail::ct_public(std::span<const std::uint8_t>(bytes));  // the caller's to keep secret
  EXPECT_FALSE(bytes.empty());
}

}  // namespace
}  // namespace polyhe
