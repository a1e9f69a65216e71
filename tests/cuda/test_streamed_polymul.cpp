// StreamedPolymul (backend/cuda/streamed_polymul.hpp) against the CPU's polymul, bit for bit: a
// batch of random polynomials streamed through 2 or 3 slots in chunks of several sizes (a
// partial last chunk, one chunk larger than the batch), from page-locked and from pageable host
// memory, on 32- and 64-bit words, one and three limbs. Skips, naming the reason, without a
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/backend/cuda/streamed_polymul.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "support/cuda_context.hpp"
#include "support/test_rng.hpp"

namespace polyhe::cuda {
namespace {

using test::TestRng;

/// `limbs` distinct primes of `bits` bits for length n, their plans and device tables.
template <Word W>
struct Shape {
  std::vector<std::shared_ptr<const NttPlan<W>>> plans;
  std::shared_ptr<const DeviceNttTables<W>> tables;

  Shape(const std::shared_ptr<const Context>& ctx, std::size_t n, int bits, std::size_t limbs) {
    std::vector<const NttPlan<W>*> raw;
    for (std::uint64_t q : ntt_primes(bits, n, limbs)) {
      plans.push_back(NttPlan<W>::create(n, static_cast<W>(q)));
      raw.push_back(plans.back().get());
    }
    tables = DeviceNttTables<W>::create(ctx, raw);
  }
  [[nodiscard]] std::size_t n() const { return tables->n(); }
  [[nodiscard]] std::size_t words() const { return tables->words(); }

  /// count random polynomials (every word in [0, q_i); word 0 of each limb is q_i − 1).
  std::vector<W> random(std::size_t count, TestRng& rng) const {
    std::vector<W> v(count * words());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const W q = plans[(i / n()) % plans.size()]->q();
      v[i] = i % n() == 0 ? static_cast<W>(q - 1) : static_cast<W>(rng.uniform(0, q - 1));
    }
    return v;
  }

  /// The CPU's products c_k = a_k·b, limb by limb.
  std::vector<W> reference(const std::vector<W>& a, const std::vector<W>& b) const {
    std::vector<W> c(a.size());
    const std::size_t n = this->n();
    for (std::size_t off = 0; off < a.size(); off += n) {
      const std::size_t limb = (off / n) % plans.size();
      polymul<W>(std::span<const W>(a).subspan(off, n), std::span<const W>(b).subspan(limb * n, n),
                 std::span<W>(c).subspan(off, n), *plans[limb]);
    }
    return c;
  }
};

template <Word W>
void check_streamed(const std::shared_ptr<const Context>& ctx, std::size_t log_n, int bits,
                    std::size_t limbs, TestRng& rng) {
  const Shape<W> shape(ctx, std::size_t{1} << log_n, bits, limbs);
  constexpr std::size_t kCount = 11;
  const std::vector<W> b = shape.random(1, rng);
  const std::vector<W> a = shape.random(kCount, rng);
  const std::vector<W> want = shape.reference(a, b);
  PinnedBuffer<W> a_pinned(a.size());
  PinnedBuffer<W> c_pinned(a.size());
  std::copy(a.begin(), a.end(), a_pinned.data());
  for (unsigned depth : {2U, 3U}) {
    for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{4}, kCount, kCount + 5}) {
      SCOPED_TRACE("log_n " + std::to_string(log_n) + ", " + std::to_string(bits) + " bits, " +
                   std::to_string(limbs) + " limbs, depth " + std::to_string(depth) + ", chunk " +
                   std::to_string(chunk));
      StreamedPolymul<W> streamed(shape.tables, b, chunk, depth);
      std::fill(c_pinned.data(), c_pinned.data() + c_pinned.size(), W{0});
      streamed.run(std::span<const W>(a_pinned.span()), c_pinned.span());
      ASSERT_EQ(std::vector<W>(c_pinned.data(), c_pinned.data() + c_pinned.size()), want)
          << "pinned";
      // Twice through the same object: every slot must be free again after a run.
      std::vector<W> c(a.size(), 0);
      streamed.run(a, c);
      ASSERT_EQ(c, want) << "pageable, second run";
      // A shorter batch than the first: three polynomials.
      std::vector<W> c3(3 * shape.words(), 0);
      streamed.run(std::span<const W>(a).first(c3.size()), c3);
      ASSERT_EQ(c3, std::vector<W>(want.begin(), want.begin() + c3.size())) << "three";
    }
  }
}

TEST(StreamedPolymul, EqualsCpuPolymulOn32BitWords) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  check_streamed<std::uint32_t>(ctx, 10, 30, 1, rng);
  check_streamed<std::uint32_t>(ctx, 10, 30, 3, rng);
}

TEST(StreamedPolymul, EqualsCpuPolymulOn64BitWords) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  check_streamed<std::uint64_t>(ctx, 12, 60, 1, rng);
  check_streamed<std::uint64_t>(ctx, 12, 60, 3, rng);
}

TEST(StreamedPolymul, EmptyBatchDoesNothing) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  const Shape<std::uint32_t> shape(ctx, 1024, 30, 1);
  StreamedPolymul<std::uint32_t> streamed(shape.tables, shape.random(1, rng), 4);
  streamed.run({}, {});
}

TEST(StreamedPolymul, RefusesBadSizesAndSettings) {
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  using W = std::uint32_t;
  const Shape<W> shape(ctx, 1024, 30, 2);
  const std::vector<W> b = shape.random(1, rng);
  EXPECT_THROW(StreamedPolymul<W>(nullptr, b, 4), InvalidParameter);
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, std::span<const W>(b).first(1024), 4),
               InvalidParameter);
  std::vector<W> big = b;
  big[1500] = shape.plans[1]->q();
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, big, 4), InvalidParameter);
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, b, 0), InvalidParameter);
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, b, 4, 1), InvalidParameter);
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, b, 4, 9), InvalidParameter);
  NttOptions bad;
  bad.radix = 3;
  EXPECT_THROW(StreamedPolymul<W>(shape.tables, b, 4, 3, bad), InvalidParameter);

  StreamedPolymul<W> streamed(shape.tables, b, 4);
  const std::vector<W> a = shape.random(3, rng);
  std::vector<W> c(a.size());
  EXPECT_THROW(streamed.run(a, std::span<W>(c).first(c.size() - 2048)), InvalidParameter);
  EXPECT_THROW(
      streamed.run(std::span<const W>(a).first(a.size() - 1), std::span<W>(c).first(c.size() - 1)),
      InvalidParameter);
  // Still usable after a refused call.
  streamed.run(a, c);
  EXPECT_EQ(c, shape.reference(a, b));
}

}  // namespace
}  // namespace polyhe::cuda
