// Arithmetic modulo one prime q < 2^50 on eight 64-bit lanes with AVX-512 IFMA52, for the IFMA
// NTT kernel (ntt_ifma.cpp; include only from translation units built with the IFMA flags).
//
// vpmadd52luq / vpmadd52huq add the low / high 52 bits of the 104-bit product of the low 52
// bits of two lanes to a 64-bit accumulator. With q < 2^50, every value the kernel multiplies is
// below 4q < 2^52, so both halves of a product are exact, and the word size of Shoup's and
// Barrett's methods is β = 52 instead of 64.
//
// Everything in the ntt_ifma_*.hpp headers has internal linkage: it is compiled with the IFMA
// flags, and the linker must never merge such a copy into code built for another instruction
// set (as for src/cpu/avx512/lanes.hpp).
#pragma once

// GCC 12 reports its own _mm512_undefined_epi32() (inlined into min, shifts) as
// (maybe-)uninitialized (GCC PR 105593, fixed in GCC 13); the pragma must be in force where
// the intrinsics header is read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

#include <cstdint>

namespace polyhe::cpu::ifma {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see the file comment

using u64 = std::uint64_t;
using V = __m512i;

inline constexpr u64 kMask52 = (u64{1} << 52) - 1;

inline V load(const u64* p) {
  return _mm512_loadu_si512(p);
}
inline void store(u64* p, V v) {
  _mm512_storeu_si512(p, v);
}
inline V splat(u64 x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}
/// (p[0], p[1]) repeated four times; (p[0], …, p[3]) repeated twice.
inline V splat_x2(const u64* p) {
  return _mm512_broadcast_i64x2(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline V splat_x4(const u64* p) {
  return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
inline V add(V a, V b) {
  return _mm512_add_epi64(a, b);
}
inline V sub(V a, V b) {
  return _mm512_sub_epi64(a, b);
}
/// acc + lo52(a·b) and acc + hi52(a·b), reading only the low 52 bits of a and b.
inline V madd_lo(V acc, V a, V b) {
  return _mm512_madd52lo_epu64(acc, a, b);
}
inline V madd_hi(V acc, V a, V b) {
  return _mm512_madd52hi_epu64(acc, a, b);
}
/// The word (x[idx[i]] for idx[i] < 8, y[idx[i] − 8] otherwise) in lane i.
inline V permute2(V x, V idx, V y) {
  return _mm512_permutex2var_epi64(x, idx, y);
}

/// x − c if x ≥ c, else x: maps [0, 2c) onto [0, c). As unsigned words x − c wraps above x
/// exactly when x < c, so the minimum picks the right one.
inline V reduce_below(V x, V c) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, c));
}

/// The constants of q in every lane. Copy it into a local before a loop that stores through a
/// pointer: vector stores may alias anything, and the compiler would reload it.
struct Mod {
  V q;
  V two_q;
  V neg_q;  // 2^52 − q: lo52(Q·(2^52 − q)) = −Q·q mod 2^52
  V mask;   // 2^52 − 1
  V one;    // ⌊2^52 / q⌋: the Shoup companion of 1
  explicit Mod(u64 m)
      : q(splat(m)),
        two_q(splat(2 * m)),
        neg_q(splat((u64{1} << 52) - m)),
        mask(splat(kMask52)),
        one(splat((u64{1} << 52) / m)) {}
};

/// A constant w < q with its 52-bit Shoup companion w' = ⌊w·2^52 / q⌋ (per lane).
struct Tw {
  V w;
  V wp;
};

/// ⌊w·2^52 / q⌋ for w < q (host arithmetic, for building tables).
inline u64 shoup52(u64 w, u64 q) {
  return static_cast<u64>((static_cast<unsigned __int128>(w) << 52) / q);
}

/// y·w mod q up to one q (Shoup, β = 52), for any y < 2^52. With Q = ⌊y·w'/2^52⌋,
/// r = y·w − Q·q lies in [0, 2q): write w·2^52 = w'·q + e and y·w' = Q·2^52 + f (e < q,
/// f < 2^52); then r·2^52 = f·q + y·e < 2^53·q. Since r < 2q < 2^52, r equals its residue
/// modulo 2^52, lo52(y·w) + lo52(Q·(2^52 − q)) with the carry into bit 52 masked off.
/// Output in [0, 2q).
inline V mul_shoup_lazy(V y, Tw w, const Mod& m) {
  const V quot = madd_hi(_mm512_setzero_si512(), y, w.wp);
  const V r = madd_lo(madd_lo(_mm512_setzero_si512(), y, w.w), quot, m.neg_q);
  return _mm512_and_si512(r, m.mask);
}

/// mul_shoup_lazy without the mask: r + c·2^52 with c ∈ {0, 1}, whose low 52 bits are r.
inline V mul_shoup_lazy_unmasked(V y, Tw w, const Mod& m) {
  const V quot = madd_hi(_mm512_setzero_si512(), y, w.wp);
  return madd_lo(madd_lo(_mm512_setzero_si512(), y, w.w), quot, m.neg_q);
}

/// Harvey's Cooley–Tukey butterfly (x, y) ← (x + w·y, x − w·y): inputs and outputs in [0, 4q).
/// kAsIs: x is taken as it is, without the correction: the first stage (x in [0, 2q), outputs
/// in [0, 4q)) and the uncorrected schedule of small primes (x in [0, B·q) gives outputs in
/// [0, (B + 2)·q); see forward_lazy_ok). y may be anything below 2^52. kLow52: the words'
/// values are their low 52 bits, the bits above being left over from unmasked products (only
/// for the uncorrected schedule: its values stay below 2^52, its products read only the low
/// 52 bits of their operands, and it compares nothing until a final masked reduction).
template <bool kAsIs, bool kLow52 = false>
inline void ct(V& x, V& y, Tw w, const Mod& m) {
  static_assert(kAsIs || !kLow52, "corrections compare whole words");
  const V x0 = kAsIs ? x : reduce_below(x, m.two_q);                                // [0, 2q)
  const V t = kLow52 ? mul_shoup_lazy_unmasked(y, w, m) : mul_shoup_lazy(y, w, m);  // [0, 2q)
  x = add(x0, t);                                                                   // [0, 4q)
  y = sub(add(x0, m.two_q), t);                                                     // (0, 4q)
}

/// The forward transform may skip every correction of its butterflies when q < 2^46: from
/// inputs below 2q, each of at most 17 stages adds less than 2q, so every value stays below
/// 36q < 2^52 (what the products and the final reduction, reduce_52, need), and (c − v) + 36q
/// below 37q < 2^52 for a fused subtraction. Nothing is compared until that final step, which
/// reads or masks to the low 52 bits, so the products need no mask either (ct's kLow52).
/// Saves three of the nine operations per butterfly.
constexpr bool forward_lazy_ok(std::uint64_t q) {
  return q < (std::uint64_t{1} << 46);
}
inline constexpr std::uint64_t kLazyBound = 36;  // values of the uncorrected schedule: < 36q

/// x mod q, lazily, for any x < 2^52 (only x's low 52 bits are read): Q = hi52(x·⌊2^52/q⌋) ≤
/// ⌊x/q⌋ and x − Q·q in [0, 2q) (Shoup with w = 1), its residue modulo 2^52
/// lo52(x + Q·(2^52 − q)). Output in [0, 2q).
inline V reduce_52_lazy(V x, const Mod& m) {
  const V quot = madd_hi(_mm512_setzero_si512(), x, m.one);
  return _mm512_and_si512(madd_lo(x, quot, m.neg_q), m.mask);
}

/// x mod q for any x < 2^52: reduce_52_lazy and one correction. Output in [0, q).
inline V reduce_52(V x, const Mod& m) {
  return reduce_below(reduce_52_lazy(x, m), m.q);
}

/// Gentleman–Sande butterfly without halving, (x, y) ← (x + y, (x − y)·w): inputs and outputs
/// in [0, 2q). kFresh: inputs in [0, q), so x + y needs no correction.
template <bool kFresh>
inline void gs(V& x, V& y, Tw w, const Mod& m) {
  const V s = add(x, y);                      // [0, 4q)
  const V d = sub(add(x, m.two_q), y);        // (0, 4q)
  x = kFresh ? s : reduce_below(s, m.two_q);  // [0, 2q)
  y = mul_shoup_lazy(d, w, m);                // [0, 2q)
}

/// gs with the twiddle given as a product w1·w2 (two Shoup products).
template <bool kFresh>
inline void gs2(V& x, V& y, Tw w1, Tw w2, const Mod& m) {
  const V s = add(x, y);                                // [0, 4q)
  const V d = sub(add(x, m.two_q), y);                  // (0, 4q)
  x = kFresh ? s : reduce_below(s, m.two_q);            // [0, 2q)
  y = mul_shoup_lazy(mul_shoup_lazy(d, w1, m), w2, m);  // [0, 2q)
}

/// The last inverse stage with 1/n folded in: (x, y) ← ((x + y)/n, (x − y)·w/n), given
/// n_inv = 1/n and w_n = w/n. Inputs in [0, 2q), outputs in [0, q).
inline void gs_last(V& x, V& y, Tw n_inv, Tw w_n, const Mod& m) {
  const V s = add(x, y);                               // [0, 4q)
  const V d = sub(add(x, m.two_q), y);                 // (0, 4q)
  x = reduce_below(mul_shoup_lazy(s, n_inv, m), m.q);  // [0, q)
  y = reduce_below(mul_shoup_lazy(d, w_n, m), m.q);    // [0, q)
}

/// [0, 4q) → [0, q).
inline V reduce_4q(V x, const Mod& m) {
  return reduce_below(reduce_below(x, m.two_q), m.q);
}

/// (x + y) mod q and (x − y) mod q for x, y in [0, q). For the difference, d + q wraps below
/// d exactly when x < y.
inline V add_mod(V x, V y, const Mod& m) {
  return reduce_below(add(x, y), m.q);
}
inline V sub_mod(V x, V y, const Mod& m) {
  const V d = sub(x, y);
  return _mm512_min_epu64(d, add(d, m.q));
}

/// General products a·b mod q for a, b in [0, q), by Barrett with β = 52. Let len(q) = k
/// (2^(k−1) < q < 2^k, k ≤ 50) and T = a·b < q². Then
///   Z  = ⌊T / 2^(k−2)⌋ = hi52((a·2^(52−k))·(b·4)), exact, and Z < q²/2^(k−2) < 4q;
///   µ  = ⌊2^(k+50) / q⌋ < 2^51;
///   Qe = ⌊Z·µ / 2^52⌋ ≤ ⌊T/q⌋, and since Z > T/2^(k−2) − 1 and µ > 2^(k+50)/q − 1,
///        Z·µ/2^52 > T/q − T/2^(k+50) − 2^(k−2)/q > T/q − 1 − 1/2, so Qe ≥ ⌊T/q⌋ − 2;
///   r  = T − Qe·q in [0, 3q) ⊂ [0, 2^52), the residue lo52(a·b) + lo52(Qe·(2^52 − q)).
/// Four IFMA products, two shifts, a mask and two corrections.
struct Barrett52 {
  __m128i shift_a;  // 52 − k
  V mu;
  explicit Barrett52(u64 q) {
    int k = 0;
    while ((q >> k) != 0) ++k;
    shift_a = _mm_cvtsi64_si128(52 - k);
    mu = splat(static_cast<u64>((static_cast<unsigned __int128>(1) << (k + 50)) / q));
  }
};

inline V mul_mod(V a, V b, const Barrett52& br, const Mod& m) {
  const V zero = _mm512_setzero_si512();
  const V z = madd_hi(zero, _mm512_sll_epi64(a, br.shift_a), _mm512_slli_epi64(b, 2));
  const V qe = madd_hi(zero, z, br.mu);
  const V r = _mm512_and_si512(madd_lo(madd_lo(zero, a, b), qe, m.neg_q), m.mask);  // [0, 3q)
  return reduce_below(reduce_below(r, m.two_q), m.q);
}

/// Montgomery reduction with R = 2^52, for products T = a·b < q·2^52 (a, b < 2^52): with
/// m = lo52(lo52(T)·q^−1), lo52(m·q) = lo52(T), so (T − m·q)/2^52 = hi52(T) − hi52(m·q)
/// exactly, a value in (−q, T/2^52) congruent to T·2^−52. Returned plus q: in (0, q + T/2^52).
struct Montgomery52 {
  V q_inv;  // q^−1 mod 2^52
  explicit Montgomery52(u64 q) {
    u64 x = q;  // q·q ≡ 1 mod 8; each Newton step doubles the correct low bits
    for (int i = 0; i < 5; ++i) x *= 2 - q * x;
    q_inv = splat(x & kMask52);
  }
};

inline V redc_plus_q(V a, V b, const Montgomery52& mt, const Mod& m) {
  const V zero = _mm512_setzero_si512();
  const V hi = madd_hi(m.q, a, b);  // q + hi52(T)
  const V mm = madd_lo(zero, madd_lo(zero, a, b), mt.q_inv);
  return sub(hi, madd_hi(zero, mm, m.q));
}

}  // namespace
}  // namespace polyhe::cpu::ifma
