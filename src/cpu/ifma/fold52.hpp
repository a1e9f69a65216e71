// The folding reduction of lazy IFMA52 sums, shared by the weighted sums of base conversion
// (convert_ifma.cpp) and the key-switching inner products (elementwise_ifma.cpp). Each product
// x·w < 2^52·2^50 splits into lo52 (< 2^52) and hi52 (< 2^50), accumulated in separate 64-bit
// lanes: after at most 2^11 terms lo < 2^63 and hi < 2^61. The total is H·2^52 + L with
// H = hi + ⌊lo/2^52⌋ < 2^62 and L = lo mod 2^52, i.e. H1·2^104 + H0·2^52 + L with
// H1 = ⌊H/2^52⌋ < 2^10, H0 = H mod 2^52: three Shoup products by constants (each operand < 2^52,
// each result in [0, 2c)), reduced and summed mod c. Internal linkage, as lanes.hpp.
#pragma once

#include "../avx512/lanes.hpp"
#include "cpu/convert_kernel.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see lanes.hpp

using u64 = std::uint64_t;

constexpr u64 kMask52 = (u64{1} << 52) - 1;

/// a·w mod c up to one c, for a < 2^52, w < c < 2^50, w' = ⌊w·2^52/c⌋: quot = hi52(a·w') is
/// within 2 of a·w/c, so a·w − quot·c ∈ [0, 2c), computed mod 2^52.
inline V shoup52(V a, V w, V w_shoup, V neg_c, V mask) {
  const V zero = _mm512_setzero_si512();
  const V quot = _mm512_madd52hi_epu64(zero, a, w_shoup);
  return _mm512_and_si512(_mm512_madd52lo_epu64(_mm512_madd52lo_epu64(zero, a, w), quot, neg_c),
                          mask);
}

/// The folding reduction of the lo/hi sums (file comment) with the constants of m.
class Fold {
 public:
  explicit Fold(const WeightedSumModulus& m)
      : vc_(set1(m.c)),
        two_c_(set1(2 * m.c)),
        four_c_(set1(4 * m.c)),
        neg_c_(set1((u64{1} << 52) - m.c)),
        mask_(set1(kMask52)),
        one_s_(set1(m.one_shoup52)),
        r52_(set1(m.r52)),
        r52_s_(set1(m.r52_shoup52)),
        r104_(set1(m.r104)),
        r104_s_(set1(m.r104_shoup52)) {}

  [[nodiscard]] V operator()(V lo, V hi) const {
    const __m128i s52 = shift_count(52);
    const V h = _mm512_add_epi64(hi, _mm512_srl_epi64(lo, s52));
    const V l = _mm512_and_si512(lo, mask_);
    const V h1 = _mm512_srl_epi64(h, s52);
    const V h0 = _mm512_and_si512(h, mask_);
    const V a = shoup52(h1, r104_, r104_s_, neg_c_, mask_);
    // H0·r52 + L brought to [0, 4c) in one accumulator: L + lo52(H0·r52) − (quot_b + quot_d)·c,
    // where quot_b is H0·r52's Shoup quotient and quot_d = hi52(L·⌊2^52/c⌋) L's (each within 2
    // below, as in shoup52): the true value lies in [0, 4c) ⊂ [0, 2^52), so mod 2^52 it is exact.
    const V zero = _mm512_setzero_si512();
    const V quot_b = _mm512_madd52hi_epu64(zero, h0, r52_s_);
    const V quot_d = _mm512_madd52hi_epu64(zero, l, one_s_);
    V bd = _mm512_madd52lo_epu64(l, h0, r52_);
    bd = _mm512_madd52lo_epu64(bd, quot_b, neg_c_);
    bd = _mm512_and_si512(_mm512_madd52lo_epu64(bd, quot_d, neg_c_), mask_);
    // a + b + d < 6c < 2^53: min(s, s − 4c) ∈ [0, 4c) (s − 4c wraps above s exactly when s < 4c),
    // then [0, 2c), then [0, c). The first minimum is for the bound: sums of random words stay
    // below 3c, as each quotient is rarely more than one short.
    const V s = _mm512_add_epi64(a, bd);
    return reduce_once(reduce_once(reduce_once(s, four_c_), two_c_), vc_);
  }

 private:
  V vc_, two_c_, four_c_, neg_c_, mask_, one_s_, r52_, r52_s_, r104_, r104_s_;
};

}  // namespace
}  // namespace polyhe::cpu
