// BFV against plaintext integer arithmetic mod t: encryption (public-key and symmetric), add, sub,
// negate, plaintext operations, HPS multiplication with relinearisation to depth 4, row and column
// rotations, the invariant noise budget down to its exhaustion, and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bfv.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

struct Fixture : SchemeFixture<BfvEvaluator> {
  using SchemeFixture::SchemeFixture;
  std::vector<u64> decrypt(const Ciphertext& ct) const {
    return ctx->batch_encoder().decode(bfv_decrypt(*ctx, ct, sk).coeffs);
  }
};

class BfvBatch : public ::testing::TestWithParam<Case> {};

TEST_P(BfvBatch, EncryptDecryptAndLinearOperations) {
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  const Ciphertext cy = bfv_encrypt(*f.ctx, f.sk_enc, f.encode(y));
  EXPECT_EQ(f.decrypt(cx), x);
  EXPECT_EQ(f.decrypt(cy), y);
  EXPECT_GT(invariant_noise_budget(*f.ctx, cx, f.sk), 0);
  expect_linear_operations(f, cx, cy, x, y, t);
}

TEST_P(BfvBatch, MultiplyRelinearise) {
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  const Ciphertext cy = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(y));
  std::vector<u64> prod(n);
  for (std::size_t i = 0; i < n; ++i) prod[i] = mulmod(x[i], y[i], t);
  const Ciphertext three = f.ev.multiply(cx, cy);
  ASSERT_EQ(three.size(), 3U);
  EXPECT_EQ(f.decrypt(three), prod);  // decryption with s² as well
  const Ciphertext two = f.ev.relinearize(three);
  ASSERT_EQ(two.size(), 2U);
  EXPECT_EQ(f.decrypt(two), prod);
  const int fresh = invariant_noise_budget(*f.ctx, cx, f.sk);
  const int after = invariant_noise_budget(*f.ctx, two, f.sk);
  EXPECT_GT(after, 0);
  EXPECT_LT(after, fresh);
}

INSTANTIATE_TEST_SUITE_P(Sets, BfvBatch, ::testing::ValuesIn(batch_cases()),
                         [](const auto& p) { return std::string(p.param.name); });

// A product of depth 4 (x^16 by repeated squaring, and x·y·z·w·v as a chain) at N = 2^13.
TEST(BfvDepth, ProductsOfDepthFour) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, 65537, "depth"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  auto x = random_slots(rng, n, t);
  Ciphertext acc = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  std::vector<u64> want = x;
  int last = invariant_noise_budget(*f.ctx, acc, f.sk);
  for (int d = 1; d <= 4; ++d) {
    acc = f.ev.multiply_relin(acc, acc);
    for (auto& v : want) v = mulmod(v, v, t);
    const int budget = invariant_noise_budget(*f.ctx, acc, f.sk);
    SCOPED_TRACE("depth " + std::to_string(d) + ", budget " + std::to_string(budget));
    ASSERT_GT(budget, 0);
    EXPECT_LT(budget, last);
    last = budget;
    ASSERT_EQ(f.decrypt(acc), want);
  }
}

// Multiplying past the budget: while it is positive decryption is right; it reaches 0, and the
// decryption is then wrong — the budget is what detects it.
TEST(BfvNoise, DecryptionFailsOnlyOnceTheBudgetIsSpent) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "edge"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t);
  const auto y = random_slots(rng, n, t);
  Ciphertext acc = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  const Ciphertext cy = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(y));
  std::vector<u64> want = x;
  bool exhausted = false;
  for (int step = 0; step < 6 && !exhausted; ++step) {
    acc = f.ev.multiply_relin(acc, cy);
    for (std::size_t i = 0; i < n; ++i) want[i] = mulmod(want[i], y[i], t);
    const int budget = invariant_noise_budget(*f.ctx, acc, f.sk);
    if (budget > 0) {
      ASSERT_EQ(f.decrypt(acc), want) << "step " << step << " budget " << budget;
    } else {
      exhausted = true;
      EXPECT_NE(f.decrypt(acc), want) << "step " << step;
    }
  }
  EXPECT_TRUE(exhausted) << "the budget of a 72-bit Q should not survive six products";
}

// N = 2^15 (the largest ring the issue asks for), 60-bit primes, t of 20 bits: a product of depth
// 2 and a rotation.
TEST(BfvLarge, N32768) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = std::size_t{1} << 15;
  const u64 t = batching_prime(20, n);
  const Case c{15, {60, 60, 60, 60, 60, 60, 60, 60}, {60}, t, "n15"};
  Fixture f(c, rng, {5});
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  const Ciphertext cy = bfv_encrypt(*f.ctx, f.sk_enc, f.encode(y));
  const Ciphertext xy = f.ev.multiply_relin(cx, cy);
  const Ciphertext xxy = f.ev.multiply_relin(xy, cx);
  std::vector<u64> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = mulmod(mulmod(x[i], x[i], t), y[i], t);
  EXPECT_EQ(f.decrypt(xxy), want);
  EXPECT_GT(invariant_noise_budget(*f.ctx, xxy, f.sk), 0);
  const std::size_t row = n / 2;
  std::vector<u64> rotated(n);
  for (std::size_t i = 0; i < n; ++i) rotated[i] = x[i / row * row + (i % row + 5) % row];
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, 5)), rotated);
}

TEST(BfvRotations, RowsByPowersOfTwoAndRandomStepsAndColumns) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = std::size_t{1} << 12;
  const std::size_t row = n / 2;
  std::vector<std::int64_t> steps;
  for (std::size_t s = 1; s < row; s *= 2) {
    steps.push_back(static_cast<std::int64_t>(s));
    steps.push_back(-static_cast<std::int64_t>(s));
  }
  for (int i = 0; i < 3; ++i) steps.push_back(static_cast<std::int64_t>(rng.uniform(1, row - 1)));
  const Case c{12, {36, 36}, {37}, 65537, "rot"};
  Fixture f(c, rng, steps);
  const auto x = random_slots(rng, n, c.t);
  const Ciphertext cx = bfv_encrypt(*f.ctx, f.pk_enc, f.encode(x));
  for (std::int64_t s : steps) {
    std::vector<u64> want(n);
    const auto r = static_cast<std::int64_t>(row);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t base = i / row * row;
      const std::int64_t col = static_cast<std::int64_t>(i % row);
      want[i] = x[base + static_cast<std::size_t>(((col + s) % r + r) % r)];
    }
    EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, s)), want) << "step " << s;
  }
  std::vector<u64> swapped(n);
  for (std::size_t i = 0; i < n; ++i) swapped[i] = x[(i + row) % n];
  EXPECT_EQ(f.decrypt(f.ev.rotate_columns(cx)), swapped);
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, 0)), x);
}

// t of 60 bits (no batching: coefficient encoding), signed values, a product.
TEST(BfvCoefficients, SixtyBitPlaintextModulus) {
  POLYHE_SEEDED_RNG(rng);
  const u64 t = (u64{1} << 59) + 21;  // 60 bits, odd
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, t, "t60"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  EXPECT_FALSE(f.ctx->batching());
  EXPECT_THROW((void)f.ctx->batch_encoder(), InvalidParameter);
  const CoefficientEncoder& enc = f.ctx->coefficient_encoder();
  std::vector<std::int64_t> a(n), b(n);
  for (auto& v : a) v = static_cast<std::int64_t>(rng.uniform(0, 2000)) - 1000;
  b[0] = 3;
  b[1] = -2;  // b = 3 − 2x
  const Ciphertext ca = bfv_encrypt(*f.ctx, f.pk_enc, Plaintext{enc.encode(a)});
  const Ciphertext cb = bfv_encrypt(*f.ctx, f.pk_enc, Plaintext{enc.encode(b)});
  EXPECT_EQ(enc.decode_signed(bfv_decrypt(*f.ctx, ca, f.sk).coeffs), a);
  // a·(3 − 2x) in Z[x]/(x^N + 1): coefficient i is 3·a_i − 2·a_{i−1}, with −a_{N−1} wrapping.
  std::vector<std::int64_t> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t prev = i == 0 ? -a[n - 1] : a[i - 1];
    want[i] = 3 * a[i] - 2 * prev;
  }
  EXPECT_EQ(enc.decode_signed(bfv_decrypt(*f.ctx, f.ev.multiply_relin(ca, cb), f.sk).coeffs), want);
  EXPECT_EQ(
      enc.decode_signed(
          bfv_decrypt(*f.ctx, f.ev.multiply_plain(ca, Plaintext{enc.encode(b)}), f.sk).coeffs),
      want);
}

TEST(BfvErrors, NameTheProblem) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "err"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  // Plaintext of the wrong size, and a coefficient ≥ t.
  try {
    (void)bfv_encrypt(*f.ctx, f.pk_enc, Plaintext{std::vector<u64>(n - 1)});
    FAIL() << "short plaintext accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(n - 1)), std::string::npos) << e.what();
  }
  std::vector<u64> big(n, 0);
  big[7] = c.t;
  try {
    (void)bfv_encrypt(*f.ctx, f.pk_enc, Plaintext{big});
    FAIL() << "coefficient t accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("index 7"), std::string::npos) << e.what();
  }
  const Ciphertext cx = bfv_encrypt(*f.ctx, f.pk_enc, Plaintext{std::vector<u64>(n)});
  // Another context (same values, other object): MismatchedContext.
  Fixture g(c, rng);
  const Ciphertext cg = bfv_encrypt(*g.ctx, g.pk_enc, Plaintext{std::vector<u64>(n)});
  EXPECT_THROW((void)f.ev.add(cx, cg), MismatchedContext);
  EXPECT_THROW((void)f.ev.multiply(cx, cg), MismatchedContext);
  EXPECT_THROW((void)bfv_decrypt(*f.ctx, cg, f.sk), MismatchedContext);
  // Missing keys.
  const BfvEvaluator bare(f.ctx);
  const Ciphertext three = bare.multiply(cx, cx);
  try {
    (void)bare.relinearize(three);
    FAIL() << "relinearised without a key";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("relinearization_key"), std::string::npos) << e.what();
  }
  try {
    (void)f.ev.rotate_rows(cx, 3);
    FAIL() << "rotated without a key";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("step 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)bare.rotate_columns(cx), InvalidParameter);
  EXPECT_THROW((void)f.ev.multiply(three, cx), InvalidParameter);  // size 3
  // The shared rlwe operations refuse the wrong kind of key and a size-3 rotation.
  const rlwe::KeySwitchKey& swap = f.galois.at(rlwe::galois_element_for_conjugation(n));
  EXPECT_THROW((void)rlwe::relinearize(three, swap), InvalidParameter);
  EXPECT_THROW((void)rlwe::apply_galois(cx, f.relin), InvalidParameter);
  EXPECT_THROW((void)rlwe::apply_galois(three, swap), InvalidParameter);
  EXPECT_THROW((void)rlwe::relinearize(three, g.relin), MismatchedContext);
  EXPECT_EQ(f.decrypt(rlwe::relinearize(three, f.relin)), std::vector<u64>(n));
  // A BGV ciphertext (plaintext factor ≠ 1) is refused by name.
  Ciphertext with_factor = cx;
  with_factor.set_factor(3);
  try {
    (void)bfv_decrypt(*f.ctx, with_factor, f.sk);
    FAIL() << "a factor-3 ciphertext decrypted as BFV";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("f = 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)f.ev.add(with_factor, cx), InvalidParameter);
  // t must be coprime to Q; t outside [2, 2^60).
  const u64 q0 = f.ctx->params()->q_primes()[0];
  EXPECT_THROW((void)Context::create(f.ctx->params(), q0), InvalidParameter);
  EXPECT_THROW((void)Context::create(f.ctx->params(), 1), InvalidParameter);
  EXPECT_THROW((void)Context::create(f.ctx->params(), u64{1} << 60), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::bgv
