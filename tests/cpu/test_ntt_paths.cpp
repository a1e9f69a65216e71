// Every CPU path equals the scalar path bit for bit. The path under test is chosen the way users
// choose it: by POLYHE_CPU (CTest runs this binary once per path); a path this CPU lacks skips,
// naming the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/polyhe.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

using NttPaths = test::CpuPathTest;

/// Primes at the ends of each size class (IFMA and the double-precision kernels: below 2^50;
/// the integer kernels: up to 62 bits, their arithmetic chosen below 2^60, below 2^61 and from
/// 2^61): the smallest and the largest NTT prime of each boundary bit length.
std::vector<u64> boundary_primes(std::size_t n) {
  std::vector<u64> qs;
  for (int bits : {20, 32, 49, 50, 51, 60, 61, 62}) {
    if (bit_length(2 * static_cast<u64>(n) + 1) > bits) continue;
    const auto top = ntt_primes(bits, n, 1)[0];
    qs.push_back(top);
    // The smallest prime of this length: scan upwards from 2^(bits−1) + 1 in steps of 2n.
    const u64 two_n = 2 * static_cast<u64>(n);
    u64 q = ((u64{1} << (bits - 1)) / two_n + 1) * two_n + 1;
    while (!is_prime(q)) q += two_n;
    if (q != top) qs.push_back(q);
  }
  return qs;
}

/// The path a prime should be served by, given the path asked for.
CpuPath expected_path(CpuPath asked, u64 q, std::size_t n) {
  (void)n;
  if (asked == CpuPath::ifma && q >= (u64{1} << 50)) return CpuPath::avx512;
  return asked;
}

std::vector<std::vector<u64>> inputs(test::TestRng& rng, std::size_t n, u64 q) {
  std::vector<std::vector<u64>> in;
  std::vector<u64> r(n), s(n);
  for (auto& x : r) x = rng.uniform(0, q - 1);
  for (auto& x : s) x = rng.uniform(0, q - 1);
  in.push_back(r);
  in.push_back(s);
  in.emplace_back(n, 0);
  in.emplace_back(n, q - 1);
  std::vector<u64> one(n, 0);
  one[0] = 1;
  in.push_back(one);
  std::vector<u64> mono(n, 0);
  mono[n - 1] = q - 1;
  in.push_back(mono);
  return in;
}

TEST_F(NttPaths, EqualsScalarBitForBit) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 4; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    for (u64 q : boundary_primes(n)) {
      auto plan = NttPlan<u64>::create(n, q);
      const cpu::NttKernel64* scalar = plan->cpu_kernel(CpuPath::scalar);
      const cpu::NttKernel64* kernel = plan->cpu_kernel(path_);
      ASSERT_NE(kernel, nullptr);
      ASSERT_EQ(plan->cpu_kernel(), kernel) << "the plan must follow POLYHE_CPU";
      // A SIMD kernel may decline a small n (falling back to a lower path); otherwise the
      // prime's size class decides.
      if (kernel->path() != expected_path(path_, q, n)) {
        EXPECT_LT(kernel->path(), expected_path(path_, q, n));
        EXPECT_LE(log_n, 5) << "path " << to_string(path_) << " declined N=" << n << " q=" << q;
      }
      const auto in = inputs(rng, n, q);
      for (std::size_t k = 0; k < in.size(); ++k) {
        const auto& a = in[k];
        const auto& b = in[(k + 1) % in.size()];
        std::string where = "N=" + std::to_string(n) + " q=" + std::to_string(q) + " input " +
                            std::to_string(k) + " path " + std::string(to_string(kernel->path()));
        auto x = a, y = a, z = a;
        scalar->forward(x.data());
        kernel->forward(y.data());
        ASSERT_EQ(x, y) << "forward " << where;
        // The scalar kernel itself against independent code: the generic schedule with
        // Montgomery butterflies.
        plan->forward(z, NttVariant::montgomery);
        ASSERT_EQ(x, z) << "scalar kernel vs montgomery variant, forward " << where;
        scalar->inverse(x.data());
        kernel->inverse(y.data());
        ASSERT_EQ(x, y) << "inverse " << where;
        ASSERT_EQ(y, a) << "round trip " << where;
        std::vector<u64> c(n), d(n), fc(n), fd(n);
        polymul<u64>(a, b, c, *plan);  // through the public API: the active path
        {
          auto ta = a, tb = b;
          scalar->forward(ta.data());
          scalar->forward(tb.data());
          scalar->hadamard(ta.data(), tb.data(), ta.data());
          scalar->inverse(ta.data());
          d = ta;
        }
        ASSERT_EQ(c, d) << "polymul " << where;
        polymul_fused<u64>(a, b, fc, *plan);
        {
          auto ta = a, tb = b;
          scalar->forward_truncated(ta.data());
          scalar->forward_truncated(tb.data());
          scalar->fused_hadamard(ta.data(), tb.data(), ta.data());
          scalar->inverse_truncated(ta.data());
          fd = ta;
        }
        ASSERT_EQ(fc, fd) << "polymul_fused " << where;
        {
          // The middle step alone on the raw inputs (any words in [0, q), edges included), and
          // in place on its first operand.
          std::vector<u64> s(n), v(n);
          scalar->fused_hadamard(a.data(), b.data(), s.data());
          kernel->fused_hadamard(a.data(), b.data(), v.data());
          ASSERT_EQ(s, v) << "fused_hadamard " << where;
          auto w = a;
          kernel->fused_hadamard(w.data(), b.data(), w.data());
          ASSERT_EQ(s, w) << "fused_hadamard in place " << where;
        }
        ASSERT_EQ(fc, c) << "fused vs unfused " << where;
        std::vector<u64> e(n);
        polymul<u64>(a, b, e, *plan, NttVariant::montgomery);
        ASSERT_EQ(c, e) << "polymul vs montgomery variant " << where;
      }
    }
  }
}

// Kernels take any pointer: a 64-byte-aligned buffer and odd word offsets (the SIMD kernels route
// misaligned data differently from aligned data) must give the same results.
TEST_F(NttPaths, AnyAlignmentAndAliasing) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n : {5, 6, 10, 15, 16}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (u64 q : {ntt_primes(49, n, 1)[0], ntt_primes(62, n, 1)[0]}) {
      auto plan = NttPlan<u64>::create(n, q);
      const cpu::NttKernel64* scalar = plan->cpu_kernel(CpuPath::scalar);
      const cpu::NttKernel64* kernel = plan->cpu_kernel(path_);
      std::vector<u64> a(n), b(n);
      for (auto& x : a) x = rng.uniform(0, q - 1);
      for (auto& x : b) x = rng.uniform(0, q - 1);
      auto fa = a, fb = b;
      scalar->forward(fa.data());
      scalar->forward(fb.data());
      std::vector<u64> product(n);
      scalar->hadamard(fa.data(), fb.data(), product.data());
      for (std::size_t offset : {0, 1, 2, 7, 8}) {
        const std::string where = "N=" + std::to_string(n) + " q=" + std::to_string(q) +
                                  " offset " + std::to_string(offset) + " words from 64 bytes";
        AlignedVector<u64> buf(n + 16), other(n + 16);
        u64* x = buf.data() + offset;
        u64* y = other.data() + offset;
        std::copy(a.begin(), a.end(), x);
        kernel->forward(x);
        ASSERT_TRUE(std::equal(fa.begin(), fa.end(), x)) << "forward " << where;
        std::copy(fb.begin(), fb.end(), y);
        kernel->hadamard(x, y, x);  // c aliasing a
        ASSERT_TRUE(std::equal(product.begin(), product.end(), x)) << "hadamard " << where;
        std::copy(fa.begin(), fa.end(), x);
        kernel->hadamard(x, y, y);  // c aliasing b
        ASSERT_TRUE(std::equal(product.begin(), product.end(), y)) << "hadamard " << where;
        kernel->inverse(y);
        auto expected = product;
        scalar->inverse(expected.data());
        ASSERT_TRUE(std::equal(expected.begin(), expected.end(), y)) << "inverse " << where;
      }
    }
  }
}

TEST(CpuPathSwitch, RefusesWhatTheCpuLacks) {
  for (CpuPath p : kAllCpuPaths) {
    if (auto why = cpu_path_unavailable_reason(p)) {
      EXPECT_THROW(set_cpu_path(p), InvalidParameter) << *why;
      EXPECT_GT(p, best_cpu_path());
    } else {
      EXPECT_LE(p, best_cpu_path());
    }
  }
  EXPECT_FALSE(best_cpu_path_reason().empty());
  EXPECT_EQ(parse_cpu_path("avx512"), CpuPath::avx512);
  EXPECT_EQ(parse_cpu_path("avx2"), CpuPath::avx2);
  EXPECT_FALSE(parse_cpu_path("sse2").has_value());
}

}  // namespace
}  // namespace polyhe
