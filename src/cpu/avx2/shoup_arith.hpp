// Shoup products and Harvey's lazy butterflies on four 64-bit lanes with AVX2 (internal), for any
// q below 2^62: the arithmetic of the integer NTT kernel (ntt_avx2.cpp), shared with the
// flattened cyclic transforms' AVX2 policy (src/ntt/cyclic/fused_avx2.cpp).
//
// A Shoup product a·ω − ⌊a·ω'/2^64⌋·q for four lanes: three vpmuludq for an approximate quotient
// Q' ∈ [Q − 2, Q] (the high word of a·ω' without the low partial products, as the AVX-512
// kernel), then the difference of the two 64-bit low products a·ω − Q'·q at once: with
// x = x1·2^32 + x0, it is a0·ω0 − Q'0·q0 + ((a1·ω0 + a0·ω1 − Q'1·q0 − Q'0·q1) mod 2^32)·2^32
// (mod 2^64), whose cross terms are two vpmulld (32-bit low products, dword by dword) of a and
// Q' by ω and q with their halves swapped, and whose low terms are two vpmuludq: seven multiplies
// and four shifts where two separate 64-bit low products took nine and six (the 60-bit forward
// NTT 1.22× faster on a Zen 5 core, 1.08× on an Intel one). The result lies in [0, 4q). Include
// only from translation units compiled with -mavx2; internal linkage, as lanes.hpp.
#pragma once

#include "lanes.hpp"

namespace polyhe::cpu::avx2 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

/// A twiddle ω with its halves swapped (w_sw, for vpmulld) and its Shoup companion ω' with its
/// high half (vpmuludq reads the low 32 bits of a lane): broadcast from one 32-byte entry, or one
/// per lane from a lane entry.
struct Tw4 {
  u64 w, w_sw, s, s_hi;
};
struct VTw {
  V w, w_sw, s, s_hi;
};

[[gnu::always_inline]] inline VTw broadcast(const Tw4& t) {
  return {set1(t.w), set1(t.w_sw), set1(t.s), set1(t.s_hi)};
}
/// The arithmetic for one q, with the lazy bound c on products and GS values: c = 2q, or with
/// kLoose (q < 2^61, so 8q ≤ 2^64) c = 4q and the products' [0, 4q) kept as they are (one
/// conditional subtraction fewer per butterfly, as the AVX-512 kernel's LazyArith). Every
/// conditional subtraction of m is applied to a value below 2m ≤ 2^63 + m, so it selects by the
/// difference's top bit (avx2::reduce_once), with no comparison.
template <bool kLoose>
struct Arith {
  V q, q_sw, two_q, c;

  explicit Arith(u64 modulus)
      : q(set1(modulus)),
        q_sw(set1(swap_halves(modulus))),
        two_q(set1(2 * modulus)),
        c(set1((kLoose ? 4 : 2) * modulus)) {}

  [[gnu::always_inline]] V csub_c(V x) const { return reduce_once(x, c); }
  [[gnu::always_inline]] V csub_2q(V x) const { return reduce_once(x, two_q); }
  [[gnu::always_inline]] V csub_q(V x) const { return reduce_once(x, q); }

  /// a·ω − Q'·q in [0, 4q) for any a < 2^64 (see the file comment).
  [[gnu::always_inline]] V mul4(V a, const VTw& t) const {
    const V a1 = _mm256_srli_epi64(a, 32);
    const V p11 = _mm256_mul_epu32(a1, t.s_hi);
    const V p10 = _mm256_mul_epu32(a1, t.s);
    const V p01 = _mm256_mul_epu32(a, t.s_hi);
    const V quot = _mm256_add_epi64(_mm256_add_epi64(p11, _mm256_srli_epi64(p01, 32)),
                                    _mm256_srli_epi64(p10, 32));
    return mul_sub_lo(a, t.w, t.w_sw, quot, q, q_sw);
  }
  /// a·ω mod q in [0, c).
  [[gnu::always_inline]] V mul(V a, const VTw& t) const {
    const V r = mul4(a, t);
    if constexpr (kLoose) {
      return r;
    } else {
      return csub_2q(r);
    }
  }

  /// Harvey CT: x, y in [0, 2c) → x + ω·y, x − ω·y in [0, 2c).
  [[gnu::always_inline]] void ct(V& x, V& y, const VTw& t) const {
    const V x0 = csub_c(x);
    const V r = mul(y, t);
    x = _mm256_add_epi64(x0, r);
    y = _mm256_sub_epi64(_mm256_add_epi64(x0, c), r);
  }
  /// GS without halving: x, y in [0, c) → x + y, (x − y)·ω in [0, c).
  [[gnu::always_inline]] void gs(V& x, V& y, const VTw& t) const {
    const V s = _mm256_add_epi64(x, y);
    const V d = _mm256_sub_epi64(_mm256_add_epi64(x, c), y);
    x = csub_c(s);
    y = mul(d, t);
  }
  /// [0, c) → [0, q).
  [[gnu::always_inline]] V reduce_c(V x) const {
    if constexpr (kLoose) x = csub_2q(x);
    return csub_q(x);
  }
  /// [0, 2c) → [0, q).
  [[gnu::always_inline]] V reduce_2c(V x) const {
    x = csub_c(x);
    if constexpr (kLoose) x = csub_2q(x);
    return csub_q(x);
  }
  /// [0, 4q) → [0, q).
  [[gnu::always_inline]] V reduce4(V x) const { return csub_q(csub_2q(x)); }
};

/// f(Arith for q): c = 4q below 2^61, else c = 2q.
template <class F>
void with_arith(u64 q, F&& f) {
  if (q >= (u64{1} << 61)) {
    f(Arith<false>(q));
  } else {
    f(Arith<true>(q));
  }
}

}  // namespace
}  // namespace polyhe::cpu::avx2
