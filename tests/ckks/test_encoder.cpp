// The CKKS encoder against the definition of the canonical embedding (O(N²) long-double
// references, exact GMP reconstruction), and the slot conventions the evaluator relies on.
#include "polyhe/ckks/encoder.hpp"

#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rns/bigint.hpp"
#include "ring/ring_cases.hpp"

namespace polyhe {
namespace {

using ckks::Encoder;
using Complex = std::complex<double>;
using LComplex = std::complex<long double>;

// Uniform in the disc of the given radius.
std::vector<Complex> random_slots(test::TestRng& rng, std::size_t count, double radius = 1.0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Complex> z(count);
  for (Complex& v : z) {
    do {
      v = {u(rng.engine()), u(rng.engine())};
    } while (std::norm(v) > 1.0);
    v *= radius;
  }
  return z;
}

double max_error(std::span<const Complex> a, std::span<const Complex> b) {
  double e = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

double max_abs(std::span<const Complex> a) {
  double m = 0.0;
  for (const Complex& v : a) m = std::max(m, std::abs(v));
  return m;
}

// The coefficients of p (either form), centred mod Q_l, by GMP.
std::vector<mpz_class> centred_coefficients(const RnsPoly& p) {
  RnsPoly c = p;
  if (c.form() == PolyForm::kEvaluation) c.to_coefficient();
  return to_bigint_centred(c.data(), c.context()->basis().prefix(c.limbs()));
}

// g_j = 5^j mod 2N.
std::vector<std::uint64_t> rotation_group(std::size_t n) {
  std::vector<std::uint64_t> g(n / 2);
  std::uint64_t x = 1;
  for (std::uint64_t& v : g) {
    v = x;
    x = x * 5 % (2 * n);
  }
  return g;
}

// ζ^e = exp(iπe/N) for e < 2N, in long double.
std::vector<LComplex> roots(std::size_t n) {
  std::vector<LComplex> r(2 * n);
  for (std::size_t e = 0; e < 2 * n; ++e) {
    r[e] = std::polar(1.0L, std::numbers::pi_v<long double> * e / static_cast<long double>(n));
  }
  return r;
}

// The definition: slot j = m(ζ^{5^j}) / scale, O(N²) in long double.
std::vector<Complex> reference_decode(std::span<const mpz_class> m, double scale) {
  const std::size_t n = m.size();
  const auto g = rotation_group(n);
  const auto zeta = roots(n);
  std::vector<Complex> z(n / 2);
  for (std::size_t j = 0; j < n / 2; ++j) {
    LComplex acc = 0;
    for (std::size_t k = 0; k < n; ++k) {
      acc += static_cast<long double>(m[k].get_d()) * zeta[(g[j] * k) % (2 * n)];
    }
    acc /= static_cast<long double>(scale);
    z[j] = {static_cast<double>(acc.real()), static_cast<double>(acc.imag())};
  }
  return z;
}

// ---------------------------------------------------------------------------------------------
// The special FFT.

class SpecialFftTest : public ::testing::TestWithParam<int> {};

TEST_P(SpecialFftTest, InverseUndoesForwardAndBack) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = std::size_t{1} << GetParam();
  const Encoder enc(test::make_ring(n, 1, 50));
  ASSERT_EQ(enc.slots(), n / 2);
  const std::vector<Complex> z = random_slots(rng, n / 2);
  std::vector<Complex> w = z;
  enc.special_ifft(w);
  enc.special_fft(w);
  EXPECT_LT(max_error(w, z), 1e-12 * max_abs(z));
  w = z;
  enc.special_fft(w);
  enc.special_ifft(w);
  EXPECT_LT(max_error(w, z), 1e-12 * max_abs(z));
}

TEST_P(SpecialFftTest, RejectsWrongSize) {
  const std::size_t n = std::size_t{1} << GetParam();
  const Encoder enc(test::make_ring(n, 1, 50));
  std::vector<Complex> w(n / 2 + 1);
  EXPECT_THROW(enc.special_fft(w), InvalidParameter);
  EXPECT_THROW(enc.special_ifft(std::span<Complex>(w).first(n / 2 - 1)), InvalidParameter);
}

INSTANTIATE_TEST_SUITE_P(LogN, SpecialFftTest, ::testing::Range(3, 16));

// ---------------------------------------------------------------------------------------------
// Encoding against the definition of the canonical embedding.

class EmbeddingTest : public ::testing::TestWithParam<std::size_t> {};

// m = round(Δ·F^{−1} z) coefficient by coefficient (F^{−1} = F^H / (N/2), O(N²)), and m(ζ^{5^j})
// matches both z (up to the rounding) and decode (to working precision).
TEST_P(EmbeddingTest, MatchesTheDefinition) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const std::size_t slots = n / 2;
  const double scale = 0x1p30;
  const auto ctx = test::make_ring(n, 2, 50);
  const Encoder enc(ctx);
  const std::vector<Complex> z = random_slots(rng, slots);
  RnsPoly p(ctx, 2);
  enc.encode(z, scale, p);
  EXPECT_EQ(p.form(), PolyForm::kEvaluation);
  const std::vector<mpz_class> m = centred_coefficients(p);

  const auto g = rotation_group(n);
  const auto zeta = roots(n);
  for (std::size_t k = 0; k < slots; ++k) {
    LComplex w = 0;
    for (std::size_t j = 0; j < slots; ++j) {
      w += LComplex(z[j].real(), z[j].imag()) * std::conj(zeta[(g[j] * k) % (2 * n)]);
    }
    w *= static_cast<long double>(scale) / static_cast<long double>(slots);
    // The FFT's error on a coefficient of size ≤ 2^30 is far below 10^−4.
    ASSERT_LE(std::abs(m[k].get_d() - static_cast<double>(w.real())), 0.5 + 1e-4) << "k = " << k;
    ASSERT_LE(std::abs(m[k + slots].get_d() - static_cast<double>(w.imag())), 0.5 + 1e-4)
        << "k = " << k + slots;
  }

  const std::vector<Complex> embedded = reference_decode(m, scale);
  // Rounding moves each coefficient by ≤ 1/2, so each slot by ≤ N/2 / Δ.
  EXPECT_LT(max_error(embedded, z), 0.5 * static_cast<double>(n) / scale);
  EXPECT_LT(max_error(enc.decode(p, scale), embedded), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Sizes, EmbeddingTest, ::testing::Values(4, 16, 64, 1024));

// ---------------------------------------------------------------------------------------------
// Round trips.

struct RoundTripCase {
  int log_n;
  std::size_t limbs;
  int bits;
};

class RoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

// The decode error is the rounding error carried through the embedding: N independent errors
// uniform in [−1/2, 1/2] make each slot's error nearly complex Gaussian with E|e|² = σ² = N/12/Δ²,
// P(|e| > t) = exp(−t²/σ²), so the largest of N/2 slots is about σ·√ln(N/2): 2^−34.3 at N = 2^12,
// 2^−32.6 at N = 2^15 for Δ = 2^40. Measured (worst of 10 seeds): 34.2, 33.5, 33.1, 32.6 bits of
// precision at N = 2^12 … 2^15. Asserted: 16σ (2^−31.8 … 2^−30.3), exceeded with probability
// below N·e^−256, and below 2^−30.
TEST_P(RoundTripTest, ComplexValuesAtScale2To40) {
  POLYHE_SEEDED_RNG(rng);
  const auto [log_n, limbs, bits] = GetParam();
  const std::size_t n = std::size_t{1} << log_n;
  const double scale = 0x1p40;
  const auto ctx = test::make_ring(n, limbs, bits);
  const Encoder enc(ctx);
  const std::vector<Complex> z = random_slots(rng, enc.slots());
  RnsPoly p(ctx, limbs);
  enc.encode(z, scale, p);
  const double bound = 16.0 * std::sqrt(static_cast<double>(n) / 12.0) / scale;
  ASSERT_LT(bound, 0x1p-30);
  const double err = max_error(enc.decode(p, scale), z);
  EXPECT_LT(err, bound) << "precision " << -std::log2(err) << " bits";
}

TEST_P(RoundTripTest, RealValues) {
  POLYHE_SEEDED_RNG(rng);
  const auto [log_n, limbs, bits] = GetParam();
  const std::size_t n = std::size_t{1} << log_n;
  const double scale = 0x1p40;
  const auto ctx = test::make_ring(n, limbs, bits);
  const Encoder enc(ctx);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(enc.slots());
  for (double& v : x) v = u(rng.engine());
  RnsPoly p(ctx, limbs);
  enc.encode(x, scale, p);
  const double bound = 16.0 * std::sqrt(static_cast<double>(n) / 12.0) / scale;
  const std::vector<Complex> z = enc.decode(p, scale);
  const std::vector<double> re = enc.decode_real(p, scale);
  ASSERT_EQ(re.size(), x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_LT(std::abs(z[i] - Complex(x[i], 0.0)), bound) << "slot " << i;
    ASSERT_EQ(re[i], z[i].real());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, RoundTripTest,
                         ::testing::Values(RoundTripCase{12, 1, 50}, RoundTripCase{12, 2, 50},
                                           RoundTripCase{12, 5, 60}, RoundTripCase{13, 2, 60},
                                           RoundTripCase{14, 3, 50}, RoundTripCase{15, 2, 50}));

TEST(EncoderTest, FewerValuesArePaddedWithZeros) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 1024;
  const auto ctx = test::make_ring(n, 2, 50);
  const Encoder enc(ctx);
  const std::vector<Complex> z = random_slots(rng, 100);
  RnsPoly p(ctx, 2);
  enc.encode(z, 0x1p40, p);
  std::vector<Complex> expected(enc.slots());
  std::copy(z.begin(), z.end(), expected.begin());
  EXPECT_LT(max_error(enc.decode(p, 0x1p40), expected), 0x1p-30);
  enc.encode(std::span<const Complex>(), 0x1p40, p);  // no values at all: the zero polynomial
  for (const std::uint64_t w : p.data()) ASSERT_EQ(w, 0U);
}

// Every coefficient is exactly round(scale · special_ifft(z)), both on the int64 path and beyond
// 2^63 (scale 2^60, values up to 2^8: coefficients up to ~2^68) where residues come from the
// double's mantissa and exponent.
TEST(EncoderTest, CoefficientsAreExactOnBothPaths) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 4096;
  const auto ctx = test::make_ring(n, 4, 60);
  const Encoder enc(ctx);
  for (const auto& [scale, radius] : {std::pair{0x1p40, 1.0}, std::pair{0x1p60, 256.0}}) {
    SCOPED_TRACE("scale = 2^" + std::to_string(std::log2(scale)));
    const std::vector<Complex> z = random_slots(rng, enc.slots(), radius);
    std::vector<Complex> w = z;
    enc.special_ifft(w);
    RnsPoly p(ctx, 3);
    enc.encode(z, scale, p);
    const std::vector<mpz_class> m = centred_coefficients(p);
    bool beyond_int64 = false;
    for (std::size_t k = 0; k < n; ++k) {
      const double x = k < n / 2 ? w[k].real() : w[k - n / 2].imag();
      const double c = std::nearbyint(x * scale);
      beyond_int64 |= std::abs(c) >= 0x1p63;
      ASSERT_EQ(m[k], mpz_class(c)) << "coefficient " << k;
    }
    EXPECT_EQ(beyond_int64, scale > 0x1p50);
    const std::vector<Complex> back = enc.decode(p, scale);
    EXPECT_LT(max_error(back, z), 1e-9 * radius);
  }
}

// decode's reconstruction (one limb, ≤ 126 bits, double Horner, GMP beyond 1000 bits) against
// GMP, on uniformly random polynomials: coefficients anywhere in (−Q/2, Q/2]. The scale 2^{60(L−1)}
// keeps even 1080-bit coefficients in double range.
TEST(EncoderTest, DecodeReconstructsLikeGmpAtEveryWidth) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 64;
  const auto ctx = test::make_ring(n, 18, 60);
  const Encoder enc(ctx);
  for (const std::size_t limbs : {1, 2, 3, 9, 17, 18}) {
    SCOPED_TRACE("limbs = " + std::to_string(limbs));
    const RnsPoly p = test::random_poly(rng, ctx, limbs);
    const int shift = 60 * (static_cast<int>(limbs) - 1);
    const std::vector<mpz_class> m = centred_coefficients(p);
    const auto scaled = [&](const mpz_class& x) {
      long e = 0;
      const double d = mpz_get_d_2exp(&e, x.get_mpz_t());
      return std::ldexp(d, static_cast<int>(e) - shift);
    };
    std::vector<Complex> expected(n / 2);
    for (std::size_t k = 0; k < n / 2; ++k) expected[k] = {scaled(m[k]), scaled(m[k + n / 2])};
    enc.special_fft(expected);
    const std::vector<Complex> got = enc.decode(p, std::ldexp(1.0, shift));
    EXPECT_LT(max_error(got, expected), 1e-13 * max_abs(expected));
  }
}

// decode's short reconstruction: each coefficient from the first primes (their product Q' the
// largest below 2^126), accepted only where it agrees with every other prime; elsewhere the full
// reconstruction. Coefficients below 2^62 (the check's 64-bit form; with 0, ±(2^63 − 1) and
// −q_i for a prime beyond the prefix, a zero residue of a negative value; and Q' + 5, whose
// candidate 5 is wrong), below 2^100 (its
// 128-bit form; all accepted), and the boundary: ±(Q' − 1)/2 lie in
// the prefix's range, ±(Q' + 1)/2 just beyond it (the prefix alone would give ∓(Q' − 1)/2, off by
// Q', twice the largest value here). Those sit in the first of two blocks of 64 coefficients,
// so accepted and recomputed blocks meet in one polynomial; through GMP (60-bit primes, 18 limbs:
// 1080 bits) and through the double Horner (40-bit primes).
TEST(EncoderTest, DecodeChecksTheShortReconstructionAgainstEveryPrime) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 128;
  const double scale = 0x1p60;
  for (const auto& [bits, ring_limbs, levels] :
       {std::tuple<int, std::size_t, std::vector<std::size_t>>{60, 18, {2, 3, 9, 18}},
        std::tuple<int, std::size_t, std::vector<std::size_t>>{40, 9, {3, 4, 9}}}) {
    const auto ctx = test::make_ring(n, ring_limbs, bits);
    const Encoder enc(ctx);
    for (const std::size_t limbs : levels) {
      const RnsBasis basis = ctx->basis().prefix(limbs);
      mpz_class prefix = 1;  // Q'
      for (std::size_t i = 0; i < limbs; ++i) {
        const mpz_class next = prefix * basis.prime(i);
        if (mpz_sizeinbase(next.get_mpz_t(), 2) > 126) break;
        prefix = next;
      }
      for (const int kind : {0, 1, 2}) {  // 64-bit, 128-bit, boundary
        const bool boundary = kind == 2;
        if (boundary && prefix == big_product(basis)) continue;  // nothing lies beyond
        SCOPED_TRACE(std::to_string(bits) + "-bit primes, limbs = " + std::to_string(limbs) +
                     ", kind " + std::to_string(kind));
        std::vector<mpz_class> m(n);
        for (mpz_class& x : m) {
          mpz_class hi = kind == 0 ? 0 : rng.uniform(0, (std::uint64_t{1} << 36) - 1);
          mpz_class lo = rng.uniform(0, kind == 0 ? (std::uint64_t{1} << 62) : ~std::uint64_t{0});
          x = (hi << 64) + lo;
          if (rng.uniform(0, 1) != 0) x = -x;
        }
        if (kind == 0) {
          const mpz_class max64 = (mpz_class(1) << 63) - 1;
          m[1] = 0;
          m[2] = max64;
          m[3] = -max64;
          if (limbs > 3) m[4] = -mpz_class(basis.prime(limbs - 1));
          // Q' + 5: the prefix alone gives 5, a 64-bit candidate the other primes refuse.
          if (prefix != big_product(basis)) m[9] = prefix + 5;
        }
        if (boundary) {
          const mpz_class inside = (prefix - 1) / 2;
          m[5] = inside + 1;
          m[6] = inside;
          m[7] = -inside;
          m[40] = -inside - 1;
        }
        RnsPoly p(ctx, limbs);
        from_bigint(m, basis, p.data());
        std::vector<Complex> expected(n / 2);
        const auto scaled = [&](const mpz_class& x) { return x.get_d() / scale; };
        for (std::size_t k = 0; k < n / 2; ++k) expected[k] = {scaled(m[k]), scaled(m[k + n / 2])};
        enc.special_fft(expected);
        EXPECT_LT(max_error(enc.decode(p, scale), expected), 1e-13 * max_abs(expected));
      }
    }
  }
}

// Decode reconstructs the coefficients in ranges of blocks on the pool: on 1 to 4 threads the
// values are the same bit for bit, and right. Two polynomials each: every coefficient below 2^62
// (the one-product checks), and every one of 100-116 bits with some just beyond Q'/2 (the
// 128-bit checks, and the blocks that need every prime: the first, middle ones, the last), taken
// by the double Horner (9 40-bit primes) and by GMP (18 60-bit primes, Q above kMaxHornerBits).
// The magnitudes within a polynomial are close, so that a block left out shows in the slots.
TEST(EncoderTest, DecodeIsTheSameOnAnyThreadCount) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 2048;  // 32 blocks of 64 coefficients
  const unsigned before = thread_count();
  for (const auto& [bits, limbs] : {std::pair<int, std::size_t>{40, 9}, {60, 18}}) {
    const auto ctx = test::make_ring(n, limbs, bits);
    const Encoder enc(ctx);
    const RnsBasis basis = ctx->basis();
    mpz_class prefix = 1;  // Q', as the encoder chooses it
    for (std::size_t i = 0; i < limbs; ++i) {
      const mpz_class next = prefix * basis.prime(i);
      if (mpz_sizeinbase(next.get_mpz_t(), 2) > 126) break;
      prefix = next;
    }
    for (const bool wide : {false, true}) {
      SCOPED_TRACE(std::to_string(limbs) + " primes of " + std::to_string(bits) + " bits, " +
                   (wide ? "wide" : "narrow"));
      std::vector<mpz_class> m(n);
      for (mpz_class& x : m) {
        x = mpz_class(rng.uniform(std::uint64_t{1} << 40, (std::uint64_t{1} << 62) - 1));
        if (wide) x <<= 38 + rng.uniform(0, 16);
        if (rng.uniform(0, 1) != 0) x = -x;
      }
      if (wide) {
        for (const std::size_t c : {std::size_t{3}, std::size_t{64 * 5 + 1}, std::size_t{64 * 17},
                                    std::size_t{64 * 18 + 63}, n - 1}) {
          m[c] = prefix / 2 + 1 + rng.uniform(0, 1000);
          if (c % 2 == 0) m[c] = -m[c];
        }
      }
      RnsPoly p(ctx, limbs);
      from_bigint(m, basis, p.data());
      const double scale = wide ? 0x1p100 : 0x1p50;
      std::vector<Complex> expected(n / 2);
      const auto scaled = [&](const mpz_class& x) { return x.get_d() / scale; };
      for (std::size_t k = 0; k < n / 2; ++k) expected[k] = {scaled(m[k]), scaled(m[k + n / 2])};
      enc.special_fft(expected);
      std::vector<Complex> first;
      for (const unsigned threads : {1U, 2U, 3U, 4U}) {
        set_thread_count(threads);
        const std::vector<Complex> got = enc.decode(p, scale);
        EXPECT_LT(max_error(got, expected), 1e-13 * max_abs(expected)) << threads << " threads";
        if (first.empty()) {
          first = got;
        } else {
          EXPECT_EQ(got, first) << threads << " threads against 1";
        }
      }
    }
  }
  set_thread_count(before);
}

// σ_5 rotates left by one, σ_{5^r} by r (r < 0 as 5^{r mod N/2}), σ_{2N−1} conjugates, in
// either form.
TEST(EncoderTest, AutomorphismsRotateAndConjugateTheSlots) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 1024;
  const std::size_t slots = n / 2;
  const double scale = 0x1p40;
  const auto ctx = test::make_ring(n, 2, 50);
  const Encoder enc(ctx);
  const std::vector<Complex> z = random_slots(rng, slots);
  RnsPoly p(ctx, 2);
  enc.encode(z, scale, p);
  RnsPoly p_coeff = p;
  p_coeff.to_coefficient();
  for (const long r : {1L, 2L, 7L, 300L, -1L, -5L}) {
    SCOPED_TRACE("r = " + std::to_string(r));
    const std::size_t steps =
        static_cast<std::size_t>((r % static_cast<long>(slots) + slots) % slots);
    std::uint64_t k = 1;
    for (std::size_t i = 0; i < steps; ++i) k = k * 5 % (2 * n);
    std::vector<Complex> expected(slots);
    for (std::size_t j = 0; j < slots; ++j) expected[j] = z[(j + steps) % slots];
    EXPECT_LT(max_error(enc.decode(p.automorphism(k), scale), expected), 0x1p-30);
    EXPECT_LT(max_error(enc.decode(p_coeff.automorphism(k), scale), expected), 0x1p-30);
  }
  std::vector<Complex> conj(slots);
  for (std::size_t j = 0; j < slots; ++j) conj[j] = std::conj(z[j]);
  EXPECT_LT(max_error(enc.decode(p.automorphism(2 * n - 1), scale), conj), 0x1p-30);
  EXPECT_LT(max_error(enc.decode(p_coeff.automorphism(2 * n - 1), scale), conj), 0x1p-30);
}

TEST(EncoderTest, SumsAndProductsActSlotWise) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 4096;
  const std::size_t slots = n / 2;
  const double scale = 0x1p30;
  const auto ctx = test::make_ring(n, 3, 50);  // Q/2 ≈ 2^149 holds Δ² = 2^60 times the values
  const Encoder enc(ctx);
  const std::vector<Complex> a = random_slots(rng, slots);
  const std::vector<Complex> b = random_slots(rng, slots);
  RnsPoly pa(ctx, 3);
  RnsPoly pb(ctx, 3);
  enc.encode(a, scale, pa);
  enc.encode(b, scale, pb);
  std::vector<Complex> sum(slots);
  std::vector<Complex> product(slots);
  for (std::size_t j = 0; j < slots; ++j) {
    sum[j] = a[j] + b[j];
    product[j] = a[j] * b[j];
  }
  RnsPoly s = pa;
  s.add(pb);
  EXPECT_LT(max_error(enc.decode(s, scale), sum), 0x1p-20);
  RnsPoly m = pa;
  m.multiply(pb);
  // Each factor carries a rounding error of ~2^−24 here (Δ = 2^30), so the product ~2^−23.
  EXPECT_LT(max_error(enc.decode(m, scale * scale), product), 0x1p-18);
}

TEST(EncoderTest, OutputFormAndLevelComeFromOut) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 256;
  const auto ctx = test::make_ring(n, 3, 50);
  const Encoder enc(ctx);
  const std::vector<Complex> z = random_slots(rng, enc.slots());
  RnsPoly from_coeff(ctx, 2, PolyForm::kCoefficient);
  RnsPoly from_eval = test::random_poly(rng, ctx, 2);
  from_eval.to_evaluation();
  enc.encode(z, 0x1p40, from_coeff);
  enc.encode(z, 0x1p40, from_eval);
  EXPECT_EQ(from_coeff.form(), PolyForm::kEvaluation);
  EXPECT_EQ(from_eval.form(), PolyForm::kEvaluation);
  EXPECT_EQ(from_coeff.limbs(), 2U);
  EXPECT_EQ(test::to_vector(from_coeff.data()), test::to_vector(from_eval.data()));
  RnsPoly coeff = from_coeff;
  coeff.to_coefficient();
  EXPECT_EQ(enc.decode(coeff, 0x1p40), enc.decode(from_coeff, 0x1p40));
}

// ---------------------------------------------------------------------------------------------
// Bad input.

TEST(EncoderTest, RejectsBadInput) {
  const std::size_t n = 64;
  const auto ctx = test::make_ring(n, 1, 50);
  const Encoder enc(ctx);
  RnsPoly p(ctx, 1);
  const auto message = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const InvalidParameter& e) {
      return e.what();
    }
    return "no InvalidParameter";
  };
  std::vector<Complex> z(enc.slots() + 1);
  EXPECT_NE(message([&] { enc.encode(z, 0x1p20, p); }).find("33 values"), std::string::npos);
  z.resize(enc.slots());
  z[3] = {std::nan(""), 0.0};
  EXPECT_NE(message([&] { enc.encode(z, 0x1p20, p); }).find("values[3]"), std::string::npos);
  z[3] = 0.0;
  z[7] = {0.0, INFINITY};
  EXPECT_NE(message([&] { enc.encode(z, 0x1p20, p); }).find("values[7]"), std::string::npos);
  std::vector<double> x(enc.slots());
  x[5] = -INFINITY;
  EXPECT_NE(message([&] { enc.encode(x, 0x1p20, p); }).find("values[5]"), std::string::npos);
  x[5] = 0.0;
  for (const double scale : {0.0, -1.0, std::nan(""), double{INFINITY}}) {
    EXPECT_NE(message([&] { enc.encode(x, scale, p); }).find("scale"), std::string::npos);
    EXPECT_THROW((void)enc.decode(p, scale), InvalidParameter);
  }
  RnsPoly other(test::make_ring(n, 1, 50), 1);
  EXPECT_THROW(enc.encode(x, 0x1p20, other), MismatchedContext);
  EXPECT_THROW((void)enc.decode(other, 0x1p20), MismatchedContext);
}

// A constant slot vector c encodes to the constant polynomial c·Δ, computed exactly: at Δ = 1 the
// largest allowed coefficient is (q − 1)/2 and the next one is refused, with out untouched.
TEST(EncoderTest, RejectsCoefficientsReachingHalfTheModulus) {
  const std::size_t n = 64;
  const auto ctx = test::make_ring(n, 1, 40);
  const Encoder enc(ctx);
  const std::uint64_t q = ctx->basis().prime(0);
  const double largest = static_cast<double>((q - 1) / 2);
  RnsPoly p(ctx, 1);
  enc.encode(std::vector<double>(enc.slots(), -largest), 1.0, p);
  EXPECT_EQ(centred_coefficients(p)[0], mpz_class(-largest));
  const std::vector<std::uint64_t> before = test::to_vector(p.data());
  std::string what;
  try {
    enc.encode(std::vector<double>(enc.slots(), largest + 1), 1.0, p);
  } catch (const InvalidParameter& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("exceed the modulus"), std::string::npos) << what;
  EXPECT_NE(what.find("smaller scale"), std::string::npos) << what;
  EXPECT_EQ(test::to_vector(p.data()), before);
  EXPECT_THROW(enc.encode(std::vector<Complex>(enc.slots(), 1.0), 0x1p60, p), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
