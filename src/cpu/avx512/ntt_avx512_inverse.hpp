// The inverse transform ([GPU-Polymul, Alg. 6], merged Gentleman–Sande, bit-reversed → natural) on
// 8 × u64 lanes, the mirror of ntt_avx512_forward.hpp: the first five stages (t = 1 … 16) in
// registers on 32 elements at a time, then radix-2/4/8 passes of vertical butterflies. The GS
// butterflies are unhalved; the factor 1/N (2/N after the fused product, which already did one
// halving stage) is one multiplication folded into the last stage: (x, y) ← ((x + y)·s, (x −
// y)·ψ^−br(1)·s). Cache blocking and routes as in the forward transform, in the opposite order:
// each block goes through its first stages, then passes over the whole array finish the transform.
#pragma once

#include <cstddef>

#include "ntt_avx512_forward.hpp"
#include "ntt_avx512_simd.hpp"
#include "ntt_avx512_tables.hpp"

namespace polyhe::cpu::avx512 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see ntt_avx512_simd.hpp

/// The scale of the last stage, broadcast.
struct VFinal {
  VTw scale, w_scaled;
};

/// Radix-2^K GS pass over stages s+K−1 … s (descending), for the stage-s blocks [i0, i1), from
/// src to dst, J columns of 8 lanes at a time (as fwd_pass). When kFinal, stage s is stage 0 and
/// applies the scale, with outputs in [0, q); otherwise values stay in [0, c).
template <int K, int J, bool kFinal, class Lz>
void inv_pass(const u64* src, u64* dst, std::size_t n, int s, std::size_t i0, std::size_t i1,
              const Tw3* tw, const VFinal& fin, const Lz& lz) {
  constexpr int R = 1 << K;
  const std::size_t m = std::size_t{1} << s;
  const std::size_t stride = (n >> s) / R;
  for (std::size_t i = i0; i < i1; ++i) {
    const std::size_t base = i * (n >> s);
    for (std::size_t j = base; j < base + stride; j += 8 * J) {
      V x[J][R];
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
        for (int c = 0; c < J; ++c) x[c][r] = load(src + j + r * stride + 8 * c);
      }
      unrolled<K>([&](auto kc) {  // stage s+k, k = K−1 … 0: 2^k sub-blocks of R/2^k rows
        constexpr int k = K - 1 - kc;
        constexpr int half = R >> (k + 1);
#pragma GCC unroll 8
        for (int b = 0; b < (1 << k); ++b) {
          const VTw w = broadcast(tw[((m + i) << k) + b]);  // ψ^−br of sub-block b
#pragma GCC unroll 8
          for (int r = 0; r < half; ++r) {
#pragma GCC unroll 4
            for (int c = 0; c < J; ++c) {
              V& u = x[c][2 * half * b + r];
              V& v = x[c][2 * half * b + r + half];
              if constexpr (kFinal && k == 0) {
                lz.gs_scaled(u, v, fin.scale, fin.w_scaled);
              } else {
                lz.gs(u, v, w);
              }
            }
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

/// One inv_pass with the widest J the stride allows (the same choice as fwd_pass_any_j).
template <int K, bool kFinal, class Lz>
void inv_pass_any_j(const u64* src, u64* dst, std::size_t n, int s, std::size_t i0, std::size_t i1,
                    const Tw3* tw, const VFinal& fin, const Lz& lz) {
  const std::size_t stride = (n >> s) >> K;
  if (K == 3) {
    stride >= 16 ? inv_pass<K, 2, kFinal>(src, dst, n, s, i0, i1, tw, fin, lz)
                 : inv_pass<K, 1, kFinal>(src, dst, n, s, i0, i1, tw, fin, lz);
  } else {
    stride >= 32 ? inv_pass<K, 4, kFinal>(src, dst, n, s, i0, i1, tw, fin, lz)
                 : inv_pass<K, 2, kFinal>(src, dst, n, s, i0, i1, tw, fin, lz);
  }
}

/// inv_pass_any_j with the scaled last stage when the pass reaches stage 0.
template <int K, class Lz>
void inv_pass_maybe_final(bool final_stage, const u64* src, u64* dst, std::size_t n, int s,
                          std::size_t i0, std::size_t i1, const Tw3* tw, const VFinal& fin,
                          const Lz& lz) {
  if (final_stage) {
    inv_pass_any_j<K, true>(src, dst, n, s, i0, i1, tw, fin, lz);
  } else {
    inv_pass_any_j<K, false>(src, dst, n, s, i0, i1, tw, fin, lz);
  }
}

/// Stages s_end−1 … s (descending) for the stage-s blocks [i0, i1), along the route, radix-8
/// where possible. The pass that reaches stage 0 applies the scale.
template <class Lz>
void inv_passes(const Route& route, std::size_t n, int s, int s_end, std::size_t i0, std::size_t i1,
                const Tw3* tw, const VFinal& fin, const Lz& lz) {
  const u64* src = route.in;
  while (s_end > s) {
    const int k = pass_stages(s_end - s);
    const int lo = s_end - k;  // this pass: stages s_end−1 … lo
    const std::size_t j0 = i0 << (lo - s), j1 = i1 << (lo - s);
    u64* dst = lo == s ? route.out : route.work;
    if (k == 3) inv_pass_maybe_final<3>(lo == 0, src, dst, n, lo, j0, j1, tw, fin, lz);
    if (k == 2) inv_pass_maybe_final<2>(lo == 0, src, dst, n, lo, j0, j1, tw, fin, lz);
    if (k == 1) inv_pass_maybe_final<1>(lo == 0, src, dst, n, lo, j0, j1, tw, fin, lz);
    src = dst;
    s_end = lo;
  }
}

/// The stages t = 1, 2, 4 (t = 2, 4 when kTruncated) on G groups of 16 elements starting at group
/// g0, group g being v[2g], v[2g+1]: the layouts of fwd_last3 traversed backwards, each change
/// being the inverse perfect shuffle (evens/odds). In [0, c), out [0, c), in place, stage by
/// stage across the groups.
template <int G, bool kTruncated, class Lz>
[[gnu::always_inline]] inline void inv_first3(V* v, std::size_t n, std::size_t g0,
                                              const SplitTable& tw, const Lz& lz) {
  V x[G], y[G];
  if constexpr (kTruncated) {  // [a0..a7], [b0..b7] → the t = 2 layout
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {
      x[g] = _mm512_permutex2var_epi64(v[2 * g], _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13),
                                       v[2 * g + 1]);
      y[g] = _mm512_permutex2var_epi64(v[2 * g], _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15),
                                       v[2 * g + 1]);
    }
  } else {
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {  // [a0 a2 a4 a6 b0 b2 b4 b6], [a1 a3 a5 a7 b1 b3 b5 b7]
      x[g] = evens(v[2 * g], v[2 * g + 1]);
      y[g] = odds(v[2 * g], v[2 * g + 1]);
    }
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) lz.gs(x[g], y[g], lane_twiddles<8>(tw, n / 2 + 8 * (g0 + g)));
#pragma GCC unroll 8
    for (int g = 0; g < G; ++g) {  // [a0 a4 b0 b4 a1 a5 b1 b5], [a2 a6 b2 b6 a3 a7 b3 b7]
      const V x2 = evens(x[g], y[g]);
      y[g] = odds(x[g], y[g]);
      x[g] = x2;
    }
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) lz.gs(x[g], y[g], lane_twiddles<4>(tw, n / 4 + 4 * (g0 + g)));
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {  // [a0 b0 a1 b1 a2 b2 a3 b3], [a4 b4 … a7 b7]
    const V x4 = evens(x[g], y[g]);
    y[g] = odds(x[g], y[g]);
    x[g] = x4;
  }
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) lz.gs(x[g], y[g], lane_twiddles<2>(tw, n / 8 + 2 * (g0 + g)));
#pragma GCC unroll 8
  for (int g = 0; g < G; ++g) {
    v[2 * g] = evens(x[g], y[g]);
    v[2 * g + 1] = odds(x[g], y[g]);
  }
}

/// The first five stages (t = 1 … 16; without t = 1 when kTruncated) on the 32-element chunks
/// [c0, c1), C at a time, from src to dst. kFinal: n = 32, the t = 16 stage is stage 0 and
/// applies the scale.
template <int C, bool kTruncated, bool kFinal, class Lz>
void inv_head(const u64* src, u64* dst, std::size_t n, std::size_t c0, std::size_t c1,
              const KernelTables& tb, const VFinal& fin, const Lz& lz) {
  for (std::size_t c = c0; c < c1; c += C) {
    V v[4 * C];
#pragma GCC unroll 16
    for (int r = 0; r < 4 * C; ++r) v[r] = load(src + 32 * c + 8 * r);
    inv_first3<2 * C, kTruncated>(v, n, 2 * c, tb.inv_split, lz);
#pragma GCC unroll 16
    for (int h = 0; h < 2 * C; ++h) {  // t = 8
      lz.gs(v[2 * h], v[2 * h + 1], broadcast(tb.inv[n / 16 + 2 * c + h]));
    }
#pragma GCC unroll 8
    for (int k = 0; k < C; ++k) {  // t = 16
      if constexpr (kFinal) {
        lz.gs_scaled(v[4 * k], v[4 * k + 2], fin.scale, fin.w_scaled);
        lz.gs_scaled(v[4 * k + 1], v[4 * k + 3], fin.scale, fin.w_scaled);
      } else {
        const VTw w16 = broadcast(tb.inv[n / 32 + c + k]);
        lz.gs(v[4 * k], v[4 * k + 2], w16);
        lz.gs(v[4 * k + 1], v[4 * k + 3], w16);
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < 4 * C; ++r) store(dst + 32 * c + 8 * r, v[r]);
  }
}

/// The whole inverse transform with 1/N (kTruncated: without its first stage, with 2/N) of a,
/// through `work` (= a when a is 64-byte aligned, else an aligned buffer of n words).
/// In [0, q), out [0, q).
template <bool kTruncated, class Lz>
void inverse_ntt(u64* a, u64* work, const KernelTables& tb, const Lz& lz) {
  const std::size_t n = tb.n;
  const int log_n = tb.log_n;
  const FinalStage& f = kTruncated ? tb.truncated_final : tb.inverse_final;
  const VFinal fin{broadcast(f.scale), broadcast(f.w_scaled)};
  if (log_n == 5) {
    inv_head<1, kTruncated, true>(a, a, n, 0, 1, tb, fin, lz);
    return;
  }
  const int global = log_n > kBlockLog ? log_n - kBlockLog : 0;
  const std::size_t blocks = std::size_t{1} << global;
  const std::size_t chunks = n / 32 / blocks;
  u64* block_out = global > 0 ? work : a;  // where the block passes leave the data
  for (std::size_t b = 0; b < blocks; ++b) {
    if (chunks % kTailChunks == 0) {
      inv_head<kTailChunks, kTruncated, false>(a, work, n, b * chunks, (b + 1) * chunks, tb, fin,
                                               lz);
    } else {
      inv_head<1, kTruncated, false>(a, work, n, b * chunks, (b + 1) * chunks, tb, fin, lz);
    }
    inv_passes({work, work, block_out}, n, global, log_n - 5, b, b + 1, tb.inv.data(), fin, lz);
  }
  inv_passes({work, work, a}, n, 0, global, 0, 1, tb.inv.data(), fin, lz);
}

}  // namespace
}  // namespace polyhe::cpu::avx512
