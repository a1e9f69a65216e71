// Butterfly arithmetic policies: each NTT variant is one small struct that says how a
// Cooley–Tukey butterfly, a halving Gentleman–Sande butterfly and a product are computed, and
// where its twiddles are. The transform schedules (arith/ntt_schedule.hpp) and the CUDA kernels
// run over these policies, so the arithmetic is written once for host and device. Here in arith,
// below both the NTT plans (ntt/) and the CPU kernels (src/cpu/), which both include it.
//
// Conventions ([GPU-Polymul, Alg. 5/6]):
//   ct(x, y, w):  (x, y) ← (x + w·y, x − w·y)
//   gs(x, y, w):  (x, y) ← ((x + y)/2, (x − y)·w)   with w = ψ^−br(i)/2 already halved,
// so log2 N inverse stages fold the factor 1/N in (Zhang et al.'s halving trick).
#pragma once

#include <cstddef>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/montgomery.hpp"
#include "polyhe/arith/shoup.hpp"

namespace polyhe {

/// Word i of a twiddle table. On the device through the read-only data cache (`__ldg`: the tables
/// are written when a ring's tables are uploaded and only read by kernels; a plain load through a
/// pointer the compiler cannot place is a generic one, as an H200 profile showed); on the host a
/// plain load. On the device `t` must point into global memory (the uploaded tables): `__ldg` of
/// a local or shared address faults.
template <Word W>
POLYHE_HD POLYHE_INLINE W table_word(const W* t, std::size_t i) {
#if defined(__CUDA_ARCH__)
  return __ldg(t + i);
#else
  return t[i];
#endif
}

/// Plain radix-2 with `%` on double words: slow and obviously correct. Its inverse table is the
/// unhalved ψ^−br(i); both GS outputs are halved explicitly.
template <Word W>
struct ReferenceButterfly {
  using Tw = W;
  const W* fwd;
  const W* inv;  // ψ^−br(i), not halved
  W q;

  POLYHE_HD Tw fwd_tw(std::size_t i) const { return table_word(fwd, i); }
  POLYHE_HD Tw inv_tw(std::size_t i) const { return table_word(inv, i); }
  POLYHE_HD W mul(W a, W b) const { return static_cast<W>(mul_wide(a, b) % q); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return mul(a, w); }
  POLYHE_HD void ct(W& x, W& y, Tw w) const {
    const W t = mul(y, w);
    const W x0 = x;
    x = static_cast<W>((static_cast<Wide<W>>(x0) + t) % q);
    y = static_cast<W>((static_cast<Wide<W>>(x0) + q - t) % q);
  }
  POLYHE_HD void gs(W& x, W& y, Tw w) const {
    const W s = static_cast<W>((static_cast<Wide<W>>(x) + y) % q);
    const W d = static_cast<W>((static_cast<Wide<W>>(x) + q - y) % q);
    x = halve_mod(s, q);
    y = halve_mod(mul(d, w), q);
  }
  POLYHE_HD W fwd_out(W x) const { return x; }
  POLYHE_HD W inv_out(W x) const { return x; }
};

/// Harvey's lazy butterflies with Shoup twiddles (the default CPU path). Requires len(q) ≤ β−2.
///   ct: inputs in [0, 4q), outputs in [0, 4q).
///   gs: inputs in [0, 2q), outputs in [0, 2q).
/// fwd_out / inv_out bring those ranges to [0, q).
template <Word W>
struct ShoupLazyButterfly {
  using Tw = ShoupOperand<W>;
  const W* fwd;
  const W* fwd_shoup;
  const W* inv;  // ψ^−br(i)/2
  const W* inv_shoup;
  W q;
  BarrettAlg4<W> barrett;  // for general products (Hadamard)

  POLYHE_HD Tw fwd_tw(std::size_t i) const {
    return {table_word(fwd, i), table_word(fwd_shoup, i)};
  }
  POLYHE_HD Tw inv_tw(std::size_t i) const {
    return {table_word(inv, i), table_word(inv_shoup, i)};
  }
  POLYHE_HD W mul(W a, W b) const { return mul_mod(a, b, barrett); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return mul_shoup(a, w, q); }
  POLYHE_HD void ct(W& x, W& y, Tw w) const {
    const W two_q = 2 * q;
    W x0 = x;
    x0 -= two_q & (W{0} - static_cast<W>(x0 >= two_q));  // [0, 2q)
    const W t = mul_shoup_lazy(y, w, q);                 // [0, 2q)
    x = x0 + t;                                          // [0, 4q)
    y = x0 - t + two_q;                                  // [0, 4q)
  }
  POLYHE_HD void gs(W& x, W& y, Tw w) const {
    const W two_q = 2 * q;
    W s = x + y;                                       // [0, 4q)
    s -= two_q & (W{0} - static_cast<W>(s >= two_q));  // [0, 2q)
    const W d = x - y + two_q;                         // [0, 4q)
    x = halve_mod(s, q);                               // [0, 2q)
    y = mul_shoup_lazy(d, w, q);                       // [0, 2q)
  }
  POLYHE_HD W fwd_out(W x) const {
    const W two_q = 2 * q;
    x -= two_q & (W{0} - static_cast<W>(x >= two_q));
    return x - (q & (W{0} - static_cast<W>(x >= q)));
  }
  POLYHE_HD W inv_out(W x) const { return x - (q & (W{0} - static_cast<W>(x >= q))); }
};

/// Fully reduced butterflies ([GPU-Polymul, Alg. 1] additions) over a reduction R that provides
/// `mul(a, b)` for plain operands and `mul_tw(a, w)` for a twiddle stored in R's own form.
/// Every value stays in [0, q).
template <Word W, class R>
struct ReducedButterfly {
  using Tw = typename R::Tw;
  const W* fwd;
  const W* fwd_aux;  // Shoup companions where R needs them, else unused
  const W* inv;      // ψ^−br(i)/2 in R's form
  const W* inv_aux;
  W q;
  R red;

  POLYHE_HD Tw fwd_tw(std::size_t i) const { return R::twiddle(fwd, fwd_aux, i); }
  POLYHE_HD Tw inv_tw(std::size_t i) const { return R::twiddle(inv, inv_aux, i); }
  POLYHE_HD W mul(W a, W b) const { return red.mul(a, b); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return red.mul_tw(a, w); }
  POLYHE_HD void ct(W& x, W& y, Tw w) const {
    const W t = red.mul_tw(y, w);
    const W x0 = x;
    x = add_mod(x0, t, q);
    y = sub_mod(x0, t, q);
  }
  POLYHE_HD void gs(W& x, W& y, Tw w) const {
    const W s = add_mod(x, y, q);
    const W d = sub_mod(x, y, q);
    x = halve_mod(s, q);
    y = red.mul_tw(d, w);
  }
  POLYHE_HD W fwd_out(W x) const { return x; }
  POLYHE_HD W inv_out(W x) const { return x; }
};

/// Reductions in the form ReducedButterfly expects. Twiddles for the Barrett reductions are
/// plain; for the Montgomery reductions they are w·R mod q, so that REDC(a·wR) = a·w.
template <Word W, class C>
struct PlainTwiddleReduction {
  using Tw = W;
  C c;
  POLYHE_HD static Tw twiddle(const W* t, const W*, std::size_t i) { return table_word(t, i); }
  POLYHE_HD W mul(W a, W b) const { return mul_mod(a, b, c); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return mul_mod(a, w, c); }
};

template <Word W>
struct MontgomeryReduction {
  using Tw = W;
  Montgomery<W> c;
  POLYHE_HD static Tw twiddle(const W* t, const W*, std::size_t i) { return table_word(t, i); }
  POLYHE_HD W mul(W a, W b) const { return mul_mod(a, b, c); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return montgomery_mul(a, w, c); }
};

template <Word W>
struct MontgomeryNttReduction {
  using Tw = W;
  MontgomeryNtt<W> c;
  POLYHE_HD static Tw twiddle(const W* t, const W*, std::size_t i) { return table_word(t, i); }
  POLYHE_HD W mul(W a, W b) const { return mul_mod(a, b, c); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return montgomery_ntt_mul(a, w, c); }
};

template <Word W>
struct ShoupReduction {
  using Tw = ShoupOperand<W>;
  BarrettAlg4<W> barrett;
  W q;
  POLYHE_HD static Tw twiddle(const W* t, const W* s, std::size_t i) {
    return {table_word(t, i), table_word(s, i)};
  }
  POLYHE_HD W mul(W a, W b) const { return mul_mod(a, b, barrett); }
  POLYHE_HD W mul_tw(W a, Tw w) const { return mul_shoup(a, w, q); }
};

}  // namespace polyhe
