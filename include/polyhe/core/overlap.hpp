// Whether two memory ranges share a byte: the one predicate behind every aliasing check (an
// output that partly overlaps an input is refused by name; exact aliasing, where allowed, is
// tested by pointer equality before asking).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace polyhe {

/// [a, a + na) and [b, b + nb), in bytes, share a byte. Empty ranges share none. Compared as
/// integers (std::uintptr_t), so ranges of unrelated objects are compared without undefined
/// behaviour.
[[nodiscard]] inline bool bytes_overlap(const void* a, std::size_t na, const void* b,
                                        std::size_t nb) noexcept {
  if (na == 0 || nb == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a);
  const auto y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + nb && y < x + na;
}

/// The same for two spans of any element types.
template <class A, std::size_t EA, class B, std::size_t EB>
[[nodiscard]] bool overlaps(std::span<A, EA> a, std::span<B, EB> b) noexcept {
  return bytes_overlap(a.data(), a.size_bytes(), b.data(), b.size_bytes());
}

}  // namespace polyhe
