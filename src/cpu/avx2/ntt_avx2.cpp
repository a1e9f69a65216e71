// The default transform on AVX2: four 64-bit lanes, Harvey's lazy butterflies with Shoup
// twiddles, the products built from 32×32 → 64 multiplies (AVX2 has neither a 64-bit low
// product nor an unsigned 64-bit compare). Compiled with -mavx2 (this file only) and run only
// when cpu_path() allows it.
//
// The arithmetic (shoup_arith.hpp): a Shoup product takes nine vpmuludq for four lanes and
// returns [0, 4q); kept lazy (c = 4q) for q < 2^61, else brought to [0, 2q), so the butterflies
// keep Harvey's ranges: CT [0, 2c) → [0, 2c), GS [0, c) → [0, c).
//
// Stages with half-size t ≥ 4 take four consecutive pairs per vector with one broadcast
// twiddle; the stages t = 2 and t = 1 regroup two vectors (128-bit halves, 64-bit unpacks) and
// take per-lane twiddles from tables built once. Every output is fully reduced, so the words
// equal the scalar kernel's. hadamard is the AVX2 element-wise multiply ([GPU-Polymul, Alg. 4] on
// four lanes), and the fused product's middle step is avx2_fused_hadamard on the same products.
#include <immintrin.h>

#include <bit>
#include <memory>
#include <vector>

#include "cpu/elementwise_kernel.hpp"
#include "cpu/ntt_kernel.hpp"
#include "ntt_tables.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "shoup_arith.hpp"

namespace polyhe::cpu {

// ntt_avx2_fma.cpp: the double-precision kernel for q < 2^50.
std::unique_ptr<NttKernel64> make_avx2_fma_ntt_kernel(const NttTables64& t);

namespace {

using avx2::broadcast;
using avx2::load;
using avx2::store;
using avx2::Tw4;
using avx2::u64;
using avx2::V;
using avx2::VTw;

/// A twiddle per lane (the regrouped stages).
struct alignas(32) LaneTw {
  u64 w[4], w_sw[4], s[4], s_hi[4];
};

[[gnu::always_inline]] inline VTw lanes(const LaneTw& t) {
  return {_mm256_load_si256(reinterpret_cast<const __m256i*>(t.w)),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(t.w_sw)),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(t.s)),
          _mm256_load_si256(reinterpret_cast<const __m256i*>(t.s_hi))};
}

Tw4 make_tw4(u64 w, u64 q) {
  const u64 s = make_shoup<u64>(w, q).w_shoup;
  return {w, avx2::swap_halves(w), s, s >> 32};
}

/// Two vectors (elements p … p + 7) regrouped for the stage of half-size 2: X = (a0 a1 b0 b1),
/// Y = (a2 a3 b2 b3); and back.
[[gnu::always_inline]] inline void split2(V a, V b, V& x, V& y) {
  x = _mm256_permute2x128_si256(a, b, 0x20);
  y = _mm256_permute2x128_si256(a, b, 0x31);
}
/// For half-size 1: X = (a0 b0 a2 b2), Y = (a1 b1 a3 b3); the inverse map is the same unpacks.
[[gnu::always_inline]] inline void split1(V a, V b, V& x, V& y) {
  x = _mm256_unpacklo_epi64(a, b);
  y = _mm256_unpackhi_epi64(a, b);
}

class Avx2NttKernel final : public NttKernel64 {
 public:
  explicit Avx2NttKernel(const NttTables64& t)
      : n_(t.n),
        q_(t.q),
        alpha2_(avx2::fused_alpha2_lanes(t.n, t.q, t.fwd)),
        barrett_(Modulus<u64>(t.q).barrett_alg4()) {
    fwd_.resize(n_);
    inv_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      fwd_[i] = {t.fwd[i], avx2::swap_halves(t.fwd[i]), t.fwd_shoup[i], t.fwd_shoup[i] >> 32};
      inv_[i] = make_tw4(t.inv[i], q_);
    }
    avx2::regrouped_lane_tables(fwd_, fwd2_, fwd1_, set_lane);
    avx2::regrouped_lane_tables(inv_, inv2_, inv1_, set_lane);
    const avx2::LastStageScales s = avx2::last_stage_scales(n_, q_, t.inv[1]);
    scale_whole_ = {make_tw4(s.whole, q_), make_tw4(s.whole_diff, q_)};
    scale_truncated_ = {make_tw4(s.truncated, q_), make_tw4(s.truncated_diff, q_)};
  }

  [[nodiscard]] CpuPath path() const override { return CpuPath::avx2; }

  void forward(u64* a) const override {
    dispatch([&](const auto& ar) { forward_stages(ar, a, n_); });
  }
  void inverse(u64* a) const override {
    dispatch([&](const auto& ar) { inverse_stages(ar, a, n_ / 2, scale_whole_); });
  }
  void hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_elementwise_kernels()->multiply(a, b, c, n_, barrett_);
  }
  void forward_truncated(u64* a) const override {
    dispatch([&](const auto& ar) { forward_stages(ar, a, n_ / 2); });
  }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_fused_hadamard(a, b, alpha2_.data(), c, n_, barrett_);
  }
  void inverse_truncated(u64* a) const override {
    dispatch([&](const auto& ar) { inverse_stages(ar, a, n_ / 4, scale_truncated_); });
  }

 private:
  struct LastStageScale {
    Tw4 sum;   // 2^−stages
    Tw4 diff;  // 2^−stages · ψ^−br(1)
  };

  static void set_lane(LaneTw& e, std::size_t l, const Tw4& t) {
    e.w[l] = t.w;
    e.w_sw[l] = t.w_sw;
    e.s[l] = t.s;
    e.s_hi[l] = t.s_hi;
  }

  template <class F>
  void dispatch(F&& f) const {
    avx2::with_arith(q_, f);
  }

  /// One stage m (half-size t = n/2m): CT butterflies (forward, [GPU-Polymul, Alg. 5]; with `last`
  /// the outputs brought from [0, 2c) to [0, q)) or GS ones (inverse, [GPU-Polymul, Alg. 6], no
  /// halving, values in [0, c)); four pairs per vector with one broadcast twiddle for t ≥ 4,
  /// regrouped vectors with lane tables for t = 2 and 1.
  template <bool kForward, class A>
  void stage(const A& ar, u64* a, std::size_t m, bool last) const {
    const std::size_t t = n_ / (2 * m);
    const auto butterfly = [&](V & x, V & y, const VTw& w) __attribute__((always_inline)) {
      if constexpr (kForward) {
        ar.ct(x, y, w);
        if (last) {
          x = ar.reduce_2c(x);
          y = ar.reduce_2c(y);
        }
      } else {
        ar.gs(x, y, w);
      }
    };
    if (t >= 4) {
      const std::vector<Tw4>& tab = kForward ? fwd_ : inv_;
      for (std::size_t i = 0; i < m; ++i) {
        const VTw w = broadcast(tab[m + i]);
        u64* p = a + 2 * i * t;
        for (std::size_t j = 0; j < t; j += 4) {
          V x = load(p + j);
          V y = load(p + j + t);
          butterfly(x, y, w);
          store(p + j, x);
          store(p + j + t, y);
        }
      }
      return;
    }
    const std::vector<LaneTw>& tab =
        t == 2 ? (kForward ? fwd2_ : inv2_) : (kForward ? fwd1_ : inv1_);
    for (std::size_t k = 0; k < n_ / 8; ++k) {
      u64* p = a + 8 * k;
      V x, y;
      if (t == 2) {
        split2(load(p), load(p + 4), x, y);
      } else {
        split1(load(p), load(p + 4), x, y);
      }
      butterfly(x, y, lanes(tab[k]));
      V u, v;
      if (t == 2) {
        split2(x, y, u, v);
      } else {
        split1(x, y, u, v);
      }
      store(p, u);
      store(p + 4, v);
    }
  }

  /// The stages m = 1, 2, …, < m_end: inputs in [0, q); the last stage run brings its outputs
  /// to [0, q).
  template <class A>
  void forward_stages(const A& ar, u64* a, std::size_t m_end) const {
    for (std::size_t m = 1; m < m_end; m <<= 1) stage<true>(ar, a, m, 2 * m == m_end);
  }

  /// The stages m = m_first, …, 2, then the last stage (m = 1) with the scale folded in:
  /// outputs in [0, q).
  template <class A>
  void inverse_stages(const A& ar, u64* a, std::size_t m_first, const LastStageScale& scale) const {
    if (m_first == 0) return;
    for (std::size_t m = m_first; m >= 2; m >>= 1) stage<false>(ar, a, m, false);
    const std::size_t half = n_ / 2;
    const VTw s_sum = broadcast(scale.sum);
    const VTw s_diff = broadcast(scale.diff);
    for (std::size_t j = 0; j < half; j += 4) {
      const V u = load(a + j);
      const V v = load(a + j + half);
      const V s = _mm256_add_epi64(u, v);
      const V d = _mm256_sub_epi64(_mm256_add_epi64(u, ar.c), v);
      store(a + j, ar.reduce4(ar.mul4(s, s_sum)));
      store(a + j + half, ar.reduce4(ar.mul4(d, s_diff)));
    }
  }

  std::size_t n_;
  u64 q_;
  std::vector<u64> alpha2_;     // the fused product's ±α² (avx2::fused_alpha2_lanes)
  BarrettAlg4<u64> barrett_;    // hadamard and the fused product, by the AVX2 multiply
  std::vector<Tw4> fwd_, inv_;  // ψ^±br(i), broadcast entries
  std::vector<LaneTw> fwd2_, inv2_, fwd1_, inv1_;
  LastStageScale scale_whole_{}, scale_truncated_{};
};

}  // namespace

std::unique_ptr<NttKernel64> make_avx2_ntt_kernel(const NttTables64& t) {
  // Sixteen points at least (the regrouped stages take two vectors); len(q) ≤ 62 as everywhere.
  if (t.n < 16) return nullptr;
  if (t.q < (u64{1} << 50)) return make_avx2_fma_ntt_kernel(t);
  return std::make_unique<Avx2NttKernel>(t);
}

}  // namespace polyhe::cpu
