// The IFMA52 kernel of cpu/convert_kernel.hpp: Σ_i x_i·w_i mod c on eight coefficients at a time,
// as lazy lo/hi sums and one folding reduction per word (fold52.hpp).
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

}  // namespace

WeightedSumKernel ifma_weighted_sum_kernel() {
  return &weighted_sum;
}

}  // namespace polyhe::cpu
