// The flattened PFA transform on AVX-512 F/DQ: one column of eight per register, the products of
// the power-of-two NTT kernels (src/cpu/avx512/ntt_avx512_simd.hpp: approximate Shoup quotient,
// lazy bound c = 4q when q < 2^61, else 2q), 8×8 transposes for the last axis.
// Compiled with the AVX-512 flags when the compiler has them (src/CMakeLists.txt); otherwise
// this file only reports that it is absent.
#include "fused.hpp"
#include "powerful_fused.hpp"

#if defined(__AVX512F__) && defined(__AVX512DQ__)

// First, in a block of its own: it reads <immintrin.h> under the pragmas GCC 12 needs.
#include "fused_avx512_maps.hpp"
#include "powerful_kernels.hpp"

// Then the products.
#include "../../cpu/avx512/ntt_avx512_simd.hpp"

namespace polyhe::cyclic {
namespace {

using cpu::avx512::LazyArith;

template <bool kLoose>
struct Avx512Ops : Avx512Maps {
  LazyArith<kLoose> ar;

  explicit Avx512Ops(u64 modulus) : ar(modulus) {}

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

void run_powerful_avx512(const PowerfulTables& tb, u64* a, u64* buf, bool inverse) {
  if (tb.q < (u64{1} << 61)) {
    run_powerful_with(Avx512Ops<true>(tb.q), tb, a, buf, inverse);
  } else {
    run_powerful_with(Avx512Ops<false>(tb.q), tb, a, buf, inverse);
  }
}

}  // namespace

FusedKernel fused_kernel_avx512() {
  return &run_avx512;
}

PowerfulKernel powerful_kernel_avx512() {
  return &run_powerful_avx512;
}

}  // namespace polyhe::cyclic

#else

namespace polyhe::cyclic {

FusedKernel fused_kernel_avx512() {
  return nullptr;
}

PowerfulKernel powerful_kernel_avx512() {
  return nullptr;
}

}  // namespace polyhe::cyclic

#endif
