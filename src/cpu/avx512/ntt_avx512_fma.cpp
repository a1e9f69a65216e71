// The default transform on AVX-512 for q < 2^50 in double-precision arithmetic: eight lanes of
// doubles holding integers, every product exact by FMA (the transform, its bounds and its
// schedule: cpu/fma_ntt.hpp, shared with the AVX2 kernel). Compiled with the AVX-512 flags (this
// file only) and chosen by make_avx512_ntt_kernel for q < 2^50; the element-wise products
// (hadamard, the fused product's middle step) are the AVX-512 integer kernel's, which it is given.
#include <memory>
#include <utility>

#include "cpu/fma_ntt.hpp"
#include "cpu/ntt_kernel.hpp"
#include "doubles.hpp"

namespace polyhe::cpu {

/// The kernel for q < 2^50 and n ≥ 32, products by `products` (the AVX-512 integer kernel of the
/// same tables).
std::unique_ptr<NttKernel64> make_avx512_fma_ntt_kernel(const NttTables64& t,
                                                        std::unique_ptr<NttKernel64> products);

namespace {

class Avx512FmaNttKernel final : public FmaNttKernel<Avx512Doubles> {
 public:
  Avx512FmaNttKernel(const NttTables64& t, std::unique_ptr<NttKernel64> products)
      : FmaNttKernel(t), products_(std::move(products)) {}

  [[nodiscard]] CpuPath path() const override { return CpuPath::avx512; }

  void hadamard(const u64* a, const u64* b, u64* c) const override { products_->hadamard(a, b, c); }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override {
    products_->fused_hadamard(a, b, c);
  }

 private:
  std::unique_ptr<NttKernel64> products_;
};

}  // namespace

std::unique_ptr<NttKernel64> make_avx512_fma_ntt_kernel(const NttTables64& t,
                                                        std::unique_ptr<NttKernel64> products) {
  return std::make_unique<Avx512FmaNttKernel>(t, std::move(products));
}

}  // namespace polyhe::cpu
