// The NTT block programs (program.hpp) of the CUDA backend, after
// [GPU-Polymul] §V (docs/references.md): the whole transform of one limb in one block's
// shared memory (LOS), a longer transform as a column pass and a row pass that each run in shared
// memory (LOM: two passes over device memory), limbs of a batch side by side in the grid (TOM),
// and the polynomial product in those passes, plain (NTT–Hadamard–INTT) or fused
// ([GPU-Polymul, Alg. 8]).
//
// Every transform is the merged one of arith/ntt_schedule.hpp, over the same butterfly policies
// (arith/butterfly.hpp), so its words equal the CPU's. The stages are grouped into passes of up to
// r_max = log2(radix) stages: in one pass a thread loads R = 2^r words into registers, runs the r
// stages there and stores them, one barrier per pass (the paper's radix 2/4/8/16 per thread).
//
// Forward stage s (m = 2^s butterfly blocks of half-width t = n/2^(s+1)) pairs positions j and
// j + t and uses twiddle m + j/(2t). The r stages s0 .. s0+r−1 act within groups of R words
//   pos_k = blk·R·te + k·te + rem   (k < R, rem < te = n/2^(s0+r)),
// and in local stage u the pair (k, k + R/2^(u+1)) takes twiddle 2^(s0+u) + blk·2^u + k/2^(r−u).
// The inverse (Gentleman–Sande) runs its stages the other way (t = 1, 2, …, n/2); r stages from
// t = ts act within the groups pos_k = blk·R·ts + k·ts + rem, and in local stage u the pair
// (k, k + 2^u) takes twiddle n/(2·ts·2^u) + blk·2^(r−u−1) + k/2^(u+1).
//
// Multi-block split: n = n1·n2. The first log2(n1) forward stages act within the columns
// {c + j·n2 : j < n1}, with the twiddles of an n1-point transform; the others within the rows
// [ρ·n2, (ρ+1)·n2). A column pass loads a tile of C consecutive columns (each row's C words are
// contiguous, so the loads coalesce), a row pass one row. The inverse runs rows first.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "cuda/program.hpp"
#include "polyhe/arith/add.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/config.hpp"

// On the device the group functions are inlined and their loops unrolled, so that x[] lives in
// registers; host emulation compiles them as ordinary functions (much faster to build).
#if defined(__CUDACC__)
#define POLYHE_UNROLL _Pragma("unroll")
#define POLYHE_NTT_INLINE __forceinline__
#else
#define POLYHE_UNROLL
#define POLYHE_NTT_INLINE inline
#endif

namespace polyhe::cuda::detail {

// --- Addressing --------------------------------------------------------------------------------

/// A position within one limb. The group functions index in 32 bits (a limb has at most 2^31
/// words; the device's rings have at most 2^17): on the device a 64-bit address is then one
/// multiply-add from the limb's base, and a shared-memory address one 32-bit add.
using Pos = std::uint32_t;

/// Words of a contiguous range: position pos lives at base[pos − first]. Device memory holds a
/// limb at first = 0; a row held in shared memory has first = the row's first position.
template <Word W>
struct Linear {
  W* base;
  Pos first;
  POLYHE_HD W& operator()(Pos pos) const { return base[pos - first]; }
};

/// A tile of shared memory holding the columns c0 .. c0 + width − 1 of every row (row length
/// n2 = 2^log_n2): position pos = j·n2 + c at base[j·width + (c − c0)].
template <Word W>
struct ColumnTile {
  W* base;
  Pos c0;
  unsigned log_n2;
  unsigned log_width;
  POLYHE_HD W& operator()(Pos pos) const {
    const Pos row = pos >> log_n2;
    const Pos col = pos & ((Pos{1} << log_n2) - 1);
    return base[(row << log_width) + (col - c0)];
  }
};

/// One of two places, chosen at run time: `tile` (shared memory) when in_tile, else `limb`
/// (device memory, or a fused load or store). A pass reads device memory only at a transform's
/// start and writes it only at its end; the group functions load and store a group's words
/// through an Either by one branch around all of them (load_words, store_words), so each access
/// is compiled for its own place (LDS/STS with 32-bit addresses for the tile) while the
/// butterflies between are compiled once. A single accessor whose base pointer is chosen at run
/// time makes every access a generic 64-bit one instead (seen in an H200 profile), and a copy of
/// the whole group function per pair of places overflows the instruction cache (measured on an
/// H200: RowNtt 1920 → 6960 instructions, the scheme operations at 2^14 up to 11 % slower).
template <class Limb, class Tile>
struct Either {
  Limb limb;
  Tile tile;
  bool in_tile;
};

template <int R, Word W, class In>
POLYHE_HD POLYHE_NTT_INLINE void load_words(const In& in, Pos base, unsigned log_stride,
                                            W (&x)[R]) {
  POLYHE_UNROLL
  for (int k = 0; k < R; ++k) x[k] = in(base + (static_cast<Pos>(k) << log_stride));
}

template <int R, Word W, class Limb, class Tile>
POLYHE_HD POLYHE_NTT_INLINE void load_words(const Either<Limb, Tile>& in, Pos base,
                                            unsigned log_stride, W (&x)[R]) {
  if (in.in_tile) {
    load_words<R>(in.tile, base, log_stride, x);
  } else {
    load_words<R>(in.limb, base, log_stride, x);
  }
}

template <int R, Word W, class Out>
POLYHE_HD POLYHE_NTT_INLINE void store_words(const Out& out, Pos base, unsigned log_stride,
                                             const W (&x)[R]) {
  POLYHE_UNROLL
  for (int k = 0; k < R; ++k) out(base + (static_cast<Pos>(k) << log_stride)) = x[k];
}

template <int R, Word W, class Limb, class Tile>
POLYHE_HD POLYHE_NTT_INLINE void store_words(const Either<Limb, Tile>& out, Pos base,
                                             unsigned log_stride, const W (&x)[R]) {
  if (out.in_tile) {
    store_words<R>(out.tile, base, log_stride, x);
  } else {
    store_words<R>(out.limb, base, log_stride, x);
  }
}

// --- One group of r stages in registers ---------------------------------------------------------

/// Forward stages s0 .. s0 + r − 1 on the group (blk, rem) with stride te = 2^log_te = n/2^(s0+r):
/// reads the R words through `in`, writes them through `out`. `last`: the transform's last stage
/// is among them, so the outputs go through fwd_out into [0, q). Inputs in the policy's CT input
/// range. (Strides and twiddle offsets are powers of two passed as their logs: the callers split
/// a group index by shifts and masks, never by a division, which the GPU runs as a long
/// subroutine.)
template <int r, Word W, class P, class In, class Out>
POLYHE_HD POLYHE_NTT_INLINE void ct_group(const P& p, const In& in, const Out& out, unsigned s0,
                                          unsigned log_te, Pos blk, Pos rem, bool last) {
  constexpr int R = 1 << r;
  W x[R];
  const Pos base = ((blk * R) << log_te) + rem;
  load_words<R>(in, base, log_te, x);
  POLYHE_UNROLL
  for (int u = 0; u < r; ++u) {
    const int h = R >> (u + 1);
    const Pos tw = (Pos{1} << (s0 + u)) + (blk << u);
    POLYHE_UNROLL
    for (int j = 0; j < R / 2; ++j) {
      const int k = (j / h) * 2 * h + (j % h);
      p.ct(x[k], x[k + h], p.fwd_tw(tw + static_cast<Pos>(k >> (r - u))));
    }
  }
  if (last) {
    POLYHE_UNROLL
    for (int k = 0; k < R; ++k) x[k] = p.fwd_out(x[k]);
  }
  store_words<R>(out, base, log_te, x);
}

/// Inverse stages t = ts, 2ts, …, ts·2^(r−1) (ts = 2^s0) on the group (blk, rem) of a transform
/// of length n = 2^log_n. `last`: the stage t = n/2 is among them (outputs through inv_out into
/// [0, q)).
template <int r, Word W, class P, class In, class Out>
POLYHE_HD POLYHE_NTT_INLINE void gs_group(const P& p, const In& in, const Out& out, unsigned log_n,
                                          unsigned s0, Pos blk, Pos rem, bool last) {
  constexpr int R = 1 << r;
  W x[R];
  const Pos base = ((blk * R) << s0) + rem;
  load_words<R>(in, base, s0, x);
  POLYHE_UNROLL
  for (int u = 0; u < r; ++u) {
    const int h = 1 << u;
    const Pos tw = (Pos{1} << (log_n - 1 - s0 - u)) + (blk << (r - u - 1));
    POLYHE_UNROLL
    for (int j = 0; j < R / 2; ++j) {
      const int k = ((j >> u) << (u + 1)) | (j & (h - 1));
      p.gs(x[k], x[k + h], p.inv_tw(tw + static_cast<Pos>(k >> (u + 1))));
    }
  }
  if (last) {
    POLYHE_UNROLL
    for (int k = 0; k < R; ++k) x[k] = p.inv_out(x[k]);
  }
  store_words<R>(out, base, s0, x);
}

/// ct_group / gs_group with the stage count r (1 ≤ r ≤ RMAX) known at run time only.
template <int RMAX, Word W, class P, class In, class Out>
POLYHE_HD POLYHE_NTT_INLINE void ct_group_any(int r, const P& p, const In& in, const Out& out,
                                              unsigned s0, unsigned log_te, Pos blk, Pos rem,
                                              bool last) {
  if constexpr (RMAX >= 4) {
    if (r == 4) return ct_group<4, W>(p, in, out, s0, log_te, blk, rem, last);
  }
  if constexpr (RMAX >= 3) {
    if (r == 3) return ct_group<3, W>(p, in, out, s0, log_te, blk, rem, last);
  }
  if constexpr (RMAX >= 2) {
    if (r == 2) return ct_group<2, W>(p, in, out, s0, log_te, blk, rem, last);
  }
  ct_group<1, W>(p, in, out, s0, log_te, blk, rem, last);
}

template <int RMAX, Word W, class P, class In, class Out>
POLYHE_HD POLYHE_NTT_INLINE void gs_group_any(int r, const P& p, const In& in, const Out& out,
                                              unsigned log_n, unsigned s0, Pos blk, Pos rem,
                                              bool last) {
  if constexpr (RMAX >= 4) {
    if (r == 4) return gs_group<4, W>(p, in, out, log_n, s0, blk, rem, last);
  }
  if constexpr (RMAX >= 3) {
    if (r == 3) return gs_group<3, W>(p, in, out, log_n, s0, blk, rem, last);
  }
  if constexpr (RMAX >= 2) {
    if (r == 2) return gs_group<2, W>(p, in, out, log_n, s0, blk, rem, last);
  }
  gs_group<1, W>(p, in, out, log_n, s0, blk, rem, last);
}

// --- Passes ------------------------------------------------------------------------------------

/// A range of stages split into passes of at most r_max stages each (the last pass may be
/// shorter). Forward stages are numbered s = 0 .. log2(n) − 1; inverse stages by log2(t), so the
/// inverse's first stage (t = 1) is 0 as well.
struct Passes {
  unsigned begin = 0;  // first stage
  unsigned end = 0;    // one past the last
  unsigned r_max = 1;

  [[nodiscard]] POLYHE_HD unsigned count() const {
    return end > begin ? (end - begin + r_max - 1) / r_max : 0;
  }
  [[nodiscard]] POLYHE_HD unsigned first(unsigned pass) const { return begin + pass * r_max; }
  [[nodiscard]] POLYHE_HD int stages(unsigned pass) const {
    const unsigned f = first(pass);
    return static_cast<int>(end - f < r_max ? end - f : r_max);
  }
};

/// The fused product's middle ([GPU-Polymul, Alg. 7/8]) for the pair (2i, 2i + 1) of a limb of
/// length n, whose forward transforms stopped before their last stage: c0 = u + α²·v, c1 =
/// (a0+a1)(b0+b1) − u − v with u = a0·b0, v = a1·b1 and α² = ±ψ^br(n/4 + ⌊i/2⌋) (+ for even i), or
/// −1 for n = 2. As detail::fused_hadamard computes it on the host. Inputs and outputs in [0, q).
template <Word W, class P>
POLYHE_HD POLYHE_NTT_INLINE void fused_pair(const P& p, std::size_t n, std::size_t i, W a0, W a1,
                                            W b0, W b1, W& c0, W& c1) {
  const W q = p.q;
  const W u = p.mul(a0, b0);
  const W v = p.mul(a1, b1);
  const W s = p.mul(add_mod(a0, a1, q), add_mod(b0, b1, q));
  c1 = sub_mod(sub_mod(s, u, q), v, q);
  if (n == 2) {
    c0 = sub_mod(u, v, q);
  } else {
    const W z = p.mul_tw(v, p.fwd_tw(n / 4 + i / 2));
    c0 = (i % 2 == 0) ? add_mod(u, z, q) : sub_mod(u, z, q);
  }
}

/// The product of the words [first, first + count) of a limb of length n, evaluation form, one
/// thread's share: xc[i] = xa[i]·xb[i], or (fused) the pairs of fused_pair, where xa, xb and xc
/// hold those words from their index 0 (first and count even when fused).
template <Word W, class P>
POLYHE_HD POLYHE_NTT_INLINE void hadamard(const P& p, std::size_t n, std::size_t first,
                                          std::size_t count, const W* xa, const W* xb, W* xc,
                                          bool fused, unsigned thread, unsigned threads) {
  if (fused) {
    for (std::size_t i = thread; i < count / 2; i += threads) {
      W c0, c1;
      fused_pair<W>(p, n, first / 2 + i, xa[2 * i], xa[2 * i + 1], xb[2 * i], xb[2 * i + 1], c0,
                    c1);
      xc[2 * i] = c0;
      xc[2 * i + 1] = c1;
    }
  } else {
    for (std::size_t i = thread; i < count; i += threads) xc[i] = p.mul(xa[i], xb[i]);
  }
}

// --- Whole transforms in one block (LOS) --------------------------------------------------------

/// The whole transform of each limb in one block: block b of the grid transforms limb b, from
/// src to dst (which may be the same words). Shared memory: n words.
template <Word W, class P, int RMAX>
struct WholeNtt {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;  // one per limb
  const W* src;
  W* dst;
  unsigned log_n;
  unsigned limbs;
  unsigned period;  // limb i uses policies[i % period] (limbs of several polynomials)
  unsigned threads;
  bool inverse;

  [[nodiscard]] POLYHE_HD Passes passes() const { return {0, log_n, RMAX}; }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, limbs, 1, (std::size_t{1} << log_n) * sizeof(W)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return passes().count(); }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const Passes ps = passes();
    const P p = policies[t.block % period];
    const std::size_t off = static_cast<std::size_t>(t.block) << log_n;
    const bool last = phase + 1 == ps.count();
    const Linear<W> sm{static_cast<W*>(shared), 0};
    const Either<Linear<W>, Linear<W>> in{{const_cast<W*>(src) + off, 0}, sm, phase != 0};
    const Either<Linear<W>, Linear<W>> out{{dst + off, 0}, sm, !last};
    const int r = ps.stages(phase);
    const unsigned s0 = ps.first(phase);
    const Pos groups = Pos{1} << (log_n - static_cast<unsigned>(r));
    for (Pos g = t.thread; g < groups; g += threads) {
      if (!inverse) {
        const unsigned log_te = log_n - s0 - static_cast<unsigned>(r);
        ct_group_any<RMAX, W>(r, p, in, out, s0, log_te, g >> log_te, g & ((Pos{1} << log_te) - 1),
                              last);
      } else {
        gs_group_any<RMAX, W>(r, p, in, out, log_n, s0, g >> s0, g & ((Pos{1} << s0) - 1), last);
      }
    }
  }
};

/// c = a·b mod (x^n + 1, q) for each limb in one block: forward transforms of a and b, the
/// Hadamard product (plain, or fused with the last forward and first inverse stages:
/// [GPU-Polymul, Alg. 8]) and the inverse, with a, b and the product in shared memory between
/// phases (2n words). c may be a or b.
template <Word W, class P, int RMAX>
struct WholePolymul {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;
  const W* a;
  const W* b;
  W* c;
  unsigned log_n;
  unsigned limbs;
  unsigned period;  // limb i uses policies[i % period] (limbs of several polynomials)
  unsigned threads;
  bool fused;
  /// b holds `period` limbs already in evaluation form (forward-transformed; one polynomial
  /// resident on the device), limb i of a multiplied by limb i % period of b; not fused.
  bool b_evaluated;

  // Forward stages [0, log_n − fused), then the product, then inverse stages [fused, log_n).
  [[nodiscard]] POLYHE_HD Passes forward_passes() const {
    return {0, log_n - (fused ? 1 : 0), RMAX};
  }
  [[nodiscard]] POLYHE_HD Passes inverse_passes() const { return {fused ? 1u : 0u, log_n, RMAX}; }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, limbs, 1, 2 * (std::size_t{1} << log_n) * sizeof(W)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const {
    return forward_passes().count() + 1 + inverse_passes().count();
  }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const std::size_t n = std::size_t{1} << log_n;
    const P p = policies[t.block % period];
    const std::size_t off = static_cast<std::size_t>(t.block) << log_n;
    W* const sa = static_cast<W*>(shared);
    W* const sb = sa + n;
    const Passes fw = forward_passes();
    const Passes iv = inverse_passes();
    if (phase < fw.count()) {
      const int r = fw.stages(phase);
      const unsigned s0 = fw.first(phase);
      const unsigned log_te = log_n - s0 - static_cast<unsigned>(r);
      const bool last = phase + 1 == fw.count();
      const Pos groups = Pos{1} << (log_n - static_cast<unsigned>(r));
      const Pos operands = b_evaluated ? 1 : 2;
      for (Pos g = t.thread; g < operands * groups; g += threads) {
        const bool second = g >= groups;
        const Pos gg = second ? g - groups : g;
        const Linear<W> sm{second ? sb : sa, 0};
        const Either<Linear<W>, Linear<W>> in{
            {const_cast<W*>(second ? b : a) + off, 0}, sm, phase != 0};
        ct_group_any<RMAX, W>(r, p, in, sm, s0, log_te, gg >> log_te, gg & ((Pos{1} << log_te) - 1),
                              last);
      }
      return;
    }
    if (phase == fw.count()) {  // the product, in sa
      const bool from_global = fw.count() == 0;
      const W* const xa = from_global ? a + off : sa;
      const std::size_t boff = static_cast<std::size_t>(t.block % period) << log_n;
      const W* const xb = b_evaluated ? b + boff : from_global ? b + off : sb;
      const bool to_global = iv.count() == 0;
      W* const xc = to_global ? c + off : sa;
      hadamard<W>(p, n, 0, n, xa, xb, xc, fused, t.thread, threads);
      return;
    }
    const unsigned ip = phase - fw.count() - 1;
    const int r = iv.stages(ip);
    const unsigned s0 = iv.first(ip);
    const bool last = ip + 1 == iv.count();
    const Linear<W> sm{sa, 0};
    const Either<Linear<W>, Linear<W>> out{{c + off, 0}, sm, !last};
    const Pos groups = Pos{1} << (log_n - static_cast<unsigned>(r));
    for (Pos g = t.thread; g < groups; g += threads) {
      gs_group_any<RMAX, W>(r, p, sm, out, log_n, s0, g >> s0, g & ((Pos{1} << s0) - 1), last);
    }
  }
};

// --- Two passes over device memory (LOM), limbs side by side (TOM) ------------------------------

/// The column half of a split transform (n = n1·n2 = 2^log_n1 · 2^log_n2): the forward stages
/// [0, log_n1) or the inverse stages [log_n2, log_n), for `operands` arrays of `limbs` limbs each
/// (operand o, limb l is grid row o·limbs + l). Block b of a row of the grid holds the columns
/// [b·C, (b + 1)·C), C = 2^log_width, in shared memory (n1·C words). dst may be src.
template <Word W, class P, int RMAX>
struct ColumnNtt {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;
  const W* src[2];
  W* dst[2];
  unsigned log_n1;
  unsigned log_n2;
  unsigned log_width;
  unsigned limbs;
  unsigned period;    // limb i uses policies[i % period] (limbs of several polynomials)
  unsigned operands;  // 1 or 2
  unsigned threads;
  bool inverse;

  [[nodiscard]] POLYHE_HD Passes passes() const {
    return inverse ? Passes{log_n2, log_n1 + log_n2, RMAX} : Passes{0, log_n1, RMAX};
  }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << (log_n2 - log_width), limbs * operands,
            (std::size_t{1} << (log_n1 + log_width)) * sizeof(W)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return passes().count(); }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const unsigned operand = t.batch / limbs;
    const unsigned limb = t.batch % limbs;
    const P p = policies[limb % period];
    const unsigned log_n = log_n1 + log_n2;
    const std::size_t off = static_cast<std::size_t>(limb) << log_n;
    const Pos width = Pos{1} << log_width;
    const Pos c0 = static_cast<Pos>(t.block) << log_width;
    const ColumnTile<W> tile{static_cast<W*>(shared), c0, log_n2, log_width};
    const Passes ps = passes();
    const int r = ps.stages(phase);
    const unsigned s0 = ps.first(phase);
    const bool final = phase + 1 == ps.count();
    const Either<Linear<W>, ColumnTile<W>> in{
        {const_cast<W*>(operand == 0 ? src[0] : src[1]) + off, 0}, tile, phase != 0};
    const Either<Linear<W>, ColumnTile<W>> out{
        {(operand == 0 ? dst[0] : dst[1]) + off, 0}, tile, !final};
    // Groups of the tile: C columns times n1/R groups of the n1-point transform, the column
    // fastest, so that neighbouring threads touch neighbouring words.
    const Pos groups = (Pos{1} << (log_n1 - static_cast<unsigned>(r))) << log_width;
    for (Pos g = t.thread; g < groups; g += threads) {
      const Pos col = c0 + (g & (width - 1));
      const Pos jg = g >> log_width;
      if (!inverse) {
        const unsigned log_te1 = log_n1 - s0 - static_cast<unsigned>(r);  // log2(te / n2)
        const Pos rem = ((jg & ((Pos{1} << log_te1) - 1)) << log_n2) + col;
        // Not the transform's last stage: the row pass ends the forward transform.
        ct_group_any<RMAX, W>(r, p, in, out, s0, log_te1 + log_n2, jg >> log_te1, rem, false);
      } else {
        const unsigned log_ts1 = s0 - log_n2;  // log2(ts / n2)
        const Pos rem = ((jg & ((Pos{1} << log_ts1) - 1)) << log_n2) + col;
        gs_group_any<RMAX, W>(r, p, in, out, log_n, s0, jg >> log_ts1, rem, final);
      }
    }
  }
};

/// The row half of a split transform: the forward stages [log_n1, log_n) or the inverse stages
/// [0, log_n2), one row of n2 words per block in shared memory. dst may be src.
template <Word W, class P, int RMAX>
struct RowNtt {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;
  const W* src;
  W* dst;
  unsigned log_n1;
  unsigned log_n2;
  unsigned limbs;
  unsigned period;  // limb i uses policies[i % period] (limbs of several polynomials)
  unsigned threads;
  bool inverse;
  /// The row is already in the block's shared memory (src unused) / stays there (dst unused):
  /// the row stages of a cluster transform (cluster_body.hpp).
  bool load_shared = false;
  bool store_shared = false;

  [[nodiscard]] POLYHE_HD Passes passes() const {
    return inverse ? Passes{0, log_n2, RMAX} : Passes{log_n1, log_n1 + log_n2, RMAX};
  }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << log_n1, limbs, (std::size_t{1} << log_n2) * sizeof(W)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return passes().count(); }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const P p = policies[t.batch % period];
    const unsigned log_n = log_n1 + log_n2;
    const std::size_t off = static_cast<std::size_t>(t.batch) << log_n;
    const Pos row0 = static_cast<Pos>(t.block) << log_n2;
    const Linear<W> sm{static_cast<W*>(shared), row0};
    const Passes ps = passes();
    const bool final = phase + 1 == ps.count();
    const Either<Linear<W>, Linear<W>> in{
        {const_cast<W*>(src) + off, 0}, sm, phase != 0 || load_shared};
    const Either<Linear<W>, Linear<W>> out{{dst + off, 0}, sm, !final || store_shared};
    const int r = ps.stages(phase);
    const unsigned s0 = ps.first(phase);
    const unsigned log_groups = log_n2 - static_cast<unsigned>(r);
    const Pos groups = Pos{1} << log_groups;
    const Pos g0 = static_cast<Pos>(t.block) << log_groups;  // global group
    for (Pos g = t.thread; g < groups; g += threads) {
      const Pos gg = g0 + g;
      if (!inverse) {
        const unsigned log_te = log_n - s0 - static_cast<unsigned>(r);
        ct_group_any<RMAX, W>(r, p, in, out, s0, log_te, gg >> log_te,
                              gg & ((Pos{1} << log_te) - 1), final);
      } else {
        // The row pass of the inverse is never its last stage (t = n/2 is a column stage).
        gs_group_any<RMAX, W>(r, p, in, out, log_n, s0, gg >> s0, gg & ((Pos{1} << s0) - 1), false);
      }
    }
  }
};

/// The row half of a split product: each block loads row ρ of both column-transformed operands,
/// finishes their forward transforms, multiplies (plain or fused) and runs the inverse's row
/// stages, writing the row of c (2·n2 words of shared memory). The column pass of the inverse
/// (ColumnNtt, inverse) ends the product. c may be a or b.
template <Word W, class P, int RMAX>
struct RowPolymul {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;
  const W* a;
  const W* b;
  W* c;
  unsigned log_n1;
  unsigned log_n2;
  unsigned limbs;
  unsigned period;  // limb i uses policies[i % period] (limbs of several polynomials)
  unsigned threads;
  bool fused;
  bool b_evaluated;  // as WholePolymul's: b's rows read from device memory, already transformed
  /// The rows of a (and b unless b_evaluated) are already in shared memory, column-transformed
  /// / the row of c stays in shared memory (a, c unused): the rows of a cluster product.
  bool load_shared = false;
  bool store_shared = false;

  [[nodiscard]] POLYHE_HD Passes forward_passes() const {
    return {log_n1, log_n1 + log_n2 - (fused ? 1 : 0), RMAX};
  }
  [[nodiscard]] POLYHE_HD Passes inverse_passes() const { return {fused ? 1u : 0u, log_n2, RMAX}; }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << log_n1, limbs, 2 * (std::size_t{1} << log_n2) * sizeof(W)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const {
    return forward_passes().count() + 1 + inverse_passes().count();
  }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const P p = policies[t.batch % period];
    const unsigned log_n = log_n1 + log_n2;
    const std::size_t n = std::size_t{1} << log_n;
    const std::size_t n2 = std::size_t{1} << log_n2;
    const std::size_t off = static_cast<std::size_t>(t.batch) << log_n;
    const Pos row0 = static_cast<Pos>(t.block) << log_n2;
    W* const sa = static_cast<W*>(shared);
    W* const sb = sa + n2;
    const Passes fw = forward_passes();
    const Passes iv = inverse_passes();
    if (phase < fw.count()) {
      const int r = fw.stages(phase);
      const unsigned s0 = fw.first(phase);
      const unsigned log_te = log_n - s0 - static_cast<unsigned>(r);
      const bool last = phase + 1 == fw.count();
      const unsigned log_groups = log_n2 - static_cast<unsigned>(r);
      const Pos groups = Pos{1} << log_groups;
      const Pos g0 = static_cast<Pos>(t.block) << log_groups;
      const Pos operands = b_evaluated ? 1 : 2;
      for (Pos g = t.thread; g < operands * groups; g += threads) {
        const bool second = g >= groups;
        const Pos gg = g0 + (second ? g - groups : g);
        const Linear<W> sm{second ? sb : sa, row0};
        const Either<Linear<W>, Linear<W>> in{
            {const_cast<W*>(second ? b : a) + off, 0}, sm, phase != 0 || load_shared};
        ct_group_any<RMAX, W>(r, p, in, sm, s0, log_te, gg >> log_te, gg & ((Pos{1} << log_te) - 1),
                              last);
      }
      return;
    }
    if (phase == fw.count()) {  // the product, into sa
      const bool from_global = fw.count() == 0 && !load_shared;
      const W* const xa = from_global ? a + off + row0 : sa;
      const std::size_t boff = static_cast<std::size_t>(t.batch % period) << log_n;
      const W* const xb = b_evaluated ? b + boff + row0 : from_global ? b + off + row0 : sb;
      const bool to_global = iv.count() == 0 && !store_shared;
      W* const xc = to_global ? c + off + row0 : sa;
      hadamard<W>(p, n, row0, n2, xa, xb, xc, fused, t.thread, threads);
      return;
    }
    const unsigned ip = phase - fw.count() - 1;
    const int r = iv.stages(ip);
    const unsigned s0 = iv.first(ip);
    const bool final = ip + 1 == iv.count() && !store_shared;
    const Linear<W> sm{sa, row0};
    const Either<Linear<W>, Linear<W>> out{{c + off, 0}, sm, !final};
    const unsigned log_groups = log_n2 - static_cast<unsigned>(r);
    const Pos groups = Pos{1} << log_groups;
    const Pos g0 = static_cast<Pos>(t.block) << log_groups;
    for (Pos g = t.thread; g < groups; g += threads) {
      const Pos gg = g0 + g;
      gs_group_any<RMAX, W>(r, p, sm, out, log_n, s0, gg >> s0, gg & ((Pos{1} << s0) - 1), false);
    }
  }
};

}  // namespace polyhe::cuda::detail
