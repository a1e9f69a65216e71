// The flattened PFA transform on AVX-512 F/DQ: one column of eight per register, the products of
// the power-of-two NTT kernels (src/cpu/avx512/ntt_avx512_simd.hpp: approximate Shoup quotient,
// lazy bound c = 4q when q < 2^61, else 2q), and the two maps as 32-bit-index gathers.
// Compiled with the AVX-512 flags when the compiler has them (src/CMakeLists.txt); otherwise
// this file only reports that it is absent.
#include "fused.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)

#include "../../cpu/avx512/ntt_avx512_simd.hpp"
#include "fused_kernels.hpp"

namespace polyhe::cyclic {
namespace {

using cpu::avx512::LazyArith;

template <bool kLoose>
struct Avx512Ops {
  using V = __m512i;
  LazyArith<kLoose> ar;

  explicit Avx512Ops(u64 modulus) : ar(modulus) {}

  [[gnu::always_inline]] static V load(const u64* p) { return _mm512_loadu_si512(p); }
  [[gnu::always_inline]] static void store(u64* p, V x) { _mm512_storeu_si512(p, x); }
  [[gnu::always_inline]] static V gather(const u64* p, std::size_t pitch) {
    const V idx = _mm512_mullo_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm512_set1_epi64(static_cast<long long>(pitch)));
    return _mm512_i64gather_epi64(idx, p, 8);
  }

  /// Rows gathered from a through the 32-bit map, eight words per gather, the row's tail masked.
  static void permute_in(const FusedTables& tb, const u64* a, u64* rows) {
    const std::size_t nr = tb.last.n;
    const std::size_t full = nr / kW * kW;
    const auto tail = static_cast<__mmask8>((1U << (nr - full)) - 1);
    for (std::size_t c = 0; c < tb.rows; ++c) {
      u64* row = rows + c * tb.pitch;
      const std::uint32_t* map = tb.in_map.data() + c * nr;
      for (std::size_t j = 0; j < full; j += kW) {
        const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(map + j));
        _mm512_storeu_si512(row + j, _mm512_i32gather_epi64(idx, a, 8));
      }
      if (full < tb.pitch) {
        const __m256i idx = _mm256_maskz_loadu_epi32(tail, map + full);
        const V x = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), tail, idx, a, 8);
        _mm512_storeu_si512(row + full, x);  // zeros past nr: the row's padding
      }
    }
    for (std::size_t i = tb.rows * tb.pitch; i < tb.padded_rows * tb.pitch; i += kW) {
      _mm512_storeu_si512(rows + i, _mm512_setzero_si512());
    }
  }

  static void permute_out(const FusedTables& tb, const u64* rows, u64* a, bool inverse) {
    const std::size_t n = tb.n;
    const std::uint32_t* map = tb.out_map.data();
    if (inverse) {
      permute_out_plain(tb, rows, a, true);
      return;
    }
    std::size_t k = 0;
    for (; k + kW <= n; k += kW) {
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(map + k));
      _mm512_storeu_si512(a + k, _mm512_i32gather_epi64(idx, rows, 8));
    }
    for (; k < n; ++k) a[k] = rows[map[k]];
  }

  [[gnu::always_inline]] static cpu::avx512::VTw vtw(const FusedTwiddle& t) {
    return {_mm512_set1_epi64(static_cast<long long>(t.w)),
            _mm512_set1_epi64(static_cast<long long>(t.shoup)),
            _mm512_set1_epi64(static_cast<long long>(t.shoup_hi))};
  }

  [[gnu::always_inline]] V mul(V a, const FusedTwiddle& t) const { return ar.mul(a, vtw(t)); }
  [[gnu::always_inline]] static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  [[gnu::always_inline]] V reduce_c(V a) const { return cpu::avx512::csub(a, ar.c); }
  [[gnu::always_inline]] V out_c(V a) const { return ar.inv_out(a); }
  [[gnu::always_inline]] V out_2c(V a) const { return ar.fwd_out(a); }
  [[gnu::always_inline]] void ct(V& x, V& y, const FusedTwiddle& t) const { ar.ct(x, y, vtw(t)); }
  [[gnu::always_inline]] void gs(V& x, V& y, const FusedTwiddle& t) const { ar.gs(x, y, vtw(t)); }
  [[gnu::always_inline]] void ct1(V& x, V& y) const {
    const V x0 = cpu::avx512::csub(x, ar.c);
    const V r = cpu::avx512::csub(y, ar.c);
    x = _mm512_add_epi64(x0, r);
    y = _mm512_sub_epi64(_mm512_add_epi64(x0, ar.c), r);
  }
  [[gnu::always_inline]] void gs1(V& x, V& y) const {
    const V s = _mm512_add_epi64(x, y);
    const V d = _mm512_sub_epi64(_mm512_add_epi64(x, ar.c), y);
    x = cpu::avx512::csub(s, ar.c);
    y = cpu::avx512::csub(d, ar.c);
  }
};

void run_avx512(const FusedTables& tb, u64* a, u64* buf, bool inverse) {
  if (tb.q < (u64{1} << 61)) {
    run_fused_with(Avx512Ops<true>(tb.q), tb, a, buf, inverse);
  } else {
    run_fused_with(Avx512Ops<false>(tb.q), tb, a, buf, inverse);
  }
}

}  // namespace

FusedKernel fused_kernel_avx512() {
  return &run_avx512;
}

}  // namespace polyhe::cyclic

#else

namespace polyhe::cyclic {

FusedKernel fused_kernel_avx512() {
  return nullptr;
}

}  // namespace polyhe::cyclic

#endif
