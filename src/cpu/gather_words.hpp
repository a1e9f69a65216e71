// The instruction-set-free part of the gathers (ElementwiseKernels::gather and gather_add), shared
// by the kernels of every path: the loop word by word, and whether a map starts with a group of
// eight outputs read from one aligned group of eight inputs (the shape the SIMD kernels permute).
// Internal linkage, as avx2/lanes.hpp: each kernel file compiles its own copy with its own
// instruction-set flags, so no copy built with AVX flags can stand in for the scalar one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cpu/elementwise_kernel.hpp"
#include "polyhe/arith/add.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

/// c[i] = a[index[i]], or with kAdd c[i] = (c[i] + a[index[i]]) mod q.
template <bool kAdd>
inline void gather_word(const std::uint64_t* a, const std::uint32_t* index, std::uint64_t* c,
                        std::size_t i, std::uint64_t q) {
  c[i] = kAdd ? add_mod(c[i], a[index[i]], q) : a[index[i]];
}

/// gather_word for every i < n, with one prefetch a group of eight, kGatherAhead words ahead.
template <bool kAdd>
inline void gather_words(const std::uint64_t* a, const std::uint32_t* index, std::uint64_t* c,
                         std::size_t n, std::uint64_t q) {
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 8 == 0 && i + kGatherAhead < n) __builtin_prefetch(a + index[i + kGatherAhead], 0, 3);
    gather_word<kAdd>(a, index, c, i, q);
  }
}

/// Whether the map's first eight indices fall in one aligned group of eight (n ≥ 8).
inline bool starts_grouped(const std::uint32_t* index, std::size_t n) {
  return n >= 8 &&
         std::all_of(index, index + 8, [&](std::uint32_t x) { return x >> 3 == index[0] >> 3; });
}

}  // namespace
}  // namespace polyhe::cpu
