// The flattened PFA transform (fused.hpp) as one schedule over an arithmetic policy `Ops` on
// eight-lane vectors of words (the scalar policy loops over the lanes, the AVX-512 one is one
// register). Include only from the translation units that instantiate it (fused_scalar.cpp,
// fused_avx512.cpp): everything here has internal linkage so that no copy compiled with one
// instruction set is merged into another.
//
// The policy provides, with c its lazy bound (2q, or 4q when q < 2^61 on AVX-512):
//   V load(const u64*), store(u64*, V)            eight consecutive words
//   transpose8(const u64* in, pitch, u64* out)    out[i·8 + l] = in[l·pitch + i], i, l < 8
//   permute_in, permute_out                        the two maps (permute_*_plain below)
//   V sub(V, V), V modulus(), V bound()            plain difference; q and c in every lane
//   V mul(V a, const FusedTwiddle&)               a·ω mod q in [0, c), any a < 2^64
//   ct(x, y, w), ct1(x, y)                         (x, y) ← (x + ω·y, x − ω·y): [0, 2c) → [0, 2c)
//   gs(x, y, w), gs1(x, y)                         (x, y) ← (x + y, (x − y)·ω):  [0, c) → [0, c)
//   V add(V, V), V reduce_c(V)                     plain sum; [0, 2c) → [0, c)
//   V out_2c(V), V out_c(V)                        [0, 2c) → [0, q), [0, c) → [0, q)
// (ct1 and gs1 are the butterflies with ω = 1), kBlocked: whether the radix-2 transforms run
// as register-blocked passes (vector registers) or as plain stage loops (the scalar policy, whose
// eight-word "vectors" live in memory anyway), and kStages (1–4): the stages per blocked pass,
// 2^kStages vectors in registers at once (4 with AVX-512's 32 registers; fewer where a vector is
// two of AVX2's 16).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "fused.hpp"

namespace polyhe::cyclic {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

using u64 = std::uint64_t;
inline constexpr std::size_t kW = FusedTables::kLanes;

/// f(integral_constant<0>) … f(integral_constant<N − 1>): a loop unrolled in every build type.
template <std::size_t N, class F>
[[gnu::always_inline]] inline void static_for(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }
  (std::make_index_sequence<N>{});
}

constexpr std::size_t log2_exact(std::size_t n) {
  std::size_t k = 0;
  while ((std::size_t{1} << k) < n) ++k;
  return k;
}

/// S consecutive Gentleman–Sande stages h = H, H/2, …, H/2^(S−1) in registers: for each group
/// of G = 2^S elements x = s + o + m·(H/2^(S−1)) (s a multiple of 2H, o < H/2^(S−1), m < G),
/// which those stages connect only among themselves. The upper element of a pair at x takes
/// ω_(2h)^(x mod 2h) = tw[h − 1 + o + (m·stride mod 2h)]; x mod 2h = 0 is ω = 1 (no product).
template <std::size_t S, class Ops, class V>
inline void dif_pass(const Ops& ops_in, V* w, std::size_t len, std::size_t top,
                     const FusedTwiddle* tw) {
  const Ops ops = ops_in;  // a local copy: stores through w cannot alias its constants
  constexpr std::size_t G = std::size_t{1} << S;
  const std::size_t stride = top >> (S - 1);
  for (std::size_t s = 0; s < len; s += 2 * top) {
    for (std::size_t o = 0; o < stride; ++o) {
      V r[G];
      V* base = w + s + o;
      static_for<G>([&](auto m) __attribute__((always_inline)) { r[m] = base[m * stride]; });
      static_for<S>([&](auto t) __attribute__((always_inline)) {
        constexpr std::size_t half = G >> (t + 1);  // pair distance in the group
        const std::size_t h = top >> t;
        static_for<G / (2 * half)>([&](auto blk) __attribute__((always_inline)) {
          static_for<half>([&](auto i) __attribute__((always_inline)) {
            constexpr std::size_t m = blk * 2 * half + i;
            const std::size_t e = o + ((m * stride) & (2 * h - 1));  // 2h: a power of two
            if (e == 0) {
              ops.gs1(r[m], r[m + half]);
            } else {
              ops.gs(r[m], r[m + half], tw[h - 1 + e]);
            }
          });
        });
      });
      static_for<G>([&](auto m) __attribute__((always_inline)) { base[m * stride] = r[m]; });
    }
  }
}

/// S consecutive Cooley–Tukey stages h = B, 2B, …, 2^(S−1)·B in registers, groups
/// x = s + o + m·B (s a multiple of 2^S·B, o < B, m < 2^S); twiddles as dif_pass.
template <std::size_t S, class Ops, class V>
inline void dit_pass(const Ops& ops_in, V* w, std::size_t len, std::size_t bottom,
                     const FusedTwiddle* tw) {
  const Ops ops = ops_in;
  constexpr std::size_t G = std::size_t{1} << S;
  for (std::size_t s = 0; s < len; s += G * bottom) {
    for (std::size_t o = 0; o < bottom; ++o) {
      V r[G];
      V* base = w + s + o;
      static_for<G>([&](auto m) __attribute__((always_inline)) { r[m] = base[m * bottom]; });
      static_for<S>([&](auto t) __attribute__((always_inline)) {
        constexpr std::size_t half = std::size_t{1} << t;
        const std::size_t h = bottom << t;
        static_for<G / (2 * half)>([&](auto blk) __attribute__((always_inline)) {
          static_for<half>([&](auto i) __attribute__((always_inline)) {
            constexpr std::size_t m = blk * 2 * half + i;
            const std::size_t e = o + ((m * bottom) & (2 * h - 1));
            if (e == 0) {
              ops.ct1(r[m], r[m + half]);
            } else {
              ops.ct(r[m], r[m + half], tw[h - 1 + e]);
            }
          });
        });
      });
      static_for<G>([&](auto m) __attribute__((always_inline)) { base[m * bottom] = r[m]; });
    }
  }
}

/// Radix-2 forward transform of w[0, len) by Gentleman–Sande: natural order in, bit-reversed
/// out; [0, c) → [0, c). Twiddles tw[h − 1 + i] = ω_(2h)^i. Ops::kStages stages per pass over
/// memory.
template <class Ops, class V>
inline void dif(const Ops& ops, V* w, std::size_t len, const FusedTwiddle* tw) {
  if constexpr (!Ops::kBlocked) {
    for (std::size_t h = len / 2; h >= 1; h /= 2) {
      for (std::size_t s = 0; s < len; s += 2 * h) {
        ops.gs1(w[s], w[s + h]);
        for (std::size_t i = 1; i < h; ++i) ops.gs(w[s + i], w[s + i + h], tw[h - 1 + i]);
      }
    }
    return;
  }
  constexpr std::size_t kS = Ops::kStages;
  std::size_t top = len / 2;
  for (; top >= (std::size_t{1} << (kS - 1)); top >>= kS) dif_pass<kS>(ops, w, len, top, tw);
  if (top == 4) dif_pass<3>(ops, w, len, top, tw);
  if (top == 2) dif_pass<2>(ops, w, len, top, tw);
  if (top == 1) dif_pass<1>(ops, w, len, top, tw);
}

/// Radix-2 forward transform by Cooley–Tukey: bit-reversed order in, natural out;
/// [0, 2c) → [0, 2c).
template <class Ops, class V>
inline void dit(const Ops& ops, V* w, std::size_t len, const FusedTwiddle* tw) {
  if constexpr (!Ops::kBlocked) {
    for (std::size_t h = 1; h < len; h *= 2) {
      for (std::size_t s = 0; s < len; s += 2 * h) {
        ops.ct1(w[s], w[s + h]);
        for (std::size_t i = 1; i < h; ++i) ops.ct(w[s + i], w[s + i + h], tw[h - 1 + i]);
      }
    }
    return;
  }
  constexpr std::size_t kS = Ops::kStages;
  std::size_t bottom = 1;
  for (; (bottom << kS) <= len; bottom <<= kS) dit_pass<kS>(ops, w, len, bottom, tw);
  if (bottom * 8 == len) dit_pass<3>(ops, w, len, bottom, tw);
  if (bottom * 4 == len) dit_pass<2>(ops, w, len, bottom, tw);
  if (bottom * 2 == len) dit_pass<1>(ops, w, len, bottom, tw);
}

/// One group of dif_pass with the pass's shape known at compile time: every twiddle index
/// o + (m·stride mod 2h) is o plus a constant, and with kFirst (o = 0) the trivial ones are known.
template <std::size_t Top, std::size_t S, bool kFirst, class Ops, class V>
[[gnu::always_inline]] inline void dif_group(const Ops& ops, V* base, std::size_t o,
                                             const FusedTwiddle* tw) {
  constexpr std::size_t G = std::size_t{1} << S;
  constexpr std::size_t stride = Top >> (S - 1);
  V r[G];
  static_for<G>([&](auto m) __attribute__((always_inline)) { r[m] = base[m * stride]; });
  static_for<S>([&](auto t) __attribute__((always_inline)) {
    constexpr std::size_t half = G >> (t + 1);
    constexpr std::size_t h = Top >> t;
    static_for<G / (2 * half)>([&](auto blk) __attribute__((always_inline)) {
      static_for<half>([&](auto i) __attribute__((always_inline)) {
        constexpr std::size_t m = blk * 2 * half + i;
        constexpr std::size_t em = (m * stride) & (2 * h - 1);
        if constexpr (kFirst && em == 0) {
          ops.gs1(r[m], r[m + half]);
        } else {
          ops.gs(r[m], r[m + half], tw[h - 1 + o + em]);
        }
      });
    });
  });
  static_for<G>([&](auto m) __attribute__((always_inline)) { base[m * stride] = r[m]; });
}

/// dif for a length known at compile time: the passes of dif, each group's shape a constant.
template <std::size_t Len, std::size_t Top = Len / 2, class Ops, class V>
inline void dif_const(const Ops& ops, V* w, const FusedTwiddle* tw) {
  constexpr std::size_t S =
      Top >= (std::size_t{1} << (Ops::kStages - 1)) ? Ops::kStages : log2_exact(Top) + 1;
  constexpr std::size_t stride = Top >> (S - 1);
  for (std::size_t s = 0; s < Len; s += 2 * Top) {
    dif_group<Top, S, true>(ops, w + s, 0, tw);
    for (std::size_t o = 1; o < stride; ++o) dif_group<Top, S, false>(ops, w + s + o, o, tw);
  }
  if constexpr (stride > 1) dif_const<Len, stride / 2>(ops, w, tw);
}

/// One group of dit_pass, shape known (as dif_group).
template <std::size_t Bottom, std::size_t S, bool kFirst, class Ops, class V>
[[gnu::always_inline]] inline void dit_group(const Ops& ops, V* base, std::size_t o,
                                             const FusedTwiddle* tw) {
  constexpr std::size_t G = std::size_t{1} << S;
  V r[G];
  static_for<G>([&](auto m) __attribute__((always_inline)) { r[m] = base[m * Bottom]; });
  static_for<S>([&](auto t) __attribute__((always_inline)) {
    constexpr std::size_t half = std::size_t{1} << t;
    constexpr std::size_t h = Bottom << t;
    static_for<G / (2 * half)>([&](auto blk) __attribute__((always_inline)) {
      static_for<half>([&](auto i) __attribute__((always_inline)) {
        constexpr std::size_t m = blk * 2 * half + i;
        constexpr std::size_t em = (m * Bottom) & (2 * h - 1);
        if constexpr (kFirst && em == 0) {
          ops.ct1(r[m], r[m + half]);
        } else {
          ops.ct(r[m], r[m + half], tw[h - 1 + o + em]);
        }
      });
    });
  });
  static_for<G>([&](auto m) __attribute__((always_inline)) { base[m * Bottom] = r[m]; });
}

template <std::size_t Len, std::size_t Bottom = 1, class Ops, class V>
inline void dit_const(const Ops& ops, V* w, const FusedTwiddle* tw) {
  constexpr std::size_t S = std::min<std::size_t>(Ops::kStages, log2_exact(Len / Bottom));
  constexpr std::size_t G = std::size_t{1} << S;
  for (std::size_t s = 0; s < Len; s += G * Bottom) {
    dit_group<Bottom, S, true>(ops, w + s, 0, tw);
    for (std::size_t o = 1; o < Bottom; ++o) dit_group<Bottom, S, false>(ops, w + s + o, o, tw);
  }
  if constexpr (G * Bottom < Len) dit_const<Len, G * Bottom>(ops, w, tw);
}

/// The DFT of odd length P with its symmetry: with s_j = x_j + x_(P−j), d_j = x_j − x_(P−j),
/// c_jk = (ω^(jk) + ω^(−jk))/2 and t_jk = (ω^(jk) − ω^(−jk))/2 (j, k ≤ H = (P − 1)/2; tables
/// powers[0, H²) and [H², 2H²)),
///   X_k = x_0 + A_k + B_k,  X_(P−k) = x_0 + A_k − B_k,  A_k = Σ_j s_j·c_jk,  B_k = Σ_j d_j·t_jk:
/// 2H² products (8 for P = 5) instead of (P − 1)². With scale (the inverse's 1/n on the last
/// axis) every output is multiplied by it. kP > 0: P known at compile time, all unrolled; kP = 0:
/// P = ax.n ≤ kMaxDirect, loops.
inline constexpr std::size_t kMaxDirect = 31;

template <std::size_t kP, class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void direct_odd(const Ops& ops_in, const FusedAxis& ax, Load load,
                                              Store store, const FusedTwiddle* scale) {
  const Ops ops = ops_in;
  const std::size_t p = kP > 0 ? kP : ax.n;
  const std::size_t h = (p - 1) / 2;
  constexpr std::size_t kCap = kP > 0 ? kP : kMaxDirect;
  V x[kCap];
  V sum[kCap / 2];
  V diff[kCap / 2];
  for (std::size_t j = 0; j < p; ++j) x[j] = load(j);
  const V x0 = x[0];
  V total = x0;
  const V q = ops.modulus();
  for (std::size_t j = 0; j < h; ++j) {
    sum[j] = ops.add(x[j + 1], x[p - 1 - j]);               // [0, 2q)
    diff[j] = ops.sub(ops.add(x[j + 1], q), x[p - 1 - j]);  // (0, 2q)
    total = ops.reduce_c(ops.add(total, sum[j]));           // [0, c)
  }
  const auto out = [&](std::size_t k, V v) __attribute__((always_inline)) {  // v in [0, 2c)
    store(k, scale != nullptr ? ops.out_c(ops.mul(v, *scale)) : ops.out_2c(v));
  };
  const FusedTwiddle* c = ax.powers.data();
  const FusedTwiddle* t = c + h * h;
  for (std::size_t k = 0; k < h; ++k) {
    V a = ops.mul(sum[0], c[k]);
    V b = ops.mul(diff[0], t[k]);
    for (std::size_t j = 1; j < h; ++j) {
      a = ops.reduce_c(ops.add(a, ops.mul(sum[j], c[j * h + k])));
      b = ops.reduce_c(ops.add(b, ops.mul(diff[j], t[j * h + k])));
    }
    const V plus = ops.reduce_c(ops.add(a, b));                         // [0, c)
    const V minus = ops.reduce_c(ops.sub(ops.add(a, ops.bound()), b));  // [0, c)
    out(k + 1, ops.add(plus, x0));
    out(p - 1 - k, ops.add(minus, x0));
  }
  out(0, total);
}

template <class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void direct_column(const Ops& ops, const FusedAxis& ax, Load load,
                                                 Store store, const FusedTwiddle* scale) {
  switch (ax.n) {
    case 3: direct_odd<3, Ops, V>(ops, ax, load, store, scale); break;
    case 5: direct_odd<5, Ops, V>(ops, ax, load, store, scale); break;
    default: direct_odd<0, Ops, V>(ops, ax, load, store, scale); break;
  }
}

/// Radix-2 axis: bit-reversed load, Cooley–Tukey, natural store; optionally times 1/n.
template <class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void radix2_column(const Ops& ops, const FusedAxis& ax, V* w,
                                                 Load load, Store store,
                                                 const FusedTwiddle* scale) {
  for (std::size_t i = 0; i < ax.len; ++i) w[i] = load(ax.order[i]);
  dit(ops, w, ax.len, ax.twiddles.data());
  for (std::size_t k = 0; k < ax.len; ++k) {
    store(k, scale != nullptr ? ops.out_c(ops.mul(w[k], *scale)) : ops.out_2c(w[k]));
  }
}

/// Rader's transform of prime length p = len + 1 (rader.cpp): with a[i] = x[g^i],
///   A = F(a) (Gentleman–Sande, bit-reversed), X[0] = x0 + A[0],
///   C = F(A ⊙ K + x0·δ) (Cooley–Tukey, natural), X[g^r] = C[r],
/// because C[r] = x0 + (a ⊛ b)[(L − r) mod L] and g^(−(L−r)) = g^r. The inverse's 1/n is folded
/// into K (kernel_scaled), x0 and X[0]: two products more per column. Len > 0: the length known
/// at compile time and w a local array (registers).
template <std::size_t Len, class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void rader_body(const Ops& ops_in, const FusedAxis& ax, V* w,
                                              Load load, Store store, const FusedTwiddle* scale) {
  const Ops ops = ops_in;
  const std::size_t len = Len > 0 ? Len : ax.len;
  const V x0 = load(0);
  for (std::size_t i = 0; i < len; ++i) w[i] = load(ax.order[i]);
  if constexpr (Len > 0) {
    dif_const<Len>(ops, w, ax.twiddles.data());
  } else {
    dif(ops, w, len, ax.twiddles.data());
  }
  const V first = ops.add(w[0], x0);  // [0, c + q)
  const FusedTwiddle* kernel = scale != nullptr ? ax.kernel_scaled.data() : ax.kernel.data();
  for (std::size_t i = 0; i < len; ++i) w[i] = ops.mul(w[i], kernel[i]);
  w[0] = ops.add(w[0], scale != nullptr ? ops.mul(x0, *scale) : x0);  // [0, 2c)
  if constexpr (Len > 0) {
    dit_const<Len>(ops, w, ax.twiddles.data());
  } else {
    dit(ops, w, len, ax.twiddles.data());
  }
  store(0, scale != nullptr ? ops.out_c(ops.mul(first, *scale)) : ops.out_2c(first));
  for (std::size_t r = 0; r < len; ++r) store(ax.order[r], ops.out_2c(w[r]));
}

template <class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void rader_column(const Ops& ops, const FusedAxis& ax, V* w,
                                                Load load, Store store, const FusedTwiddle* scale) {
  if (Ops::kBlocked && ax.len == 16) {
    V r[16];
    rader_body<16, Ops, V>(ops, ax, r, load, store, scale);
  } else if (Ops::kBlocked && ax.len == 256) {
    rader_body<256, Ops, V>(ops, ax, w, load, store, scale);
  } else {
    rader_body<0, Ops, V>(ops, ax, w, load, store, scale);
  }
}

template <class Ops, class V, class Load, class Store>
[[gnu::always_inline]] inline void axis_column(const Ops& ops, const FusedAxis& ax, V* w, Load load,
                                               Store store, const FusedTwiddle* scale) {
  switch (ax.kind) {
    case FusedAxis::Kind::direct: direct_column<Ops, V>(ops, ax, load, store, scale); break;
    case FusedAxis::Kind::radix2: radix2_column(ops, ax, w, load, store, scale); break;
    case FusedAxis::Kind::rader: rader_column(ops, ax, w, load, store, scale); break;
  }
}

/// The whole transform; buf holds tables.scratch_words() words.
template <class Ops>
void run_fused_with(const Ops& ops, const FusedTables& tb, u64* a, u64* buf, bool inverse) {
  using V = typename Ops::V;
  // 64-byte alignment for the rows and the work space.
  const auto misalign = reinterpret_cast<std::uintptr_t>(buf) % (kW * sizeof(u64));
  u64* rows = buf + (misalign == 0 ? 0 : (kW * sizeof(u64) - misalign) / sizeof(u64));
  const std::size_t pitch = tb.pitch;
  const std::size_t nr = tb.last.n;
  V* w = reinterpret_cast<V*>(rows + tb.padded_rows * pitch);

  Ops::permute_in(tb, a, rows);

  for (const FusedAxis& ax : tb.others) {
    for (std::size_t set = 0; set < tb.rows; set += ax.n) {
      const std::uint32_t* idx = ax.rows.data() + set;
      for (std::size_t v = 0; v < pitch; v += kW) {
        u64* col = rows + v;
        axis_column(
            ops, ax, w,
            [&](std::size_t j)
                __attribute__((always_inline)) { return Ops::load(col + idx[j] * pitch); },
            [&](std::size_t k, V x)
                __attribute__((always_inline)) { Ops::store(col + idx[k] * pitch, x); },
            nullptr);
      }
    }
  }

  // Eight rows transposed into t (8×8 blocks), then transformed from there.
  const FusedTwiddle* scale = inverse ? &tb.n_inv : nullptr;
  u64* t = rows + tb.padded_rows * pitch;
  V* w_last = reinterpret_cast<V*>(t + pitch * kW);
  for (std::size_t b = 0; b < tb.padded_rows; b += kW) {
    const u64* in = rows + b * pitch;
    for (std::size_t j = 0; j < pitch; j += kW) Ops::transpose8(in + j, pitch, t + j * kW);
    u64* out = rows + b * nr;  // never past the rows still to be read (nr ≤ pitch)
    axis_column(
        ops, tb.last,
        w_last, [&](std::size_t j) __attribute__((always_inline)) { return Ops::load(t + j * kW); },
        [&](std::size_t k, V x) __attribute__((always_inline)) { Ops::store(out + k * kW, x); },
        scale);
  }

  Ops::permute_out(tb, rows, a, inverse);
}

/// The maps.
inline void permute_in_plain(const FusedTables& tb, const u64* a, u64* rows) {
  const std::size_t nr = tb.last.n;
  for (std::size_t c = 0; c < tb.rows; ++c) {
    u64* row = rows + c * tb.pitch;
    const std::uint32_t* map = tb.in_map.data() + c * nr;
    for (std::size_t j = 0; j < nr; ++j) row[j] = a[map[j]];
    std::memset(row + nr, 0, (tb.pitch - nr) * sizeof(u64));
  }
  std::memset(rows + tb.rows * tb.pitch, 0, (tb.padded_rows - tb.rows) * tb.pitch * sizeof(u64));
}

/// Forward: a[k] = out[map[k]]. Inverse: a[k] = out[map[(n − k) mod n]] (F⁻¹(x)[k] is
/// F(x)[−k]/n; the 1/n is already in).
inline void permute_out_plain(const FusedTables& tb, const u64* rows, u64* a, bool inverse) {
  const std::size_t n = tb.n;
  const std::uint32_t* map = tb.out_map.data();
  if (!inverse) {
    for (std::size_t k = 0; k < n; ++k) a[k] = rows[map[k]];
  } else {
    a[0] = rows[map[0]];
    for (std::size_t k = 1; k < n; ++k) a[k] = rows[map[n - k]];
  }
}

}  // namespace
}  // namespace polyhe::cyclic
