// KeySwitchParts: the interleaved, packed storage of a key-switching key's pairs (b_j, a_j) —
// round trips through set/b/a, the layout of limb(t) byte by byte against its definition, and the
// checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ring/key_parts.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "support/test_rng.hpp"

namespace polyhe::rlwe {
namespace {

ParametersPtr make_params(int log_n) {
  ParametersLiteral lit;
  lit.log_n = log_n;
  lit.q_bits = {40, 30, 30};
  lit.p_bits = {40};
  lit.security = SecurityLevel::insecure_none;
  return Parameters::create(lit);
}

RnsPoly random_poly(const ParametersPtr& params, test::TestRng& rng) {
  const auto& ring = params->ring();
  RnsPoly p(ring, ring->max_limbs(), PolyForm::kEvaluation);
  for (std::size_t t = 0; t < ring->max_limbs(); ++t) {
    const std::uint64_t q = ring->basis().modulus(t).value();
    for (auto& w : p.limb(t)) w = rng.uniform(0, q - 1);
  }
  return p;
}

// Word `at` of a limb's bytes, w bytes little-endian: the layout's definition, read byte by byte.
std::uint64_t packed(std::span<const std::uint8_t> limb, std::size_t w, std::size_t at) {
  std::uint64_t x = 0;
  for (std::size_t byte = 0; byte < w; ++byte)
    x |= std::uint64_t{limb[at * w + byte]} << (8 * byte);
  return x;
}

// Every N from 2 (groups of 2 words) to 2^6, several part counts: set then read back, and every
// word of limb(t) where the class comment says it is.
TEST(KeySwitchParts, RoundTripsAndLaysOutEveryWordAsDocumented) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n : {1, 2, 3, 4, 6}) {
    const ParametersPtr params = make_params(log_n);
    const auto& ring = params->ring();
    const std::size_t n = params->n();
    const std::size_t group = std::min<std::size_t>(n, 8);
    for (std::size_t count : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
      KeySwitchParts parts(ring, count);
      std::vector<RnsPoly> b, a;
      for (std::size_t j = 0; j < count; ++j) {
        b.push_back(random_poly(params, rng));
        a.push_back(random_poly(params, rng));
        parts.set(j, b[j], a[j]);
      }
      ASSERT_EQ(parts.count(), count);
      for (std::size_t j = 0; j < count; ++j) {
        ASSERT_TRUE(std::ranges::equal(parts.b(j).data(), b[j].data())) << "N=" << n << " j=" << j;
        ASSERT_TRUE(std::ranges::equal(parts.a(j).data(), a[j].data())) << "N=" << n << " j=" << j;
        EXPECT_EQ(parts.b(j).form(), PolyForm::kEvaluation);
      }
      for (std::size_t t = 0; t < ring->max_limbs(); ++t) {
        const auto limb = parts.limb(t);
        const std::uint64_t q = ring->basis().modulus(t).value();
        const std::size_t w = parts.width(t);
        ASSERT_EQ(w, (std::bit_width(q - 1) + 7) / 8) << "q=" << q;  // 40 bits: 5, 30 bits: 4
        ASSERT_EQ(limb.size(), 2 * count * n * w);
        const auto word = [&](std::size_t at) { return packed(limb, w, at); };
        for (std::size_t j = 0; j < count; ++j) {
          for (std::size_t i = 0; i < n; ++i) {
            const std::size_t at = ((i / group) * 2 * count + 2 * j) * group + i % group;
            ASSERT_EQ(word(at), b[j].limb(t)[i]) << "N=" << n << " t=" << t << " j=" << j;
            ASSERT_EQ(word(at + group), a[j].limb(t)[i]) << "N=" << n << " t=" << t << " j=" << j;
          }
        }
      }
      // Overwriting one pair leaves the others as they were.
      if (count > 1) {
        const RnsPoly nb = random_poly(params, rng);
        parts.set(1, nb, a[1]);
        EXPECT_TRUE(std::ranges::equal(parts.b(1).data(), nb.data()));
        EXPECT_TRUE(std::ranges::equal(parts.b(0).data(), b[0].data()));
        EXPECT_TRUE(std::ranges::equal(parts.a(1).data(), a[1].data()));
      }
    }
  }
}

// Every residue width from 1 to 8 bytes (primes of 8 to 60 bits), and a ring Φ_m whose N = φ(21) =
// 12 is not a multiple of 8 (one group of 8 words, then the last 4 as a group of their own): round
// trips, and every word where the class comment says it is.
TEST(KeySwitchParts, EveryWidthAndAShortLastGroup) {
  POLYHE_SEEDED_RNG(rng);
  std::vector<std::uint64_t> primes;
  for (int bits : {8, 16, 20, 28, 36, 44, 52, 60}) primes.push_back(ntt_primes(bits, 32, 1)[0]);
  const std::vector<std::shared_ptr<const RingContext>> rings = {
      RingContext::create(32, primes),
      RingContext::create_cyclotomic(21, powerful_ntt_primes(21, 30, 2))};
  for (const auto& ring : rings) {
    const std::size_t n = ring->n();
    const std::size_t group = std::min<std::size_t>(n, 8);
    const std::size_t full = n - n % group;
    const auto random = [&] {
      RnsPoly p(ring, ring->max_limbs(), PolyForm::kEvaluation);
      for (std::size_t t = 0; t < ring->max_limbs(); ++t) {
        const std::uint64_t q = ring->basis().modulus(t).value();
        for (auto& w : p.limb(t)) w = rng.uniform(0, q - 1);
        p.limb(t)[0] = q - 1;  // every byte of the width used
      }
      return p;
    };
    const std::size_t count = 3;
    KeySwitchParts parts(ring, count);
    std::vector<RnsPoly> b, a;
    for (std::size_t j = 0; j < count; ++j) {
      b.push_back(random());
      a.push_back(random());
      parts.set(j, b[j], a[j]);
    }
    for (std::size_t j = 0; j < count; ++j) {
      ASSERT_TRUE(std::ranges::equal(parts.b(j).data(), b[j].data())) << "N=" << n << " j=" << j;
      ASSERT_TRUE(std::ranges::equal(parts.a(j).data(), a[j].data())) << "N=" << n << " j=" << j;
    }
    std::vector<std::size_t> widths;
    for (std::size_t t = 0; t < ring->max_limbs(); ++t) {
      const auto limb = parts.limb(t);
      const std::size_t w = parts.width(t);
      widths.push_back(w);
      const auto word = [&](std::size_t at) { return packed(limb, w, at); };
      for (std::size_t j = 0; j < count; ++j) {
        for (std::size_t half = 0; half < 2; ++half) {
          const RnsPoly& want = half == 0 ? b[j] : a[j];
          for (std::size_t i = 0; i < n; ++i) {
            const std::size_t at =
                i < full ? ((i / group) * 2 * count + 2 * j + half) * group + i % group
                         : full * 2 * count + (2 * j + half) * (n - full) + (i - full);
            ASSERT_EQ(word(at), want.limb(t)[i]) << "N=" << n << " t=" << t << " j=" << j;
          }
        }
      }
    }
    if (n == 32) {
      EXPECT_EQ(widths, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
    }
  }
}

TEST(KeySwitchParts, RejectsBadPartsAndIndices) {
  POLYHE_SEEDED_RNG(rng);
  const ParametersPtr params = make_params(4);
  const ParametersPtr other = make_params(4);
  const auto& ring = params->ring();
  EXPECT_THROW(KeySwitchParts(ring, 0), InvalidParameter);
  EXPECT_THROW(KeySwitchParts(nullptr, 1), InvalidParameter);
  KeySwitchParts parts(ring, 2);
  const RnsPoly good = random_poly(params, rng);
  EXPECT_THROW(parts.set(2, good, good), InvalidParameter);
  EXPECT_THROW((void)parts.b(2), InvalidParameter);
  EXPECT_THROW((void)parts.a(7), InvalidParameter);
  EXPECT_THROW((void)parts.limb(ring->max_limbs()), InvalidParameter);
  EXPECT_THROW((void)parts.width(ring->max_limbs()), InvalidParameter);
  RnsPoly unreduced = good;  // a residue ≥ q would not survive the packing: refused
  unreduced.limb(1)[3] = ring->basis().modulus(1).value();
  parts.set(0, good, good);
  EXPECT_THROW(parts.set(0, random_poly(params, rng), unreduced), InvalidParameter);
  EXPECT_TRUE(std::ranges::equal(parts.b(0).data(), good.data()))  // nothing written
      << "a refused part changed the key";
  EXPECT_THROW(parts.set(0, random_poly(other, rng), good), MismatchedContext);
  RnsPoly coefficient = good;
  coefficient.to_coefficient();
  EXPECT_THROW(parts.set(0, good, coefficient), InvalidParameter);
  const RnsPoly short_poly(ring, 2, PolyForm::kEvaluation);
  try {
    parts.set(1, short_poly, good);
    ADD_FAILURE() << "a part of 2 limbs was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("2 limbs"), std::string::npos) << e.what();
  }
  const KeySwitchParts empty;
  EXPECT_EQ(empty.count(), 0U);
  EXPECT_THROW((void)empty.b(0), InvalidParameter);
  EXPECT_THROW((void)empty.limb(0), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::rlwe
