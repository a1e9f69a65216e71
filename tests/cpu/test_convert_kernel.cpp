// The weighted-sum kernels of base conversion against a double-word reference: IFMA52 and
// AVX2 + FMA, on random and extreme operands (x_i at its bound − 1, w_i = c − 1), the most terms a
// call may sum, every length 1..40 (the tails) and moduli from 2 to 2^50 − 27. Each skips, naming
// the reason, where this CPU or build lacks its instructions.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "cpu/convert_kernel.hpp"
#include "cpu/elementwise_kernel.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/cpu/weighted_sum.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

u64 reference(const std::vector<u64>& x, std::size_t stride, std::size_t terms,
              const std::vector<u64>& w, std::size_t k, u64 c) {
  u128 sum = 0;
  for (std::size_t i = 0; i < terms; ++i) sum = (sum + u128{x[i * stride + k]} * w[i]) % c;
  return static_cast<u64>(sum);
}

class WeightedSum : public ::testing::Test {
 protected:
  void SetUp() override {
    if (best_cpu_path() != CpuPath::ifma) {
      GTEST_SKIP() << "no IFMA52 here: " << best_cpu_path_reason();
    }
    kernel_ = cpu::ifma_weighted_sum_kernel();
    if (kernel_ == nullptr) GTEST_SKIP() << "this build did not compile the IFMA52 kernels";
  }
  cpu::WeightedSumKernel kernel_ = nullptr;
};

TEST_F(WeightedSum, EqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  std::vector<u64> moduli = {2, 3, 97, (u64{1} << 49) - 1, (u64{1} << 49) + 1};
  for (int bits : {20, 36, 49, 50}) {
    u64 top = (u64{1} << bits) - 1;
    while (!is_prime(top)) --top;
    moduli.push_back(top);
  }
  for (u64 c : moduli) {
    ASSERT_TRUE(cpu::ifma_serves(c)) << c;
    const cpu::WeightedSumModulus m = cpu::make_weighted_sum_modulus(c);
    for (std::size_t terms : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{64},
                              cpu::kWeightedSumMaxTerms}) {
      for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{16},
                            std::size_t{37}, std::size_t{256}}) {
        const std::size_t stride = n + 3;  // limbs need not be adjacent
        for (const bool extreme : {false, true}) {
          std::vector<u64> x(terms * stride), w(terms);
          for (auto& v : x) v = extreme ? (u64{1} << 52) - 1 : rng.uniform(0, (u64{1} << 52) - 1);
          for (auto& v : w) v = extreme ? c - 1 : rng.uniform(0, c - 1);
          std::vector<u64> out(n, ~u64{0});
          std::vector<const u64*> ptrs;
          for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * stride);
          kernel_(ptrs.data(), terms, w.data(), out.data(), n, m);
          for (std::size_t k = 0; k < n; ++k) {
            ASSERT_EQ(out[k], reference(x, stride, terms, w, k, c))
                << "c=" << c << " terms=" << terms << " n=" << n << " k=" << k
                << (extreme ? " extreme" : " random");
          }
        }
      }
    }
  }
}

TEST_F(WeightedSum, LengthsOneToForty) {
  POLYHE_SEEDED_RNG(rng);
  const u64 c = (u64{1} << 50) - 27;
  const cpu::WeightedSumModulus m = cpu::make_weighted_sum_modulus(c);
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::size_t terms = 5;
    std::vector<u64> x(terms * n), w(terms);
    for (auto& v : x) v = rng.uniform(0, (u64{1} << 52) - 1);
    for (auto& v : w) v = rng.uniform(0, c - 1);
    std::vector<u64> out(n + 1, 12345);  // one word past the end must stay untouched
    std::vector<const u64*> ptrs;
    for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * n);
    kernel_(ptrs.data(), terms, w.data(), out.data(), n, m);
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(out[k], reference(x, n, terms, w, k, c));
    EXPECT_EQ(out[n], 12345U) << "n=" << n;
  }
}

class WeightedSumFma : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = cpu_path_unavailable_reason(CpuPath::avx2)) {
      GTEST_SKIP() << "no AVX2 + FMA here: " << *why;
    }
    kernel_ = cpu::avx2_weighted_sum_kernel();
    ASSERT_NE(kernel_, nullptr);
  }
  cpu::WeightedSumFmaKernel kernel_ = nullptr;
};

// The sums are centred every eight terms: 1, 7, 8, 9, 17 and 300 terms cross that boundary.
TEST_F(WeightedSumFma, EqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  std::vector<u64> moduli = {2, 3, 97, (u64{1} << 49) - 1, (u64{1} << 49) + 1};
  for (int bits : {20, 36, 49, 50}) {
    u64 top = (u64{1} << bits) - 1;
    while (!is_prime(top)) --top;
    moduli.push_back(top);
  }
  const u64 x_top = (u64{1} << 50) - 1;
  for (u64 c : moduli) {
    ASSERT_TRUE(cpu::avx2_weighted_sum_serves(x_top + 1, c)) << c;
    for (std::size_t terms : {1, 7, 8, 9, 17, 300}) {
      for (std::size_t n : {1, 3, 4, 5, 37, 256}) {
        const std::size_t stride = n + 3;
        for (const bool extreme : {false, true}) {
          std::vector<u64> x(terms * stride), w(terms);
          for (auto& v : x) v = extreme ? x_top : rng.uniform(0, x_top);
          for (auto& v : w) v = extreme ? c - 1 : rng.uniform(0, c - 1);
          std::vector<u64> out(n + 1, 12345);
          std::vector<const u64*> ptrs;
          for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * stride);
          kernel_(ptrs.data(), terms, w.data(), out.data(), n, c);
          for (std::size_t k = 0; k < n; ++k) {
            ASSERT_EQ(out[k], reference(x, stride, terms, w, k, c))
                << "c=" << c << " terms=" << terms << " n=" << n << " k=" << k
                << (extreme ? " extreme" : " random");
          }
          EXPECT_EQ(out[n], 12345U) << "n=" << n;
        }
      }
    }
  }
  EXPECT_FALSE(cpu::avx2_weighted_sum_serves(u64{1} << 51, 97));
  EXPECT_FALSE(cpu::avx2_weighted_sum_serves(97, u64{1} << 50));
}

// vec::WeightedSum, the checked entry point the rns classes call: on every path this CPU has, the
// kernel it picks (or none) and, where one serves, the reference's words; and its refusals.
TEST(VecWeightedSum, PicksTheKernelOfThePathAndEqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  const CpuPath saved = cpu_path();
  const u64 c = (u64{1} << 49) - 69;  // below 2^50: both kernels may serve
  for (const CpuPath p : kAllCpuPaths) {
    if (p > best_cpu_path()) continue;
    set_cpu_path(p);
    for (const u64 x_bound : {u64{1} << 40, u64{1} << 51, u64{1} << 53}) {
      const vec::WeightedSum sum(c, 20, x_bound);
      vec::WeightedSumPath want = vec::WeightedSumPath::none;
      if (p == CpuPath::ifma && x_bound <= (u64{1} << 52)) want = vec::WeightedSumPath::ifma52;
      if (p == CpuPath::avx2 && x_bound <= (u64{1} << 50)) want = vec::WeightedSumPath::fma50;
      EXPECT_EQ(sum.path(), want) << to_string(p) << " x_bound=" << x_bound;
      const std::size_t terms = 20, n = 37;
      std::vector<u64> x(terms * n), w(terms), out(n, 7);
      for (auto& v : x) v = rng.uniform(0, std::min(x_bound, u64{1} << 50) - 1);
      for (auto& v : w) v = rng.uniform(0, c - 1);
      std::vector<const u64*> ptrs;
      for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * n);
      const bool ran = sum(ptrs, w, out);
      EXPECT_EQ(ran, want != vec::WeightedSumPath::none);
      for (std::size_t k = 0; k < n; ++k) {
        EXPECT_EQ(out[k], ran ? reference(x, n, terms, w, k, c) : 7U) << to_string(p) << " " << k;
      }
    }
  }
  set_cpu_path(saved);
}

TEST(VecWeightedSum, RefusesByName) {
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const InvalidParameter& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([] { (void)vec::WeightedSum(1, 4, 10); }).find("outside [2, 2^62)"),
            std::string::npos);
  EXPECT_NE(message([] { (void)vec::WeightedSum(97, 0, 10); }).find("at least 1"),
            std::string::npos);
  const vec::WeightedSum sum(97, 2, 50);
  std::vector<u64> a(4, 1), b(4, 2), out(4);
  const std::vector<const u64*> three = {a.data(), b.data(), a.data()};
  const std::vector<const u64*> two = {a.data(), b.data()};
  const std::vector<const u64*> null_term = {a.data(), nullptr};
  EXPECT_NE(message([&] {
              (void)sum(three, std::vector<u64>{1, 2, 3}, out);
            }).find("1 to 2 terms"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)sum(two, std::vector<u64>{1}, out); }).find("one weight each"),
            std::string::npos);
  EXPECT_NE(message([&] {
              (void)sum(two, std::vector<u64>{1, 97}, out);
            }).find("not below c = 97"),
            std::string::npos);
  EXPECT_NE(message([&] {
              (void)sum(null_term, std::vector<u64>{1, 2}, out);
            }).find("null"),
            std::string::npos);
}

// vec::multiply_scalar with a precomputed Shoup companion: the words of the plain form, and a
// wrong companion refused.
TEST(VecMultiplyScalarShoup, EqualsThePlainFormAndChecksTheCompanion) {
  POLYHE_SEEDED_RNG(rng);
  const u64 q = ntt_primes(50, 1024, 1)[0];
  const Modulus<u64> m(q);
  std::vector<u64> a(1000), want(1000), got(1000);
  for (auto& v : a) v = rng.uniform(0, q - 1);
  const u64 s = rng.uniform(0, q - 1);
  vec::multiply_scalar(a, s, want, m);
  vec::multiply_scalar(a, make_shoup(s, q), got, m);
  EXPECT_EQ(got, want);
  ShoupOperand<u64> bad = make_shoup(s, q);
  bad.w_shoup += 1;
  EXPECT_THROW(vec::multiply_scalar(a, bad, got, m), InvalidParameter);
  EXPECT_THROW(vec::multiply_scalar(a, make_shoup(s, q), std::span<u64>(got).first(999), m),
               InvalidParameter);
}

}  // namespace
}  // namespace polyhe
