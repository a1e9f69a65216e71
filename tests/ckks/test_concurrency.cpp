// Threads sharing one CKKS set-up — one Parameters object and Context, the keys, one Evaluator,
// one public-key Encryptor and one Decryptor (the promises of rlwe/encryption.hpp and
// ckks/ckks.hpp) — each encrypting, multiplying, relinearising, rotating (one step and hoisted),
// rescaling and decrypting its own inputs at once. The evaluator's results on given ciphertexts,
// and their decryptions, equal word for word what one thread computes; fresh encryptions decrypt
// within the usual precision. scripts/tsan.sh runs this under ThreadSanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <latch>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::ckks {
namespace {

constexpr std::size_t kThreads = 4;
constexpr int kRounds = 3;

bool same_words(const Ciphertext& a, const Ciphertext& b) {
  if (a.size() != b.size() || a.level() != b.level() || a.scale() != b.scale()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = a[i].data(), y = b[i].data();
    if (!std::equal(x.begin(), x.end(), y.begin(), y.end())) return false;
  }
  return true;
}

/// The evaluation every thread runs: x·y rotated by 1 twice over (once alone, once hoisted with
/// another rotation), the two summed and rescaled, plus the conjugate.
Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x, const Ciphertext& y) {
  const Ciphertext prod = ev.multiply_relin(x, y);
  const std::int64_t steps[] = {1, 1};
  Ciphertext p = ev.add(ev.rotate(prod, 1), ev.rotate_many(prod, steps)[1]);
  ev.rescale_inplace(p);
  return ev.add(p, ev.conjugate(p));
}

/// What evaluate computes, in double precision.
test::Vec expected(const test::Vec& x, const test::Vec& y) {
  test::Vec prod(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) prod[i] = x[i] * y[i];
  test::Vec r = test::rotated(prod, 1);
  for (auto& z : r) z = 2.0 * (z + std::conj(z));
  return r;
}

TEST(CkksConcurrency, SharedObjectsGiveEachThreadWhatOneThreadComputes) {
  POLYHE_SEEDED_RNG(rng);
  const rlwe::ParametersPtr params = test::make_params({10, {60, 40, 40}, {60}, 0, 40});
  const ContextPtr ctx = Context::create(params);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const auto sk = rlwe::share(keygen.secret_key());
  const auto pk = rlwe::share(keygen.public_key(*sk));
  const std::int64_t steps[] = {1};
  const Evaluator ev(ctx, rlwe::share(keygen.relinearization_key(*sk)),
                     rlwe::share(keygen.rotation_keys(*sk, steps, /*conjugation=*/true)));
  // Seeded: the threads take their seeds from one guarded stream (rlwe::Encryptor; the BFV/BGV
  // test shares an encryptor of OS seeds).
  const Encryptor encryptor = ctx->encryptor(pk, test::make_seed(rng));
  const Decryptor decryptor(sk);

  // Per thread: inputs, their encryptions, and one thread's results on those encryptions.
  std::vector<test::Vec> xs, ys;
  std::vector<Ciphertext> cxs, cys, references;
  std::vector<Plaintext> reference_plains;
  for (std::size_t t = 0; t < kThreads; ++t) {
    xs.push_back(test::random_values(rng, ctx->slots()));
    ys.push_back(test::random_values(rng, ctx->slots()));
    cxs.push_back(encryptor.encrypt(ctx->encode(xs[t])));
    cys.push_back(encryptor.encrypt(ctx->encode(ys[t])));
    references.push_back(evaluate(ev, cxs[t], cys[t]));
    reference_plains.push_back(decryptor.decrypt(references[t]));
  }

  // What each thread finds (checked here, on the test's thread).
  struct Result {
    bool same_evaluation = true;
    bool same_decryption = true;
    double fresh_bits = 64;
  };
  std::vector<Result> results(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Result& r = results[t];
      start.arrive_and_wait();  // all at once
      for (int round = 0; round < kRounds; ++round) {
        const Ciphertext again = evaluate(ev, cxs[t], cys[t]);
        r.same_evaluation = r.same_evaluation && same_words(again, references[t]);
        const Plaintext plain = decryptor.decrypt(again);
        const std::span<const std::uint64_t> a = plain.poly.data(),
                                             b = reference_plains[t].poly.data();
        r.same_decryption = r.same_decryption && std::equal(a.begin(), a.end(), b.begin(), b.end());
        // Fresh encryptions from the shared encryptor, evaluated and decrypted.
        const Ciphertext fx = encryptor.encrypt(ctx->encode(xs[t]));
        const Ciphertext fy = encryptor.encrypt(ctx->encode(ys[t]));
        const test::Vec got = ctx->decode(decryptor.decrypt(evaluate(ev, fx, fy)));
        r.fresh_bits = std::min(r.fresh_bits, test::precision_bits(expected(xs[t], ys[t]), got));
      }
    });
  }
  for (auto& th : threads) th.join();
  for (std::size_t t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_TRUE(results[t].same_evaluation);
    EXPECT_TRUE(results[t].same_decryption);
    EXPECT_GE(results[t].fresh_bits, 15.0);
    // The single-threaded reference is right too.
    EXPECT_GE(test::precision_bits(expected(xs[t], ys[t]), ctx->decode(reference_plains[t])), 15.0);
  }
}

}  // namespace
}  // namespace polyhe::ckks
