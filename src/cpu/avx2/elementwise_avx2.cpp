// The AVX2 element-wise kernels on 64-bit words, for 2 ≤ q < 2^62: four words per vector, the
// n mod 4 tail through a padded vector. Compiled with -mavx2 (this file only) and called only
// when cpu_path() allows it. The AVX-512 kernels' arithmetic on four lanes (lanes.hpp: 64-bit
// products from vpmuludq, signed compares, which every value here allows: all stay below 2^63).
#include <cstring>

#include "lanes.hpp"
#include "polyhe/cpu/elementwise_kernel.hpp"

namespace polyhe::cpu {

namespace {

using avx2::load;
using avx2::map1;
using avx2::map2;
using avx2::map3;
using avx2::mul_hi;
using avx2::mul_wide;
using avx2::mullo;
using avx2::reduce_once;
using avx2::set1;
using avx2::V;
using u64 = std::uint64_t;

/// Paper Alg. 4 on four lanes (the AVX-512 kernel's Barrett8): x = hi·2^64 + lo < 2^(2m) ↦
/// x mod q. c = ⌊x / 2^(m−2)⌋ = hi·2^(66−m) + ⌊lo / 2^(m−2)⌋, quot = ⌊hi((c << pre)·µ)⌋ / 2^post
/// ∈ {⌊x/q⌋ − 1, ⌊x/q⌋}, so lo − quot·q (mod 2^64) ∈ [0, 2q): one correction.
class Barrett4 {
 public:
  explicit Barrett4(const BarrettAlg4<u64>& r)
      : q_(set1(r.q)),
        q1_(set1(r.q >> 32)),
        mu_(set1(r.mu << r.pre)),
        mu1_(set1((r.mu << r.pre) >> 32)),
        down_(_mm_cvtsi64_si128(r.m - 2)),
        up_(_mm_cvtsi64_si128(66 - r.m)),
        post_(_mm_cvtsi64_si128(r.post)) {}

  [[nodiscard]] V reduce(V hi, V lo) const {
    // A shift by 64 or more yields 0 (m = 2), as the scalar code's.
    const V c = _mm256_or_si256(_mm256_sll_epi64(hi, up_), _mm256_srl_epi64(lo, down_));
    const V quot = _mm256_srl_epi64(mul_hi(c, mu_, mu1_), post_);
    return reduce_once(_mm256_sub_epi64(lo, mullo(quot, q_, q1_)), q_);
  }

 private:
  V q_, q1_, mu_, mu1_;
  __m128i down_, up_, post_;
};

/// lo + z with its carry into hi (unsigned: compared with the sign bits flipped).
[[gnu::always_inline]] inline void add_carry(V& hi, V& lo, V z) {
  const V sign = set1(u64{1} << 63);
  lo = _mm256_add_epi64(lo, z);
  const V carry = _mm256_cmpgt_epi64(_mm256_xor_si256(z, sign), _mm256_xor_si256(lo, sign));
  hi = _mm256_sub_epi64(hi, carry);  // carry is −1 where lo wrapped
}

void add(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map2(a, b, c, n, [vq](V x, V y) { return reduce_once(_mm256_add_epi64(x, y), vq); });
}

void sub(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map2(a, b, c, n, [vq](V x, V y) {
    const V d = _mm256_sub_epi64(x, y);
    return _mm256_add_epi64(d, _mm256_and_si256(_mm256_cmpgt_epi64(y, x), vq));
  });
}

/// q − a where a ≠ 0, and 0 where a = 0.
void negate(const u64* a, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map1(a, c, n, [vq](V x) {
    const V zero = _mm256_cmpeq_epi64(x, _mm256_setzero_si256());
    return _mm256_andnot_si256(zero, _mm256_sub_epi64(vq, x));
  });
}

void multiply(const u64* a, const u64* b, u64* c, std::size_t n, const BarrettAlg4<u64>& r) {
  const Barrett4 br(r);
  map2(a, b, c, n, [&br](V x, V y) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    return br.reduce(hi, lo);
  });
}

/// Shoup: quot = hi(a·w'), r = a·w − quot·q (mod 2^64) ∈ [0, 2q) for any a < 2^64.
void multiply_scalar(const u64* a, ShoupOperand<u64> w, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  const V vq1 = set1(q >> 32);
  const V vw = set1(w.w);
  const V vw1 = set1(w.w >> 32);
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map1(a, c, n, [=](V x) {
    const V quot = mul_hi(x, ws, ws1);
    return reduce_once(_mm256_sub_epi64(mullo(x, vw, vw1), mullo(quot, vq, vq1)), vq);
  });
}

/// x = a·b + d < q² + q ≤ 2^(2m), then one Alg. 4.
void multiply_add(const u64* a, const u64* b, const u64* d, u64* c, std::size_t n,
                  const BarrettAlg4<u64>& r) {
  const Barrett4 br(r);
  map3(a, b, d, c, n, [&br](V x, V y, V z) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    add_carry(hi, lo, z);
    return br.reduce(hi, lo);
  });
}

/// Shoup on d = a − b + q < 2q, as multiply_scalar.
void sub_multiply_scalar(const u64* a, const u64* b, ShoupOperand<u64> w, u64* c, std::size_t n,
                         u64 q) {
  const V vq = set1(q);
  const V vq1 = set1(q >> 32);
  const V vw = set1(w.w);
  const V vw1 = set1(w.w >> 32);
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map2(a, b, c, n, [=](V x, V y) {
    const V d = _mm256_add_epi64(_mm256_sub_epi64(x, y), vq);
    const V quot = mul_hi(d, ws, ws1);
    return reduce_once(_mm256_sub_epi64(mullo(d, vw, vw1), mullo(quot, vq, vq1)), vq);
  });
}

/// r = x mod q by Shoup with w = 1, then r − s + q < 2q reduced once where x > ⌊p/2⌋.
void lift_centred(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  const V vq = set1(l.q);
  const V vq1 = set1(l.q >> 32);
  const V ws = set1(l.one_shoup);
  const V ws1 = set1(l.one_shoup >> 32);
  const V half = set1(l.half);
  const V q_minus_s = set1(l.q - l.shift);
  map1(x, c, n, [=](V v) {
    const V quot = mul_hi(v, ws, ws1);
    const V r = reduce_once(_mm256_sub_epi64(v, mullo(quot, vq, vq1)), vq);
    const V shifted = reduce_once(_mm256_add_epi64(r, q_minus_s), vq);
    return _mm256_blendv_epi8(r, shifted, _mm256_cmpgt_epi64(v, half));
  });
}

/// A key residue of w bytes (little-endian) at p: one 8-byte read masked to w bytes where eight
/// bytes remain before the key's end, else exactly w bytes (the key's last residues).
[[gnu::always_inline]] inline u64 key_word(const std::uint8_t* p, std::size_t w, u64 mask,
                                           const std::uint8_t* end) {
  u64 v = 0;
  if (p + 8 <= end) {
    std::memcpy(&v, p, 8);
    return v & mask;
  }
  std::memcpy(&v, p, w);
  return v;
}

/// Four consecutive residues of a key row.
[[gnu::always_inline]] inline V key_vector(const std::uint8_t* p, std::size_t w, u64 mask,
                                           const std::uint8_t* end) {
  return _mm256_set_epi64x(static_cast<long long>(key_word(p + 3 * w, w, mask, end)),
                           static_cast<long long>(key_word(p + 2 * w, w, mask, end)),
                           static_cast<long long>(key_word(p + w, w, mask, end)),
                           static_cast<long long>(key_word(p, w, mask, end)));
}

/// Term by term as multiply then multiply_add, four lanes at a time (two vectors per group of
/// eight words); the scalar kernel's layout and reads (n a multiple of 8, dispatcher-checked).
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  const Barrett4 br(r);
  const std::size_t row = kKeyGroup * width;
  const std::size_t stride = 2 * parts * row;
  const std::uint8_t* end = key + stride * (n / kKeyGroup);
  const u64 mask = width == 8 ? ~u64{0} : (u64{1} << (8 * width)) - 1;
  for (std::size_t i = 0; i < n; i += kKeyGroup) {
    const std::uint8_t* k = key + (i / kKeyGroup) * stride;
    for (std::size_t half = 0; half < kKeyGroup; half += avx2::kLanes) {
      const std::uint8_t* kh = k + half * width;
      V x = load(a[0] + i + half);
      V hi, lo;
      mul_wide(x, key_vector(kh, width, mask, end), hi, lo);
      V s0 = br.reduce(hi, lo);
      mul_wide(x, key_vector(kh + row, width, mask, end), hi, lo);
      V s1 = br.reduce(hi, lo);
      for (std::size_t j = 1; j < terms; ++j) {
        x = load(a[j] + i + half);
        mul_wide(x, key_vector(kh + 2 * j * row, width, mask, end), hi, lo);
        add_carry(hi, lo, s0);
        s0 = br.reduce(hi, lo);
        mul_wide(x, key_vector(kh + (2 * j + 1) * row, width, mask, end), hi, lo);
        add_carry(hi, lo, s1);
        s1 = br.reduce(hi, lo);
      }
      avx2::store(c0 + i + half, s0);
      avx2::store(c1 + i + half, s1);
    }
  }
}

ElementwiseKernels make_avx2_table() {
  ElementwiseKernels k{};
  k.path = CpuPath::avx2;
  k.add = add;
  k.sub = sub;
  k.negate = negate;
  k.multiply = multiply;
  k.multiply_scalar = multiply_scalar;
  k.multiply_add = multiply_add;
  k.sub_multiply_scalar = sub_multiply_scalar;
  k.lift_centred = lift_centred;
  k.key_inner_products = key_inner_products;
  return k;
}

}  // namespace

const ElementwiseKernels* avx2_elementwise_kernels() {
  static const ElementwiseKernels kAvx2 = make_avx2_table();
  return &kAvx2;
}

}  // namespace polyhe::cpu
