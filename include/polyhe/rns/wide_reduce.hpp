// Reduction of a full 128-bit accumulator modulo a word-sized q: the one reduction at the end of
// a lazy multiply-accumulate (base conversion sums |B| products of two words before reducing).
#pragma once

#include <cstdint>

#include "polyhe/arith/word.hpp"

namespace polyhe {

/// q with r = ⌊(2^128 − 1)/q⌋ as two words (SEAL's const_ratio). Requires 2 ≤ q < 2^63.
struct WideBarrett {
  std::uint64_t q;
  std::uint64_t r_hi;
  std::uint64_t r_lo;
};

/// Host only (a 128-bit division).
constexpr WideBarrett make_wide_barrett(std::uint64_t q) {
  const u128 r = ~u128{0} / q;
  return {q, static_cast<std::uint64_t>(r >> 64), static_cast<std::uint64_t>(r)};
}

/// x mod q for any 0 ≤ x < 2^128. The quotient estimate e = ⌊x·r / 2^128⌋ is computed exactly
/// (every carry of the middle partial products kept; only its low word is needed). Writing
/// 2^128 − 1 = r·q + s with 0 ≤ s < q, 2^128/q − r = (s + 1)/q ≤ 1, so
/// x/q − x·r/2^128 < x/2^128 < 1 and e > x/q − 2: the remainder x − e·q lies in [0, 2q) and one
/// correction finishes. Output in [0, q).
POLYHE_HD constexpr std::uint64_t wide_reduce(u128 x, const WideBarrett& b) {
  const auto x_lo = static_cast<std::uint64_t>(x);
  const auto x_hi = static_cast<std::uint64_t>(x >> 64);
  // x·r = x_hi·r_hi·2^128 + (x_hi·r_lo + x_lo·r_hi)·2^64 + x_lo·r_lo; keep word 2 and up.
  const u128 lo_lo = mul_wide(x_lo, b.r_lo);
  const u128 lo_hi = mul_wide(x_lo, b.r_hi);
  const u128 hi_lo = mul_wide(x_hi, b.r_lo);
  const u128 mid =
      (lo_lo >> 64) + static_cast<std::uint64_t>(lo_hi) + static_cast<std::uint64_t>(hi_lo);
  const std::uint64_t e = x_hi * b.r_hi + static_cast<std::uint64_t>(lo_hi >> 64) +
                          static_cast<std::uint64_t>(hi_lo >> 64) +
                          static_cast<std::uint64_t>(mid >> 64);
  const std::uint64_t rem = x_lo - e * b.q;  // < 2q < 2^64: exact modulo 2^64
  return rem - (b.q & (std::uint64_t{0} - static_cast<std::uint64_t>(rem >= b.q)));
}

/// x mod q for 0 ≤ x ≤ 2^63, from r's high word alone: one high and one low product, where
/// wide_reduce takes four (the device's centred lifts reduce words below 2^62 this way). With
/// r_hi = ⌊r/2^64⌋ > r/2^64 − 1 > 2^64/q − 2 and r_hi ≤ 2^64/q, the estimate e = ⌊x·r_hi/2^64⌋
/// satisfies x/q − 2·x/2^64 − 1 < e ≤ x/q, so e > x/q − 2 for x ≤ 2^63: the remainder x − e·q
/// lies in [0, 2q) and one correction finishes. Output in [0, q).
POLYHE_HD constexpr std::uint64_t reduce_word(std::uint64_t x, const WideBarrett& b) {
  const auto e = static_cast<std::uint64_t>(mul_wide(x, b.r_hi) >> 64);
  const std::uint64_t rem = x - e * b.q;  // < 2q < 2^64: exact modulo 2^64
  return rem - (b.q & (std::uint64_t{0} - static_cast<std::uint64_t>(rem >= b.q)));
}

}  // namespace polyhe
