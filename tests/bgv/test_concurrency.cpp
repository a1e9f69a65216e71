// Threads sharing one BFV or BGV set-up — one Parameters object and Context, the keys, one
// Evaluator, one public-key Encryptor and one Decryptor (the promises of rlwe/encryption.hpp and
// bgv/bgv.hpp) — each encrypting, multiplying, relinearising, rotating, switching modulus and
// decrypting its own inputs at once. The evaluator's results on given ciphertexts equal word for
// word what one thread computes; every decryption is exact. scripts/tsan.sh runs this under
// ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::bgv {
namespace {

using cases::u64;

constexpr std::size_t kThreads = 4;
constexpr int kRounds = 3;

bool same_words(const Ciphertext& a, const Ciphertext& b) {
  if (a.size() != b.size() || a.level() != b.level() || a.factor() != b.factor()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = a[i].data(), y = b[i].data();
    if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return false;
  }
  return true;
}

/// The evaluation every thread runs: the rows of x·y rotated left by 1, one prime dropped.
Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x, const Ciphertext& y) {
  return ev.mod_switch_to_next(ev.rotate_rows(ev.multiply_relin(x, y), 1));
}

/// What evaluate computes, slot by slot mod t.
std::vector<u64> expected(const std::vector<u64>& x, const std::vector<u64>& y, u64 t) {
  const std::vector<u64> prod = cases::times(x, y, t);
  const std::size_t n = prod.size(), row = n / 2;
  std::vector<u64> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = prod[i / row * row + (i % row + 1) % row];
  return out;
}

class Concurrency : public ::testing::TestWithParam<Scheme> {};

TEST_P(Concurrency, SharedObjectsGiveEachThreadWhatOneThreadComputes) {
  POLYHE_SEEDED_RNG(rng);
  rlwe::ParametersLiteral lit;
  lit.log_n = 11;
  lit.q_bits = {50, 50, 50};
  lit.p_bits = {51};
  lit.security = rlwe::SecurityLevel::insecure_none;  // small, for speed (and ThreadSanitizer)
  const u64 t = 65537;                                // ≡ 1 mod 2N: batching
  const ContextPtr ctx = Context::create(rlwe::Parameters::create(lit), t, GetParam());
  rlwe::KeyGenerator keygen(ctx->params(), cases::make_seed(rng));
  const auto sk = rlwe::share(keygen.secret_key());
  const auto pk = rlwe::share(keygen.public_key(*sk));
  const std::int64_t steps[] = {1};
  const Evaluator ev(ctx, rlwe::share(keygen.relinearization_key(*sk)),
                     rlwe::share(keygen.rotation_keys(*sk, steps)));
  const Encryptor encryptor = ctx->encryptor(pk);  // OS seeds: one stream shared by every thread
  const Decryptor decryptor(ctx, sk);
  const BatchEncoder& encoder = ctx->batch_encoder();
  const auto encode = [&](const std::vector<u64>& v) { return Plaintext{encoder.encode(v)}; };

  // Per thread: inputs, their encryptions, and one thread's result on those encryptions.
  std::vector<std::vector<u64>> xs, ys;
  std::vector<Ciphertext> cxs, cys, references;
  for (std::size_t i = 0; i < kThreads; ++i) {
    xs.push_back(cases::random_slots(rng, ctx->n(), t));
    ys.push_back(cases::random_slots(rng, ctx->n(), t));
    cxs.push_back(encryptor.encrypt(encode(xs[i])));
    cys.push_back(encryptor.encrypt(encode(ys[i])));
    references.push_back(evaluate(ev, cxs[i], cys[i]));
  }

  // What each thread finds (checked here, on the test's thread).
  struct Result {
    bool same_evaluation = true;
    bool decrypts_exactly = true;
  };
  std::vector<Result> results(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Result& r = results[i];
      const std::vector<u64> want = expected(xs[i], ys[i], t);
      start.arrive_and_wait();  // all at once
      for (int round = 0; round < kRounds; ++round) {
        const Ciphertext again = evaluate(ev, cxs[i], cys[i]);
        r.same_evaluation = r.same_evaluation && same_words(again, references[i]);
        r.decrypts_exactly =
            r.decrypts_exactly && encoder.decode(decryptor.decrypt(again).coeffs) == want;
        // Fresh encryptions from the shared encryptor, evaluated and decrypted.
        const Ciphertext fx = encryptor.encrypt(encode(xs[i]));
        const Ciphertext fy = encryptor.encrypt(encode(ys[i]));
        const Ciphertext result = evaluate(ev, fx, fy);
        r.decrypts_exactly = r.decrypts_exactly &&
                             encoder.decode(decryptor.decrypt(result).coeffs) == want &&
                             decryptor.noise_budget(result) > 0;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < kThreads; ++i) {
    SCOPED_TRACE("thread " + std::to_string(i));
    EXPECT_TRUE(results[i].same_evaluation);
    EXPECT_TRUE(results[i].decrypts_exactly);
    EXPECT_EQ(encoder.decode(decryptor.decrypt(references[i]).coeffs), expected(xs[i], ys[i], t));
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, Concurrency, ::testing::Values(Scheme::bfv, Scheme::bgv),
                         cases::scheme_name);

}  // namespace
}  // namespace polyhe::bgv
