// Build-wide macros shared by host and device code.
#pragma once

#if defined(__CUDACC__)
#define POLYHE_HD __host__ __device__
#define POLYHE_INLINE __forceinline__
#else
#define POLYHE_HD
#define POLYHE_INLINE inline __attribute__((always_inline))
#endif

// Inner loops validate nothing; they state preconditions with this assertion, which is active
// in Debug/sanitizer builds only. Public entry points validate always (see core/error.hpp).
#if defined(POLYHE_ENABLE_DEBUG_ASSERT) && !defined(__CUDA_ARCH__)
#include <cstdio>
#include <cstdlib>
#define POLYHE_DEBUG_ASSERT(cond)                                                             \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "%s:%d: debug assertion failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)
#else
#define POLYHE_DEBUG_ASSERT(cond) ((void)0)
#endif
