// The pruned tensor transform of the powerful basis (powerful_fused.hpp) as one schedule over
// the flattened PFA's arithmetic policies (fused_kernels.hpp, which lists what a policy provides;
// this one also uses transpose8_pitched(in, in_pitch, out, out_pitch):
// out[i·out_pitch + l] = in[l·in_pitch + i], i, l < 8). Include only after fused_kernels.hpp
// from the translation units that instantiate it; internal linkage, as there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fused_kernels.hpp"
#include "powerful_fused.hpp"

namespace polyhe::cyclic {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

template <class Ops>
[[gnu::always_inline]] inline typename Ops::V zero_vector(const Ops& ops) {
  return ops.sub(ops.modulus(), ops.modulus());
}

/// The reduction by Φ_(p^e) of the inverse DFT's outputs y (m_i vectors in [0, q)): coordinate
/// j·P + c (j < p − 1, c < P = p^(e−1)) is y_(j·P+c) − y_((p−1)·P+c) mod q, given to put(index, v).
template <class Ops, class V, class Put>
[[gnu::always_inline]] inline void fold_phi(const Ops& ops, const PowerfulAxis& ax, const V* y,
                                            Put put) {
  const std::size_t big_p = ax.m / ax.p;
  const V q = ops.modulus();
  for (std::size_t c = 0; c < big_p; ++c) {
    const V top = y[(ax.p - 1) * big_p + c];
    for (std::size_t j = 0; j + 1 < ax.p; ++j) {
      const std::size_t at = j * big_p + c;
      put(at, ops.out_c(ops.sub(ops.add(y[at], q), top)));  // (0, 2q) → [0, q)
    }
  }
}

/// Every column of a non-row axis, eight at a time, in place: forward (pruned inputs and
/// outputs) or inverse (DFT by ω_i^−1 into y, then the fold).
template <class Ops, class V>
inline void powerful_other_axis(const Ops& ops, const PowerfulAxis& ax, u64* a, std::size_t degree,
                                V* w, V* y, bool inverse) {
  const std::size_t s = ax.stride;
  const std::size_t block = ax.phi * s;
  const std::int32_t* rank = ax.rank.data();
  const std::size_t phi = ax.phi;
  const V zero = zero_vector(ops);
  for (std::size_t outer = 0; outer < degree; outer += block) {
    for (std::size_t inner = 0; inner < s; inner += kW) {
      u64* col = a + outer + inner;
      if (!inverse) {
        axis_column<Ops, V>(
            ops, ax.forward, w,
            [&](std::size_t j)
                __attribute__((always_inline)) { return j < phi ? Ops::load(col + j * s) : zero; },
            [&](std::size_t k, V x) __attribute__((always_inline)) {
              if (rank[k] >= 0) Ops::store(col + static_cast<std::size_t>(rank[k]) * s, x);
            },
            nullptr);
      } else {
        axis_column<Ops, V>(
            ops, ax.inverse, w,
            [&](std::size_t k) __attribute__((always_inline)) {
              return rank[k] >= 0 ? Ops::load(col + static_cast<std::size_t>(rank[k]) * s) : zero;
            },
            [&](std::size_t j, V x) __attribute__((always_inline)) { y[j] = x; }, nullptr);
        fold_phi(
            ops, ax, y, [&](std::size_t j, V x) __attribute__((always_inline)) {
              Ops::store(col + j * s, x);
            });
      }
    }
  }
}

/// The row axis, eight rows at a time through t; the inverse's 1/m applied here.
template <class Ops, class V>
inline void powerful_row_axis(const Ops& ops, const PowerfulTables& tb, u64* a, u64* t, V* w, V* y,
                              bool inverse) {
  const PowerfulAxis& ax = tb.last;
  const std::size_t width = tb.width;
  const std::int32_t* rank = ax.rank.data();
  const std::size_t phi = ax.phi;
  const V zero = zero_vector(ops);
  for (std::size_t b = 0; b < tb.rows; b += kW) {
    u64* block = a + b * width;
    for (std::size_t j = 0; j < width; j += kW) {
      Ops::transpose8_pitched(block + j, width, t + j * kW, kW);
    }
    if (!inverse) {
      axis_column<Ops, V>(
          ops, ax.forward, w,
          [&](std::size_t j)
              __attribute__((always_inline)) { return j < phi ? Ops::load(t + j * kW) : zero; },
          [&](std::size_t k, V x) __attribute__((always_inline)) {
            if (rank[k] >= 0) Ops::store(t + static_cast<std::size_t>(rank[k]) * kW, x);
          },
          nullptr);
    } else {
      axis_column<Ops, V>(
          ops, ax.inverse, w,
          [&](std::size_t k) __attribute__((always_inline)) {
            return rank[k] >= 0 ? Ops::load(t + static_cast<std::size_t>(rank[k]) * kW) : zero;
          },
          [&](std::size_t j, V x) __attribute__((always_inline)) { y[j] = x; }, &tb.m_inv);
      fold_phi(
          ops, ax,
          y, [&](std::size_t j, V x) __attribute__((always_inline)) { Ops::store(t + j * kW, x); });
    }
    for (std::size_t j = 0; j < width; j += kW) {
      Ops::transpose8_pitched(t + j * kW, kW, block + j, width);
    }
  }
}

/// The whole transform; buf holds tables.scratch_words() words.
template <class Ops>
void run_powerful_with(const Ops& ops, const PowerfulTables& tb, u64* a, u64* buf, bool inverse) {
  using V = typename Ops::V;
  const auto misalign = reinterpret_cast<std::uintptr_t>(buf) % (kW * sizeof(u64));
  u64* t = buf + (misalign == 0 ? 0 : (kW * sizeof(u64) - misalign) / sizeof(u64));
  std::size_t longest = tb.last.m;
  for (const PowerfulAxis& ax : tb.others) longest = std::max(longest, ax.m);
  V* w = reinterpret_cast<V*>(t + tb.width * kW);
  V* y = w + longest;
  if (!inverse) {
    for (const PowerfulAxis& ax : tb.others) {
      powerful_other_axis<Ops, V>(ops, ax, a, tb.degree, w, y, false);
    }
    powerful_row_axis<Ops, V>(ops, tb, a, t, w, y, false);
  } else {
    powerful_row_axis<Ops, V>(ops, tb, a, t, w, y, true);
    for (const PowerfulAxis& ax : tb.others) {
      powerful_other_axis<Ops, V>(ops, ax, a, tb.degree, w, y, true);
    }
  }
}

}  // namespace
}  // namespace polyhe::cyclic
