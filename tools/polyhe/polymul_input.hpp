// The input of `polyhe polymul`: {"q": Q, "a": [...], "b": [...]}, every integer a JSON number or a
// decimal string. Nothing in it is trusted: every deviation is a CorruptData naming the value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <vector>

namespace polyhe::cli {

struct PolymulInput {
  std::uint64_t q = 0;
  std::vector<std::uint64_t> a;
  std::vector<std::uint64_t> b;
};

/// Arrays longer than this are refused while reading (N ≤ 2^17).
inline constexpr std::size_t kMaxPolymulLength = std::size_t{1} << 17;
/// Input longer than this is refused before it is parsed (two arrays of 2^17 coefficients of 20
/// digits, quoted and comma-separated, take under 12 MiB).
inline constexpr std::size_t kMaxPolymulInputBytes = std::size_t{16} << 20;

/// Reads one JSON object from `in` (at most kMaxPolymulInputBytes: CorruptData beyond, before
/// parsing; a NUL byte anywhere is CorruptData naming its offset), through the SAX interface, and
/// checks its shape and its integers:
/// exactly the keys q, a, b (no duplicates); q an integer; a and b arrays of integers of at most
/// kMaxPolymulLength entries; every integer in [0, 2^64 − 1] given as a JSON number without
/// fraction or exponent, or as a string of decimal digits. Throws CorruptData otherwise. The
/// arithmetic rules (lengths, q prime, coefficients below q) are the caller's.
PolymulInput read_polymul_input(std::istream& in);

/// `text` as an unsigned 64-bit integer: one or more decimal digits and nothing else (no sign,
/// no spaces), at most 2^64 − 1. Throws CorruptData naming `what` otherwise.
std::uint64_t parse_decimal_u64(std::string_view text, std::string_view what);

}  // namespace polyhe::cli
