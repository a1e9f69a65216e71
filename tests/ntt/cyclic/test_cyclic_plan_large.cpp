// CyclicNttPlan at the lengths of [PFA-Rader]: m = 21845 = 5·17·257 and its
// factor 4369 = 17·257 (HElib's BGV), and the primes 8191 and 65537. Outputs sampled against
// the naive DFT, every decomposition equal to every other, round trips.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cyclic_reference.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

class CyclicNttLarge : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CyclicNttLarge, DecompositionsAgreeWithEachOtherAndTheNaiveDft) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam();
  const u64 q = cyclic_prime(62, test::friendly_modulus(n, 18));
  const Modulus<u64> mod(q);
  std::vector<Decomposition> ds = {Decomposition::automatic, Decomposition::bluestein};
  if (is_prime(n)) {
    ds.push_back(Decomposition::rader);
    ds.push_back(Decomposition::rader_padded);
  } else {
    ds.push_back(Decomposition::pfa);
    ds.push_back(Decomposition::cooley_tukey);
  }
  const auto x = test::random_vector(rng, n, q);
  std::vector<std::size_t> ks = {0, 1, 2, n / 2, n - 1};
  for (int i = 0; i < 16; ++i) ks.push_back(rng.uniform(0, n - 1));
  std::vector<u64> first;
  for (Decomposition d : ds) {
    const auto plan = CyclicNttPlan::create(n, q, d);
    SCOPED_TRACE(plan->decomposition());
    auto y = x;
    plan->forward(y);
    for (std::size_t k : ks) ASSERT_EQ(y[k], test::naive_dft_at(x, plan->omega(), k, mod)) << k;
    for (u64 v : y) ASSERT_LT(v, q);
    if (first.empty()) {
      first = y;
    } else {
      ASSERT_EQ(y, first);
    }
    plan->inverse(y);
    ASSERT_EQ(y, x);
  }
}

INSTANTIATE_TEST_SUITE_P(PaperLengths, CyclicNttLarge, ::testing::Values(4369, 21845, 8191, 65537),
                         [](const auto& param_info) { return std::to_string(param_info.param); });

}  // namespace
}  // namespace polyhe
