// The powerful-basis transform of Z_q[X]/Φ_m (odd m) as block programs (program.hpp): the
// device form of the CPU's fused route (src/ntt/cyclic/powerful_fused.hpp), one launch per axis.
//
// A limb's φ(m) words are a tensor, row-major over the prime-power factors m_0, …, m_(r−1) of m:
// axis i has φ_i = φ(m_i) digits at stride s_i = Π_(i'>i) φ_i'. A *column* of axis i is the φ_i
// words that differ only in that digit; column c (c < φ(m)/φ_i) starts at (c / s_i)·φ_i·s_i +
// c mod s_i. Each axis pass transforms every column of every limb of the batch in place (dst may
// be src), C consecutive columns a block:
//
// - PowerfulDensePass: the axis as a φ_i × φ_i matrix, one thread per output word (φ_i
//   products). Forward: V[κ][j] = ω_i^(k_κ·j), k_κ the κ-th unit mod m_i (inputs past φ_i are
//   zero, outputs at non-units dropped: the pruned DFT). Inverse: the DFT by ω_i^−1 of the
//   values at the units and the fold by Φ_(p^e) in one matrix, D[u][κ] = ω_i^(−u·k_κ) −
//   ω_i^(−v·k_κ), v = (p − 1)·P + u mod P, P = p^(e−1) (times 1/m on the scaled axis). For the
//   odd prime powers up to 31, the CPU's direct axes.
// - PowerfulRaderPass: a prime p with L = p − 1 a power of two, as the CPU's rader_body: with
//   a[i] = x[g^i], A = DIF(a) (bit-reversed), then C = DIT(A ⊙ K + x_0·δ) and X[g^r] = C[r]; one
//   radix-2 stage a phase over the block's shared memory. Forward: x_(p−1) = 0 and X[0] (a
//   non-unit) is not stored, so X[g^r] goes to slot g^r − 1. Inverse: x_0 = 0 (slot 0 is no
//   unit); y_j = X[j] and the fold x_j = y_j − y_(p−1), y_(p−1) = C[L/2] (g^(L/2) = −1), x_0 =
//   A[0]·(1/m) − C[L/2] on the scaled axis (its kernel K carries 1/m there).
//
// Words: every value stays in [0, q) (Shoup products made exact, modular sums): the passes give
// the CPU's words because both compute the same linear map mod q. Constants per ring limb are
// one ShoupOperand table (PowerfulConstants in powerful_programs.hpp) at the same offsets for
// every limb; the index tables (g^i) are the same for every prime.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/program.hpp"
#include "polyhe/arith/add.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/config.hpp"

namespace polyhe::cuda::detail {

/// One axis of the device transform: its place in the limb and the offsets of its constants in
/// each limb's table (the forward and inverse tables of the direction a pass runs).
struct PowerfulAxisPlace {
  std::uint32_t m = 0;        // m_i = p^e
  std::uint32_t p = 0;        // the prime
  std::uint32_t phi = 0;      // φ(m_i)
  std::uint32_t stride = 0;   // s_i
  std::uint32_t columns = 0;  // φ(m)/φ_i
  bool rader = false;         // PowerfulRaderPass (else PowerfulDensePass)
  bool scaled = false;        // its inverse carries the 1/m
  // Dense: the φ_i² matrix V (forward) or D (inverse). Rader: the L − 1 radix-2 twiddles
  // (tw[h − 1 + i] = ω_(2h)^i) then the L kernel words, per direction.
  std::uint32_t forward = 0;
  std::uint32_t inverse = 0;
  std::uint32_t order = 0;  // Rader: g^i (i < L) in the index table
};

/// Where a pass finds a limb's constants: limb b of the batch is ring limb ring_limb[b % period],
/// whose table starts at consts + ring_limb·limb_consts (entry 0: {q, 0}; entry 1: 1/m).
struct PowerfulLimbs {
  const ShoupOperand<std::uint64_t>* consts;
  std::size_t limb_consts;
  const std::uint32_t* ring_limb;
  unsigned period;

  [[nodiscard]] POLYHE_HD const ShoupOperand<std::uint64_t>* of(unsigned batch) const {
    return consts + static_cast<std::size_t>(ring_limb[batch % period]) * limb_consts;
  }
};

/// Start of column c of an axis in its limb.
POLYHE_HD inline std::size_t powerful_column(const PowerfulAxisPlace& ax, std::uint32_t c) {
  return static_cast<std::size_t>(c / ax.stride) * ax.phi * ax.stride + c % ax.stride;
}

/// The dense pass: phase 0 loads the block's C columns into shared memory (φ_i × C words,
/// column fastest), phase 1 writes each output word of each column. blocks × batch =
/// (columns / C) × limbs.
struct PowerfulDensePass {
  using u64 = std::uint64_t;
  PowerfulLimbs limbs;
  const u64* src;
  u64* dst;
  std::size_t limb_words;  // φ(m)
  PowerfulAxisPlace axis;
  unsigned columns;  // C, dividing axis.columns
  unsigned batch;    // limbs of the batch
  unsigned threads;
  bool inverse;

  [[nodiscard]] LaunchShape shape() const {
    return {threads, axis.columns / columns, batch, std::size_t{axis.phi} * columns * sizeof(u64)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return 2; }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    u64* x = static_cast<u64*>(shared);
    const std::size_t limb = static_cast<std::size_t>(t.batch) * limb_words;
    const std::uint32_t first = t.block * columns;
    const unsigned items = axis.phi * columns;
    // Row axis (stride 1): a column's words are adjacent, so consecutive threads take
    // consecutive digits; else consecutive columns, which are adjacent.
    const bool digit_fastest = axis.stride == 1;
    if (phase == 0) {
      for (unsigned e = t.thread; e < items; e += threads) {
        const unsigned col = digit_fastest ? e / axis.phi : e % columns;
        const unsigned j = digit_fastest ? e % axis.phi : e / columns;
        x[j * columns + col] =
            src[limb + powerful_column(axis, first + col) + std::size_t{j} * axis.stride];
      }
      return;
    }
    const ShoupOperand<u64>* k = limbs.of(t.batch);
    const u64 q = k[0].w;
    const ShoupOperand<u64>* matrix = k + (inverse ? axis.inverse : axis.forward);
    for (unsigned e = t.thread; e < items; e += threads) {
      const unsigned col = digit_fastest ? e / axis.phi : e % columns;
      const unsigned u = digit_fastest ? e % axis.phi : e / columns;
      const ShoupOperand<u64>* row = matrix + std::size_t{u} * axis.phi;
      u64 acc = 0;
      for (unsigned j = 0; j < axis.phi; ++j) {
        acc = add_mod(acc, mul_shoup(x[j * columns + col], row[j], q), q);
      }
      dst[limb + powerful_column(axis, first + col) + std::size_t{u} * axis.stride] = acc;
    }
  }
};

/// The Rader pass over shared w[L × C] (column fastest), then x_0[C] and A[0][C]: phase 0 loads,
/// phases 1 … log L run the DIF stages, the next one multiplies by the kernel, the next log L the
/// DIT stages, the last one stores.
struct PowerfulRaderPass {
  using u64 = std::uint64_t;
  PowerfulLimbs limbs;
  const std::uint32_t* index;  // the index table (g^i at axis.order)
  const u64* src;
  u64* dst;
  std::size_t limb_words;
  PowerfulAxisPlace axis;
  unsigned columns;
  unsigned batch;
  unsigned threads;
  bool inverse;

  [[nodiscard]] POLYHE_HD unsigned len() const { return axis.p - 1; }
  [[nodiscard]] POLYHE_HD unsigned log_len() const {
    unsigned k = 0;
    while ((1u << k) < len()) ++k;
    return k;
  }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, axis.columns / columns, batch, std::size_t{len() + 2} * columns * sizeof(u64)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return 2 * log_len() + 3; }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const unsigned n = len();
    const unsigned stages = log_len();
    u64* w = static_cast<u64*>(shared);
    u64* x0 = w + std::size_t{n} * columns;
    u64* a0 = x0 + columns;
    const std::size_t limb = static_cast<std::size_t>(t.batch) * limb_words;
    const std::uint32_t first = t.block * columns;
    const std::uint32_t* order = index + axis.order;
    const ShoupOperand<u64>* k = limbs.of(t.batch);
    const u64 q = k[0].w;
    const ShoupOperand<u64>* tw = k + (inverse ? axis.inverse : axis.forward);
    const ShoupOperand<u64>* kernel = tw + (n - 1);
    const bool digit_fastest = axis.stride == 1;
    const auto word = [&](unsigned col, unsigned slot) {
      return limb + powerful_column(axis, first + col) + std::size_t{slot} * axis.stride;
    };

    if (phase == 0) {  // w[i] = x[g^i]; x_0
      const unsigned per = n + 1;
      for (unsigned e = t.thread; e < per * columns; e += threads) {
        const unsigned col = digit_fastest ? e / per : e % columns;
        const unsigned i = digit_fastest ? e % per : e / columns;
        if (i == n) {
          x0[col] = inverse ? 0 : src[word(col, 0)];
          continue;
        }
        const unsigned j = order[i];  // in [1, p − 1]
        u64 v = 0;
        if (!inverse) {
          if (j != n) v = src[word(col, j)];  // coordinate p − 1 is past φ_i: zero
        } else {
          v = src[word(col, j - 1)];  // slot of the unit j
        }
        w[std::size_t{i} * columns + col] = v;
      }
      return;
    }
    // One radix-2 stage of pair distance h: butterfly(x, y, ω_(2h)^i or null for i = 0) on every
    // pair of every column, DIF and DIT alike.
    const auto stage = [&](unsigned h, auto butterfly) {
      for (unsigned e = t.thread; e < n / 2 * columns; e += threads) {
        const unsigned col = e % columns;
        const unsigned pair = e / columns;
        const unsigned i = pair % h;
        const unsigned at = pair / h * 2 * h + i;
        butterfly(w[std::size_t{at} * columns + col], w[std::size_t{at + h} * columns + col],
                  i == 0 ? nullptr : &tw[h - 1 + i]);
      }
    };
    if (phase <= stages) {  // DIF stage h = n/2, n/4, …: (x, y) ← (x + y, (x − y)·ω_(2h)^i)
      stage(n >> phase, [&](u64& a, u64& b, const ShoupOperand<u64>* omega) {
        const u64 diff = sub_mod(a, b, q);
        a = add_mod(a, b, q);
        b = omega == nullptr ? diff : mul_shoup(diff, *omega, q);
      });
      return;
    }
    if (phase == stages + 1) {  // A ⊙ K, plus x_0 into slot 0; A[0] + x_0 kept
      const ShoupOperand<u64> scale = k[1];
      const bool scaled = inverse && axis.scaled;
      for (unsigned e = t.thread; e < n * columns; e += threads) {
        const unsigned col = e % columns;
        const unsigned i = e / columns;
        u64& v = w[std::size_t{i} * columns + col];
        const u64 product = mul_shoup(v, kernel[i], q);
        if (i == 0) {
          const u64 sum = add_mod(v, x0[col], q);
          a0[col] = scaled ? mul_shoup(sum, scale, q) : sum;
          v = add_mod(product, scaled ? mul_shoup(x0[col], scale, q) : x0[col], q);
        } else {
          v = product;
        }
      }
      return;
    }
    if (phase <= 2 * stages + 1) {  // DIT stage h = 1, 2, …: (x, y) ← (x + ω·y, x − ω·y)
      stage(1u << (phase - stages - 2), [&](u64& a, u64& b, const ShoupOperand<u64>* omega) {
        const u64 wb = omega == nullptr ? b : mul_shoup(b, *omega, q);
        b = sub_mod(a, wb, q);
        a = add_mod(a, wb, q);
      });
      return;
    }
    // Store X[g^r] = C[r].
    for (unsigned e = t.thread; e < n * columns; e += threads) {
      const unsigned col = digit_fastest ? e / n : e % columns;
      const unsigned r = digit_fastest ? e % n : e / columns;
      const u64 v = w[std::size_t{r} * columns + col];
      if (!inverse) {
        dst[word(col, order[r] - 1)] = v;  // the unit g^r's slot
        continue;
      }
      const u64 top = w[std::size_t{n / 2} * columns + col];  // y_(p−1)
      if (r == n / 2) {
        dst[word(col, 0)] = sub_mod(a0[col], top, q);
      } else {
        dst[word(col, order[r])] = sub_mod(v, top, q);
      }
    }
  }
};

}  // namespace polyhe::cuda::detail
