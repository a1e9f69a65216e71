// The AVX-512 kernels of cpu/convert_kernel.hpp's double-precision roundings of HPS:
// fraction_round (the exact base conversion's v = round(Σ_i t_i/q_i)) and scale_round_parts (the
// scale-and-round's exact and rounded parts), eight coefficients at a time, the scalar loops'
// arithmetic step for step (the masked tail included). Compiled with the AVX-512 F/DQ/VL/BW flags
// (this file only), called only where cpu_path() allows it (the avx512 and ifma paths).
#include "cpu/convert_kernel.hpp"
#include "lanes.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;
using D = __m512d;

/// x·y rounded once: the empty asm hides the product from the compiler, which would otherwise
/// fuse it with the following addition (one rounding fewer than the scalar loop's).
[[gnu::always_inline]] inline D product(D x, D y) {
  D p = _mm512_mul_pd(x, y);
  __asm__("" : "+v"(p));
  return p;
}

void fraction_round(const u64* const* t, std::size_t terms, const double* inv, u64 cap, double* s,
                    u64* v, std::size_t n) {
  const V vcap = set1(cap);
  for (std::size_t k = 0; k < n; k += 8) {
    const auto m = static_cast<__mmask8>(k + 8 <= n ? 0xFF : (1U << (n - k)) - 1);
    D sum = _mm512_setzero_pd();
    for (std::size_t i = 0; i < terms; ++i) {
      // The nearest double to each word (t < 2^63: as the scalar signed conversion).
      const D x = _mm512_cvtepu64_pd(_mm512_maskz_loadu_epi64(m, t[i] + k));
      sum = _mm512_add_pd(sum, product(x, _mm512_set1_pd(inv[i])));
    }
    _mm512_mask_storeu_pd(s + k, m, sum);
    // ⌊s + 1/2⌋ (s ≥ 0, s + 1/2 rounded once as the scalar code's).
    const D r = _mm512_roundscale_pd(_mm512_add_pd(sum, _mm512_set1_pd(0.5)),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    _mm512_mask_storeu_epi64(v + k, m, _mm512_min_epu64(_mm512_cvttpd_epu64(r), vcap));
  }
}

void scale_round_parts(const u64* const* x, std::size_t terms, const u64* mu, const double* rho,
                       const double* lambda, double* g, u64* lo, u64* hi, std::size_t n) {
  const V low31 = set1((u64{1} << 31) - 1);
  const V low32 = set1(0xFFFFFFFFULL);
  for (std::size_t k = 0; k < n; k += 8) {
    const auto m = static_cast<__mmask8>(k + 8 <= n ? 0xFF : (1U << (n - k)) - 1);
    D sum = _mm512_setzero_pd();
    V sum_lo = _mm512_setzero_si512();
    V sum_hi = _mm512_setzero_si512();
    for (std::size_t i = 0; i < terms; ++i) {
      const V xi = _mm512_maskz_loadu_epi64(m, x[i] + k);
      const V a = _mm512_srli_epi64(xi, 31);
      const V b = _mm512_and_si512(xi, low31);
      const V am = _mm512_mul_epu32(a, set1(mu[i]));  // a·μ < 2^62, exact
      sum_lo = _mm512_add_epi64(sum_lo, _mm512_and_si512(am, low32));
      sum_hi = _mm512_add_epi64(sum_hi, _mm512_srli_epi64(am, 32));
      sum = _mm512_add_pd(sum, product(_mm512_cvtepu64_pd(a), _mm512_set1_pd(rho[i])));
      sum = _mm512_add_pd(sum, product(_mm512_cvtepu64_pd(b), _mm512_set1_pd(lambda[i])));
    }
    _mm512_mask_storeu_pd(g + k, m, sum);
    // ⌊g + 1/2⌋ (g ≥ 0, g + 1/2 rounded once as the scalar code's).
    const D r = _mm512_roundscale_pd(_mm512_add_pd(sum, _mm512_set1_pd(0.5)),
                                     _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    _mm512_mask_storeu_epi64(lo + k, m, _mm512_add_epi64(sum_lo, _mm512_cvttpd_epu64(r)));
    _mm512_mask_storeu_epi64(hi + k, m, sum_hi);
  }
}

}  // namespace

FractionRoundKernel avx512_fraction_round_kernel() {
  return &fraction_round;
}

ScaleRoundPartsKernel avx512_scale_round_parts_kernel() {
  return &scale_round_parts;
}

}  // namespace polyhe::cpu
