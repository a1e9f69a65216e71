// The AVX2 element-wise kernels on 64-bit words, for 2 ≤ q < 2^62: four words per vector, the
// n mod 4 tail through a padded vector. Compiled with -mavx2 -mfma (this file only) and called
// only when cpu_path() allows it. The AVX-512 kernels' arithmetic on four lanes (lanes.hpp:
// 64-bit products from vpmuludq, signed compares, which every value here allows: all stay below
// 2^63); for q < 2^50 the products of two variable words (multiply, multiply_add, the key inner
// products) are exact double-precision FMA arithmetic instead, as the AVX2 NTT's
// (ntt_avx2_fma.cpp): a·b = h + l exactly (h = fl(a·b), l by one FMA), Q = round(h·fl(1/q)) is
// within 0.875 of a·b/q (a, b < q < 2^50), and r = fl(h − Q·q) + l = a·b − Q·q exactly, in
// [−0.875q, 0.875q].
#include <cstring>
#include <vector>

#include "cpu/convert_kernel.hpp"
#include "cpu/elementwise_kernel.hpp"
#include "cpu/fma_mod.hpp"
#include "cpu/fma_weighted_sum.hpp"
#include "cpu/gather_words.hpp"
#include "doubles.hpp"
#include "lanes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::cpu {

namespace {

using avx2::load;
using avx2::map1;
using avx2::map2;
using avx2::map3;
using avx2::mul_hi;
using avx2::mul_sub_lo;
using avx2::mul_wide;
using avx2::mullo;
using avx2::reduce_once;
using avx2::set1;
using avx2::sub_mod;
using avx2::swap_halves;
using avx2::to_double;
using avx2::to_words;
using avx2::V;
using u64 = std::uint64_t;

/// [GPU-Polymul, Alg. 4] on four lanes (the AVX-512 kernel's Barrett8): x = hi·2^64 + lo < 2^(2m) ↦
/// x mod q. c = ⌊x / 2^(m−2)⌋ = hi·2^(66−m) + ⌊lo / 2^(m−2)⌋, quot = ⌊hi((c << pre)·µ)⌋ / 2^post
/// ∈ {⌊x/q⌋ − 1, ⌊x/q⌋}, so lo − quot·q (mod 2^64) ∈ [0, 2q): one correction.
class Barrett4 {
 public:
  explicit Barrett4(const BarrettAlg4<u64>& r)
      : q_(set1(r.q)),
        q_sw_(set1(swap_halves(r.q))),
        mu_(set1(r.mu << r.pre)),
        mu1_(set1((r.mu << r.pre) >> 32)),
        down_(_mm_cvtsi64_si128(r.m - 2)),
        up_(_mm_cvtsi64_si128(66 - r.m)),
        post_(_mm_cvtsi64_si128(r.post)) {}

  [[nodiscard]] V reduce(V hi, V lo) const {
    // A shift by 64 or more yields 0 (m = 2), as the scalar code's.
    const V c = _mm256_or_si256(_mm256_sll_epi64(hi, up_), _mm256_srl_epi64(lo, down_));
    const V quot = _mm256_srl_epi64(mul_hi(c, mu_, mu1_), post_);
    return reduce_once(_mm256_sub_epi64(lo, mullo(quot, q_, q_sw_)), q_);
  }

 private:
  V q_, q_sw_, mu_, mu1_;
  __m128i down_, up_, post_;
};

using D = __m256d;
/// The double-precision products mod q < 2^50 (file comment; cpu/fma_mod.hpp).
using FmaMod = FmaModLanes<Avx2Doubles>;

constexpr bool fma_serves(u64 q) {
  return q < (u64{1} << 50);
}

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
  map2(a, b, c, n, [vq](V x, V y) { return sub_mod(x, y, vq); });
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
  if (fma_serves(r.q)) {
    const FmaMod fm(r.q);
    map2(a, b, c, n,
         [&fm](V x, V y) { return to_words(fm.from_signed(fm.mul(to_double(x), to_double(y)))); });
    return;
  }
  const Barrett4 br(r);
  map2(a, b, c, n, [&br](V x, V y) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    return br.reduce(hi, lo);
  });
}

/// Shoup: quot = hi(a·w'), r = a·w − quot·q (mod 2^64) ∈ [0, 2q) for any a < 2^64.
/// For q < 2^50 in double precision (FmaMod::mul, a and w below q): five multiplies and FMAs and
/// a few additions per four words, against nine vpmuludq with their shifts and additions for the
/// 64-bit Shoup product, on the two ports that Intel's cores give both (1.59× faster at 49 bits
/// on an Intel core).
void multiply_scalar(const u64* a, ShoupOperand<u64> w, u64* c, std::size_t n, u64 q) {
  if (fma_serves(q)) {
    const FmaMod fm(q);
    const D vw = _mm256_set1_pd(static_cast<double>(w.w));
    map1(a, c, n, [&](V x) { return to_words(fm.from_signed(fm.mul(to_double(x), vw))); });
    return;
  }
  const V vq = set1(q);
  const V vq_sw = set1(swap_halves(q));
  const V vw = set1(w.w);
  const V vw_sw = set1(swap_halves(w.w));
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map1(a, c, n, [=](V x) {
    const V quot = mul_hi(x, ws, ws1);
    return reduce_once(mul_sub_lo(x, vw, vw_sw, quot, vq, vq_sw), vq);
  });
}

/// x = a·b + d < q² + q ≤ 2^(2m), then one [GPU-Polymul, Alg. 4].
void multiply_add(const u64* a, const u64* b, const u64* d, u64* c, std::size_t n,
                  const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {
    const FmaMod fm(r.q);
    map3(a, b, d, c, n, [&fm](V x, V y, V z) {
      return to_words(
          fm.from_near(_mm256_add_pd(fm.mul(to_double(x), to_double(y)), to_double(z))));
    });
    return;
  }
  const Barrett4 br(r);
  map3(a, b, d, c, n, [&br](V x, V y, V z) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    add_carry(hi, lo, z);
    return br.reduce(hi, lo);
  });
}

/// Shoup on d = a − b + q < 2q, as multiply_scalar; for q < 2^50 d = (a − b) mod q < q (the
/// operand range of FmaMod::mul), in double precision.
void sub_multiply_scalar(const u64* a, const u64* b, ShoupOperand<u64> w, u64* c, std::size_t n,
                         u64 q) {
  if (fma_serves(q)) {
    const V vq = set1(q);
    const FmaMod fm(q);
    const D vw = _mm256_set1_pd(static_cast<double>(w.w));
    map2(a, b, c, n, [&](V x, V y) {
      const V d = sub_mod(x, y, vq);
      return to_words(fm.from_signed(fm.mul(to_double(d), vw)));
    });
    return;
  }
  const V vq = set1(q);
  const V vq_sw = set1(swap_halves(q));
  const V vw = set1(w.w);
  const V vw_sw = set1(swap_halves(w.w));
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map2(a, b, c, n, [=](V x, V y) {
    const V d = _mm256_add_epi64(_mm256_sub_epi64(x, y), vq);
    const V quot = mul_hi(d, ws, ws1);
    return reduce_once(mul_sub_lo(d, vw, vw_sw, quot, vq, vq_sw), vq);
  });
}

/// The centred lift in double precision, for q < 2^50 and p < 2^52 (⌊p/2⌋ < 2^51): d = x, or
/// x − (p mod q) where x > ⌊p/2⌋ (exact, |d| < 2^52), centred mod q and brought to [0, q).
/// Two multiplies and about a dozen additions, compares and masks per four words, against the
/// integer form's seven vpmuludq and six shifts.
void lift_centred_fma(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  const FmaMod fm(l.q);
  const Avx2Doubles::LiftConst shift{set1(l.half), _mm256_set1_pd(static_cast<double>(l.shift))};
  map1(x, c, n, [&](V v) { return to_words(fm.canonical(Avx2Doubles::lift_raw(v, shift))); });
}

/// r = x mod q by Shoup with w = 1, then r − s + q < 2q reduced once where x > ⌊p/2⌋.
void lift_centred(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  if (fma_serves(l.q) && l.half < (u64{1} << 51)) {
    lift_centred_fma(x, c, n, l);
    return;
  }
  const V vq = set1(l.q);
  const V vq_sw = set1(swap_halves(l.q));
  const V ws = set1(l.one_shoup);
  const V ws1 = set1(l.one_shoup >> 32);
  const V half = set1(l.half);
  const V q_minus_s = set1(l.q - l.shift);
  map1(x, c, n, [=](V v) {
    const V quot = mul_hi(v, ws, ws1);
    const V r = reduce_once(_mm256_sub_epi64(v, mullo(quot, vq, vq_sw)), vq);
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

/// Four residues of w bytes at p by two 16-byte loads (p and p + 2w) and one byte shuffle that
/// also clears the bytes above w; reads [p, p + 2w + 16), so only where that stays inside the key
/// (over_key_halves: every group but the last).
class KeyShuffle {
 public:
  explicit KeyShuffle(std::size_t w) : w_(w) {
    alignas(32) std::uint8_t control[32];
    for (std::size_t half = 0; half < 2; ++half) {
      for (std::size_t i = 0; i < 16; ++i) {
        const std::size_t lane = i / 8;
        const std::size_t b = i % 8;
        control[16 * half + i] = b < w ? static_cast<std::uint8_t>(lane * w + b) : 0x80;
      }
    }
    control_ = _mm256_load_si256(reinterpret_cast<const __m256i*>(control));
  }
  [[nodiscard]] V operator()(const std::uint8_t* p) const {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * w_));
    return _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), control_);
  }

 private:
  std::size_t w_;
  V control_;
};

/// Runs group(i, kh, row, unpack) for each half (four coefficients at i) of each group of eight
/// in the key (n a multiple of 8, dispatcher-checked): kh the half's first residue of b_0, row the
/// bytes of one part's eight residues in a group, unpack(p) the four residues at p. The
/// key's last group reads its residues exactly (key_vector); every other group by one shuffle
/// each (KeyShuffle), whose farthest read (the last row's second half) ends at most 16 − 2·width
/// bytes past the group, inside the next one (2·parts·row ≥ 16 bytes). The group body is
/// instantiated once for each reader, so that the hot loop carries no fallback: with it inlined
/// there, GCC kept the sums and constants on the stack (seen with perf annotate).
template <class Group>
[[gnu::always_inline]] inline void over_key_halves(const std::uint8_t* key, std::size_t parts,
                                                   std::size_t width, std::size_t n, Group group) {
  const KeyShuffle shuffle(width);
  const std::size_t row = kKeyGroup * width;
  const std::size_t stride = 2 * parts * row;
  const std::uint8_t* end = key + stride * (n / kKeyGroup);
  const u64 mask = width == 8 ? ~u64{0} : (u64{1} << (8 * width)) - 1;
  const auto shuffled = [&shuffle](const std::uint8_t* p) { return shuffle(p); };
  const auto exact = [width, mask, end](const std::uint8_t* p) {
    return key_vector(p, width, mask, end);
  };
  const std::size_t last = n - kKeyGroup;
  for (std::size_t i = 0; i <= last; i += kKeyGroup) {
    const std::uint8_t* k = key + (i / kKeyGroup) * stride;
    for (std::size_t half = 0; half < kKeyGroup; half += avx2::kLanes) {
      if (i < last) {
        group(i + half, k + half * width, row, shuffled);
      } else {
        group(i + half, k + half * width, row, exact);
      }
    }
  }
}

/// The key inner products for q < 2^50 in double precision: each product reduced to
/// [−0.875q, 0.875q] (FmaMod::mul), the sums exact below 2^53 and centred every eight terms
/// (|·| ≤ q/2 + 1 + 8·0.875q < 7.5q + 1), brought to [0, q) at the end.
void key_inner_products_fma(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                            std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                            u64 q) {
  const FmaMod fm(q);
  over_key_halves(key, parts, width, n,
                  [&](std::size_t i, const std::uint8_t* kh, std::size_t row, auto unpack) {
                    D s0 = _mm256_setzero_pd();
                    D s1 = _mm256_setzero_pd();
                    for (std::size_t j = 0; j < terms; ++j) {
                      const D x = to_double(load(a[j] + i));
                      s0 = _mm256_add_pd(s0, fm.mul(x, to_double(unpack(kh + 2 * j * row))));
                      s1 = _mm256_add_pd(s1, fm.mul(x, to_double(unpack(kh + (2 * j + 1) * row))));
                      if (j % 8 == 7) {
                        s0 = fm.centre(s0);
                        s1 = fm.centre(s1);
                      }
                    }
                    avx2::store(c0 + i, to_words(fm.canonical(s0)));
                    avx2::store(c1 + i, to_words(fm.canonical(s1)));
                  });
}

/// (h, l) += hi·2^64 + lo, modulo 2^128.
[[gnu::always_inline]] inline void add_wide(V& h, V& l, V hi, V lo) {
  add_carry(h, l, lo);
  h = _mm256_add_epi64(h, hi);
}

/// h·2^64 + l mod q for q < 2^62, any h, l < 2^64: Shoup products by 2^64 mod q and by 1 (each in
/// [0, 2q) for any 64-bit operand), each brought to [0, q), and their sum once more.
class Fold128 {
 public:
  explicit Fold128(u64 q) : q_(set1(q)), q_sw_(set1(swap_halves(q))) {
    const auto r = static_cast<u64>((u128{1} << 64) % q);
    const ShoupOperand<u64> wr = make_shoup(r, q), w1 = make_shoup(u64{1}, q);
    r_ = set1(r);
    r_sw_ = set1(swap_halves(r));
    rs_ = set1(wr.w_shoup);
    rs1_ = set1(wr.w_shoup >> 32);
    os_ = set1(w1.w_shoup);
    os1_ = set1(w1.w_shoup >> 32);
  }
  [[nodiscard]] V operator()(V h, V l) const {
    const V th = mul_sub_lo(h, r_, r_sw_, mul_hi(h, rs_, rs1_), q_, q_sw_);
    const V tl = _mm256_sub_epi64(l, mullo(mul_hi(l, os_, os1_), q_, q_sw_));
    return reduce_once(_mm256_add_epi64(reduce_once(th, q_), reduce_once(tl, q_)), q_);
  }

 private:
  V q_, q_sw_, r_, r_sw_, rs_, rs1_, os_, os1_;
};

/// Four lanes at a time (two vectors per group of eight words), the scalar kernel's layout and
/// reads: in double precision below 2^50, else in 64-bit lanes, the products' 128-bit sums kept
/// lazily (15 products and a residue stay below 2^128 for q < 2^62) and folded to [0, q) once per
/// 15 terms and at the end (Fold128), as the scalar loop's lazy sums (one reduction per term, as
/// before, took 1.6× the scalar loop's time on an Intel core).
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {
    key_inner_products_fma(a, terms, key, parts, width, c0, c1, n, r.q);
    return;
  }
  constexpr std::size_t kLazyTerms = 15;
  const Fold128 fold(r.q);
  over_key_halves(key, parts, width, n,
                  [&](std::size_t i, const std::uint8_t* kh, std::size_t row, auto unpack) {
                    V h0 = _mm256_setzero_si256(), l0 = h0, h1 = h0, l1 = h0;
                    for (std::size_t j = 0; j < terms; ++j) {
                      const V x = load(a[j] + i);
                      V hi, lo;
                      mul_wide(x, unpack(kh + 2 * j * row), hi, lo);
                      add_wide(h0, l0, hi, lo);
                      mul_wide(x, unpack(kh + (2 * j + 1) * row), hi, lo);
                      add_wide(h1, l1, hi, lo);
                      if (j % kLazyTerms == kLazyTerms - 1 && j + 1 < terms) {
                        l0 = fold(h0, l0);
                        l1 = fold(h1, l1);
                        h0 = h1 = _mm256_setzero_si256();
                      }
                    }
                    avx2::store(c0 + i, fold(h0, l0));
                    avx2::store(c1 + i, fold(h1, l1));
                  });
}

/// out[k] = Σ_i x_i[k]·w_i mod c (convert_kernel.hpp), four lanes at a time
/// (cpu/fma_weighted_sum.hpp).
void weighted_sum_fma(const u64* const* x, std::size_t terms, const u64* w, u64* out, std::size_t n,
                      u64 c) {
  fma_weighted_sum<Avx2Doubles>(x, terms, w, out, n, c);
}

/// One pair product of fused_hadamard on four lanes (x0, x1, y0, y1 in [0, q)): u = x0·y0,
/// v = x1·y1, s = (x0 + x1)(y0 + y1); c1 = s − u − v, c0 = u + (±α²)·v, all in [0, q).
template <class Mul>
[[gnu::always_inline]] inline void pair_product(V x0, V x1, V y0, V y1, V alpha2, V vq, Mul mul,
                                                V& c0, V& c1) {
  const V u = mul(x0, y0);
  const V v = mul(x1, y1);
  const V s =
      mul(reduce_once(_mm256_add_epi64(x0, x1), vq), reduce_once(_mm256_add_epi64(y0, y1), vq));
  const V z = mul(v, alpha2);
  c1 = sub_mod(sub_mod(s, u, vq), v, vq);
  c0 = reduce_once(_mm256_add_epi64(u, z), vq);
}

/// The pairs of eight words (a[8k … 8k + 7]) split by unpacklo/unpackhi over its two vectors
/// (lanes: pairs 4k, 4k + 2, 4k + 1, 4k + 3, the order of alpha2's entries) and merged back the
/// same way.
template <class Mul>
void fused_pairs(const u64* a, const u64* b, const u64* alpha2, u64* c, std::size_t n, u64 q,
                 Mul mul) {
  const V vq = set1(q);
  for (std::size_t i = 0; i < n; i += 8) {
    const V a_lo = load(a + i), a_hi = load(a + i + 4);
    const V b_lo = load(b + i), b_hi = load(b + i + 4);
    V c0, c1;
    pair_product(_mm256_unpacklo_epi64(a_lo, a_hi), _mm256_unpackhi_epi64(a_lo, a_hi),
                 _mm256_unpacklo_epi64(b_lo, b_hi), _mm256_unpackhi_epi64(b_lo, b_hi),
                 load(alpha2 + i / 2), vq, mul, c0, c1);
    avx2::store(c + i, _mm256_unpacklo_epi64(c0, c1));
    avx2::store(c + i + 4, _mm256_unpackhi_epi64(c0, c1));
  }
}

/// The gathers group by group, as the AVX-512 kernel (elementwise_avx512.cpp): where the eight
/// indices of an aligned group of outputs fall in one aligned group of eight source words, two
/// loads and, per output vector, two 32-bit permutes (vpermd) of the two source vectors by the
/// indices' low two bits and a blend by their third; any other group word by word. kAdd: added to
/// c mod q.
template <bool kAdd>
void gather_groups(const u64* a, std::size_t a_size, const std::uint32_t* index, u64* c,
                   std::size_t n, u64 q) {
  const __m256i seven = _mm256_set1_epi32(7);
  const __m256i three = _mm256_set1_epi32(3);
  const __m256i odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  const __m256i dup_lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  const __m256i dup_hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
  const V vq = set1(q);
  // A map whose first group is not of that shape (the automorphisms of odd-m rings have no group
  // of it) takes the scalar loop throughout: checking every group would only slow it.
  if (!starts_grouped(index, n)) {
    gather_words<kAdd>(a, index, c, n, q);
    return;
  }
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (i + kGatherAhead < n) {
      _mm_prefetch(reinterpret_cast<const char*>(a + index[i + kGatherAhead]), _MM_HINT_T0);
    }
    const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + i));
    const std::uint32_t base = index[i] & ~std::uint32_t{7};
    const __m256i same = _mm256_cmpeq_epi32(_mm256_andnot_si256(seven, idx),
                                            _mm256_set1_epi32(static_cast<int>(base)));
    if (_mm256_movemask_epi8(same) != -1 || std::size_t{base} + 8 > a_size) {
      for (std::size_t r = i; r < i + 8; ++r) gather_word<kAdd>(a, index, c, r, q);
      continue;
    }
    const V lo = load(a + base);
    const V hi = load(a + base + 4);
    const __m256i pos = _mm256_and_si256(idx, seven);
    // Output lane r of a vector: both 32-bit halves of lane r carry pos_r (dup); the halves'
    // indices 2·(pos_r mod 4) and 2·(pos_r mod 4) + 1 pick the word from lo and from hi, and bit 2
    // of pos_r, moved to each half's sign bit, chooses between them.
    const auto pick = [&](__m256i dup) {
      const __m256i p = _mm256_permutevar8x32_epi32(pos, dup);
      const __m256i ctrl = _mm256_add_epi32(_mm256_slli_epi32(_mm256_and_si256(p, three), 1), odd);
      const __m256 from_lo = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(lo, ctrl));
      const __m256 from_hi = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(hi, ctrl));
      return _mm256_castps_si256(
          _mm256_blendv_ps(from_lo, from_hi, _mm256_castsi256_ps(_mm256_slli_epi32(p, 29))));
    };
    V x0 = pick(dup_lo);
    V x1 = pick(dup_hi);
    if constexpr (kAdd) {
      x0 = reduce_once(_mm256_add_epi64(load(c + i), x0), vq);
      x1 = reduce_once(_mm256_add_epi64(load(c + i + 4), x1), vq);
    }
    avx2::store(c + i, x0);
    avx2::store(c + i + 4, x1);
  }
  for (; i < n; ++i) gather_word<kAdd>(a, index, c, i, q);
}

void gather(const u64* a, std::size_t a_size, const std::uint32_t* index, u64* c, std::size_t n) {
  gather_groups<false>(a, a_size, index, c, n, 0);
}

void gather_add(const u64* a, std::size_t a_size, const std::uint32_t* index, u64* c, std::size_t n,
                u64 q) {
  gather_groups<true>(a, a_size, index, c, n, q);
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
  k.gather = gather;
  k.gather_add = gather_add;
  return k;
}

}  // namespace

void avx2_fused_hadamard(const u64* a, const u64* b, const u64* alpha2, u64* c, std::size_t n,
                         const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {
    const FmaMod fm(r.q);
    fused_pairs(a, b, alpha2, c, n, r.q, [&fm](V x, V y) {
      return to_words(fm.from_signed(fm.mul(to_double(x), to_double(y))));
    });
    return;
  }
  const Barrett4 br(r);
  fused_pairs(a, b, alpha2, c, n, r.q, [&br](V x, V y) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    return br.reduce(hi, lo);
  });
}

WeightedSumFmaKernel avx2_weighted_sum_kernel() {
  return &weighted_sum_fma;
}

const ElementwiseKernels* avx2_elementwise_kernels() {
  static const ElementwiseKernels kAvx2 = make_avx2_table();
  return &kAvx2;
}

}  // namespace polyhe::cpu
