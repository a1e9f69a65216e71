// Helpers shared by the AVX-512 and IFMA52 translation units: loops over eight-word vectors with a
// masked tail, and the one-step reduction. Everything here has internal linkage on purpose: each
// translation unit is compiled with its own ISA flags, and the linker must never merge a copy
// built for one instruction set into code that runs on another.
#pragma once

// GCC 12 reports its own _mm512_undefined_epi32() (used by the unmasked shift and multiply
// intrinsics) as maybe-uninitialized when they are inlined (GCC PR 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <cstddef>
#include <cstdint>

#include "cpu/elementwise_kernel.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see the file comment

using V = __m512i;

inline V set1(std::uint64_t x) {
  return _mm512_set1_epi64(static_cast<long long>(x));
}

/// A uniform shift count for _mm512_sll/srl_epi64 (counts above 63 yield 0).
inline __m128i shift_count(int s) {
  return _mm_cvtsi32_si128(s);
}

/// x mod q for 0 ≤ x < 2q < 2^63: min(x, x − q), since x − q wraps above x exactly when x < q.
inline V reduce_once(V x, V q) {
  return _mm512_min_epu64(x, _mm512_sub_epi64(x, q));
}

// Drivers: full vectors, then one masked vector for the n mod 8 tail. Masked lanes are neither
// read nor written (no access strays past the end) and compute on zeros. Loads and stores are
// unaligned; c may alias a or b exactly, as each vector is loaded before it is stored. Unrolled
// twice: two independent chains per iteration (measured 5-20% on the IFMA products, Zen 4).

/// How far ahead (residues) the key-switching inner products prefetch their interleaved key
/// (measured at N = 2^14 and 2^16 with 8-byte residues: 1024 and 2048 equal, 256–512 slower).
constexpr std::size_t kKeyAhead = 1024;

/// Prefetches the bytes of term j (b_j's and a_j's eight residues, `row` bytes each) in the group
/// kKeyAhead residues after the group at k. A prefetch never faults, so running past the end of
/// the key is harmless.
inline void prefetch_key(const std::uint8_t* k, std::size_t j, std::size_t row, std::size_t width) {
  const std::uint8_t* p = k + 2 * row * j + kKeyAhead * width;
  // The 2·row ≤ 128 bytes span at most three lines: their first, middle and last bytes.
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(p + row), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(p + 2 * row - 1), _MM_HINT_T0);
}

/// Eight residues of w bytes each (1 ≤ w ≤ 8, little-endian, back to back) into eight lanes, with
/// AVX-512 F/BW only: one masked load of the 8w bytes (nothing beyond them is touched), then lane
/// r, whose residue starts at byte w·r = 8·i + b, is (Q_i >> 8b | Q_{i+1} << (64 − 8b)) masked
/// to 8w bits, Q_i the vector's 64-bit words (a shift by 64 gives 0; Q_{i+1} wraps to Q_0 only
/// for a residue inside Q_7, whose bits it does not reach).
class KeyUnpack {
 public:
  explicit KeyUnpack(std::size_t w)
      : bytes_(w == 8 ? ~__mmask64{0} : (__mmask64{1} << (8 * w)) - 1),
        mask_(set1(w == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * w)) - 1)) {
    alignas(64) std::uint64_t lo[8], hi[8], right[8], left[8];
    for (std::size_t r = 0; r < 8; ++r) {
      lo[r] = w * r / 8;
      hi[r] = (lo[r] + 1) % 8;
      right[r] = 8 * (w * r % 8);
      left[r] = 64 - right[r];
    }
    lo_ = _mm512_load_si512(lo);
    hi_ = _mm512_load_si512(hi);
    right_ = _mm512_load_si512(right);
    left_ = _mm512_load_si512(left);
  }

  [[nodiscard]] V operator()(const std::uint8_t* p) const {
    const V raw = _mm512_maskz_loadu_epi8(bytes_, p);
    const V low = _mm512_srlv_epi64(_mm512_permutexvar_epi64(lo_, raw), right_);
    const V high = _mm512_sllv_epi64(_mm512_permutexvar_epi64(hi_, raw), left_);
    return _mm512_and_si512(_mm512_or_si512(low, high), mask_);
  }

 private:
  __mmask64 bytes_;
  V mask_, lo_, hi_, right_, left_;
};

inline __mmask8 tail_mask(std::size_t left) {
  return static_cast<__mmask8>((1U << left) - 1);
}

/// c[i] = op(a[i]).
template <class Op>
inline void map1(const std::uint64_t* a, std::uint64_t* c, std::size_t n, Op op) {
  std::size_t i = 0;
#pragma GCC unroll 2
  for (; i + 8 <= n; i += 8) _mm512_storeu_si512(c + i, op(_mm512_loadu_si512(a + i)));
  if (i < n) {
    const __mmask8 k = tail_mask(n - i);
    _mm512_mask_storeu_epi64(c + i, k, op(_mm512_maskz_loadu_epi64(k, a + i)));
  }
}

/// c[i] = op(a[i], b[i]).
template <class Op>
inline void map2(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c, std::size_t n,
                 Op op) {
  std::size_t i = 0;
#pragma GCC unroll 2
  for (; i + 8 <= n; i += 8) {
    _mm512_storeu_si512(c + i, op(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i)));
  }
  if (i < n) {
    const __mmask8 k = tail_mask(n - i);
    _mm512_mask_storeu_epi64(
        c + i, k, op(_mm512_maskz_loadu_epi64(k, a + i), _mm512_maskz_loadu_epi64(k, b + i)));
  }
}

/// c[i] = op(a[i], b[i], d[i]).
template <class Op>
inline void map3(const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* d,
                 std::uint64_t* c, std::size_t n, Op op) {
  std::size_t i = 0;
#pragma GCC unroll 2
  for (; i + 8 <= n; i += 8) {
    _mm512_storeu_si512(
        c + i, op(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i), _mm512_loadu_si512(d + i)));
  }
  if (i < n) {
    const __mmask8 k = tail_mask(n - i);
    _mm512_mask_storeu_epi64(
        c + i, k,
        op(_mm512_maskz_loadu_epi64(k, a + i), _mm512_maskz_loadu_epi64(k, b + i),
           _mm512_maskz_loadu_epi64(k, d + i)));
  }
}

}  // namespace
}  // namespace polyhe::cpu
