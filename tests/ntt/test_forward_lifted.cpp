// NttPlan::forward_lifted (the per-limb step of rescaling: out = (c − forward(lift(x)))·s mod q;
// and ModUp's plain form out = forward(lift(x))) and the out-of-place inverse, on every CPU path
// (CTest runs this binary once per path, with POLYHE_CPU set), against a reference built from
// independent pieces: the centred lift in 128-bit arithmetic, the scalar kernel's forward
// transform, and (c − y)·s mod q in 128-bit arithmetic. The fused forms (IFMA, and the AVX2 and
// AVX-512 double-precision kernels') must give the same words; the plain form also the same words
// as vec::lift_centred then forward on its own path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/polyhe.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

using ForwardLifted = test::CpuPathTest;

/// The largest NTT prime of `bits` bits for n, and the smallest.
std::vector<u64> primes_of(int bits, std::size_t n) {
  const u64 top = ntt_primes(bits, n, 1)[0];
  const u64 two_n = 2 * static_cast<u64>(n);
  u64 q = ((u64{1} << (bits - 1)) / two_n + 1) * two_n + 1;
  while (!is_prime(q)) q += two_n;
  return q == top ? std::vector<u64>{top} : std::vector<u64>{top, q};
}

/// The source moduli p for a target q: p < 2q (the IFMA kernel's short lift), 2q < p ≤ 2^52 − q
/// (its long lift), 2^52 − q < p < 2^52 (its lift through a full reduction), p ≥ 2^52 (no fused
/// form), tiny p, and p = q.
std::vector<u64> sources_for(u64 q) {
  std::vector<u64> ps{2,
                      3,
                      65537,
                      q,
                      q + 2,
                      2 * q - 1,
                      2 * q + 1,
                      (u64{1} << 52) - 1,
                      u64{1} << 52,
                      (u64{1} << 62) - 57};
  if (q > 100) ps.push_back(q - 100);
  if (q < (u64{1} << 51)) {
    ps.push_back((u64{1} << 52) - q);
    ps.push_back((u64{1} << 52) - q + 1);
  }
  return ps;
}

/// The target primes for n: the largest and smallest NTT primes of 20 … 60 bits, around the
/// IFMA kernel's bounds (2^46: the uncorrected schedule; 2^50: the kernel itself).
std::vector<u64> targets_for(std::size_t n) {
  std::vector<u64> qs;
  for (int bits : {20, 40, 46, 47, 49, 50, 60}) {
    if (bit_length(2 * static_cast<u64>(n) + 1) >= bits) continue;
    for (u64 q : primes_of(bits, n)) qs.push_back(q);
  }
  return qs;
}

/// forward(lift(x)) by the scalar kernel, the lift in 128-bit arithmetic.
std::vector<u64> lifted_reference(const NttPlan<u64>& plan, const std::vector<u64>& x, u64 p) {
  const u64 q = plan.q();
  std::vector<u64> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    // x_c = x or x − p; x_c mod q with (x − p) mod q = (x mod q + q − p mod q) mod q.
    const u64 r = x[i] % q;
    y[i] = x[i] > p / 2 ? static_cast<u64>((static_cast<u128>(r) + q - p % q) % q) : r;
  }
  plan.cpu_kernel(CpuPath::scalar)->forward(y.data());
  return y;
}

std::vector<u64> reference(const NttPlan<u64>& plan, const std::vector<u64>& x, u64 p,
                           const std::vector<u64>& c, u64 s) {
  const u64 q = plan.q();
  const std::vector<u64> y = lifted_reference(plan, x, p);
  std::vector<u64> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    out[i] = static_cast<u64>(static_cast<u128>((c[i] + q - y[i]) % q) * s % q);
  }
  return out;
}

TEST_F(ForwardLifted, EqualsTheComposedStepsOnEveryPath) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n : {4, 6, 7, 8, 11, 13, 14, 16, 17}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (u64 q : targets_for(n)) {
      const auto plan = NttPlan<u64>::create(n, q);
      for (u64 p : sources_for(q)) {
        const std::string where = "N=" + std::to_string(n) + " q=" + std::to_string(q) +
                                  " p=" + std::to_string(p) + " path " +
                                  std::string(to_string(path_));
        std::vector<u64> x(n), c(n);
        for (auto& v : x) v = rng.uniform(0, p - 1);
        for (auto& v : c) v = rng.uniform(0, q - 1);
        // Edge words: the lift's boundary ⌊p/2⌋ and the ends of both ranges.
        x[0] = 0;
        x[1] = p - 1;
        x[2] = p / 2;
        x[3] = std::min(p - 1, p / 2 + 1);
        c[0] = 0;
        c[1] = q - 1;
        for (u64 s : {u64{0}, u64{1}, q - 1, rng.uniform(0, q - 1)}) {
          const auto want = reference(*plan, x, p, c, s);
          std::vector<u64> out(n), work(n);
          plan->forward_lifted(x, p, c, s, out, work);  // separate work
          ASSERT_EQ(out, want) << where << " s=" << s;
          std::fill(out.begin(), out.end(), 0);
          plan->forward_lifted(x, p, c, s, out, out);  // work = out
          ASSERT_EQ(out, want) << where << " s=" << s << " (work = out)";
          std::vector<u64> in_place = c;
          plan->forward_lifted(x, p, in_place, s, in_place, work);  // out = c
          ASSERT_EQ(in_place, want) << where << " s=" << s << " (in place)";
        }
      }
    }
  }
}

TEST_F(ForwardLifted, ChecksItsArguments) {
  const std::size_t n = 64;
  const u64 q = ntt_primes(40, n, 1)[0];
  const auto plan = NttPlan<u64>::create(n, q);
  std::vector<u64> x(n), c(n), out(n), work(n), shorter(n - 1);
  EXPECT_THROW(plan->forward_lifted(shorter, 7, c, 1, out, work), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 1, c, 1, out, work), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, u64{1} << 62, c, 1, out, work), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 7, c, q, out, work), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 7, c, 1, out, c), InvalidParameter);   // work = c
  EXPECT_THROW(plan->forward_lifted(x, 7, c, 1, out, x), InvalidParameter);   // work = x
  EXPECT_THROW(plan->forward_lifted(x, 7, c, 1, x, work), InvalidParameter);  // out = x
  std::vector<u64> big(2 * n);
  const std::span<u64> b(big);
  EXPECT_THROW(plan->forward_lifted(x, 7, b.first(n), 1, b.subspan(1, n), work),
               InvalidParameter);  // out overlaps c without being it
}

TEST_F(ForwardLifted, PlainFormEqualsLiftThenForwardOnEveryPath) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n = 4; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    for (u64 q : targets_for(n)) {
      const auto plan = NttPlan<u64>::create(n, q);
      for (u64 p : sources_for(q)) {
        const std::string where = "N=" + std::to_string(n) + " q=" + std::to_string(q) +
                                  " p=" + std::to_string(p) + " path " +
                                  std::string(to_string(path_));
        std::vector<u64> x(n);
        for (auto& v : x) v = rng.uniform(0, p - 1);
        x[0] = 0;
        x[1] = p - 1;
        x[2] = p / 2;
        x[3] = std::min(p - 1, p / 2 + 1);
        std::vector<u64> composed(n);
        vec::lift_centred(x, p, composed, plan->modulus());
        plan->forward(composed);
        std::vector<u64> out(n, ~u64{0});  // every word must be written
        plan->forward_lifted(x, p, out);
        ASSERT_EQ(out, composed) << where;
        ASSERT_EQ(out, lifted_reference(*plan, x, p)) << where << " (scalar reference)";
        // The kernel fuses exactly where the IFMA kernel serves (n, q) or the AVX2 or AVX-512
        // kernel is its double-precision one (q < 2^50; the AVX2 one also serves the avx512 path
        // below 32 points), and p < 2^52.
        const cpu::NttKernel64& kernel = *plan->cpu_kernel();
        const bool fma = kernel.path() == CpuPath::avx2 || kernel.path() == CpuPath::avx512;
        const bool fused = p < (u64{1} << 52) && ((kernel.path() == CpuPath::ifma && n >= 128) ||
                                                  (fma && q < (u64{1} << 50)));
        std::vector<u64> direct(n, ~u64{0});
        ASSERT_EQ(kernel.forward_from_lifted(x.data(), p, direct.data()), fused) << where;
        if (fused) {
          ASSERT_EQ(direct, composed) << where << " (kernel)";
        }
      }
    }
  }
}

TEST_F(ForwardLifted, PlainFormChecksItsArguments) {
  const std::size_t n = 256;
  const u64 q = ntt_primes(40, n, 1)[0];
  const auto plan = NttPlan<u64>::create(n, q);
  std::vector<u64> x(n), out(n), shorter(n - 1), longer(n + 1);
  EXPECT_THROW(plan->forward_lifted(shorter, 7, out), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 7, shorter), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(longer, 7, out), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 0, out), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 1, out), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, u64{1} << 62, out), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(x, 7, x), InvalidParameter);  // out = x
  std::vector<u64> big(2 * n);
  const std::span<u64> b(big);
  EXPECT_THROW(plan->forward_lifted(b.first(n), 7, b.subspan(n - 1, n)), InvalidParameter);
  EXPECT_THROW(plan->forward_lifted(b.subspan(1, n), 7, b.first(n)), InvalidParameter);
  EXPECT_NO_THROW(plan->forward_lifted(b.first(n), 7, b.subspan(n, n)));  // adjacent
  EXPECT_NO_THROW(plan->forward_lifted(x, 2, out));
  EXPECT_NO_THROW(plan->forward_lifted(x, (u64{1} << 62) - 57, out));
}

TEST_F(ForwardLifted, OutOfPlaceInverseEqualsInPlace) {
  POLYHE_SEEDED_RNG(rng);
  for (int log_n : {4, 6, 7, 12, 14, 16}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (int bits : {30, 40, 50, 60}) {
      const u64 q = ntt_primes(bits, n, 1)[0];
      const auto plan = NttPlan<u64>::create(n, q);
      std::vector<u64> a(n);
      for (auto& v : a) v = rng.uniform(0, q - 1);
      const std::vector<u64> in = a;
      std::vector<u64> out(n);
      plan->inverse(std::span<const u64>(in), out);
      plan->inverse(a);
      ASSERT_EQ(out, a) << "N=" << n << " q=" << q;
      std::vector<u64> same = in;
      plan->inverse(std::span<const u64>(same), same);
      ASSERT_EQ(same, a) << "N=" << n << " q=" << q << " (in = out)";
      std::vector<u64> big(2 * n);
      EXPECT_THROW(
          plan->inverse(std::span<const u64>(big).first(n), std::span<u64>(big).subspan(1, n)),
          InvalidParameter);
    }
  }
}

}  // namespace
}  // namespace polyhe
