// The scalar element-wise kernels: the arith catalogue applied word by word. The specification
// that the AVX-512 and IFMA52 kernels match bit for bit.
#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/cpu/elementwise_kernel.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;

void add(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  for (std::size_t i = 0; i < n; ++i) c[i] = add_mod(a[i], b[i], q);
}

void sub(const u64* a, const u64* b, u64* c, std::size_t n, u64 q) {
  for (std::size_t i = 0; i < n; ++i) c[i] = sub_mod(a[i], b[i], q);
}

void negate(const u64* a, u64* c, std::size_t n, u64 q) {
  for (std::size_t i = 0; i < n; ++i) c[i] = neg_mod(a[i], q);
}

void multiply(const u64* a, const u64* b, u64* c, std::size_t n, const BarrettAlg4<u64>& r) {
  const BarrettAlg4<u64> rc = r;  // a local copy: the stores to c cannot alias it
  for (std::size_t i = 0; i < n; ++i) c[i] = mul_mod(a[i], b[i], rc);
}

void multiply_scalar(const u64* a, ShoupOperand<u64> w, u64* c, std::size_t n, u64 q) {
  for (std::size_t i = 0; i < n; ++i) c[i] = mul_shoup(a[i], w, q);
}

/// a·b + c ≤ (q−1)² + (q−1) < q² < 2^(2m): within Alg. 4's input range, so one reduction.
void multiply_add(const u64* a, const u64* b, const u64* d, u64* c, std::size_t n,
                  const BarrettAlg4<u64>& r) {
  const BarrettAlg4<u64> rc = r;
  for (std::size_t i = 0; i < n; ++i) c[i] = barrett_alg4_reduce(mul_wide(a[i], b[i]) + d[i], rc);
}

void sub_multiply_scalar(const u64* a, const u64* b, ShoupOperand<u64> w, u64* c, std::size_t n,
                         u64 q) {
  for (std::size_t i = 0; i < n; ++i) c[i] = mul_shoup(a[i] + q - b[i], w, q);
}

void lift_centred(const u64* x, u64* c, std::size_t n, const CentredLift& l) {
  const CentredLift k = l;  // a local copy: the stores to c cannot alias it
  const ShoupOperand<u64> one{1, k.one_shoup};
  for (std::size_t i = 0; i < n; ++i) {
    const u64 r = mul_shoup(x[i], one, k.q);
    const u64 shifted = r >= k.shift ? r - k.shift : r + k.q - k.shift;
    c[i] = x[i] > k.half ? shifted : r;
  }
}

/// Term by term as multiply then multiply_add: s ← (a_j·k_j + s) mod q, one Alg. 4 each.
void key_inner_products(const u64* const* a, std::size_t terms, const u64* key, std::size_t parts,
                        u64* c0, u64* c1, std::size_t n, const BarrettAlg4<u64>& r) {
  const BarrettAlg4<u64> rc = r;
  const std::size_t group = n < kKeyGroup ? n : kKeyGroup;
  const std::size_t stride = 2 * parts * group;
  for (std::size_t g = 0; g * group < n; ++g) {
    const u64* kg = key + g * stride;
    for (std::size_t e = 0; e < group; ++e) {
      const std::size_t i = g * group + e;
      u64 s0 = mul_mod(a[0][i], kg[e], rc);
      u64 s1 = mul_mod(a[0][i], kg[group + e], rc);
      for (std::size_t j = 1; j < terms; ++j) {
        s0 = barrett_alg4_reduce(mul_wide(a[j][i], kg[2 * j * group + e]) + s0, rc);
        s1 = barrett_alg4_reduce(mul_wide(a[j][i], kg[(2 * j + 1) * group + e]) + s1, rc);
      }
      c0[i] = s0;
      c1[i] = s1;
    }
  }
}

constexpr ElementwiseKernels kScalar{CpuPath::scalar,
                                     add,
                                     sub,
                                     negate,
                                     multiply,
                                     multiply_scalar,
                                     multiply_add,
                                     sub_multiply_scalar,
                                     lift_centred,
                                     key_inner_products};

}  // namespace

const ElementwiseKernels& scalar_elementwise_kernels() {
  return kScalar;
}

}  // namespace polyhe::cpu
