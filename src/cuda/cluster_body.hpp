// One pass over device memory for transforms longer than one block's shared memory: a cluster of
// K = 2^log_k ≤ 8 blocks (Hopper's thread-block clusters, program.hpp) holds one limb, block
// rank k the row [k·m, (k + 1)·m) of m = n/K words, and the blocks read and write each other's
// shared memory. The split of ntt_body.hpp with n1 = K: the K-point column stages run in one
// pass of K words per thread that crosses the cluster, the row stages within each block.
//
//   forward:  device memory → column stages → the rows' shared memory (remote writes)
//             | cluster barrier | row stages (RowNtt) → device memory
//   inverse:  device memory → row stages (RowNtt) → shared memory | cluster barrier |
//             the rows' shared memory (remote reads) → column stages → device memory
//             | cluster barrier (no block exits while another still reads its memory)
//   product:  both operands' column stages → the rows | barrier | RowPolymul (rest of the forward
//             transforms, the product, the inverse's row stages) | barrier | inverse column
//             stages → device memory | barrier
//
// Each limb is read once and written once (the paper's LOM with a single DRAM pass, which the
// issue's batched targets need). Block rank k runs the column groups j ∈ [k·m/K, (k + 1)·m/K),
// so every load and store of device memory is of consecutive words across a warp.
#pragma once

#include <cstddef>

#include "cuda/ntt_body.hpp"
#include "cuda/program.hpp"

namespace polyhe::cuda::detail {

/// Position pos of a limb held in rows of m = 2^log_m words across a cluster: word pos mod m of
/// block pos / m's shared memory, at `offset` words into it.
template <Word W, class Shared>
struct ClusterRows {
  const Shared* shared;
  std::size_t offset;
  unsigned log_m;
  POLYHE_HD W& operator()(Pos pos) const {
    W* const base = static_cast<W*>(shared->block(pos >> log_m));
    return base[offset + (pos & ((Pos{1} << log_m) - 1))];
  }
};

/// The K-point column stages of the limb held by a cluster, one group of K words per column j,
/// block `rank`'s share of the columns: forward stages [0, log_k) from `in` to `out`, or the
/// inverse stages [log_m, log_n) (the transform's last: outputs in [0, q)).
template <Word W, class P, class In, class Out>
POLYHE_HD POLYHE_NTT_INLINE void cluster_columns(const P& p, In in, Out out, unsigned log_m,
                                                 unsigned log_k, bool inverse, unsigned rank,
                                                 unsigned thread, unsigned threads) {
  const Pos share = (Pos{1} << log_m) >> log_k;
  const Pos j0 = rank * share;
  const int r = static_cast<int>(log_k);
  for (Pos g = thread; g < share; g += threads) {
    if (!inverse) {
      ct_group_any<3, W>(r, p, in, out, 0, log_m, 0, j0 + g, false);
    } else {
      gs_group_any<3, W>(r, p, in, out, log_m + log_k, log_m, 0, j0 + g, true);
    }
  }
}

/// Forward or inverse transforms of `limbs` limbs of n = 2^(log_m + log_k) words, one cluster of
/// K = 2^log_k blocks per limb (grid K × limbs), m words of shared memory per block. Requires
/// 1 ≤ log_k ≤ 3 and log_k ≤ log_m (ntt_programs.hpp checks). dst may be src.
template <Word W, class P, int RMAX>
struct ClusterNtt {
  const P* policies;
  const W* src;
  W* dst;
  unsigned log_m;
  unsigned log_k;
  unsigned limbs;
  unsigned period;  // limb i uses policies[i % period]
  unsigned threads;
  bool inverse;

  [[nodiscard]] POLYHE_HD RowNtt<W, P, RMAX> rows() const {
    return {policies, src, dst, log_k, log_m, limbs, period, threads, inverse, !inverse, inverse};
  }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << log_k, limbs, (std::size_t{1} << log_m) * sizeof(W), 1u << log_k};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return rows().passes().count() + 1; }
  /// Before the column pass's remote writes (forward: phase 0) and between the rows and the
  /// column pass (inverse), and before exit after the inverse's remote reads.
  [[nodiscard]] POLYHE_HD bool cluster_barrier(unsigned phase) const {
    const unsigned columns = inverse ? phases() - 1 : 0;
    return phase == columns || (!inverse && phase == 1) || (inverse && phase == phases());
  }

  template <class Shared>
  POLYHE_HD void run(unsigned phase, ThreadIndex t, const Shared& shared) const {
    const unsigned columns = inverse ? phases() - 1 : 0;
    if (phase != columns) {
      rows().run(inverse ? phase : phase - 1, t, shared.local());
      return;
    }
    const P p = policies[t.batch % period];
    const std::size_t off = static_cast<std::size_t>(t.batch) << (log_m + log_k);
    const ClusterRows<W, Shared> held{&shared, 0, log_m};
    const Linear<W> global_in{const_cast<W*>(src) + off, 0};
    const Linear<W> global_out{dst + off, 0};
    if (!inverse) {
      cluster_columns<W>(p, global_in, held, log_m, log_k, false, t.block, t.thread, threads);
    } else {
      cluster_columns<W>(p, held, global_out, log_m, log_k, true, t.block, t.thread, threads);
    }
  }
};

/// c = a·b for `limbs` limbs, one cluster per limb, the operands' rows side by side in each
/// block's shared memory (2m words; m with b_evaluated): the column stages of a and b, then
/// RowPolymul on the rows (plain or fused, or b resident in evaluation form as in WholePolymul),
/// then the inverse column stages into c. c may be a or b.
template <Word W, class P, int RMAX>
struct ClusterPolymul {
  const P* policies;
  const W* a;
  const W* b;
  W* c;
  unsigned log_m;
  unsigned log_k;
  unsigned limbs;
  unsigned period;
  unsigned threads;
  bool fused;
  bool b_evaluated;

  [[nodiscard]] POLYHE_HD RowPolymul<W, P, RMAX> rows() const {
    return {policies, a,       b,     c,           log_k, log_m, limbs,
            period,   threads, fused, b_evaluated, true,  true};
  }
  [[nodiscard]] LaunchShape shape() const {
    const std::size_t operands = b_evaluated ? 1 : 2;
    return {threads, 1u << log_k, limbs, operands * (std::size_t{1} << log_m) * sizeof(W),
            1u << log_k};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return rows().phases() + 2; }
  [[nodiscard]] POLYHE_HD bool cluster_barrier(unsigned phase) const {
    return phase == 0 || phase == 1 || phase + 1 == phases() || phase == phases();
  }

  template <class Shared>
  POLYHE_HD void run(unsigned phase, ThreadIndex t, const Shared& shared) const {
    if (phase != 0 && phase + 1 != phases()) {
      rows().run(phase - 1, t, shared.local());
      return;
    }
    const P p = policies[t.batch % period];
    const std::size_t off = static_cast<std::size_t>(t.batch) << (log_m + log_k);
    const ClusterRows<W, Shared> held_a{&shared, 0, log_m};
    if (phase == 0) {
      cluster_columns<W>(p, Linear<W>{const_cast<W*>(a) + off, 0}, held_a, log_m, log_k, false,
                         t.block, t.thread, threads);
      if (!b_evaluated) {
        const ClusterRows<W, Shared> held_b{&shared, std::size_t{1} << log_m, log_m};
        cluster_columns<W>(p, Linear<W>{const_cast<W*>(b) + off, 0}, held_b, log_m, log_k, false,
                           t.block, t.thread, threads);
      }
      return;
    }
    cluster_columns<W>(p, held_a, Linear<W>{c + off, 0}, log_m, log_k, true, t.block, t.thread,
                       threads);
  }
};

}  // namespace polyhe::cuda::detail
