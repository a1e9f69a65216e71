// The AVX-512 IFMA52 element-wise kernels for the q that ifma_serves (len(q) ≤ 50, q ≠ 2^49).
// vpmadd52luq / vpmadd52huq add the low / high 52 bits of the 104-bit product of two 52-bit lanes
// to a 64-bit accumulator: one instruction per half product where AVX-512F needs four vpmuludq.
// Addition, subtraction and negation have no products: they are the AVX-512 kernels. Compiled
// with -mavx512ifma (this file only) and called only when cpu_path() is ifma.
#include "../avx512/lanes.hpp"
#include "cpu/elementwise_kernel.hpp"
#include "fold52.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;

inline V lo52(V acc, V x, V y) {
  return _mm512_madd52lo_epu64(acc, x, y);
}
inline V hi52(V acc, V x, V y) {
  return _mm512_madd52hi_epu64(acc, x, y);
}

/// [GPU-Polymul, Alg. 4] in 52-bit limbs, for m = len(q) ≤ 50 and x = xh·2^52 + xl < 2^(2m) with
/// xl < 2^53 (a carry in bit 52 is allowed). c = ⌊x / 2^(m−2)⌋ = xh·2^(54−m) + ⌊xl / 2^(m−2)⌋
/// (exact, as 2^(m−2) divides 2^52) < 2^(m+2) ≤ 2^52; quot = ⌊c·µ / 2^(m+3)⌋ is
/// hi52(c·(µ·2^pre)) / 2^post with pre = 49 − m, post = 0 for m ≤ 49 and pre = 0, post = 1 for
/// m = 50, every operand below 2^52 (µ·2^pre < 2^52 as q ≠ 2^49). quot ∈ {⌊x/q⌋ − 1, ⌊x/q⌋}, so
/// r = x − quot·q ∈ [0, 2q) ⊂ [0, 2^51) equals its residue mod 2^52:
/// (xl + lo52(quot·(2^52 − q))) mod 2^52.
class Barrett52 {
 public:
  explicit Barrett52(const BarrettAlg4<u64>& r)
      : q_(set1(r.q)),
        neg_q_(set1((u64{1} << 52) - r.q)),
        mu_(set1(r.m <= 49 ? r.mu << (49 - r.m) : r.mu)),
        mask_(set1(kMask52)),
        down_(shift_count(r.m - 2)),
        up_(shift_count(54 - r.m)),
        post_(shift_count(r.m <= 49 ? 0 : 1)) {}

  [[nodiscard]] V reduce(V xh, V xl) const {
    const V zero = _mm512_setzero_si512();
    const V c = _mm512_add_epi64(_mm512_sll_epi64(xh, up_), _mm512_srl_epi64(xl, down_));
    const V quot = _mm512_srl_epi64(hi52(zero, c, mu_), post_);
    return reduce_once(_mm512_and_si512(lo52(xl, quot, neg_q_), mask_), q_);
  }

 private:
  V q_, neg_q_, mu_, mask_;
  __m128i down_, up_, post_;
};

void multiply(const u64* a, const u64* b, u64* c, std::size_t n, const BarrettAlg4<u64>& r) {
  const Barrett52 br(r);
  map2(a, b, c, n, [&br](V x, V y) {
    const V zero = _mm512_setzero_si512();
    return br.reduce(hi52(zero, x, y), lo52(zero, x, y));
  });
}

/// x = a·b + c < q² + q ≤ 2^(2m): lo52 accumulates onto c (xl < 2^53), then one Barrett52.
void multiply_add(const u64* a, const u64* b, const u64* d, u64* c, std::size_t n,
                  const BarrettAlg4<u64>& r) {
  const Barrett52 br(r);
  map3(a, b, d, c, n, [&br](V x, V y, V z) {
    return br.reduce(hi52(_mm512_setzero_si512(), x, y), lo52(z, x, y));
  });
}

/// Shoup in 52-bit limbs: w' = ⌊w·2^52 / q⌋ = ⌊w_shoup / 2^12⌋ < 2^52. For a < 2^52,
/// quot = hi52(a·w') lies in (a·w/q − 2, a·w/q], so r = a·w − quot·q ∈ [0, 2q) ⊂ [0, 2^51),
/// computed as (lo52(a·w) + lo52(quot·(2^52 − q))) mod 2^52.
void multiply_scalar(const u64* a, ShoupOperand<u64> w, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  const V neg_q = set1((u64{1} << 52) - q);
  const V vw = set1(w.w);
  const V ws = set1(w.w_shoup >> 12);
  const V mask = set1(kMask52);
  map1(a, c, n, [=](V x) {
    const V zero = _mm512_setzero_si512();
    const V quot = hi52(zero, x, ws);
    return reduce_once(_mm512_and_si512(lo52(lo52(zero, x, vw), quot, neg_q), mask), vq);
  });
}

/// Shoup in 52-bit limbs (as multiply_scalar) on d = a − b + q < 2q < 2^51.
void sub_multiply_scalar(const u64* a, const u64* b, ShoupOperand<u64> w, u64* c, std::size_t n,
                         u64 q) {
  const V vq = set1(q);
  const V neg_q = set1((u64{1} << 52) - q);
  const V vw = set1(w.w);
  const V ws = set1(w.w_shoup >> 12);
  const V mask = set1(kMask52);
  map2(a, b, c, n, [=](V x, V y) {
    const V zero = _mm512_setzero_si512();
    const V d = _mm512_add_epi64(_mm512_sub_epi64(x, y), vq);
    const V quot = hi52(zero, d, ws);
    return reduce_once(_mm512_and_si512(lo52(lo52(zero, d, vw), quot, neg_q), mask), vq);
  });
}

/// x < p < 2^52: quot = hi52(x·⌊2^52/q⌋) and r = x − quot·q ∈ [0, 2q) (multiply_scalar with
/// w = 1), one correction; then r − s + q < 2q reduced once, selected where x > ⌊p/2⌋.
void lift_centred(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  const V vq = set1(l.q);
  const V neg_q = set1((u64{1} << 52) - l.q);
  const V ws = set1(l.one_shoup >> 12);
  const V mask = set1(kMask52);
  const V half = set1(l.half);
  const V q_minus_s = set1(l.q - l.shift);
  map1(x, c, n, [=](V v) {
    const V quot = hi52(_mm512_setzero_si512(), v, ws);
    const V r = reduce_once(_mm512_and_si512(lo52(v, quot, neg_q), mask), vq);
    const V shifted = reduce_once(_mm512_add_epi64(r, q_minus_s), vq);
    return _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(v, half), r, shifted);
  });
}

/// Lazy: both outputs' products summed as lo/hi 52-bit halves over all terms (terms ≤
/// kWeightedSumMaxTerms, every operand < q < 2^50), one folding reduction per word (fold52.hpp).
/// The key is one sequential stream of packed residues (KeyUnpack), prefetched kKeyAhead residues
/// ahead (lanes.hpp).
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  const Fold fold(make_weighted_sum_modulus(r.q));
  const KeyUnpack unpack(width);
  const std::size_t row = kKeyGroup * width;
  const std::size_t stride = 2 * parts * row;
  for (std::size_t i = 0; i < n; i += kKeyGroup) {
    const std::uint8_t* k = key + (i / kKeyGroup) * stride;
    V lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
    for (std::size_t j = 0; j < terms; ++j) {
      prefetch_key(k, j, row, width);
      const V x = _mm512_loadu_si512(a[j] + i);
      const V y0 = unpack(k + 2 * j * row);
      const V y1 = unpack(k + (2 * j + 1) * row);
      lo0 = lo52(lo0, x, y0);
      hi0 = hi52(hi0, x, y0);
      lo1 = lo52(lo1, x, y1);
      hi1 = hi52(hi1, x, y1);
    }
    _mm512_storeu_si512(c0 + i, fold(lo0, hi0));
    _mm512_storeu_si512(c1 + i, fold(lo1, hi1));
  }
}

}  // namespace

const ElementwiseKernels* ifma_elementwise_kernels() {
  // Addition, subtraction, negation and the gathers multiply nothing: the AVX-512 kernels serve
  // them.
  static const ElementwiseKernels kernels = [] {
    const ElementwiseKernels* v = avx512_elementwise_kernels();
    return ElementwiseKernels{CpuPath::ifma, v->add,
                              v->sub,        v->negate,
                              multiply,      multiply_scalar,
                              multiply_add,  sub_multiply_scalar,
                              lift_centred,  key_inner_products,
                              v->gather,     v->gather_add};
  }();
  return &kernels;
}

}  // namespace polyhe::cpu
