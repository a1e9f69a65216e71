// The flattened PFA transform with AVX-512 IFMA52 products, for q < 2^50: Shoup's product with
// β = 52 (src/cpu/ifma/ntt_ifma_arith.hpp: three 52-bit multiply-adds and a mask, output in
// [0, 2q) for any input below 2^52), lazy bound c = 2q: every product's input stays below
// 2c = 4q < 2^52 (fused_kernels.hpp multiplies only values in [0, 2c)). Data movement as the
// AVX-512 policy. Compiled with the IFMA flags when the compiler has them (src/CMakeLists.txt);
// otherwise this file only reports that it is absent.
#include "fused.hpp"
#include "powerful_fused.hpp"

#if defined(__AVX512F__) && defined(__AVX512IFMA__)

// First, in a block of its own: it reads <immintrin.h> under the pragmas GCC 12 needs.
#include "fused_avx512_maps.hpp"
#include "powerful_kernels.hpp"

// Then the products.
#include "../../cpu/ifma/ntt_ifma_arith.hpp"

namespace polyhe::cyclic {
namespace {

namespace ifma = cpu::ifma;

struct IfmaOps : Avx512Maps {
  ifma::Mod m;
  V c;

  explicit IfmaOps(u64 modulus) : m(modulus), c(m.two_q) {}

  [[gnu::always_inline]] static ifma::Tw tw(const FusedTwiddle& t) {
    return {broadcast(&t.w), broadcast(&t.shoup52)};
  }
  /// a·ω mod q in [0, 2q) for a < 2^52.
  [[gnu::always_inline]] V mul(V a, const FusedTwiddle& t) const {
    return ifma::mul_shoup_lazy(a, tw(t), m);
  }
  [[gnu::always_inline]] static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  [[gnu::always_inline]] static V sub(V a, V b) { return _mm512_sub_epi64(a, b); }
  [[gnu::always_inline]] V modulus() const { return m.q; }
  [[gnu::always_inline]] V bound() const { return c; }
  [[gnu::always_inline]] V reduce_c(V a) const { return ifma::reduce_below(a, c); }
  [[gnu::always_inline]] V out_c(V a) const { return ifma::reduce_below(a, m.q); }
  [[gnu::always_inline]] V out_2c(V a) const {
    return ifma::reduce_below(ifma::reduce_below(a, c), m.q);
  }
  /// (x, y) ← (x + ω·y, x − ω·y): [0, 2c) → [0, 2c).
  [[gnu::always_inline]] void ct(V& x, V& y, const FusedTwiddle& t) const {
    const V x0 = reduce_c(x);
    const V r = mul(y, t);
    x = _mm512_add_epi64(x0, r);
    y = _mm512_sub_epi64(_mm512_add_epi64(x0, c), r);
  }
  [[gnu::always_inline]] void ct1(V& x, V& y) const {
    const V x0 = reduce_c(x);
    const V r = reduce_c(y);
    x = _mm512_add_epi64(x0, r);
    y = _mm512_sub_epi64(_mm512_add_epi64(x0, c), r);
  }
  /// (x, y) ← (x + y, (x − y)·ω): [0, c) → [0, c).
  [[gnu::always_inline]] void gs(V& x, V& y, const FusedTwiddle& t) const {
    const V s = _mm512_add_epi64(x, y);
    const V d = _mm512_sub_epi64(_mm512_add_epi64(x, c), y);
    x = reduce_c(s);
    y = mul(d, t);
  }
  [[gnu::always_inline]] void gs1(V& x, V& y) const {
    const V s = _mm512_add_epi64(x, y);
    const V d = _mm512_sub_epi64(_mm512_add_epi64(x, c), y);
    x = reduce_c(s);
    y = reduce_c(d);
  }
};

void run_ifma(const FusedTables& tb, u64* a, u64* buf, bool inverse) {
  run_fused_with(IfmaOps(tb.q), tb, a, buf, inverse);
}

void run_powerful_ifma(const PowerfulTables& tb, u64* a, u64* buf, bool inverse) {
  run_powerful_with(IfmaOps(tb.q), tb, a, buf, inverse);
}

}  // namespace

FusedKernel fused_kernel_ifma() {
  return &run_ifma;
}

PowerfulKernel powerful_kernel_ifma() {
  return &run_powerful_ifma;
}

}  // namespace polyhe::cyclic

#else

namespace polyhe::cyclic {

FusedKernel fused_kernel_ifma() {
  return nullptr;
}

PowerfulKernel powerful_kernel_ifma() {
  return nullptr;
}

}  // namespace polyhe::cyclic

#endif
