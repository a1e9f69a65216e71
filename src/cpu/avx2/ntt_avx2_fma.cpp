// The default transform on AVX2 for q < 2^50 in double-precision arithmetic: four lanes of
// doubles holding integers, every product exact by FMA. Compiled with -mavx2 -mfma (this file
// only) and chosen by make_avx2_ntt_kernel for q < 2^50.
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
// and nine shifts and adds in the integer kernel (ntt_avx2.cpp). With ω in [0, q) the quotient
// could reach 2^52 and needed vroundpd, two µops on the multiply ports of Intel's cores, and |r|
// was bounded by 1.5q only.
//
// Ranges: values are signed integers. A CT butterfly adds less than q to |x|; starting from
// |x| ≤ q, two stages give 3q < 2^52 (q < 2^50), so every second stage ends with a centred
// reduction x − round(x/q)·q (|·| ≤ q/2 + 1). GS: x + y doubles the bound, (x − y)·ω is a
// product; the sums are reduced every second stage as well. Inputs [0, q) are converted exactly
// (2^52 trick), outputs reduced to [0, q) and converted back: every word equals the scalar
// kernel's. hadamard is the AVX2 element-wise multiply (its FMA form for q < 2^50), and the
// fused product's middle step is avx2_fused_hadamard on the same products.
#include <immintrin.h>

#include <memory>
#include <vector>

#include "cpu/elementwise_kernel.hpp"
#include "cpu/ntt_kernel.hpp"
#include "lanes.hpp"
#include "ntt_tables.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/wipe.hpp"

namespace polyhe::cpu {

/// The kernel for q < 2^50 and n ≥ 16 (make_avx2_ntt_kernel chooses it).
std::unique_ptr<NttKernel64> make_avx2_fma_ntt_kernel(const NttTables64& t);

namespace {

using u64 = std::uint64_t;
using D = __m256d;
using avx2::round_small;

constexpr double kTwo52 = 4503599627370496.0;  // 2^52

/// A twiddle as doubles: ω centred (exact, |ω| < q/2) and fl(ω/q).
struct TwD {
  double w, wq;
};
struct alignas(32) LaneTwD {
  double w[4], wq[4];
};
struct VTwD {
  D w, wq;
};

[[gnu::always_inline]] inline VTwD broadcast(const TwD& t) {
  return {_mm256_broadcast_sd(&t.w), _mm256_broadcast_sd(&t.wq)};
}
[[gnu::always_inline]] inline VTwD lanes(const LaneTwD& t) {
  return {_mm256_load_pd(t.w), _mm256_load_pd(t.wq)};
}

/// Words in [0, 2^52) ↔ doubles, exactly: the bit pattern of 2^52 + x is 0x4330… | x.
[[gnu::always_inline]] inline D to_double(const u64* p) {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, magic)), _mm256_set1_pd(kTwo52));
}
[[gnu::always_inline]] inline void from_double(u64* p, D x) {  // x an integer in [0, 2^52)
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
  const __m256i bits = _mm256_castpd_si256(_mm256_add_pd(x, _mm256_set1_pd(kTwo52)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_sub_epi64(bits, magic));
}

struct FmaArith {
  D q, q_inv, zero;

  explicit FmaArith(u64 modulus)
      : q(_mm256_set1_pd(static_cast<double>(modulus))),
        q_inv(_mm256_set1_pd(1.0 / static_cast<double>(modulus))),
        zero(_mm256_setzero_pd()) {}

  /// y·ω mod q as a signed integer in (−q, q), for |y| < 2^52 and a centred twiddle (file
  /// comment).
  [[gnu::always_inline]] D mul(D y, const VTwD& t) const {
    const D h = _mm256_mul_pd(y, t.w);
    const D l = _mm256_fmsub_pd(y, t.w, h);
    const D quot = round_small(_mm256_mul_pd(y, t.wq));
    return _mm256_add_pd(_mm256_fnmadd_pd(quot, q, h), l);
  }
  /// x − round(x/q)·q: |result| ≤ q/2 + 1 for |x| < 2^52 (the quotient estimate is within 1/2 +
  /// |x|·2^−52 of x/q, and the FMA is exact as in mul). |x/q| < 2^52/q < 2^51: round_small.
  [[gnu::always_inline]] D centre(D x) const {
    return _mm256_fnmadd_pd(round_small(_mm256_mul_pd(x, q_inv)), q, x);
  }
  /// A centred value (|x| ≤ q/2 + 1, or any |x| < 2^52 first centred) to [0, q).
  [[gnu::always_inline]] D canonical(D x) const {
    x = centre(x);
    x = _mm256_add_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_LT_OQ), q));
    return _mm256_sub_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, q, _CMP_GE_OQ), q));
  }
  [[gnu::always_inline]] void ct(D& x, D& y, const VTwD& t) const {
    const D r = mul(y, t);
    y = _mm256_sub_pd(x, r);
    x = _mm256_add_pd(x, r);
  }
  [[gnu::always_inline]] void gs(D& x, D& y, const VTwD& t) const {
    const D d = _mm256_sub_pd(x, y);
    x = _mm256_add_pd(x, y);
    y = mul(d, t);
  }
};

/// The integer kernel's regroupings on doubles (ntt_avx2.cpp): half-size 2 and 1.
[[gnu::always_inline]] inline void split2(D a, D b, D& x, D& y) {
  x = _mm256_permute2f128_pd(a, b, 0x20);
  y = _mm256_permute2f128_pd(a, b, 0x31);
}
[[gnu::always_inline]] inline void split1(D a, D b, D& x, D& y) {
  x = _mm256_unpacklo_pd(a, b);
  y = _mm256_unpackhi_pd(a, b);
}

/// What a stage does to its outputs: keep them, centre them (every second stage), or bring them
/// to [0, q) (the last stage run).
enum class Out { keep, centre, canonical };

class Avx2FmaNttKernel final : public NttKernel64 {
 public:
  explicit Avx2FmaNttKernel(const NttTables64& t)
      : n_(t.n),
        q_(t.q),
        alpha2_(avx2::fused_alpha2_lanes(t.n, t.q, t.fwd)),
        barrett_(Modulus<u64>(t.q).barrett_alg4()),
        ar_(t.q) {
    const double qd = static_cast<double>(q_);
    const auto tw = [this, qd](u64 w) {  // centred: ω or ω − q, |·| < q/2
      const double c = w > q_ / 2 ? -static_cast<double>(q_ - w) : static_cast<double>(w);
      return TwD{c, c / qd};
    };
    fwd_.resize(n_);
    inv_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      fwd_[i] = tw(t.fwd[i]);
      inv_[i] = tw(t.inv[i]);
    }
    avx2::regrouped_lane_tables(fwd_, fwd2_, fwd1_, set_lane);
    avx2::regrouped_lane_tables(inv_, inv2_, inv1_, set_lane);
    const avx2::LastStageScales s = avx2::last_stage_scales(n_, q_, t.inv[1]);
    scale_whole_ = {tw(s.whole), tw(s.whole_diff)};
    scale_truncated_ = {tw(s.truncated), tw(s.truncated_diff)};
  }

  [[nodiscard]] CpuPath path() const override { return CpuPath::avx2; }

  void forward(u64* a) const override { forward_stages(a, n_); }
  void inverse(u64* a) const override { inverse_stages(a, n_ / 2, scale_whole_); }
  void hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_elementwise_kernels()->multiply(a, b, c, n_, barrett_);
  }
  void forward_truncated(u64* a) const override { forward_stages(a, n_ / 2); }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_fused_hadamard(a, b, alpha2_.data(), c, n_, barrett_);
  }
  void inverse_truncated(u64* a) const override { inverse_stages(a, n_ / 4, scale_truncated_); }

  /// The lift in the first pass (a pair, m = 1) for p < 2^52, where the words convert exactly;
  /// and, for forward_lifted, (c − y)·s in the last (a single stage, m = n/2), as the transform's
  /// canonical outputs are stored.
  bool forward_from_lifted(const u64* x, u64 p, u64* out) const override {
    if (p >= (u64{1} << 52)) return false;
    forward_lifted_stages(x, lift_of(p), out, nullptr);
    return true;
  }
  bool forward_lifted(const LiftedForward& f) const override {
    if (f.p >= (u64{1} << 52)) return false;
    const double qd = static_cast<double>(q_);
    const double s = f.s > q_ / 2 ? -static_cast<double>(q_ - f.s) : static_cast<double>(f.s);
    const SubScale sub{f.c, broadcast(TwD{s, s / qd})};
    forward_lifted_stages(f.x, lift_of(f.p), f.out, &sub);
    return true;
  }

 private:
  /// The centred lift of words below p (< 2^52) to q, as doubles: v − p where v > ⌊p/2⌋, else v
  /// (|·| ≤ p/2 < 2^51, exact), then centred by q (|·| ≤ q/2 + 1, the inputs' bound of the first
  /// pair).
  struct Lift {
    __m256i half;
    D p;
  };
  /// The epilogue of forward_lifted: out = (c − y)·s mod q for the canonical outputs y, with s
  /// centred as a twiddle (c − y in (−q, q), the product in (−q, q), then to [0, q)).
  struct SubScale {
    const u64* c;
    VTwD s;
  };

  static Lift lift_of(u64 p) {
    return {_mm256_set1_epi64x(static_cast<long long>(p / 2)),
            _mm256_set1_pd(static_cast<double>(p))};
  }

  [[gnu::always_inline]] D lifted(const u64* x, const Lift& l) const {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const D above = _mm256_castsi256_pd(_mm256_cmpgt_epi64(v, l.half));  // signed: v < 2^52
    return ar_.centre(_mm256_sub_pd(avx2::to_double(v), _mm256_and_pd(above, l.p)));
  }

  /// forward_stages for x (< p) read through the lift and the words stored to out (through the
  /// epilogue where sub is given): the same passes, the first pair's loads and the last stage's
  /// stores replaced.
  void forward_lifted_stages(const u64* x, const Lift& lift, u64* out, const SubScale* sub) const {
    double* w = work();
    pair_with<true, true, false, Out::centre, true>(x, w, nullptr, 1, &lift);
    std::size_t m = 4;
    for (; 4 * m <= n_ && n_ / (2 * m) >= 8; m *= 4) {
      pair(true, nullptr, w, nullptr, m, Out::centre);
    }
    for (int index = 0; 2 * m < n_; m <<= 1, ++index) {
      stage(true, nullptr, w, nullptr, m, index % 2 == 1 ? Out::centre : Out::keep);
    }
    if (sub != nullptr) {
      stage_with<true, false, true, Out::canonical, true>(nullptr, w, out, m, sub);
    } else {
      stage_with<true, false, true, Out::canonical>(nullptr, w, out, m);
    }
  }

  struct LastStageScale {
    TwD sum;   // 2^−stages
    TwD diff;  // 2^−stages · ψ^−br(1)
  };

  static void set_lane(LaneTwD& e, std::size_t l, const TwD& t) {
    e.w[l] = t.w;
    e.wq[l] = t.wq;
  }

  template <Out kOut>
  [[gnu::always_inline]] D finish(D x) const {
    if constexpr (kOut == Out::centre) return ar_.centre(x);
    if constexpr (kOut == Out::canonical) return ar_.canonical(x);
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
  /// words of a (kFromWords) or w, writing w or the words of a (kToWords, with Out::canonical);
  /// every choice a template argument, so that the inner loops carry no branch.
  void stage(bool forward, const u64* from, double* w, u64* to, std::size_t m, Out out) const {
    const auto go = [&]<bool kF, bool kFrom, bool kTo, Out kOut>() {
      stage_with<kF, kFrom, kTo, kOut>(from, w, to, m);
    };
    const auto by_out = [&]<bool kF, bool kFrom, bool kTo>() {
      if (out == Out::keep) {
        go.template operator()<kF, kFrom, kTo, Out::keep>();
      } else if (out == Out::centre) {
        go.template operator()<kF, kFrom, kTo, Out::centre>();
      } else {
        go.template operator()<kF, kFrom, kTo, Out::canonical>();
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

  template <bool kForward, bool kFromWords, bool kToWords, Out kOut, bool kSubScale = false>
  void stage_with(const u64* from, double* w, u64* to, std::size_t m,
                  const SubScale* sub = nullptr) const {
    const std::size_t t = n_ / (2 * m);
    const auto ld = [&](std::size_t i) __attribute__((always_inline)) {
      if constexpr (kFromWords) {
        return to_double(from + i);
      } else {
        return _mm256_loadu_pd(w + i);
      }
    };
    const auto st = [&](std::size_t i, D x) __attribute__((always_inline)) {
      if constexpr (kSubScale) {
        x = ar_.canonical(ar_.mul(_mm256_sub_pd(to_double(sub->c + i), x), sub->s));
      }
      if constexpr (kToWords) {
        from_double(to + i, x);
      } else {
        _mm256_storeu_pd(w + i, x);
      }
    };
    if (t >= 4) {
      const std::vector<TwD>& tab = kForward ? fwd_ : inv_;
      for (std::size_t i = 0; i < m; ++i) {
        const VTwD tw = broadcast(tab[m + i]);
        const std::size_t p = 2 * i * t;
        for (std::size_t j = 0; j < t; j += 4) {
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
    const std::vector<LaneTwD>& tab =
        t == 2 ? (kForward ? fwd2_ : inv2_) : (kForward ? fwd1_ : inv1_);
    for (std::size_t k = 0; k < n_ / 8; ++k) {
      const std::size_t p = 8 * k;
      D x, y;
      if (t == 2) {
        split2(ld(p), ld(p + 4), x, y);
      } else {
        split1(ld(p), ld(p + 4), x, y);
      }
      if constexpr (kForward) {
        ar_.ct(x, y, lanes(tab[k]));
      } else {
        ar_.gs(x, y, lanes(tab[k]));
      }
      x = finish<kOut>(x);
      y = finish<kOut>(y);
      D u, v;
      if (t == 2) {
        split2(x, y, u, v);
      } else {
        split1(x, y, u, v);
      }
      st(p, u);
      st(p + 4, v);
    }
  }

  /// Two stages per pass (radix 4, as the scalar kernel's pairs): forward m and 2m with the
  /// second half-size h = n/4m ≥ 4; inverse m and m/2 with the first half-size t = n/2m ≥ 4.
  /// The outputs are centred (or brought to [0, q)): two stages from centred inputs stay below
  /// 4q (forward) or 2q + 4 (inverse).
  void pair(bool forward, const u64* from, double* w, u64* to, std::size_t m, Out out) const {
    const auto go = [&]<bool kF, bool kFrom, bool kTo, Out kOut>() {
      pair_with<kF, kFrom, kTo, kOut>(from, w, to, m);
    };
    const auto by_io = [&]<bool kF, Out kOut>() {
      if (from != nullptr && to != nullptr) {
        go.template operator()<kF, true, true, kOut>();
      } else if (from != nullptr) {
        go.template operator()<kF, true, false, kOut>();
      } else if (to != nullptr) {
        go.template operator()<kF, false, true, kOut>();
      } else {
        go.template operator()<kF, false, false, kOut>();
      }
    };
    if (forward) {
      if (out == Out::canonical) {
        by_io.template operator()<true, Out::canonical>();
      } else {
        by_io.template operator()<true, Out::centre>();
      }
    } else {
      by_io.template operator()<false, Out::centre>();
    }
  }

  template <bool kForward, bool kFromWords, bool kToWords, Out kOut, bool kLift = false>
  void pair_with(const u64* from, double* w, u64* to, std::size_t m,
                 const Lift* lift = nullptr) const {
    const auto ld = [&](std::size_t i) __attribute__((always_inline)) {
      if constexpr (kLift) {
        return lifted(from + i, *lift);
      } else if constexpr (kFromWords) {
        return to_double(from + i);
      } else {
        return _mm256_loadu_pd(w + i);
      }
    };
    const auto st = [&](std::size_t i, D x) __attribute__((always_inline)) {
      x = finish<kOut>(x);
      if constexpr (kToWords) {
        from_double(to + i, x);
      } else {
        _mm256_storeu_pd(w + i, x);
      }
    };
    if constexpr (kForward) {
      const std::size_t t1 = n_ / (2 * m);
      const std::size_t h = t1 / 2;
      for (std::size_t i = 0; i < m; ++i) {
        const VTwD w1 = broadcast(fwd_[m + i]);
        const VTwD w2 = broadcast(fwd_[2 * m + 2 * i]);
        const VTwD w3 = broadcast(fwd_[2 * m + 2 * i + 1]);
        const std::size_t p = 2 * i * t1;
        for (std::size_t j = 0; j < h; j += 4) {
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
        for (std::size_t j = 0; j < t; j += 4) {
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
    for (; 4 * m <= m_end && n_ / (2 * m) >= 8; m *= 4) {
      const bool last = 4 * m == m_end;
      pair(true, m == 1 ? a : nullptr, w, last ? a : nullptr, m,
           last ? Out::canonical : Out::centre);
    }
    for (int index = 0; m < m_end; m <<= 1, ++index) {
      const bool last = 2 * m == m_end;
      const Out out = last ? Out::canonical : (index % 2 == 1 ? Out::centre : Out::keep);
      stage(true, m == 1 ? a : nullptr, w, last ? a : nullptr, m, out);
    }
  }

  /// GS stages m = m_first, …, 2 — the regrouped ones (half-size 1, 2) alone and centred, pairs
  /// while the pair's first half-size is ≥ 4, a last single one for m = 2 — then the last stage
  /// (m = 1) with the scale: (u + v)·s, (u − v)·s·ψ^−br(1), brought to [0, q).
  void inverse_stages(u64* a, std::size_t m_first, const LastStageScale& scale) const {
    if (m_first == 0) return;
    double* w = work();
    bool in_words = true;
    std::size_t m = m_first;
    for (; m >= 2 && n_ / (2 * m) < 4; m >>= 1) {
      stage(false, in_words ? a : nullptr, w, nullptr, m, Out::centre);
      in_words = false;
    }
    for (; m >= 4; m >>= 2) {
      pair(false, in_words ? a : nullptr, w, nullptr, m, Out::centre);
      in_words = false;
    }
    if (m == 2) {
      stage(false, in_words ? a : nullptr, w, nullptr, m, Out::keep);
      in_words = false;
    }
    const std::size_t half = n_ / 2;
    const VTwD s_sum = broadcast(scale.sum);
    const VTwD s_diff = broadcast(scale.diff);
    for (std::size_t j = 0; j < half; j += 4) {
      const D u = in_words ? to_double(a + j) : _mm256_loadu_pd(w + j);
      const D v = in_words ? to_double(a + j + half) : _mm256_loadu_pd(w + j + half);
      from_double(a + j, ar_.canonical(ar_.mul(_mm256_add_pd(u, v), s_sum)));
      from_double(a + j + half, ar_.canonical(ar_.mul(_mm256_sub_pd(u, v), s_diff)));
    }
  }

  std::size_t n_;
  u64 q_;
  std::vector<u64> alpha2_;   // the fused product's ±α² (avx2::fused_alpha2_lanes)
  BarrettAlg4<u64> barrett_;  // hadamard and the fused product, by the AVX2 multiply
  FmaArith ar_;
  std::vector<TwD> fwd_, inv_;
  std::vector<LaneTwD> fwd2_, inv2_, fwd1_, inv1_;
  LastStageScale scale_whole_{}, scale_truncated_{};
};

}  // namespace

std::unique_ptr<NttKernel64> make_avx2_fma_ntt_kernel(const NttTables64& t) {
  return std::make_unique<Avx2FmaNttKernel>(t);
}

}  // namespace polyhe::cpu
