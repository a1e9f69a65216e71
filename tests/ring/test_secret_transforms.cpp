// The ring's transforms inside a SecretScope (core/wipe.hpp) leave no kernel scratch in use on
// the threads that ran them — on every CPU path this machine has, for x^N + 1 (the AVX2 + FMA
// kernel's work array of doubles) and for Φ_m (the cyclic transforms' buffers) — while the same
// transforms outside a scope leave it as it was (no wipe on public data).
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "polyhe/core/thread_pool.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/poly.hpp"
#include "ring/ring_cases.hpp"
#include "support/cpu_path_test.hpp"

namespace polyhe {
namespace {

/// One thread in the default pool for the test's duration: every limb runs on this thread, whose
/// scratch the test can see.
class OneThread {
 public:
  OneThread() : saved_(thread_count()) { set_thread_count(1); }
  ~OneThread() { set_thread_count(saved_); }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  unsigned saved_;
};

void expect_wiped_in_scope(const std::shared_ptr<const RingContext>& ring, test::TestRng& rng) {
  RnsPoly a = test::random_poly(rng, ring, ring->max_limbs());
  {
    const detail::SecretScope secret;
    a.to_evaluation();
    EXPECT_FALSE(detail::thread_scratch_in_use()) << "to_evaluation";
    a.to_coefficient();
    EXPECT_FALSE(detail::thread_scratch_in_use()) << "to_coefficient";
    std::vector<std::size_t> limbs(ring->max_limbs());
    for (std::size_t i = 0; i < limbs.size(); ++i) limbs[i] = i;
    ring->forward(a.data(), limbs);
    EXPECT_FALSE(detail::thread_scratch_in_use()) << "RingContext::forward";
    ring->inverse(a.data(), limbs);
    EXPECT_FALSE(detail::thread_scratch_in_use()) << "RingContext::inverse";
  }
}

TEST(SecretTransforms, LeaveNoKernelScratchInUse) {
  POLYHE_SEEDED_RNG(rng);
  const OneThread one;
  const test::PathGuard guard;
  const auto pow2 = test::make_ring(1024, 3, 40);  // q < 2^50: the AVX2 path's FMA kernel
  const auto odd = RingContext::create_cyclotomic(1155, powerful_ntt_primes(1155, 50, 2));
  for (const CpuPath path : {CpuPath::scalar, CpuPath::avx2, CpuPath::avx512, CpuPath::ifma}) {
    if (cpu_path_unavailable_reason(path)) continue;
    SCOPED_TRACE(to_string(path));
    set_cpu_path(path);
    expect_wiped_in_scope(pow2, rng);
    expect_wiped_in_scope(odd, rng);
  }
  // Outside a scope nothing is wiped: the cyclic transforms' buffers stay in use.
  RnsPoly b = test::random_poly(rng, odd, odd->max_limbs());
  b.to_evaluation();
  EXPECT_TRUE(detail::thread_scratch_in_use());
  detail::wipe_thread_scratch();
  EXPECT_FALSE(detail::thread_scratch_in_use());
}

}  // namespace
}  // namespace polyhe
