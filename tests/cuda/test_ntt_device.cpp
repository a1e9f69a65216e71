// The device transforms and products (backend/cuda/ntt.hpp) against the CPU's NttPlan and
// polymul, bit for bit: 32- and 64-bit words with several primes each, N = 2^4 … 2^17, one
// block, two passes and one pass on thread-block clusters, every device variant and radix, batches
// of limbs with their own primes, plain and fused products and products with a resident operand.
// Skips, naming the reason, without a device; the argument checks that need a context run only with
// one.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/polyhe.hpp"
#include "support/cuda_context.hpp"
#include "support/test_rng.hpp"

namespace polyhe::cuda {
namespace {

template <Word W>
std::vector<int> prime_bits() {
  if constexpr (sizeof(W) == 4) {
    return {30, 29, 28};
  } else {
    return {62, 60, 50, 40};
  }
}

template <Word W>
struct Batch {
  std::vector<std::shared_ptr<const NttPlan<W>>> owners;
  std::vector<const NttPlan<W>*> plans;
  std::size_t n = 0;
  [[nodiscard]] std::size_t words() const { return plans.size() * n; }
};

/// `limbs` plans over primes of the word's sizes, cycling (limb i: the i-th prime of its size).
template <Word W>
Batch<W> make_batch(unsigned log_n, std::size_t limbs) {
  Batch<W> b;
  b.n = std::size_t{1} << log_n;
  const std::vector<int> bits = prime_bits<W>();
  for (std::size_t i = 0; i < limbs; ++i) {
    const auto primes = ntt_primes(bits[i % bits.size()], b.n, i / bits.size() + 1);
    b.owners.push_back(NttPlan<W>::create(b.n, static_cast<W>(primes.back())));
    b.plans.push_back(b.owners.back().get());
  }
  return b;
}

template <Word W>
std::vector<W> random_words(const Batch<W>& b, test::TestRng& rng) {
  std::vector<W> x(b.words());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<W>(rng.uniform(0, b.plans[i / b.n]->q() - 1));
  }
  x[0] = 0;
  x[1] = 1;
  x[2] = static_cast<W>(b.plans[0]->q() - 1);
  return x;
}

std::string describe(unsigned log_n, std::size_t limbs, NttVariant v, const NttOptions& o) {
  return "log_n " + std::to_string(log_n) + ", limbs " + std::to_string(limbs) + ", " +
         std::string(to_string(v)) + ", radix " + std::to_string(o.radix) + ", kernel " +
         std::to_string(static_cast<int>(o.kernel)) + ", tile " + std::to_string(o.tile_log);
}

/// forward (out of place), inverse (in place), polymul plain and fused against the CPU.
template <Word W>
void check_all(const std::shared_ptr<const Context>& ctx, const Batch<W>& b, NttVariant v,
               const NttOptions& o, test::TestRng& rng, bool products = true) {
  const unsigned log_n = static_cast<unsigned>(b.plans[0]->log_n());
  SCOPED_TRACE(describe(log_n, b.plans.size(), v, o));
  const Stream s = ctx->compute();
  const auto tables = DeviceNttTables<W>::create(ctx, b.plans, v);
  const std::vector<W> x = random_words(b, rng);
  std::vector<W> want = x;
  for (std::size_t i = 0; i < b.plans.size(); ++i) {
    b.plans[i]->forward(std::span<W>(want).subspan(i * b.n, b.n), v);
  }
  const DeviceBuffer<W> dx = to_device(ctx, x, s);
  DeviceBuffer<W> dy(ctx, x.size(), s);
  forward(*tables, dx.cspan(), dy.span(), s, o);
  ASSERT_EQ(to_host(dy.cspan(), s), want) << "forward";
  inverse(*tables, dy.cspan(), dy.span(), s, o);
  ASSERT_EQ(to_host(dy.cspan(), s), x) << "inverse";
  if (!products) return;
  const std::vector<W> y = random_words(b, rng);
  const DeviceBuffer<W> dyb = to_device(ctx, y, s);
  std::vector<W> prod(x.size());
  for (std::size_t i = 0; i < b.plans.size(); ++i) {
    polymul<W>(std::span<const W>(x).subspan(i * b.n, b.n),
               std::span<const W>(y).subspan(i * b.n, b.n),
               std::span<W>(prod).subspan(i * b.n, b.n), *b.plans[i], v);
  }
  for (bool fused : {false, true}) {
    DeviceBuffer<W> dc(ctx, x.size(), s);
    polymul(*tables, dx.cspan(), dyb.cspan(), dc.span(), s, fused, o);
    ASSERT_EQ(to_host(dc.cspan(), s), prod) << (fused ? "fused" : "plain");
  }
}

template <Word W>
class NttDevice : public ::testing::Test {};
using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(NttDevice, Words);

// Every N with the default options (one block up to the tile, two passes beyond), three limbs.
TYPED_TEST(NttDevice, EveryLengthDefaultOptions) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n = 4; log_n <= 17; ++log_n) {
    check_all(ctx, make_batch<W>(log_n, 3), kDefaultNttVariant, NttOptions{}, rng);
  }
}

// Both kernels at every N where they apply, every radix, with small and default tiles.
TYPED_TEST(NttDevice, KernelsAndRadices) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n = 4; log_n <= 17; ++log_n) {
    const Batch<W> b = make_batch<W>(log_n, 2);
    for (unsigned radix : {2u, 4u, 8u, 16u}) {
      for (unsigned tile : {4u, 0u}) {
        check_all(ctx, b, NttVariant::barrett_alg4, NttOptions{radix, NttKernel::two_pass, tile},
                  rng, log_n <= 12);
      }
      if (log_n <= 12) {
        check_all(ctx, b, kDefaultNttVariant, NttOptions{radix, NttKernel::one_block, 0}, rng);
      }
    }
  }
}

// One pass on clusters of 2, 4 and 8 blocks at every N in [2^first, 2^last] where they apply,
// every radix, and the default cluster (64 KiB per block).
template <Word W>
void check_clusters(const std::shared_ptr<const Context>& ctx, unsigned first, unsigned last,
                    test::TestRng& rng) {
  for (unsigned log_n = first; log_n <= last; ++log_n) {
    const Batch<W> b = make_batch<W>(log_n, 3);
    for (unsigned log_k = 1; log_k <= 3; ++log_k) {
      if (log_n < 2 * log_k || log_n < log_k + 2) continue;
      const unsigned tile = log_n - log_k;
      const unsigned log_row_bytes = tile + (sizeof(W) == 8 ? 3u : 2u);
      if (tile > 14 || log_row_bytes > 17) continue;  // rows of at most 128 KiB
      for (unsigned radix : {2u, 4u, 8u, 16u}) {
        check_all(ctx, b, NttVariant::barrett_alg4, NttOptions{radix, NttKernel::cluster, tile},
                  rng, log_row_bytes <= 16);  // a product holds two rows
      }
    }
    check_all(ctx, b, kDefaultNttVariant, NttOptions{8, NttKernel::cluster, 0}, rng, log_n <= 16);
  }
}

// The small rings on their own: quick enough for compute-sanitizer's racecheck (the runbook runs
// it on this test alone; the large rings did not finish under it in 45 s).
TYPED_TEST(NttDevice, ClusterOnePassSmallRings) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  check_clusters<TypeParam>(ctx, 4, 10, rng);
}

// The large rings up to 2^17; every device variant at 2^16; 64 limbs.
TYPED_TEST(NttDevice, ClusterOnePass) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  check_clusters<W>(ctx, 11, 17, rng);
  const Batch<W> b = make_batch<W>(16, 3);
  for (NttVariant v : kAllNttVariants) {
    if (v == NttVariant::reference || !b.plans[0]->supports(v)) continue;
    check_all(ctx, b, v, NttOptions{8, NttKernel::cluster, 0}, rng);
  }
  // 64 limbs, one cluster each.
  check_all(ctx, make_batch<W>(16, 64), kDefaultNttVariant, NttOptions{8, NttKernel::cluster, 0},
            rng, false);
}

// Every device variant (radix 8), one block and two passes.
TYPED_TEST(NttDevice, EveryVariant) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n : {4u, 10u, 13u, 16u}) {
    const Batch<W> b = make_batch<W>(log_n, 3);
    for (NttVariant v : kAllNttVariants) {
      if (v == NttVariant::reference || !b.plans[0]->supports(v)) continue;
      check_all(ctx, b, v, NttOptions{}, rng);
      check_all(ctx, b, v, NttOptions{8, NttKernel::two_pass, 5}, rng);
    }
  }
}

// Batches of 1 … 64 limbs (the batched TOM form) at N = 2^12 and 2^16.
TYPED_TEST(NttDevice, Batches) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n : {12u, 16u}) {
    for (std::size_t limbs : {1u, 7u, 64u}) {
      check_all(ctx, make_batch<W>(log_n, limbs), kDefaultNttVariant, NttOptions{}, rng,
                limbs <= 7);
    }
  }
}

// k products with one operand resident in evaluation form.
TYPED_TEST(NttDevice, ResidentOperand) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  const Stream s = ctx->compute();
  for (unsigned log_n : {4u, 10u, 14u}) {
    const Batch<W> b = make_batch<W>(log_n, 2);
    const auto tables = DeviceNttTables<W>::create(ctx, b.plans);
    for (std::size_t k : {1u, 5u}) {
      for (NttKernel kernel : {NttKernel::automatic, NttKernel::two_pass, NttKernel::cluster}) {
        SCOPED_TRACE("log_n " + std::to_string(log_n) + ", k " + std::to_string(k));
        std::vector<W> a;
        for (std::size_t j = 0; j < k; ++j) {
          const auto x = random_words(b, rng);
          a.insert(a.end(), x.begin(), x.end());
        }
        const std::vector<W> y = random_words(b, rng);
        std::vector<W> want(a.size());
        for (std::size_t j = 0; j < k; ++j) {
          for (std::size_t i = 0; i < b.plans.size(); ++i) {
            const std::size_t off = j * b.words() + i * b.n;
            polymul<W>(std::span<const W>(a).subspan(off, b.n),
                       std::span<const W>(y).subspan(i * b.n, b.n),
                       std::span<W>(want).subspan(off, b.n), *b.plans[i]);
          }
        }
        const DeviceBuffer<W> dy = to_device(ctx, y, s);
        DeviceBuffer<W> dy_hat(ctx, y.size(), s);
        forward(*tables, dy.cspan(), dy_hat.span(), s);
        const DeviceBuffer<W> da = to_device(ctx, a, s);
        DeviceBuffer<W> dc(ctx, a.size(), s);
        polymul_evaluated(*tables, da.cspan(), dy_hat.cspan(), dc.span(), s,
                          NttOptions{8, kernel, 0});
        ASSERT_EQ(to_host(dc.cspan(), s), want);
      }
    }
  }
}

// Bad arguments: InvalidParameter or MismatchedContext naming the value, nothing launched.
TEST(NttDeviceArguments, Refused) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  using W = std::uint64_t;
  const Stream s = ctx->compute();
  const Batch<W> b = make_batch<W>(10, 2);
  EXPECT_THROW((void)DeviceNttTables<W>::create(ctx, b.plans, NttVariant::reference),
               InvalidParameter);
  const Batch<W> other = make_batch<W>(11, 1);
  const std::vector<const NttPlan<W>*> mixed{b.plans[0], other.plans[0]};
  EXPECT_THROW((void)DeviceNttTables<W>::create(ctx, mixed), MismatchedContext);
  const auto tables = DeviceNttTables<W>::create(ctx, b.plans);
  DeviceBuffer<W> x(ctx, b.words(), s);
  DeviceBuffer<W> small(ctx, b.words() - 1, s);
  EXPECT_THROW(forward(*tables, small.cspan(), x.span(), s), InvalidParameter);
  EXPECT_THROW(forward(*tables, x.cspan(), x.span().subspan(1, b.words() - 1), s),
               InvalidParameter);
  EXPECT_THROW(forward(*tables, x.cspan(), x.span(), s, NttOptions{3}), InvalidParameter);
  DeviceBuffer<W> big(ctx, 2 * b.words(), s);
  // dst overlapping src by half.
  EXPECT_THROW(
      forward(*tables, big.cspan().subspan(0, b.words()), big.span().subspan(b.n, b.words()), s),
      InvalidParameter);
  const auto montgomery = DeviceNttTables<W>::create(ctx, b.plans, NttVariant::montgomery);
  EXPECT_THROW(forward(*montgomery, x.cspan(), x.span(), s, NttOptions{16}), InvalidParameter);
  EXPECT_THROW(polymul_evaluated(*tables, small.cspan(), x.cspan(), small.span(), s),
               InvalidParameter);
  // Clusters of 16 blocks; a product whose two rows (2·2^14 64-bit words, 256 KiB) outgrow
  // shared memory.
  EXPECT_THROW(forward(*tables, x.cspan(), x.span(), s, NttOptions{8, NttKernel::cluster, 6}),
               InvalidParameter);
  const Batch<W> large = make_batch<W>(17, 1);
  const auto large_tables = DeviceNttTables<W>::create(ctx, large.plans);
  DeviceBuffer<W> y(ctx, large.words(), s);
  EXPECT_THROW(polymul(*large_tables, y.cspan(), y.cspan(), y.span(), s, false,
                       NttOptions{8, NttKernel::cluster, 0}),
               InvalidParameter);
  synchronize(s);
}

}  // namespace
}  // namespace polyhe::cuda
