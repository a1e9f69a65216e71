// Machine words and their double-width products, for host and device alike.
#pragma once

#include <concepts>
#include <cstdint>

#include "polyhe/core/config.hpp"

namespace polyhe {

__extension__ using u128 = unsigned __int128;

/// The word types the arithmetic is written for: 32-bit words (the fast path on GPUs, primes up
/// to 30 bits) and 64-bit words (primes up to 62 bits).
template <class W>
concept Word = std::same_as<W, std::uint32_t> || std::same_as<W, std::uint64_t>;

template <Word W>
struct WordTraits;

template <>
struct WordTraits<std::uint32_t> {
  using Wide = std::uint64_t;
  static constexpr int bits = 32;
};

template <>
struct WordTraits<std::uint64_t> {
  using Wide = u128;
  static constexpr int bits = 64;
};

/// The double-width type that holds a product of two words.
template <Word W>
using Wide = typename WordTraits<W>::Wide;

/// β, the word size in bits.
template <Word W>
inline constexpr int word_bits = WordTraits<W>::bits;

template <Word W>
POLYHE_HD constexpr Wide<W> mul_wide(W a, W b) {
  return static_cast<Wide<W>>(a) * b;
}

/// The high word of a·b.
template <Word W>
POLYHE_HD constexpr W mul_hi(W a, W b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(W) == 8) {
    return __umul64hi(a, b);
  } else {
    return __umulhi(a, b);
  }
#else
  return static_cast<W>(mul_wide(a, b) >> word_bits<W>);
#endif
}

/// len(a) = ⌊log2 a⌋ + 1 for a > 0, and 0 for a = 0 (Shoup's bit length, as the paper uses it).
template <class U>
POLYHE_HD constexpr int bit_length(U a) {
  int n = 0;
  while (a != 0) {
    ++n;
    a >>= 1;
  }
  return n;
}

}  // namespace polyhe
