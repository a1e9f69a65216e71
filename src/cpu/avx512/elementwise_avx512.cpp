// The AVX-512 F/DQ element-wise kernels on 64-bit words, for 2 ≤ q < 2^62: eight words per
// vector, the n mod 8 tail in one masked vector. Compiled with -mavx512f/dq/vl/bw (this file
// only) and called only when cpu_path() allows it.
//
// 64×64-bit products have no AVX-512F instruction: the 128-bit product is assembled from the four
// 32×32-bit partial products of vpmuludq; low words of products by q use vpmullq (DQ). Below 2^50
// the products (multiply, multiply_add, multiply_scalar, sub_multiply_scalar), the centred lift
// and the key inner products are in exact double precision instead (cpu/fma_mod.hpp): a 49-bit
// multiply measured 2.4× faster so on an Intel core.
#include "cpu/elementwise_kernel.hpp"
#include "cpu/fma_mod.hpp"
#include "cpu/gather_words.hpp"
#include "doubles.hpp"
#include "lanes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;

/// The 128-bit product a·b as hi·2^64 + lo. With a = a1·2^32 + a0, b = b1·2^32 + b0:
/// t = a1·b0 + ⌊a0·b0 / 2^32⌋ < 2^64 and u = a0·b1 + (t mod 2^32) < 2^64, so
/// hi = a1·b1 + ⌊t / 2^32⌋ + ⌊u / 2^32⌋ and lo = (u mod 2^32)·2^32 + (a0·b0 mod 2^32).
inline void mul_wide(V a, V b, V& hi, V& lo) {
  const V mask32 = set1(0xFFFFFFFFULL);
  const V a1 = _mm512_srli_epi64(a, 32);
  const V b1 = _mm512_srli_epi64(b, 32);
  const V p00 = _mm512_mul_epu32(a, b);
  const V t = _mm512_add_epi64(_mm512_mul_epu32(a1, b), _mm512_srli_epi64(p00, 32));
  const V u = _mm512_add_epi64(_mm512_mul_epu32(a, b1), _mm512_and_si512(t, mask32));
  hi = _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a1, b1), _mm512_srli_epi64(t, 32)),
                        _mm512_srli_epi64(u, 32));
  // (u << 32) | (p00 & mask32): ternary-logic A | (B & C) = 0xF8.
  lo = _mm512_ternarylogic_epi64(_mm512_slli_epi64(u, 32), p00, mask32, 0xF8);
}

/// hi(a·b) for a constant b whose high half b1 = ⌊b / 2^32⌋ is precomputed; as mul_wide.
inline V mul_hi(V a, V b, V b1) {
  const V mask32 = set1(0xFFFFFFFFULL);
  const V a1 = _mm512_srli_epi64(a, 32);
  const V p00 = _mm512_mul_epu32(a, b);
  const V t = _mm512_add_epi64(_mm512_mul_epu32(a1, b), _mm512_srli_epi64(p00, 32));
  const V u = _mm512_add_epi64(_mm512_mul_epu32(a, b1), _mm512_and_si512(t, mask32));
  return _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(a1, b1), _mm512_srli_epi64(t, 32)),
                          _mm512_srli_epi64(u, 32));
}

/// [GPU-Polymul, Alg. 4] on eight lanes: x = hi·2^64 + lo < 2^(2m) ↦ x mod q, with the constants of
/// BarrettAlg4 (m = len(q) ≤ 62). c = ⌊x / 2^(m−2)⌋ = hi·2^(66−m) + ⌊lo / 2^(m−2)⌋ < 2^(m+2)
/// (a shift by 64 yields 0, as m = 2 needs); quot = ⌊c·(µ·2^pre) / 2^64⌋ / 2^post, which is
/// barrett_quotient's ⌊hi((c << pre)·µ) / 2^post⌋ with µ·2^pre < 2^64 (µ ≤ 2^(m+2),
/// pre = 61 − m). quot ∈ {⌊x/q⌋ − 1, ⌊x/q⌋}, so lo − quot·q (mod 2^64) ∈ [0, 2q).
class Barrett8 {
 public:
  explicit Barrett8(const BarrettAlg4<u64>& r)
      : q_(set1(r.q)),
        mu_(set1(r.mu << r.pre)),
        mu1_(set1((r.mu << r.pre) >> 32)),
        down_(shift_count(r.m - 2)),
        up_(shift_count(66 - r.m)),
        post_(shift_count(r.post)) {}

  [[nodiscard]] V reduce(V hi, V lo) const {
    const V c = _mm512_or_si512(_mm512_sll_epi64(hi, up_), _mm512_srl_epi64(lo, down_));
    const V quot = _mm512_srl_epi64(mul_hi(c, mu_, mu1_), post_);
    return reduce_once(_mm512_sub_epi64(lo, _mm512_mullo_epi64(quot, q_)), q_);
  }
  [[nodiscard]] V q() const { return q_; }

 private:
  V q_, mu_, mu1_;
  __m128i down_, up_, post_;
};

/// The double-precision products mod q < 2^50 (cpu/fma_mod.hpp): an exact product split by one
/// FMA and a quotient from a rounded multiply by 1/q, where the integer forms assemble a 128-bit
/// product from four vpmuludq.
using L = Avx512Doubles;
using FmaMod = FmaModLanes<L>;

constexpr bool fma_serves(u64 q) {
  return q < (u64{1} << 50);
}

// --- Kernels.

void add(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map2(a, b, c, n, [vq](V x, V y) { return reduce_once(_mm512_add_epi64(x, y), vq); });
}

/// x − y mod q for x, y in [0, q): d = x − y wraps above 2^64 − q exactly when x < y; then
/// d + q (mod 2^64) < d is the answer.
inline V sub_mod(V x, V y, V vq) {
  const V d = _mm512_sub_epi64(x, y);
  return _mm512_min_epu64(d, _mm512_add_epi64(d, vq));
}

void sub(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map2(a, b, c, n, [vq](V x, V y) { return sub_mod(x, y, vq); });
}

/// q − a where a ≠ 0, and 0 where a = 0.
void negate(const u64* a, u64* c, std::size_t n, u64 q) {
  const V vq = set1(q);
  map1(a, c, n, [vq](V x) { return _mm512_maskz_sub_epi64(_mm512_test_epi64_mask(x, x), vq, x); });
}

void multiply(const u64* a, const u64* b, u64* c, std::size_t n, const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {
    const FmaMod fm(r.q);
    map2(a, b, c, n, [&fm](V x, V y) {
      return L::words(fm.from_signed(fm.mul(L::to_double(x), L::to_double(y))));
    });
    return;
  }
  const Barrett8 br(r);
  map2(a, b, c, n, [&br](V x, V y) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    return br.reduce(hi, lo);
  });
}

/// Shoup: quot = hi(a·w'), r = a·w − quot·q (mod 2^64) ∈ [0, 2q) for any a < 2^64. For q < 2^50
/// in double precision (FmaMod::mul, a and w below q).
void multiply_scalar(const u64* a, ShoupOperand<u64> w, u64* c, std::size_t n, u64 q) {
  if (fma_serves(q)) {
    const FmaMod fm(q);
    const __m512d vw = L::set1(static_cast<double>(w.w));
    map1(a, c, n, [&](V x) { return L::words(fm.from_signed(fm.mul(L::to_double(x), vw))); });
    return;
  }
  const V vq = set1(q);
  const V vw = set1(w.w);
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map1(a, c, n, [=](V x) {
    const V quot = mul_hi(x, ws, ws1);
    return reduce_once(_mm512_sub_epi64(_mm512_mullo_epi64(x, vw), _mm512_mullo_epi64(quot, vq)),
                       vq);
  });
}

/// x = a·b + d < q² + q ≤ 2^(2m): the 128-bit product plus d with its carry, then one
/// [GPU-Polymul, Alg. 4]. For q < 2^50 in double precision (the product, then d added).
void multiply_add(const u64* a, const u64* b, const u64* d, u64* c, std::size_t n,
                  const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {  // a·b in [−0.875q, 0.875q], plus d < q: (−q, 2q)
    const FmaMod fm(r.q);
    map3(a, b, d, c, n, [&fm](V x, V y, V z) {
      return L::words(
          fm.from_near(L::add(fm.mul(L::to_double(x), L::to_double(y)), L::to_double(z))));
    });
    return;
  }
  const Barrett8 br(r);
  const V one = set1(1);
  map3(a, b, d, c, n, [&br, one](V x, V y, V z) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    lo = _mm512_add_epi64(lo, z);
    hi = _mm512_mask_add_epi64(hi, _mm512_cmplt_epu64_mask(lo, z), hi, one);
    return br.reduce(hi, lo);
  });
}

/// Shoup on d = a − b + q < 2q, as multiply_scalar; for q < 2^50 d = (a − b) mod q < q (as sub),
/// in double precision.
void sub_multiply_scalar(const u64* a, const u64* b, ShoupOperand<u64> w, u64* c, std::size_t n,
                         u64 q) {
  if (fma_serves(q)) {
    const V vq = set1(q);
    const FmaMod fm(q);
    const __m512d vw = L::set1(static_cast<double>(w.w));
    map2(a, b, c, n, [&](V x, V y) {
      return L::words(fm.from_signed(fm.mul(L::to_double(sub_mod(x, y, vq)), vw)));
    });
    return;
  }
  const V vq = set1(q);
  const V vw = set1(w.w);
  const V ws = set1(w.w_shoup);
  const V ws1 = set1(w.w_shoup >> 32);
  map2(a, b, c, n, [=](V x, V y) {
    const V d = _mm512_add_epi64(_mm512_sub_epi64(x, y), vq);
    const V quot = mul_hi(d, ws, ws1);
    return reduce_once(_mm512_sub_epi64(_mm512_mullo_epi64(d, vw), _mm512_mullo_epi64(quot, vq)),
                       vq);
  });
}

/// The centred lift in double precision, for q < 2^50 and p < 2^52 (⌊p/2⌋ < 2^51), as the AVX2
/// kernel's: d = x, or x − (p mod q) where x > ⌊p/2⌋ (exact, |d| < 2^52), centred mod q and
/// brought to [0, q).
void lift_centred_fma(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  const FmaMod fm(l.q);
  const L::LiftConst shift{set1(l.half), L::set1(static_cast<double>(l.shift))};
  map1(x, c, n, [&](V v) { return L::words(fm.canonical(L::lift_raw(v, shift))); });
}

/// r = x mod q by Shoup with w = 1 (x − hi(x·⌊2^64/q⌋)·q ∈ [0, 2q), one correction); then
/// r − s + q < 2q reduced once, selected where x > ⌊p/2⌋.
void lift_centred(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  if (fma_serves(l.q) && l.half < (u64{1} << 51)) {
    lift_centred_fma(x, c, n, l);
    return;
  }
  const V vq = set1(l.q);
  const V ws = set1(l.one_shoup);
  const V ws1 = set1(l.one_shoup >> 32);
  const V half = set1(l.half);
  const V q_minus_s = set1(l.q - l.shift);
  map1(x, c, n, [=](V v) {
    const V quot = mul_hi(v, ws, ws1);
    const V r = reduce_once(_mm512_sub_epi64(v, _mm512_mullo_epi64(quot, vq)), vq);
    const V shifted = reduce_once(_mm512_add_epi64(r, q_minus_s), vq);
    return _mm512_mask_blend_epi64(_mm512_cmpgt_epu64_mask(v, half), r, shifted);
  });
}

/// h·2^64 + l mod q for q < 2^62, any h, l < 2^64: Shoup products by 2^64 mod q and by 1 (each in
/// [0, 2q) for any 64-bit operand), each brought to [0, q), and their sum once more (the AVX2
/// kernel's Fold128 on eight lanes).
class Fold8 {
 public:
  explicit Fold8(u64 q) : q_(set1(q)) {
    const auto r = static_cast<u64>((u128{1} << 64) % q);
    const ShoupOperand<u64> wr = make_shoup(r, q), w1 = make_shoup(u64{1}, q);
    r_ = set1(r);
    rs_ = set1(wr.w_shoup);
    rs1_ = set1(wr.w_shoup >> 32);
    os_ = set1(w1.w_shoup);
    os1_ = set1(w1.w_shoup >> 32);
  }
  [[nodiscard]] V operator()(V h, V l) const {
    const V th =
        _mm512_sub_epi64(_mm512_mullo_epi64(h, r_), _mm512_mullo_epi64(mul_hi(h, rs_, rs1_), q_));
    const V tl = _mm512_sub_epi64(l, _mm512_mullo_epi64(mul_hi(l, os_, os1_), q_));
    return reduce_once(_mm512_add_epi64(reduce_once(th, q_), reduce_once(tl, q_)), q_);
  }

 private:
  V q_, r_, rs_, rs1_, os_, os1_;
};

/// The key inner products for q < 2^50 in double precision (cpu/fma_mod.hpp): each product
/// FmaModLanes::mul's, in [−0.875q, 0.875q], the sums exact and centred every eight terms
/// (|·| < q/2 + 1 + 8·0.875q < 2^53), brought to [0, q) at the end. The same groups, unpacking
/// and prefetching as the integer form below.
void key_inner_products_fma(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                            std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                            u64 q) {
  const FmaMod fm(q);
  const KeyUnpack unpack(width);
  const std::size_t row = kKeyGroup * width;  // bytes of one half of one part in a group
  const std::size_t stride = 2 * parts * row;
  for (std::size_t i = 0; i < n; i += kKeyGroup) {
    const std::uint8_t* k = key + (i / kKeyGroup) * stride;
    __m512d s0 = _mm512_setzero_pd(), s1 = s0;
    for (std::size_t j = 0; j < terms; ++j) {
      prefetch_key(k, j, row, width);
      const __m512d x = L::from_words(a[j] + i);
      s0 = L::add(s0, fm.mul(x, L::to_double(unpack(k + 2 * j * row))));
      s1 = L::add(s1, fm.mul(x, L::to_double(unpack(k + (2 * j + 1) * row))));
      if (j % 8 == 7) {
        s0 = fm.centre(s0);
        s1 = fm.centre(s1);
      }
    }
    L::to_words(c0 + i, fm.canonical(s0));
    L::to_words(c1 + i, fm.canonical(s1));
  }
}

/// Eight lanes per group of eight words. The key is one sequential stream of packed residues
/// (KeyUnpack), prefetched kKeyAhead residues ahead (the hardware prefetcher alone runs too short
/// a distance ahead of it). The products' 128-bit sums are kept lazily (15 products and a residue
/// stay below 2^128 for q < 2^62) and folded to [0, q) once per 15 terms and at the end (Fold8), as
/// the scalar loop's lazy sums: a reduction per term, as before, took 1.7–2.0× as long at 60 bits
/// on an Intel core. Primes below 2^50 take key_inner_products_fma.
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  if (fma_serves(r.q)) {
    key_inner_products_fma(a, terms, key, parts, width, c0, c1, n, r.q);
    return;
  }
  constexpr std::size_t kLazyTerms = 15;
  const Fold8 fold(r.q);
  const KeyUnpack unpack(width);
  const V one = set1(1);
  const std::size_t row = kKeyGroup * width;  // bytes of one half of one part in a group
  const std::size_t stride = 2 * parts * row;
  const auto accumulate = [one](V x, V y, V& h, V& l) {
    V hi, lo;
    mul_wide(x, y, hi, lo);
    l = _mm512_add_epi64(l, lo);
    h = _mm512_add_epi64(h, hi);
    h = _mm512_mask_add_epi64(h, _mm512_cmplt_epu64_mask(l, lo), h, one);
  };
  for (std::size_t i = 0; i < n; i += kKeyGroup) {
    const std::uint8_t* k = key + (i / kKeyGroup) * stride;
    V h0 = _mm512_setzero_si512(), l0 = h0, h1 = h0, l1 = h0;
    for (std::size_t j = 0; j < terms; ++j) {
      prefetch_key(k, j, row, width);
      const V x = _mm512_loadu_si512(a[j] + i);
      accumulate(x, unpack(k + 2 * j * row), h0, l0);
      accumulate(x, unpack(k + (2 * j + 1) * row), h1, l1);
      if (j % kLazyTerms == kLazyTerms - 1 && j + 1 < terms) {
        l0 = fold(h0, l0);
        l1 = fold(h1, l1);
        h0 = h1 = _mm512_setzero_si512();
      }
    }
    _mm512_storeu_si512(c0 + i, fold(h0, l0));
    _mm512_storeu_si512(c1 + i, fold(h1, l1));
  }
}

/// The gathers group by group: where the eight indices of an aligned group of outputs fall in one
/// aligned group of eight source words (an automorphism in evaluation form, ring/automorphism.cpp),
/// one load and one permute by the indices' low three bits; any other group (a map of another
/// shape, or a source group past a_size) word by word. kAdd: added to c mod q.
template <bool kAdd>
void gather_groups(const u64* a, std::size_t a_size, const std::uint32_t* index, u64* c,
                   std::size_t n, u64 q) {
  const __m256i seven = _mm256_set1_epi32(7);
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
    const __m256i groups = _mm256_andnot_si256(seven, idx);
    if (_mm256_cmpneq_epi32_mask(groups, _mm256_set1_epi32(static_cast<int>(base))) == 0 &&
        std::size_t{base} + 8 <= a_size) {
      const V lanes = _mm512_cvtepu32_epi64(_mm256_and_si256(idx, seven));
      V x = _mm512_permutexvar_epi64(lanes, _mm512_loadu_si512(a + base));
      if constexpr (kAdd) x = reduce_once(_mm512_add_epi64(_mm512_loadu_si512(c + i), x), vq);
      _mm512_storeu_si512(c + i, x);
    } else {
      for (std::size_t r = i; r < i + 8; ++r) gather_word<kAdd>(a, index, c, r, q);
    }
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

constexpr ElementwiseKernels kAvx512{CpuPath::avx512,
                                     add,
                                     sub,
                                     negate,
                                     multiply,
                                     multiply_scalar,
                                     multiply_add,
                                     sub_multiply_scalar,
                                     lift_centred,
                                     key_inner_products,
                                     gather,
                                     gather_add};

}  // namespace

const ElementwiseKernels* avx512_elementwise_kernels() {
  return &kAvx512;
}

}  // namespace polyhe::cpu
