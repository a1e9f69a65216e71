// The AVX2 kernels of cpu/convert_kernel.hpp's double-precision roundings of HPS: fraction_round
// (the exact base conversion's v = round(Σ_i t_i/q_i)) and scale_round_parts (the scale-and-round's
// exact and rounded parts), four coefficients at a time, the scalar loops' arithmetic step for
// step. Compiled with -mavx2 -mfma (this file only), called only where cpu_path() allows it.
#include "cpu/convert_kernel.hpp"
#include "lanes.hpp"

namespace polyhe::cpu {

namespace {

using avx2::load;
using avx2::set1;
using avx2::V;
using u64 = std::uint64_t;
using D = __m256d;

/// The nearest double to each word x < 2^63, as the scalar conversion gives: x = hi·2^32 + lo,
/// hi·2^32 − 2^52 and 2^52 + lo are exact doubles (the 2^84 and 2^52 exponent tricks), and their
/// sum is x rounded once.
[[gnu::always_inline]] inline D nearest_double(V x) {
  const D lo = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(x, set1(0xFFFFFFFFULL)),
                                                   set1(0x4330000000000000ULL)));  // 2^52 + lo
  const D hi = _mm256_castsi256_pd(
      _mm256_or_si256(_mm256_srli_epi64(x, 32), set1(0x4530000000000000ULL)));  // 2^84 + hi·2^32
  return _mm256_add_pd(_mm256_sub_pd(hi, _mm256_set1_pd(0x1p84 + 0x1p52)), lo);
}

/// x·y rounded once: the empty asm hides the product from the compiler, which would otherwise
/// fuse it with the following addition (one rounding fewer than the scalar loop's).
[[gnu::always_inline]] inline D product(D x, D y) {
  D p = _mm256_mul_pd(x, y);
  __asm__("" : "+x"(p));
  return p;
}

void fraction_round(const u64* const* t, std::size_t terms, const double* inv, u64 cap, double* s,
                    u64* v, std::size_t n) {
  // The counts are below 2^52, so a cap above 2^62 acts as 2^62: the signed compare then serves.
  const V vcap = set1(cap < (u64{1} << 62) ? cap : u64{1} << 62);
  std::size_t k = 0;
  for (; k + avx2::kLanes <= n; k += avx2::kLanes) {
    D sum = _mm256_setzero_pd();
    for (std::size_t i = 0; i < terms; ++i) {
      sum = _mm256_add_pd(sum, product(nearest_double(load(t[i] + k)), _mm256_set1_pd(inv[i])));
    }
    _mm256_storeu_pd(s + k, sum);
    // ⌊s + 1/2⌋ (s ≥ 0, s + 1/2 rounded once as the scalar code's), then to a word: below 2^52.
    const D r = _mm256_round_pd(_mm256_add_pd(sum, _mm256_set1_pd(0.5)),
                                _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const V w = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(r, _mm256_set1_pd(0x1p52))),
                                 set1(0x4330000000000000ULL));
    avx2::store(v + k, _mm256_blendv_epi8(w, vcap, _mm256_cmpgt_epi64(w, vcap)));
  }
  for (; k < n; ++k) {
    double sum = 0;
    for (std::size_t i = 0; i < terms; ++i) {
      // Hidden from the compiler as above (this file is compiled with -mfma).
      double p = static_cast<double>(static_cast<std::int64_t>(t[i][k])) * inv[i];
      __asm__("" : "+x"(p));
      sum += p;
    }
    s[k] = sum;
    const auto w = static_cast<u64>(sum + 0.5);  // NOLINT(bugprone-incorrect-roundings): ⌊s + 1/2⌋
    v[k] = w < cap ? w : cap;
  }
}

/// Words below 2^52 as doubles, exactly (the 2^52 trick).
[[gnu::always_inline]] inline D small_double(V x) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, set1(0x4330000000000000ULL))),
                       _mm256_set1_pd(0x1p52));
}

void scale_round_parts(const u64* const* x, std::size_t terms, const u64* mu, const double* rho,
                       const double* lambda, double* g, u64* lo, u64* hi, std::size_t n) {
  const V low31 = set1((u64{1} << 31) - 1);
  const V low32 = set1(0xFFFFFFFFULL);
  std::size_t k = 0;
  for (; k + avx2::kLanes <= n; k += avx2::kLanes) {
    D sum = _mm256_setzero_pd();
    V sum_lo = _mm256_setzero_si256();
    V sum_hi = _mm256_setzero_si256();
    for (std::size_t i = 0; i < terms; ++i) {
      const V xi = load(x[i] + k);
      const V a = _mm256_srli_epi64(xi, 31);
      const V b = _mm256_and_si256(xi, low31);
      const V am = _mm256_mul_epu32(a, set1(mu[i]));  // a·μ < 2^62, exact
      sum_lo = _mm256_add_epi64(sum_lo, _mm256_and_si256(am, low32));
      sum_hi = _mm256_add_epi64(sum_hi, _mm256_srli_epi64(am, 32));
      sum = _mm256_add_pd(sum, product(small_double(a), _mm256_set1_pd(rho[i])));
      sum = _mm256_add_pd(sum, product(small_double(b), _mm256_set1_pd(lambda[i])));
    }
    _mm256_storeu_pd(g + k, sum);
    // ⌊g + 1/2⌋ (g ≥ 0, g + 1/2 rounded once as the scalar code's; below 2^52).
    const D r = _mm256_round_pd(_mm256_add_pd(sum, _mm256_set1_pd(0.5)),
                                _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const V w = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(r, _mm256_set1_pd(0x1p52))),
                                 set1(0x4330000000000000ULL));
    avx2::store(lo + k, _mm256_add_epi64(sum_lo, w));
    avx2::store(hi + k, sum_hi);
  }
  for (; k < n; ++k) {
    double sum = 0;
    u64 sum_lo = 0, sum_hi = 0;
    for (std::size_t i = 0; i < terms; ++i) {
      const u64 a = x[i][k] >> 31;
      const u64 b = x[i][k] & ((u64{1} << 31) - 1);
      const u64 am = a * mu[i];
      sum_lo += am & 0xFFFFFFFFULL;
      sum_hi += am >> 32;
      // Hidden from the compiler as above (this file is compiled with -mfma).
      double pa = static_cast<double>(static_cast<std::int64_t>(a)) * rho[i];
      __asm__("" : "+x"(pa));
      sum += pa;
      double pb = static_cast<double>(static_cast<std::int64_t>(b)) * lambda[i];
      __asm__("" : "+x"(pb));
      sum += pb;
    }
    g[k] = sum;
    lo[k] = sum_lo + static_cast<u64>(sum + 0.5);  // NOLINT(bugprone-incorrect-roundings)
    hi[k] = sum_hi;
  }
}

}  // namespace

FractionRoundKernel avx2_fraction_round_kernel() {
  return &fraction_round;
}

ScaleRoundPartsKernel avx2_scale_round_parts_kernel() {
  return &scale_round_parts;
}

}  // namespace polyhe::cpu
