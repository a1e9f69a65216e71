// BGV against plaintext integer arithmetic mod t: encryption (public-key and symmetric), add, sub,
// negate, plaintext operations, multiplication with relinearisation (error multiple t), modulus
// switching and its plaintext factor, depth 4 with a switch after each product, row and column
// rotations, operands at different levels and factors, the noise budget down to its exhaustion,
// and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

struct Fixture : SchemeFixture<BgvEvaluator> {
  using SchemeFixture::SchemeFixture;
  Ciphertext encrypt(const std::vector<u64>& slots) {
    return bgv_encrypt(*ctx, pk_enc, encode(slots));
  }
  std::vector<u64> decrypt(const Ciphertext& ct) const {
    return ctx->batch_encoder().decode(bgv_decrypt(*ctx, ct, sk).coeffs);
  }
  int budget(const Ciphertext& ct) const { return bgv_noise_budget(*ctx, ct, sk); }
};

class BgvBatch : public ::testing::TestWithParam<Case> {};

TEST_P(BgvBatch, EncryptDecryptAndLinearOperations) {
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext cy = bgv_encrypt(*f.ctx, f.sk_enc, f.encode(y));
  EXPECT_EQ(cx.factor(), 1U);
  EXPECT_EQ(f.decrypt(cx), x);
  EXPECT_EQ(f.decrypt(cy), y);
  EXPECT_GT(f.budget(cx), 0);
  EXPECT_GT(f.budget(cy), 0);
  expect_linear_operations(f, cx, cy, x, y, t);
}

TEST_P(BgvBatch, MultiplyRelineariseAndModSwitch) {
  POLYHE_SEEDED_RNG(rng);
  const Case c = GetParam();
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext cy = f.encrypt(y);
  const auto prod = times(x, y, t);
  const Ciphertext three = f.ev.multiply(cx, cy);
  ASSERT_EQ(three.size(), 3U);
  EXPECT_EQ(f.decrypt(three), prod);  // decryption with s² as well
  const Ciphertext two = f.ev.relinearize(three);
  ASSERT_EQ(two.size(), 2U);
  EXPECT_EQ(f.decrypt(two), prod);
  const int fresh = f.budget(cx);
  const int after = f.budget(two);
  EXPECT_GT(after, 0);
  EXPECT_LT(after, fresh);
  // Dropping the last prime: factor q_L^−1 mod t, the same plaintext, noise back near the floor
  // (the budget loses at most the bits of q_L, usually fewer).
  const std::size_t top = f.ctx->params()->max_level();
  const u64 q_top = f.ctx->params()->q_primes()[top];
  const Ciphertext low = f.ev.mod_switch_to_next(two);
  EXPECT_EQ(low.level(), top - 1);
  EXPECT_EQ(low.factor(), inverse_mod(q_top % t, t));
  EXPECT_EQ(f.decrypt(low), prod);
  EXPECT_GT(f.budget(low), 0);
  // A size-3 ciphertext switches too.
  EXPECT_EQ(f.decrypt(f.ev.mod_switch_to_next(three)), prod);
}

INSTANTIATE_TEST_SUITE_P(Sets, BgvBatch, ::testing::ValuesIn(batch_cases()),
                         [](const auto& p) { return std::string(p.param.name); });

// Depth 4 with a modulus switch after each product: x^16 by repeated squaring and x·y·z·w·v as a
// chain, at N = 2^14 over six 60-bit primes (five switches available).
TEST(BgvDepth, ProductsOfDepthFourWithModSwitching) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, 65537, "depth"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t);
  Ciphertext square = f.encrypt(x);
  Ciphertext chain = square;
  std::vector<u64> want_square = x, want_chain = x;
  for (int d = 1; d <= 4; ++d) {
    const auto y = random_slots(rng, n, t);
    square = f.ev.mod_switch_to_next(f.ev.multiply_relin(square, square));
    chain = f.ev.mod_switch_to_next(f.ev.multiply_relin(chain, f.encrypt(y)));  // levels differ
    want_square = times(want_square, want_square, t);
    want_chain = times(want_chain, y, t);
    const int budget = f.budget(square);
    SCOPED_TRACE("depth " + std::to_string(d) + ", budget " + std::to_string(budget));
    ASSERT_EQ(square.level(), f.ctx->params()->max_level() - static_cast<std::size_t>(d));
    ASSERT_GT(budget, 0);
    ASSERT_GT(f.budget(chain), 0);
    ASSERT_EQ(f.decrypt(square), want_square);
    ASSERT_EQ(f.decrypt(chain), want_chain);
  }
}

// N = 2^15 (the largest ring the issue asks for), t of 20 bits: depth 2 with switches, a rotation.
TEST(BgvLarge, N32768) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = std::size_t{1} << 15;
  const u64 t = batching_prime(20, n);
  const Case c{15, {60, 60, 60, 60, 60, 60, 60, 60}, {60}, t, "n15"};
  Fixture f(c, rng, {7});
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext xy = f.ev.mod_switch_to_next(f.ev.multiply_relin(cx, f.encrypt(y)));
  const Ciphertext xxy = f.ev.mod_switch_to_next(f.ev.multiply_relin(xy, cx));  // levels differ
  EXPECT_EQ(f.decrypt(xxy), times(times(x, x, t), y, t));
  EXPECT_GT(f.budget(xxy), 0);
  const std::size_t row = n / 2;
  std::vector<u64> rotated(n);
  for (std::size_t i = 0; i < n; ++i) rotated[i] = x[i / row * row + (i % row + 7) % row];
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, 7)), rotated);
}

// Depth 2 at N = 2^13 over three 54-bit primes: a product, a switch, a product, a switch.
TEST(BgvDepth, SmallerChainAtN8192) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {54, 54, 54}, {55}, 65537, "depth13"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const auto x = random_slots(rng, n, c.t);
  Ciphertext acc = f.encrypt(x);
  std::vector<u64> want = x;
  for (int d = 1; d <= 2; ++d) {
    acc = f.ev.mod_switch_to_next(f.ev.multiply_relin(acc, acc));
    want = times(want, want, c.t);
    ASSERT_GT(f.budget(acc), 0) << "depth " << d;
    ASSERT_EQ(f.decrypt(acc), want) << "depth " << d;
  }
  EXPECT_EQ(acc.level(), 0U);
}

// Operands at different levels are brought down automatically; different factors are equalised.
TEST(BgvLevels, DifferentLevelsAndFactors) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {54, 54, 54}, {55}, 65537, "levels"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t), z = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);                           // level 2, factor 1
  const Ciphertext cy = f.ev.mod_switch_to_next(f.encrypt(y));  // level 1, factor q_2^−1
  ASSERT_EQ(cy.level(), 1U);
  ASSERT_NE(cy.factor(), 1U);
  EXPECT_EQ(f.decrypt(f.ev.add(cx, cy)), plus(x, y, t));
  EXPECT_EQ(f.decrypt(f.ev.add(cy, cx)), plus(x, y, t));
  EXPECT_EQ(f.decrypt(f.ev.sub(cx, cy)), minus(x, y, t));
  EXPECT_EQ(f.decrypt(f.ev.sub(cy, cx)), minus(y, x, t));
  EXPECT_EQ(f.ev.add(cx, cy).level(), 1U);
  EXPECT_EQ(f.decrypt(f.ev.multiply_relin(cx, cy)), times(x, y, t));
  EXPECT_EQ(f.decrypt(f.ev.multiply_relin(cy, cx)), times(x, y, t));

  // Same level, different factors: a product of two switched ciphertexts has q_2^−2, a switched
  // fresh one q_2^−1.
  const Ciphertext cz = f.ev.mod_switch_to_next(f.encrypt(z));
  const Ciphertext yz = f.ev.multiply_relin(cy, cz);
  ASSERT_EQ(yz.level(), cz.level());
  ASSERT_NE(yz.factor(), cz.factor());
  const auto prod = times(y, z, t);
  EXPECT_EQ(f.decrypt(f.ev.add(yz, cz)), plus(prod, z, t));
  EXPECT_EQ(f.decrypt(f.ev.add(cz, yz)), plus(prod, z, t));
  EXPECT_EQ(f.decrypt(f.ev.sub(yz, cz)), minus(prod, z, t));
  EXPECT_EQ(f.decrypt(f.ev.sub(cz, yz)), minus(z, prod, t));
  // Plaintext operations on a ciphertext with a factor ≠ 1.
  EXPECT_EQ(f.decrypt(f.ev.add_plain(yz, f.encode(x))), plus(prod, x, t));
  EXPECT_EQ(f.decrypt(f.ev.sub_plain(yz, f.encode(x))), minus(prod, x, t));
  EXPECT_EQ(f.decrypt(f.ev.multiply_plain(yz, f.encode(x))), times(prod, x, t));
  EXPECT_EQ(f.decrypt(f.ev.negate(yz)), minus(std::vector<u64>(n), prod, t));

  // Explicit switching down to level 0, and to the level it is at (a copy).
  const Ciphertext bottom = f.ev.mod_switch_to(cx, 0);
  EXPECT_EQ(bottom.level(), 0U);
  EXPECT_EQ(f.decrypt(bottom), x);
  EXPECT_GT(f.budget(bottom), 0);
  EXPECT_EQ(f.decrypt(f.ev.mod_switch_to(cx, 2)), x);
  EXPECT_EQ(f.decrypt(f.ev.add(bottom, yz)), plus(x, prod, t));
}

// Multiplying past the budget: while it is positive decryption is right; it reaches 0, and the
// decryption is then wrong — the budget is what detects it.
TEST(BgvNoise, DecryptionFailsOnlyOnceTheBudgetIsSpent) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "edge"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t);
  const auto y = random_slots(rng, n, t);
  Ciphertext acc = f.encrypt(x);
  const Ciphertext cy = f.encrypt(y);
  std::vector<u64> want = x;
  int last = f.budget(acc);
  bool exhausted = false;
  for (int step = 0; step < 6 && !exhausted; ++step) {
    acc = f.ev.multiply_relin(acc, cy);
    want = times(want, y, t);
    const int budget = f.budget(acc);
    EXPECT_LT(budget, last) << "step " << step;
    last = budget;
    if (budget > 0) {
      ASSERT_EQ(f.decrypt(acc), want) << "step " << step << " budget " << budget;
    } else {
      exhausted = true;
      EXPECT_NE(f.decrypt(acc), want) << "step " << step;
    }
  }
  EXPECT_TRUE(exhausted) << "the budget of a 72-bit Q should not survive six products";
}

TEST(BgvRotations, RowsByPowersOfTwoAndRandomStepsAndColumns) {
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
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext low = f.ev.mod_switch_to_next(cx);  // a factor ≠ 1 survives rotation
  const auto rotated = [&](std::int64_t s) {
    std::vector<u64> want(n);
    const auto r = static_cast<std::int64_t>(row);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t base = i / row * row;
      const std::int64_t col = static_cast<std::int64_t>(i % row);
      want[i] = x[base + static_cast<std::size_t>(((col + s) % r + r) % r)];
    }
    return want;
  };
  for (std::int64_t s : steps) {
    EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, s)), rotated(s)) << "step " << s;
  }
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(low, steps.back())), rotated(steps.back()));
  EXPECT_EQ(f.ev.rotate_rows(low, 1).factor(), low.factor());
  std::vector<u64> swapped(n);
  for (std::size_t i = 0; i < n; ++i) swapped[i] = x[(i + row) % n];
  EXPECT_EQ(f.decrypt(f.ev.rotate_columns(cx)), swapped);
  EXPECT_EQ(f.decrypt(f.ev.rotate_columns(low)), swapped);
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, 0)), x);
  EXPECT_EQ(f.decrypt(f.ev.apply_galois(cx, rlwe::galois_element_for_rotation(n, steps.front()))),
            rotated(steps.front()));
}

// t of 60 bits (no batching: coefficient encoding), signed values, products and a switch.
TEST(BgvCoefficients, SixtyBitPlaintextModulus) {
  POLYHE_SEEDED_RNG(rng);
  const u64 t = (u64{1} << 59) + 21;  // 60 bits, odd
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, t, "t60"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  EXPECT_FALSE(f.ctx->batching());
  const CoefficientEncoder& enc = f.ctx->coefficient_encoder();
  std::vector<std::int64_t> a(n), b(n);
  for (auto& v : a) v = static_cast<std::int64_t>(rng.uniform(0, 2000)) - 1000;
  b[0] = 3;
  b[1] = -2;  // b = 3 − 2x
  const Ciphertext ca = bgv_encrypt(*f.ctx, f.pk_enc, Plaintext{enc.encode(a)});
  const Ciphertext cb = bgv_encrypt(*f.ctx, f.sk_enc, Plaintext{enc.encode(b)});
  const auto dec = [&](const Ciphertext& ct) {
    return enc.decode_signed(bgv_decrypt(*f.ctx, ct, f.sk).coeffs);
  };
  EXPECT_EQ(dec(ca), a);
  EXPECT_EQ(dec(cb), b);
  // a·(3 − 2x) in Z[x]/(x^N + 1): coefficient i is 3·a_i − 2·a_{i−1}, with −a_{N−1} wrapping.
  std::vector<std::int64_t> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t prev = i == 0 ? -a[n - 1] : a[i - 1];
    want[i] = 3 * a[i] - 2 * prev;
  }
  const Ciphertext prod = f.ev.multiply_relin(ca, cb);
  EXPECT_EQ(dec(prod), want);
  EXPECT_EQ(dec(f.ev.mod_switch_to_next(prod)), want);
  EXPECT_EQ(dec(f.ev.multiply_plain(ca, Plaintext{enc.encode(b)})), want);
  // The switched product plus a fresh ciphertext: levels and factors differ.
  std::vector<std::int64_t> sum(n);
  for (std::size_t i = 0; i < n; ++i) sum[i] = want[i] + a[i];
  EXPECT_EQ(dec(f.ev.add(f.ev.mod_switch_to_next(prod), ca)), sum);
}

TEST(BgvErrors, NameTheProblem) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "err"};
  Fixture f(c, rng);
  const std::size_t n = f.ctx->n();
  const auto expect_message = [](const auto& call, const std::string& needle) {
    try {
      call();
      ADD_FAILURE() << "no InvalidParameter; expected one naming " << needle;
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  // Plaintext of the wrong size, and a coefficient ≥ t (value and index named).
  expect_message([&] { (void)bgv_encrypt(*f.ctx, f.pk_enc, Plaintext{std::vector<u64>(n - 1)}); },
                 std::to_string(n - 1));
  std::vector<u64> big(n, 0);
  big[7] = c.t;
  expect_message([&] { (void)bgv_encrypt(*f.ctx, f.pk_enc, Plaintext{big}); },
                 "coefficient 65537 at index 7");
  const Ciphertext cx = bgv_encrypt(*f.ctx, f.pk_enc, Plaintext{std::vector<u64>(n)});
  expect_message([&] { (void)f.ev.add_plain(cx, Plaintext{big}); }, "index 7");
  expect_message([&] { (void)f.ev.multiply_plain(cx, Plaintext{big}); }, "index 7");
  // Another context (same values, other object): MismatchedContext.
  Fixture g(c, rng);
  const Ciphertext cg = bgv_encrypt(*g.ctx, g.pk_enc, Plaintext{std::vector<u64>(n)});
  try {
    (void)f.ev.add(cx, cg);
    FAIL() << "ciphertexts of two contexts added";
  } catch (const MismatchedContext& e) {
    EXPECT_NE(std::string(e.what()).find("add: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("separately created"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)f.ev.multiply(cx, cg), MismatchedContext);
  EXPECT_THROW((void)f.ev.mod_switch_to_next(cg), MismatchedContext);
  EXPECT_THROW((void)bgv_decrypt(*f.ctx, cg, f.sk), MismatchedContext);
  EXPECT_THROW((void)bgv_noise_budget(*f.ctx, cg, f.sk), MismatchedContext);
  EXPECT_THROW((void)bgv_encrypt(*f.ctx, g.pk_enc, Plaintext{std::vector<u64>(n)}),
               MismatchedContext);
  EXPECT_THROW((void)BgvEvaluator(f.ctx, rlwe::share(g.relin)), MismatchedContext);
  EXPECT_THROW((void)BgvEvaluator(f.ctx, nullptr, rlwe::share(g.galois)), MismatchedContext);
  // Missing keys.
  const BgvEvaluator bare(f.ctx);
  const Ciphertext three = bare.multiply(cx, cx);
  expect_message([&] { (void)bare.relinearize(three); }, "relinearization_key");
  expect_message([&] { (void)f.ev.rotate_rows(cx, 3); }, "step 3");
  expect_message([&] { (void)bare.rotate_columns(cx); }, "row swap");
  expect_message([&] { (void)f.ev.apply_galois(cx, 9); }, "element 9");
  expect_message([&] { (void)f.ev.rotate_columns(three); }, "size 3");
  expect_message([&] { (void)f.ev.multiply(three, cx); }, "sizes 3 and 2");
  // Modulus switching at level 0, and upwards.
  const Ciphertext bottom = f.ev.mod_switch_to_next(cx);
  expect_message([&] { (void)f.ev.mod_switch_to_next(bottom); }, "level 0");
  expect_message([&] { (void)f.ev.mod_switch_to(bottom, 1); }, "target level 1");
  // A plaintext factor that is not a unit mod t (t itself, 0 is refused by rlwe).
  Ciphertext bad = cx;
  bad.set_factor(c.t);
  expect_message([&] { (void)f.ev.negate(bad); }, "factor f = 65537");
  expect_message([&] { (void)bgv_decrypt(*f.ctx, bad, f.sk); }, "factor f = 65537");
  EXPECT_THROW(bad.set_factor(0), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::bgv
