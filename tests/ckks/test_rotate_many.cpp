// Hoisted rotations (Evaluator::rotate_many, rlwe::apply_galois_hoisted, key_switch_hoisted) word
// for word against one rotation at a time, on every CPU path (CTest runs this binary once per
// path, with POLYHE_CPU set). On x^N + 1 the automorphism commutes with ModUp's centred lift and
// with the transform, so permuting the digits of c_1's ModUp gives the ModUp of σ(c_1) exactly:
// every result must equal rotate's in every word, at every level, for digits of one prime
// (the CPU's limb-by-limb ModUp), of several primes (the materialised one) and a single digit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "support/cpu_path_test.hpp"

namespace polyhe::ckks {
namespace {

using test::Case;
using RotateMany = polyhe::test::CpuPathTest;

void expect_equal(const rlwe::Ciphertext& want, const rlwe::Ciphertext& got,
                  const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.level(), want.level());
  EXPECT_EQ(got.scale(), want.scale());
  EXPECT_EQ(got.factor(), want.factor());
  for (std::size_t p = 0; p < want.size(); ++p) {
    const std::vector<std::uint64_t> w(want[p].data().begin(), want[p].data().end());
    const std::vector<std::uint64_t> g(got[p].data().begin(), got[p].data().end());
    ASSERT_EQ(g, w) << "part " << p;
  }
}

// One prime per digit, digits of two and three primes, one digit (P covering Q); N = 2^11 and
// 2^12 with 40- to 60-bit primes (the IFMA path's 40- and 50-bit kernels and its AVX-512 fallback).
const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      Case{12, {60, 40, 40, 40, 40}, {60}, 0, 40},
      Case{11, {50, 40, 40, 40, 40, 40}, {60, 60}, 3, 40},
      Case{11, {60, 40, 40, 40, 40, 40}, {60, 60, 60}, 2, 40},
      Case{11, {50, 40, 40}, {60, 60, 60}, 1, 40},
  };
  return c;
}

std::string name_of(const Case& c) {
  return "N = 2^" + std::to_string(c.log_n) + ", " + std::to_string(c.q_bits.size()) +
         " primes, dnum " + std::to_string(c.dnum);
}

TEST_F(RotateMany, EachResultIsRotatesWordForWord) {
  POLYHE_SEEDED_RNG(rng);
  for (const Case& c : cases()) {
    SCOPED_TRACE(name_of(c));
    const auto params = test::make_params(c);
    const std::size_t slots = params->n() / 2;
    const std::vector<std::int64_t> keyed = {1, 2, -3, 5, 17, static_cast<std::int64_t>(slots - 1)};
    rlwe::KeyGenerator keygen(params, test::make_seed(rng));
    const rlwe::SecretKey sk = keygen.secret_key();
    const rlwe::GaloisKeys gks = keygen.rotation_keys(sk, keyed, /*conjugation=*/true);
    const Evaluator eval(params, nullptr, rlwe::share(gks));
    const double scale = std::ldexp(1.0, c.scale_bits);
    const ContextPtr ctx = Context::create(params, scale);
    const Encryptor enc = ctx->encryptor(sk, test::make_seed(rng));
    const Ciphertext top =
        enc.encrypt(ctx->encode(test::random_values(rng, slots), params->max_level(), scale));
    // A repeated step, a step of 0 and one of N/2 (both the identity), negative steps.
    const std::vector<std::int64_t> steps = {1,
                                             -3,
                                             0,
                                             17,
                                             1,
                                             2,
                                             static_cast<std::int64_t>(slots),
                                             5,
                                             static_cast<std::int64_t>(slots - 1)};
    for (const std::size_t level : {params->max_level(), std::size_t{1}, std::size_t{0}}) {
      const Ciphertext ct = eval.drop_to_level(top, level);
      const std::vector<Ciphertext> many = eval.rotate_many(ct, steps);
      ASSERT_EQ(many.size(), steps.size());
      for (std::size_t r = 0; r < steps.size(); ++r) {
        expect_equal(eval.rotate(ct, steps[r]), many[r],
                     "level " + std::to_string(level) + ", step " + std::to_string(steps[r]));
      }
      EXPECT_TRUE(eval.rotate_many(ct, {}).empty());
    }
    // The rlwe form with an error multiple (BGV's switching) and the conjugation key among the
    // rotation keys; a null key is the identity.
    const std::uint64_t conj = rlwe::galois_element_for_conjugation(params->n());
    const std::uint64_t by5 = rlwe::galois_element_for_rotation(params->n(), 5);
    const std::vector<const rlwe::KeySwitchKey*> keys = {&gks.at(conj), nullptr, &gks.at(by5)};
    const std::vector<rlwe::Ciphertext> hoisted = rlwe::apply_galois_hoisted(top, keys, 3);
    ASSERT_EQ(hoisted.size(), 3U);
    expect_equal(rlwe::apply_galois(top, gks.at(conj), 3), hoisted[0], "conjugation, multiple 3");
    expect_equal(top, hoisted[1], "the identity");
    expect_equal(rlwe::apply_galois(top, gks.at(by5), 3), hoisted[2], "step 5, multiple 3");
  }
}

// Key switching itself, hoisted, against key_switch of each σ(d): the ring layer's contract.
TEST_F(RotateMany, KeySwitchHoistedIsKeySwitchOfEachAutomorphism) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{11, {60, 40, 40, 40, 40, 40}, {60, 60}, 3, 40};
  const auto params = test::make_params(c);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::GaloisKeys gks =
      keygen.rotation_keys(sk, std::vector<std::int64_t>{1, 7}, /*conjugation=*/true);
  rlwe::Encryptor enc(sk, test::make_seed(rng));
  const rlwe::Ciphertext ct = enc.encrypt_zero(params->max_level());
  const HybridKeySwitch ks = params->key_switching();
  const std::vector<std::uint64_t> elements = {rlwe::galois_element_for_rotation(params->n(), 1),
                                               rlwe::galois_element_for_conjugation(params->n()),
                                               rlwe::galois_element_for_rotation(params->n(), 7)};
  std::vector<const KeySwitchParts*> parts;
  parts.reserve(elements.size());
  for (const std::uint64_t k : elements) parts.push_back(&gks.at(k).parts);
  std::vector<RnsPoly> u(6, ct[0]);  // overwritten
  const std::vector<RnsPoly*> u0 = {&u[0], &u[1], &u[2]}, u1 = {&u[3], &u[4], &u[5]};
  key_switch_hoisted(ks, ct[1], elements, parts, u0, u1);
  for (std::size_t r = 0; r < elements.size(); ++r) {
    RnsPoly w0 = ct[0], w1 = ct[0];  // overwritten
    key_switch(ks, ct[1].automorphism(elements[r]), *parts[r], w0, w1);
    const std::string what = "element " + std::to_string(elements[r]);
    EXPECT_TRUE(std::ranges::equal(w0.data(), u0[r]->data())) << what;
    EXPECT_TRUE(std::ranges::equal(w1.data(), u1[r]->data())) << what;
  }
}

TEST_F(RotateMany, MisuseIsNamedBeforeAnyWork) {
  POLYHE_SEEDED_RNG(rng);
  const Case c{10, {50, 40, 40}, {50}, 0, 30};
  const auto params = test::make_params(c);
  const auto other = test::make_params(c);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  const rlwe::KeySwitchKey rlk = keygen.relinearization_key(sk);
  const rlwe::GaloisKeys gks =
      keygen.rotation_keys(sk, std::vector<std::int64_t>{1, 2}, /*conjugation=*/false);
  const Evaluator eval(params, rlwe::share(rlk), rlwe::share(gks));
  const Evaluator bare(params);
  rlwe::Encryptor enc(sk, test::make_seed(rng));
  const Ciphertext ct(enc.encrypt_zero(2));
  const std::vector<std::int64_t> missing = {1, 5, 2};
  try {
    (void)eval.rotate_many(ct, missing);
    FAIL() << "a missing key was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("rotation step 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)bare.rotate_many(ct, std::vector<std::int64_t>{1}), InvalidParameter);
  EXPECT_NO_THROW((void)bare.rotate_many(ct, std::vector<std::int64_t>{0}));  // no key needed
  // Size 3: relinearise first.
  const Ciphertext sq = eval.multiply(ct, ct);
  EXPECT_THROW((void)eval.rotate_many(sq, std::vector<std::int64_t>{1}), InvalidParameter);
  // The relinearisation key is no Galois key; keys of other parameters are refused.
  const std::vector<const rlwe::KeySwitchKey*> relin = {&rlk};
  EXPECT_THROW((void)rlwe::apply_galois_hoisted(ct, relin), InvalidParameter);
  // An error multiple of 0 is refused even when every key is the identity.
  const std::vector<const rlwe::KeySwitchKey*> identity = {nullptr};
  EXPECT_THROW((void)rlwe::apply_galois_hoisted(ct, identity, 0), InvalidParameter);
  EXPECT_EQ(rlwe::apply_galois_hoisted(ct, identity, 3).size(), 1U);
  rlwe::KeyGenerator other_gen(other, test::make_seed(rng));
  const rlwe::GaloisKeys ogks =
      other_gen.rotation_keys(other_gen.secret_key(), std::vector<std::int64_t>{1}, false);
  const std::vector<const rlwe::KeySwitchKey*> foreign = {
      &ogks.at(rlwe::galois_element_for_rotation(other->n(), 1))};
  EXPECT_THROW((void)rlwe::apply_galois_hoisted(ct, foreign), MismatchedContext);
  // The ring operation: counts that disagree, a bad element, an output that is the input.
  const HybridKeySwitch ks = params->key_switching();
  const std::uint64_t k1 = rlwe::galois_element_for_rotation(params->n(), 1);
  const std::vector<const KeySwitchParts*> one = {&gks.at(k1).parts};
  RnsPoly a = ct[0], b = ct[0];
  const std::vector<RnsPoly*> pa = {&a}, pb = {&b}, none = {};
  EXPECT_THROW(key_switch_hoisted(ks, ct[1], std::vector<std::uint64_t>{k1}, one, pa, none),
               InvalidParameter);
  try {
    key_switch_hoisted(ks, ct[1], std::vector<std::uint64_t>{4}, one, pa, pb);
    FAIL() << "an even element was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("element 4"), std::string::npos) << e.what();
  }
  const std::vector<RnsPoly*> same = {&a};
  EXPECT_THROW(key_switch_hoisted(ks, ct[1], std::vector<std::uint64_t>{k1}, one, pa, same),
               InvalidParameter);
  RnsPoly d = ct[1];
  const std::vector<RnsPoly*> input = {&d};
  EXPECT_THROW(key_switch_hoisted(ks, d, std::vector<std::uint64_t>{k1}, one, input, pb),
               InvalidParameter);
}

}  // namespace
}  // namespace polyhe::ckks
