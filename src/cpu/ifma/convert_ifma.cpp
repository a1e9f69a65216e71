// The IFMA52 kernels of cpu/convert_kernel.hpp: Σ_i x_i·w_i mod c on eight coefficients at a time,
// for c < 2^50 as lazy lo/hi sums and one folding reduction per word (fold52.hpp), and for odd
// c < 2^62 as lazy sums of 52-bit digits and one Montgomery reduction per word.
#include "fold52.hpp"

namespace polyhe::cpu {

namespace {

void weighted_sum(const u64* const* x, std::size_t terms, const u64* w, u64* out, std::size_t n,
                  const WeightedSumModulus& m) {
  const Fold fold(m);
  std::size_t k = 0;
  // 32 coefficients a step: eight independent sums, as many as hide IFMA's latency of four
  // cycles at two products a cycle (sixteen coefficients, four sums, ran at half that rate).
  for (; k + 32 <= n; k += 32) {
    V lo[4], hi[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) lo[v] = hi[v] = _mm512_setzero_si512();
    for (std::size_t i = 0; i < terms; ++i) {
      const V wi = set1(w[i]);
      const u64* xi = x[i] + k;
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const V xv = _mm512_loadu_si512(xi + 8 * v);
        lo[v] = _mm512_madd52lo_epu64(lo[v], xv, wi);
        hi[v] = _mm512_madd52hi_epu64(hi[v], xv, wi);
      }
    }
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(out + k + 8 * v, fold(lo[v], hi[v]));
  }
  for (; k < n; k += 8) {
    const __mmask8 km = k + 8 <= n ? static_cast<__mmask8>(0xFF) : tail_mask(n - k);
    V lo = _mm512_setzero_si512(), hi = lo;
    for (std::size_t i = 0; i < terms; ++i) {
      const V xi = _mm512_maskz_loadu_epi64(km, x[i] + k);
      const V wi = set1(w[i]);
      lo = _mm512_madd52lo_epu64(lo, xi, wi);
      hi = _mm512_madd52hi_epu64(hi, xi, wi);
    }
    _mm512_mask_storeu_epi64(out + k, km, fold(lo, hi));
  }
}

/// S·2^−104 mod c for S = l + m·2^52 + h·2^104 (lanes of 64 bits), odd c < 2^62 and S < 2^104·c:
/// Montgomery's reduction one 52-bit digit at a time. With d0 = S mod 2^52 and
/// m0 = d0·(−c^−1) mod 2^52, S + m0·c is a multiple of 2^52; so is T + m1·c for T = (S + m0·c)/2^52
/// and m1 from T's low digit; (T + m1·c)/2^52 ≡ S·2^−104 and lies below S/2^104 + c < 2c. The
/// low digit of d + lo52(m·c0) is 0, so its carry is 1 exactly when d ≠ 0 (a mask, no product).
/// With c = c1·2^52 + c0 (c1 < 2^10), the products m·c1 < 2^62 are whole 64-bit products.
class Redc104 {
 public:
  explicit Redc104(const WeightedSumWideModulus& m)
      : c_(set1(m.c)),
        c0_(set1(m.c & kMask52)),
        c1_(set1(m.c >> 52)),
        cinv_(set1(m.cinv52)),
        mask_(set1(kMask52)),
        one_(set1(1)) {}

  /// For m + ⌊l/2^52⌋ < 2^64 and h < 2^40 (every lane below then holds its exact sum) and
  /// S < 2^104·c; the output is in [0, c).
  [[nodiscard]] V operator()(V l, V m, V h) const {
    const __m128i s52 = shift_count(52);
    const V zero = _mm512_setzero_si512();
    // Carry l's and m's high parts up: S = d0 + d1·2^52 + hh·2^104, d0 = l mod 2^52.
    const V mm = _mm512_add_epi64(m, _mm512_srl_epi64(l, s52));
    const V d1 = _mm512_and_si512(mm, mask_);
    const V hh = _mm512_add_epi64(h, _mm512_srl_epi64(mm, s52));
    // Step 1 (IFMA reads only the low 52 bits of l, i.e. d0): T = t + hh·2^52 with
    // t = [d0 ≠ 0] + d1 + hi52(m0·c0) + m0·c1 < 2^63.
    const V m0 = _mm512_madd52lo_epu64(zero, l, cinv_);
    const __mmask8 k0 = _mm512_test_epi64_mask(l, mask_);
    V t = _mm512_madd52hi_epu64(d1, m0, c0_);
    t = _mm512_add_epi64(t, _mm512_mullo_epi64(m0, c1_));
    t = _mm512_mask_add_epi64(t, k0, t, one_);
    // Step 2 on t's low digit: r = [t mod 2^52 ≠ 0] + ⌊t/2^52⌋ + hh + hi52(m1·c0) + m1·c1 < 2c.
    const V m1 = _mm512_madd52lo_epu64(zero, t, cinv_);
    const __mmask8 k1 = _mm512_test_epi64_mask(t, mask_);
    V r = _mm512_add_epi64(hh, _mm512_srl_epi64(t, s52));
    r = _mm512_add_epi64(r, _mm512_mullo_epi64(m1, c1_));
    r = _mm512_madd52hi_epu64(r, m1, c0_);
    r = _mm512_mask_add_epi64(r, k1, r, one_);
    return reduce_once(r, c_);
  }

 private:
  V c_, c0_, c1_, cinv_, mask_, one_;
};

/// One term's seven digit products into the lazy sums: x = x1·2^52 + x0 (x1 < 2^12; IFMA reads
/// x's low 52 bits as x0), w' = w1·2^52 + w0 (w1 < 2^10). Weight 1: lo(x0·w0); weight 2^52:
/// hi(x0·w0), lo(x0·w1), lo(x1·w0); weight 2^104: hi(x0·w1), hi(x1·w0), lo(x1·w1) (each hi below
/// 2^12, x1·w1 below 2^22). After 1024 terms l < 2^62, m < 3·2^62 and h < 2^34: what Redc104 takes.
inline void accumulate_wide(V x, V w0, V w1, V& l, V& m, V& h) {
  const V x1 = _mm512_srli_epi64(x, 52);
  l = _mm512_madd52lo_epu64(l, x, w0);
  m = _mm512_madd52hi_epu64(m, x, w0);
  m = _mm512_madd52lo_epu64(m, x, w1);
  m = _mm512_madd52lo_epu64(m, x1, w0);
  h = _mm512_madd52hi_epu64(h, x, w1);
  h = _mm512_madd52hi_epu64(h, x1, w0);
  h = _mm512_madd52lo_epu64(h, x1, w1);
}

void weighted_sum_wide(const u64* const* x, std::size_t terms, const u64* w, u64* out,
                       std::size_t n, const WeightedSumWideModulus& m) {
  const Redc104 redc(m);
  std::size_t k = 0;
  for (; k + 32 <= n; k += 32) {
    V l[4], mid[4], h[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) l[v] = mid[v] = h[v] = _mm512_setzero_si512();
    for (std::size_t i = 0; i < terms; ++i) {
      const V w0 = set1(w[i] & kMask52);
      const V w1 = set1(w[i] >> 52);
      const u64* xi = x[i] + k;
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        accumulate_wide(_mm512_loadu_si512(xi + 8 * v), w0, w1, l[v], mid[v], h[v]);
      }
    }
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(out + k + 8 * v, redc(l[v], mid[v], h[v]));
  }
  for (; k < n; k += 8) {
    const __mmask8 km = k + 8 <= n ? static_cast<__mmask8>(0xFF) : tail_mask(n - k);
    V l = _mm512_setzero_si512(), mid = l, h = l;
    for (std::size_t i = 0; i < terms; ++i) {
      accumulate_wide(_mm512_maskz_loadu_epi64(km, x[i] + k), set1(w[i] & kMask52),
                      set1(w[i] >> 52), l, mid, h);
    }
    _mm512_mask_storeu_epi64(out + k, km, redc(l, mid, h));
  }
}

}  // namespace

WeightedSumKernel ifma_weighted_sum_kernel() {
  return &weighted_sum;
}

WeightedSumWideKernel ifma_weighted_sum_wide_kernel() {
  return &weighted_sum_wide;
}

}  // namespace polyhe::cpu
