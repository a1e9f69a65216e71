// SlotEncoder: the factors against FLINT's factorisation of Φ_m mod p and against direct
// evaluation, encode/decode round trips, slot-wise products, the slots of every automorphism
// (σ_g moves slot j to slot i with the Frobenius the action names) checked on plaintexts and on
// BGV ciphertexts, the hypercube, and the refusals; for t = p^r also decoding against evaluation at
// the powers of ζ in the Galois ring and against the encoder of t = p.
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
#include "polyhe/arith/primes.hpp"
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

/// a·b over Z_t (any lengths), schoolbook.
std::vector<u64> multiply_mod(const std::vector<u64>& a, const std::vector<u64>& b, u64 t) {
  std::vector<u64> c(a.size() + b.size() - 1, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b.size(); ++j) {
      c[i + j] = static_cast<u64>((static_cast<unsigned __int128>(a[i]) * b[j] + c[i + j]) % t);
    }
  }
  return c;
}

/// a mod g over Z_t for a monic g (deg g = g.size() − 1 ≥ 1), by long division; deg g words.
std::vector<u64> remainder_mod(std::vector<u64> a, const std::vector<u64>& g, u64 t) {
  const std::size_t d = g.size() - 1;
  for (std::size_t top = a.size(); top-- > d;) {
    const u64 lead = a[top];
    for (std::size_t j = 0; j <= d; ++j) {
      u64& x = a[top - d + j];
      x = static_cast<u64>((x + static_cast<unsigned __int128>(t - lead) * g[j]) % t);
    }
  }
  a.resize(d, 0);
  return a;
}

/// In E = Z_t[Y]/G: x·y and x^e.
std::vector<u64> ring_mul(const std::vector<u64>& x, const std::vector<u64>& y,
                          const std::vector<u64>& g, u64 t) {
  return remainder_mod(multiply_mod(x, y, t), g, t);
}
std::vector<u64> ring_pow(std::vector<u64> x, u64 e, const std::vector<u64>& g, u64 t) {
  std::vector<u64> r(g.size() - 1, 0);
  r[0] = 1 % t;
  for (; e != 0; e >>= 1, x = ring_mul(x, x, g, t)) {
    if ((e & 1) != 0) r = ring_mul(r, x, g, t);
  }
  return r;
}

struct SlotCase {
  std::size_t m;
  u64 t;
};

void PrintTo(const SlotCase& c, std::ostream* os) {
  *os << "m = " << c.m << ", t = " << c.t;
}

class Slots : public ::testing::TestWithParam<SlotCase> {};

// d = ord_m(p) for t = p^r, k = φ(m)/d slots; the factors are monic of degree d, distinct, and
// exactly the irreducible factors FLINT finds; the round trips are exact; products are slot-wise.
TEST_P(Slots, FactorsRoundTripsAndProducts) {
  const auto [m, t] = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto enc = SlotEncoder::create(m, t);
  const std::size_t d = enc->slot_degree();
  const std::size_t k = enc->slot_count();
  const u64 p = enc->prime();
  u64 power_of_p = 1;
  for (unsigned e = 0; e < enc->exponent(); ++e) power_of_p *= p;
  EXPECT_EQ(power_of_p, t);
  EXPECT_TRUE(is_prime(p));
  EXPECT_EQ(d * k, euler_phi(m));
  u64 x = p % m;
  std::size_t order = 1;
  for (; x != 1; x = x * (p % m) % m) ++order;
  EXPECT_EQ(d, order);
  std::size_t cube = 1;
  for (const std::size_t o : enc->orders()) cube *= o;
  EXPECT_EQ(cube, k);
  EXPECT_EQ(
      std::set<std::size_t>(enc->representatives().begin(), enc->representatives().end()).size(),
      k);

  // E's modulus G is irreducible mod p by FLINT's own test; up to d = 64 it is the first candidate
  // in base-p digit order (so FLINT's test calls every earlier candidate reducible).
  const auto g = enc->field_modulus();
  ASSERT_EQ(g.size(), d + 1);
  ASSERT_EQ(g[d], 1U);
  const auto is_irreducible = [&](std::span<const u64> coeffs) {
    nmod_poly_t g_p;
    nmod_poly_init(g_p, p);
    for (std::size_t j = 0; j < coeffs.size(); ++j) {
      nmod_poly_set_coeff_ui(g_p, static_cast<slong>(j), coeffs[j]);
    }
    const bool irreducible = nmod_poly_is_irreducible(g_p) != 0;
    nmod_poly_clear(g_p);
    return irreducible;
  };
  EXPECT_TRUE(is_irreducible(g));
  if (d <= 64) {
    // G's lower coefficients as base-p digits, by Horner from the top: the candidate's index.
    constexpr u64 kFirst = 4096;  // the cases here find G among the first few hundred
    u64 index = 0;
    for (std::size_t j = d; j-- > 0;) {
      ASSERT_TRUE(g[j] <= kFirst && index <= (kFirst - g[j]) / p) << "G is not among the first";
      index = index * p + g[j];
    }
    for (u64 c = 1; c < index; ++c) {
      std::vector<u64> candidate(d + 1, 0);
      candidate[d] = 1;
      for (std::size_t j = 0, digits = c; j < d; ++j, digits /= p) candidate[j] = digits % p;
      EXPECT_FALSE(is_irreducible(candidate)) << "candidate " << c << " comes before G";
    }
  }

  // FLINT's own factorisation of Φ_m mod p (equal-degree), as sets of coefficient vectors, and our
  // factors reduced mod p; over Z_t our factors are monic and multiply to Φ_m mod t.
  const auto phi = cyclotomic_polynomial(m);
  const auto phi_mod = [&](u64 q) {
    std::vector<u64> out(phi.size());
    for (std::size_t i = 0; i < phi.size(); ++i) {
      const u64 mag = static_cast<u64>(phi[i] < 0 ? -phi[i] : phi[i]) % q;
      out[i] = phi[i] < 0 ? (q - mag) % q : mag;
    }
    return out;
  };
  nmod_poly_t f;
  nmod_poly_init(f, p);
  const auto phi_p = phi_mod(p);
  for (std::size_t i = 0; i < phi_p.size(); ++i) {
    nmod_poly_set_coeff_ui(f, static_cast<slong>(i), phi_p[i]);
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
  std::vector<u64> product{1};
  for (std::size_t i = 0; i < k; ++i) {
    auto fi = enc->factor(i);
    ASSERT_EQ(fi.size(), d + 1);
    ASSERT_EQ(fi[d], 1U);
    product = multiply_mod(product, fi, t);
    for (auto& c : fi) c %= p;
    ours.insert(fi);
  }
  EXPECT_EQ(ours, flint_factors);
  product.resize(phi.size());  // the product of monic factors has degree φ(m)
  EXPECT_EQ(product, phi_mod(t));

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
  const u64 p = enc->prime();
  elements.push_back(p % m);  // the Frobenius itself: every slot maps to itself, e = 1
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
    if (g == p % m && d > 1) {
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

// Decoding is evaluation at the powers of ζ in E = Z_t[Y]/G, computed here by schoolbook products
// from the published G and ζ: ζ has order m (ζ^(m/q) ≠ 1 even mod p for each prime q | m), F_i
// vanishes at ζ^(h_i), and slot i of a is (a mod F_i)(ζ^(h_i)). σ takes ζ to ζ^p and has order d.
// For t = p^r everything reduces mod p to the encoder of t = p.
TEST_P(Slots, DecodingEvaluatesAtThePowersOfZeta) {
  const auto [m, t] = GetParam();
  POLYHE_SEEDED_RNG(rng);
  const auto enc = SlotEncoder::create(m, t);
  const std::size_t d = enc->slot_degree();
  const std::size_t k = enc->slot_count();
  const u64 p = enc->prime();
  const std::vector<u64> g(enc->field_modulus().begin(), enc->field_modulus().end());
  const std::vector<u64> zeta(enc->zeta().begin(), enc->zeta().end());
  std::vector<u64> one(d, 0);
  one[0] = 1;
  EXPECT_EQ(ring_pow(zeta, m, g, t), one);
  for (const u64 q : prime_factors(m)) {
    auto power = ring_pow(zeta, m / q, g, t);
    for (auto& c : power) c %= p;
    EXPECT_NE(power, one) << "zeta^(m/" << q << ")";
  }
  const auto coords = random_values(rng, euler_phi(m), t);
  const auto power = to_power(coords, m, t);
  const auto slots = enc->decode(coords);
  std::vector<std::size_t> checked{0, k - 1, k / 2};
  for (const std::size_t i : checked) {
    const auto beta = ring_pow(zeta, enc->representatives()[i], g, t);
    const auto horner = [&](const std::vector<u64>& poly) {
      std::vector<u64> acc(d, 0);
      for (std::size_t j = poly.size(); j-- > 0;) {
        acc = ring_mul(acc, beta, g, t);
        acc[0] = (acc[0] + poly[j]) % t;
      }
      return acc;
    };
    EXPECT_EQ(horner(enc->factor(i)), std::vector<u64>(d, 0)) << "F_" << i << "(beta_" << i << ")";
    const auto want = horner(remainder_mod(power, enc->factor(i), t));
    EXPECT_TRUE(
        std::equal(want.begin(), want.end(), slots.begin() + static_cast<std::ptrdiff_t>(i * d)))
        << "slot " << i;
  }
  // σ(ζ) = ζ^p; σ^d = 1 on a random slot value.
  EXPECT_EQ(enc->frobenius(zeta, 1), ring_pow(zeta, p, g, t));
  const auto v = random_values(rng, d, t);
  EXPECT_EQ(enc->frobenius(enc->frobenius(v, 1), d - 1), v);
  if (enc->exponent() > 1) {
    const auto base = SlotEncoder::create(m, p);
    EXPECT_TRUE(std::equal(g.begin(), g.end(), base->field_modulus().begin()));
    std::vector<u64> coords_p(coords), slots_p(slots);
    for (auto& c : coords_p) c %= p;
    for (auto& c : slots_p) c %= p;
    EXPECT_EQ(base->decode(coords_p), slots_p);
    for (std::size_t j = 0; j < d; ++j) EXPECT_EQ(zeta[j] % p, base->zeta()[j]) << j;
    EXPECT_TRUE(std::equal(enc->representatives().begin(), enc->representatives().end(),
                           base->representatives().begin()));
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
                      SlotCase{137, 2},   // d = 68: 2 slots of GF(2^68)
                      SlotCase{2047, 3},  // 23 · 89: d = 88, 22 slots
                      SlotCase{4369, 3},  // d = 256: 16 slots of GF(3^256)
                      // t = p^r: slots of the Galois ring GR(p^r, d).
                      SlotCase{4369, 65536},              // 2^16: d = 16, 256 slots
                      SlotCase{31, 256},                  // 2^8: d = 5, 6 slots
                      SlotCase{1155, 9409},               // 97^2: the mixed hypercube
                      SlotCase{1155, 5340721},            // 2311^2: d = 1
                      SlotCase{4369, 281487861809153},    // 65537^3 (48 bits): d = 16
                      SlotCase{31, 1350851717672992089},  // 3^38 (61 bits): one slot, d = 30
                      SlotCase{2047, 243}),               // 3^5: d = 88, by composition

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
  expect_message([] { (void)SlotEncoder::create(4369, 6); }, "must be a prime or a prime power");
  expect_message([] { (void)SlotEncoder::create(4369, 65537ULL * 65539); },
                 "must be a prime or a prime power");
  expect_message([] { (void)SlotEncoder::create(31, u64{1} << 62); }, "below 2^62");
  expect_message([] { (void)SlotEncoder::create(4369, 257); }, "coprime to m");
  expect_message([] { (void)SlotEncoder::create(4369, 257 * 257); }, "share the prime 257");
  expect_message([] { (void)SlotEncoder::create(8191, 3); }, "order d = 910");
  const auto enc = SlotEncoder::create(31, 2);
  expect_message([&] { (void)enc->encode(std::vector<u64>(29, 0)); }, "30 expected");
  std::vector<u64> bad(30, 0);
  bad[7] = 2;
  expect_message([&] { (void)enc->encode(bad); }, "value 7 = 2");
  expect_message([&] { (void)enc->decode(std::vector<u64>(31, 0)); }, "30 expected");
  expect_message([&] { (void)enc->automorphism_action(31); }, "not a unit");
}

// BGV end to end at m = 21845 (128-bit): slots through encryption, a product and an automorphism,
// for slots of GF(65537^16) and of the Galois ring GR(2^16, 16) (HElib's p = 2, r = 16).
class SlotsBgv : public ::testing::TestWithParam<u64> {};

TEST_P(SlotsBgv, EncryptedSlotsMultiplyAndMoveUnderAutomorphisms) {
  POLYHE_SEEDED_RNG(rng);
  const auto params =
      cases::phi_m_params(21845, {60, 60, 60, 60}, {60}, rlwe::SecurityLevel::bits128);
  const u64 t = GetParam();
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
  // A t that is not a prime power has no slot encoder of this kind.
  EXPECT_THROW((void)Context::create(params, 65538)->slot_encoder(), InvalidParameter);
}

INSTANTIATE_TEST_SUITE_P(PlaintextModuli, SlotsBgv, ::testing::Values(u64{65537}, u64{65536}),
                         [](const auto& param_info) {
                           return "t" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace polyhe::bgv
