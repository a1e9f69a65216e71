// CyclotomicRing at HElib's sizes m = 4369 = 17·257 and m = 21845 = 5·17·257 (φ(m) = 4096 and
// 16384): one product each against schoolbook-then-divide-by-Φ_m, and the slots.
#include <gtest/gtest.h>

#include <vector>

#include "cyclic_reference.hpp"
#include "cyclotomic_reference.hpp"
#include "polyhe/ntt/cyclic/cyclotomic.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

class CyclotomicRingLarge : public ::testing::TestWithParam<std::size_t> {};

// A 50-bit prime keeps the schoolbook accumulators free of reductions: φ(m)·(q − 1)² < 2^128.
TEST_P(CyclotomicRingLarge, MultiplyMatchesSchoolbookThenDivisionByPhi) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t m = GetParam();
  const u64 q = cyclic_prime(50, test::friendly_modulus(m, 10));
  SCOPED_TRACE(::testing::Message() << "m = " << m << ", q = " << q);
  const auto ring = CyclotomicRing::create(m, q);
  const Modulus<u64> mod(q);
  const std::size_t d = ring->degree();
  const auto a = test::random_vector(rng, d, q);
  const auto b = test::random_vector(rng, d, q);
  std::vector<u64> c(d);
  ring->multiply(a, b, c);
  EXPECT_EQ(c, test::reference_multiply(a, b, m, mod));

  const auto sa = ring->to_slots(a);
  const auto sb = ring->to_slots(b);
  const auto sc = ring->to_slots(c);
  for (std::size_t s = 0; s < d; ++s) ASSERT_EQ(sc[s], mod.mul(sa[s], sb[s])) << "slot " << s;
  EXPECT_EQ(ring->from_slots(sa), a);
}

INSTANTIATE_TEST_SUITE_P(HElibSizes, CyclotomicRingLarge, ::testing::Values(4369, 21845));

}  // namespace
}  // namespace polyhe
