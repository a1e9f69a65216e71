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

/// The residue of w little-endian bytes at p.
inline u64 key_word(const std::uint8_t* p, std::size_t w) {
  u64 x = 0;
  for (std::size_t b = 0; b < w; ++b) x |= u64{p[b]} << (8 * b);
  return x;
}

/// Term by term as multiply then multiply_add: s ← (a_j·k_j + s) mod q, one Alg. 4 each.
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  const BarrettAlg4<u64> rc = r;
  const std::size_t group = n < kKeyGroup ? n : kKeyGroup;
  const std::size_t stride = 2 * parts * group * width;  // bytes per group
  const std::size_t row = group * width;                 // bytes per part half in a group
  for (std::size_t g = 0; g * group < n; ++g) {
    const std::uint8_t* kg = key + g * stride;
    for (std::size_t e = 0; e < group; ++e) {
      const std::size_t i = g * group + e;
      const std::uint8_t* k = kg + e * width;
      u64 s0 = mul_mod(a[0][i], key_word(k, width), rc);
      u64 s1 = mul_mod(a[0][i], key_word(k + row, width), rc);
      for (std::size_t j = 1; j < terms; ++j) {
        const std::uint8_t* kj = k + 2 * j * row;
        s0 = barrett_alg4_reduce(mul_wide(a[j][i], key_word(kj, width)) + s0, rc);
        s1 = barrett_alg4_reduce(mul_wide(a[j][i], key_word(kj + row, width)) + s1, rc);
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
