// RingContext over Φ_m for odd m: construction and its refusals, the ring-level transform entry
// points (the same words as PowerfulNtt per limb, and on x^N + 1 the same as the NTT plans), the
// centred-lift transforms, automorphisms in both forms, rescaling by the last prime, and device
// placement refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/backend/emulated.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/rescale.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

std::shared_ptr<const RingContext> ring_for(std::size_t m, std::size_t limbs, int bits = 50) {
  return RingContext::create_cyclotomic(m, powerful_ntt_primes(m, bits, limbs));
}

void fill_random(RnsPoly& p, test::TestRng& rng) {
  for (std::size_t i = 0; i < p.limbs(); ++i) {
    const u64 q = p.context()->basis().prime(i);
    for (u64& x : p.limb(i)) x = rng.uniform(0, q - 1);
  }
}

void expect_message(const auto& f, const std::string& needle) {
  try {
    f();
    FAIL() << "expected InvalidParameter mentioning " << needle;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(RingCyclotomic, ShapeAndRefusals) {
  const auto ring = ring_for(4369, 3);
  EXPECT_FALSE(ring->power_of_two());
  EXPECT_EQ(ring->m(), 4369U);
  EXPECT_EQ(ring->n(), 4096U);
  EXPECT_EQ(ring->log_n(), 0);
  EXPECT_TRUE(ring->plans(3).empty());
  ASSERT_NE(ring->powerful(2), nullptr);
  EXPECT_EQ(ring->powerful(2)->q(), ring->basis().prime(2));
  EXPECT_TRUE(ring->is_galois_element(2));
  EXPECT_FALSE(ring->is_galois_element(17));
  EXPECT_FALSE(ring->is_galois_element(4369));
  EXPECT_FALSE(ring->is_galois_element(0));
  EXPECT_NE(ring->galois_rule().find("coprime to m"), std::string::npos);
  const auto pow2 = RingContext::create(8, ntt_primes(30, 8, 1));
  EXPECT_TRUE(pow2->power_of_two());
  EXPECT_EQ(pow2->m(), 16U);
  EXPECT_EQ(pow2->powerful(0), nullptr);
  EXPECT_FALSE(pow2->is_galois_element(2));

  const auto primes = powerful_ntt_primes(4369, 50, 1);
  expect_message([&] { (void)RingContext::create_cyclotomic(4368, primes); }, "must be odd");
  expect_message([&] { (void)RingContext::create_cyclotomic(1, primes); }, "must be odd");
  // φ(8191) = 8190: rings whose limbs are not a multiple of 8 words are served.
  EXPECT_EQ(RingContext::create_cyclotomic(8191, powerful_ntt_primes(8191, 50, 1))->n(), 8190U);
  expect_message([&] { (void)RingContext::create_cyclotomic(4369, std::vector<u64>{}); },
                 "at least one prime");
  expect_message(
      [&] {
        (void)RingContext::create_cyclotomic(4369, std::vector<u64>{ntt_primes(50, 4096, 1)[0]});
      },
      "not 1 mod m = 4369");
  // q ≡ 1 mod m but no plan for the factor 257's Rader convolution (256 ∤ q − 1 and no padding
  // root): the planner's message.
  u64 bad = 0;
  for (u64 q = 4369 * 2 + 1; q < (u64{1} << 40); q += 4369 * 2) {
    if (is_prime(q) && (q - 1) % 64 != 0) {
      bad = q;
      break;
    }
  }
  ASSERT_NE(bad, 0U);
  EXPECT_THROW((void)RingContext::create_cyclotomic(4369, std::vector<u64>{bad}), InvalidParameter);
  // A device holds the rings its transforms serve (φ(m) a power of two on the fused route) and
  // refuses the others by name: 1155 (φ = 480), 765 (fused, φ = 384), 257 (one factor).
  for (const std::size_t m : {255, 3855, 4369, 13107, 21845, 65535}) {
    EXPECT_TRUE(ring_for(m, 1)->device_serves()) << m;
  }
  EXPECT_NO_THROW(
      (void)RnsPoly(ring_for(4369, 1), 1, PolyForm::kCoefficient, make_emulated_device()));
  for (const std::size_t m : {1155, 765, 257}) {
    EXPECT_FALSE(ring_for(m, 1)->device_serves()) << m;
    expect_message(
        [&] { (void)RnsPoly(ring_for(m, 1), 1, PolyForm::kCoefficient, make_emulated_device()); },
        "Phi_" + std::to_string(m) + " (odd m, phi(m) = ");
  }
}

// The ring's transforms are PowerfulNtt's limb by limb, whichever entry point runs them.
TEST(RingCyclotomic, TransformsAreThePowerfulNttPerLimb) {
  POLYHE_SEEDED_RNG(rng);
  const auto ring = ring_for(1155, 4);  // 3·5·7·11: φ = 480
  RnsPoly a(ring, 4);
  fill_random(a, rng);
  RnsPoly b = a;
  b.to_evaluation();
  for (std::size_t i = 0; i < 4; ++i) {
    std::vector<u64> x(a.limb(i).begin(), a.limb(i).end());
    ring->powerful(i)->forward(x);
    ASSERT_EQ(std::vector<u64>(b.limb(i).begin(), b.limb(i).end()), x) << "limb " << i;
  }
  // Limbs in any order through the batched entry point.
  const std::vector<std::size_t> order{2, 0, 3};
  std::vector<u64> data;
  for (const std::size_t i : order) data.insert(data.end(), a.limb(i).begin(), a.limb(i).end());
  ring->forward(data, order);
  for (std::size_t j = 0; j < order.size(); ++j) {
    ASSERT_TRUE(std::equal(b.limb(order[j]).begin(), b.limb(order[j]).end(),
                           data.begin() + static_cast<std::ptrdiff_t>(j * ring->n())));
  }
  ring->inverse(data, order);
  std::vector<u64> out(ring->n());
  ring->inverse(3, b.limb(3), out);  // out of place
  EXPECT_TRUE(std::equal(out.begin(), out.end(), a.limb(3).begin()));
  b.to_coefficient();
  EXPECT_TRUE(std::equal(b.data().begin(), b.data().end(), a.data().begin()));
  expect_message([&] { ring->forward(7, out); }, "limb 7");
  std::vector<u64> short_limb(ring->n() - 8);
  expect_message([&] { ring->forward(0, short_limb); }, "words for a limb");
}

// forward_lifted: the centred lift of a residue mod p, transformed (and (c − ·)·s), on both
// shapes, against the separate steps.
TEST(RingCyclotomic, ForwardLiftedIsLiftThenTransform) {
  POLYHE_SEEDED_RNG(rng);
  for (const bool odd : {true, false}) {
    const auto ring = odd ? ring_for(1155, 2) : RingContext::create(512, ntt_primes(50, 512, 2));
    const std::size_t n = ring->n();
    const u64 p = ring->basis().prime(1);
    const u64 q = ring->basis().prime(0);
    std::vector<u64> x(n), c(n);
    for (auto& v : x) v = rng.uniform(0, p - 1);
    for (auto& v : c) v = rng.uniform(0, q - 1);
    const u64 s = rng.uniform(0, q - 1);
    std::vector<u64> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      const bool negative = x[i] > p / 2;
      want[i] = negative ? (q - (p - x[i]) % q) % q : x[i] % q;
    }
    ring->forward(0, want);
    std::vector<u64> got(n), work(n);
    ring->forward_lifted(0, x, p, got);
    EXPECT_EQ(got, want) << (odd ? "odd m" : "x^N + 1");
    ring->forward_lifted(0, x, p, c, s, got, work);
    const Modulus<u64> mod(q);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], mod.mul((c[i] + q - want[i]) % q, s)) << i;
    }
  }
}

// σ_g in coefficient form (through the slots) and in evaluation form agree, and σ_g^−1 undoes σ_g.
TEST(RingCyclotomic, AutomorphismsInBothFormsAgree) {
  POLYHE_SEEDED_RNG(rng);
  const auto ring = ring_for(1155, 2);
  RnsPoly a(ring, 2);
  fill_random(a, rng);
  for (const u64 g : {2U, 4U, 1154U}) {
    RnsPoly coef = a.automorphism(g);
    RnsPoly eval = a;
    eval.to_evaluation();
    RnsPoly image = eval.automorphism(g);
    image.to_coefficient();
    EXPECT_TRUE(std::equal(coef.data().begin(), coef.data().end(), image.data().begin())) << g;
    const u64 g_inv = inverse_mod(g, 1155);
    RnsPoly back = coef.automorphism(g_inv);
    EXPECT_TRUE(std::equal(back.data().begin(), back.data().end(), a.data().begin())) << g;
    RnsPoly acc(ring, 2, PolyForm::kEvaluation);
    acc.add_automorphism(eval, g);
    acc.to_coefficient();
    EXPECT_TRUE(std::equal(acc.data().begin(), acc.data().end(), coef.data().begin())) << g;
  }
  expect_message([&] { (void)a.automorphism(3); }, "coprime to m");
}

// Rescaling divides the powerful coordinates: X = q_l·Y + r with |r| < q_l/2 gives Y.
TEST(RingCyclotomic, RescaleByLastPrimeRoundsTheCoordinates) {
  POLYHE_SEEDED_RNG(rng);
  const auto ring = ring_for(1155, 3);
  const std::size_t n = ring->n();
  const u64 ql = ring->basis().prime(2);
  std::vector<std::int64_t> y(n), r(n);
  for (std::size_t j = 0; j < n; ++j) {
    y[j] = static_cast<std::int64_t>(rng.uniform(0, 2000000)) - 1000000;
    r[j] = static_cast<std::int64_t>(rng.uniform(0, ql - 1)) - static_cast<std::int64_t>(ql / 2);
  }
  RnsPoly x(ring, 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const u64 q = ring->basis().prime(i);
    const Modulus<u64> mod(q);
    for (std::size_t j = 0; j < n; ++j) {
      const u64 yj = y[j] < 0 ? q - static_cast<u64>(-y[j]) : static_cast<u64>(y[j]);
      const u64 rj = r[j] < 0 ? q - static_cast<u64>(-r[j]) % q : static_cast<u64>(r[j]) % q;
      x.limb(i)[j] = (mod.mul(yj, ql % q) + rj) % q;
    }
  }
  x.to_evaluation();
  RnsPoly* parts[] = {&x};
  rescale_by_last_prime_inplace(parts);
  x.to_coefficient();
  ASSERT_EQ(x.limbs(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const u64 q = ring->basis().prime(i);
    for (std::size_t j = 0; j < n; ++j) {
      const u64 want = y[j] < 0 ? q - static_cast<u64>(-y[j]) : static_cast<u64>(y[j]);
      ASSERT_EQ(x.limb(i)[j], want) << "limb " << i << ", coordinate " << j;
    }
  }
}

}  // namespace
}  // namespace polyhe
