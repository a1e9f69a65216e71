// The AVX2 kernels of cpu/convert_kernel.hpp's double-precision roundings of HPS: fraction_round
// (the exact base conversion's v = round(Σ_i t_i/q_i)) and scale_round_parts (the scale-and-round's
// exact and rounded parts), four coefficients at a time, the scalar loops' arithmetic step for
// step (the masked tail included). Compiled with -mavx2 -mfma (this file only), called only where
// cpu_path() allows it.
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

/// ⌊x + 1/2⌋ as words, for 0 ≤ x with x + 1/2 below 2^52 (x + 1/2 rounded once, as the scalar
/// code's).
[[gnu::always_inline]] inline V round_half_up(D x) {
  return avx2::to_words(_mm256_round_pd(_mm256_add_pd(x, _mm256_set1_pd(0.5)),
                                        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
}

// The loads and stores of one step over four coefficients: plain, or for the n mod 4 tail masked
// to the lanes of `m` (vpmaskmov: the others read as zeros, are neither read nor written in
// memory, and cannot fault), so the tail runs the vector arithmetic too.
template <bool kMasked>
[[gnu::always_inline]] inline V load_lanes(const u64* p, V m) {
  if constexpr (kMasked) return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), m);
  return load(p);
}
template <bool kMasked>
[[gnu::always_inline]] inline void store_lanes(u64* p, V m, V x) {
  if constexpr (kMasked) {
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(p), m, x);
  } else {
    avx2::store(p, x);
  }
}
template <bool kMasked>
[[gnu::always_inline]] inline void store_lanes(double* p, V m, D x) {
  if constexpr (kMasked) {
    _mm256_maskstore_pd(p, m, x);
  } else {
    _mm256_storeu_pd(p, x);
  }
}

/// Lanes 0 .. count − 1 of a vpmaskmov mask (count < 4).
[[gnu::always_inline]] inline V first_lanes(std::size_t count) {
  return _mm256_cmpgt_epi64(set1(count), _mm256_setr_epi64x(0, 1, 2, 3));
}

template <bool kMasked>
[[gnu::always_inline]] inline void fraction_step(const u64* const* t, std::size_t terms,
                                                 const double* inv, V vcap, double* s, u64* v,
                                                 std::size_t k, V m) {
  D sum = _mm256_setzero_pd();
  for (std::size_t i = 0; i < terms; ++i) {
    const D x = nearest_double(load_lanes<kMasked>(t[i] + k, m));
    sum = _mm256_add_pd(sum, product(x, _mm256_set1_pd(inv[i])));
  }
  store_lanes<kMasked>(s + k, m, sum);
  const V w = round_half_up(sum);  // below 2^52
  store_lanes<kMasked>(v + k, m, _mm256_blendv_epi8(w, vcap, _mm256_cmpgt_epi64(w, vcap)));
}

void fraction_round(const u64* const* t, std::size_t terms, const double* inv, u64 cap, double* s,
                    u64* v, std::size_t n) {
  // The counts are below 2^52, so a cap above 2^62 acts as 2^62: the signed compare then serves.
  const V vcap = set1(cap < (u64{1} << 62) ? cap : u64{1} << 62);
  std::size_t k = 0;
  for (; k + avx2::kLanes <= n; k += avx2::kLanes) {
    fraction_step<false>(t, terms, inv, vcap, s, v, k, V{});
  }
  if (k < n) fraction_step<true>(t, terms, inv, vcap, s, v, k, first_lanes(n - k));
}

template <bool kMasked>
[[gnu::always_inline]] inline void scale_round_step(const u64* const* x, std::size_t terms,
                                                    const u64* mu, const double* rho,
                                                    const double* lambda, double* g, u64* lo,
                                                    u64* hi, std::size_t k, V m) {
  const V low31 = set1((u64{1} << 31) - 1);
  const V low32 = set1(0xFFFFFFFFULL);
  D sum = _mm256_setzero_pd();
  V sum_lo = _mm256_setzero_si256();
  V sum_hi = _mm256_setzero_si256();
  for (std::size_t i = 0; i < terms; ++i) {
    const V xi = load_lanes<kMasked>(x[i] + k, m);
    const V a = _mm256_srli_epi64(xi, 31);
    const V b = _mm256_and_si256(xi, low31);
    const V am = _mm256_mul_epu32(a, set1(mu[i]));  // a·μ < 2^62, exact
    sum_lo = _mm256_add_epi64(sum_lo, _mm256_and_si256(am, low32));
    sum_hi = _mm256_add_epi64(sum_hi, _mm256_srli_epi64(am, 32));
    sum = _mm256_add_pd(sum, product(avx2::to_double(a), _mm256_set1_pd(rho[i])));
    sum = _mm256_add_pd(sum, product(avx2::to_double(b), _mm256_set1_pd(lambda[i])));
  }
  store_lanes<kMasked>(g + k, m, sum);
  store_lanes<kMasked>(lo + k, m, _mm256_add_epi64(sum_lo, round_half_up(sum)));
  store_lanes<kMasked>(hi + k, m, sum_hi);
}

void scale_round_parts(const u64* const* x, std::size_t terms, const u64* mu, const double* rho,
                       const double* lambda, double* g, u64* lo, u64* hi, std::size_t n) {
  std::size_t k = 0;
  for (; k + avx2::kLanes <= n; k += avx2::kLanes) {
    scale_round_step<false>(x, terms, mu, rho, lambda, g, lo, hi, k, V{});
  }
  if (k < n) scale_round_step<true>(x, terms, mu, rho, lambda, g, lo, hi, k, first_lanes(n - k));
}

}  // namespace

FractionRoundKernel avx2_fraction_round_kernel() {
  return &fraction_round;
}

ScaleRoundPartsKernel avx2_scale_round_parts_kernel() {
  return &scale_round_parts;
}

}  // namespace polyhe::cpu
