// The flattened PFA transform and the radix-2 plan on every CPU path (POLYHE_CPU's scalar,
// avx2, avx512, ifma): each path equal to the scalar one word for word, forward and inverse, at
// lengths that exercise every axis kind (direct, radix-2, Rader) in every position, with primes of
// 40, 60 (lazy bound 4q on AVX-512 and AVX2), 61 (AVX2: 4q, comparisons sign-flipped) and 62 bits
// (bound 2q); plus the naive DFT on sampled outputs and the extreme inputs 0 and q − 1. Paths this
// CPU or build lacks are skipped, so no test depends on the machine's ISA.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cyclic_reference.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::u64;

using test::PathGuard;

struct Case {
  std::size_t n;
  int bits;
};

class CyclicPaths : public ::testing::TestWithParam<Case> {};

TEST_P(CyclicPaths, EveryPathEqualsScalarWordForWord) {
  POLYHE_SEEDED_RNG(rng);
  const auto [n, bits] = GetParam();
  const u64 q = cyclic_prime(bits, test::friendly_modulus(n, 16));
  const Modulus<u64> mod(q);
  const auto plan = CyclicNttPlan::create(n, q);
  PathGuard guard;

  auto x = test::random_vector(rng, n, q);
  x[0] = q - 1;
  x[n - 1] = 0;
  std::vector<u64> ones(n, q - 1);

  set_cpu_path(CpuPath::scalar);
  auto fwd = x;
  plan->forward(fwd);
  auto inv = x;
  plan->inverse(inv);
  auto fwd_ones = ones;
  plan->forward(fwd_ones);

  std::vector<std::size_t> ks = {0, 1, n / 2, n - 1};
  for (int i = 0; i < 8; ++i) ks.push_back(rng.uniform(0, n - 1));
  for (std::size_t k : ks) ASSERT_EQ(fwd[k], test::naive_dft_at(x, plan->omega(), k, mod)) << k;
  std::vector<u64> expected_ones(n, 0);
  expected_ones[0] = q - n % q;
  ASSERT_EQ(fwd_ones, expected_ones);
  auto back = fwd;
  plan->inverse(back);
  ASSERT_EQ(back, x);

  for (const CpuPath path : {CpuPath::avx2, CpuPath::avx512, CpuPath::ifma}) {
    if (const std::optional<std::string> why = cpu_path_unavailable_reason(path)) {
      std::cout << "[ SKIPPED  ] " << to_string(path) << ": " << *why << '\n';
      continue;
    }
    SCOPED_TRACE(std::string(to_string(path)) + ", " + plan->decomposition());
    set_cpu_path(path);
    auto y = x;
    plan->forward(y);
    ASSERT_EQ(y, fwd);
    auto z = x;
    plan->inverse(z);
    ASSERT_EQ(z, inv);
    auto o = ones;
    plan->forward(o);
    ASSERT_EQ(o, fwd_ones);
  }
}

// 21845 = 5·17·257 and 4369 = 17·257 (HElib), 255 = 3·5·17, 514 = 2·257 (radix-2 axis of 2),
// 272 = 16·17 (radix-2 other axis), 4112 = 16·257, 85 = 5·17 (rows not a multiple of 8), 51;
// direct axes of odd length up to 31: 8190 = 2·9·5·7·13 (8191's Rader convolution, also through
// 8191), 630 = 2·9·5·7 and 1155 = 3·5·7·11 (a direct last axis: the inverse's 1/n in it, short
// rows with the plain maps), 768 = 256·3 (the largest factor first);
// and radix-2 plans through the negacyclic kernels (q ≡ 1 mod 2n; 40 bits: the IFMA kernel).
INSTANTIATE_TEST_SUITE_P(Lengths, CyclicPaths,
                         ::testing::Values(Case{21845, 60}, Case{21845, 62}, Case{21845, 40},
                                           Case{4369, 60}, Case{4369, 62}, Case{255, 62},
                                           Case{514, 61}, Case{272, 60}, Case{4112, 62},
                                           Case{85, 50}, Case{51, 60}, Case{8190, 60},
                                           Case{8191, 62}, Case{630, 40}, Case{1155, 61},
                                           Case{768, 60}, Case{16384, 60}, Case{16384, 40},
                                           Case{1024, 62}),
                         [](const auto& param_info) {
                           return std::to_string(param_info.param.n) + "_" +
                                  std::to_string(param_info.param.bits) + "bit";
                         });

}  // namespace
}  // namespace polyhe
