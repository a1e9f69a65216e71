// Shared inputs for the arith tests: moduli of a given bit length, uniform double words, and the
// per-length sample counts the suite promises (≥ 10^5 random inputs per bit length).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/arith/word.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {

/// Random inputs per (algorithm, bit length), split evenly over the moduli of that length.
inline constexpr int kSamplesPerLength = 100'000;
/// Random moduli per bit length, besides the smallest and the largest.
inline constexpr int kRandomModuliPerLength = 3;
/// The exhaustive tests cover every q < 2^kExhaustiveBits.
inline constexpr int kExhaustiveBits = 8;

inline std::string u128_string(u128 x) {
  if (x == 0) return "0";
  std::string s;
  for (; x != 0; x /= 10) s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  return s;
}

/// Uniform in [0, bound) for 1 ≤ bound ≤ 2^(2β), by rejection on the smallest enclosing power of
/// two (at most two draws expected).
template <Word W>
Wide<W> uniform_below(TestRng& rng, Wide<W> bound) {
  constexpr int kWideBits = 2 * word_bits<W>;
  const int len = bit_length(bound - 1);
  const Wide<W> mask = len == kWideBits ? ~Wide<W>{0} : (Wide<W>{1} << len) - 1;
  for (;;) {
    Wide<W> x = rng.bits();
    if constexpr (kWideBits > 64) x = (x << 64) | rng.bits();
    x &= mask;
    if (x < bound) return x;
  }
}

/// Uniform in [0, bound) for a word bound ≥ 1.
template <Word W>
W uniform_word_below(TestRng& rng, W bound) {
  return static_cast<W>(rng.uniform(0, bound - 1));
}

/// Moduli of exactly `bits` bits accepted by `accepts` (odd-only algorithms reject even q; the
/// Barrett variants reject the power of two whose µ overflows a word): the smallest accepted, the
/// largest accepted, and kRandomModuliPerLength random accepted ones. Duplicates removed.
template <Word W, class Accepts>
std::vector<W> moduli_of_length(TestRng& rng, int bits, Accepts accepts) {
  const W lo = W{1} << (bits - 1);
  const W hi = static_cast<W>((Wide<W>{1} << bits) - 1);
  std::vector<W> qs;
  for (W q = lo;; ++q) {
    if (accepts(q)) {
      qs.push_back(q);
      break;
    }
    if (q == hi) return qs;  // nothing of this length is accepted
  }
  for (W q = hi; q >= lo; --q) {
    if (accepts(q)) {
      qs.push_back(q);
      break;
    }
  }
  for (int found = 0, tries = 0; found < kRandomModuliPerLength && tries < 1000; ++tries) {
    const W q = static_cast<W>(rng.uniform(lo, hi));
    if (accepts(q)) {
      qs.push_back(q);
      ++found;
    }
  }
  std::sort(qs.begin(), qs.end());
  qs.erase(std::unique(qs.begin(), qs.end()), qs.end());
  return qs;
}

}  // namespace polyhe::test
