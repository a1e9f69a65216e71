// The flattened PFA transform on AVX-512 F/DQ: one column of eight per register, the products of
// the power-of-two NTT kernels (src/cpu/avx512/ntt_avx512_simd.hpp: approximate Shoup quotient,
// lazy bound c = 4q when q < 2^61, else 2q), 8×8 transposes for the last axis.
// Compiled with the AVX-512 flags when the compiler has them (src/CMakeLists.txt); otherwise
// this file only reports that it is absent.
#include "fused.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// GCC 12 reports its own _mm512_undefined_epi32() (inlined into shifts, products, min) as
// (maybe-)uninitialized (GCC PR 105593, fixed in GCC 13); the pragma must be in force where the
// intrinsics header is read, so it is read here first.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

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

  /// out[i·8 + l] = in[l·pitch + i] for i, l < 8: pairs of 64-bit words, then 128-bit halves of
  /// lanes, then 256-bit halves (8 unpacks and 16 two-source permutes).
  [[gnu::always_inline]] static void transpose8(const u64* in, std::size_t pitch, u64* out) {
    V r[kW], t[kW];
    for (std::size_t l = 0; l < kW; ++l) r[l] = _mm512_loadu_si512(in + l * pitch);
    for (std::size_t l = 0; l < kW; l += 2) {
      t[l] = _mm512_unpacklo_epi64(r[l], r[l + 1]);      // words 0 2 4 6 of rows l, l+1
      t[l + 1] = _mm512_unpackhi_epi64(r[l], r[l + 1]);  // words 1 3 5 7
    }
    const V lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const V hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    for (std::size_t g = 0; g < kW; g += 4) {                        // rows g … g+3
      r[g] = _mm512_permutex2var_epi64(t[g], lo, t[g + 2]);          // words 0, 4
      r[g + 1] = _mm512_permutex2var_epi64(t[g], hi, t[g + 2]);      // words 2, 6
      r[g + 2] = _mm512_permutex2var_epi64(t[g + 1], lo, t[g + 3]);  // words 1, 5
      r[g + 3] = _mm512_permutex2var_epi64(t[g + 1], hi, t[g + 3]);  // words 3, 7
    }
    constexpr std::size_t kWord[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
    for (std::size_t m = 0; m < 4; ++m) {
      _mm512_storeu_si512(out + kWord[m][0] * kW, _mm512_shuffle_i64x2(r[m], r[m + 4], 0x44));
      _mm512_storeu_si512(out + kWord[m][1] * kW, _mm512_shuffle_i64x2(r[m], r[m + 4], 0xEE));
    }
  }

  // The maps as plain loops: 32-bit-index gathers measured no faster (the cost is the L2 → L1
  // traffic of the scattered side, one line per word, not the instructions).
  static void permute_in(const FusedTables& tb, const u64* a, u64* rows) {
    permute_in_plain(tb, a, rows);
  }
  static void permute_out(const FusedTables& tb, const u64* rows, u64* a, bool inverse) {
    permute_out_plain(tb, rows, a, inverse);
  }

  /// Broadcasts straight from the table (a load, not a move from a general register).
  [[gnu::always_inline]] static V broadcast(const u64* p) {
    return _mm512_broadcastq_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  [[gnu::always_inline]] static cpu::avx512::VTw vtw(const FusedTwiddle& t) {
    return {broadcast(&t.w), broadcast(&t.shoup), broadcast(&t.shoup_hi)};
  }

  [[gnu::always_inline]] V mul(V a, const FusedTwiddle& t) const { return ar.mul(a, vtw(t)); }
  [[gnu::always_inline]] static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  [[gnu::always_inline]] static V sub(V a, V b) { return _mm512_sub_epi64(a, b); }
  [[gnu::always_inline]] V modulus() const { return ar.q; }
  [[gnu::always_inline]] V bound() const { return ar.c; }
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
