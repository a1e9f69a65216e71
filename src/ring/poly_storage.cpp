// The storage of host polynomials (ring/poly.hpp, detail::poly_allocate): aligned blocks, with a
// per-thread cache of recently freed large blocks.
//
// Why: an HE operation allocates the same few shapes again and again (results, temporaries of
// N·L words, megabytes each). glibc serves such blocks from the top of the heap or from mmap and
// gives them back to the system when they are freed (heap trimming, munmap), so every call faulted
// its pages in again — a BGV encryption at N = 2^14 measured 4.5 ms instead of 2.0 (900 page
// faults a call instead of 120, AMD EPYC) when the order of allocations left the freed blocks at
// the top of the heap. The cache keeps up to kEntries blocks of at least kMinBytes, kMaxBytes in
// all, per thread, and hands one back only for an allocation of exactly its size. Under
// AddressSanitizer it is off, so that a use after free of a polynomial's words is still reported.
//
// Secrets: neither the cache nor the allocator wipes a block, and a block cached by one thread is
// handed to the next allocation of its size there. Whoever holds secret words wipes them before
// the release (RnsPoly::wipe: rlwe::SecretKey's destructor and assignments, key generation's and
// encryption's temporaries), so no secret reaches the cache; wiping every free here would cost
// every operation a pass over its temporaries.
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>

#include "polyhe/core/aligned.hpp"
#include "polyhe/ring/poly.hpp"

namespace polyhe::detail {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCache = false;
#else
constexpr bool kCache = true;
#endif
constexpr std::size_t kEntries = 16;
constexpr std::size_t kMinBytes = std::size_t{64} << 10;  // below: the allocator is cheap enough
constexpr std::size_t kMaxBytes = std::size_t{64} << 20;

std::uint64_t* raw_allocate(std::size_t words) {
  return AlignedAllocator<std::uint64_t>{}.allocate(words);
}
void raw_free(std::uint64_t* p) noexcept {
  AlignedAllocator<std::uint64_t>{}.deallocate(p, 0);
}

// Set when this thread's cache is destroyed (thread exit): blocks freed later, by the destructors
// of objects that outlive it, bypass it. A plain bool: readable for the whole life of the thread.
thread_local bool t_cache_gone = false;

struct Cache {
  struct Entry {
    std::uint64_t* p = nullptr;
    std::size_t words = 0;
  };
  std::array<Entry, kEntries> entries{};
  std::size_t bytes = 0;
  Cache() = default;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;
  ~Cache() {
    t_cache_gone = true;
    for (Entry& e : entries) {
      if (e.p != nullptr) raw_free(e.p);
    }
  }
};

Cache* cache() {
  if (t_cache_gone) return nullptr;
  thread_local Cache c;
  return &c;
}

}  // namespace

std::uint64_t* poly_allocate(std::size_t words) {
  Cache* c = kCache && words * sizeof(std::uint64_t) >= kMinBytes ? cache() : nullptr;
  if (c != nullptr) {
    for (Cache::Entry& e : c->entries) {
      if (e.p != nullptr && e.words == words) {
        std::uint64_t* p = e.p;
        e = {};
        c->bytes -= words * sizeof(std::uint64_t);
        return p;
      }
    }
  }
  return raw_allocate(words);
}

void poly_deallocate(std::uint64_t* p, std::size_t words) noexcept {
  const std::size_t bytes = words * sizeof(std::uint64_t);
  Cache* c = kCache && p != nullptr && bytes >= kMinBytes ? cache() : nullptr;
  if (c != nullptr && c->bytes + bytes <= kMaxBytes) {
    for (Cache::Entry& e : c->entries) {
      if (e.p == nullptr) {
        e = {p, words};
        c->bytes += bytes;
        return;
      }
    }
  }
  raw_free(p);  // a full cache lets the block go
}

}  // namespace polyhe::detail
