// The memory passes of the IFMA NTT kernel (ntt_ifma.cpp) over the stages t ≥ 64: radix-2^K
// passes that run K stages of butterflies in registers with broadcast twiddles. (The stages
// t = 32 … 1 run in 128-word chunks: ntt_ifma_chunks.hpp.)
//
// Stage (m, t) has m blocks of 2t words; block i pairs a[2t·i + j] with a[2t·i + j + t] under
// the twiddle of bit-reversed index m + i (ψ^br(m+i) forward, ψ^−br(m+i) inverse), exactly as
// arith/ntt_schedule.hpp. Forward stages run t = n/2, n/4, …, 1; inverse stages t = 1, 2, …, n/2.
#pragma once

#include <cstddef>

#include "ntt_ifma_arith.hpp"

namespace polyhe::cpu::ifma {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see ntt_ifma_arith.hpp

/// A twiddle table: w[i] = ψ^(±br(i)) and its companion wp[i] = ⌊w[i]·2^52 / q⌋.
struct TwTable {
  const u64* w;
  const u64* wp;
  [[nodiscard]] Tw at(std::size_t i) const { return {splat(w[i]), splat(wp[i])}; }
};

/// The prologue of a plain transform: the first pass reads its own array unchanged. A
/// prologue gives the first stage's x operands (rows 0 … R/2 − 1 of the first pass) through
/// operator(), in [0, 2q), and its y operands through multiplicand(), which only a Shoup
/// product reads: any representative below 2^52.
struct NoPrologue {
  V operator()(V v) const { return v; }
  V multiplicand(V v) const { return v; }
};

/// Forward stages t, t/2, …, t/2^(K−1) (K ≤ 3) on the blocks [i0, i1) of stage (m, t): block i
/// is a[2t·i, 2t·(i+1)). Each block is cut into R = 2^K rows of s = 2t/R ≥ 16 words; the R row
/// vectors of two adjacent 8-word columns go through all K stages in registers (two columns:
/// the core schedules only a few dozen vector instructions ahead, and one column's stages are
/// a dependent chain). Stage l pairs rows k and k + R/2^(l+1) of sub-block g = k / (R/2^l),
/// whose twiddle index is (m + i)·2^l + g. Values in [0, 4q) (kFresh: inputs in [0, 2q), the
/// transform's first stage; kLazy: no corrections, forward_lazy_ok). The pass reads
/// pro(src[j]) (rows k ≥ R/2: pro.multiplicand(src[j])) where it would read a[j] (src may be
/// a; a fused transform's first pass reads its input through the prologue).
template <int K, bool kFresh, bool kLazy, class Pro = NoPrologue>
void forward_pass(const u64* src, u64* a, std::size_t m, std::size_t t, std::size_t i0,
                  std::size_t i1, const TwTable& tab, const Mod& mod, const Pro& prologue = {}) {
  constexpr int R = 1 << K;
  constexpr int C = 2;  // columns
  const Mod md = mod;
  const TwTable tw = tab;
  const Pro pro = prologue;
  const std::size_t s = 2 * t / R;
  for (std::size_t i = i0; i < i1; ++i) {
    Tw w[R - 1];  // stage l, sub-block g at w[2^l − 1 + g]
    for (int l = 0; l < K; ++l) {
      for (int g = 0; g < (1 << l); ++g) w[(1 << l) - 1 + g] = tw.at(((m + i) << l) + g);
    }
    const std::size_t blk = 2 * t * i;
    for (std::size_t j = 0; j < s; j += 8 * C) {
      V v[C][R];
#pragma GCC unroll 16
      for (int k = 0; k < R; ++k) {
#pragma GCC unroll 16
        for (int u = 0; u < C; ++u) {
          const V in = load(src + blk + j + 8 * u + k * s);
          v[u][k] = k < R / 2 ? pro(in) : pro.multiplicand(in);
        }
      }
#pragma GCC unroll 16
      for (int l = 0; l < K; ++l) {
        const int half = R >> (l + 1);
#pragma GCC unroll 16
        for (int k = 0; k < R; ++k) {
          if ((k & half) != 0) continue;
          const Tw wl = w[(1 << l) - 1 + k / (2 * half)];
#pragma GCC unroll 16
          for (int u = 0; u < C; ++u) {
            if (kFresh && l == 0) {
              ct<true, kLazy>(v[u][k], v[u][k + half], wl, md);
            } else {
              ct<kLazy, kLazy>(v[u][k], v[u][k + half], wl, md);
            }
          }
        }
      }
#pragma GCC unroll 16
      for (int k = 0; k < R; ++k) {
#pragma GCC unroll 16
        for (int u = 0; u < C; ++u) store(a + blk + j + 8 * u + k * s, v[u][k]);
      }
    }
  }
}

/// The twiddles of the inverse transform's last stage with 1/n folded in.
struct LastStage {
  Tw n_inv;  // 1/n
  Tw w_n;    // ψ^−br(1) / n
};

/// Inverse stages t, 2t, …, 2^(K−1)·t on the super-blocks [i0, i1) of R·t words (R = 2^K,
/// t ≥ 16), super-block i holding rows a[R·t·i + k·t, …) for k < R; two adjacent 8-word
/// columns at a time, as in forward_pass. Stage l pairs rows k and k + 2^l in sub-block
/// g = k / 2^(l+1), twiddle index (M + i)·2^(K−1−l) + g with M = n/(R·t) super-blocks. kLast:
/// the pass ends with the transform's last stage (2^(K−1)·t = n/2), which folds in the scale
/// and reduces to [0, q). Values in [0, 2q).
template <int K, bool kLast>
void inverse_pass(u64* a, std::size_t n, std::size_t t, std::size_t i0, std::size_t i1,
                  const TwTable& tab, const LastStage& last, const Mod& mod) {
  constexpr int R = 1 << K;
  constexpr int C = 2;  // columns
  const Mod md = mod;
  const TwTable tw = tab;
  const LastStage ls = last;
  const std::size_t M = n / (R * t);
  for (std::size_t i = i0; i < i1; ++i) {
    Tw w[R - 1];  // stage l, sub-block g at w[R − 2^(K−l) + g]
    for (int l = 0; l < K; ++l) {
      for (int g = 0; g < (R >> (l + 1)); ++g) {
        w[R - (R >> l) + g] = tw.at(((M + i) << (K - 1 - l)) + g);
      }
    }
    const std::size_t blk = R * t * i;
    for (std::size_t j = 0; j < t; j += 8 * C) {
      V v[C][R];
#pragma GCC unroll 16
      for (int k = 0; k < R; ++k) {
#pragma GCC unroll 16
        for (int u = 0; u < C; ++u) v[u][k] = load(a + blk + j + 8 * u + k * t);
      }
#pragma GCC unroll 16
      for (int l = 0; l < K; ++l) {
        const int half = 1 << l;
#pragma GCC unroll 16
        for (int k = 0; k < R; ++k) {
          if ((k & half) != 0) continue;
          const Tw wl = w[R - (R >> l) + k / (2 * half)];
#pragma GCC unroll 16
          for (int u = 0; u < C; ++u) {
            if (kLast && l == K - 1) {
              gs_last(v[u][k], v[u][k + half], ls.n_inv, ls.w_n, md);
            } else {
              gs<false>(v[u][k], v[u][k + half], wl, md);
            }
          }
        }
      }
#pragma GCC unroll 16
      for (int k = 0; k < R; ++k) {
#pragma GCC unroll 16
        for (int u = 0; u < C; ++u) store(a + blk + j + 8 * u + k * t, v[u][k]);
      }
    }
  }
}

}  // namespace
}  // namespace polyhe::cpu::ifma
