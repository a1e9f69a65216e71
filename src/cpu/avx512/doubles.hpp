// Eight lanes of doubles holding integers on AVX-512 F, the lanes type of the double-precision
// kernels written once over a lane width (cpu/fma_ntt.hpp, cpu/fma_weighted_sum.hpp,
// cpu/fma_mod.hpp). Include only from translation units compiled with the AVX-512 flags; internal
// linkage, as lanes.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lanes.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

/// Eight doubles (cpu/fma_ntt.hpp's lanes).
struct Avx512Doubles {
  using D = __m512d;
  using u64 = std::uint64_t;
  static constexpr std::size_t kLanes = 8;

  [[gnu::always_inline]] static D set1(double x) { return _mm512_set1_pd(x); }
  [[gnu::always_inline]] static D load(const double* p) { return _mm512_loadu_pd(p); }
  [[gnu::always_inline]] static void store(double* p, D x) { _mm512_storeu_pd(p, x); }
  [[gnu::always_inline]] static D add(D a, D b) { return _mm512_add_pd(a, b); }
  [[gnu::always_inline]] static D sub(D a, D b) { return _mm512_sub_pd(a, b); }
  [[gnu::always_inline]] static D mul(D a, D b) { return _mm512_mul_pd(a, b); }
  [[gnu::always_inline]] static D fmsub(D a, D b, D c) { return _mm512_fmsub_pd(a, b, c); }
  [[gnu::always_inline]] static D fnmadd(D a, D b, D c) { return _mm512_fnmadd_pd(a, b, c); }
  /// As avx2::round_small: x + 1.5·2^52 − 1.5·2^52 is x rounded to the nearest for |x| ≤ 2^51.
  [[gnu::always_inline]] static D round_small(D x) {
    const D magic = _mm512_set1_pd(0x1.8p52);
    return _mm512_sub_pd(_mm512_add_pd(x, magic), magic);
  }
  /// Words below 2^52 ↔ doubles, exactly: the bit pattern of 2^52 + x is 0x4330… | x.
  [[gnu::always_inline]] static D to_double(__m512i x) {
    return _mm512_sub_pd(
        _mm512_castsi512_pd(_mm512_or_si512(x, _mm512_set1_epi64(0x4330000000000000LL))),
        _mm512_set1_pd(0x1p52));
  }
  [[gnu::always_inline]] static D from_words(const u64* p) {
    return to_double(_mm512_loadu_si512(p));
  }
  [[gnu::always_inline]] static __m512i words(D x) {  // x an integer in [0, 2^52)
    return _mm512_sub_epi64(_mm512_castpd_si512(_mm512_add_pd(x, _mm512_set1_pd(0x1p52))),
                            _mm512_set1_epi64(0x4330000000000000LL));
  }
  [[gnu::always_inline]] static void to_words(u64* p, D x) { _mm512_storeu_si512(p, words(x)); }

  struct LiftConst {
    __m512i half;
    D p;
  };
  static LiftConst lift_const(u64 p) {
    return {_mm512_set1_epi64(static_cast<long long>(p / 2)),
            _mm512_set1_pd(static_cast<double>(p))};
  }
  /// v − l.p where v > l.half, else v, for words v below 2^52 (l.p may be any value whose
  /// subtraction stays exact: p, or p mod q for the element-wise lift).
  [[gnu::always_inline]] static D lift_raw(__m512i v, const LiftConst& l) {
    const D d = to_double(v);
    return _mm512_mask_sub_pd(d, _mm512_cmpgt_epu64_mask(v, l.half), d, l.p);
  }
  [[gnu::always_inline]] static D lift_raw(const u64* x, const LiftConst& l) {
    return lift_raw(_mm512_loadu_si512(x), l);
  }
  [[gnu::always_inline]] static D add_where_negative(D x, D q) {
    return _mm512_mask_add_pd(x, _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ), x, q);
  }
  [[gnu::always_inline]] static D sub_where_at_least(D x, D q) {
    return _mm512_mask_sub_pd(x, _mm512_cmp_pd_mask(x, q, _CMP_GE_OQ), x, q);
  }
  /// Half-size 4: (a0…a3 b0…b3 | a4…a7 b4…b7) by 256-bit shuffles; half-size 2: (a0 a1 b0 b1
  /// a4 a5 b4 b5 | a2 a3 b2 b3 a6 a7 b6 b7) by two-source permutes; half-size 1: (a0 b0 a2 b2 …
  /// | a1 b1 a3 b3 …) by unpacks. Each is its own inverse.
  template <std::size_t kT>
  [[gnu::always_inline]] static void split(D a, D b, D& x, D& y) {
    if constexpr (kT == 4) {
      x = _mm512_shuffle_f64x2(a, b, 0x44);
      y = _mm512_shuffle_f64x2(a, b, 0xEE);
    } else if constexpr (kT == 2) {
      x = _mm512_permutex2var_pd(a, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), b);
      y = _mm512_permutex2var_pd(a, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), b);
    } else {
      static_assert(kT == 1);
      x = _mm512_unpacklo_pd(a, b);
      y = _mm512_unpackhi_pd(a, b);
    }
  }
};

}  // namespace
}  // namespace polyhe::cpu
