// The CUDA backend's NTT block programs (src/cuda/ntt_body.hpp), in the very sequence the device
// runs them (src/cuda/ntt_programs.hpp), emulated on the host thread by thread: every transform
// and product must give the words of the CPU's (NttPlan::forward / inverse, polymul,
// polymul_fused) for 32- and 64-bit words, every variant, radix 2 … 16, one block or two passes
// with several tile sizes, N = 2 … 2^17, several limbs with their own primes, and threads and
// blocks run in increasing, decreasing and shuffled order (a race between threads of a phase or
// blocks of a launch would make the orders disagree). Runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "cuda/emulate.hpp"
#include "cuda/ntt_programs.hpp"
#include "cuda/ring_ntt_options.hpp"
#include "polyhe/polyhe.hpp"
#include "support/scoped_env.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using cuda::detail::EmulationOrder;

template <Word W>
struct Limbs {
  std::vector<std::shared_ptr<const NttPlan<W>>> owners;
  std::vector<const NttPlan<W>*> plans;
  std::size_t n = 0;
};

/// One plan per limb, with primes of the given sizes (each ≡ 1 mod 2n).
template <Word W>
Limbs<W> make_limbs(unsigned log_n, const std::vector<int>& bits) {
  Limbs<W> l;
  l.n = std::size_t{1} << log_n;
  for (int b : bits) {
    const W q = static_cast<W>(ntt_primes(b, l.n, 1)[0]);
    l.owners.push_back(NttPlan<W>::create(l.n, q));
    l.plans.push_back(l.owners.back().get());
  }
  return l;
}

template <Word W>
std::vector<W> random_limbs(const Limbs<W>& l, test::TestRng& rng) {
  std::vector<W> x(l.plans.size() * l.n);
  for (std::size_t i = 0; i < l.plans.size(); ++i) {
    for (std::size_t j = 0; j < l.n; ++j)
      x[i * l.n + j] = static_cast<W>(rng.uniform(0, l.plans[i]->q() - 1));
  }
  // Edge values in the first limb: 0, 1, q − 1.
  x[0] = 0;
  if (l.n > 1) x[1] = 1;
  if (l.n > 2) x[2] = static_cast<W>(l.plans[0]->q() - 1);
  return x;
}

struct Shape {
  unsigned r_max;
  bool split;
  unsigned tile_log;
  EmulationOrder order;
  unsigned log_k = 0;  // > 0: one pass on clusters of 2^log_k blocks (split, tile_log unused)
};

std::string describe(unsigned log_n, NttVariant v, const Shape& s) {
  const std::string kernel = s.log_k != 0 ? ", cluster of 2^" + std::to_string(s.log_k)
                             : s.split    ? ", split, tile 2^" + std::to_string(s.tile_log)
                                          : ", one block";
  return "log_n " + std::to_string(log_n) + ", " + std::string(to_string(v)) + ", radix 2^" +
         std::to_string(s.r_max) + kernel + ", order " + std::to_string(static_cast<int>(s.order));
}

cuda::detail::NttLayout layout_for(unsigned log_n, std::size_t limbs, const Shape& s) {
  const auto l = static_cast<unsigned>(limbs);
  if (s.log_k != 0) return cuda::detail::make_cluster_layout(log_n, l, s.r_max, s.log_k);
  return cuda::detail::make_layout(log_n, l, s.r_max, s.split, s.tile_log);
}

/// The emulated transform (forward, then inverse of the result) against the CPU's.
template <Word W>
void check_transform(const Limbs<W>& l, NttVariant v, const Shape& s, test::TestRng& rng) {
  const unsigned log_n = static_cast<unsigned>(l.plans[0]->log_n());
  SCOPED_TRACE(describe(log_n, v, s));
  const std::vector<W> x = random_limbs(l, rng);
  std::vector<W> expect = x;
  for (std::size_t i = 0; i < l.plans.size(); ++i) {
    l.plans[i]->forward(std::span<W>(expect).subspan(i * l.n, l.n), v);
  }
  const auto layout = layout_for(log_n, l.plans.size(), s);
  std::vector<W> y(x.size(), W{0x5a});
  cuda::detail::with_policies<W>(l.plans, v, [&](auto policies) {
    cuda::detail::with_radix(s.r_max, [&](auto rmax) {
      auto emulate = [&](const auto& program) {
        cuda::detail::emulate(program, s.order, rng.bits());
      };
      // Out of place forward, then the inverse in place.
      cuda::detail::run_transform<rmax()>(layout, policies.data(), x.data(), y.data(), false,
                                          emulate);
      ASSERT_EQ(y, expect) << "forward";
      cuda::detail::run_transform<rmax()>(layout, policies.data(), y.data(), y.data(), true,
                                          emulate);
      ASSERT_EQ(y, x) << "inverse";
    });
  });
}

/// The emulated product (plain and fused) against the CPU's.
template <Word W>
void check_polymul(const Limbs<W>& l, NttVariant v, const Shape& s, test::TestRng& rng) {
  const unsigned log_n = static_cast<unsigned>(l.plans[0]->log_n());
  SCOPED_TRACE(describe(log_n, v, s));
  const std::vector<W> a = random_limbs(l, rng);
  const std::vector<W> b = random_limbs(l, rng);
  std::vector<W> expect(a.size());
  for (std::size_t i = 0; i < l.plans.size(); ++i) {
    const auto sub = [&](const std::vector<W>& x) {
      return std::span<const W>(x).subspan(i * l.n, l.n);
    };
    polymul<W>(sub(a), sub(b), std::span<W>(expect).subspan(i * l.n, l.n), *l.plans[i], v);
  }
  const auto layout = layout_for(log_n, l.plans.size(), s);
  cuda::detail::with_policies<W>(l.plans, v, [&](auto policies) {
    cuda::detail::with_radix(s.r_max, [&](auto rmax) {
      auto emulate = [&](const auto& program) {
        cuda::detail::emulate(program, s.order, rng.bits());
      };
      for (bool fused : {false, true}) {
        SCOPED_TRACE(fused ? "fused" : "plain");
        std::vector<W> c(a.size(), W{0x5a});
        std::vector<W> work(2 * a.size(), W{0x33});
        cuda::detail::run_polymul<rmax()>(layout, policies.data(), a.data(), b.data(), c.data(),
                                          work.data(), fused, false, emulate);
        ASSERT_EQ(c, expect);
        // In place: c = a.
        std::vector<W> c2 = a;
        cuda::detail::run_polymul<rmax()>(layout, policies.data(), c2.data(), b.data(), c2.data(),
                                          work.data(), fused, false, emulate);
        ASSERT_EQ(c2, expect) << "c = a";
      }
    });
  });
}

/// k products with b resident in evaluation form (polymul_evaluated's programs: limb i of a under
/// policy i % limbs) against the CPU's product of each polynomial.
template <Word W>
void check_evaluated(const Limbs<W>& l, std::size_t k, const Shape& s, test::TestRng& rng) {
  const unsigned log_n = static_cast<unsigned>(l.plans[0]->log_n());
  SCOPED_TRACE(describe(log_n, kDefaultNttVariant, s) + ", " + std::to_string(k) + " products");
  const std::size_t words = l.plans.size() * l.n;
  std::vector<W> a;
  for (std::size_t j = 0; j < k; ++j) {
    const std::vector<W> x = random_limbs(l, rng);
    a.insert(a.end(), x.begin(), x.end());
  }
  const std::vector<W> b = random_limbs(l, rng);
  std::vector<W> b_hat = b;
  std::vector<W> expect(a.size());
  for (std::size_t i = 0; i < l.plans.size(); ++i) {
    l.plans[i]->forward(std::span<W>(b_hat).subspan(i * l.n, l.n));
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t off = j * words + i * l.n;
      polymul<W>(std::span<const W>(a).subspan(off, l.n),
                 std::span<const W>(b).subspan(i * l.n, l.n),
                 std::span<W>(expect).subspan(off, l.n), *l.plans[i]);
    }
  }
  auto layout = layout_for(log_n, k * l.plans.size(), s);
  layout.period = static_cast<unsigned>(l.plans.size());
  cuda::detail::with_policies<W>(l.plans, kDefaultNttVariant, [&](auto policies) {
    cuda::detail::with_radix(s.r_max, [&](auto rmax) {
      auto emulate = [&](const auto& program) {
        cuda::detail::emulate(program, s.order, rng.bits());
      };
      std::vector<W> c(a.size(), W{0x5a});
      std::vector<W> work(a.size(), W{0x33});
      cuda::detail::run_polymul<rmax()>(layout, policies.data(), a.data(), b_hat.data(), c.data(),
                                        work.data(), false, true, emulate);
      ASSERT_EQ(c, expect);
    });
  });
}

template <Word W>
std::vector<int> prime_bits() {
  if constexpr (sizeof(W) == 4) {
    return {30, 25, 28};
  } else {
    return {62, 50, 36};
  }
}

template <Word W>
class NttEmulation : public ::testing::Test {};
using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(NttEmulation, Words);

// Every variant and radix, one block, N = 2 … 2^12, three limbs.
TYPED_TEST(NttEmulation, OneBlockEveryVariantAndRadix) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n = 1; log_n <= 12; ++log_n) {
    const Limbs<W> l = make_limbs<W>(log_n, prime_bits<W>());
    for (NttVariant v : kAllNttVariants) {
      if (!l.plans[0]->supports(v)) continue;
      for (unsigned r = 1; r <= 4; ++r) {
        check_transform(l, v, {r, false, 0, EmulationOrder::forward}, rng);
        if (log_n <= 8) check_polymul(l, v, {r, false, 0, EmulationOrder::forward}, rng);
      }
    }
  }
}

// Two passes: every variant and radix for N = 2^3 … 2^10 with tiles from 2^2 words up (so rows
// and column tiles of every width occur); the default variant at every radix up to 2^17 with
// the default tile (2^11 words) and a small one.
TYPED_TEST(NttEmulation, TwoPassesEveryVariantAndRadix) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n = 3; log_n <= 10; ++log_n) {
    const Limbs<W> l = make_limbs<W>(log_n, prime_bits<W>());
    for (NttVariant v : kAllNttVariants) {
      if (!l.plans[0]->supports(v)) continue;
      for (unsigned r = 1; r <= 4; ++r) {
        for (unsigned tile : {2u, 3u, 5u, log_n - 1}) {
          check_transform(l, v, {r, true, tile, EmulationOrder::forward}, rng);
          if (log_n <= 7) check_polymul(l, v, {r, true, tile, EmulationOrder::forward}, rng);
        }
      }
    }
  }
}

TYPED_TEST(NttEmulation, TwoPassesLarge) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n = 11; log_n <= 17; ++log_n) {
    const Limbs<W> l = make_limbs<W>(log_n, {prime_bits<W>()[0], prime_bits<W>()[1]});
    for (unsigned r = 1; r <= 4; ++r) {
      check_transform(l, kDefaultNttVariant, {r, true, 11, EmulationOrder::forward}, rng);
    }
    check_transform(l, kDefaultNttVariant, {3, true, 7, EmulationOrder::forward}, rng);
    check_transform(l, NttVariant::barrett_alg4, {4, true, 11, EmulationOrder::forward}, rng);
    check_polymul(l, kDefaultNttVariant, {3, true, 11, EmulationOrder::forward}, rng);
    if (log_n <= 13) {
      check_transform(l, kDefaultNttVariant, {3, false, 0, EmulationOrder::forward}, rng);
      check_polymul(l, kDefaultNttVariant, {4, false, 0, EmulationOrder::forward}, rng);
    }
  }
}

// Threads and blocks in decreasing and shuffled order give the same words.
TYPED_TEST(NttEmulation, AnyThreadAndBlockOrder) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (EmulationOrder order : {EmulationOrder::reverse, EmulationOrder::shuffled}) {
    for (unsigned log_n : {4u, 7u, 10u, 13u}) {
      const Limbs<W> l = make_limbs<W>(log_n, prime_bits<W>());
      for (unsigned r : {1u, 3u, 4u}) {
        if (log_n <= 10) {
          check_transform(l, kDefaultNttVariant, {r, false, 0, order}, rng);
          check_polymul(l, kDefaultNttVariant, {r, false, 0, order}, rng);
        }
        check_transform(l, kDefaultNttVariant, {r, true, 4, order}, rng);
        check_polymul(l, kDefaultNttVariant, {r, true, 4, order}, rng);
      }
    }
  }
}

// One operand resident in evaluation form, k polynomials per call, one block and two passes.
TYPED_TEST(NttEmulation, ResidentOperand) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n : {3u, 5u, 10u, 12u}) {
    const Limbs<W> l = make_limbs<W>(log_n, prime_bits<W>());
    for (std::size_t k : {1u, 4u}) {
      for (unsigned r : {1u, 3u, 4u}) {
        check_evaluated(l, k, {r, false, 0, EmulationOrder::forward}, rng);
        check_evaluated(l, k, {r, true, 4, EmulationOrder::shuffled}, rng);
      }
    }
  }
}

// One pass on clusters of 2, 4 and 8 blocks: every variant at radix 8 and the default and
// [GPU-Polymul, Alg. 4] at every radix, transforms and products (plain, fused, resident operand), N
// up to 2^17, blocks and threads in every order (the order of the blocks between two cluster
// barriers is what would expose a missing one).
TYPED_TEST(NttEmulation, ClusterOnePass) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_k = 1; log_k <= 3; ++log_k) {
    for (unsigned log_n = std::max(2 * log_k, log_k + 2); log_n <= 9; ++log_n) {
      const Limbs<W> l = make_limbs<W>(log_n, prime_bits<W>());
      for (NttVariant v : kAllNttVariants) {
        if (!l.plans[0]->supports(v)) continue;
        for (unsigned r = 1; r <= 4; ++r) {
          if (r != 3 && v != kDefaultNttVariant && v != NttVariant::barrett_alg4) continue;
          const EmulationOrder order = static_cast<EmulationOrder>((log_n + r) % 3);
          check_transform(l, v, {r, false, 0, order, log_k}, rng);
          if (log_n <= 7) check_polymul(l, v, {r, false, 0, order, log_k}, rng);
        }
      }
      for (std::size_t k : {1u, 3u}) {
        check_evaluated(l, k, {3, false, 0, EmulationOrder::shuffled, log_k}, rng);
      }
    }
  }
}

TYPED_TEST(NttEmulation, ClusterOnePassLarge) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (unsigned log_n : {13u, 16u, 17u}) {
    const Limbs<W> l = make_limbs<W>(log_n, {prime_bits<W>()[0], prime_bits<W>()[1]});
    check_transform(l, kDefaultNttVariant, {3, false, 0, EmulationOrder::reverse, 3}, rng);
    check_transform(l, NttVariant::barrett_alg4, {4, false, 0, EmulationOrder::forward, 2}, rng);
    if (log_n <= 16) {
      check_polymul(l, kDefaultNttVariant, {3, false, 0, EmulationOrder::shuffled, 3}, rng);
    }
  }
}

// The cluster programs ask for the barriers they need: without the one between the column pass
// and the rows, the rows read words other blocks have not written yet (the reverse order tells);
// without the first, a block writes another's shared memory before it may (an exception); and
// the layout refuses clusters of 1 or 16 blocks and rows shorter than the cluster.
template <class Program>
struct DroppedBarrier : Program {
  unsigned dropped;
  [[nodiscard]] bool cluster_barrier(unsigned phase) const {
    return phase != dropped && Program::cluster_barrier(phase);
  }
};

TEST(NttEmulationCluster, MissingBarrierIsCaught) {
  using W = std::uint64_t;
  POLYHE_SEEDED_RNG(rng);
  const Limbs<W> l = make_limbs<W>(8, {50});
  const std::vector<W> x = random_limbs(l, rng);
  std::vector<W> expect = x;
  l.plans[0]->forward(std::span<W>(expect));
  const auto layout = cuda::detail::make_cluster_layout(8, 1, 3, 2);
  cuda::detail::with_policies<W>(l.plans, kDefaultNttVariant, [&](auto policies) {
    using P = typename decltype(policies)::value_type;
    using Ntt = cuda::detail::ClusterNtt<W, P, 3>;
    const Ntt whole{policies.data(),        x.data(), nullptr, 8 - 2, 2, 1, 1,
                    layout.cluster_threads, false};
    for (EmulationOrder order : {EmulationOrder::forward, EmulationOrder::reverse}) {
      std::vector<W> y(x.size());
      Ntt ok = whole;
      ok.dst = y.data();
      cuda::detail::emulate(ok, order);
      EXPECT_EQ(y, expect);
    }
    std::vector<W> y(x.size());
    DroppedBarrier<Ntt> no_middle{whole, 1};
    no_middle.dst = y.data();
    cuda::detail::emulate(no_middle, EmulationOrder::reverse);
    EXPECT_NE(y, expect);
    DroppedBarrier<Ntt> no_first{whole, 0};
    no_first.dst = y.data();
    EXPECT_THROW(cuda::detail::emulate(no_first), std::logic_error);
    // The inverse reads the other blocks' rows last: without the final barrier a block that
    // exited leaves poison.
    Ntt inv = whole;
    inv.inverse = true;
    inv.src = expect.data();
    inv.dst = y.data();
    cuda::detail::emulate(inv);
    EXPECT_EQ(y, x);
    DroppedBarrier<Ntt> no_final{inv, inv.phases()};
    cuda::detail::emulate(no_final);
    EXPECT_NE(y, x);
  });
  EXPECT_THROW((void)cuda::detail::make_cluster_layout(8, 1, 3, 0), InvalidParameter);
  EXPECT_THROW((void)cuda::detail::make_cluster_layout(8, 1, 3, 4), InvalidParameter);
  EXPECT_THROW((void)cuda::detail::make_cluster_layout(5, 1, 3, 3), InvalidParameter);
  EXPECT_THROW((void)cuda::detail::make_cluster_layout(2, 1, 3, 1), InvalidParameter);
  EXPECT_NO_THROW((void)cuda::detail::make_cluster_layout(6, 1, 3, 3));
  EXPECT_NO_THROW((void)cuda::detail::make_cluster_layout(3, 1, 3, 1));
}

// The layout's rules: radix 2 … 16 only; two passes need N ≥ 8; rows of at least 4 words.
TEST(NttEmulationLayout, Rules) {
  EXPECT_THROW((void)cuda::detail::make_layout(10, 1, 0, false, 11), InvalidParameter);
  EXPECT_THROW((void)cuda::detail::make_layout(10, 1, 5, false, 11), InvalidParameter);
  EXPECT_THROW((void)cuda::detail::make_layout(2, 1, 3, true, 11), InvalidParameter);
  const auto l = cuda::detail::make_layout(16, 4, 3, true, 11);
  EXPECT_EQ(l.log_n2, 11u);
  EXPECT_EQ(l.log_n1, 5u);
  EXPECT_EQ(l.log_width, 6u);
  EXPECT_EQ(l.row_threads, 256u);
  EXPECT_EQ(l.column_threads, 256u);
  const auto small = cuda::detail::make_layout(3, 1, 4, true, 11);
  EXPECT_EQ(small.log_n2, 2u);
  EXPECT_EQ(small.log_n1, 1u);
}

// NttOptions → layout: radix 2 … 16 only, tile 2 … 14 (0: 11 on 64-bit words, 12 on 32-bit),
// automatic = one block up to the tile.
TEST(NttEmulationLayout, Options) {
  using cuda::NttKernel;
  using cuda::NttOptions;
  using cuda::detail::choose_layout;
  EXPECT_THROW((void)choose_layout(12, 1, 64, NttOptions{3, NttKernel::automatic, 0}),
               InvalidParameter);
  EXPECT_THROW((void)choose_layout(12, 1, 64, NttOptions{8, NttKernel::automatic, 15}),
               InvalidParameter);
  EXPECT_THROW((void)choose_layout(12, 1, 64, NttOptions{8, NttKernel::automatic, 1}),
               InvalidParameter);
  EXPECT_FALSE(choose_layout(11, 1, 64, NttOptions{}).split);
  EXPECT_TRUE(choose_layout(12, 1, 64, NttOptions{}).split);
  EXPECT_FALSE(choose_layout(12, 1, 32, NttOptions{}).split);
  EXPECT_TRUE(choose_layout(13, 1, 32, NttOptions{}).split);
  EXPECT_TRUE(choose_layout(5, 1, 64, NttOptions{4, NttKernel::two_pass, 0}).split);
  EXPECT_FALSE(choose_layout(16, 1, 64, NttOptions{16, NttKernel::one_block, 0}).split);
  EXPECT_EQ(choose_layout(16, 1, 64, NttOptions{16, NttKernel::automatic, 0}).r_max, 4u);
  // Cluster: 64 KiB per block by default (2^13 64-bit words, 2^14 32-bit), 2 … 8 blocks.
  EXPECT_EQ(choose_layout(16, 1, 64, NttOptions{8, NttKernel::cluster, 0}).log_k, 3u);
  EXPECT_EQ(choose_layout(16, 1, 32, NttOptions{8, NttKernel::cluster, 0}).log_k, 2u);
  EXPECT_EQ(choose_layout(17, 1, 64, NttOptions{8, NttKernel::cluster, 0}).log_k, 3u);
  EXPECT_EQ(choose_layout(10, 1, 64, NttOptions{8, NttKernel::cluster, 0}).log_k, 1u);
  EXPECT_EQ(choose_layout(16, 1, 64, NttOptions{8, NttKernel::cluster, 14}).log_k, 2u);
  EXPECT_FALSE(choose_layout(16, 1, 64, NttOptions{8, NttKernel::cluster, 0}).split);
  EXPECT_THROW((void)choose_layout(16, 1, 64, NttOptions{8, NttKernel::cluster, 12}),
               InvalidParameter);
  EXPECT_THROW((void)choose_layout(12, 1, 64, NttOptions{8, NttKernel::cluster, 12}),
               InvalidParameter);
}

/// Each of `bad` refused by parse as VARIABLE=value, naming it, and with `rule` in its message;
/// a device is not made with the first of them, and is made with `good`.
template <class Parse>
void expect_knob_refusals(const char* variable, Parse parse, std::initializer_list<const char*> bad,
                          const char* rule, const char* good) {
  for (const char* value : bad) {
    try {
      (void)parse(value);
      ADD_FAILURE() << "accepted " << variable << "=" << value;
    } catch (const InvalidParameter& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(variable) + "=" + value + ":"), std::string::npos) << what;
      EXPECT_NE(what.find(rule), std::string::npos) << what;
    }
  }
  const test::ScopedEnv env(variable, *bad.begin());
  EXPECT_THROW((void)make_emulated_device(), InvalidParameter);
  env.set(good);
  EXPECT_NE(make_emulated_device(), nullptr);
}

// POLYHE_CUDA_TILE_LOG's text → the device ring's options: unset or empty is the default; a
// decimal 8 … 13 sets the tile alone (radix 8, automatic kernel); anything else is refused with
// the text and the range, and so is making a device while it is set so (the ring's constructor).
TEST(NttEmulationLayout, RingTileKnob) {
  using cuda::NttKernel;
  using cuda::detail::ring_ntt_options;
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    const auto o = ring_ntt_options(unset);
    EXPECT_EQ(o.tile_log, 0u);
    EXPECT_EQ(o.radix, 8u);
  }
  for (unsigned t = 8; t <= 13; ++t) {
    const auto o = ring_ntt_options(std::to_string(t).c_str());
    EXPECT_EQ(o.tile_log, t);
    EXPECT_EQ(o.radix, 8u);
    EXPECT_EQ(o.kernel, NttKernel::automatic);
    EXPECT_EQ(cuda::detail::choose_layout(14, 9, 64, o).log_n2, t);
  }
  expect_knob_refusals(
      "POLYHE_CUDA_TILE_LOG", [](const char* v) { return ring_ntt_options(v); },
      {"20", "7", "14", "011", "10 ", " 10", "-10", "ten", "1e1", "99999999999"}, "from 8 to 13",
      "10");
}

// POLYHE_CUDA_CONVERT_GROUP: 1 … 4 taken, unset or empty is 3 (the default since the H200 timed
// it), anything else refused naming the value, and a device is not made with it.
TEST(NttEmulationLayout, RingConvertGroupKnob) {
  using cuda::detail::ring_convert_group;
  static_assert(cuda::detail::kRingConvertGroup == 3);
  EXPECT_EQ(ring_convert_group(nullptr), 3U);
  EXPECT_EQ(ring_convert_group(""), 3U);
  for (unsigned g = 1; g <= 4; ++g) EXPECT_EQ(ring_convert_group(std::to_string(g).c_str()), g);
  expect_knob_refusals(
      "POLYHE_CUDA_CONVERT_GROUP", [](const char* v) { return ring_convert_group(v); },
      {"8", "0", "5", "01", "2 ", "two", "-1", "16"}, "1 to 4", "3");
}

// POLYHE_CUDA_PDL: 1 / unset / empty asks for programmatic dependent launches (the default), 0
// does not, anything else is refused naming the value, and a device is not made with it.
TEST(NttEmulationLayout, RingDependentLaunchKnob) {
  using cuda::detail::ring_dependent_launch;
  EXPECT_TRUE(ring_dependent_launch(nullptr));
  EXPECT_TRUE(ring_dependent_launch(""));
  EXPECT_FALSE(ring_dependent_launch("0"));
  EXPECT_TRUE(ring_dependent_launch("1"));
  expect_knob_refusals(
      "POLYHE_CUDA_PDL", [](const char* v) { return ring_dependent_launch(v); },
      {"on", "2", "01", "1 ", "yes", "true", "-1"}, "programmatic dependent", "1");
}

// The device runs every variant but the reference; every radix for shoup-lazy and barrett-alg4,
// radix 8 for the others.
TEST(NttEmulationLayout, DeviceVariants) {
  using cuda::detail::require_device_radix;
  for (unsigned r = 1; r <= 4; ++r) {
    EXPECT_THROW(require_device_radix(NttVariant::reference, r), InvalidParameter);
    EXPECT_NO_THROW(require_device_radix(NttVariant::shoup_lazy, r));
    EXPECT_NO_THROW(require_device_radix(NttVariant::barrett_alg4, r));
    for (NttVariant v : {NttVariant::shoup, NttVariant::barrett_classical, NttVariant::barrett_dq,
                         NttVariant::montgomery, NttVariant::montgomery_ntt}) {
      if (r == 3) {
        EXPECT_NO_THROW(require_device_radix(v, r));
      } else {
        EXPECT_THROW(require_device_radix(v, r), InvalidParameter);
      }
    }
  }
}

}  // namespace
}  // namespace polyhe
