// The default transform on AVX2 for q < 2^50 in double-precision arithmetic: four lanes of
// doubles holding integers, every product exact by FMA (the transform, its bounds and its
// schedule: cpu/fma_ntt.hpp, shared with the AVX-512 kernel). Compiled with -mavx2 -mfma (this
// file only) and chosen by make_avx2_ntt_kernel for q < 2^50. hadamard is the AVX2 element-wise
// multiply (its FMA form for q < 2^50), and the fused product's middle step is
// avx2_fused_hadamard on the same products.
#include <immintrin.h>

#include <memory>
#include <vector>

#include "cpu/elementwise_kernel.hpp"
#include "cpu/fma_ntt.hpp"
#include "cpu/ntt_kernel.hpp"
#include "doubles.hpp"
#include "lanes.hpp"
#include "ntt_tables.hpp"
#include "polyhe/arith/modulus.hpp"

namespace polyhe::cpu {

/// The kernel for q < 2^50 and n ≥ 16 (make_avx2_ntt_kernel chooses it).
std::unique_ptr<NttKernel64> make_avx2_fma_ntt_kernel(const NttTables64& t);

namespace {

class Avx2FmaNttKernel final : public FmaNttKernel<Avx2Doubles> {
 public:
  explicit Avx2FmaNttKernel(const NttTables64& t)
      : FmaNttKernel(t),
        alpha2_(avx2::fused_alpha2_lanes(t.n, t.q, t.fwd)),
        barrett_(Modulus<u64>(t.q).barrett_alg4()) {}

  [[nodiscard]] CpuPath path() const override { return CpuPath::avx2; }

  void hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_elementwise_kernels()->multiply(a, b, c, n_, barrett_);
  }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override {
    avx2_fused_hadamard(a, b, alpha2_.data(), c, n_, barrett_);
  }

 private:
  std::vector<u64> alpha2_;   // the fused product's ±α² (avx2::fused_alpha2_lanes)
  BarrettAlg4<u64> barrett_;  // hadamard and the fused product, by the AVX2 multiply
};

}  // namespace

std::unique_ptr<NttKernel64> make_avx2_fma_ntt_kernel(const NttTables64& t) {
  return std::make_unique<Avx2FmaNttKernel>(t);
}

}  // namespace polyhe::cpu
