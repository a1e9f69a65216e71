// The scalar element-wise kernels: the arith catalogue applied word by word. The specification
// that the AVX-512 and IFMA52 kernels match bit for bit.
#include <algorithm>
#include <bit>
#include <cstring>

#include "cpu/elementwise_kernel.hpp"
#include "cpu/gather_words.hpp"
#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/shoup.hpp"

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

/// a·b + c ≤ (q−1)² + (q−1) < q² < 2^(2m): within [GPU-Polymul, Alg. 4]'s input range, so one
/// reduction.
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
    // Masked too (GCC made the select a conditional jump, on words that may be secret: the
    // ModDown of public-key encryption lifts v·b + e_0).
    const u64 shifted = sub_mod(r, k.shift, k.q);
    // A mask, not a branch: x[i] > half is a coin toss on random residues (GCC emitted a
    // conditional jump here, mispredicted about half the time).
    const u64 upper = u64{0} - static_cast<u64>(x[i] > k.half);
    c[i] = r ^ ((r ^ shifted) & upper);
  }
}

/// The residue of w little-endian bytes at p, where p + 8 ≤ end allows one 8-byte load (masked to
/// w bytes), and byte by byte at the key's last bytes.
inline u64 key_word(const std::uint8_t* p, std::size_t w, u64 mask, const std::uint8_t* end) {
  if (end - p >= 8) {
    u64 x = 0;
    std::memcpy(&x, p, sizeof x);
    if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
    return x & mask;
  }
  u64 x = 0;
  for (std::size_t b = 0; b < w; ++b) x |= u64{p[b]} << (8 * b);
  return x;
}

/// The key inner products with lazy double-word sums: Σ_j a_j·k_j accumulated in 128 bits (one
/// widening multiply and an add with carry per term) and folded once per `chunk` terms, where
/// chunk·(q − 1)² + q < 2^128, as hi·(2^64 mod q) + lo by two Shoup products. A per-term
/// [GPU-Polymul, Alg. 4] reduction costs about as much as the fold, so this does it once per
/// element instead of once per term.
void key_inner_products(const u64* const* a, std::size_t terms, const std::uint8_t* key,
                        std::size_t parts, std::size_t width, u64* c0, u64* c1, std::size_t n,
                        const BarrettAlg4<u64>& r) {
  using u128 = unsigned __int128;
  const u64 q = r.q;
  const u128 max_product = u128{q - 1} * (q - 1);
  const u128 room = ~u128{0} - q;
  const std::size_t chunk =
      max_product == 0 ? terms
                       : static_cast<std::size_t>(std::min<u128>(room / max_product, terms));
  const ShoupOperand<u64> r64 = make_shoup<u64>(static_cast<u64>((u128{1} << 64) % q), q);
  const ShoupOperand<u64> one = make_shoup<u64>(1 % q, q);
  const auto fold = [&](u128 x) {  // x mod q for any x < 2^128
    const u64 hi = mul_shoup(static_cast<u64>(x >> 64), r64, q);
    const u64 lo = mul_shoup(static_cast<u64>(x), one, q);
    return add_mod(hi, lo, q);
  };
  const std::size_t group = n < kKeyGroup ? n : kKeyGroup;
  const std::size_t stride = 2 * parts * group * width;  // bytes per group
  const std::size_t row = group * width;                 // bytes per part half in a group
  const std::uint8_t* end = key + stride * (n / group);
  const u64 mask = width == 8 ? ~u64{0} : (u64{1} << (8 * width)) - 1;
  for (std::size_t g = 0; g * group < n; ++g) {
    const std::size_t i0 = g * group;
    const std::uint8_t* k = key + g * stride;
    u128 s0[kKeyGroup] = {}, s1[kKeyGroup] = {};
    for (std::size_t j = 0; j < terms; ++j) {
      const u64* aj = a[j] + i0;
      const std::uint8_t* kj = k + 2 * j * row;
      for (std::size_t e = 0; e < group; ++e) {
        const u64 b = key_word(kj + e * width, width, mask, end);
        const u64 h = key_word(kj + row + e * width, width, mask, end);
        s0[e] += mul_wide(aj[e], b);
        s1[e] += mul_wide(aj[e], h);
      }
      if ((j + 1) % chunk == 0 && j + 1 < terms) {
        for (std::size_t e = 0; e < group; ++e) {
          s0[e] = fold(s0[e]);
          s1[e] = fold(s1[e]);
        }
      }
    }
    for (std::size_t e = 0; e < group; ++e) {
      c0[i0 + e] = fold(s0[e]);
      c1[i0 + e] = fold(s1[e]);
    }
  }
}

void gather(const u64* a, std::size_t /*a_size*/, const std::uint32_t* index, u64* c,
            std::size_t n) {
  gather_words<false>(a, index, c, n, 0);
}

void gather_add(const u64* a, std::size_t /*a_size*/, const std::uint32_t* index, u64* c,
                std::size_t n, u64 q) {
  gather_words<true>(a, index, c, n, q);
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
                                     key_inner_products,
                                     gather,
                                     gather_add};

}  // namespace

const ElementwiseKernels& scalar_elementwise_kernels() {
  return kScalar;
}

}  // namespace polyhe::cpu
