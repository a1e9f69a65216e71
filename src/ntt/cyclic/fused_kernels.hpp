// The flattened PFA transform (fused.hpp) as one schedule over an arithmetic policy `Ops` on
// eight-lane vectors of words (the scalar policy loops over the lanes, the AVX-512 one is one
// register). Include only from the translation units that instantiate it (fused_scalar.cpp,
// fused_avx512.cpp): everything here has internal linkage so that no copy compiled with one
// instruction set is merged into another.
//
// The policy provides, with c its lazy bound (2q, or 4q when q < 2^61 on AVX-512):
//   V load(const u64*), store(u64*, V)            eight consecutive words
//   V gather(const u64* p, std::size_t pitch)     lane l from p[l·pitch]
//   V mul(V a, const FusedTwiddle&)               a·ω mod q in [0, c), any a < 2^64
//   ct(x, y, w), ct1(x, y)                         (x, y) ← (x + ω·y, x − ω·y): [0, 2c) → [0, 2c)
//   gs(x, y, w), gs1(x, y)                         (x, y) ← (x + y, (x − y)·ω):  [0, c) → [0, c)
//   V add(V, V), V reduce_c(V)                     plain sum; [0, 2c) → [0, c)
//   V out_2c(V), V out_c(V)                        [0, 2c) → [0, q), [0, c) → [0, q)
// (ct1 and gs1 are the butterflies with ω = 1.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fused.hpp"

namespace polyhe::cyclic {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

using u64 = std::uint64_t;
constexpr std::size_t kW = FusedTables::kLanes;

/// Radix-2 forward transform of w[0, len) by Gentleman–Sande: natural order in, bit-reversed
/// out; [0, c) → [0, c).
template <class Ops, class V>
inline void dif(const Ops& ops, V* w, std::size_t len, const FusedTwiddle* tw) {
  for (std::size_t h = len / 2; h >= 1; h /= 2) {
    const FusedTwiddle* t = tw + (h - 1);
    for (std::size_t s = 0; s < len; s += 2 * h) ops.gs1(w[s], w[s + h]);
    for (std::size_t i = 1; i < h; ++i) {
      for (std::size_t s = i; s < len; s += 2 * h) ops.gs(w[s], w[s + h], t[i]);
    }
  }
}

/// Radix-2 forward transform by Cooley–Tukey: bit-reversed order in, natural out;
/// [0, 2c) → [0, 2c).
template <class Ops, class V>
inline void dit(const Ops& ops, V* w, std::size_t len, const FusedTwiddle* tw) {
  for (std::size_t h = 1; h < len; h *= 2) {
    const FusedTwiddle* t = tw + (h - 1);
    for (std::size_t s = 0; s < len; s += 2 * h) ops.ct1(w[s], w[s + h]);
    for (std::size_t i = 1; i < h; ++i) {
      for (std::size_t s = i; s < len; s += 2 * h) ops.ct(w[s], w[s + h], t[i]);
    }
  }
}

/// X[k] = Σ_j x[j]·ω^(jk): products summed with one reduction per term.
template <class Ops, class V, class Load, class Store>
inline void direct_column(const Ops& ops, const FusedAxis& ax, V* x, Load load, Store store) {
  const std::size_t p = ax.n;
  for (std::size_t j = 0; j < p; ++j) x[j] = load(j);
  V sum = x[0];
  for (std::size_t j = 1; j < p; ++j) sum = ops.reduce_c(ops.add(sum, x[j]));
  for (std::size_t k = 1; k < p; ++k) {
    V acc = x[0];
    std::size_t e = 0;
    for (std::size_t j = 1; j < p; ++j) {
      e += k;
      if (e >= p) e -= p;
      acc = ops.reduce_c(ops.add(acc, ops.mul(x[j], ax.powers[e])));
    }
    store(k, ops.out_c(acc));
  }
  store(0, ops.out_c(sum));
}

/// Radix-2 axis: bit-reversed load, Cooley–Tukey, natural store; optionally times 1/n.
template <class Ops, class V, class Load, class Store>
inline void radix2_column(const Ops& ops, const FusedAxis& ax, V* w, Load load, Store store,
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
/// into K (kernel_scaled), x0 and X[0]: two products more per column.
template <class Ops, class V, class Load, class Store>
inline void rader_column(const Ops& ops, const FusedAxis& ax, V* w, Load load, Store store,
                         const FusedTwiddle* scale) {
  const std::size_t len = ax.len;
  const V x0 = load(0);
  for (std::size_t i = 0; i < len; ++i) w[i] = load(ax.order[i]);
  dif(ops, w, len, ax.twiddles.data());
  const V first = ops.add(w[0], x0);  // [0, c + q)
  const FusedTwiddle* kernel = scale != nullptr ? ax.kernel_scaled.data() : ax.kernel.data();
  for (std::size_t i = 0; i < len; ++i) w[i] = ops.mul(w[i], kernel[i]);
  w[0] = ops.add(w[0], scale != nullptr ? ops.mul(x0, *scale) : x0);  // [0, 2c)
  dit(ops, w, len, ax.twiddles.data());
  store(0, scale != nullptr ? ops.out_c(ops.mul(first, *scale)) : ops.out_2c(first));
  for (std::size_t r = 0; r < len; ++r) store(ax.order[r], ops.out_2c(w[r]));
}

template <class Ops, class V, class Load, class Store>
inline void axis_column(const Ops& ops, const FusedAxis& ax, V* w, Load load, Store store,
                        const FusedTwiddle* scale) {
  switch (ax.kind) {
    case FusedAxis::Kind::direct: direct_column(ops, ax, w, load, store); break;
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
    const std::size_t step = ax.stride * pitch;
    const std::size_t block = ax.stride * ax.n;
    for (std::size_t hi = 0; hi < tb.rows; hi += block) {
      for (std::size_t lo = 0; lo < ax.stride; ++lo) {
        u64* base = rows + (hi + lo) * pitch;
        for (std::size_t v = 0; v < pitch; v += kW) {
          u64* col = base + v;
          axis_column(
              ops, ax, w, [&](std::size_t j) { return Ops::load(col + j * step); },
              [&](std::size_t k, V x) { Ops::store(col + k * step, x); }, nullptr);
        }
      }
    }
  }

  const FusedTwiddle* scale = inverse ? &tb.n_inv : nullptr;
  for (std::size_t b = 0; b < tb.padded_rows; b += kW) {
    const u64* in = rows + b * pitch;
    u64* out = rows + b * nr;  // never past the rows still to be read (nr ≤ pitch)
    axis_column(
        ops, tb.last, w, [&](std::size_t j) { return Ops::gather(in + j, pitch); },
        [&](std::size_t k, V x) { Ops::store(out + k * kW, x); }, scale);
  }

  Ops::permute_out(tb, rows, a, inverse);
}

/// The maps, written plainly (the AVX-512 policy replaces them by gathers).
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
