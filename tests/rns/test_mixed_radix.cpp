// Balanced mixed-radix digits: composed back with big integers, they give the centred value of
// the residues exactly, every digit centred, for every prefix of random bases of 30–62-bit primes.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rns/mixed_radix.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

class MixedRadixDigits : public ::testing::TestWithParam<std::size_t> {};

TEST_P(MixedRadixDigits, ComposeToTheCentredValueWithCentredDigits) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis basis(test::random_primes(rng, GetParam(), 30, 62));
  const MixedRadix radix(basis);
  ASSERT_EQ(radix.size(), basis.size());
  test::BigRng gmp(rng);
  constexpr std::size_t n = MixedRadix::kBlock;
  for (std::size_t k = 1; k <= basis.size(); ++k) {
    const RnsBasis prefix = basis.prefix(k);
    mpz_class q = 1;
    for (std::size_t i = 0; i < k; ++i) q *= static_cast<unsigned long>(basis.prime(i));
    // Uniform values and the edges 0, 1, Q − 1, ⌊Q/2⌋, ⌊Q/2⌋ + 1 (the centred range's ends).
    const std::vector<mpz_class> values = test::random_values(gmp, q, n);
    const std::vector<std::uint64_t> limbs = test::to_limbs(values, prefix);  // limb i: i·n
    std::vector<std::int64_t> digits(basis.size() * MixedRadix::kBlock);
    radix.digits(limbs.data(), n, n, k, digits.data());
    for (std::size_t c = 0; c < n; ++c) {
      const mpz_class centred = values[c] > q / 2 ? mpz_class(values[c] - q) : values[c];
      mpz_class x = 0;
      for (std::size_t i = k; i-- > 0;) {
        const std::int64_t v = digits[i * MixedRadix::kBlock + c];
        const std::uint64_t qi = basis.prime(i);
        ASSERT_LE(static_cast<std::uint64_t>(std::llabs(v)), (qi - 1) / 2) << "digit " << i;
        x = x * static_cast<unsigned long>(qi) + static_cast<long>(v);
      }
      EXPECT_EQ(x, centred) << "k = " << k << ", value " << values[c].get_str();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bases, MixedRadixDigits, ::testing::Values(1, 2, 5, 12));

TEST(MixedRadix, RefusesMoreThanABlockOrMorePrimesThanItHas) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis basis(test::random_primes(rng, 3, 40, 50));
  const MixedRadix radix(basis);
  std::vector<std::uint64_t> words(4 * (MixedRadix::kBlock + 1));
  std::vector<std::int64_t> out(4 * MixedRadix::kBlock);
  EXPECT_THROW(
      radix.digits(words.data(), MixedRadix::kBlock + 1, MixedRadix::kBlock + 1, 3, out.data()),
      InvalidParameter);
  EXPECT_THROW(radix.digits(words.data(), MixedRadix::kBlock, MixedRadix::kBlock, 4, out.data()),
               InvalidParameter);
  EXPECT_NO_THROW(radix.digits(words.data(), MixedRadix::kBlock, 1, 3, out.data()));
}

}  // namespace
}  // namespace polyhe
