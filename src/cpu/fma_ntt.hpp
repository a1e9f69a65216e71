// The default transform for q < 2^50 in double-precision arithmetic, written once over a vector
// of doubles holding integers, every product exact by FMA: four lanes on AVX2
// (avx2/ntt_avx2_fma.cpp), eight on AVX-512 (avx512/ntt_avx512_fma.cpp). Internal linkage, as
// avx2/lanes.hpp: each kernel file compiles its own copy with its own instruction-set flags.
//
// Product (y·ω mod q, signed), the twiddle centred (|ω| < q/2, stored so): h = fl(y·ω),
// l = y·ω − h exactly (one FMA), Q = round(fl(y·fl(ω/q))), r = fl(h − Q·q) + l (one FMA, one
// add). With |y| < 2^52 and q < 2^50:
//   |y·ω/q| < 2^51 and fl(y·fl(ω/q)) is within |y·ω/q|·2^−52 < 1/2 of it, so it is below 2^51
//   and rounded by two additions (round_small), and |Q − y·ω/q| < 1: r_true = y·ω − Q·q has
//   |r_true| < q;
//   h − Q·q = r_true − l with |l| ≤ ulp(h)/2 ≤ |y·ω|·2^−53 < 2^48: an integer below 2^53, so
//   the FMA's result is exact, and so is r = r_true (|r| < q).
// Four floating-point multiplies (two FMAs) and three additions per product, against nine vpmuludq
// and nine shifts and adds in the AVX2 integer kernel (avx2/ntt_avx2.cpp). With ω in [0, q) the
// quotient could reach 2^52 and needed vroundpd, two µops on the multiply ports of Intel's cores,
// and |r| was bounded by 1.5q only.
//
// Ranges: values are signed integers. A CT butterfly adds less than q to |x|; starting from
// |x| ≤ q, two stages give 3q < 2^52 (q < 2^50), so every second stage ends with a centred
// reduction x − round(x/q)·q (|·| ≤ q/2 + 1). GS: x + y doubles the bound, (x − y)·ω is a
// product; the sums are reduced every second stage as well. Inputs [0, q) are converted exactly
// (2^52 trick), outputs reduced to [0, q) and converted back: every word equals the scalar
// kernel's, whatever the lane count.
//
// The lanes L provide: D (the vector), kLanes, set1, load, store (unaligned), add, sub, mul, fmsub
// (a·b − c), fnmadd (c − a·b), round_small, from_words and to_words (words below 2^52), LiftConst,
// lift_const(p) and lift_raw(x, l) (words below p < 2^52 to v − p where v > ⌊p/2⌋, else v),
// add_where_negative(x, q), and split<t>(a, b, x, y) for every power of two t < kLanes: the
// butterflies of half-size t over the 2·kLanes words a, b, regrouped so that lane l of x and of y
// hold the two ends of one butterfly, an involution (split of x, y gives back a, b).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/wipe.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

/// What a stage does to its outputs: keep them, centre them (every second stage), or bring them
/// to [0, q) (the last stage run).
enum class FmaOut { keep, centre, canonical };

/// Everything of the transform but the element-wise products (hadamard, fused_hadamard) and the
/// path, which each kernel file adds.
template <class L>
class FmaNttKernel : public NttKernel64 {
 public:
  using D = typename L::D;
  using u64 = std::uint64_t;
  static constexpr std::size_t kLanes = L::kLanes;

  /// n ≥ 4·kLanes (the first pair's second half-size, n/4, fills a vector), q < 2^50.
  explicit FmaNttKernel(const NttTables64& t) : n_(t.n), q_(t.q), ar_(static_cast<double>(t.q)) {
    fwd_.resize(n_);
    inv_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      fwd_[i] = twiddle(t.fwd[i], q_);
      inv_[i] = twiddle(t.inv[i], q_);
    }
    for_each_half([&]<std::size_t kT>() {
      lane_table<kT>(fwd_, fwd_lanes_[std::countr_zero(kT)]);
      lane_table<kT>(inv_, inv_lanes_[std::countr_zero(kT)]);
    });
    // The stages of half-size t ≥ kLanes (m ≤ n/2kLanes) broadcast the twiddles below n/kLanes;
    // the rest are in the lane tables.
    for (std::vector<TwD>* tab : {&fwd_, &inv_}) {
      tab->resize(n_ / kLanes);
      tab->shrink_to_fit();
    }
    // The last inverse stage multiplies by 2^−stages — 1/N for the whole transform, 2/N after
    // the fused product — and its difference output also by ψ^−br(1).
    const Modulus<u64> m(q_);
    const u64 n_inv = inverse_mod(n_, q_);
    const u64 two_n_inv = m.mul(n_inv, 2 % q_);
    scale_whole_ = {twiddle(n_inv, q_), twiddle(m.mul(n_inv, t.inv[1]), q_)};
    scale_truncated_ = {twiddle(two_n_inv, q_), twiddle(m.mul(two_n_inv, t.inv[1]), q_)};
  }

  void forward(u64* a) const override { forward_stages(a, n_); }
  void inverse(u64* a) const override { inverse_stages(a, n_ / 2, scale_whole_); }
  void forward_truncated(u64* a) const override { forward_stages(a, n_ / 2); }
  void inverse_truncated(u64* a) const override { inverse_stages(a, n_ / 4, scale_truncated_); }

  /// The lift in the first pair's loads (m = 1) for p < 2^52, where the words convert exactly;
  /// and, for forward_lifted, (c − y)·s in the last stage's stores (m = n/2), as the transform's
  /// canonical outputs are stored.
  bool forward_from_lifted(const u64* x, u64 p, u64* out) const override {
    if (p >= (u64{1} << 52)) return false;
    forward_lifted_stages(x, L::lift_const(p), out, nullptr);
    return true;
  }
  bool forward_lifted(const LiftedForward& f) const override {
    if (f.p >= (u64{1} << 52)) return false;
    const SubScale sub{f.c, broadcast(twiddle(f.s, q_))};
    forward_lifted_stages(f.x, L::lift_const(f.p), f.out, &sub);
    return true;
  }

 protected:
  std::size_t n_;
  u64 q_;

 private:
  /// A twiddle as doubles: ω centred (exact, |ω| < q/2) and fl(ω/q).
  struct TwD {
    double w, wq;
  };
  struct VTwD {
    D w, wq;
  };
  /// A stage of half-size t < kLanes: lane l of entry k holds the twiddle of the butterfly in
  /// lane l of the regrouped words 2·kLanes·k, ….
  struct alignas(sizeof(D)) LaneTwD {
    std::array<double, kLanes> w, wq;
  };
  struct LastStageScale {
    TwD sum;   // 2^−stages
    TwD diff;  // 2^−stages · ψ^−br(1)
  };
  /// The epilogue of forward_lifted: out = (c − y)·s mod q for the canonical outputs y, with s
  /// centred as a twiddle (c − y in (−q, q), the product in (−q, q), then to [0, q)).
  struct SubScale {
    const u64* c;
    VTwD s;
  };
  using Lift = typename L::LiftConst;

  static TwD twiddle(u64 w, u64 q) {  // centred: ω or ω − q, |·| < q/2
    const double c = w > q / 2 ? -static_cast<double>(q - w) : static_cast<double>(w);
    return {c, c / static_cast<double>(q)};
  }
  [[gnu::always_inline]] static VTwD broadcast(const TwD& t) {
    return {L::set1(t.w), L::set1(t.wq)};
  }
  [[gnu::always_inline]] static VTwD lanes(const LaneTwD& t) {
    return {L::load(t.w.data()), L::load(t.wq.data())};
  }

  /// Calls f.template operator()<t>() for each half-size t = 1, 2, 4, … below kLanes.
  template <class F>
  static void for_each_half(F&& f) {
    f.template operator()<1>();
    f.template operator()<2>();
    if constexpr (kLanes > 4) f.template operator()<4>();
    static_assert(kLanes == 4 || kLanes == 8);
  }

  /// The lane table of the stage of half-size kT (m = n/2kT blocks) from the broadcast twiddles
  /// tw (index m + block), following L::split's lanes, found by splitting the words' positions.
  template <std::size_t kT>
  void lane_table(const std::vector<TwD>& tw, std::vector<LaneTwD>& out) const {
    const std::size_t m = n_ / (2 * kT);
    out.resize(n_ / (2 * kLanes));
    for (std::size_t k = 0; k < out.size(); ++k) {
      std::array<double, kLanes> a{}, b{}, x{}, y{};
      for (std::size_t l = 0; l < kLanes; ++l) {
        a[l] = static_cast<double>(2 * kLanes * k + l);
        b[l] = a[l] + static_cast<double>(kLanes);
      }
      D vx, vy;
      L::template split<kT>(L::load(a.data()), L::load(b.data()), vx, vy);
      L::store(x.data(), vx);
      L::store(y.data(), vy);
      for (std::size_t l = 0; l < kLanes; ++l) {
        const auto pos = static_cast<std::size_t>(x[l]);
        if (static_cast<std::size_t>(y[l]) != pos + kT || pos % (2 * kT) >= kT) {
          throw std::logic_error("FmaNttKernel: a split does not pair a butterfly's ends");
        }
        out[k].w[l] = tw[m + pos / (2 * kT)].w;
        out[k].wq[l] = tw[m + pos / (2 * kT)].wq;
      }
    }
  }

  struct Arith {
    D q, q_inv, zero;

    explicit Arith(double modulus)
        : q(L::set1(modulus)), q_inv(L::set1(1.0 / modulus)), zero(L::set1(0.0)) {}

    /// y·ω mod q as a signed integer in (−q, q), for |y| < 2^52 and a centred twiddle (file
    /// comment).
    [[gnu::always_inline]] D mul(D y, const VTwD& t) const {
      const D h = L::mul(y, t.w);
      const D l = L::fmsub(y, t.w, h);
      const D quot = L::round_small(L::mul(y, t.wq));
      return L::add(L::fnmadd(quot, q, h), l);
    }
    /// x − round(x/q)·q: |result| ≤ q/2 + 1 for |x| < 2^52 (the quotient estimate is within 1/2
    /// + |x|·2^−52 of x/q, and the FMA is exact as in mul). |x/q| < 2^52/q < 2^51: round_small.
    [[gnu::always_inline]] D centre(D x) const {
      return L::fnmadd(L::round_small(L::mul(x, q_inv)), q, x);
    }
    /// Any |x| < 2^52 to [0, q): centred, |x| < q/2 + 1, then q added where negative (an
    /// integer x ≤ −1 gives x + q ≤ q − 1; −0 stays and converts to the word 0).
    [[gnu::always_inline]] D canonical(D x) const { return L::add_where_negative(centre(x), q); }
    [[gnu::always_inline]] void ct(D& x, D& y, const VTwD& t) const {
      const D r = mul(y, t);
      y = L::sub(x, r);
      x = L::add(x, r);
    }
    [[gnu::always_inline]] void gs(D& x, D& y, const VTwD& t) const {
      const D d = L::sub(x, y);
      x = L::add(x, y);
      y = mul(d, t);
    }
  };

  /// The centred lift of words below p (< 2^52) to q, as doubles: v − p where v > ⌊p/2⌋, else v
  /// (|·| ≤ p/2 < 2^51, exact), then centred by q (|·| ≤ q/2 + 1, the inputs' bound of the first
  /// pair).
  [[gnu::always_inline]] D lifted(const u64* x, const Lift& l) const {
    return ar_.centre(L::lift_raw(x, l));
  }

  /// forward_stages for x (< p) read through the lift and the words stored to out (through the
  /// epilogue where sub is given): the same passes, the first pair's loads and the last stage's
  /// stores replaced.
  void forward_lifted_stages(const u64* x, const Lift& lift, u64* out, const SubScale* sub) const {
    double* w = work();
    pair_with<true, true, true>(x, w, 1, &lift);
    std::size_t m = 4;
    for (; 4 * m <= n_ && n_ / (4 * m) >= kLanes; m *= 4) {
      pair(true, nullptr, w, m);
    }
    for (int index = 0; 2 * m < n_; m <<= 1, ++index) {
      stage(true, nullptr, w, nullptr, m, index % 2 == 1 ? FmaOut::centre : FmaOut::keep);
    }
    if (sub != nullptr) {
      stage_with<true, false, true, FmaOut::canonical, true>(nullptr, w, out, m, sub);
    } else {
      stage_with<true, false, true, FmaOut::canonical>(nullptr, w, out, m);
    }
  }

  template <FmaOut kOut>
  [[gnu::always_inline]] D finish(D x) const {
    if constexpr (kOut == FmaOut::centre) return ar_.centre(x);
    if constexpr (kOut == FmaOut::canonical) return ar_.canonical(x);
    return x;
  }

  /// The per-thread work array of doubles (n words): the transform runs there, between the
  /// conversion in the first stage and the one out of the last. Secret transforms pass through
  /// it: it is wiped after them (core/wipe.hpp).
  [[nodiscard]] double* work() const {
    thread_local polyhe::detail::ThreadScratch buffer;
    return static_cast<double*>(buffer.get(n_ * sizeof(double)));
  }

  /// One stage m (half-size t = n/2m) of CT (forward) or GS (inverse) butterflies, reading the
  /// words of a (kFromWords) or w, writing w or the words of a (kToWords, with
  /// FmaOut::canonical); every choice a template argument, so that the inner loops carry no
  /// branch.
  void stage(bool forward, const u64* from, double* w, u64* to, std::size_t m, FmaOut out) const {
    const auto go = [&]<bool kF, bool kFrom, bool kTo, FmaOut kOut>() {
      stage_with<kF, kFrom, kTo, kOut>(from, w, to, m);
    };
    const auto by_out = [&]<bool kF, bool kFrom, bool kTo>() {
      if (out == FmaOut::keep) {
        go.template operator()<kF, kFrom, kTo, FmaOut::keep>();
      } else if (out == FmaOut::centre) {
        go.template operator()<kF, kFrom, kTo, FmaOut::centre>();
      } else {
        go.template operator()<kF, kFrom, kTo, FmaOut::canonical>();
      }
    };
    const auto by_io = [&]<bool kF>() {
      if (from != nullptr && to != nullptr) {
        by_out.template operator()<kF, true, true>();
      } else if (from != nullptr) {
        by_out.template operator()<kF, true, false>();
      } else if (to != nullptr) {
        by_out.template operator()<kF, false, true>();
      } else {
        by_out.template operator()<kF, false, false>();
      }
    };
    if (forward) {
      by_io.template operator()<true>();
    } else {
      by_io.template operator()<false>();
    }
  }

  template <bool kForward, bool kFromWords, bool kToWords, FmaOut kOut, bool kSubScale = false>
  void stage_with(const u64* from, double* w, u64* to, std::size_t m,
                  const SubScale* sub = nullptr) const {
    const auto ld = [&](std::size_t i) __attribute__((always_inline)) {
      if constexpr (kFromWords) {
        return L::from_words(from + i);
      } else {
        return L::load(w + i);
      }
    };
    const auto st = [&](std::size_t i, D x) __attribute__((always_inline)) {
      if constexpr (kSubScale) {
        x = ar_.canonical(ar_.mul(L::sub(L::from_words(sub->c + i), x), sub->s));
      }
      if constexpr (kToWords) {
        L::to_words(to + i, x);
      } else {
        L::store(w + i, x);
      }
    };
    const std::size_t t = n_ / (2 * m);
    if (t >= kLanes) {
      const std::vector<TwD>& tab = kForward ? fwd_ : inv_;
      for (std::size_t i = 0; i < m; ++i) {
        const VTwD tw = broadcast(tab[m + i]);
        const std::size_t p = 2 * i * t;
        for (std::size_t j = 0; j < t; j += kLanes) {
          D x = ld(p + j);
          D y = ld(p + j + t);
          if constexpr (kForward) {
            ar_.ct(x, y, tw);
          } else {
            ar_.gs(x, y, tw);
          }
          st(p + j, finish<kOut>(x));
          st(p + j + t, finish<kOut>(y));
        }
      }
      return;
    }
    // The stages of half-size t < kLanes: each butterfly's ends regrouped into the same lane of
    // two vectors, and back (split is an involution).
    for_each_half([&]<std::size_t kT>() {
      if (t != kT) return;
      const std::vector<LaneTwD>& tab =
          kForward ? fwd_lanes_[std::countr_zero(kT)] : inv_lanes_[std::countr_zero(kT)];
      for (std::size_t k = 0; k < n_ / (2 * kLanes); ++k) {
        const std::size_t p = 2 * kLanes * k;
        D x, y;
        L::template split<kT>(ld(p), ld(p + kLanes), x, y);
        if constexpr (kForward) {
          ar_.ct(x, y, lanes(tab[k]));
        } else {
          ar_.gs(x, y, lanes(tab[k]));
        }
        D u, v;
        L::template split<kT>(finish<kOut>(x), finish<kOut>(y), u, v);
        st(p, u);
        st(p + kLanes, v);
      }
    });
  }

  /// Two stages per pass (radix 4, as the scalar kernel's pairs): forward m and 2m with the
  /// second half-size h = n/4m ≥ kLanes; inverse m and m/2 with the first half-size t = n/2m ≥
  /// kLanes. Reads the words of from (or w), writes w, centred: two stages from centred inputs
  /// stay below 4q (forward) or 2q + 4 (inverse). A pair never ends a transform, whose last stage
  /// has half-size 1 or 2 < kLanes.
  void pair(bool forward, const u64* from, double* w, std::size_t m) const {
    const auto go = [&]<bool kF>() {
      if (from != nullptr) {
        pair_with<kF, true>(from, w, m);
      } else {
        pair_with<kF, false>(nullptr, w, m);
      }
    };
    if (forward) {
      go.template operator()<true>();
    } else {
      go.template operator()<false>();
    }
  }

  template <bool kForward, bool kFromWords, bool kLift = false>
  void pair_with(const u64* from, double* w, std::size_t m, const Lift* lift = nullptr) const {
    const auto ld = [&](std::size_t i) __attribute__((always_inline)) {
      if constexpr (kLift) {
        return lifted(from + i, *lift);
      } else if constexpr (kFromWords) {
        return L::from_words(from + i);
      } else {
        return L::load(w + i);
      }
    };
    const auto st = [&](std::size_t i, D x) __attribute__((always_inline)) {
      L::store(w + i, ar_.centre(x));
    };
    if constexpr (kForward) {
      const std::size_t t1 = n_ / (2 * m);
      const std::size_t h = t1 / 2;
      for (std::size_t i = 0; i < m; ++i) {
        const VTwD w1 = broadcast(fwd_[m + i]);
        const VTwD w2 = broadcast(fwd_[2 * m + 2 * i]);
        const VTwD w3 = broadcast(fwd_[2 * m + 2 * i + 1]);
        const std::size_t p = 2 * i * t1;
        for (std::size_t j = 0; j < h; j += kLanes) {
          D x0 = ld(p + j), x1 = ld(p + j + h), x2 = ld(p + j + t1), x3 = ld(p + j + t1 + h);
          ar_.ct(x0, x2, w1);
          ar_.ct(x1, x3, w1);
          ar_.ct(x0, x1, w2);
          ar_.ct(x2, x3, w3);
          st(p + j, x0);
          st(p + j + h, x1);
          st(p + j + t1, x2);
          st(p + j + t1 + h, x3);
        }
      }
    } else {
      const std::size_t t = n_ / (2 * m);
      for (std::size_t k = 0; k < m / 2; ++k) {
        const VTwD wa = broadcast(inv_[m + 2 * k]);
        const VTwD wb = broadcast(inv_[m + 2 * k + 1]);
        const VTwD wc = broadcast(inv_[m / 2 + k]);
        const std::size_t p = 4 * k * t;
        for (std::size_t j = 0; j < t; j += kLanes) {
          D x0 = ld(p + j), x1 = ld(p + j + t), x2 = ld(p + j + 2 * t), x3 = ld(p + j + 3 * t);
          ar_.gs(x0, x1, wa);
          ar_.gs(x2, x3, wb);
          ar_.gs(x0, x2, wc);
          ar_.gs(x1, x3, wc);
          st(p + j, x0);
          st(p + j + t, x1);
          st(p + j + 2 * t, x2);
          st(p + j + 3 * t, x3);
        }
      }
    }
  }

  /// Stages m = 1, …, < m_end: a (words in [0, q)) → w → … → a (words in [0, q)). Pairs
  /// first (each ends centred), then single stages (the regrouped ones), centred every second.
  void forward_stages(u64* a, std::size_t m_end) const {
    double* w = work();
    std::size_t m = 1;
    for (; 4 * m <= m_end && n_ / (4 * m) >= kLanes; m *= 4) {
      pair(true, m == 1 ? a : nullptr, w, m);
    }
    for (int index = 0; m < m_end; m <<= 1, ++index) {
      const bool last = 2 * m == m_end;
      const FmaOut out =
          last ? FmaOut::canonical : (index % 2 == 1 ? FmaOut::centre : FmaOut::keep);
      stage(true, m == 1 ? a : nullptr, w, last ? a : nullptr, m, out);
    }
  }

  /// GS stages m = m_first, …, 2 — the regrouped ones (half-size below kLanes) alone and
  /// centred, pairs while the pair's first half-size is ≥ kLanes, a last single one for m = 2 —
  /// then the last stage (m = 1) with the scale: (u + v)·s, (u − v)·s·ψ^−br(1), brought to
  /// [0, q).
  void inverse_stages(u64* a, std::size_t m_first, const LastStageScale& scale) const {
    if (m_first == 0) return;
    double* w = work();
    bool in_words = true;
    std::size_t m = m_first;
    for (; m >= 2 && n_ / (2 * m) < kLanes; m >>= 1) {
      stage(false, in_words ? a : nullptr, w, nullptr, m, FmaOut::centre);
      in_words = false;
    }
    for (; m >= 4; m >>= 2) {
      pair(false, in_words ? a : nullptr, w, m);
      in_words = false;
    }
    if (m == 2) {
      stage(false, in_words ? a : nullptr, w, nullptr, m, FmaOut::keep);
      in_words = false;
    }
    const std::size_t half = n_ / 2;
    const VTwD s_sum = broadcast(scale.sum);
    const VTwD s_diff = broadcast(scale.diff);
    for (std::size_t j = 0; j < half; j += kLanes) {
      const D u = in_words ? L::from_words(a + j) : L::load(w + j);
      const D v = in_words ? L::from_words(a + j + half) : L::load(w + j + half);
      L::to_words(a + j, ar_.canonical(ar_.mul(L::add(u, v), s_sum)));
      L::to_words(a + j + half, ar_.canonical(ar_.mul(L::sub(u, v), s_diff)));
    }
  }

  Arith ar_;
  std::vector<TwD> fwd_, inv_;  // n/kLanes of each (the constructor's comment)
  std::array<std::vector<LaneTwD>, std::countr_zero(kLanes)> fwd_lanes_, inv_lanes_;
  LastStageScale scale_whole_{}, scale_truncated_{};
};

}  // namespace
}  // namespace polyhe::cpu
