// Factories for the SIMD paths this build did not compile (non-x86 targets, or a compiler
// without the ISA flags): they serve nothing, and callers fall back to a lower path.
#include "cpu/ntt_kernel.hpp"

namespace polyhe::cpu {

#if !defined(POLYHE_HAVE_AVX2_KERNELS)
std::unique_ptr<NttKernel64> make_avx2_ntt_kernel(const NttTables64&) {
  return nullptr;
}
#endif
#if !defined(POLYHE_HAVE_AVX512_KERNELS)
std::unique_ptr<NttKernel64> make_avx512_ntt_kernel(const NttTables64&) {
  return nullptr;
}
#endif
#if !defined(POLYHE_HAVE_IFMA_KERNELS)
std::unique_ptr<NttKernel64> make_ifma_ntt_kernel(const NttTables64&) {
  return nullptr;
}
#endif

}  // namespace polyhe::cpu
