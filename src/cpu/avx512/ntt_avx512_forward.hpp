// The forward transform ([GPU-Polymul, Alg. 5], merged Cooley–Tukey, natural → bit-reversed) on 8 ×
// u64 lanes.
//
// Stage s (m = 2^s blocks of 2t elements, t = n/2^(s+1)) pairs a[2it + j] with a[2it + t + j] under
// the twiddle ψ^br(m + i). Stages with t ≥ 32 run as radix-2/4/8 passes of "vertical" butterflies
// (lane j of one register against lane j of another, one broadcast twiddle per block); the last
// five stages (t = 16 … 1) run in registers on chunks of 32 elements, four chunks side by side,
// the last three of them (t = 4, 2, 1) inside registers with shuffles between stages and one
// twiddle per lane. Only the last stage reduces to [0, q).
//
// Cache blocking: passes over the whole array until a block fits kBlockLog (only at n = 2^17),
// then each block goes through all its remaining stages before the next one is touched.
#pragma once

#include <cstddef>

#include "ntt_avx512_simd.hpp"
#include "ntt_avx512_tables.hpp"

namespace polyhe::cpu::avx512 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see ntt_avx512_simd.hpp

/// log2 of the block (in elements) that the depth-first part works on: 2^16 words = 512 KiB, half
/// the 1 MiB L2. Measured on Zen 5 (A/B, medians): L1-sized blocks (2^11 … 2^13) gain nothing,
/// the L2 feeds the passes fast enough; at n = 2^17 blocks of 2^15 … 2^17 are 3–5 % faster than
/// 2^12 (fewer passes over data that spills to L3), 2^16 marginally the best.
constexpr int kBlockLog = 16;

/// Where a run of passes reads and writes: the first pass reads `in`, the last writes `out`, and
/// the others read and write `work`. In place: all three are the transform's array; a misaligned
/// array may go through an aligned work buffer instead (the first pass copies in, the last out).
struct Route {
  const u64* in;
  u64* work;
  u64* out;
};

/// Radix-2^K CT pass over stages s … s+K−1, for the stage-s blocks i ∈ [i0, i1), from src to dst
/// (which may be equal), J columns of 8 lanes at a time: the J columns' butterflies of a stage are
/// independent and sit next to each other, which hides the butterfly latency. Requires
/// t/2^(K−1) ≥ 8J at stage s. Values in [0, 2c) (LazyArith).
template <int K, int J, class Lz>
void fwd_pass(const u64* src, u64* dst, std::size_t n, int s, std::size_t i0, std::size_t i1,
              const Tw3* tw, const Lz& lz) {
  constexpr int R = 1 << K;
  const std::size_t m = std::size_t{1} << s;
  const std::size_t stride = (n >> s) / R;  // a block of 2t elements as R rows
  for (std::size_t i = i0; i < i1; ++i) {
    const std::size_t base = i * (n >> s);
    for (std::size_t j = base; j < base + stride; j += 8 * J) {
      V x[J][R];
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < J; ++c) x[c][r] = load(src + j + r * stride + 8 * c);
      }
      unrolled<K>([&](auto kc) {  // stage s+k: 2^k sub-blocks of R/2^k rows
        constexpr int k = kc;
        constexpr int half = R >> (k + 1);
#pragma GCC unroll 8
        for (int b = 0; b < (1 << k); ++b) {
          const VTw w = broadcast(tw[((m + i) << k) + b]);  // ψ^br of sub-block b
#pragma GCC unroll 8
          for (int r = 0; r < half; ++r) {
#pragma GCC unroll 4
            for (int c = 0; c < J; ++c)
              lz.ct(x[c][2 * half * b + r], x[c][2 * half * b + r + half], w);
          }
        }
      });
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < J; ++c) store(dst + j + r * stride + 8 * c, x[c][r]);
      }
    }
  }
}

/// One fwd_pass with the widest J that the stride allows.
template <int K, class Lz>
void fwd_pass_any_j(const u64* src, u64* dst, std::size_t n, int s, std::size_t i0, std::size_t i1,
                    const Tw3* tw, const Lz& lz) {
  const std::size_t stride = (n >> s) >> K;
  if (K == 3) {
    stride >= 16 ? fwd_pass<K, 2>(src, dst, n, s, i0, i1, tw, lz)
                 : fwd_pass<K, 1>(src, dst, n, s, i0, i1, tw, lz);
  } else {
    stride >= 32 ? fwd_pass<K, 4>(src, dst, n, s, i0, i1, tw, lz)
                 : fwd_pass<K, 2>(src, dst, n, s, i0, i1, tw, lz);
  }
}

/// How many stages the next pass takes when `left` remain: radix-8 where possible, a remainder
/// of 4 as two radix-4 passes rather than radix-8 + radix-2.
constexpr int pass_stages(int left) {
  return (left >= 3 && left != 4) ? 3 : (left >= 2 ? 2 : 1);
}

/// Stages s … s_end−1 for the stage-s blocks [i0, i1), along the route.
template <class Lz>
void fwd_passes(const Route& route, std::size_t n, int s, int s_end, std::size_t i0, std::size_t i1,
                const Tw3* tw, const Lz& lz) {
  const u64* src = route.in;
  while (s < s_end) {
    const int k = pass_stages(s_end - s);
    u64* dst = s + k == s_end ? route.out : route.work;
    if (k == 3) fwd_pass_any_j<3>(src, dst, n, s, i0, i1, tw, lz);
    if (k == 2) fwd_pass_any_j<2>(src, dst, n, s, i0, i1, tw, lz);
    if (k == 1) fwd_pass_any_j<1>(src, dst, n, s, i0, i1, tw, lz);
    src = dst;
    i0 <<= k;
    i1 <<= k;
    s += k;
  }
}

/// The twiddles of the in-register stages for the 16-element group g (8-blocks A = 2g, B = 2g+1)
/// in the layouts below: ψ^br(n/8 + 2g + ·) on 2 lanes repeated, ψ^br(n/4 + 4g + ·) on 4,
/// ψ^br(n/2 + 8g + ·) on 8 — consecutive table entries each time.
template <int P>
[[gnu::always_inline]] inline VTw lane_twiddles(const SplitTable& t, std::size_t i) {
  const V shoup = load_repeated<P>(t.shoup_at(i));
  return {load_repeated<P>(t.w_at(i)), shoup, _mm512_srli_epi64(shoup, 32)};
}

/// The stages t = 4, 2, 1 (t = 4, 2 when kTruncated) on G groups of 16 elements starting at group
/// g0, group g being A = v[2g] = [a0..a7], B = v[2g+1] = [b0..b7]. Every layout change is one
/// perfect shuffle (interleave_lo/hi), chosen so that lane l of X and Y pairs the elements whose
/// twiddle is the l-th (mod P) of consecutive table entries:
///   t = 4: X = [a0 b0 a1 b1 a2 b2 a3 b3], Y = [a4 b4 … a7 b7]      twiddles of 8-blocks A, B
///   t = 2: X = [a0 a4 b0 b4 a1 a5 b1 b5], Y = [a2 a6 b2 b6 a3 a7 b3 b7]   4-blocks 2A … 2B+1
///   t = 1: X = [a0 a2 a4 a6 b0 b2 b4 b6], Y = [a1 a3 a5 a7 b1 b3 b5 b7]   2-blocks 4A … 4B+3
/// and a last perfect shuffle restores [a0..a7], [b0..b7]. Values in [0, 2c), results in [0, q).
/// In two steps (t = 4; then t = 2, 1 and the output), x and y carrying the layout between them.
/// The G groups advance stage by stage, so that independent butterflies sit next to each other
/// in program order (a butterfly's latency is about four times its throughput cost).
template <int G, class Lz>
[[gnu::always_inline]] inline void fwd_last3_begin(const V* v, V* x, V* y, std::size_t n,
                                                   std::size_t g0, const SplitTable& tw,
                                                   const Lz& lz) {
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    x[g] = interleave_lo(v[2 * g], v[2 * g + 1]);
    y[g] = interleave_hi(v[2 * g], v[2 * g + 1]);
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) lz.ct(x[g], y[g], lane_twiddles<2>(tw, n / 8 + 2 * (g0 + g)));
}

template <int G, bool kTruncated, class Lz>
[[gnu::always_inline]] inline void fwd_last3_end(V* x, V* y, V* v, std::size_t n, std::size_t g0,
                                                 const SplitTable& tw, const Lz& lz) {
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    const V x2 = interleave_lo(x[g], y[g]);
    y[g] = interleave_hi(x[g], y[g]);
    x[g] = x2;
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) lz.ct(x[g], y[g], lane_twiddles<4>(tw, n / 4 + 4 * (g0 + g)));
  if constexpr (kTruncated) {  // X, Y → [a0..a7], [b0..b7]: lanes 0 4 8 12 1 5 9 13 / 2 6 …
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const V x2 = lz.fwd_out(x[g]), y2 = lz.fwd_out(y[g]);
      v[2 * g] = _mm512_permutex2var_epi64(x2, _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13), y2);
      v[2 * g + 1] =
          _mm512_permutex2var_epi64(x2, _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15), y2);
    }
  } else {
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const V x3 = interleave_lo(x[g], y[g]);
      y[g] = interleave_hi(x[g], y[g]);
      x[g] = x3;
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) lz.ct(x[g], y[g], lane_twiddles<8>(tw, n / 2 + 8 * (g0 + g)));
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      const V x3 = lz.fwd_out(x[g]), y3 = lz.fwd_out(y[g]);
      v[2 * g] = interleave_lo(x3, y3);
      v[2 * g + 1] = interleave_hi(x3, y3);
    }
  }
}

/// The stages t = 16 and t = 8 (vertical) on the C chunks from chunk c: chunk c + k is block
/// c + k of stage log n − 5, and its two halves are blocks 2(c + k), 2(c + k) + 1 of the next.
template <int C, class Lz>
[[gnu::always_inline]] inline void fwd_t16_t8(V* v, std::size_t n, std::size_t c,
                                              const KernelTables& tb, const Lz& lz) {
#pragma GCC unroll 8
  for (int k = 0; k < C; ++k) {
    const VTw w16 = broadcast(tb.fwd[n / 32 + c + k]);
    lz.ct(v[4 * k], v[4 * k + 2], w16);
    lz.ct(v[4 * k + 1], v[4 * k + 3], w16);
  }
#pragma GCC unroll 16
  for (int h = 0; h < 2 * C; ++h)
    lz.ct(v[2 * h], v[2 * h + 1], broadcast(tb.fwd[n / 16 + 2 * c + h]));
}

/// Chunks of 32 elements that the register stages handle side by side (4: the 16 vectors of
/// data fill half the register file; 8 spills, 2 leaves the butterflies' latency exposed).
constexpr int kTailChunks = 4;

/// The last five stages (t = 16, 8, 4, 2, 1; without t = 1 when kTruncated) on the 32-element
/// chunks [c0, c1), C at a time (c1 − c0 a multiple of C), from src to dst, with the output
/// reduction to [0, q).
template <int C, bool kTruncated, class Lz>
void fwd_tail(const u64* src, u64* dst, std::size_t n, std::size_t c0, std::size_t c1,
              const KernelTables& tb, const Lz& lz) {
  for (std::size_t c = c0; c < c1; c += C) {
    V v[4 * C], x[2 * C], y[2 * C];
#pragma GCC unroll 16
    for (int r = 0; r < 4 * C; ++r) v[r] = load(src + 32 * c + 8 * r);
    fwd_t16_t8<C>(v, n, c, tb, lz);
    fwd_last3_begin<2 * C>(v, x, y, n, 2 * c, tb.fwd_split, lz);
    fwd_last3_end<2 * C, kTruncated>(x, y, v, n, 2 * c, tb.fwd_split, lz);
#pragma GCC unroll 16
    for (int r = 0; r < 4 * C; ++r) store(dst + 32 * c + 8 * r, v[r]);
  }
}

/// The whole forward transform (kTruncated: without its last stage) of a, through `work` (= a
/// when a is 64-byte aligned, else an aligned buffer of n words). In [0, q), out [0, q).
template <bool kTruncated, class Lz>
void forward_ntt(u64* a, u64* work, const KernelTables& tb, const Lz& lz) {
  const std::size_t n = tb.n;
  const int log_n = tb.log_n;
  const int global = log_n > kBlockLog ? log_n - kBlockLog : 0;  // stages over the whole array
  fwd_passes({a, work, work}, n, 0, global, 0, 1, tb.fwd.data(), lz);
  const u64* in = global > 0 ? work : a;
  const std::size_t blocks = std::size_t{1} << global;
  const std::size_t chunks = n / 32 / blocks;  // 32-element chunks per block
  for (std::size_t b = 0; b < blocks; ++b) {
    fwd_passes({in, work, work}, n, global, log_n - 5, b, b + 1, tb.fwd.data(), lz);
    const u64* tail_in = log_n - 5 > global ? work : in;
    if (chunks % kTailChunks == 0) {
      fwd_tail<kTailChunks, kTruncated>(tail_in, a, n, b * chunks, (b + 1) * chunks, tb, lz);
    } else {
      fwd_tail<1, kTruncated>(tail_in, a, n, b * chunks, (b + 1) * chunks, tb, lz);  // n = 32
    }
  }
}

}  // namespace
}  // namespace polyhe::cpu::avx512
