#include "gmp_memory.hpp"

#include <gmp.h>

#include <cstdlib>
#include <mutex>
#include <new>

// GMP's own default functions (exported by libgmp); weak, so a GMP without them links and is
// simply left as it is.
extern "C" {
void* __gmp_default_allocate(std::size_t) __attribute__((weak));                        // NOLINT
void* __gmp_default_reallocate(void*, std::size_t, std::size_t) __attribute__((weak));  // NOLINT
void __gmp_default_free(void*, std::size_t) __attribute__((weak));                      // NOLINT
}

namespace polyhe::detail {

namespace {

void* allocate(std::size_t bytes) {
  void* p = std::malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* reallocate(void* old, std::size_t /*old_bytes*/, std::size_t bytes) {
  void* p = std::realloc(old, bytes);
  if (p == nullptr) throw std::bad_alloc();  // `old` is still valid and still owned by GMP
  return p;
}

void release(void* p, std::size_t /*bytes*/) {
  std::free(p);
}

}  // namespace

void use_throwing_gmp_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    void* (*alloc)(std::size_t) = nullptr;
    void* (*realloc)(void*, std::size_t, std::size_t) = nullptr;
    void (*free)(void*, std::size_t) = nullptr;
    mp_get_memory_functions(&alloc, &realloc, &free);
    // The defaults allocate with malloc/realloc/free too, so blocks GMP already holds stay valid
    // under the new functions.
    if (&__gmp_default_allocate == nullptr || alloc != &__gmp_default_allocate ||
        realloc != &__gmp_default_reallocate || free != &__gmp_default_free) {
      return;
    }
    mp_set_memory_functions(&allocate, &reallocate, &release);
  });
}

}  // namespace polyhe::detail
