#include "polyhe/core/constant_time.hpp"

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define POLYHE_CT_ANNOTATIONS 1
#else
#define POLYHE_CT_ANNOTATIONS 0
#endif

namespace polyhe::detail {

bool ct_annotations_built() noexcept {
  return POLYHE_CT_ANNOTATIONS != 0;
}

void ct_secret(const void* p, std::size_t bytes) noexcept {
#if POLYHE_CT_ANNOTATIONS
  if (bytes != 0) VALGRIND_MAKE_MEM_UNDEFINED(p, bytes);
#else
  static_cast<void>(p);
  static_cast<void>(bytes);
#endif
}

void ct_public(const void* p, std::size_t bytes) noexcept {
#if POLYHE_CT_ANNOTATIONS
  if (bytes != 0) VALGRIND_MAKE_MEM_DEFINED(p, bytes);
#else
  static_cast<void>(p);
  static_cast<void>(bytes);
#endif
}

}  // namespace polyhe::detail
