// The IFMA52 kernel of cpu/convert_kernel.hpp: Σ_i x_i·w_i mod c on eight coefficients at a time,
// as lazy lo/hi sums and one folding reduction per word (fold52.hpp).
#include "fold52.hpp"

namespace polyhe::cpu {

namespace {

void weighted_sum(const u64* const* x, std::size_t terms, const u64* w, u64* out, std::size_t n,
                  const WeightedSumModulus& m) {
  const Fold fold(m);
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
    _mm512_storeu_si512(out + k, fold(lo0, hi0));
    _mm512_storeu_si512(out + k + 8, fold(lo1, hi1));
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

}  // namespace

WeightedSumKernel ifma_weighted_sum_kernel() {
  return &weighted_sum;
}

}  // namespace polyhe::cpu
