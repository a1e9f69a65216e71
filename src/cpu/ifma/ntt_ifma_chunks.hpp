// The innermost stages of the IFMA NTT kernel (ntt_ifma.cpp), in chunks of 8·VEC words: VEC = 16
// vectors (two independent 64-word blocks) for n ≥ 128, the whole transform for n ≤ 64.
// Forward: the last K stages with t ≥ 8 (broadcast twiddles, rows of whole vectors), then
// t = 4, 2, 1 inside 16-word groups (per-lane twiddles, permutes), and the output correction;
// inverse: the same in reverse. A chunk is loaded and stored once, and its independent blocks
// and groups go through each step together: one group alone is a chain of dependent permutes
// and products about 60 cycles long, and the core schedules only a few dozen vector
// instructions ahead.
#pragma once

#include <cstddef>

#include "ntt_ifma_arith.hpp"
#include "ntt_ifma_passes.hpp"

namespace polyhe::cpu::ifma {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see ntt_ifma_arith.hpp

/// The perfect shuffle of 16 words and its inverse, as permute2 indices. With the index bits of
/// a 16-word group written (b3 b2 b1 b0) and a pair of vectors (x, y) seen as "register bit" and
/// three lane bits (l2 l1 l0), the shuffle (x, y) ← ((x0 y0 x1 y1 x2 y2 x3 y3),
/// (x4 y4 x5 y5 x6 y6 x7 y7)) moves register → l0 → l1 → l2 → register. From natural order
/// (register b3, lanes b2 b1 b0) it gives register b2 (the t = 4 partner bit) with lanes
/// (b1 b0 b3), then register b1 (t = 2) with lanes (b0 b3 b2), then register b0 (t = 1) with
/// lanes (b3 b2 b1), and a fourth shuffle restores the natural order. In each state the
/// twiddle's block index sits in the low lane bits, so the twiddles load from the plain
/// bit-reversed table: two repeated four times (t = 4), four repeated twice (t = 2), eight (t = 1).
struct Shuffles {
  V lo, hi;    // the shuffle
  V ilo, ihi;  // its inverse: even words, odd words
  V lo2, hi2;  // the shuffle applied twice (= its inverse applied twice)
  Shuffles()
      : lo(_mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11)),
        hi(_mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15)),
        ilo(_mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14)),
        ihi(_mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15)),
        lo2(_mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13)),
        hi2(_mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15)) {}
};

inline void permute_pair(V& x, V& y, V lo, V hi) {
  const V x1 = permute2(x, lo, y);
  y = permute2(x, hi, y);
  x = x1;
}

/// The per-lane twiddles of group g: t = 4 (stage m = n/8), t = 2 (n/4), t = 1 (n/2).
inline Tw tw_t4(const TwTable& t, std::size_t n, std::size_t g) {
  return {splat_x2(t.w + n / 8 + 2 * g), splat_x2(t.wp + n / 8 + 2 * g)};
}
inline Tw tw_t2(const TwTable& t, std::size_t n, std::size_t g) {
  return {splat_x4(t.w + n / 4 + 4 * g), splat_x4(t.wp + n / 4 + 4 * g)};
}
inline Tw tw_t1(const TwTable& t, std::size_t n, std::size_t g) {
  return {load(t.w + n / 2 + 8 * g), load(t.wp + n / 2 + 8 * g)};
}

/// How a chunk does the stage t = 1: not at all (the truncated transforms of
/// [GPU-Polymul, Alg. 8]), with the twiddles of the table, or with factored twiddles (T1Factors).
enum class T1 { none, table, factored };

/// The t = 1 twiddles of group g, ψ^br(n/2 + 8g + l) in lane l, factored as c_g·ρ_l: with
/// L = log n, br(n/2 + 8g + l) = 1 + 2·br_(L−4)(g) + (n/8)·br_3(l), so c_g = ψ^br(n/2 + 8g)
/// and ρ_l = (ψ^(n/8))^br_3(l) (inverse: the same with ψ^−1). Once the tables outgrow L2, one
/// more Shoup product per vector costs less than streaming n/2 twiddles (8n bytes).
struct T1Factors {
  Tw rho;        // ρ_l per lane
  const u64* c;  // c_g and its companions, n/16 each
  const u64* cp;
};

/// Forward stages t = 4, 2 (and 1 unless kT1 = none) on the groups (v[2u], v[2u+1]),
/// u < VEC/2, the first being group g0 of the transform, back in natural order. Inputs and
/// outputs in [0, 4q) (kLazy: no corrections, forward_lazy_ok).
template <int VEC, T1 kT1, bool kLazy>
inline void forward_groups(V (&v)[VEC], std::size_t n, std::size_t g0, const TwTable& tw,
                           const T1Factors& f, const Mod& md, const Shuffles& sh) {
  constexpr int G = VEC / 2;
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.lo, sh.hi);  // b2: t = 4
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) ct<kLazy, kLazy>(v[2 * u], v[2 * u + 1], tw_t4(tw, n, g0 + u), md);
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.lo, sh.hi);  // b1: t = 2
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) ct<kLazy, kLazy>(v[2 * u], v[2 * u + 1], tw_t2(tw, n, g0 + u), md);
  if constexpr (kT1 != T1::none) {
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.lo, sh.hi);  // b0: t = 1
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) {
      if constexpr (kT1 == T1::table) {
        ct<kLazy, kLazy>(v[2 * u], v[2 * u + 1], tw_t1(tw, n, g0 + u), md);
      } else {
        v[2 * u + 1] = mul_shoup_lazy(v[2 * u + 1], f.rho, md);  // y·ρ_l in [0, 2q)
        ct<kLazy, kLazy>(v[2 * u], v[2 * u + 1], {splat(f.c[g0 + u]), splat(f.cp[g0 + u])}, md);
      }
    }
  }
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) {  // back to natural order
    if constexpr (kT1 != T1::none) {
      permute_pair(v[2 * u], v[2 * u + 1], sh.lo, sh.hi);
    } else {
      permute_pair(v[2 * u], v[2 * u + 1], sh.lo2, sh.hi2);
    }
  }
}

/// The epilogue of a plain transform: the correction of each output vector to [0, q), stored
/// in place (kLazy: from [0, kLazyBound·q)).
template <bool kLazy>
struct ReduceStore {
  u64* a;
  void operator()(std::size_t pos, V v, const Mod& md) const {
    store(a + pos, kLazy ? reduce_52(v, md) : reduce_4q(v, md));
  }
};

/// Forward: the stages t = 4·2^K, …, 8 and then t = 4, 2 (, 1) on the chunks [c0, c1) of
/// 8·VEC words, each output vector (in [0, 4q)) handed to epi(word position, vector) — which
/// reduces it and stores it (ReduceStore) or finishes a fused operation. Stage l has blocks of
/// 2^(K−l) vectors, those of chunk c numbered from c·VEC/2^(K−l). Inputs in [0, 4q) (kFresh:
/// in [0, 2q), the first stage; kLazy: no corrections, forward_lazy_ok).
template <int K, int VEC, bool kFresh, T1 kT1, bool kLazy, class Epi>
void forward_chunks(u64* a, std::size_t n, std::size_t c0, std::size_t c1, const TwTable& tab,
                    const T1Factors& factors, const Mod& mod, const Epi& epilogue) {
  const Mod md = mod;
  const TwTable tw = tab;
  const T1Factors f = factors;
  const Epi epi = epilogue;
  const Shuffles sh;
  for (std::size_t c = c0; c < c1; ++c) {
    const std::size_t p = 8 * VEC * c;
    V v[VEC];
#pragma GCC unroll 16
    for (int k = 0; k < VEC; ++k) v[k] = load(a + p + 8 * k);
#pragma GCC unroll 16
    for (int l = 0; l < K; ++l) {
      const int half = 1 << (K - 1 - l);  // vectors; t = 8·half
      const int blocks = VEC / (2 * half);
#pragma GCC unroll 16
      for (int b = 0; b < blocks; ++b) {
        const Tw w = tw.at(n / (16 * half) + c * blocks + b);
#pragma GCC unroll 16
        for (int k = 2 * half * b; k < 2 * half * b + half; ++k) {
          if (kFresh && l == 0) {
            ct<true, kLazy>(v[k], v[k + half], w, md);
          } else {
            ct<kLazy, kLazy>(v[k], v[k + half], w, md);
          }
        }
      }
    }
    forward_groups<VEC, kT1, kLazy>(v, n, c * VEC / 2, tw, f, md, sh);
#pragma GCC unroll 16
    for (int k = 0; k < VEC; ++k) epi(p + 8 * k, v[k], md);
  }
}

/// Inverse stages t = 1 (unless kT1 = none), 2, 4 on the groups (v[2u], v[2u+1]) from group
/// g0: inputs in [0, q), outputs in [0, 2q), the forward shuffles run backwards.
template <int VEC, T1 kT1>
inline void inverse_groups(V (&v)[VEC], std::size_t n, std::size_t g0, const TwTable& tw,
                           const T1Factors& f, const Mod& md, const Shuffles& sh) {
  constexpr int G = VEC / 2;
  if constexpr (kT1 != T1::none) {
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.ilo, sh.ihi);  // b0
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) {
      if constexpr (kT1 == T1::table) {
        gs<true>(v[2 * u], v[2 * u + 1], tw_t1(tw, n, g0 + u), md);
      } else {
        gs2<true>(v[2 * u], v[2 * u + 1], f.rho, {splat(f.c[g0 + u]), splat(f.cp[g0 + u])}, md);
      }
    }
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.ilo, sh.ihi);  // b1
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) gs<false>(v[2 * u], v[2 * u + 1], tw_t2(tw, n, g0 + u), md);
  } else {
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.lo2, sh.hi2);  // b1
#pragma GCC unroll 16
    for (int u = 0; u < G; ++u) gs<true>(v[2 * u], v[2 * u + 1], tw_t2(tw, n, g0 + u), md);
  }
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.ilo, sh.ihi);  // b2
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) gs<false>(v[2 * u], v[2 * u + 1], tw_t4(tw, n, g0 + u), md);
#pragma GCC unroll 16
  for (int u = 0; u < G; ++u) permute_pair(v[2 * u], v[2 * u + 1], sh.ilo, sh.ihi);  // natural
}

/// Inverse: t = 1 (, 2, 4) and then the stages t = 8, …, 4·2^K on the chunks [c0, c1) of
/// 8·VEC words, read from src (which may be a) and written to a. Stage l has blocks of 2^(l+1)
/// vectors. Inputs in [0, q), outputs in [0, 2q); kLast: the chunk is the whole transform, whose
/// last stage folds in the scale and reduces to [0, q).
template <int K, int VEC, T1 kT1, bool kLast>
void inverse_chunks(const u64* src, u64* a, std::size_t n, std::size_t c0, std::size_t c1,
                    const TwTable& tab, const T1Factors& factors, const LastStage& last,
                    const Mod& mod) {
  const Mod md = mod;
  const TwTable tw = tab;
  const T1Factors f = factors;
  const LastStage ls = last;
  const Shuffles sh;
  for (std::size_t c = c0; c < c1; ++c) {
    const std::size_t p = 8 * VEC * c;
    V v[VEC];
#pragma GCC unroll 16
    for (int k = 0; k < VEC; ++k) v[k] = load(src + p + 8 * k);
    inverse_groups<VEC, kT1>(v, n, c * VEC / 2, tw, f, md, sh);
#pragma GCC unroll 16
    for (int l = 0; l < K; ++l) {
      const int half = 1 << l;  // vectors; t = 8·half
      const int blocks = VEC / (2 * half);
#pragma GCC unroll 16
      for (int b = 0; b < blocks; ++b) {
        const Tw w = tw.at(n / (16 * half) + c * blocks + b);
#pragma GCC unroll 16
        for (int k = 2 * half * b; k < 2 * half * b + half; ++k) {
          if (kLast && l == K - 1) {
            gs_last(v[k], v[k + half], ls.n_inv, ls.w_n, md);
          } else {
            gs<false>(v[k], v[k + half], w, md);
          }
        }
      }
    }
#pragma GCC unroll 16
    for (int k = 0; k < VEC; ++k) store(a + p + 8 * k, v[k]);
  }
}

}  // namespace
}  // namespace polyhe::cpu::ifma
