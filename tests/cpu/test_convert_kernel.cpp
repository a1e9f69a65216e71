// The weighted-sum kernels of base conversion against a double-word reference: IFMA52 (narrow and
// wide), AVX2 + FMA and wide AVX2, on random and extreme operands (x_i at its bound − 1, w_i =
// c − 1), the most terms a call may sum, every length 1..40 (the tails) and moduli from 2 to
// 2^50 − 27 (the wide kernels: odd moduli from 3, or 2^10 + 1 for AVX2, to 2^62 − 1). Each skips,
// naming the reason, where this CPU or build lacks its instructions.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <span>
#include <string>
#include <utility>
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

// The message of the InvalidParameter `call` throws, or "no exception".
template <class Call>
std::string message(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const InvalidParameter& e) {
    return std::string(e.what());
  }
  return std::string("no exception");
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

// The wide kernels: any 64-bit x and odd c < 2^62, weights in Montgomery form (w·2^R mod c, found
// here by 128-bit division, not by the library's Shoup products): IFMA52 in 52-bit digits
// (R = 2^104, c ≥ 3) and AVX2 in 32-bit products (R = 2^96 for c ≥ 2^42, else 2^128; c ≥ 2^10),
// each where this CPU and build have it.
struct Ifma62 {
  using Modulus = cpu::WeightedSumWideModulus;
  using Kernel = cpu::WeightedSumWideKernel;
  static int radix_bits(u64 /*c*/) { return 104; }
  static std::optional<std::string> unavailable() {
    if (best_cpu_path() != CpuPath::ifma) return "no IFMA52 here: " + best_cpu_path_reason();
    if (cpu::ifma_weighted_sum_wide_kernel() == nullptr) {
      return std::string("this build did not compile the IFMA52 kernels");
    }
    return std::nullopt;
  }
  static Kernel kernel() { return cpu::ifma_weighted_sum_wide_kernel(); }
  static Modulus modulus(u64 c) { return cpu::make_weighted_sum_wide_modulus(c); }
  static std::vector<u64> smallest() { return {3, 97}; }
};
struct Avx2_62 {
  using Modulus = cpu::WeightedSumWide32Modulus;
  using Kernel = cpu::WeightedSumWide32Kernel;
  static int radix_bits(u64 c) { return static_cast<int>(32 * modulus(c).steps); }
  static std::optional<std::string> unavailable() {
    if (auto why = cpu_path_unavailable_reason(CpuPath::avx2)) return "no AVX2 here: " + *why;
    if (cpu::avx2_weighted_sum_wide_kernel() == nullptr) {
      return std::string("this build did not compile the AVX2 kernels");
    }
    return std::nullopt;
  }
  static Kernel kernel() { return cpu::avx2_weighted_sum_wide_kernel(); }
  static Modulus modulus(u64 c) { return cpu::make_weighted_sum_wide32_modulus(c); }
  // 2^10 + 1 is where the Montgomery result's bound, S/2^128 + c < 2c, is tightest.
  static std::vector<u64> smallest() { return {(u64{1} << 10) + 1, 4099}; }
};

template <class K>
class WeightedSumWide : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = K::unavailable()) GTEST_SKIP() << *why;
  }
  static u64 montgomery(u64 w, u64 c) {
    u128 r = 1;  // R mod c
    for (int b = 0; b < K::radix_bits(c); ++b) r = r * 2 % c;
    return static_cast<u64>(u128{w} * r % c);
  }
  // w with montgomery(w) = c − 1, the largest Montgomery weight.
  static u64 extreme_weight(u64 c) {
    u128 inv = 1;  // R^−1 mod c
    for (int b = 0; b < K::radix_bits(c); ++b) inv = inv * ((u128{c} + 1) / 2) % c;
    return static_cast<u64>(u128{c - 1} * inv % c);
  }
};
using WideKernels = ::testing::Types<Ifma62, Avx2_62>;
TYPED_TEST_SUITE(WeightedSumWide, WideKernels);

TYPED_TEST(WeightedSumWide, EqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  // Small, 2^42- and 2^52-straddling moduli (the AVX2 kernel's steps change at 2^42), the widest
  // odd word (2^62 − 1, composite: Montgomery's reduction needs only an odd c) and the largest
  // prime of each width up to 62 bits.
  std::vector<u64> moduli = TypeParam::smallest();
  for (u64 c : {(u64{1} << 42) - 1, (u64{1} << 42) + 1, (u64{1} << 49) + 1, (u64{1} << 52) - 1,
                (u64{1} << 52) + 1, (u64{1} << 62) - 1}) {
    moduli.push_back(c);
  }
  for (int bits : {50, 53, 55, 60, 61, 62}) {
    u64 top = (u64{1} << bits) - 1;
    while (!is_prime(top)) --top;
    moduli.push_back(top);
  }
  const auto kernel = TypeParam::kernel();
  for (u64 c : moduli) {
    const auto m = TypeParam::modulus(c);
    const u64 extreme_w = this->extreme_weight(c);
    ASSERT_EQ(this->montgomery(extreme_w, c), c - 1) << c;
    for (std::size_t terms : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{64},
                              cpu::kWeightedSumWideMaxTerms}) {
      // 64 and 131 cross the AVX2 kernel's chunk of sixteen vectors (and its tail).
      for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{8},
                            std::size_t{16}, std::size_t{37}, std::size_t{64}, std::size_t{131}}) {
        const std::size_t stride = n + 3;  // limbs need not be adjacent
        for (const bool extreme : {false, true}) {
          // The extreme case takes the largest Montgomery weight, c − 1, and x = 2^64 − 1.
          std::vector<u64> x(terms * stride), w(terms), w_mont(terms);
          for (auto& v : x) v = extreme ? ~u64{0} : rng.uniform(0, ~u64{0});
          for (std::size_t i = 0; i < terms; ++i) {
            w[i] = extreme ? extreme_w : rng.uniform(0, c - 1);
            w_mont[i] = this->montgomery(w[i], c);
          }
          std::vector<u64> out(n, ~u64{0});
          std::vector<const u64*> ptrs;
          for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * stride);
          kernel(ptrs.data(), terms, w_mont.data(), out.data(), n, m);
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

TYPED_TEST(WeightedSumWide, LengthsOneToForty) {
  POLYHE_SEEDED_RNG(rng);
  const u64 c = (u64{1} << 61) - 1;
  const auto m = TypeParam::modulus(c);
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::size_t terms = 5;
    std::vector<u64> x(terms * n), w(terms), w_mont(terms);
    for (auto& v : x) v = rng.uniform(0, c - 1);
    for (std::size_t i = 0; i < terms; ++i) {
      w[i] = rng.uniform(0, c - 1);
      w_mont[i] = this->montgomery(w[i], c);
    }
    std::vector<u64> out(n + 1, 12345);  // one word past the end must stay untouched
    std::vector<const u64*> ptrs;
    for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * n);
    TypeParam::kernel()(ptrs.data(), terms, w_mont.data(), out.data(), n, m);
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(out[k], reference(x, n, terms, w, k, c));
    EXPECT_EQ(out[n], 12345U) << "n=" << n;
  }
}

TEST(WeightedSumWideModulus, ConstantsAreTheirDefinitions) {
  for (const u64 c : {u64{3}, u64{97}, (u64{1} << 61) - 1, (u64{1} << 62) - 1}) {
    const cpu::WeightedSumWideModulus m = cpu::make_weighted_sum_wide_modulus(c);
    EXPECT_EQ(m.c, c);
    EXPECT_EQ((c * m.cinv52 + 1) & ((u64{1} << 52) - 1), 0U) << c;  // c·(−c^−1) ≡ −1
    EXPECT_LT(m.cinv52, u64{1} << 52);
    EXPECT_EQ(m.r104, static_cast<u64>((u128{1} << 104) % c));
    EXPECT_EQ(m.r104_shoup, static_cast<u64>((u128{m.r104} << 64) / c));
  }
  for (const u64 c : {u64{3}, (u64{1} << 10) + 1, (u64{1} << 42) - 1, (u64{1} << 42) + 1,
                      (u64{1} << 61) - 1, (u64{1} << 62) - 1}) {
    const cpu::WeightedSumWide32Modulus m = cpu::make_weighted_sum_wide32_modulus(c);
    EXPECT_EQ(m.c, c);
    EXPECT_EQ((c * m.cinv32 + 1) & 0xFFFFFFFFULL, 0U) << c;  // c·(−c^−1) ≡ −1 mod 2^32
    EXPECT_LT(m.cinv32, u64{1} << 32);
    EXPECT_EQ(m.steps, c >= (u64{1} << 42) ? 3U : 4U) << c;
    u128 r = 1;
    for (unsigned b = 0; b < 32 * m.steps; ++b) r = r * 2 % c;
    EXPECT_EQ(m.r, static_cast<u64>(r)) << c;
    EXPECT_EQ(m.r_shoup, static_cast<u64>((u128{m.r} << 64) / c));
  }
  EXPECT_FALSE(cpu::avx2_weighted_sum_wide_serves((u64{1} << 10) - 1));
  EXPECT_FALSE(cpu::avx2_weighted_sum_wide_serves((u64{1} << 10) + 2));
  EXPECT_FALSE(cpu::avx2_weighted_sum_wide_serves((u64{1} << 62) + 1));
  EXPECT_TRUE(cpu::avx2_weighted_sum_wide_serves((u64{1} << 10) + 1));
}

// The double-precision kernels, four lanes (AVX2 + FMA) and eight (AVX-512), where this CPU and
// build have them.
class WeightedSumFma : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = cpu_path_unavailable_reason(CpuPath::avx2)) {
      GTEST_SKIP() << "no AVX2 + FMA here: " << *why;
    }
    ASSERT_NE(cpu::avx2_weighted_sum_kernel(), nullptr);
    kernels_.emplace_back("avx2", cpu::avx2_weighted_sum_kernel());
    if (!cpu_path_unavailable_reason(CpuPath::avx512)) {
      ASSERT_NE(cpu::avx512_weighted_sum_kernel(), nullptr);
      kernels_.emplace_back("avx512", cpu::avx512_weighted_sum_kernel());
    }
  }
  std::vector<std::pair<std::string, cpu::WeightedSumFmaKernel>> kernels_;
};

// The sums are centred every eight terms: 1, 7, 8, 9, 17 and 300 terms cross that boundary. The
// lengths cross the two-vector step and the word-by-word tail of both lane counts.
TEST_F(WeightedSumFma, EqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  std::vector<u64> moduli = {2, 3, 97, (u64{1} << 49) - 1, (u64{1} << 49) + 1};
  for (int bits : {20, 36, 49, 50}) {
    u64 top = (u64{1} << bits) - 1;
    while (!is_prime(top)) --top;
    moduli.push_back(top);
  }
  const u64 x_top = (u64{1} << 50) - 1;
  for (const auto& [name, kernel] : kernels_) {
    for (u64 c : moduli) {
      ASSERT_TRUE(cpu::avx2_weighted_sum_serves(x_top + 1, c)) << c;
      for (std::size_t terms : {1, 7, 8, 9, 17, 300}) {
        for (std::size_t n : {1, 3, 4, 5, 8, 15, 16, 17, 24, 37, 256}) {
          const std::size_t stride = n + 3;
          for (const bool extreme : {false, true}) {
            std::vector<u64> x(terms * stride), w(terms);
            for (auto& v : x) v = extreme ? x_top : rng.uniform(0, x_top);
            for (auto& v : w) v = extreme ? c - 1 : rng.uniform(0, c - 1);
            std::vector<u64> out(n + 1, 12345);
            std::vector<const u64*> ptrs;
            for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * stride);
            kernel(ptrs.data(), terms, w.data(), out.data(), n, c);
            for (std::size_t k = 0; k < n; ++k) {
              ASSERT_EQ(out[k], reference(x, stride, terms, w, k, c))
                  << name << " c=" << c << " terms=" << terms << " n=" << n << " k=" << k
                  << (extreme ? " extreme" : " random");
            }
            EXPECT_EQ(out[n], 12345U) << name << " n=" << n;
          }
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
  for (const CpuPath p : kAllCpuPaths) {
    if (p > best_cpu_path()) continue;
    set_cpu_path(p);
    // Below 2^50 both kernels may serve, except IFMA52 for c = 2^49 (ifma_serves), where the
    // AVX2 + FMA one stands in on the ifma path. The wide IFMA kernel serves odd moduli on the
    // ifma path where IFMA52 does not: the larger inputs, and moduli to 2^62 (2^61 − 1 prime;
    // 2^60 even, which no kernel serves); the wide AVX2 one the same on the avx2 and avx512
    // paths where the double-precision one does not.
    for (const u64 c : {(u64{1} << 49) - 69, u64{1} << 49, (u64{1} << 61) - 1, u64{1} << 60})
      for (const u64 x_bound : {u64{1} << 40, u64{1} << 51, u64{1} << 53}) {
        const vec::WeightedSum sum(c, 20, x_bound);
        vec::WeightedSumPath want = vec::WeightedSumPath::none;
        if (p == CpuPath::ifma && cpu::ifma_serves(c) && x_bound <= (u64{1} << 52)) {
          want = vec::WeightedSumPath::ifma52;
        } else if (p == CpuPath::ifma && c % 2 == 1) {
          want = vec::WeightedSumPath::ifma62;
        } else if (p != CpuPath::scalar && x_bound <= (u64{1} << 50) && c < (u64{1} << 50)) {
          want = vec::WeightedSumPath::fma50;
        } else if (p != CpuPath::scalar && c % 2 == 1) {
          want = vec::WeightedSumPath::avx2_62;
        }
        EXPECT_EQ(sum.path(), want) << to_string(p) << " c=" << c << " x_bound=" << x_bound;
        const std::size_t terms = 20, n = 37;
        std::vector<u64> x(terms * n), w(terms), out(n, 7);
        for (auto& v : x) v = rng.uniform(0, x_bound - 1);
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

// vec::fraction_round (the exact conversion's v) on every path this CPU has against the scalar
// loop written out here: the sums bit for bit (a product fused with its sum would change the last
// bit of most of them), the counts and the cap; lengths 1..37 (the tails) and 256, words up to
// 2^63 − 1, and sums across many half-integers.
TEST(VecFractionRound, EveryPathGivesTheScalarLoopsBits) {
  POLYHE_SEEDED_RNG(rng);
  const CpuPath saved = cpu_path();
  const std::vector<u64> primes = ntt_primes(50, 1024, 5);
  for (const std::size_t terms : {std::size_t{1}, std::size_t{5}, std::size_t{17}}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{13},
                                std::size_t{37}, std::size_t{256}}) {
      std::vector<u64> t(terms * n);
      std::vector<double> inv(terms);
      for (std::size_t i = 0; i < terms; ++i) {
        // Primes of 50 bits with words below them, then words up to 2^63 − 1 over 1/q of a small q.
        const bool wide = i % 3 == 2;
        const u64 q = wide ? 1000003 : primes[i % primes.size()];
        inv[i] = 1.0 / static_cast<double>(q);
        for (std::size_t k = 0; k < n; ++k) {
          t[i * n + k] = wide ? rng.uniform(0, (u64{1} << 30) - 1) << 33 | rng.uniform(0, 1)
                              : rng.uniform(0, q - 1);
        }
      }
      std::vector<const u64*> ptrs;
      for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(t.data() + i * n);
      std::vector<double> want_s(n, 0.0);
      for (std::size_t i = 0; i < terms; ++i) {
        for (std::size_t k = 0; k < n; ++k) {
          const double product = static_cast<double>(t[i * n + k]) * inv[i];
          want_s[k] = want_s[k] + product;
        }
      }
      for (const u64 cap : {~u64{0}, u64{2}}) {
        std::vector<u64> want_v(n);
        for (std::size_t k = 0; k < n; ++k) {
          // NOLINTNEXTLINE(bugprone-incorrect-roundings): ⌊s + 1/2⌋, s ≥ 0
          want_v[k] = std::min(static_cast<u64>(want_s[k] + 0.5), cap);
        }
        for (const CpuPath p : kAllCpuPaths) {
          if (p > best_cpu_path()) continue;
          set_cpu_path(p);
          std::vector<double> s(n, -1.0);
          std::vector<u64> v(n, 12345);
          vec::fraction_round(ptrs, inv, cap, s, v);
          for (std::size_t k = 0; k < n; ++k) {
            EXPECT_EQ(std::bit_cast<u64>(s[k]), std::bit_cast<u64>(want_s[k]))
                << to_string(p) << " terms=" << terms << " n=" << n << " k=" << k;
            EXPECT_EQ(v[k], want_v[k])
                << to_string(p) << " terms=" << terms << " n=" << n << " k=" << k << " cap=" << cap;
          }
        }
      }
    }
  }
  set_cpu_path(saved);
}

TEST(VecFractionRound, RefusesByName) {
  std::vector<u64> a(4, 1);
  std::vector<double> s(4);
  std::vector<u64> v(4);
  const std::vector<const u64*> one = {a.data()};
  const std::vector<const u64*> null_term = {a.data(), nullptr};
  const std::vector<double> inv1 = {0.5}, inv2 = {0.5, 0.25};
  EXPECT_NE(message([&] { vec::fraction_round({}, {}, 4, s, v); }).find("at least one term"),
            std::string::npos);
  EXPECT_NE(message([&] { vec::fraction_round(one, inv2, 4, s, v); }).find("1 terms, 2 inverses"),
            std::string::npos);
  EXPECT_NE(message([&] {
              vec::fraction_round(one, inv1, 4, std::span<double>(s).first(3), v);
            }).find("3 sums and 4 counts"),
            std::string::npos);
  EXPECT_NE(message([&] { vec::fraction_round(null_term, inv2, 4, s, v); }).find("term 1 is null"),
            std::string::npos);
}

// vec::scale_round_parts (the scale-and-round's integer part) on every path this CPU has against
// the scalar loop written out here: G bit for bit, lo and hi word for word; lengths 1..37 and
// 256, words up to 2^62 − 1, μ up to 2^31 − 1.
TEST(VecScaleRoundParts, EveryPathGivesTheScalarLoopsBits) {
  POLYHE_SEEDED_RNG(rng);
  const CpuPath saved = cpu_path();
  for (const std::size_t terms : {std::size_t{1}, std::size_t{8}, std::size_t{17}}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{8}, std::size_t{13},
                                std::size_t{37}, std::size_t{256}}) {
      std::vector<u64> x(terms * n), mu(terms);
      std::vector<double> rho(terms), lambda(terms);
      for (std::size_t i = 0; i < terms; ++i) {
        const bool extreme = i % 4 == 3;
        mu[i] = extreme ? (u64{1} << 31) - 1 : rng.uniform(0, (u64{1} << 31) - 1);
        rho[i] = static_cast<double>(rng.uniform(0, u64{1} << 53)) * 0x1p-53;
        lambda[i] = static_cast<double>(rng.uniform(0, u64{1} << 53)) * 0x1p-53;
        for (std::size_t k = 0; k < n; ++k) {
          x[i * n + k] = extreme ? (u64{1} << 62) - 1 - k : rng.uniform(0, (u64{1} << 62) - 1);
        }
      }
      std::vector<const u64*> ptrs;
      for (std::size_t i = 0; i < terms; ++i) ptrs.push_back(x.data() + i * n);
      std::vector<double> want_g(n, 0.0);
      std::vector<u64> want_lo(n, 0), want_hi(n, 0);
      for (std::size_t i = 0; i < terms; ++i) {
        for (std::size_t k = 0; k < n; ++k) {
          const u64 a = x[i * n + k] >> 31, b = x[i * n + k] & ((u64{1} << 31) - 1);
          want_lo[k] += (a * mu[i]) & 0xFFFFFFFFU;
          want_hi[k] += (a * mu[i]) >> 32;
          const double pa = static_cast<double>(a) * rho[i];
          want_g[k] = want_g[k] + pa;
          const double pb = static_cast<double>(b) * lambda[i];
          want_g[k] = want_g[k] + pb;
        }
      }
      for (std::size_t k = 0; k < n; ++k) {
        want_lo[k] += static_cast<u64>(want_g[k] + 0.5);  // NOLINT(bugprone-incorrect-roundings)
      }
      for (const CpuPath p : kAllCpuPaths) {
        if (p > best_cpu_path()) continue;
        set_cpu_path(p);
        std::vector<double> g(n, -1.0);
        std::vector<u64> lo(n, 7), hi(n, 7);
        vec::scale_round_parts(ptrs, mu, rho, lambda, g, lo, hi);
        for (std::size_t k = 0; k < n; ++k) {
          EXPECT_EQ(std::bit_cast<u64>(g[k]), std::bit_cast<u64>(want_g[k]))
              << to_string(p) << " terms=" << terms << " n=" << n << " k=" << k;
          EXPECT_EQ(lo[k], want_lo[k]) << to_string(p) << " terms=" << terms << " k=" << k;
          EXPECT_EQ(hi[k], want_hi[k]) << to_string(p) << " terms=" << terms << " k=" << k;
        }
      }
    }
  }
  set_cpu_path(saved);
}

TEST(VecScaleRoundParts, RefusesByName) {
  std::vector<u64> a(4, 1), lo(4), hi(4);
  std::vector<double> g(4);
  const std::vector<const u64*> one = {a.data()}, null_term = {nullptr};
  const std::vector<u64> mu = {3}, big_mu = {u64{1} << 31};
  const std::vector<double> c1 = {0.5}, c2 = {0.5, 0.25};
  EXPECT_NE(
      message([&] { vec::scale_round_parts({}, {}, {}, {}, g, lo, hi); }).find("at least one term"),
      std::string::npos);
  EXPECT_NE(message([&] {
              vec::scale_round_parts(one, mu, c2, c1, g, lo, hi);
            }).find("the three constants for each"),
            std::string::npos);
  EXPECT_NE(message([&] {
              vec::scale_round_parts(one, mu, c1, c1, g, std::span<u64>(lo).first(2), hi);
            }).find("three outputs alike"),
            std::string::npos);
  EXPECT_NE(message([&] {
              vec::scale_round_parts(null_term, mu, c1, c1, g, lo, hi);
            }).find("term 0 is null"),
            std::string::npos);
  EXPECT_NE(message([&] {
              vec::scale_round_parts(one, big_mu, c1, c1, g, lo, hi);
            }).find("not below 2^31"),
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
