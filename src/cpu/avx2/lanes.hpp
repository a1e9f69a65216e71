// Four 64-bit lanes on AVX2 (internal): loads, the 64×64-bit products AVX2 lacks (assembled
// from the 32×32 → 64 partial products of vpmuludq), conditional subtraction selected by a
// difference's top bit, the rounding of the FMA kernels' quotients, the exact
// conversions between doubles and words below 2^52, and the map over n words with the n mod 4
// tail. Include only from translation units compiled with -mavx2; internal linkage, as
// src/cpu/avx512/lanes.hpp.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace polyhe::cpu::avx2 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

using u64 = std::uint64_t;
using V = __m256i;
inline constexpr std::size_t kLanes = 4;

[[gnu::always_inline]] inline V set1(u64 x) {
  return _mm256_set1_epi64x(static_cast<long long>(x));
}
[[gnu::always_inline]] inline V load(const u64* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::always_inline]] inline void store(u64* p, V x) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x);
}

/// x − m where x ≥ m, else x, for any x and m with |x − m| < 2^63: d = x − m wraps to a word
/// with its top bit set exactly where x < m, and vblendvpd selects by that bit, so no comparison
/// (AVX2 has only the signed vpcmpgtq, one more µop, on port 5 of Intel's cores) is needed.
/// (x and m below 2^63 qualify.)
[[gnu::always_inline]] inline V reduce_once(V x, V m) {
  const __m256d d = _mm256_castsi256_pd(_mm256_sub_epi64(x, m));
  return _mm256_castpd_si256(_mm256_blendv_pd(d, _mm256_castsi256_pd(x), d));
}

/// x − y mod q for x, y in [0, q), q below 2^63: the difference, with q added where its top bit
/// says it is negative.
[[gnu::always_inline]] inline V sub_mod(V x, V y, V q) {
  const V d = _mm256_sub_epi64(x, y);
  const __m256d dd = _mm256_castsi256_pd(d);
  return _mm256_castpd_si256(_mm256_blendv_pd(dd, _mm256_castsi256_pd(_mm256_add_epi64(d, q)), dd));
}

/// x rounded to the nearest integer (ties to even, as vroundpd) for |x| ≤ 2^51: x + 1.5·2^52 lies
/// in [2^52, 2^53], where the doubles are the integers, so the sum is rounded to the nearest, and
/// subtracting 1.5·2^52 again is exact. Two additions instead of vroundpd, which is two µops on
/// the two multiply ports of Intel's cores (Golden Cove) that the products need; additions also
/// issue on port 5. The FMA kernels' quotients (ntt_avx2_fma.cpp, elementwise_avx2.cpp) use it.
[[gnu::always_inline]] inline __m256d round_small(__m256d x) {
  const __m256d magic = _mm256_set1_pd(0x1.8p52);
  return _mm256_sub_pd(_mm256_add_pd(x, magic), magic);
}

/// Words below 2^52 ↔ doubles, exactly (the 2^52 trick: 2^52 + x is an exact double whose bits
/// are 0x4330… | x).
[[gnu::always_inline]] inline __m256d to_double(V x) {
  return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, set1(0x4330000000000000ULL))),
                       _mm256_set1_pd(0x1p52));
}
[[gnu::always_inline]] inline V to_words(__m256d x) {  // x an integer in [0, 2^52)
  return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(x, _mm256_set1_pd(0x1p52))),
                          set1(0x4330000000000000ULL));
}

/// x with its 32-bit halves swapped: the constant operand of the cross terms below.
constexpr u64 swap_halves(u64 x) {
  return (x >> 32) | (x << 32);
}

/// The cross terms of 64-bit low products, times 2^32: x holds dwords (u, v) per lane, and
/// ((u + v) mod 2^32)·2^32 is its high dword plus its low one moved up.
[[gnu::always_inline]] inline V cross_terms(V x) {
  return _mm256_add_epi64(_mm256_and_si256(x, set1(0xFFFFFFFF00000000ULL)),
                          _mm256_slli_epi64(x, 32));
}

/// a·b mod 2^64 for a constant b, b_sw = swap_halves(b): with a = a1·2^32 + a0, it is
/// a0·b0 + ((a0·b1 + a1·b0) mod 2^32)·2^32, the cross terms by one vpmulld (dword by dword:
/// (a0·b1, a1·b0)): two multiplies and one shift where three partial products took three and
/// two.
[[gnu::always_inline]] inline V mullo(V a, V b, V b_sw) {
  return _mm256_add_epi64(_mm256_mul_epu32(a, b), cross_terms(_mm256_mullo_epi32(a, b_sw)));
}

/// a·b − c·d mod 2^64 for constants b, d (b_sw, d_sw their halves swapped): the two products'
/// cross terms subtracted dword by dword before they are joined, as one.
[[gnu::always_inline]] inline V mul_sub_lo(V a, V b, V b_sw, V c, V d, V d_sw) {
  const V x = _mm256_sub_epi32(_mm256_mullo_epi32(a, b_sw), _mm256_mullo_epi32(c, d_sw));
  return _mm256_add_epi64(_mm256_sub_epi64(_mm256_mul_epu32(a, b), _mm256_mul_epu32(c, d)),
                          cross_terms(x));
}

/// The 128-bit product a·b as hi·2^64 + lo (the AVX-512 kernel's mul_wide on four lanes): with
/// t = a1·b0 + ⌊a0·b0 / 2^32⌋ and u = a0·b1 + (t mod 2^32), hi = a1·b1 + ⌊t/2^32⌋ + ⌊u/2^32⌋
/// and lo = (u mod 2^32)·2^32 + (a0·b0 mod 2^32).
[[gnu::always_inline]] inline void mul_wide(V a, V b, V& hi, V& lo) {
  const V mask32 = set1(0xFFFFFFFFULL);
  const V a1 = _mm256_srli_epi64(a, 32);
  const V b1 = _mm256_srli_epi64(b, 32);
  const V p00 = _mm256_mul_epu32(a, b);
  const V t = _mm256_add_epi64(_mm256_mul_epu32(a1, b), _mm256_srli_epi64(p00, 32));
  const V u = _mm256_add_epi64(_mm256_mul_epu32(a, b1), _mm256_and_si256(t, mask32));
  hi = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a1, b1), _mm256_srli_epi64(t, 32)),
                        _mm256_srli_epi64(u, 32));
  lo = _mm256_or_si256(_mm256_slli_epi64(u, 32), _mm256_and_si256(p00, mask32));
}

/// hi(a·b) exactly, for a constant b with b1 = ⌊b / 2^32⌋.
[[gnu::always_inline]] inline V mul_hi(V a, V b, V b1) {
  const V mask32 = set1(0xFFFFFFFFULL);
  const V a1 = _mm256_srli_epi64(a, 32);
  const V p00 = _mm256_mul_epu32(a, b);
  const V t = _mm256_add_epi64(_mm256_mul_epu32(a1, b), _mm256_srli_epi64(p00, 32));
  const V u = _mm256_add_epi64(_mm256_mul_epu32(a, b1), _mm256_and_si256(t, mask32));
  return _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(a1, b1), _mm256_srli_epi64(t, 32)),
                          _mm256_srli_epi64(u, 32));
}

/// c[i] = f(a[i], …) over n words, four at a time; the n mod 4 tail through a zero-padded
/// vector (its extra lanes computed on zeros and dropped).
template <class F>
[[gnu::always_inline]] inline void map1(const u64* a, u64* c, std::size_t n, F f) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(c + i, f(load(a + i)));
  if (i == n) return;
  alignas(32) u64 x[kLanes] = {};
  for (std::size_t l = 0; l < n - i; ++l) x[l] = a[i + l];
  store(x, f(load(x)));
  for (std::size_t l = 0; l < n - i; ++l) c[i + l] = x[l];
}
template <class F>
[[gnu::always_inline]] inline void map2(const u64* a, const u64* b, u64* c, std::size_t n, F f) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(c + i, f(load(a + i), load(b + i)));
  if (i == n) return;
  alignas(32) u64 x[kLanes] = {}, y[kLanes] = {};
  for (std::size_t l = 0; l < n - i; ++l) {
    x[l] = a[i + l];
    y[l] = b[i + l];
  }
  store(x, f(load(x), load(y)));
  for (std::size_t l = 0; l < n - i; ++l) c[i + l] = x[l];
}
template <class F>
[[gnu::always_inline]] inline void map3(const u64* a, const u64* b, const u64* d, u64* c,
                                        std::size_t n, F f) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(c + i, f(load(a + i), load(b + i), load(d + i)));
  if (i == n) return;
  alignas(32) u64 x[kLanes] = {}, y[kLanes] = {}, z[kLanes] = {};
  for (std::size_t l = 0; l < n - i; ++l) {
    x[l] = a[i + l];
    y[l] = b[i + l];
    z[l] = d[i + l];
  }
  store(x, f(load(x), load(y), load(z)));
  for (std::size_t l = 0; l < n - i; ++l) c[i + l] = x[l];
}

}  // namespace
}  // namespace polyhe::cpu::avx2
