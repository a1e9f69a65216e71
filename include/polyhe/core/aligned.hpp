// 64-byte-aligned storage (docs/design.md, "Data layout"): the one allocator behind every table
// and buffer that vector loads read, so that rows start on a cache line.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace polyhe {

inline constexpr std::size_t kAlignment = 64;

/// A standard allocator returning kAlignment-aligned memory (std::bad_alloc on failure).
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  explicit AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  [[nodiscard]] T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kAlignment}));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete (p, std::align_val_t{kAlignment});
  }
  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
};

template <class T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace polyhe
