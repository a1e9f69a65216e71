// Secrets are wiped: a SecretKey's words on every release path (through the test-only observer
// of RnsPoly::wipe, ring/poly.hpp: it sees the words just zeroed, so nothing freed is read), and
// the ring layer's per-thread scratch after a public-key encryption (live thread-local memory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "ring/scratch.hpp"
#include "support/test_rng.hpp"

namespace polyhe::rlwe {
namespace {

ParametersPtr small_params() {
  ParametersLiteral lit;
  lit.log_n = 10;
  lit.q_bits = {55, 45, 45};
  lit.p_bits = {55, 50};  // two special primes: ModDown's exact conversion too
  lit.security = SecurityLevel::insecure_none;
  return Parameters::create(lit);
}

Seed seed_from(test::TestRng& rng) {
  Seed s;
  for (auto& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

bool all_zero(std::span<const std::uint64_t> w) {
  return std::all_of(w.begin(), w.end(), [](std::uint64_t x) { return x == 0; });
}

// What the observer saw: each wipe's words (where, how many, whether all zero).
struct Seen {
  const std::uint64_t* data;
  std::size_t size;
  bool zero;
};
std::vector<Seen> g_seen;  // NOLINT: one test thread writes it, through the observer

void observe(std::span<const std::uint64_t> words) {
  g_seen.push_back({words.data(), words.size(), all_zero(words)});
}

/// Installs the observer for its lifetime (this test thread is the only one wiping).
class Watch {
 public:
  Watch() {
    g_seen.clear();
    detail::set_wipe_observer(&observe);
  }
  ~Watch() { detail::set_wipe_observer(nullptr); }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
};

/// Whether a wipe of exactly these words (by address and count) was seen, zeroed.
bool wiped(const std::uint64_t* data, std::size_t size) {
  return std::any_of(g_seen.begin(), g_seen.end(),
                     [&](const Seen& s) { return s.data == data && s.size == size && s.zero; });
}

TEST(SecretKeyWipe, EveryReleasePathWipesTheWordsFirst) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = small_params();
  KeyGenerator keygen(params, seed_from(rng));
  const Watch watch;
  const std::size_t size = params->n() * (params->q_count() + params->p_count());

  // Destructor.
  const std::uint64_t* words = nullptr;
  {
    const SecretKey sk = keygen.secret_key();
    ASSERT_EQ(sk.s.data().size(), size);
    words = sk.s.data().data();
    ASSERT_FALSE(all_zero(sk.s.data()));
    g_seen.clear();
  }
  EXPECT_TRUE(wiped(words, size)) << "destructor";

  // Copy assignment over a key, then move assignment over the copy, then a copy's destructor.
  SecretKey a = keygen.secret_key();
  SecretKey b = keygen.secret_key();
  const std::vector<std::uint64_t> b_words(b.s.data().begin(), b.s.data().end());
  words = a.s.data().data();
  g_seen.clear();
  a = b;
  EXPECT_TRUE(wiped(words, size)) << "copy assignment";
  EXPECT_TRUE(std::equal(b_words.begin(), b_words.end(), a.s.data().begin()));
  words = a.s.data().data();
  g_seen.clear();
  a = std::move(b);
  EXPECT_TRUE(wiped(words, size)) << "move assignment";
  EXPECT_TRUE(std::equal(b_words.begin(), b_words.end(), a.s.data().begin()));
  {
    const SecretKey copy = a;  // NOLINT(performance-unnecessary-copy-initialization): the point
    words = copy.s.data().data();
    g_seen.clear();
  }
  EXPECT_TRUE(wiped(words, size)) << "a copy's destructor";
}

TEST(SecretKeyWipe, KeyGenerationWipesItsSecretTemporaries) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = small_params();
  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  const Watch watch;
  const std::size_t size = params->n() * (params->q_count() + params->p_count());
  // s² (relinearisation), σ_k(s) (Galois), and each time b and the share P·s' of the digits:
  // at least three full-size wipes per switching key, all of zeroed words.
  (void)keygen.relinearization_key(sk);
  (void)keygen.galois_key(sk, 3);
  (void)keygen.public_key(sk);
  const auto full = std::count_if(g_seen.begin(), g_seen.end(),
                                  [&](const Seen& s) { return s.size == size && s.zero; });
  EXPECT_GE(full, 6);
  EXPECT_TRUE(std::all_of(g_seen.begin(), g_seen.end(), [](const Seen& s) { return s.zero; }));
}

TEST(EncryptionWipe, PublicKeyEncryptionLeavesTheRingScratchZero) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = small_params();
  KeyGenerator keygen(params, seed_from(rng));
  const SecretKey sk = keygen.secret_key();
  const Encryptor encryptor(keygen.public_key(sk), seed_from(rng));
  const std::size_t n = params->n();
  const std::size_t ql = params->q_count();
  const std::size_t qp = ql + params->p_count();
  for (const PolyForm form : {PolyForm::kEvaluation, PolyForm::kCoefficient}) {
    RnsPoly m(params->ring(), ql, form);
    Prng prng(seed_from(rng));
    sample_uniform(prng, m);
    const Ciphertext ct = encryptor.encrypt(m);
    // This thread's scratch of the encryption (ring/scratch.hpp; the same slots and sizes as
    // encrypt_with_public_key): v's transform, the P limbs of v·a, ModDown's conversion.
    EXPECT_TRUE(all_zero(polyhe::detail::scratch(polyhe::detail::kScratchEncV, qp * n)));
    EXPECT_TRUE(all_zero(polyhe::detail::scratch(polyhe::detail::kScratchAcc1, (qp - ql) * n)));
    EXPECT_TRUE(all_zero(polyhe::detail::scratch(polyhe::detail::kScratchConv, ql * n)));
    // And the ciphertext still decrypts to m (the error is small).
    RnsPoly d = decrypt_poly(ct, sk);
    RnsPoly expected = m;
    if (form == PolyForm::kCoefficient) expected.to_evaluation();
    d.sub(expected);
    d.to_coefficient();
    for (std::size_t i = 0; i < ql; ++i) {
      const std::uint64_t q = params->q_primes()[i];
      for (const std::uint64_t x : d.limb(i)) EXPECT_LT(std::min(x, q - x), 1000U);
    }
  }
}

}  // namespace
}  // namespace polyhe::rlwe
