// Batched transforms and products: one call over many limbs (many primes, or many polynomials
// under one prime), laid out limb-major and contiguous as docs/design.md ("Data layout")
// prescribes: limb i occupies words [i·N, (i+1)·N) and is transformed by plans[i].
#pragma once

#include <span>

#include "polyhe/ntt/plan.hpp"

namespace polyhe {

/// The plans of a batch must share N (checked); data.size() must be plans.size()·N (checked).
/// `threads` spreads the limbs over the default thread pool (core/thread_pool.hpp), in no
/// particular order: 0 = as many threads as the pool has (POLYHE_THREADS, set_thread_count);
/// 1 = inline on the calling thread; k > 1 = at most k threads (the caller and k − 1 of the
/// pool's workers), never more than the pool has.
template <Word W>
void forward_batch(std::span<W> data, std::span<const NttPlan<W>* const> plans,
                   NttVariant v = kDefaultNttVariant, unsigned threads = 0);

template <Word W>
void inverse_batch(std::span<W> data, std::span<const NttPlan<W>* const> plans,
                   NttVariant v = kDefaultNttVariant, unsigned threads = 0);

/// c_i = a_i·b_i mod (x^N + 1, q_i) for every limb i; `fused` selects [GPU-Polymul, Alg. 8].
/// Threads as above.
template <Word W>
void polymul_batch(std::span<const W> a, std::span<const W> b, std::span<W> c,
                   std::span<const NttPlan<W>* const> plans, bool fused = false,
                   NttVariant v = kDefaultNttVariant, unsigned threads = 0);

}  // namespace polyhe
