// The flattened PFA transform and the pruned powerful-basis transform on AVX2: an eight-lane
// vector is two registers of four lanes. AVX2 has 16 registers, so the radix-2 passes keep
// 2^kStages = 4 vectors in them (1, 2 and 3 stages measured within 3 % of each other). The maps
// are the plain ones (fused_kernels.hpp), the transposes four 4×4 blocks. Two arithmetics, chosen
// by q:
//
// q < 2^50: double precision (Avx2FmaOps), the products of the AVX2 FMA NTT kernel
// (src/cpu/avx2/ntt_avx2_fma.cpp, whose comment has the proof): values are signed integers held
// in doubles; y·ω mod q for a centred twiddle (|ω| < q/2) is exact in (−q, q) for |y| < 2^52;
// reduce_c centres (x − round(x/q)·q, |·| ≤ q/2 + 1) and out_* bring to [0, q). The policy's
// ranges then hold as bounds on magnitudes: ct centres x and adds a product, so its outputs are
// below 1.5q + 1; gs centres the sum and multiplies the difference (inputs below 1.5q + 1, so
// |x ± y| < 3q + 2 < 2^52); direct_odd and Rader add at most two such values and q or 2q before a
// reduction or product. Every input is a word in [0, q) and every stored word passed an out_*.
// Per butterfly: 7 floating-point operations for the product, 4 for the centring, 2 additions,
// against nine vpmuludq and about twenty other integer µops.
//
// Otherwise integer Shoup products (Avx2Ops), the integer AVX2 NTT kernel's
// (src/cpu/avx2/shoup_arith.hpp: seven multiplies per four products, result in [0, 4q)), lazy
// bound c = 4q when q < 2^61 (else 2q, the products brought to [0, 2q)), conditional
// subtractions selected by the difference's top bit.
//
// Compiled with -mavx2 -mfma when the compiler has them (src/CMakeLists.txt); otherwise this file
// only reports that it is absent.
#include "fused.hpp"
#include "powerful_fused.hpp"

#if defined(__AVX2__) && defined(__FMA__)

#include "../../cpu/avx2/shoup_arith.hpp"
#include "fused_kernels.hpp"
#include "powerful_kernels.hpp"

namespace polyhe::cyclic {
namespace {

namespace avx2 = cpu::avx2;
using Y = __m256i;

/// What both arithmetics share: the blocking and the data movement of words.
struct Avx2Moves {
  static constexpr bool kBlocked = true;
  static constexpr std::size_t kStages = 2;  // 4 vectors: 8 of the 16 registers

  /// The 4×4 transpose of r in place (r[i] lane l ← r[l] lane i): 64-bit unpacks, then 128-bit
  /// halves.
  [[gnu::always_inline]] static void transpose4(Y* r) {
    const Y t0 = _mm256_unpacklo_epi64(r[0], r[1]);  // r0[0] r1[0] r0[2] r1[2]
    const Y t1 = _mm256_unpackhi_epi64(r[0], r[1]);  // r0[1] r1[1] r0[3] r1[3]
    const Y t2 = _mm256_unpacklo_epi64(r[2], r[3]);
    const Y t3 = _mm256_unpackhi_epi64(r[2], r[3]);
    r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
  }

  /// out[i·out_pitch + l] = in[l·in_pitch + i] for i, l < 8: every input read before any output
  /// is written, in four 4×4 blocks.
  [[gnu::always_inline]] static void transpose8_pitched(const u64* in, std::size_t in_pitch,
                                                        u64* out, std::size_t out_pitch) {
    Y r[4][4];  // block (row half rb, column half cb) = r[2·rb + cb]
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t rb = b / 2;
      const std::size_t cb = b % 2;
      for (std::size_t l = 0; l < 4; ++l)
        r[b][l] = avx2::load(in + (4 * rb + l) * in_pitch + 4 * cb);
      transpose4(r[b]);
    }
    // Block (rb, cb) transposed holds output rows 4·cb + i, lanes 4·rb + l.
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t rb = b / 2;
      const std::size_t cb = b % 2;
      for (std::size_t i = 0; i < 4; ++i)
        avx2::store(out + (4 * cb + i) * out_pitch + 4 * rb, r[b][i]);
    }
  }
  /// out[i·8 + l] = in[l·pitch + i] for i, l < 8.
  [[gnu::always_inline]] static void transpose8(const u64* in, std::size_t pitch, u64* out) {
    transpose8_pitched(in, pitch, out, kW);
  }

  static void permute_in(const FusedTables& tb, const u64* a, u64* rows) {
    permute_in_plain(tb, a, rows);
  }
  static void permute_out(const FusedTables& tb, const u64* rows, u64* a, bool inverse) {
    permute_out_plain(tb, rows, a, inverse);
  }
};

/// Integer products on the arithmetic A (an avx2::Arith).
template <class A>
struct Avx2Ops : Avx2Moves {
  /// Lanes 0–3 and 4–7.
  struct V {
    Y lo, hi;
  };
  A ar;

  explicit Avx2Ops(const A& arith) : ar(arith) {}

  [[gnu::always_inline]] static V load(const u64* p) { return {avx2::load(p), avx2::load(p + 4)}; }
  [[gnu::always_inline]] static void store(u64* p, V x) {
    avx2::store(p, x.lo);
    avx2::store(p + 4, x.hi);
  }

  /// ω, ω with its halves swapped (the cross terms' vpmulld: one dword shuffle of the broadcast
  /// ω), ω' and its high half (FusedTwiddle::shoup_hi).
  [[gnu::always_inline]] static avx2::VTw vtw(const FusedTwiddle& t) {
    const Y w = avx2::set1(t.w);
    return {w, _mm256_shuffle_epi32(w, 0xB1), avx2::set1(t.shoup), avx2::set1(t.shoup_hi)};
  }
  template <class F>
  [[gnu::always_inline]] static V each(const V& a, F f) {
    return {f(a.lo), f(a.hi)};
  }
  template <class F>
  [[gnu::always_inline]] static V each(const V& a, const V& b, F f) {
    return {f(a.lo, b.lo), f(a.hi, b.hi)};
  }

  /// a·ω mod q in [0, c), any a < 2^64.
  [[gnu::always_inline]] V mul(const V& a, const FusedTwiddle& t) const {
    const avx2::VTw w = vtw(t);
    return each(
        a, [&](Y x) __attribute__((always_inline)) { return ar.mul(x, w); });
  }
  [[gnu::always_inline]] static V add(const V& a, const V& b) {
    return each(
        a, b, [](Y x, Y y) __attribute__((always_inline)) { return _mm256_add_epi64(x, y); });
  }
  [[gnu::always_inline]] static V sub(const V& a, const V& b) {
    return each(
        a, b, [](Y x, Y y) __attribute__((always_inline)) { return _mm256_sub_epi64(x, y); });
  }
  [[gnu::always_inline]] V modulus() const { return {ar.q, ar.q}; }
  [[gnu::always_inline]] V bound() const { return {ar.c, ar.c}; }
  [[gnu::always_inline]] V reduce_c(const V& a) const {
    return each(
        a, [&](Y x) __attribute__((always_inline)) { return ar.csub_c(x); });
  }
  /// [0, c) → [0, q).
  [[gnu::always_inline]] V out_c(const V& a) const {
    return each(
        a, [&](Y x) __attribute__((always_inline)) { return ar.reduce_c(x); });
  }
  /// [0, 2c) → [0, q).
  [[gnu::always_inline]] V out_2c(const V& a) const {
    return each(
        a, [&](Y x) __attribute__((always_inline)) { return ar.reduce_2c(x); });
  }
  [[gnu::always_inline]] void ct(V& x, V& y, const FusedTwiddle& t) const {
    const avx2::VTw w = vtw(t);
    ar.ct(x.lo, y.lo, w);
    ar.ct(x.hi, y.hi, w);
  }
  [[gnu::always_inline]] void gs(V& x, V& y, const FusedTwiddle& t) const {
    const avx2::VTw w = vtw(t);
    ar.gs(x.lo, y.lo, w);
    ar.gs(x.hi, y.hi, w);
  }
  [[gnu::always_inline]] void ct1(V& x, V& y) const {
    const auto one = [&](Y & a, Y & b) __attribute__((always_inline)) {
      const Y a0 = ar.csub_c(a);
      const Y r = ar.csub_c(b);
      a = _mm256_add_epi64(a0, r);
      b = _mm256_sub_epi64(_mm256_add_epi64(a0, ar.c), r);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
  [[gnu::always_inline]] void gs1(V& x, V& y) const {
    const auto one = [&](Y & a, Y & b) __attribute__((always_inline)) {
      const Y s = _mm256_add_epi64(a, b);
      const Y d = _mm256_sub_epi64(_mm256_add_epi64(a, ar.c), b);
      a = ar.csub_c(s);
      b = ar.csub_c(d);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
};

/// Double precision for q < 2^50 (the file comment).
struct Avx2FmaOps : Avx2Moves {
  using D = __m256d;
  /// Lanes 0–3 and 4–7, signed integers.
  struct V {
    D lo, hi;
  };
  D q, q_inv, two_q, zero;

  explicit Avx2FmaOps(u64 modulus)
      : q(_mm256_set1_pd(static_cast<double>(modulus))),
        q_inv(_mm256_set1_pd(1.0 / static_cast<double>(modulus))),
        two_q(_mm256_set1_pd(2.0 * static_cast<double>(modulus))),
        zero(_mm256_setzero_pd()) {}

  /// Words below 2^52 ↔ doubles, exactly: the bit pattern of 2^52 + x is 0x4330… | x.
  [[gnu::always_inline]] static D to_double(const u64* p) {
    const Y magic = _mm256_set1_epi64x(0x4330000000000000LL);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(avx2::load(p), magic)),
                         _mm256_set1_pd(0x1p52));
  }
  [[gnu::always_inline]] static void from_double(u64* p, D x) {  // an integer in [0, 2^52)
    const Y magic = _mm256_set1_epi64x(0x4330000000000000LL);
    avx2::store(
        p, _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(x, _mm256_set1_pd(0x1p52))), magic));
  }
  [[gnu::always_inline]] static V load(const u64* p) { return {to_double(p), to_double(p + 4)}; }
  /// x in [0, q) (an out_* result).
  [[gnu::always_inline]] static void store(u64* p, const V& x) {
    from_double(p, x.lo);
    from_double(p + 4, x.hi);
  }

  template <class F>
  [[gnu::always_inline]] static V each(const V& a, F f) {
    return {f(a.lo), f(a.hi)};
  }

  /// y·ω mod q in (−q, q) for |y| < 2^52.
  [[gnu::always_inline]] D mul1(D y, D w, D wq) const {
    const D h = _mm256_mul_pd(y, w);
    const D l = _mm256_fmsub_pd(y, w, h);
    const D quot = avx2::round_small(_mm256_mul_pd(y, wq));
    return _mm256_add_pd(_mm256_fnmadd_pd(quot, q, h), l);
  }
  /// x − round(x/q)·q, |·| ≤ q/2 + 1, for |x| < 2^52.
  [[gnu::always_inline]] D centre(D x) const {
    return _mm256_fnmadd_pd(avx2::round_small(_mm256_mul_pd(x, q_inv)), q, x);
  }
  /// [0, q) for |x| < 2^52.
  [[gnu::always_inline]] D canonical(D x) const {
    x = centre(x);
    x = _mm256_add_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, zero, _CMP_LT_OQ), q));
    return _mm256_sub_pd(x, _mm256_and_pd(_mm256_cmp_pd(x, q, _CMP_GE_OQ), q));
  }

  [[gnu::always_inline]] V mul(const V& a, const FusedTwiddle& t) const {
    const D w = _mm256_broadcast_sd(&t.centred);
    const D wq = _mm256_broadcast_sd(&t.centred_q);
    return {mul1(a.lo, w, wq), mul1(a.hi, w, wq)};
  }
  [[gnu::always_inline]] static V add(const V& a, const V& b) {
    return {_mm256_add_pd(a.lo, b.lo), _mm256_add_pd(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static V sub(const V& a, const V& b) {
    return {_mm256_sub_pd(a.lo, b.lo), _mm256_sub_pd(a.hi, b.hi)};
  }
  [[gnu::always_inline]] V modulus() const { return {q, q}; }
  /// Any multiple of q keeps differences in range here; 2q, as the integer policies' c.
  [[gnu::always_inline]] V bound() const { return {two_q, two_q}; }
  [[gnu::always_inline]] V reduce_c(const V& a) const {
    return each(
        a, [&](D x) __attribute__((always_inline)) { return centre(x); });
  }
  [[gnu::always_inline]] V out_c(const V& a) const {
    return each(
        a, [&](D x) __attribute__((always_inline)) { return canonical(x); });
  }
  [[gnu::always_inline]] V out_2c(const V& a) const { return out_c(a); }
  /// (x, y) ← (x + ω·y, x − ω·y), x centred first: outputs below 1.5q + 1.
  [[gnu::always_inline]] void ct(V& x, V& y, const FusedTwiddle& t) const {
    const D w = _mm256_broadcast_sd(&t.centred);
    const D wq = _mm256_broadcast_sd(&t.centred_q);
    const auto one = [&](D & a, D & b) __attribute__((always_inline)) {
      const D a0 = centre(a);
      const D r = mul1(b, w, wq);
      a = _mm256_add_pd(a0, r);
      b = _mm256_sub_pd(a0, r);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
  [[gnu::always_inline]] void ct1(V& x, V& y) const {
    const auto one = [&](D & a, D & b) __attribute__((always_inline)) {
      const D a0 = centre(a);
      const D r = centre(b);
      a = _mm256_add_pd(a0, r);
      b = _mm256_sub_pd(a0, r);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
  /// (x, y) ← (centre(x + y), (x − y)·ω).
  [[gnu::always_inline]] void gs(V& x, V& y, const FusedTwiddle& t) const {
    const D w = _mm256_broadcast_sd(&t.centred);
    const D wq = _mm256_broadcast_sd(&t.centred_q);
    const auto one = [&](D & a, D & b) __attribute__((always_inline)) {
      const D d = _mm256_sub_pd(a, b);
      a = centre(_mm256_add_pd(a, b));
      b = mul1(d, w, wq);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
  [[gnu::always_inline]] void gs1(V& x, V& y) const {
    const auto one = [&](D & a, D & b) __attribute__((always_inline)) {
      const D d = _mm256_sub_pd(a, b);
      a = centre(_mm256_add_pd(a, b));
      b = centre(d);
    };
    one(x.lo, y.lo);
    one(x.hi, y.hi);
  }
};

/// f(ops) with the arithmetic for q: double precision below 2^50, else integer (avx2::with_arith
/// chooses the lazy bound and the comparisons).
template <class F>
void with_ops(u64 q, F f) {
  if (q < (u64{1} << 50)) {
    f(Avx2FmaOps(q));
  } else {
    avx2::with_arith(q, [&](const auto& ar) { f(Avx2Ops(ar)); });
  }
}

void run_avx2(const FusedTables& tb, u64* a, u64* buf, bool inverse) {
  with_ops(tb.q, [&](const auto& ops) { run_fused_with(ops, tb, a, buf, inverse); });
}

void run_powerful_avx2(const PowerfulTables& tb, u64* a, u64* buf, bool inverse) {
  with_ops(tb.q, [&](const auto& ops) { run_powerful_with(ops, tb, a, buf, inverse); });
}

}  // namespace

FusedKernel fused_kernel_avx2() {
  return &run_avx2;
}

PowerfulKernel powerful_kernel_avx2() {
  return &run_powerful_avx2;
}

}  // namespace polyhe::cyclic

#else

namespace polyhe::cyclic {

FusedKernel fused_kernel_avx2() {
  return nullptr;
}

PowerfulKernel powerful_kernel_avx2() {
  return nullptr;
}

}  // namespace polyhe::cyclic

#endif
