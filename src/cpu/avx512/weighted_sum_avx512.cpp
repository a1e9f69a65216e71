// The inner sum of base conversion on eight lanes of doubles (cpu/fma_weighted_sum.hpp), for
// x_i[k] < 2^50 and c < 2^50. Compiled with the AVX-512 flags (this file only) and called by
// vec::WeightedSum only where cpu_path() allows it.
#include "cpu/convert_kernel.hpp"
#include "cpu/fma_weighted_sum.hpp"
#include "doubles.hpp"

namespace polyhe::cpu {

namespace {

void weighted_sum_fma8(const std::uint64_t* const* x, std::size_t terms, const std::uint64_t* w,
                       std::uint64_t* out, std::size_t n, std::uint64_t c) {
  fma_weighted_sum<Avx512Doubles>(x, terms, w, out, n, c);
}

}  // namespace

WeightedSumFmaKernel avx512_weighted_sum_kernel() {
  return &weighted_sum_fma8;
}

}  // namespace polyhe::cpu
