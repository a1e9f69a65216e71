// Which block programs (ntt_body.hpp) a device transform or product runs, with which launch
// shapes: host code shared by the CUDA launcher (ntt.cu) and the host emulation tests, so the
// tests check the very sequence of programs the device runs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/cluster_body.hpp"
#include "cuda/ntt_body.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe::cuda::detail {

/// How one transform of 2^log_n words per limb is laid out over blocks.
struct NttLayout {
  unsigned log_n = 0;
  unsigned limbs = 1;
  unsigned period = 1;  // limb i runs under policy i % period (== limbs unless polynomials repeat)
  unsigned r_max = 3;   // log2(radix)
  bool split = false;   // two passes over device memory (column, row) instead of one block
  unsigned log_n1 = 0, log_n2 = 0, log_width = 0;  // when split
  unsigned whole_threads = 1, column_threads = 1, row_threads = 1;
  /// > 0: one pass, a cluster of 2^log_k blocks per limb, rows of 2^(log_n − log_k) words
  /// (cluster_body.hpp); split is then false.
  unsigned log_k = 0;
  unsigned cluster_threads = 1;
};

/// Block size for `groups` groups of the first pass: one group per thread, at most 256 threads
/// (the kernels take up to 168 registers per thread at radix 16 on 64-bit words, and a block of
/// 256 such threads fits the 64 Ki registers of an SM; 1024 would not launch).
inline unsigned threads_for(std::size_t groups) {
  return static_cast<unsigned>(std::clamp<std::size_t>(groups, 1, 256));
}

/// The layout of a transform: in one block when `split` is false, else n = n1·n2 with rows of
/// n2 = 2^min(tile_log, log_n − 1) words (at least 4) and column tiles of about 2^tile_log words.
/// Requires 1 ≤ log_n, 1 ≤ r_max ≤ 4, limbs ≥ 1; split requires log_n ≥ 3 (InvalidParameter).
inline NttLayout make_layout(unsigned log_n, unsigned limbs, unsigned r_max, bool split,
                             unsigned tile_log) {
  if (r_max < 1 || r_max > 4) {
    throw InvalidParameter("NTT radix 2^" + std::to_string(r_max) +
                           ": the device kernels take radix 2, 4, 8 or 16");
  }
  NttLayout l;
  l.log_n = log_n;
  l.limbs = limbs;
  l.period = limbs;
  l.r_max = r_max;
  l.split = split;
  const std::size_t n = std::size_t{1} << log_n;
  l.whole_threads = threads_for(n >> std::min(r_max, log_n));
  if (!split) return l;
  if (log_n < 3) {
    throw InvalidParameter("NTT of length 2^" + std::to_string(log_n) +
                           ": the two-pass kernels need n ≥ 8");
  }
  l.log_n2 = std::clamp(tile_log, 2u, log_n - 1);
  l.log_n1 = log_n - l.log_n2;
  l.log_width = tile_log > l.log_n1 ? std::min(tile_log - l.log_n1, l.log_n2) : 0;
  l.column_threads =
      threads_for(std::size_t{1} << (l.log_n1 - std::min(r_max, l.log_n1) + l.log_width));
  l.row_threads = threads_for(std::size_t{1} << (l.log_n2 - std::min(r_max, l.log_n2)));
  return l;
}

/// The layout of a one-pass transform on clusters of 2^log_k blocks: 1 ≤ log_k ≤ 3 (clusters of
/// 2, 4 or 8 blocks, the size every cluster-capable GPU runs) and rows of at least 4 words and
/// at least as long as the cluster (so the row stages finish a fused product's forward
/// transforms and each block has a column); InvalidParameter naming the values otherwise.
inline NttLayout make_cluster_layout(unsigned log_n, unsigned limbs, unsigned r_max,
                                     unsigned log_k) {
  NttLayout l = make_layout(log_n, limbs, r_max, false, 0);
  if (log_k < 1 || log_k > 3) {
    throw InvalidParameter("NTT cluster of 2^" + std::to_string(log_k) +
                           " blocks: the one-pass kernels take clusters of 2, 4 or 8 blocks");
  }
  if (2 * log_k > log_n || log_k + 2 > log_n) {
    throw InvalidParameter("NTT of length 2^" + std::to_string(log_n) + " on a cluster of 2^" +
                           std::to_string(log_k) +
                           " blocks: each block's row must hold at least 4 words and one word "
                           "per block (n ≥ 4·cluster and n ≥ cluster²)");
  }
  l.log_k = log_k;
  const unsigned log_m = log_n - log_k;
  const std::size_t columns = std::size_t{1} << (log_m - log_k);
  const std::size_t groups = std::size_t{1} << (log_m - std::min(r_max, log_m));
  l.cluster_threads = threads_for(std::max(columns, groups));
  return l;
}

/// The layout NttOptions ask for, for limbs of 2^log_n words of `word_bits` bits: radix 2, 4, 8
/// or 16 (InvalidParameter naming any other), tile_log 0 → 11 (64-bit words) or 12 (32-bit),
/// else 2 … 14; automatic → one block when log_n ≤ tile_log. The cluster kernel puts 2^tile_log
/// words in each block (tile_log 0: 2^13 64-bit or 2^14 32-bit words, 64 KiB, with the cluster
/// between 2 and 8 blocks), a cluster of 2^(log_n − tile_log) blocks.
inline NttLayout choose_layout(unsigned log_n, unsigned limbs, unsigned word_bits,
                               const NttOptions& o) {
  unsigned r_max = 0;
  switch (o.radix) {
    case 2: r_max = 1; break;
    case 4: r_max = 2; break;
    case 8: r_max = 3; break;
    case 16: r_max = 4; break;
    default:
      throw InvalidParameter("NTT radix " + std::to_string(o.radix) +
                             ": the device kernels take radix 2, 4, 8 or 16");
  }
  unsigned tile_log = o.tile_log;
  if (tile_log == 0) tile_log = word_bits == 32 ? 12 : 11;
  if (tile_log < 2 || tile_log > 14) {
    throw InvalidParameter("NTT tile_log " + std::to_string(o.tile_log) +
                           ": rows and column tiles of 2^2 … 2^14 words (0 for the default)");
  }
  bool split = false;
  switch (o.kernel) {
    case NttKernel::automatic: split = log_n > tile_log; break;
    case NttKernel::one_block: split = false; break;
    case NttKernel::two_pass: split = true; break;
    case NttKernel::cluster: {
      if (o.tile_log != 0) {
        return make_cluster_layout(log_n, limbs, r_max,
                                   log_n > o.tile_log ? log_n - o.tile_log : 0);
      }
      const unsigned base = word_bits == 32 ? 14 : 13;
      const unsigned log_k = log_n > base ? std::min(log_n - base, 3u) : 1;
      return make_cluster_layout(log_n, limbs, r_max, log_k);
    }
  }
  return make_layout(log_n, limbs, r_max, split, tile_log);
}

/// Whether the device kernels of variant v are compiled for every radix (2, 4, 8, 16) or for
/// radix 8 only. Every radix for the default (shoup-lazy) and [GPU-Polymul, Alg. 4] Barrett, whose
/// radix comparison (Fig. 9) the benchmark reproduces; radix 8 for the other reductions, which
/// the paper compares at one radix. (Each compiled radix of a variant costs about 10 s of nvcc
/// per word size.) The reference variant does not run on the device.
inline bool device_all_radices(NttVariant v) {
  return v == NttVariant::shoup_lazy || v == NttVariant::barrett_alg4;
}

/// Throws InvalidParameter naming the variant and the radix unless the device runs v at radix
/// 2^r_max.
inline void require_device_radix(NttVariant v, unsigned r_max) {
  if (v == NttVariant::reference) {
    throw InvalidParameter(
        "NTT variant reference: runs on the CPU only (its 128-bit remainders have no device "
        "form worth compiling); every other variant runs on the device");
  }
  if (!device_all_radices(v) && r_max != 3) {
    throw InvalidParameter("NTT variant " + std::string(to_string(v)) + " at radix " +
                           std::to_string(1u << r_max) +
                           ": on the device it runs at radix 8 only (shoup-lazy and barrett-alg4 "
                           "run at radix 2, 4, 8 and 16)");
  }
}

/// Runs `run(program)` for each program of the transform of every limb of src into dst (dst may
/// be src): one WholeNtt or ClusterNtt, or a column and a row pass (forward) / a row and a column
/// pass (inverse). policies: l.period of them.
template <int RMAX, Word W, class P, class Run>
void run_transform(const NttLayout& l, const P* policies, const W* src, W* dst, bool inverse,
                   Run&& run) {
  POLYHE_DEBUG_ASSERT(static_cast<unsigned>(RMAX) == l.r_max);
  if (l.log_k != 0) {
    run(ClusterNtt<W, P, RMAX>{policies, src, dst, l.log_n - l.log_k, l.log_k, l.limbs, l.period,
                               l.cluster_threads, inverse});
    return;
  }
  if (!l.split) {
    run(WholeNtt<W, P, RMAX>{policies, src, dst, l.log_n, l.limbs, l.period, l.whole_threads,
                             inverse});
    return;
  }
  const RowNtt<W, P, RMAX> row{policies, dst,      dst,           l.log_n1, l.log_n2,
                               l.limbs,  l.period, l.row_threads, inverse};
  ColumnNtt<W, P, RMAX> column{policies, {src, nullptr},   {dst, nullptr}, l.log_n1,
                               l.log_n2, l.log_width,      l.limbs,        l.period,
                               1,        l.column_threads, inverse};
  if (!inverse) {
    run(column);
    run(row);
  } else {
    RowNtt<W, P, RMAX> first = row;
    first.src = src;
    run(first);
    column.src[0] = dst;
    run(column);
  }
}

/// Runs the programs of c = a·b for every limb: one WholePolymul or ClusterPolymul, or (split)
/// the forward column passes of a and b into work (2·limbs·n words), the row pass with the
/// product into c, and the inverse column pass on c. c may be a or b; work must be disjoint from a,
/// b and c. b_evaluated: b holds l.period limbs already in evaluation form (a resident operand;
/// limb i of a times limb i % period of b; not fused), and work needs limbs·n words only.
template <int RMAX, Word W, class P, class Run>
void run_polymul(const NttLayout& l, const P* policies, const W* a, const W* b, W* c, W* work,
                 bool fused, bool b_evaluated, Run&& run) {
  POLYHE_DEBUG_ASSERT(static_cast<unsigned>(RMAX) == l.r_max);
  POLYHE_DEBUG_ASSERT(!(fused && b_evaluated));
  if (l.log_k != 0) {
    const unsigned operands = b_evaluated ? 1 : 2;
    run(ClusterPolymul<W, P, RMAX>{policies, a, b, c, l.log_n - l.log_k, l.log_k, l.limbs, l.period,
                                   threads_for(operands * l.cluster_threads), fused, b_evaluated});
    return;
  }
  if (!l.split) {
    run(WholePolymul<W, P, RMAX>{policies, a, b, c, l.log_n, l.limbs, l.period, l.whole_threads,
                                 fused, b_evaluated});
    return;
  }
  const std::size_t words = static_cast<std::size_t>(l.limbs) << l.log_n;
  W* const wa = work;
  W* const wb = b_evaluated ? nullptr : work + words;
  run(ColumnNtt<W, P, RMAX>{policies,
                            {a, b_evaluated ? nullptr : b},
                            {wa, wb},
                            l.log_n1,
                            l.log_n2,
                            l.log_width,
                            l.limbs,
                            l.period,
                            b_evaluated ? 1u : 2u,
                            l.column_threads,
                            false});
  const unsigned row_threads =
      threads_for(std::size_t{2} << (l.log_n2 - std::min(l.r_max, l.log_n2)));
  run(RowPolymul<W, P, RMAX>{policies, wa, b_evaluated ? b : wb, c, l.log_n1, l.log_n2, l.limbs,
                             l.period, row_threads, fused, b_evaluated});
  run(ColumnNtt<W, P, RMAX>{policies,
                            {c, nullptr},
                            {c, nullptr},
                            l.log_n1,
                            l.log_n2,
                            l.log_width,
                            l.limbs,
                            l.period,
                            1,
                            l.column_threads,
                            true});
}

/// Calls f(std::span<const P>) with the butterfly policy of variant v over each plan's host
/// tables (NttPlan::visit), one per plan; every plan serves v (InvalidParameter otherwise).
template <Word W, class F>
void with_policies(std::span<const NttPlan<W>* const> plans, NttVariant v, F&& f) {
  plans[0]->visit(v, [&](auto first) {
    using P = decltype(first);
    std::vector<P> policies;
    policies.reserve(plans.size());
    for (const NttPlan<W>* plan : plans) {
      plan->visit(v, [&](auto p) {
        if constexpr (std::is_same_v<decltype(p), P>) policies.push_back(p);
      });
    }
    f(std::span<const P>(policies));
  });
}

/// Calls f(std::integral_constant<int, r_max>{}) for r_max = 1 … 4.
template <class F>
void with_radix(unsigned r_max, F&& f) {
  switch (r_max) {
    case 1: f(std::integral_constant<int, 1>{}); return;
    case 2: f(std::integral_constant<int, 2>{}); return;
    case 3: f(std::integral_constant<int, 3>{}); return;
    case 4: f(std::integral_constant<int, 4>{}); return;
    default:
      throw InvalidParameter("NTT radix 2^" + std::to_string(r_max) +
                             ": the device kernels take radix 2, 4, 8 or 16");
  }
}

}  // namespace polyhe::cuda::detail
