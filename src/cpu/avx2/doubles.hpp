// Four lanes of doubles holding integers on AVX2 + FMA, the lanes type of the double-precision
// kernels written once over a lane width (cpu/fma_ntt.hpp, cpu/fma_weighted_sum.hpp). Include
// only from translation units compiled with -mavx2 -mfma; internal linkage, as lanes.hpp.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "lanes.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

/// Four doubles (cpu/fma_ntt.hpp's lanes).
struct Avx2Doubles {
  using D = __m256d;
  using u64 = std::uint64_t;
  static constexpr std::size_t kLanes = 4;

  [[gnu::always_inline]] static D set1(double x) { return _mm256_set1_pd(x); }
  [[gnu::always_inline]] static D load(const double* p) { return _mm256_loadu_pd(p); }
  [[gnu::always_inline]] static void store(double* p, D x) { _mm256_storeu_pd(p, x); }
  [[gnu::always_inline]] static D add(D a, D b) { return _mm256_add_pd(a, b); }
  [[gnu::always_inline]] static D sub(D a, D b) { return _mm256_sub_pd(a, b); }
  [[gnu::always_inline]] static D mul(D a, D b) { return _mm256_mul_pd(a, b); }
  [[gnu::always_inline]] static D fmsub(D a, D b, D c) { return _mm256_fmsub_pd(a, b, c); }
  [[gnu::always_inline]] static D fnmadd(D a, D b, D c) { return _mm256_fnmadd_pd(a, b, c); }
  [[gnu::always_inline]] static D round_small(D x) { return avx2::round_small(x); }
  [[gnu::always_inline]] static D from_words(const u64* p) {
    return avx2::to_double(avx2::load(p));
  }
  [[gnu::always_inline]] static void to_words(u64* p, D x) { avx2::store(p, avx2::to_words(x)); }

  struct LiftConst {
    __m256i half;
    D p;
  };
  static LiftConst lift_const(u64 p) {
    return {_mm256_set1_epi64x(static_cast<long long>(p / 2)),
            _mm256_set1_pd(static_cast<double>(p))};
  }
  /// v − l.p where v > l.half, else v, for words v below 2^52 (l.p may be any value whose
  /// subtraction stays exact: p, or p mod q for the element-wise lift).
  [[gnu::always_inline]] static D lift_raw(__m256i v, const LiftConst& l) {
    const D above = _mm256_castsi256_pd(_mm256_cmpgt_epi64(v, l.half));  // signed: v < 2^52
    return _mm256_sub_pd(avx2::to_double(v), _mm256_and_pd(above, l.p));
  }
  [[gnu::always_inline]] static D lift_raw(const u64* x, const LiftConst& l) {
    return lift_raw(avx2::load(x), l);
  }
  [[gnu::always_inline]] static D add_where_negative(D x, D q) {
    return _mm256_add_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_LT_OQ), q));
  }
  [[gnu::always_inline]] static D sub_where_at_least(D x, D q) {
    return _mm256_sub_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, q, _CMP_GE_OQ), q));
  }
  /// Half-size 2: (a0 a1 b0 b1 | a2 a3 b2 b3); half-size 1: (a0 b0 a2 b2 | a1 b1 a3 b3), by
  /// 128-bit permutes and unpacks.
  template <std::size_t kT>
  [[gnu::always_inline]] static void split(D a, D b, D& x, D& y) {
    if constexpr (kT == 2) {
      x = _mm256_permute2f128_pd(a, b, 0x20);
      y = _mm256_permute2f128_pd(a, b, 0x31);
    } else {
      static_assert(kT == 1);
      x = _mm256_unpacklo_pd(a, b);
      y = _mm256_unpackhi_pd(a, b);
    }
  }
};

}  // namespace
}  // namespace polyhe::cpu
