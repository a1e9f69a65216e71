// BFV and BGV (one evaluator, the scheme a mode of the context) against plaintext integer
// arithmetic mod t. Parameterised over the scheme: encryption (public-key and symmetric), add,
// sub, negate, plaintext operations, multiplication with relinearisation, modulus switching
// (BGV: factor q_l^−1; BFV: rounding division, factor 1), depth with switching, row and column
// rotations, coefficient encoding with a 60-bit t, N = 2^15, the noise budget down to its
// exhaustion, the Decryptor, and every error path. Scheme-specific: BFV's depth without
// switching (scale invariance), BFV's modulus switch and its levels, BFV refusing BGV ciphertexts,
// BGV's automatic level and factor alignment, and the tables a context builds per scheme.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "support/expect_error.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using namespace cases;

using Fixture = SchemeFixture;

// InvalidParameter whose message contains `needle`.
template <class Call>
void expect_message(const Call& call, const std::string& needle) {
  test::expect_error<InvalidParameter>(call, needle);
}

// ---------------------------------------------------------------------------------------------
// Both schemes, the batching sets.

class SchemeBatch : public ::testing::TestWithParam<std::tuple<Scheme, Case>> {};

TEST_P(SchemeBatch, EncryptDecryptAndLinearOperations) {
  POLYHE_SEEDED_RNG(rng);
  const auto [scheme, c] = GetParam();
  Fixture f(c, scheme, rng);
  ASSERT_EQ(f.ctx->scheme(), scheme);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext cy = f.sk_enc.encrypt(f.encode(y));
  EXPECT_EQ(cx.factor(), 1U);
  EXPECT_EQ(cy.factor(), 1U);
  EXPECT_EQ(f.decrypt(cx), x);
  EXPECT_EQ(f.decrypt(cy), y);
  EXPECT_GT(f.budget(cx), 0);
  EXPECT_GT(f.budget(cy), 0);
  expect_linear_operations(f, cx, cy, x, y, t);
}

TEST_P(SchemeBatch, MultiplyRelineariseAndModSwitch) {
  POLYHE_SEEDED_RNG(rng);
  const auto [scheme, c] = GetParam();
  Fixture f(c, scheme, rng);
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
  // Dropping the last prime: the same plaintext. BGV: factor q_L^−1 mod t, noise back near the
  // floor (the budget loses at most the bits of q_L, usually fewer). BFV: round(c/q_L), factor 1.
  const std::size_t top = f.ctx->params()->max_level();
  const u64 q_top = f.ctx->params()->q_primes()[top];
  const Ciphertext low = f.ev.mod_switch_to_next(two);
  EXPECT_EQ(low.level(), top - 1);
  EXPECT_EQ(low.factor(), scheme == Scheme::bgv ? inverse_mod(q_top % t, t) : 1U);
  EXPECT_EQ(f.decrypt(low), prod);
  EXPECT_GT(f.budget(low), 0);
  // A size-3 ciphertext switches too.
  EXPECT_EQ(f.decrypt(f.ev.mod_switch_to_next(three)), prod);
}

INSTANTIATE_TEST_SUITE_P(Sets, SchemeBatch,
                         ::testing::Combine(::testing::Values(Scheme::bfv, Scheme::bgv),
                                            ::testing::ValuesIn(batch_cases())),
                         scheme_case_name);

// ---------------------------------------------------------------------------------------------
// Both schemes, one set each.

class SchemeTest : public ::testing::TestWithParam<Scheme> {};

// Depth 4 with a modulus switch after each product: x^16 by repeated squaring and x·y·z·w·v as a
// chain, at N = 2^14 over six 60-bit primes (five switches available). BGV multiplies the chain by
// a fresh (top-level) ciphertext, the levels aligned automatically; BFV switches it down first.
TEST_P(SchemeTest, ProductsOfDepthFourWithModSwitching) {
  POLYHE_SEEDED_RNG(rng);
  const Scheme scheme = GetParam();
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, 65537, "depth"};
  Fixture f(c, scheme, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t);
  Ciphertext square = f.encrypt(x);
  Ciphertext chain = square;
  std::vector<u64> want_square = x, want_chain = x;
  for (int d = 1; d <= 4; ++d) {
    const auto y = random_slots(rng, n, t);
    Ciphertext cy = f.encrypt(y);
    if (scheme == Scheme::bfv) cy = f.ev.mod_switch_to(cy, chain.level());
    square = f.ev.mod_switch_to_next(f.ev.multiply_relin(square, square));
    chain = f.ev.mod_switch_to_next(f.ev.multiply_relin(chain, cy));  // BGV: levels differ
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

// Depth 2 at N = 2^13 over three 54-bit primes: a product, a switch, a product, a switch.
TEST_P(SchemeTest, SmallerChainAtN8192) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {54, 54, 54}, {55}, 65537, "depth13"};
  Fixture f(c, GetParam(), rng);
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

// N = 2^15 (the largest ring the issue asks for), 60-bit primes, t of 20 bits: a product of depth
// 2 and a rotation. BGV switches after each product (the second multiplies across levels); BFV,
// scale-invariant, does not switch.
TEST_P(SchemeTest, LargeN32768) {
  POLYHE_SEEDED_RNG(rng);
  const Scheme scheme = GetParam();
  const std::size_t n = std::size_t{1} << 15;
  const u64 t = batching_prime(20, n);
  const std::int64_t step = scheme == Scheme::bfv ? 5 : 7;
  const Case c{15, {60, 60, 60, 60, 60, 60, 60, 60}, {60}, t, "n15"};
  Fixture f(c, scheme, rng, {step});
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext cy = f.sk_enc.encrypt(f.encode(y));
  Ciphertext xy = f.ev.multiply_relin(cx, cy);
  if (scheme == Scheme::bgv) xy = f.ev.mod_switch_to_next(xy);
  Ciphertext xxy = f.ev.multiply_relin(xy, cx);  // BGV: levels differ
  if (scheme == Scheme::bgv) xxy = f.ev.mod_switch_to_next(xxy);
  EXPECT_EQ(f.decrypt(xxy), times(times(x, x, t), y, t));
  EXPECT_GT(f.budget(xxy), 0);
  const std::size_t row = n / 2;
  std::vector<u64> rotated(n);
  for (std::size_t i = 0; i < n; ++i) {
    rotated[i] = x[i / row * row + (i % row + static_cast<std::size_t>(step)) % row];
  }
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows(cx, step)), rotated);
}

// Multiplying past the budget: while it is positive decryption is right and each product lowers
// it; it reaches 0, and the decryption is then wrong — the budget is what detects it.
TEST_P(SchemeTest, DecryptionFailsOnlyOnceTheBudgetIsSpent) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "edge"};
  Fixture f(c, GetParam(), rng);
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

TEST_P(SchemeTest, RotationsRowsByPowersOfTwoAndRandomStepsAndColumns) {
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
  Fixture f(c, GetParam(), rng, steps);
  const auto x = random_slots(rng, n, c.t);
  const Ciphertext cx = f.encrypt(x);
  // One level down (BGV: a factor ≠ 1, which survives rotation; BFV: rotation at level 0).
  const Ciphertext low = f.ev.mod_switch_to_next(cx);
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
  // Hoisted: every step at once, each result rotate_rows' words (BGV: switched with the error
  // multiple t; the factor kept), at both levels; a step of 0 is a copy.
  std::vector<std::int64_t> many(steps.begin(), steps.begin() + 5);
  many.push_back(0);
  many.push_back(steps.front());
  for (const Ciphertext* in : {&cx, &low}) {
    const std::vector<Ciphertext> hoisted = f.ev.rotate_rows_many(*in, many);
    ASSERT_EQ(hoisted.size(), many.size());
    for (std::size_t r = 0; r < many.size(); ++r) {
      const Ciphertext one = f.ev.rotate_rows(*in, many[r]);
      ASSERT_EQ(hoisted[r].level(), one.level());
      EXPECT_EQ(hoisted[r].factor(), one.factor());
      for (std::size_t p = 0; p < 2; ++p) {
        EXPECT_TRUE(std::ranges::equal(hoisted[r][p].data(), one[p].data()))
            << "step " << many[r] << " part " << p << " level " << in->level();
      }
    }
  }
  EXPECT_EQ(f.decrypt(f.ev.rotate_rows_many(cx, many)[1]), rotated(many[1]));
  std::int64_t missing = 3;  // an odd step without a key (not a power of two, not drawn)
  while (std::ranges::find(steps, missing) != steps.end()) missing += 2;
  expect_message(
      [&] {
        (void)f.ev.rotate_rows_many(cx, std::vector<std::int64_t>{1, missing});
      },
      "step " + std::to_string(missing));
  EXPECT_EQ(f.decrypt(f.ev.apply_galois(cx, rlwe::galois_element_for_rotation(n, steps.front()))),
            rotated(steps.front()));
}

// t of 60 bits (no batching: coefficient encoding), signed values, products and a switch.
TEST_P(SchemeTest, CoefficientsSixtyBitPlaintextModulus) {
  POLYHE_SEEDED_RNG(rng);
  const Scheme scheme = GetParam();
  const u64 t = (u64{1} << 59) + 21;  // 60 bits, odd
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, t, "t60"};
  Fixture f(c, scheme, rng);
  const std::size_t n = f.ctx->n();
  EXPECT_FALSE(f.ctx->batching());
  EXPECT_THROW((void)f.ctx->batch_encoder(), InvalidParameter);
  const CoefficientEncoder& enc = f.ctx->coefficient_encoder();
  std::vector<std::int64_t> a(n), b(n);
  for (auto& v : a) v = static_cast<std::int64_t>(rng.uniform(0, 2000)) - 1000;
  b[0] = 3;
  b[1] = -2;  // b = 3 − 2x
  const Ciphertext ca = f.pk_enc.encrypt(Plaintext{enc.encode(a)});
  const Ciphertext cb = f.sk_enc.encrypt(Plaintext{enc.encode(b)});
  const auto dec = [&](const Ciphertext& ct) {
    return enc.decode_signed(f.dec.decrypt(ct).coeffs);
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
  // The switched product plus a fresh ciphertext (BGV: levels and factors differ, aligned
  // automatically; BFV: the fresh one switched down too).
  std::vector<std::int64_t> sum(n);
  for (std::size_t i = 0; i < n; ++i) sum[i] = want[i] + a[i];
  const Ciphertext fresh = scheme == Scheme::bfv ? f.ev.mod_switch_to_next(ca) : ca;
  EXPECT_EQ(dec(f.ev.add(f.ev.mod_switch_to_next(prod), fresh)), sum);
}

// decrypt and noise_budget through a Decryptor of a shared and of a copied key agree with the
// context's (Context::decryptor, the key given by value); a null context or key, and a key of
// other parameters, are refused.
TEST_P(SchemeTest, DecryptorsOfSharedAndCopiedKeysAgree) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "decryptor"};
  Fixture f(c, GetParam(), rng);
  const auto x = random_slots(rng, f.ctx->n(), c.t);
  const Ciphertext cx = f.encrypt(x);
  const Ciphertext three = f.ev.multiply(cx, cx);
  const Decryptor shared(f.ctx, rlwe::share(rlwe::SecretKey(f.sk)));
  const Decryptor copied(f.ctx, f.sk);
  for (const Decryptor* d : {&shared, &copied}) {
    EXPECT_EQ(d->context(), f.ctx);
    EXPECT_EQ(d->decrypt(cx).coeffs, f.dec.decrypt(cx).coeffs);
    EXPECT_EQ(f.ctx->batch_encoder().decode(d->decrypt(cx).coeffs), x);
    EXPECT_EQ(d->decrypt(three).coeffs, f.dec.decrypt(three).coeffs);
    EXPECT_EQ(d->noise_budget(cx), f.dec.noise_budget(cx));
    EXPECT_EQ(d->noise_budget(three), f.dec.noise_budget(three));
    EXPECT_GT(d->noise_budget(cx), 0);
  }
  expect_message([&] { (void)Decryptor(nullptr, f.sk); }, "null context");
  expect_message([&] { (void)Decryptor(f.ctx, std::shared_ptr<const rlwe::SecretKey>()); },
                 "null secret key");
  Fixture g(c, GetParam(), rng);
  EXPECT_THROW((void)Decryptor(f.ctx, g.sk), MismatchedContext);
  EXPECT_THROW((void)Decryptor(f.ctx, g.sk).decrypt(cx), MismatchedContext);
}

TEST_P(SchemeTest, ErrorsNameTheProblem) {
  POLYHE_SEEDED_RNG(rng);
  const Scheme scheme = GetParam();
  const Case c{12, {36, 36}, {37}, 65537, "err"};
  Fixture f(c, scheme, rng);
  const std::size_t n = f.ctx->n();
  // Plaintext of the wrong size, and a coefficient ≥ t (value and index named).
  expect_message([&] { (void)f.pk_enc.encrypt(Plaintext{std::vector<u64>(n - 1)}); },
                 std::to_string(n - 1));
  std::vector<u64> big(n, 0);
  big[7] = c.t;
  expect_message([&] { (void)f.pk_enc.encrypt(Plaintext{big}); }, "coefficient 65537 at index 7");
  const Ciphertext cx = f.pk_enc.encrypt(Plaintext{std::vector<u64>(n)});
  expect_message([&] { (void)f.ev.add_plain(cx, Plaintext{big}); }, "index 7");
  expect_message([&] { (void)f.ev.multiply_plain(cx, Plaintext{big}); }, "index 7");
  // Another context (same values, other object): MismatchedContext.
  Fixture g(c, scheme, rng);
  const Ciphertext cg = g.pk_enc.encrypt(Plaintext{std::vector<u64>(n)});
  try {
    (void)f.ev.add(cx, cg);
    FAIL() << "ciphertexts of two contexts added";
  } catch (const MismatchedContext& e) {
    EXPECT_NE(std::string(e.what()).find("add: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("separately created"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)f.ev.multiply(cx, cg), MismatchedContext);
  EXPECT_THROW((void)f.ev.mod_switch_to_next(cg), MismatchedContext);
  EXPECT_THROW((void)f.dec.decrypt(cg), MismatchedContext);
  EXPECT_THROW((void)f.dec.noise_budget(cg), MismatchedContext);
  // g's key beside f's context: refused by the factory, and g's encryptor at encryption.
  EXPECT_THROW((void)f.ctx->encryptor(g.pk), MismatchedContext);
  EXPECT_THROW((void)rebind(g.pk_enc, f.ctx).encrypt(Plaintext{std::vector<u64>(n)}),
               MismatchedContext);
  EXPECT_THROW((void)Evaluator(f.ctx, rlwe::share(g.relin)), MismatchedContext);
  EXPECT_THROW((void)Evaluator(f.ctx, nullptr, rlwe::share(g.galois)), MismatchedContext);
  expect_message([&] { (void)Evaluator(nullptr); }, "null context");
  // Missing keys.
  const Evaluator bare(f.ctx);
  const Ciphertext three = bare.multiply(cx, cx);
  expect_message([&] { (void)bare.relinearize(three); }, "relinearization_key");
  expect_message([&] { (void)f.ev.rotate_rows(cx, 3); }, "step 3");
  expect_message([&] { (void)bare.rotate_columns(cx); }, "row swap");
  expect_message([&] { (void)f.ev.apply_galois(cx, 9); }, "element 9");
  expect_message([&] { (void)f.ev.rotate_columns(three); }, "size 3");
  expect_message([&] { (void)f.ev.multiply(three, cx); }, "sizes 3 and 2");
  // The shared rlwe operations refuse the wrong kind of key and a size-3 rotation; with the right
  // key (and the scheme's error multiple) they relinearise.
  const u64 mu = scheme == Scheme::bgv ? c.t : 1;
  const rlwe::KeySwitchKey& swap = f.galois.at(rlwe::galois_element_for_conjugation(n));
  EXPECT_THROW((void)rlwe::relinearize(three, swap, mu), InvalidParameter);
  EXPECT_THROW((void)rlwe::apply_galois(cx, f.relin, mu), InvalidParameter);
  EXPECT_THROW((void)rlwe::apply_galois(three, swap, mu), InvalidParameter);
  EXPECT_THROW((void)rlwe::relinearize(three, g.relin, mu), MismatchedContext);
  EXPECT_EQ(f.decrypt(rlwe::relinearize(three, f.relin, mu)), std::vector<u64>(n));
  // Modulus switching at level 0, and upwards.
  const Ciphertext bottom = f.ev.mod_switch_to_next(cx);
  expect_message([&] { (void)f.ev.mod_switch_to_next(bottom); }, "level 0");
  expect_message([&] { (void)f.ev.mod_switch_to(bottom, 1); }, "target level 1");
  // A plaintext factor that is not a unit mod t (t itself; 0 is refused by rlwe). BFV refuses
  // every factor ≠ 1, naming it the same way.
  Ciphertext bad = cx;
  bad.set_factor(c.t);
  expect_message([&] { (void)f.ev.negate(bad); }, "factor f = 65537");
  expect_message([&] { (void)f.dec.decrypt(bad); }, "factor f = 65537");
  EXPECT_THROW(bad.set_factor(0), InvalidParameter);
  // t must be coprime to Q; t outside [2, 2^60).
  const u64 q0 = f.ctx->params()->q_primes()[0];
  EXPECT_THROW((void)Context::create(f.ctx->params(), q0, scheme), InvalidParameter);
  EXPECT_THROW((void)Context::create(f.ctx->params(), 1, scheme), InvalidParameter);
  EXPECT_THROW((void)Context::create(f.ctx->params(), u64{1} << 60, scheme), InvalidParameter);
  expect_message([&] { (void)Context::create(nullptr, 65537, scheme); }, "null parameters");
}

INSTANTIATE_TEST_SUITE_P(Schemes, SchemeTest, ::testing::Values(Scheme::bfv, Scheme::bgv),
                         scheme_name);

// ---------------------------------------------------------------------------------------------
// The context: the default scheme, and BFV's tables built for BFV only.

TEST(SchemeContext, BfvTablesAreBuiltForBfvOnly) {
  const Case c{12, {36, 36}, {37}, 65537, "tables"};
  const rlwe::ParametersPtr params = make_params(c);
  const ContextPtr bgv = Context::create(params, c.t);
  EXPECT_EQ(bgv->scheme(), Scheme::bgv);  // the default
  EXPECT_EQ(Context::create(params, c.t, Scheme::bgv)->scheme(), Scheme::bgv);
  expect_message([&] { (void)bgv->level(0); }, "BFV's tables");
  expect_message([&] { (void)bgv->level(1); }, "Scheme::bfv");
  expect_message([&] { (void)bgv->aux_ring(); }, "BFV's tables");
  // Everything else a BGV context has.
  EXPECT_TRUE(bgv->batching());
  EXPECT_EQ(bgv->n(), params->n());
  EXPECT_EQ(bgv->t().value(), c.t);

  const ContextPtr bfv = Context::create(params, c.t, Scheme::bfv);
  EXPECT_EQ(bfv->scheme(), Scheme::bfv);
  ASSERT_NE(bfv->aux_ring(), nullptr);
  for (std::size_t l = 0; l <= params->max_level(); ++l) {
    const Context::Level& lv = bfv->level(l);
    EXPECT_EQ(lv.delta.size(), l + 1);
    EXPECT_LT(lv.r, c.t);
    EXPECT_GE(lv.aux, 1U);
    EXPECT_LE(lv.aux, bfv->aux_ring()->max_limbs());
    EXPECT_TRUE(lv.q_to_r.has_value());
    EXPECT_TRUE(lv.r_to_q.has_value());
    EXPECT_TRUE(lv.scale.has_value());
  }
  EXPECT_THROW((void)bfv->level(params->max_level() + 1), std::out_of_range);
  EXPECT_EQ(to_string(Scheme::bfv), "bfv");
  EXPECT_EQ(to_string(Scheme::bgv), "bgv");
}

// Context::encode/decode: the batch encoder's slots over x^N + 1 (unsigned and signed, the same
// words as the encoder itself), the slot encoder's over Phi_m, and the refusals by name.
TEST(SchemeContext, EncodeAndDecodeSlots) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "slots"};
  const ContextPtr ctx = Context::create(make_params(c), c.t);
  const std::vector<u64> v = random_slots(rng, ctx->n(), c.t);
  const Plaintext pv = ctx->encode(v);
  EXPECT_EQ(pv.coeffs, ctx->batch_encoder().encode(v));
  EXPECT_EQ(ctx->decode(pv), v);
  std::vector<std::int64_t> sv(ctx->n());
  for (std::size_t i = 0; i < sv.size(); ++i) sv[i] = static_cast<std::int64_t>(i % 1000) - 500;
  const Plaintext ps = ctx->encode(sv);
  EXPECT_EQ(ps.coeffs, ctx->batch_encoder().encode(sv));
  EXPECT_EQ(ctx->decode_signed(ps), sv);
  // t = 65536 does not batch: encode says why, naming t.
  const ContextPtr plain = Context::create(make_params(c), 65536);
  expect_message([&] { (void)plain->encode(v); }, "65536");

  // 17 · 257: 256 slots of GF(65537^16)
  const ContextPtr phi =
      Context::create(phi_m_params(4369, {36, 36}, {36}, rlwe::SecurityLevel::bits128), c.t);
  const SlotEncoder& enc = phi->slot_encoder();
  const std::vector<u64> w = random_slots(rng, enc.slot_count() * enc.slot_degree(), c.t);
  const Plaintext pw = phi->encode(w);
  EXPECT_EQ(pw.coeffs, enc.encode(w));
  EXPECT_EQ(phi->decode(pw), w);
  std::vector<std::int64_t> sw(w.size());
  for (std::size_t i = 0; i < sw.size(); ++i) sw[i] = static_cast<std::int64_t>(i % 2000) - 1000;
  EXPECT_EQ(phi->decode_signed(phi->encode(sw)), sw);
  std::vector<std::int64_t> too_big(w.size(), 0);
  too_big[3] = 40000;  // above t/2
  expect_message([&] { (void)phi->encode(too_big); }, "signed value 40000 at index 3");
}

// ---------------------------------------------------------------------------------------------
// BFV only.

// A product of depth 4 (x^16 by repeated squaring) at N = 2^14 without any modulus switch: the
// scale-invariant mode keeps the top level, each product lowering the invariant budget.
TEST(BfvDepth, ProductsOfDepthFourWithoutSwitching) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{14, {60, 60, 60, 60, 60, 60}, {60}, 65537, "depth"};
  Fixture f(c, Scheme::bfv, rng);
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  auto x = random_slots(rng, n, t);
  Ciphertext acc = f.encrypt(x);
  std::vector<u64> want = x;
  int last = f.budget(acc);
  for (int d = 1; d <= 4; ++d) {
    acc = f.ev.multiply_relin(acc, acc);
    for (auto& v : want) v = mulmod(v, v, t);
    const int budget = f.budget(acc);
    SCOPED_TRACE("depth " + std::to_string(d) + ", budget " + std::to_string(budget));
    ASSERT_EQ(acc.level(), f.ctx->params()->max_level());
    ASSERT_GT(budget, 0);
    EXPECT_LT(budget, last);
    last = budget;
    ASSERT_EQ(f.decrypt(acc), want);
  }
}

// A square (the same ciphertext twice: multiply(x, x)) extends its operand once; its words are
// those of the product with a copy, on every CPU path this machine has (the vector paths convert
// at 49- and 50-bit primes, the scalar one in 128 bits), at the top level and one below.
TEST(BfvSquare, EqualsTheProductWithACopyOnEveryPath) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {49, 49, 49}, {50}, 65537, "square"};
  Fixture f(c, Scheme::bfv, rng);
  const u64 t = c.t;
  const auto x = random_slots(rng, f.ctx->n(), t);
  const Ciphertext cx = f.encrypt(x);
  std::vector<u64> want = x;
  for (auto& v : want) v = mulmod(v, v, t);
  const CpuPath saved = cpu_path();
  for (const CpuPath p : kAllCpuPaths) {
    if (p > best_cpu_path()) continue;
    set_cpu_path(p);
    SCOPED_TRACE(std::string(to_string(p)));
    for (const Ciphertext& a : {cx, f.ev.mod_switch_to_next(cx)}) {
      const Ciphertext copy = a;
      const Ciphertext square = f.ev.multiply(a, a);
      const Ciphertext product = f.ev.multiply(a, copy);
      ASSERT_EQ(square.size(), 3U);
      for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_TRUE(std::ranges::equal(square[i].data(), product[i].data())) << "part " << i;
      }
      EXPECT_EQ(f.decrypt(f.ev.relinearize(square)), want);
    }
  }
  set_cpu_path(saved);
}

// BFV's modulus switch, round(c/q_l): the message survives every step down to level 0 with factor
// 1 and a positive invariant budget (which does not grow, unlike BGV's); additions, plaintext
// operations, rotations and (above level 0) products work at the lower levels; operands at
// different levels are refused by multiply, add and sub, naming both levels.
TEST(BfvModSwitch, MessageSurvivesAndLowerLevelsEvaluate) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {54, 54, 54}, {55}, 65537, "bfv-switch"};
  Fixture f(c, Scheme::bfv, rng, {1});
  const std::size_t n = f.ctx->n();
  const u64 t = c.t;
  const auto x = random_slots(rng, n, t), y = random_slots(rng, n, t);
  Ciphertext cx = f.encrypt(x);
  Ciphertext cy = f.sk_enc.encrypt(f.encode(y));
  int last = f.budget(cx);
  const std::size_t row = n / 2;
  std::vector<u64> swapped(n);
  for (std::size_t i = 0; i < n; ++i) swapped[i] = x[(i + row) % n];
  for (std::size_t level = f.ctx->params()->max_level(); level-- > 0;) {
    SCOPED_TRACE("level " + std::to_string(level));
    cx = f.ev.mod_switch_to_next(cx);
    f.ev.mod_switch_to_next_inplace(cy);
    ASSERT_EQ(cx.level(), level);
    ASSERT_EQ(cy.level(), level);
    EXPECT_EQ(cx.factor(), 1U);
    EXPECT_EQ(cy.factor(), 1U);
    EXPECT_EQ(f.decrypt(cx), x);
    EXPECT_EQ(f.decrypt(cy), y);
    const int budget = f.budget(cx);
    EXPECT_GT(budget, 0);
    EXPECT_LE(budget, last + 2);  // the invariant noise does not shrink (bit lengths: ±1 each)
    last = budget;
    EXPECT_EQ(f.decrypt(f.ev.add(cx, cy)), plus(x, y, t));
    EXPECT_EQ(f.decrypt(f.ev.sub(cx, cy)), minus(x, y, t));
    EXPECT_EQ(f.decrypt(f.ev.add_plain(cx, f.encode(y))), plus(x, y, t));
    EXPECT_EQ(f.decrypt(f.ev.sub_plain(cx, f.encode(y))), minus(x, y, t));
    EXPECT_EQ(f.decrypt(f.ev.rotate_columns(cx)), swapped);
    if (level == 0) continue;  // one 54-bit prime holds no product at t = 2^16 + 1, N = 2^13
    EXPECT_EQ(f.decrypt(f.ev.multiply_plain(cx, f.encode(y))), times(x, y, t));
    const Ciphertext prod = f.ev.multiply_relin(cx, cy);
    EXPECT_EQ(prod.level(), level);
    EXPECT_EQ(f.decrypt(prod), times(x, y, t));
    EXPECT_GT(f.budget(prod), 0);
  }
  // A product switched down equals the product of switched operands; mod_switch_to from the top.
  const Ciphertext top_x = f.encrypt(x), top_y = f.encrypt(y);
  const Ciphertext prod_low = f.ev.mod_switch_to(f.ev.multiply_relin(top_x, top_y), 1);
  EXPECT_EQ(prod_low.level(), 1U);
  EXPECT_EQ(f.decrypt(prod_low), times(x, y, t));
  EXPECT_EQ(f.decrypt(f.ev.multiply_relin(prod_low, f.ev.mod_switch_to(top_x, 1))),
            times(times(x, y, t), x, t));
  EXPECT_EQ(f.decrypt(f.ev.mod_switch_to(top_x, 2)), x);  // a copy
  // Different levels: BFV does not align them.
  expect_message([&] { (void)f.ev.multiply(top_x, prod_low); }, "different levels (2 and 1)");
  expect_message([&] { (void)f.ev.add(top_x, prod_low); }, "level");
  expect_message([&] { (void)f.ev.sub(prod_low, top_x); }, "level");
}

// A BGV ciphertext (plaintext factor ≠ 1) given to BFV's mode is refused by name: a factor set by
// hand, and a real BGV ciphertext whose modulus switch made its factor q_L^−1 mod t.
TEST(BfvMode, RefusesBgvCiphertexts) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{12, {36, 36}, {37}, 65537, "mix"};
  Fixture f(c, Scheme::bfv, rng);
  const std::size_t n = f.ctx->n();
  const Ciphertext cx = f.pk_enc.encrypt(Plaintext{std::vector<u64>(n)});
  Ciphertext with_factor = cx;
  with_factor.set_factor(3);
  try {
    (void)f.dec.decrypt(with_factor);
    FAIL() << "a factor-3 ciphertext decrypted as BFV";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("f = 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)f.ev.add(with_factor, cx), InvalidParameter);
  EXPECT_THROW((void)f.ev.add(cx, with_factor), InvalidParameter);
  // A BGV context over the same parameters and keys (f's encryptor, its seed stream, beside it):
  // its switched ciphertext has a factor ≠ 1.
  const ContextPtr bgv_ctx = Context::create(f.ctx->params(), c.t, Scheme::bgv);
  const Evaluator bgv_ev(bgv_ctx);
  const Plaintext m = f.encode(random_slots(rng, n, c.t));
  const Ciphertext g = bgv_ev.mod_switch_to_next(rebind(f.pk_enc, bgv_ctx).encrypt(m));
  ASSERT_NE(g.factor(), 1U);
  const std::string f_named = "f = " + std::to_string(g.factor());
  expect_message([&] { (void)f.ev.negate(g); }, f_named);
  expect_message([&] { (void)f.ev.multiply(g, g); }, f_named);
  expect_message([&] { (void)f.ev.mod_switch_to_next(f.ev.mod_switch_to_next(g)); }, f_named);
  expect_message([&] { (void)f.ev.rotate_columns(g); }, "Scheme::bgv");
  expect_message([&] { (void)f.dec.decrypt(g); }, f_named);
  expect_message([&] { (void)f.dec.noise_budget(g); }, f_named);
  expect_message([&] { (void)Decryptor(f.ctx, f.sk).decrypt(g); }, f_named);
}

// ---------------------------------------------------------------------------------------------
// BGV only.

// Operands at different levels are brought down automatically; different factors are equalised.
TEST(BgvLevels, DifferentLevelsAndFactors) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{13, {54, 54, 54}, {55}, 65537, "levels"};
  Fixture f(c, Scheme::bgv, rng);
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

}  // namespace
}  // namespace polyhe::bgv
