// SlotEncoder: the factors against FLINT's factorisation of Φ_m mod t and against direct
// evaluation, encode/decode round trips, slot-wise products, the slots of every automorphism
// (σ_g moves slot j to slot i with the Frobenius the action names) checked on plaintexts and on
// BGV ciphertexts, the hypercube, and the refusals.
#include "polyhe/bgv/slots.hpp"

#include <flint/nmod_poly.h>
#include <flint/nmod_poly_factor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "ntt/cyclic/cyclotomic_reference.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/cyclotomic.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using u64 = std::uint64_t;

std::vector<u64> random_values(test::TestRng& rng, std::size_t n, u64 t) {
  std::vector<u64> v(n);
  for (auto& x : v) x = rng.uniform(0, t - 1);
  return v;
}

/// Powerful coordinates → power basis mod t (independent: exponents and long division).
std::vector<u64> to_power(const std::vector<u64>& a, u64 m, u64 t) {
  const auto e = powerful_exponents(m);
  std::vector<u64> full(m, 0);
  for (std::size_t j = 0; j < a.size(); ++j) full[e[j]] = a[j];
  return test::reduce_by_phi(full, m, Modulus<u64>(t));
}

struct SlotCase {
  std::size_t m;
  u64 t;
};

void PrintTo(const SlotCase& c, std::ostream* os) {
  *os << "m = " << c.m << ", t = " << c.t;
}

class Slots : public ::testing::TestWithParam<SlotCase> {};

// d = ord_m(t), k = φ(m)/d slots; the factors are monic of degree d, distinct, and exactly the
// irreducible factors FLINT finds; the round trips are exact; products are slot-wise.
TEST_P(Slots, FactorsRoundTripsAndProducts) {
  const auto [m, t] = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto enc = SlotEncoder::create(m, t);
  const std::size_t d = enc->slot_degree();
  const std::size_t k = enc->slot_count();
  EXPECT_EQ(d * k, euler_phi(m));
  u64 x = t % m;
  std::size_t order = 1;
  for (; x != 1; x = x * (t % m) % m) ++order;
  EXPECT_EQ(d, order);
  std::size_t cube = 1;
  for (const std::size_t o : enc->orders()) cube *= o;
  EXPECT_EQ(cube, k);
  EXPECT_EQ(
      std::set<std::size_t>(enc->representatives().begin(), enc->representatives().end()).size(),
      k);

  // E's modulus G is irreducible by FLINT's own test; up to d = 64 it is the first candidate in
  // base-t digit order (so FLINT's test calls every earlier candidate reducible).
  const auto g = enc->field_modulus();
  ASSERT_EQ(g.size(), d + 1);
  ASSERT_EQ(g[d], 1U);
  const auto is_irreducible = [&](std::span<const u64> coeffs) {
    nmod_poly_t p;
    nmod_poly_init(p, t);
    for (std::size_t j = 0; j < coeffs.size(); ++j) {
      nmod_poly_set_coeff_ui(p, static_cast<slong>(j), coeffs[j]);
    }
    const bool irreducible = nmod_poly_is_irreducible(p) != 0;
    nmod_poly_clear(p);
    return irreducible;
  };
  EXPECT_TRUE(is_irreducible(g));
  if (d <= 64) {
    // G's lower coefficients as base-t digits, by Horner from the top: the candidate's index.
    constexpr u64 kFirst = 4096;  // the cases here find G among the first few hundred
    u64 index = 0;
    for (std::size_t j = d; j-- > 0;) {
      ASSERT_TRUE(g[j] <= kFirst && index <= (kFirst - g[j]) / t) << "G is not among the first";
      index = index * t + g[j];
    }
    for (u64 c = 1; c < index; ++c) {
      std::vector<u64> candidate(d + 1, 0);
      candidate[d] = 1;
      for (std::size_t j = 0, digits = c; j < d; ++j, digits /= t) candidate[j] = digits % t;
      EXPECT_FALSE(is_irreducible(candidate)) << "candidate " << c << " comes before G";
    }
  }

  // FLINT's own factorisation of Φ_m mod t (equal-degree), as sets of coefficient vectors.
  const auto phi = cyclotomic_polynomial(m);
  nmod_poly_t f;
  nmod_poly_init(f, t);
  for (std::size_t i = 0; i < phi.size(); ++i) {
    const std::int64_t c = phi[i] % static_cast<std::int64_t>(t);
    nmod_poly_set_coeff_ui(f, static_cast<slong>(i),
                           static_cast<u64>(c < 0 ? c + static_cast<std::int64_t>(t) : c));
  }
  nmod_poly_factor_t fac;
  nmod_poly_factor_init(fac);
  nmod_poly_factor_equal_deg(fac, f, static_cast<slong>(d));
  std::set<std::vector<u64>> flint_factors;
  for (slong i = 0; i < fac->num; ++i) {
    std::vector<u64> c(d + 1);
    for (std::size_t j = 0; j <= d; ++j) {
      c[j] = nmod_poly_get_coeff_ui(fac->p + i, static_cast<slong>(j));
    }
    flint_factors.insert(c);
  }
  nmod_poly_factor_clear(fac);
  nmod_poly_clear(f);
  std::set<std::vector<u64>> ours;
  for (std::size_t i = 0; i < k; ++i) ours.insert(enc->factor(i));
  EXPECT_EQ(ours, flint_factors);

  const auto v = random_values(rng, k * d, t);
  const auto a = enc->encode(v);
  ASSERT_EQ(a.size(), euler_phi(m));
  EXPECT_EQ(enc->decode(a), v);
  const auto coords = random_values(rng, euler_phi(m), t);
  EXPECT_EQ(enc->encode(enc->decode(coords)), coords);

  // Slot i of a lies in Z_t[X]/F_i: the power-basis polynomial of a, reduced mod F_i, is the
  // polynomial r of degree < d whose value at ζ^(h_i) is the slot (checked through F_i only:
  // a − r vanishes mod F_i, i.e. decoding r alone gives the slot back in slot i).
  const auto power = to_power(a, m, t);
  for (std::size_t i = 0; i < std::min<std::size_t>(k, 4); ++i) {
    nmod_poly_t pa, fi, r;
    nmod_poly_init(pa, t);
    nmod_poly_init(fi, t);
    nmod_poly_init(r, t);
    for (std::size_t j = 0; j < power.size(); ++j) {
      nmod_poly_set_coeff_ui(pa, static_cast<slong>(j), power[j]);
    }
    const auto fc = enc->factor(i);
    for (std::size_t j = 0; j < fc.size(); ++j)
      nmod_poly_set_coeff_ui(fi, static_cast<slong>(j), fc[j]);
    nmod_poly_rem(r, pa, fi);
    std::vector<u64> r_power(euler_phi(m), 0);
    for (std::size_t j = 0; j < d; ++j)
      r_power[j] = nmod_poly_get_coeff_ui(r, static_cast<slong>(j));
    const auto r_slots = enc->decode(power_to_powerful(m, r_power, t));
    EXPECT_TRUE(std::equal(r_slots.begin() + static_cast<std::ptrdiff_t>(i * d),
                           r_slots.begin() + static_cast<std::ptrdiff_t>((i + 1) * d),
                           v.begin() + static_cast<std::ptrdiff_t>(i * d)))
        << "slot " << i;
    nmod_poly_clear(pa);
    nmod_poly_clear(fi);
    nmod_poly_clear(r);
  }

  // Products of plaintexts are slot-wise products in E.
  const auto w = random_values(rng, k * d, t);
  const auto b = enc->encode(w);
  const auto prod =
      test::reference_multiply(to_power(a, m, t), to_power(b, m, t), m, Modulus<u64>(t));
  const auto slots = enc->decode(power_to_powerful(m, prod, t));
  for (std::size_t i = 0; i < k; ++i) {
    const std::span<const u64> vi(v.data() + i * d, d), wi(w.data() + i * d, d);
    const auto want = enc->multiply(vi, wi);
    ASSERT_TRUE(
        std::equal(want.begin(), want.end(), slots.begin() + static_cast<std::ptrdiff_t>(i * d)))
        << "slot " << i;
  }
}

// σ_g(a) computed in the power basis by X^i → X^(i·g mod m); its slots are the action's moves.
TEST_P(Slots, AutomorphismsMoveSlotsAsTheActionSays) {
  const auto [m, t] = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto enc = SlotEncoder::create(m, t);
  const std::size_t d = enc->slot_degree();
  const std::size_t k = enc->slot_count();
  const auto v = random_values(rng, k * d, t);
  const auto power = to_power(enc->encode(v), m, t);
  std::vector<u64> elements(enc->generators().begin(), enc->generators().end());
  elements.push_back(t % m);  // the Frobenius itself: every slot maps to itself, e = 1
  elements.push_back(m - 1);
  for (const u64 g : elements) {
    std::vector<u64> full(m, 0);
    for (std::size_t i = 0; i < power.size(); ++i) {
      u64& x = full[(i * g) % m];
      x = (x + power[i]) % t;
    }
    const auto image =
        enc->decode(power_to_powerful(m, test::reduce_by_phi(full, m, Modulus<u64>(t)), t));
    const auto action = enc->automorphism_action(g);
    for (std::size_t i = 0; i < k; ++i) {
      const std::span<const u64> src(v.data() + action[i].source * d, d);
      const auto want = enc->frobenius(src, action[i].frobenius);
      ASSERT_TRUE(
          std::equal(want.begin(), want.end(), image.begin() + static_cast<std::ptrdiff_t>(i * d)))
          << "g = " << g << ", slot " << i;
    }
    if (g == t % m && d > 1) {
      for (std::size_t i = 0; i < k; ++i) {
        EXPECT_EQ(action[i].source, i);
        EXPECT_EQ(action[i].frobenius, 1U);
      }
    }
  }
  // Along the first hypercube dimension away from its wrap, σ_(g_1) is a pure shift by one: slot
  // (e_1, …) of the image is slot (e_1 + 1, …) of a.
  if (!enc->generators().empty() && enc->orders()[0] > 1) {
    const auto action = enc->automorphism_action(enc->generators()[0]);
    const std::size_t stride = k / enc->orders()[0];
    for (std::size_t i = 0; i + stride < k; ++i) {
      EXPECT_EQ(action[i].source, i + stride) << i;
      EXPECT_EQ(action[i].frobenius, 0U) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rings, Slots,
    ::testing::Values(SlotCase{4369, 65537},  // d = 16: 256 slots of GF(65537^16)
                      SlotCase{1155, 2311},   // t ≡ 1 mod 1155: d = 1, Z_t slots
                      SlotCase{1155, 97},     // a mixed hypercube
                      SlotCase{31, 2},        // d = 5: 6 slots of GF(2^5)
                      SlotCase{8191, 2},      // a prime m = 2^13 − 1: d = 13, 630 slots
                      // Above d = 64: dense field moduli, encoding by modular composition.
                      SlotCase{137, 2},    // d = 68: 2 slots of GF(2^68)
                      SlotCase{2047, 3},   // 23 · 89: d = 88, 22 slots
                      SlotCase{4369, 3}),  // d = 256: 16 slots of GF(3^256)
    [](const auto& param_info) {
      return "m" + std::to_string(param_info.param.m) + "_t" + std::to_string(param_info.param.t);
    });

TEST(SlotsErrors, RefusedWithTheRule) {
  const auto expect_message = [](auto f, const std::string& needle) {
    try {
      f();
      FAIL() << needle;
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_message([] { (void)SlotEncoder::create(1156, 65537); }, "must be odd");
  expect_message([] { (void)SlotEncoder::create(4369, 65536); }, "must be a prime");
  expect_message([] { (void)SlotEncoder::create(4369, 257); }, "coprime to m");
  expect_message([] { (void)SlotEncoder::create(8191, 3); }, "order d = 910");
  const auto enc = SlotEncoder::create(31, 2);
  expect_message([&] { (void)enc->encode(std::vector<u64>(29, 0)); }, "30 expected");
  std::vector<u64> bad(30, 0);
  bad[7] = 2;
  expect_message([&] { (void)enc->encode(bad); }, "value 7 = 2");
  expect_message([&] { (void)enc->decode(std::vector<u64>(31, 0)); }, "30 expected");
  expect_message([&] { (void)enc->automorphism_action(31); }, "not a unit");
}

// BGV end to end at m = 21845 (128-bit): slots through encryption, a product and an automorphism.
TEST(SlotsBgv, EncryptedSlotsMultiplyAndMoveUnderAutomorphisms) {
  POLYHE_SEEDED_RNG(rng);
  const auto params =
      cases::phi_m_params(21845, {60, 60, 60, 60}, {60}, rlwe::SecurityLevel::bits128);
  const u64 t = 65537;
  const auto ctx = Context::create(params, t);
  const SlotEncoder& enc = ctx->slot_encoder();
  EXPECT_EQ(enc.slot_degree(), 16U);
  EXPECT_EQ(enc.slot_count(), 1024U);
  Seed seed{};
  seed[0] = static_cast<std::uint8_t>(rng.bits());
  rlwe::KeyGenerator keygen(params, seed);
  const auto sk = keygen.secret_key();
  const auto relin = keygen.relinearization_key(sk);
  const u64 g = enc.generators()[0];
  const std::vector<u64> elements{g};
  const auto galois = keygen.galois_keys(sk, elements);
  const Encryptor encryptor = ctx->encryptor(sk, seed);
  const Decryptor decryptor = ctx->decryptor(sk);
  const Evaluator ev(ctx, rlwe::share(relin), rlwe::share(galois));
  const std::size_t d = enc.slot_degree();
  const auto v = random_values(rng, enc.slot_count() * d, t);
  const auto w = random_values(rng, enc.slot_count() * d, t);
  const auto cv = encryptor.encrypt(Plaintext{enc.encode(v)});
  const auto cw = encryptor.encrypt(Plaintext{enc.encode(w)});
  const auto prod =
      enc.decode(decryptor.decrypt(ev.mod_switch_to_next(ev.multiply_relin(cv, cw))).coeffs);
  for (std::size_t i = 0; i < enc.slot_count(); ++i) {
    const auto want = enc.multiply(std::span<const u64>(v.data() + i * d, d),
                                   std::span<const u64>(w.data() + i * d, d));
    ASSERT_TRUE(
        std::equal(want.begin(), want.end(), prod.begin() + static_cast<std::ptrdiff_t>(i * d)))
        << i;
  }
  const auto moved = enc.decode(decryptor.decrypt(ev.apply_galois(cv, g)).coeffs);
  const auto action = enc.automorphism_action(g);
  for (std::size_t i = 0; i < enc.slot_count(); ++i) {
    const auto want = enc.frobenius(std::span<const u64>(v.data() + action[i].source * d, d),
                                    action[i].frobenius);
    ASSERT_TRUE(
        std::equal(want.begin(), want.end(), moved.begin() + static_cast<std::ptrdiff_t>(i * d)))
        << i;
  }
  // x^N + 1 contexts and non-prime t have no slot encoder of this kind.
  EXPECT_THROW((void)Context::create(params, 65536)->slot_encoder(), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::bgv
