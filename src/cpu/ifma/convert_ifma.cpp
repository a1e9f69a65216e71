// The IFMA52 kernel of cpu/convert_kernel.hpp: Σ_i x_i·w_i mod c on eight coefficients at a time.
// Each product x·w < 2^52·2^50 splits into lo52 (< 2^52) and hi52 (< 2^50), accumulated in
// separate 64-bit lanes: after at most 2^11 terms lo < 2^63 and hi < 2^61. The total is
// H·2^52 + L with H = hi + ⌊lo/2^52⌋ < 2^62 and L = lo mod 2^52, i.e. H1·2^104 + H0·2^52 + L
// with H1 = ⌊H/2^52⌋ < 2^10, H0 = H mod 2^52: three Shoup products by constants (each operand
// < 2^52, each result in [0, 2c)), reduced and summed mod c.
#include "../avx512/lanes.hpp"
#include "polyhe/cpu/convert_kernel.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;
constexpr u64 kMask52 = (u64{1} << 52) - 1;

/// a·w mod c up to one c, for a < 2^52, w < c < 2^50, w' = ⌊w·2^52/c⌋: quot = hi52(a·w') is
/// within 2 of a·w/c, so a·w − quot·c ∈ [0, 2c), computed mod 2^52.
inline V shoup52(V a, V w, V w_shoup, V neg_c, V mask) {
  const V zero = _mm512_setzero_si512();
  const V quot = _mm512_madd52hi_epu64(zero, a, w_shoup);
  return _mm512_and_si512(_mm512_madd52lo_epu64(_mm512_madd52lo_epu64(zero, a, w), quot, neg_c),
                          mask);
}

/// The folding reduction of the lo/hi sums (file comment) with the constants of m.
class Fold {
 public:
  explicit Fold(const WeightedSumModulus& m)
      : vc_(set1(m.c)),
        neg_c_(set1((u64{1} << 52) - m.c)),
        mask_(set1(kMask52)),
        one_(set1(1)),
        one_s_(set1(m.one_shoup52)),
        r52_(set1(m.r52)),
        r52_s_(set1(m.r52_shoup52)),
        r104_(set1(m.r104)),
        r104_s_(set1(m.r104_shoup52)) {}

  [[nodiscard]] V operator()(V lo, V hi) const {
    const __m128i s52 = shift_count(52);
    const V h = _mm512_add_epi64(hi, _mm512_srl_epi64(lo, s52));
    const V l = _mm512_and_si512(lo, mask_);
    const V h1 = _mm512_srl_epi64(h, s52);
    const V h0 = _mm512_and_si512(h, mask_);
    const V a = reduce_once(shoup52(h1, r104_, r104_s_, neg_c_, mask_), vc_);
    const V b = reduce_once(shoup52(h0, r52_, r52_s_, neg_c_, mask_), vc_);
    const V d = reduce_once(shoup52(l, one_, one_s_, neg_c_, mask_), vc_);
    return reduce_once(_mm512_add_epi64(reduce_once(_mm512_add_epi64(a, b), vc_), d), vc_);
  }

 private:
  V vc_, neg_c_, mask_, one_, one_s_, r52_, r52_s_, r104_, r104_s_;
};

void inner_products(const u64* const* a, std::size_t terms, const u64* const* b, u64* const* c,
                    std::size_t outputs, std::size_t n, const WeightedSumModulus& m) {
  const Fold fold(m);
  const u64* const* b1 = b + terms;
  std::size_t k = 0;
  if (outputs == 2) {
    for (; k < n; k += 8) {
      const __mmask8 km = k + 8 <= n ? static_cast<__mmask8>(0xFF) : tail_mask(n - k);
      V lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
      for (std::size_t i = 0; i < terms; ++i) {
        const V x = _mm512_maskz_loadu_epi64(km, a[i] + k);
        const V y0 = _mm512_maskz_loadu_epi64(km, b[i] + k);
        const V y1 = _mm512_maskz_loadu_epi64(km, b1[i] + k);
        lo0 = _mm512_madd52lo_epu64(lo0, x, y0);
        hi0 = _mm512_madd52hi_epu64(hi0, x, y0);
        lo1 = _mm512_madd52lo_epu64(lo1, x, y1);
        hi1 = _mm512_madd52hi_epu64(hi1, x, y1);
      }
      _mm512_mask_storeu_epi64(c[0] + k, km, fold(lo0, hi0));
      _mm512_mask_storeu_epi64(c[1] + k, km, fold(lo1, hi1));
    }
    return;
  }
  for (; k < n; k += 8) {
    const __mmask8 km = k + 8 <= n ? static_cast<__mmask8>(0xFF) : tail_mask(n - k);
    V lo = _mm512_setzero_si512(), hi = lo;
    for (std::size_t i = 0; i < terms; ++i) {
      const V x = _mm512_maskz_loadu_epi64(km, a[i] + k);
      const V y = _mm512_maskz_loadu_epi64(km, b[i] + k);
      lo = _mm512_madd52lo_epu64(lo, x, y);
      hi = _mm512_madd52hi_epu64(hi, x, y);
    }
    _mm512_mask_storeu_epi64(c[0] + k, km, fold(lo, hi));
  }
}

void weighted_sum(const u64* const* x, std::size_t terms, const u64* w, u64* out, std::size_t n,
                  const WeightedSumModulus& m) {
  const V vc = set1(m.c);
  const V neg_c = set1((u64{1} << 52) - m.c);
  const V mask = set1(kMask52);
  const V one = set1(1);
  const V one_s = set1(m.one_shoup52);
  const V r52 = set1(m.r52), r52_s = set1(m.r52_shoup52);
  const V r104 = set1(m.r104), r104_s = set1(m.r104_shoup52);
  const __m128i s52 = shift_count(52);
  const auto lane = [&](V lo, V hi) {
    const V h = _mm512_add_epi64(hi, _mm512_srl_epi64(lo, s52));
    const V l = _mm512_and_si512(lo, mask);
    const V h1 = _mm512_srl_epi64(h, s52);
    const V h0 = _mm512_and_si512(h, mask);
    const V a = reduce_once(shoup52(h1, r104, r104_s, neg_c, mask), vc);
    const V b = reduce_once(shoup52(h0, r52, r52_s, neg_c, mask), vc);
    const V d = reduce_once(shoup52(l, one, one_s, neg_c, mask), vc);
    return reduce_once(_mm512_add_epi64(reduce_once(_mm512_add_epi64(a, b), vc), d), vc);
  };
  std::size_t k = 0;
  for (; k + 16 <= n; k += 16) {
    V lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
    for (std::size_t i = 0; i < terms; ++i) {
      const V wi = set1(w[i]);
      const V x0 = _mm512_loadu_si512(x[i] + k);
      const V x1 = _mm512_loadu_si512(x[i] + k + 8);
      lo0 = _mm512_madd52lo_epu64(lo0, x0, wi);
      hi0 = _mm512_madd52hi_epu64(hi0, x0, wi);
      lo1 = _mm512_madd52lo_epu64(lo1, x1, wi);
      hi1 = _mm512_madd52hi_epu64(hi1, x1, wi);
    }
    _mm512_storeu_si512(out + k, lane(lo0, hi0));
    _mm512_storeu_si512(out + k + 8, lane(lo1, hi1));
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
    _mm512_mask_storeu_epi64(out + k, km, lane(lo, hi));
  }
}

}  // namespace

WeightedSumKernel ifma_weighted_sum_kernel() {
  return &weighted_sum;
}

InnerProductsKernel ifma_inner_products_kernel() {
  return &inner_products;
}

}  // namespace polyhe::cpu
