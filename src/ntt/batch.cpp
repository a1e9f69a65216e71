#include "polyhe/ntt/batch.hpp"

#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/ntt/polymul.hpp"

namespace polyhe {

namespace {

template <Word W>
std::size_t check_batch(std::span<const NttPlan<W>* const> plans, std::size_t words,
                        const char* what) {
  if (plans.empty()) throw InvalidParameter(std::string(what) + ": the batch has no plans");
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (plans[i] == nullptr) {
      throw InvalidParameter(std::string(what) + ": plan " + std::to_string(i) + " is null");
    }
  }
  const std::size_t n = plans[0]->n();
  for (std::size_t i = 1; i < plans.size(); ++i) {
    if (plans[i]->n() != n) {
      throw InvalidParameter(std::string(what) + ": plan " + std::to_string(i) +
                             " has N = " + std::to_string(plans[i]->n()) +
                             " but plan 0 has N = " + std::to_string(n));
    }
  }
  if (words != plans.size() * n) {
    throw InvalidParameter(std::string(what) + ": " + std::to_string(words) + " words given for " +
                           std::to_string(plans.size()) + " limbs of N = " + std::to_string(n));
  }
  return n;
}

/// Runs body(limb) for every limb: inline for threads = 1, else on the default pool with at most
/// `threads` threads (0: the pool's size). The first exception is rethrown after all finish.
template <class F>
void for_each_limb(std::size_t limbs, unsigned threads, const F& body) {
  if (threads == 1) {
    for (std::size_t i = 0; i < limbs; ++i) body(i);
    return;
  }
  parallel_for(limbs, body, threads);
}

}  // namespace

template <Word W>
void forward_batch(std::span<W> data, std::span<const NttPlan<W>* const> plans, NttVariant v,
                   unsigned threads) {
  const std::size_t n = check_batch<W>(plans, data.size(), "forward_batch");
  for (const auto* p : plans) p->require(v);
  for_each_limb(plans.size(), threads,
                [&](std::size_t i) { plans[i]->forward(data.subspan(i * n, n), v); });
}

template <Word W>
void inverse_batch(std::span<W> data, std::span<const NttPlan<W>* const> plans, NttVariant v,
                   unsigned threads) {
  const std::size_t n = check_batch<W>(plans, data.size(), "inverse_batch");
  for (const auto* p : plans) p->require(v);
  for_each_limb(plans.size(), threads,
                [&](std::size_t i) { plans[i]->inverse(data.subspan(i * n, n), v); });
}

template <Word W>
void polymul_batch(std::span<const W> a, std::span<const W> b, std::span<W> c,
                   std::span<const NttPlan<W>* const> plans, bool fused, NttVariant v,
                   unsigned threads) {
  const std::size_t n = check_batch<W>(plans, c.size(), "polymul_batch");
  if (a.size() != c.size() || b.size() != c.size()) {
    throw InvalidParameter("polymul_batch: operand sizes " + std::to_string(a.size()) + ", " +
                           std::to_string(b.size()) + ", " + std::to_string(c.size()) + " differ");
  }
  for (const auto* p : plans) p->require(v);
  for_each_limb(plans.size(), threads, [&](std::size_t i) {
    const auto ai = a.subspan(i * n, n);
    const auto bi = b.subspan(i * n, n);
    const auto ci = c.subspan(i * n, n);
    if (fused) {
      polymul_fused(ai, bi, ci, *plans[i], v);
    } else {
      polymul(ai, bi, ci, *plans[i], v);
    }
  });
}

#define POLYHE_INSTANTIATE(W)                                                                  \
  template void forward_batch<W>(std::span<W>, std::span<const NttPlan<W>* const>, NttVariant, \
                                 unsigned);                                                    \
  template void inverse_batch<W>(std::span<W>, std::span<const NttPlan<W>* const>, NttVariant, \
                                 unsigned);                                                    \
  template void polymul_batch<W>(std::span<const W>, std::span<const W>, std::span<W>,         \
                                 std::span<const NttPlan<W>* const>, bool, NttVariant, unsigned);
POLYHE_INSTANTIATE(std::uint32_t)
POLYHE_INSTANTIATE(std::uint64_t)
#undef POLYHE_INSTANTIATE

}  // namespace polyhe
