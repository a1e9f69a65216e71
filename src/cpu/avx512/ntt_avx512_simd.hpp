// Modular arithmetic on 8 × u64 lanes with AVX-512 F/DQ (no 64×64→128 multiply): Shoup products
// with an approximate quotient, Harvey's lazy butterflies, and Montgomery products for the
// general (non-twiddle) products of the Hadamard steps.
//
// Include only from translation units compiled with the AVX-512 flags (src/cpu/CMakeLists.txt).
// Everything here has internal linkage, so that no ISA-flagged inline function is merged with a
// copy compiled for another instruction set.
#pragma once

// GCC 12 warns about the deliberately undefined pass-through operand inside its own AVX-512
// intrinsics (_mm512_undefined_epi32, GCC bug 105593); the warning is silenced for them only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

#include <cstdint>
#include <type_traits>
#include <utility>

namespace polyhe::cpu::avx512 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

using u64 = std::uint64_t;
using V = __m512i;

/// A twiddle ω < q with its Shoup companion ω' = ⌊ω·2^64/q⌋, as table entry.
struct Tw3 {
  u64 w;         // ω
  u64 shoup;     // ω'; vpmuludq reads its low half
  u64 shoup_hi;  // ω' >> 32
};

/// The same, one twiddle per lane (broadcast, or one per butterfly from a lane table).
struct VTw {
  V w, lo, hi;
};

[[gnu::always_inline]] inline V load(const u64* p) {
  return _mm512_loadu_si512(p);
}
[[gnu::always_inline]] inline void store(u64* p, V x) {
  _mm512_storeu_si512(p, x);
}
[[gnu::always_inline]] inline V set1(u64 x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}

[[gnu::always_inline]] inline VTw broadcast(const Tw3& t) {
  return {set1(t.w), set1(t.shoup), set1(t.shoup_hi)};
}
/// A lane table entry: 8 ω, then 8 ω', then 8 ω' >> 32 (64-byte aligned).
[[gnu::always_inline]] inline VTw load_lanes(const u64* p) {
  return {_mm512_load_si512(p), _mm512_load_si512(p + 8), _mm512_load_si512(p + 16)};
}

/// Twiddles i … i+P−1 of a struct-of-arrays table, repeated across the 8 lanes (P = 2, 4, 8):
/// lane l holds entry i + (l mod P). The 128- and 256-bit broadcasts are pure loads.
template <int P>
[[gnu::always_inline]] inline V load_repeated(const u64* p) {
  if constexpr (P == 2) {
    return _mm512_broadcast_i64x2(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
  } else if constexpr (P == 4) {
    return _mm512_broadcast_i64x4(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  } else {
    static_assert(P == 8);
    return _mm512_load_si512(p);
  }
}

/// The perfect shuffle of two registers, and its inverse:
///   interleave_lo(x, y) = [x0 y0 x1 y1 x2 y2 x3 y3],  interleave_hi(x, y) = [x4 y4 … x7 y7],
///   evens(x, y) = [x0 x2 x4 x6 y0 y2 y4 y6],           odds(x, y) = [x1 x3 … y5 y7].
[[gnu::always_inline]] inline V interleave_lo(V x, V y) {
  return _mm512_permutex2var_epi64(x, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), y);
}
[[gnu::always_inline]] inline V interleave_hi(V x, V y) {
  return _mm512_permutex2var_epi64(x, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), y);
}
[[gnu::always_inline]] inline V evens(V x, V y) {
  return _mm512_permutex2var_epi64(x, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), y);
}
[[gnu::always_inline]] inline V odds(V x, V y) {
  return _mm512_permutex2var_epi64(x, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), y);
}

/// f(integral_constant<int, 0>) … f(integral_constant<int, N−1>) in order: a loop whose index is a
/// constant expression in the body, so that nested loop bounds depending on it are constants too
/// (unrolled in every build type, where #pragma GCC unroll would need them folded first).
template <int N, class F>
[[gnu::always_inline]] inline void unrolled(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (f(std::integral_constant<int, I>{}), ...);
  }
  (std::make_integer_sequence<int, N>{});
}

/// v, hidden from the optimiser (an empty asm that "modifies" it). GCC otherwise re-associates
/// x0 + (a·ω − Q·q) and (x0 + c) − (a·ω − Q·q) into five vector additions instead of four.
[[gnu::always_inline]] inline V opaque(V v) {
  __asm__("" : "+v"(v));
  return v;
}

/// x − c if x ≥ c, else x: for x < c the difference wraps above x, so the unsigned minimum
/// chooses. Maps [0, 2c) → [0, c).
[[gnu::always_inline]] inline V csub(V x, V c) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, c));
}

/// Q' ≤ ⌊a·ω'/2^64⌋ ≤ Q' + 2 from three of the four 32×32 partial products. With a = a1·2^32 + a0
/// and ω' = h·2^32 + l: a·ω' = a1·h·2^64 + (a1·l + a0·h)·2^32 + a0·l, and Q' drops a0·l and the
/// low halves of a1·l and a0·h, three terms each < 2^64 after scaling by 2^−64·2^32·2^32.
[[gnu::always_inline]] inline V mulhi_approx(V a, const VTw& t) {
  const V a1 = _mm512_srli_epi64(a, 32);
  const V p11 = _mm512_mul_epu32(a1, t.hi);
  const V p10 = _mm512_mul_epu32(a1, t.lo);
  const V p01 = _mm512_mul_epu32(a, t.hi);
  // p11 and p01 >> 32 are ready two cycles before p10 >> 32 (one shift fewer on the path).
  return _mm512_add_epi64(_mm512_add_epi64(p11, _mm512_srli_epi64(p01, 32)),
                          _mm512_srli_epi64(p10, 32));
}

/// a·ω − Q'·q ≡ a·ω (mod q) for any a < 2^64. With the exact quotient Harvey's bound gives
/// [0, 2q); Q' is at most 2 short, so the result is in [0, 4q) (< 2^64 as len(q) ≤ 62; the
/// products are taken mod 2^64, which is exact for a result known to lie in [0, 2^64)).
[[gnu::always_inline]] inline V mul_shoup_lazy4(V a, const VTw& t, V q) {
  const V quot = mulhi_approx(a, t);
  return _mm512_sub_epi64(_mm512_mullo_epi64(a, t.w), _mm512_mullo_epi64(quot, q));
}

/// Harvey's lazy butterflies with a bound c on the product range:
///   kLoose = false (any len(q) ≤ 62): c = 2q; products are brought from [0, 4q) to [0, 2q).
///   kLoose = true  (q < 2^61, so 8q ≤ 2^64): c = 4q; products stay in [0, 4q), one csub less.
/// CT: inputs and outputs in [0, 2c). GS (unhalved): inputs and outputs in [0, c).
template <bool kLoose>
struct LazyArith {
  V q, q2, c;

  explicit LazyArith(u64 modulus)
      : q(set1(modulus)), q2(set1(2 * modulus)), c(set1((kLoose ? 4 : 2) * modulus)) {}

  /// a·ω mod q in [0, c), for any a < 2^64.
  [[gnu::always_inline]] V mul(V a, const VTw& w) const {
    const V r = mul_shoup_lazy4(a, w, q);  // [0, 4q)
    if constexpr (kLoose) {
      return r;
    } else {
      return csub(r, c);  // [0, 2q)
    }
  }

  /// (x, y) ← (x + ω·y, x − ω·y): in [0, 2c), out [0, 2c).
  [[gnu::always_inline]] void ct(V& x, V& y, const VTw& w) const {
    const V x0 = csub(x, c);                           // [0, c)
    const V r = opaque(mul(y, w));                     // [0, c)
    x = _mm512_add_epi64(x0, r);                       // [0, 2c)
    y = _mm512_sub_epi64(_mm512_add_epi64(x0, c), r);  // (0, 2c)
  }

  /// (x, y) ← (x + y, (x − y)·ω): in [0, c), out [0, c).
  [[gnu::always_inline]] void gs(V& x, V& y, const VTw& w) const {
    const V s = _mm512_add_epi64(x, y);                       // [0, 2c)
    const V d = _mm512_sub_epi64(_mm512_add_epi64(x, c), y);  // (0, 2c)
    x = csub(s, c);                                           // [0, c)
    y = mul(d, w);                                            // [0, c)
  }

  /// The last GS stage of an inverse with its scale s (1/N or 2/N) folded in:
  /// (x, y) ← ((x + y)·s, (x − y)·ω·s), in [0, c), out [0, q).
  [[gnu::always_inline]] void gs_scaled(V& x, V& y, const VTw& scale, const VTw& w_scaled) const {
    const V s = _mm512_add_epi64(x, y);                       // [0, 2c)
    const V d = _mm512_sub_epi64(_mm512_add_epi64(x, c), y);  // (0, 2c)
    x = inv_out(mul(s, scale));
    y = inv_out(mul(d, w_scaled));
  }

  /// [0, 2c) → [0, q).
  [[gnu::always_inline]] V fwd_out(V x) const {
    x = csub(x, c);
    if constexpr (kLoose) x = csub(x, q2);
    return csub(x, q);
  }

  /// [0, c) → [0, q).
  [[gnu::always_inline]] V inv_out(V x) const {
    if constexpr (kLoose) x = csub(x, q2);
    return csub(x, q);
  }
};

/// The exact high word of a·b from the four 32×32 partial products; b_hi = b >> 32.
[[gnu::always_inline]] inline V mulhi_exact(V a, V b, V b_hi) {
  const V a_hi = _mm512_srli_epi64(a, 32);
  const V p00 = _mm512_mul_epu32(a, b);
  const V p01 = _mm512_mul_epu32(a, b_hi);
  const V p10 = _mm512_mul_epu32(a_hi, b);
  const V p11 = _mm512_mul_epu32(a_hi, b_hi);
  const V low32 = _mm512_set1_epi64(0xffffffff);
  const V t = _mm512_add_epi64(p10, _mm512_srli_epi64(p00, 32));  // < 2^64
  const V u = _mm512_add_epi64(p01, _mm512_and_si512(t, low32));  // < 2^64
  return _mm512_add_epi64(_mm512_add_epi64(p11, _mm512_srli_epi64(t, 32)),
                          _mm512_srli_epi64(u, 32));
}

/// General products a·b mod q by Montgomery's REDC with R = 2^64: one operand is first taken to
/// the Montgomery domain by a Shoup product with R mod q, so REDC returns a·b itself.
struct MontArith {
  V q, q_hi, q_inv;  // q_inv = q^−1 mod 2^64
  VTw r_mod_q;       // R mod q as a Shoup twiddle

  /// b·R mod q in [0, 4q), for b < 2^64.
  [[gnu::always_inline]] V to_mont(V b) const { return mul_shoup_lazy4(b, r_mod_q, q); }

  /// a·b̃·R^−1 mod q in [0, q), for a·b̃ < q·2^64, on U independent vectors side by side (one
  /// REDC is a chain of ~30 dependent operations). With T = a·b̃ and m = T·q^−1 mod 2^64, T − m·q
  /// is divisible by 2^64 and (T − m·q)/2^64 = hi(T) − hi(m·q) ∈ (−q, q).
  template <int U>
  [[gnu::always_inline]] void redc_mul(const V* a, const V* b_mont, V* out) const {
    V hi[U], m[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      hi[u] = mulhi_exact(a[u], b_mont[u], _mm512_srli_epi64(b_mont[u], 32));
    }
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u)
      m[u] = _mm512_mullo_epi64(_mm512_mullo_epi64(a[u], b_mont[u]), q_inv);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      const V r = _mm512_sub_epi64(hi[u], mulhi_exact(m[u], q, q_hi));  // (−q, q), two's compl.
      out[u] = _mm512_min_epu64(r, _mm512_add_epi64(r, q));             // [0, q)
    }
  }

  /// a·b mod q in [0, q) for a, b < q, on U vectors.
  template <int U>
  [[gnu::always_inline]] void mul(const V* a, const V* b, V* out) const {
    V bm[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) bm[u] = to_mont(b[u]);  // [0, 4q): a·b̃ < 4q² ≤ q·2^64
    redc_mul<U>(a, bm, out);
  }
};

/// (a + b) mod q and (a − b) mod q for a, b in [0, q).
[[gnu::always_inline]] inline V add_mod(V a, V b, V q) {
  return csub(_mm512_add_epi64(a, b), q);
}
[[gnu::always_inline]] inline V sub_mod(V a, V b, V q) {
  const V d = _mm512_sub_epi64(a, b);
  return _mm512_min_epu64(d, _mm512_add_epi64(d, q));
}

}  // namespace
}  // namespace polyhe::cpu::avx512
