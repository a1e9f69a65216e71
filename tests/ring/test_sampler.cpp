#include "polyhe/ring/sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "ring/ring_cases.hpp"

namespace polyhe {
namespace {

using test::TestRng;

Seed seed_from(TestRng& rng) {
  Seed s;
  for (std::uint8_t& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

std::vector<std::uint8_t> bytes_of(Prng& prng, std::size_t n) {
  std::vector<std::uint8_t> out(n);
  prng.fill(out);
  return out;
}

/// The residue r mod q as the representative in (−q/2, q/2].
std::int64_t centred(std::uint64_t r, std::uint64_t q) {
  return r > q / 2 ? static_cast<std::int64_t>(r) - static_cast<std::int64_t>(q)
                   : static_cast<std::int64_t>(r);
}

/// x mod q in [0, q), by 128-bit arithmetic (the reference for the samplers' reductions).
std::uint64_t mod_ref(std::int64_t x, std::uint64_t q) {
  const __int128 r = static_cast<__int128>(x) % static_cast<__int128>(q);
  return static_cast<std::uint64_t>(r < 0 ? r + q : r);
}

/// Every limb i of p equals coeffs mod q_i, and p is in coefficient form.
void expect_limbs_hold(const RnsPoly& p, const std::vector<std::int64_t>& coeffs) {
  ASSERT_EQ(p.form(), PolyForm::kCoefficient);
  for (std::size_t i = 0; i < p.limbs(); ++i) {
    const std::uint64_t q = p.context()->basis().prime(i);
    const auto limb = p.limb(i);
    for (std::size_t j = 0; j < coeffs.size(); ++j) {
      ASSERT_EQ(limb[j], mod_ref(coeffs[j], q)) << "limb " << i << ", coefficient " << j;
    }
  }
}

/// The signed coefficients of a polynomial with small entries, read from limb 0.
std::vector<std::int64_t> signed_coeffs(const RnsPoly& p) {
  const std::uint64_t q = p.context()->basis().prime(0);
  std::vector<std::int64_t> v;
  for (std::uint64_t r : p.limb(0)) v.push_back(centred(r, q));
  return v;
}

// --- Prng ---------------------------------------------------------------------------------------

TEST(PrngTest, SameSeedAndStreamGiveSameBytes) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  Prng a(seed, 7), b(seed, 7);
  EXPECT_EQ(bytes_of(a, 10000), bytes_of(b, 10000));
}

TEST(PrngTest, DifferentStreamOrSeedGiveDifferentBytes) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  Seed other = seed;
  other[rng.uniform(0, kSeedBytes - 1)] ^= 1;
  Prng base(seed, 5), stream(seed, 6), high_stream(seed, 5 | (std::uint64_t{1} << 63)),
      seeded(other, 5);
  const auto b = bytes_of(base, 256);
  EXPECT_NE(b, bytes_of(stream, 256));
  EXPECT_NE(b, bytes_of(high_stream, 256));
  EXPECT_NE(b, bytes_of(seeded, 256));
}

TEST(PrngTest, FillInPiecesEqualsFillAtOnce) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  const std::size_t total = 40000;
  Prng whole(seed, 3);
  const auto expected = bytes_of(whole, total);
  Prng pieces(seed, 3);
  std::vector<std::uint8_t> got;
  while (got.size() < total) {
    const std::size_t left = total - got.size();
    switch (rng.uniform(0, 3)) {
      case 0: {  // a few bytes, often unaligned
        auto b = bytes_of(pieces, std::min<std::size_t>(left, rng.uniform(0, 13)));
        got.insert(got.end(), b.begin(), b.end());
        break;
      }
      case 1: {  // large: straight-to-output path
        auto b = bytes_of(pieces, std::min<std::size_t>(left, rng.uniform(60, 9000)));
        got.insert(got.end(), b.begin(), b.end());
        break;
      }
      case 2: {
        if (left < 8) continue;
        const std::uint64_t w = pieces.next_u64();
        for (int k = 0; k < 8; ++k) got.push_back(static_cast<std::uint8_t>(w >> (8 * k)));
        break;
      }
      default: {
        std::vector<std::uint64_t> w(std::min<std::size_t>(left / 8, rng.uniform(0, 700)));
        pieces.fill_u64(w);
        for (std::uint64_t x : w) {
          for (int k = 0; k < 8; ++k) got.push_back(static_cast<std::uint8_t>(x >> (8 * k)));
        }
      }
    }
  }
  EXPECT_EQ(got, expected);
}

// skip(b) leaves the stream where reading b bytes would: after partial reads of every kind
// (inside the buffer, at its end, past it in whole blocks) and for skips inside the buffer, of
// whole blocks, across the 4 KiB buffer and far beyond it.
TEST(PrngTest, SkipEqualsReadingPast) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  for (const std::size_t before : {0U, 1U, 8U, 63U, 64U, 100U, 4095U, 4096U, 4097U, 8192U + 24U}) {
    for (const std::uint64_t gap : {0U, 1U, 7U, 8U, 63U, 64U, 65U, 4000U, 4095U, 4096U, 4097U,
                                    64U * 1024U + 3U, 3U * 65536U * 8U}) {
      Prng read(seed, 9), skipped(seed, 9);
      (void)bytes_of(read, before);
      (void)bytes_of(skipped, before);
      (void)bytes_of(read, static_cast<std::size_t>(gap));
      skipped.skip(gap);
      EXPECT_EQ(bytes_of(skipped, 5000), bytes_of(read, 5000))
          << "after " << before << " bytes, skipping " << gap;
      EXPECT_EQ(skipped.next_u64(), read.next_u64()) << before << ", " << gap;
    }
  }
}

// sample_encryption_noise draws on the pool exactly what sample_ternary, then sample_error twice
// draw from the same stream one after the other, and leaves the stream past all three (at sizes
// inside one buffer and far beyond it); sizes that differ or spans that overlap are refused.
TEST(SamplerTest, EncryptionNoiseIsTheThreeDrawsInOrder) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  for (const std::size_t n : {1U, 16U, 1024U, 16384U}) {
    Prng serial(seed, 4), pooled(seed, 4);
    (void)bytes_of(serial, 40);  // not at the start of a block
    (void)bytes_of(pooled, 40);
    std::vector<std::int64_t> v(n), e0(n), e1(n), pv(n), pe0(n), pe1(n);
    sample_ternary(serial, v);
    sample_error(serial, e0);
    sample_error(serial, e1);
    sample_encryption_noise(pooled, pv, pe0, pe1);
    EXPECT_EQ(pv, v) << n;
    EXPECT_EQ(pe0, e0) << n;
    EXPECT_EQ(pe1, e1) << n;
    EXPECT_EQ(pooled.next_u64(), serial.next_u64()) << n;
  }
  std::vector<std::int64_t> a(8), b(8), c(7);
  Prng prng(seed);
  EXPECT_THROW(sample_encryption_noise(prng, a, b, c), InvalidParameter);
  EXPECT_THROW(sample_encryption_noise(prng, std::span(a).first(7), std::span(a).subspan(1, 7),
                                       std::span(b).first(7)),
               InvalidParameter);
  EXPECT_THROW(sample_encryption_noise(prng, std::span(a).first(4), std::span(b).first(4),
                                       std::span(a).subspan(3, 4)),
               InvalidParameter);
}

TEST(PrngTest, CopyContinuesTheSameStream) {
  POLYHE_SEEDED_RNG(rng);
  Prng a(seed_from(rng));
  (void)bytes_of(a, 1234);
  Prng b = a;
  EXPECT_EQ(bytes_of(a, 5000), bytes_of(b, 5000));
}

TEST(SeedSourceTest, SeededGivesTheMasterStreamAndCopiesContinueIt) {
  POLYHE_SEEDED_RNG(rng);
  const Seed master = seed_from(rng);
  SeedSource source(master);
  Prng reference(master, 0);
  Seed expected;
  reference.fill(expected);
  EXPECT_EQ(source.next(), expected);
  SeedSource copy = source;
  reference.fill(expected);
  EXPECT_EQ(source.next(), expected);
  EXPECT_EQ(copy.next(), expected);
  EXPECT_NE(SeedSource().next(), SeedSource().next());  // OS seeds
}

TEST(SeedSourceTest, ThreadsSharingOneSourceGetTheStreamsSeedsOnceEach) {
  POLYHE_SEEDED_RNG(rng);
  const Seed master = seed_from(rng);
  constexpr std::size_t kThreads = 4, kEach = 200;
  SeedSource shared(master);
  std::vector<std::vector<Seed>> got(kThreads);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < kEach; ++i) got[t].push_back(shared.next());
    });
  }
  for (auto& th : threads) th.join();
  std::vector<Seed> all, expected(kThreads * kEach);
  for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
  Prng reference(master, 0);
  for (Seed& s : expected) reference.fill(s);
  std::sort(all.begin(), all.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
}

TEST(PrngTest, RandomSeedsDiffer) {
  EXPECT_NE(random_seed(), random_seed());
}

// RFC 8439 §2.3.2-style test vector #1 (App. A.1): key 0, nonce 0, counter 0; checked against
// libsodium's crypto_stream_chacha20_ietf_xor_ic.
TEST(PrngTest, ZeroSeedIsTheChaCha20KeystreamOfKeyZero) {
  const std::array<std::uint8_t, 64> expected = {
      0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53,
      0x86, 0xbd, 0x28, 0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a, 0xa8, 0x36,
      0xef, 0xcc, 0x8b, 0x77, 0x0d, 0xc7, 0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48,
      0x8d, 0x77, 0x24, 0xe0, 0x3f, 0xb8, 0xd8, 0x4a, 0x37, 0x6a, 0x43, 0xb8, 0xf4,
      0x15, 0x18, 0xa1, 0x1c, 0xc3, 0x87, 0xb6, 0x69, 0xb2, 0xee, 0x65, 0x86};
  Prng prng(Seed{}, 0);
  const auto got = bytes_of(prng, 64);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin()));
}

// RFC 8439 §2.4.2: key 00 01 … 1f, nonce 00 00 00 00 00 00 00 4a 00 00 00 00, counter 1. In the
// Prng layout that nonce is stream 0x4a000000 (nonce bytes 4..11, little endian) and counter 1
// is byte 64 of the stream.
TEST(PrngTest, StreamLayoutReproducesRfc8439Encryption) {
  Seed key;
  for (std::size_t i = 0; i < kSeedBytes; ++i) key[i] = static_cast<std::uint8_t>(i);
  const std::string plaintext =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  const std::vector<std::uint8_t> ciphertext = {
      0x6e, 0x2e, 0x35, 0x9a, 0x25, 0x68, 0xf9, 0x80, 0x41, 0xba, 0x07, 0x28, 0xdd, 0x0d, 0x69,
      0x81, 0xe9, 0x7e, 0x7a, 0xec, 0x1d, 0x43, 0x60, 0xc2, 0x0a, 0x27, 0xaf, 0xcc, 0xfd, 0x9f,
      0xae, 0x0b, 0xf9, 0x1b, 0x65, 0xc5, 0x52, 0x47, 0x33, 0xab, 0x8f, 0x59, 0x3d, 0xab, 0xcd,
      0x62, 0xb3, 0x57, 0x16, 0x39, 0xd6, 0x24, 0xe6, 0x51, 0x52, 0xab, 0x8f, 0x53, 0x0c, 0x35,
      0x9f, 0x08, 0x61, 0xd8, 0x07, 0xca, 0x0d, 0xbf, 0x50, 0x0d, 0x6a, 0x61, 0x56, 0xa3, 0x8e,
      0x08, 0x8a, 0x22, 0xb6, 0x5e, 0x52, 0xbc, 0x51, 0x4d, 0x16, 0xcc, 0xf8, 0x06, 0x81, 0x8c,
      0xe9, 0x1a, 0xb7, 0x79, 0x37, 0x36, 0x5a, 0xf9, 0x0b, 0xbf, 0x74, 0xa3, 0x5b, 0xe6, 0xb4,
      0x0b, 0x8e, 0xed, 0xf2, 0x78, 0x5e, 0x42, 0x87, 0x4d};
  ASSERT_EQ(plaintext.size(), ciphertext.size());
  Prng prng(key, 0x4a000000);
  (void)bytes_of(prng, 64);
  const auto ks = bytes_of(prng, plaintext.size());
  for (std::size_t i = 0; i < plaintext.size(); ++i) {
    EXPECT_EQ(static_cast<std::uint8_t>(plaintext[i]) ^ ks[i], ciphertext[i]) << "byte " << i;
  }
}

// --- uniform ------------------------------------------------------------------------------------

TEST(SamplerTest, UniformIsBelowEachPrimeAndSpreadOverIt) {
  POLYHE_SEEDED_RNG(rng);
  constexpr std::size_t kN = 1 << 14, kLimbs = 3, kBuckets = 16;
  const auto ctx = test::make_ring(kN, kLimbs, 50);
  RnsPoly p(ctx, kLimbs, PolyForm::kEvaluation);
  Prng prng(seed_from(rng));
  sample_uniform(prng, p);
  EXPECT_EQ(p.form(), PolyForm::kEvaluation);
  for (std::size_t i = 0; i < kLimbs; ++i) {
    const std::uint64_t q = ctx->basis().prime(i);
    std::array<double, kBuckets> count{};
    for (std::uint64_t r : p.limb(i)) {
      ASSERT_LT(r, q);
      count[static_cast<std::size_t>(mul_wide<std::uint64_t>(r, kBuckets) / q)] += 1;
    }
    // χ² with 15 degrees of freedom: mean 15, P(χ² > 60) ≈ 1e-7.
    const double expected = static_cast<double>(kN) / kBuckets;
    double chi2 = 0;
    for (double c : count) chi2 += (c - expected) * (c - expected) / expected;
    EXPECT_LT(chi2, 60.0) << "limb " << i;
  }
  EXPECT_NE(test::to_vector(p.limb(0)), test::to_vector(p.limb(1)));
}

TEST(SamplerTest, UniformIsDeterministic) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(256, 2);
  const Seed seed = seed_from(rng);
  RnsPoly a(ctx, 2), b(ctx, 2);
  Prng pa(seed, 1), pb(seed, 1);
  sample_uniform(pa, a);
  sample_uniform(pb, b);
  EXPECT_EQ(test::to_vector(a.data()), test::to_vector(b.data()));
}

// --- ternary ------------------------------------------------------------------------------------

TEST(SamplerTest, TernaryIsUniformOnMinusOneZeroOne) {
  POLYHE_SEEDED_RNG(rng);
  constexpr std::size_t kN = 1 << 14;
  std::vector<std::int64_t> v(kN);
  Prng prng(seed_from(rng));
  sample_ternary(prng, v);
  std::map<std::int64_t, double> count;
  for (std::int64_t x : v) count[x] += 1;
  ASSERT_EQ(count.size(), 3U);
  const double mean = kN / 3.0, sd = std::sqrt(kN * (1.0 / 3) * (2.0 / 3));
  for (std::int64_t x : {-1, 0, 1}) EXPECT_NEAR(count[x], mean, 5 * sd) << "value " << x;
}

TEST(SamplerTest, TernaryPolyHoldsOneIntegerInEveryLimb) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(1024, 3);
  const Seed seed = seed_from(rng);
  RnsPoly p(ctx, 3, PolyForm::kEvaluation);  // the content is replaced, whatever its form
  Prng prng(seed, 2), replay(seed, 2);
  sample_ternary(prng, p);
  std::vector<std::int64_t> v(1024);
  sample_ternary(replay, v);
  expect_limbs_hold(p, v);
}

// --- fixed weight -------------------------------------------------------------------------------

TEST(SamplerTest, FixedWeightHasExactlyHNonzeros) {
  POLYHE_SEEDED_RNG(rng);
  const Seed seed = seed_from(rng);
  for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{256}}) {
    for (std::size_t h : {std::size_t{0}, std::size_t{1}, std::size_t{64}, n / 2, n}) {
      if (h > n) continue;
      std::vector<std::int64_t> v(n, 7);
      Prng prng(seed, n * 1000 + h), replay(seed, n * 1000 + h);
      sample_ternary_fixed_weight(prng, h, v);
      const auto nonzero = std::count_if(v.begin(), v.end(), [](std::int64_t x) { return x; });
      EXPECT_EQ(static_cast<std::size_t>(nonzero), h) << "n = " << n << ", h = " << h;
      for (std::int64_t x : v) ASSERT_TRUE(x == -1 || x == 0 || x == 1) << x;
      std::vector<std::int64_t> w(n);
      sample_ternary_fixed_weight(replay, h, w);
      EXPECT_EQ(v, w);
    }
  }
}

TEST(SamplerTest, FixedWeightSignsAreBalancedAndPositionsSpread) {
  POLYHE_SEEDED_RNG(rng);
  Prng prng(seed_from(rng));
  constexpr std::size_t kN = 1 << 14;
  std::vector<std::int64_t> v(kN);
  sample_ternary_fixed_weight(prng, kN / 2, v);
  const auto plus = std::count(v.begin(), v.end(), 1);
  EXPECT_NEAR(static_cast<double>(plus), kN / 4.0, 5 * std::sqrt(kN / 2.0) / 2);
  // Every position is hit over 200 draws of weight 8 out of 64: P(miss) < 64 · (7/8)^200 < 1e-9.
  std::vector<std::int64_t> small(64);
  std::array<int, 64> hits{};
  for (int draw = 0; draw < 200; ++draw) {
    sample_ternary_fixed_weight(prng, 8, small);
    for (std::size_t j = 0; j < small.size(); ++j) hits[j] += small[j] != 0;
  }
  for (std::size_t j = 0; j < hits.size(); ++j) EXPECT_GT(hits[j], 0) << "position " << j;
}

TEST(SamplerTest, FixedWeightPolyHoldsOneIntegerInEveryLimb) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(1024, 3);
  RnsPoly p(ctx, 3);
  Prng prng(seed_from(rng));
  sample_ternary_fixed_weight(prng, 64, p);
  const auto v = signed_coeffs(p);
  EXPECT_EQ(std::count_if(v.begin(), v.end(), [](std::int64_t x) { return x; }), 64);
  expect_limbs_hold(p, v);
}

// --- error --------------------------------------------------------------------------------------

TEST(SamplerTest, ErrorIsCentredBinomialWithEta21) {
  POLYHE_SEEDED_RNG(rng);
  constexpr std::size_t kN = 1 << 14;
  const auto ctx = test::make_ring(kN, 2);
  RnsPoly p(ctx, 2);
  Prng prng(seed_from(rng));
  sample_error(prng, p);
  const auto v = signed_coeffs(p);
  expect_limbs_hold(p, v);
  double sum = 0, sum2 = 0;
  for (std::int64_t x : v) {
    ASSERT_LE(std::abs(x), kErrorEta);
    sum += static_cast<double>(x);
    sum2 += static_cast<double>(x * x);
  }
  const double mean = sum / kN, var = sum2 / kN - mean * mean;
  // Standard errors: √(10.5/N) ≈ 0.025 for the mean, ≈ 10.5·√(2/N) ≈ 0.12 for the variance.
  EXPECT_NEAR(mean, 0.0, 0.13);
  EXPECT_NEAR(var, kErrorEta / 2.0, 0.6);
}

// --- bounded uniform ----------------------------------------------------------------------------

TEST(SamplerTest, BoundedUniformCoversItsRangeEvenly) {
  POLYHE_SEEDED_RNG(rng);
  constexpr std::size_t kN = 1 << 14;
  std::vector<std::int64_t> v(kN);
  Prng prng(seed_from(rng));
  sample_uniform_bounded(prng, 3, v);  // 17 values −8..8
  std::map<std::int64_t, double> count;
  for (std::int64_t x : v) count[x] += 1;
  ASSERT_EQ(count.size(), 17U);
  EXPECT_EQ(count.begin()->first, -8);
  EXPECT_EQ(count.rbegin()->first, 8);
  const double mean = kN / 17.0, sd = std::sqrt(mean * (16.0 / 17));
  for (const auto& [x, c] : count) EXPECT_NEAR(c, mean, 5 * sd) << "value " << x;

  sample_uniform_bounded(prng, 60, v);
  const std::int64_t bound = std::int64_t{1} << 60;
  for (std::int64_t x : v) ASSERT_TRUE(x >= -bound && x <= bound) << x;
  // Both halves and the top bits are reached (P(fail) < 2^-1000).
  EXPECT_LT(*std::min_element(v.begin(), v.end()), -bound / 2);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), bound / 2);
}

TEST(SamplerTest, BoundedUniformPolyReducesBeyondTheLimbPrimes) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(1024, 3, 30);  // 2^40 noise over 30-bit primes
  const Seed seed = seed_from(rng);
  RnsPoly p(ctx, 3, PolyForm::kEvaluation);
  Prng prng(seed, 9), replay(seed, 9);
  sample_uniform_bounded(prng, 40, p);
  std::vector<std::int64_t> v(1024);
  sample_uniform_bounded(replay, 40, v);
  expect_limbs_hold(p, v);
}

// --- set_signed and bad inputs ------------------------------------------------------------------

TEST(SamplerTest, SetSignedWritesResiduesAtTheEdges) {
  const auto ctx = test::make_ring(4, 2);
  RnsPoly p(ctx, 2, PolyForm::kEvaluation);
  const auto q0 = static_cast<std::int64_t>(ctx->basis().prime(0));
  const auto q1 = static_cast<std::int64_t>(ctx->basis().prime(1));
  const std::int64_t edge = std::min(q0, q1) - 1;
  const std::vector<std::int64_t> v = {0, -1, edge, -edge};
  set_signed(v, p);
  expect_limbs_hold(p, v);
}

TEST(SamplerTest, BadInputsAreRejected) {
  POLYHE_SEEDED_RNG(rng);
  const auto ctx = test::make_ring(16, 2);
  RnsPoly p(ctx, 2);
  Prng prng(seed_from(rng));
  std::vector<std::int64_t> v(16);
  EXPECT_THROW(sample_ternary_fixed_weight(prng, 17, v), InvalidParameter);
  EXPECT_THROW(sample_ternary_fixed_weight(prng, 17, p), InvalidParameter);
  EXPECT_NO_THROW(sample_ternary_fixed_weight(prng, 16, p));
  EXPECT_THROW(sample_uniform_bounded(prng, 0, v), InvalidParameter);
  EXPECT_THROW(sample_uniform_bounded(prng, 61, v), InvalidParameter);
  EXPECT_THROW(sample_uniform_bounded(prng, 61, p), InvalidParameter);
  EXPECT_THROW(set_signed(std::vector<std::int64_t>(15), p), InvalidParameter);
  EXPECT_THROW(set_signed(std::vector<std::int64_t>(17), p), InvalidParameter);
  try {
    sample_ternary_fixed_weight(prng, 17, p);
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("h = 17"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("N = 16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace polyhe
