// The wide AVX2 kernel of cpu/convert_kernel.hpp: Σ_i x_i·w_i mod c for any 64-bit x_i and odd
// 2^10 ≤ c < 2^62 on four coefficients at a time, from AVX2's only integer product, vpmuludq
// (32 × 32 → 64 bits). The weights come in Montgomery form, w' = w·2^R mod c; each product
// x·w' is taken as six partial products of x's two 32-bit digits by w′'s three 21-bit ones, each
// below 2^53 and summed lazily in its own 64-bit lane (1024 terms fit); each sum S is brought to
// S·2^−R mod c by 32-bit Montgomery steps, three (R = 2^96) for c ≥ 2^42, else four (2^128).
// Compiled with -mavx2 (this file only), called only where cpu_path() allows it. The avx2 and
// avx512 paths' conversions for primes of 50 to 62 bits, where the double-precision kernel does not
// serve.
#include <array>

#include "cpu/convert_kernel.hpp"
#include "lanes.hpp"

namespace polyhe::cpu {

namespace {

using avx2::set1;
using avx2::V;
using u64 = std::uint64_t;

/// The six lazy sums of one vector of coefficients, named by the power of two each is weighted by:
/// x = x0 + x1·2^32 (x0, x1 < 2^32) times w' = w0 + w1·2^21 + w2·2^42 (w0, w1 < 2^21, w2 < 2^20).
/// Each term adds below 2^53 to each sum, so 1024 terms stay below 2^63.
struct Sums {
  V s0, s21, s42, s32, s53, s74;

  Sums() : s0(_mm256_setzero_si256()), s21(s0), s42(s0), s32(s0), s53(s0), s74(s0) {}

  /// vpmuludq reads the low 32 bits of each lane: x itself is its low digit.
  [[gnu::always_inline]] void add(V x, V w0, V w1, V w2) {
    const V x1 = _mm256_srli_epi64(x, 32);
    s0 = _mm256_add_epi64(s0, _mm256_mul_epu32(x, w0));
    s21 = _mm256_add_epi64(s21, _mm256_mul_epu32(x, w1));
    s42 = _mm256_add_epi64(s42, _mm256_mul_epu32(x, w2));
    s32 = _mm256_add_epi64(s32, _mm256_mul_epu32(x1, w0));
    s53 = _mm256_add_epi64(s53, _mm256_mul_epu32(x1, w1));
    s74 = _mm256_add_epi64(s74, _mm256_mul_epu32(x1, w2));
  }
};

/// S·2^−32·Steps mod c for the S a Sums holds: S < 2^137 (1024 terms), odd c < 2^62 with
/// S/2^(32·Steps) < c (four steps: c ≥ 2^10; three: c ≥ 2^42).
template <int Steps>
class Redc {
 public:
  explicit Redc(const WeightedSumWide32Modulus& m)
      : c_(set1(m.c)),
        c0_(set1(m.c & 0xFFFFFFFFULL)),
        c1_(set1(m.c >> 32)),
        cinv_(set1(m.cinv32)),
        mask32_(set1(0xFFFFFFFFULL)),
        one_(set1(1)) {}

  [[gnu::always_inline]] V operator()(const Sums& s) const {
    // The sums regrouped into columns of 32 bits, S = d0 + d1·2^32 + d2·2^64 + d3·2^96: the
    // digits straddling a column's edge split there. d0 < 2^63 + 2^32, d1 < 2^63 + 2^53,
    // d2 < 2^53, d3 < 2^40.
    const V m11 = set1((u64{1} << 11) - 1);
    const V m22 = set1((u64{1} << 22) - 1);
    V d0 = _mm256_add_epi64(s.s0, _mm256_slli_epi64(_mm256_and_si256(s.s21, m11), 21));
    V d1 = _mm256_add_epi64(_mm256_add_epi64(s.s32, _mm256_srli_epi64(s.s21, 11)),
                            _mm256_add_epi64(_mm256_slli_epi64(_mm256_and_si256(s.s42, m22), 10),
                                             _mm256_slli_epi64(_mm256_and_si256(s.s53, m11), 21)));
    V d2 = _mm256_add_epi64(
        _mm256_add_epi64(_mm256_srli_epi64(s.s42, 22), _mm256_srli_epi64(s.s53, 11)),
        _mm256_slli_epi64(_mm256_and_si256(s.s74, m22), 10));
    V d3 = _mm256_srli_epi64(s.s74, 22);
    step(d0, d1);
    step(d1, d2);
    step(d2, d3);
    // After three steps d3 = (S + M·c)/2^96 < S/2^96 + c < 2^41 + c, below 2c for c ≥ 2^42;
    // after four, (S + M·c)/2^128 < 2^9 + c, below 2c for c ≥ 2^10.
    if constexpr (Steps == 4) {
      V d4 = _mm256_setzero_si256();
      step(d3, d4);
      return avx2::reduce_once(d4, c_);
    } else {
      static_assert(Steps == 3);
      return avx2::reduce_once(d3, c_);
    }
  }

 private:
  /// One Montgomery step on the low column d: with μ = (d mod 2^32)·(−c^−1) mod 2^32, d + μ·c0
  /// is a multiple of 2^32, so its quotient, ⌊d/2^32⌋ + ⌊μ·c0/2^32⌋ + [d mod 2^32 ≠ 0], and
  /// μ·c1 < 2^62 move up to the next column, which stays below 2^63 + 2^62 + 2^54 (d1 is the
  /// largest): no lane overflows.
  [[gnu::always_inline]] void step(V d, V& next) const {
    const V mu = _mm256_mul_epu32(d, cinv_);  // its low 32 bits are μ
    const V p0 = _mm256_mul_epu32(mu, c0_);
    const V p1 = _mm256_mul_epu32(mu, c1_);
    const V zero_low = _mm256_cmpeq_epi64(_mm256_and_si256(d, mask32_), _mm256_setzero_si256());
    const V carry = _mm256_andnot_si256(zero_low, one_);
    next =
        _mm256_add_epi64(_mm256_add_epi64(next, _mm256_add_epi64(_mm256_srli_epi64(d, 32), carry)),
                         _mm256_add_epi64(_mm256_srli_epi64(p0, 32), p1));
  }

  V c_, c0_, c1_, cinv_, mask32_, one_;
};

template <int Steps>
void weighted_sum_wide(const u64* const* x, std::size_t terms, const u64* w_mont, u64* out,
                       std::size_t n, const WeightedSumWide32Modulus& m) {
  const Redc<Steps> redc(m);
  // The weights' digits, split once: broadcast from memory in the loop (a load, where a
  // broadcast from a general register costs two vector µops a term).
  std::array<u64, 3 * kWeightedSumWideMaxTerms> digits;
  const u64 mask21 = (u64{1} << 21) - 1;
  for (std::size_t i = 0; i < terms; ++i) {
    digits[3 * i] = w_mont[i] & mask21;
    digits[3 * i + 1] = (w_mont[i] >> 21) & mask21;
    digits[3 * i + 2] = w_mont[i] >> 42;
  }
  const auto sum = [&digits, x, terms](std::size_t k, auto&& load) {
    Sums s;
    for (std::size_t i = 0; i < terms; ++i) {
      const auto* d = reinterpret_cast<const long long*>(&digits[3 * i]);
      s.add(load(x[i] + k), _mm256_set1_epi64x(d[0]), _mm256_set1_epi64x(d[1]),
            _mm256_set1_epi64x(d[2]));
    }
    return s;
  };
  const auto full = [](const u64* p) { return avx2::load(p); };
  // The sums of sixteen vectors first, then their reductions: the reductions' chains of
  // dependent products (four Montgomery steps) overlap one another instead of stalling the sums
  // of the next vector (1.1-1.2x at 8 and 16 terms against reducing each vector after its sums).
  constexpr std::size_t kChunk = 16;
  std::array<Sums, kChunk> sums;
  std::size_t k = 0;
  for (; k + 4 * kChunk <= n; k += 4 * kChunk) {
    for (std::size_t v = 0; v < kChunk; ++v) sums[v] = sum(k + 4 * v, full);
    for (std::size_t v = 0; v < kChunk; ++v) avx2::store(out + k + 4 * v, redc(sums[v]));
  }
  for (; k + 4 <= n; k += 4) avx2::store(out + k, redc(sum(k, full)));
  if (k < n) {
    // The masked loads read only the lanes below n (no word past a term's end is touched).
    const V active = _mm256_cmpgt_epi64(set1(n - k), _mm256_set_epi64x(3, 2, 1, 0));
    const auto masked = [active](const u64* p) {
      return _mm256_maskload_epi64(reinterpret_cast<const long long*>(p), active);
    };
    _mm256_maskstore_epi64(reinterpret_cast<long long*>(out + k), active, redc(sum(k, masked)));
  }
}

void weighted_sum_wide_dispatch(const u64* const* x, std::size_t terms, const u64* w_mont, u64* out,
                                std::size_t n, const WeightedSumWide32Modulus& m) {
  if (m.steps == 3) {
    weighted_sum_wide<3>(x, terms, w_mont, out, n, m);
  } else {
    weighted_sum_wide<4>(x, terms, w_mont, out, n, m);
  }
}

}  // namespace

WeightedSumWide32Kernel avx2_weighted_sum_wide_kernel() {
  return &weighted_sum_wide_dispatch;
}

}  // namespace polyhe::cpu
