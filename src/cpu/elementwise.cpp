// polyhe::vec: validation once per call, then the kernels of the active CPU path, per limb and
// per chunk of a limb, on the default thread pool for large batches.
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/weighted_sum.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/convert_kernel.hpp"
#include "cpu/elementwise_kernel.hpp"
#include "polyhe/arith/add.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/features.hpp"

namespace polyhe::cpu {

#if !defined(POLYHE_HAVE_AVX2_KERNELS)
const ElementwiseKernels* avx2_elementwise_kernels() {
  return nullptr;
}
WeightedSumFmaKernel avx2_weighted_sum_kernel() {
  return nullptr;
}
WeightedSumWide32Kernel avx2_weighted_sum_wide_kernel() {
  return nullptr;
}
FractionRoundKernel avx2_fraction_round_kernel() {
  return nullptr;
}
ScaleRoundPartsKernel avx2_scale_round_parts_kernel() {
  return nullptr;
}
#endif
#if !defined(POLYHE_HAVE_AVX512_KERNELS)
const ElementwiseKernels* avx512_elementwise_kernels() {
  return nullptr;
}
WeightedSumFmaKernel avx512_weighted_sum_kernel() {
  return nullptr;
}
FractionRoundKernel avx512_fraction_round_kernel() {
  return nullptr;
}
ScaleRoundPartsKernel avx512_scale_round_parts_kernel() {
  return nullptr;
}
#endif
#if !defined(POLYHE_HAVE_IFMA_KERNELS)
const ElementwiseKernels* ifma_elementwise_kernels() {
  return nullptr;
}
WeightedSumKernel ifma_weighted_sum_kernel() {
  return nullptr;
}
WeightedSumWideKernel ifma_weighted_sum_wide_kernel() {
  return nullptr;
}
#endif

WeightedSumModulus make_weighted_sum_modulus(std::uint64_t c) {
  const auto shoup52 = [c](std::uint64_t w) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(w) << 52) / c);
  };
  const std::uint64_t r52 =
      static_cast<std::uint64_t>((static_cast<unsigned __int128>(1) << 52) % c);
  const std::uint64_t r104 =
      static_cast<std::uint64_t>(static_cast<unsigned __int128>(r52) * r52 % c);
  return WeightedSumModulus{c, shoup52(1), r52, shoup52(r52), r104, shoup52(r104)};
}

WeightedSumWideModulus make_weighted_sum_wide_modulus(std::uint64_t c) {
  // c^−1 mod 2^64 by Newton's iteration: each step doubles the correct low bits (c·c ≡ 1 mod 8
  // for odd c: three bits to start).
  std::uint64_t inv = c;
  for (int i = 0; i < 5; ++i) inv *= 2 - c * inv;
  const std::uint64_t r104 =
      static_cast<std::uint64_t>((static_cast<unsigned __int128>(1) << 104) % c);
  return WeightedSumWideModulus{c, (std::uint64_t{0} - inv) & ((std::uint64_t{1} << 52) - 1), r104,
                                make_shoup(r104, c).w_shoup};
}

WeightedSumWide32Modulus make_weighted_sum_wide32_modulus(std::uint64_t c) {
  std::uint64_t inv = c;  // c^−1 mod 2^64, as above
  for (int i = 0; i < 5; ++i) inv *= 2 - c * inv;
  const unsigned steps = c >= (std::uint64_t{1} << 42) ? 3 : 4;
  const unsigned __int128 r64 = (static_cast<unsigned __int128>(1) << 64) % c;
  const std::uint64_t r = static_cast<std::uint64_t>(
      steps == 3 ? (r64 << 32) % c : (r64 << 64) % c);  // r64 < 2^62: no overflow
  return WeightedSumWide32Modulus{c, (std::uint64_t{0} - inv) & 0xFFFFFFFFULL, steps, r,
                                  make_shoup(r, c).w_shoup};
}

const ElementwiseKernels& elementwise_kernels(CpuPath p, std::uint64_t q) {
  if (p == CpuPath::ifma && ifma_serves(q)) {
    if (const auto* k = ifma_elementwise_kernels()) return *k;
  }
  if (p >= CpuPath::avx512) {
    if (const auto* k = avx512_elementwise_kernels()) return *k;
  }
  if (p == CpuPath::avx2) {
    if (const auto* k = avx2_elementwise_kernels()) return *k;
  }
  return scalar_elementwise_kernels();
}

}  // namespace polyhe::cpu

namespace polyhe::vec {

namespace {

using u64 = std::uint64_t;

/// The words a task works on: chunks of this size (a multiple of 8, 64 KiB per operand) are the
/// unit of work when a batch is spread over threads.
constexpr std::size_t kChunkWords = std::size_t{1} << 13;

enum class Op {
  add,
  sub,
  negate,
  multiply,
  multiply_scalar,
  multiply_accumulate,
  multiply_add,
  sub_multiply_scalar
};

const char* name(Op op) {
  switch (op) {
    case Op::add: return "vec::add";
    case Op::sub: return "vec::sub";
    case Op::negate: return "vec::negate";
    case Op::multiply: return "vec::multiply";
    case Op::multiply_scalar: return "vec::multiply_scalar";
    case Op::multiply_accumulate: return "vec::multiply_accumulate";
    case Op::multiply_add: return "vec::multiply_add";
    case Op::sub_multiply_scalar: return "vec::sub_multiply_scalar";
  }
  return "vec";
}

bool has_b(Op op) {
  return op != Op::negate && op != Op::multiply_scalar;
}

bool has_scalar(Op op) {
  return op == Op::multiply_scalar || op == Op::sub_multiply_scalar;
}

void check_modulus(const Modulus<u64>& q, Op op) {
  if (q.bits() > 62) {
    throw InvalidParameter(std::string(name(op)) + ": q = " + std::to_string(q.value()) + " has " +
                           std::to_string(q.bits()) +
                           " bits; the element-wise operations serve len(q) <= 62");
  }
}

void check_scalar(u64 s, const Modulus<u64>& q, Op op) {
  if (s >= q.value()) {
    throw InvalidParameter(std::string(name(op)) + ": the scalar " + std::to_string(s) +
                           " is not below q = " + std::to_string(q.value()));
  }
}

/// c must be x itself or disjoint from it: a kernel loads each vector before storing it, which
/// is right for c = x and wrong for a shifted overlap.
void check_overlap(std::span<const u64> x, std::span<const u64> c, const char* operand, Op op) {
  if (x.data() == c.data()) return;
  if (polyhe::overlaps(x, c)) {
    throw InvalidParameter(std::string(name(op)) + ": the output overlaps operand " + operand +
                           " without being it (c may alias a or b exactly, or not at all)");
  }
}

/// Sizes equal (b and d ignored where the operation has none) and no partial overlap.
void check_operands(std::span<const u64> a, std::span<const u64> b, std::span<const u64> d,
                    std::span<const u64> c, Op op) {
  const bool with_d = op == Op::multiply_add;
  if (a.size() != c.size() || (has_b(op) && b.size() != c.size()) ||
      (with_d && d.size() != c.size())) {
    throw InvalidParameter(std::string(name(op)) + ": operand sizes " + std::to_string(a.size()) +
                           (has_b(op) ? ", " + std::to_string(b.size()) : std::string()) +
                           (with_d ? ", " + std::to_string(d.size()) : std::string()) + " and " +
                           std::to_string(c.size()) + " differ");
  }
  check_overlap(a, c, "a", op);
  if (has_b(op)) check_overlap(b, c, "b", op);
  if (with_d) check_overlap(d, c, "d", op);
}

/// The documented precondition: inputs fully reduced. Debug builds only (a full pass).
void debug_check_reduced([[maybe_unused]] const u64* x, [[maybe_unused]] std::size_t n,
                         [[maybe_unused]] u64 q) {
#if defined(POLYHE_ENABLE_DEBUG_ASSERT)
  for (std::size_t i = 0; i < n; ++i) POLYHE_DEBUG_ASSERT(x[i] < q);
#endif
}

/// x + off, or nullptr for an absent operand (never an offset from a null pointer).
const u64* at(const u64* x, std::size_t off) {
  return x == nullptr ? nullptr : x + off;
}

/// The operation on n words modulo q on `path` (b absent for negate and multiply_scalar; d used by
/// multiply_add only; s by the scalar operations only).
void run(Op op, CpuPath path, const Modulus<u64>& q, u64 s, const u64* a, const u64* b,
         const u64* d, u64* c, std::size_t n) {
  if (n == 0) return;
  const u64 qv = q.value();
  debug_check_reduced(a, n, qv);
  if (has_b(op)) debug_check_reduced(b, n, qv);
  if (op == Op::multiply_accumulate) d = c;
  if (op == Op::multiply_accumulate || op == Op::multiply_add) debug_check_reduced(d, n, qv);
  const cpu::ElementwiseKernels& k = cpu::elementwise_kernels(path, qv);
  // [GPU-Polymul, Alg. 4] serves every 2 ≤ q < 2^62 except q = 2^61, where µ = 2^64 does not fit a
  // word: there the products take the double-word remainder on every path.
  const bool alg4 =
      (op == Op::multiply || op == Op::multiply_accumulate || op == Op::multiply_add) &&
      q.supports(Reduction::barrett_alg4);
  switch (op) {
    case Op::add: k.add(a, b, c, n, qv); return;
    case Op::sub: k.sub(a, b, c, n, qv); return;
    case Op::negate: k.negate(a, c, n, qv); return;
    case Op::multiply_scalar: k.multiply_scalar(a, make_shoup(s, qv), c, n, qv); return;
    case Op::sub_multiply_scalar: k.sub_multiply_scalar(a, b, make_shoup(s, qv), c, n, qv); return;
    case Op::multiply:
      if (alg4) {
        k.multiply(a, b, c, n, q.barrett_alg4());
      } else {
        for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<u64>(mul_wide(a[i], b[i]) % qv);
      }
      return;
    case Op::multiply_accumulate:
    case Op::multiply_add:
      if (alg4) {
        k.multiply_add(a, b, d, c, n, q.barrett_alg4());
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          c[i] = static_cast<u64>((mul_wide(a[i], b[i]) + d[i]) % qv);
        }
      }
      return;
  }
}

void one_modulus(Op op, std::span<const u64> a, std::span<const u64> b, std::span<const u64> d,
                 u64 s, std::span<u64> c, const Modulus<u64>& q) {
  check_modulus(q, op);
  check_operands(a, b, d, c, op);
  if (has_scalar(op)) check_scalar(s, q, op);
  run(op, cpu_path(), q, s, a.data(), has_b(op) ? b.data() : nullptr,
      op == Op::multiply_add ? d.data() : nullptr, c.data(), c.size());
}

void limbs(Op op, std::span<const u64> a, std::span<const u64> b, std::span<const u64> d,
           std::span<const u64> scalars, std::span<u64> c, std::span<const Modulus<u64>> moduli,
           unsigned threads) {
  check_operands(a, b, d, c, op);
  const std::size_t count = moduli.size();
  if (count == 0) {
    if (c.empty()) return;
    throw InvalidParameter(std::string(name(op)) + ": " + std::to_string(c.size()) +
                           " words given for no moduli");
  }
  if (c.size() % count != 0) {
    throw InvalidParameter(std::string(name(op)) + ": " + std::to_string(c.size()) +
                           " words are not a whole number of limbs for " + std::to_string(count) +
                           " moduli");
  }
  for (const auto& q : moduli) check_modulus(q, op);
  if (has_scalar(op)) {
    if (scalars.size() != count) {
      throw InvalidParameter(std::string(name(op)) + ": " + std::to_string(scalars.size()) +
                             " scalars given for " + std::to_string(count) + " limbs");
    }
    for (std::size_t i = 0; i < count; ++i) check_scalar(scalars[i], moduli[i], op);
  }
  const std::size_t n = c.size() / count;
  const CpuPath path = cpu_path();
  const u64* pb = has_b(op) ? b.data() : nullptr;
  const u64* pd = op == Op::multiply_add ? d.data() : nullptr;
  // Words [begin, end) of limb i.
  const auto task = [&](std::size_t i, std::size_t begin, std::size_t end) {
    const std::size_t off = i * n + begin;
    run(op, path, moduli[i], has_scalar(op) ? scalars[i] : 0, a.data() + off, at(pb, off),
        at(pd, off), c.data() + off, end - begin);
  };
  if (threads == 1 || c.size() < kParallelMinWords) {
    for (std::size_t i = 0; i < count; ++i) task(i, 0, n);
    return;
  }
  const std::size_t per_limb = (n + kChunkWords - 1) / kChunkWords;  // chunks of a limb
  const std::size_t chunk = ((n + per_limb - 1) / per_limb + 7) / 8 * 8;
  parallel_for(
      count * per_limb,
      [&](std::size_t t) {
        const std::size_t i = t / per_limb;
        const std::size_t begin = (t % per_limb) * chunk;
        if (begin < n) task(i, begin, std::min(n, begin + chunk));
      },
      threads);
}

/// The lift of n words on `path`: the IFMA kernel takes x < 2^52 only, so a wider p goes to
/// the AVX-512 kernel.
void run_lift(CpuPath path, const u64* x, u64 p, u64* c, std::size_t n, const Modulus<u64>& q) {
  if (n == 0) return;
  debug_check_reduced(x, n, p);
  const u64 qv = q.value();
  if (path == CpuPath::ifma && p >= (u64{1} << 52)) path = CpuPath::avx512;
  const cpu::CentredLift l{qv, make_shoup<u64>(1, qv).w_shoup, p / 2, p % qv};
  cpu::elementwise_kernels(path, qv).lift_centred(x, c, n, l);
}

void check_lift_moduli(u64 p, std::span<const Modulus<u64>> targets) {
  if (p < 2 || p >= (u64{1} << 62)) {
    throw InvalidParameter("vec::lift_centred: the source modulus p = " + std::to_string(p) +
                           " is outside [2, 2^62)");
  }
  for (const auto& q : targets) {
    if (q.bits() > 62) {
      throw InvalidParameter("vec::lift_centred: q = " + std::to_string(q.value()) + " has " +
                             std::to_string(q.bits()) +
                             " bits; the element-wise operations serve len(q) <= 62");
    }
  }
}

bool overlaps(const u64* x, std::size_t nx, const u64* y, std::size_t ny) {
  return bytes_overlap(x, nx * sizeof(u64), y, ny * sizeof(u64));
}

}  // namespace

void add(std::span<const u64> a, std::span<const u64> b, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::add, a, b, {}, 0, c, q);
}
void sub(std::span<const u64> a, std::span<const u64> b, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::sub, a, b, {}, 0, c, q);
}
void negate(std::span<const u64> a, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::negate, a, {}, {}, 0, c, q);
}
void multiply(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
              const Modulus<u64>& q) {
  one_modulus(Op::multiply, a, b, {}, 0, c, q);
}
void multiply_scalar(std::span<const u64> a, u64 s, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::multiply_scalar, a, {}, {}, s, c, q);
}
void multiply_scalar(std::span<const u64> a, ShoupOperand<u64> s, std::span<u64> c,
                     const Modulus<u64>& q) {
  check_modulus(q, Op::multiply_scalar);
  check_operands(a, {}, {}, c, Op::multiply_scalar);
  check_scalar(s.w, q, Op::multiply_scalar);
  const u64 qv = q.value();
  // The companion is ⌊w·2^64/q⌋ exactly when 0 ≤ w·2^64 − companion·q < q.
  const unsigned __int128 scaled = static_cast<unsigned __int128>(s.w) << 64;
  const unsigned __int128 below = mul_wide(s.w_shoup, qv);
  if (below > scaled || scaled - below >= qv) {
    throw InvalidParameter("vec::multiply_scalar: " + std::to_string(s.w_shoup) +
                           " is not the Shoup companion of " + std::to_string(s.w) + " mod " +
                           std::to_string(qv) + " (make it with make_shoup)");
  }
  if (c.empty()) return;
  debug_check_reduced(a.data(), a.size(), qv);
  cpu::elementwise_kernels(cpu_path(), qv).multiply_scalar(a.data(), s, c.data(), c.size(), qv);
}

void multiply_accumulate(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
                         const Modulus<u64>& q) {
  one_modulus(Op::multiply_accumulate, a, b, {}, 0, c, q);
}

void multiply_add(std::span<const u64> a, std::span<const u64> b, std::span<const u64> d,
                  std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::multiply_add, a, b, d, 0, c, q);
}

void sub_multiply_scalar(std::span<const u64> a, std::span<const u64> b, u64 s, std::span<u64> c,
                         const Modulus<u64>& q) {
  one_modulus(Op::sub_multiply_scalar, a, b, {}, s, c, q);
}

void lift_centred(std::span<const u64> x, u64 p, std::span<u64> c, const Modulus<u64>& q) {
  check_lift_moduli(p, std::span<const Modulus<u64>>(&q, 1));
  if (x.size() != c.size()) {
    throw InvalidParameter("vec::lift_centred: operand sizes " + std::to_string(x.size()) +
                           " and " + std::to_string(c.size()) + " differ");
  }
  if (x.data() != c.data() && overlaps(x.data(), x.size(), c.data(), c.size())) {
    throw InvalidParameter(
        "vec::lift_centred: the output overlaps the input without being it (c may alias x "
        "exactly, or not at all)");
  }
  run_lift(cpu_path(), x.data(), p, c.data(), c.size(), q);
}

namespace {

void check_gather(std::span<const u64> a, std::span<const std::uint32_t> index,
                  std::span<const u64> c, const char* op) {
  if (index.size() != c.size()) {
    throw InvalidParameter(std::string(op) + ": " + std::to_string(index.size()) +
                           " indices for an output of " + std::to_string(c.size()) + " words");
  }
  if (overlaps(a.data(), a.size(), c.data(), c.size())) {
    throw InvalidParameter(std::string(op) + ": the output overlaps the input");
  }
#if defined(POLYHE_ENABLE_DEBUG_ASSERT)
  for (const std::uint32_t i : index) POLYHE_DEBUG_ASSERT(i < a.size());
#endif
}

}  // namespace

void gather(std::span<const u64> a, std::span<const std::uint32_t> index, std::span<u64> c) {
  check_gather(a, index, c, "vec::gather");
  if (c.empty()) return;
  // The path's kernel (any modulus: a gather reduces nothing, so q = 2 picks the path's table).
  cpu::elementwise_kernels(cpu_path(), 2)
      .gather(a.data(), a.size(), index.data(), c.data(), c.size());
}

void gather_add(std::span<const u64> a, std::span<const std::uint32_t> index, std::span<u64> c,
                const Modulus<u64>& q) {
  check_gather(a, index, c, "vec::gather_add");
  check_modulus(q, Op::add);
  if (c.empty()) return;
  debug_check_reduced(a.data(), a.size(), q.value());
  debug_check_reduced(c.data(), c.size(), q.value());
  cpu::elementwise_kernels(cpu_path(), q.value())
      .gather_add(a.data(), a.size(), index.data(), c.data(), c.size(), q.value());
}

namespace {

/// key_inner_products over n words laid out in whole groups of min(n, 8) (checked by the caller).
void key_inner_products_groups(std::span<const u64* const> a, std::span<const std::uint8_t> key,
                               std::size_t parts, std::size_t width, std::span<u64> c0,
                               std::span<u64> c1, const Modulus<u64>& q) {
  const std::size_t terms = a.size();
  const std::size_t n = c0.size();
  const std::size_t group = std::min(n, cpu::kKeyGroup);
  if (!q.supports(Reduction::barrett_alg4)) {
    // q = 2^61 (µ does not fit a word): the double-word remainder, as run() does.
    const u64 qv = q.value();
    const std::size_t row = group * width;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint8_t* k = key.data() + (i / group) * 2 * parts * row + (i % group) * width;
      const auto word = [width](const std::uint8_t* p) {
        u64 x = 0;
        for (std::size_t b = 0; b < width; ++b) x |= u64{p[b]} << (8 * b);
        return x;
      };
      u64 s0 = 0, s1 = 0;
      for (std::size_t j = 0; j < terms; ++j) {
        s0 = static_cast<u64>((mul_wide(a[j][i], word(k + 2 * j * row)) + s0) % qv);
        s1 = static_cast<u64>((mul_wide(a[j][i], word(k + (2 * j + 1) * row)) + s1) % qv);
      }
      c0[i] = s0;
      c1[i] = s1;
    }
    return;
  }
  CpuPath path = cpu_path();
  // The lazy IFMA sums hold kWeightedSumMaxTerms terms; the SIMD kernels work on whole groups.
  if (path == CpuPath::ifma && terms > cpu::kWeightedSumMaxTerms) path = CpuPath::avx512;
  // Below 2^50 the avx512 path's kernel sums in double precision on eight lanes (1.3× the
  // four-lane AVX2 + FMA kernel that served it before, itself 1.5× the AVX-512 integer form, on
  // an Intel core).
  if (group < cpu::kKeyGroup) path = CpuPath::scalar;
  const cpu::ElementwiseKernels& k = cpu::elementwise_kernels(path, q.value());
  k.key_inner_products(a.data(), terms, key.data(), parts, width, c0.data(), c1.data(), n,
                       q.barrett_alg4());
}

}  // namespace

void key_inner_products(std::span<const u64* const> a, std::span<const std::uint8_t> key,
                        std::size_t parts, std::size_t width, std::span<u64> c0, std::span<u64> c1,
                        const Modulus<u64>& q) {
  const std::size_t terms = a.size();
  const std::size_t n = c0.size();
  if (terms == 0 || terms > parts) {
    throw InvalidParameter("vec::key_inner_products: " + std::to_string(terms) +
                           " terms for a key of " + std::to_string(parts) +
                           " parts (1 <= terms <= parts)");
  }
  check_modulus(q, Op::multiply_accumulate);
  if (width < 1 || width > 8 || (width < 8 && q.value() - 1 >= (u64{1} << (8 * width)))) {
    throw InvalidParameter("vec::key_inner_products: residues of " + std::to_string(width) +
                           " bytes cannot hold every residue mod q = " + std::to_string(q.value()) +
                           " (1 <= width <= 8 and q - 1 < 2^(8·width))");
  }
  if (n == 0 || c1.size() != n || key.size() != 2 * parts * n * width) {
    throw InvalidParameter(
        "vec::key_inner_products: outputs of " + std::to_string(n) + " and " +
        std::to_string(c1.size()) + " words and a key of " + std::to_string(key.size()) +
        " bytes; the rule: equal outputs of n >= 1 words and a key of 2·parts·n·width bytes");
  }
  for (const u64* x : a) {
    if (x == nullptr) throw InvalidParameter("vec::key_inner_products: a null term");
  }
  const std::span<const u64> out[] = {c0, c1};
  for (std::size_t o = 0; o < 2; ++o) {
    bool clash = bytes_overlap(key.data(), key.size(), out[o].data(), n * sizeof(u64)) ||
                 (o == 1 && overlaps(c0.data(), n, c1.data(), n));
    for (const u64* x : a) clash = clash || overlaps(x, n, out[o].data(), n);
    if (clash) {
      throw InvalidParameter("vec::key_inner_products: output " + std::to_string(o) +
                             " overlaps an input or the other output");
    }
  }
  for (const u64* x : a) debug_check_reduced(x, n, q.value());
  // Whole groups of 8 words, then the last n mod 8 words as one smaller group (KeySwitchParts's
  // layout), each through the kernels.
  const std::size_t full = n < cpu::kKeyGroup ? n : n - n % cpu::kKeyGroup;
  key_inner_products_groups(a, key.first(2 * parts * full * width), parts, width, c0.first(full),
                            c1.first(full), q);
  if (full == n) return;
  std::vector<const u64*> tail(a.begin(), a.end());
  for (const u64*& x : tail) x += full;
  key_inner_products_groups(tail, key.subspan(2 * parts * full * width), parts, width,
                            c0.subspan(full), c1.subspan(full), q);
}

void add(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::add, a, b, {}, {}, c, moduli, threads);
}
void sub(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::sub, a, b, {}, {}, c, moduli, threads);
}
void negate(std::span<const u64> a, std::span<u64> c, std::span<const Modulus<u64>> moduli,
            unsigned threads) {
  limbs(Op::negate, a, {}, {}, {}, c, moduli, threads);
}
void multiply(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
              std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply, a, b, {}, {}, c, moduli, threads);
}
void multiply_scalar(std::span<const u64> a, std::span<const u64> scalars, std::span<u64> c,
                     std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply_scalar, a, {}, {}, scalars, c, moduli, threads);
}
void multiply_accumulate(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
                         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply_accumulate, a, b, {}, {}, c, moduli, threads);
}
void multiply_add(std::span<const u64> a, std::span<const u64> b, std::span<const u64> d,
                  std::span<u64> c, std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply_add, a, b, d, {}, c, moduli, threads);
}
void sub_multiply_scalar(std::span<const u64> a, std::span<const u64> b,
                         std::span<const u64> scalars, std::span<u64> c,
                         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::sub_multiply_scalar, a, b, {}, scalars, c, moduli, threads);
}

void tensor(std::span<const u64> a0, std::span<const u64> a1, std::span<const u64> b0,
            std::span<const u64> b1, std::span<u64> c0, std::span<u64> c1, std::span<u64> c2,
            std::span<const Modulus<u64>> moduli, unsigned threads) {
  const std::size_t words = c0.size();
  const std::span<const u64> ins[] = {a0, a1, b0, b1};
  const std::span<const u64> outs[] = {c0, c1, c2};
  for (const auto& x : ins) {
    if (x.size() != words) {
      throw InvalidParameter("vec::tensor: operand sizes differ (" + std::to_string(x.size()) +
                             " and " + std::to_string(words) + ")");
    }
  }
  for (std::size_t o = 0; o < 3; ++o) {
    if (outs[o].size() != words) {
      throw InvalidParameter("vec::tensor: output sizes differ (" + std::to_string(outs[o].size()) +
                             " and " + std::to_string(words) + ")");
    }
    for (const auto& x : ins) {
      if (overlaps(x.data(), words, outs[o].data(), words)) {
        throw InvalidParameter("vec::tensor: output " + std::to_string(o) + " overlaps an input");
      }
    }
    for (std::size_t p = 0; p < o; ++p) {
      if (overlaps(outs[p].data(), words, outs[o].data(), words)) {
        throw InvalidParameter("vec::tensor: outputs " + std::to_string(p) + " and " +
                               std::to_string(o) + " overlap");
      }
    }
  }
  const std::size_t count = moduli.size();
  if (count == 0) {
    if (words == 0) return;
    throw InvalidParameter("vec::tensor: " + std::to_string(words) + " words given for no moduli");
  }
  if (words % count != 0) {
    throw InvalidParameter("vec::tensor: " + std::to_string(words) +
                           " words are not a whole number of limbs for " + std::to_string(count) +
                           " moduli");
  }
  for (const auto& q : moduli) check_modulus(q, Op::multiply);
  const std::size_t n = words / count;
  const CpuPath path = cpu_path();
  // Blocks of kTensorBlock words: 7 operands × 16 KiB.
  constexpr std::size_t kTensorBlock = 2048;
  const std::size_t per_limb = (n + kTensorBlock - 1) / kTensorBlock;
  const auto task = [&](std::size_t t) {
    const std::size_t i = t / per_limb;
    const std::size_t begin = (t % per_limb) * kTensorBlock;
    const std::size_t len = std::min(kTensorBlock, n - begin);
    const std::size_t off = i * n + begin;
    const Modulus<u64>& q = moduli[i];
    run(Op::multiply, path, q, 0, a0.data() + off, b0.data() + off, nullptr, c0.data() + off, len);
    run(Op::multiply, path, q, 0, a0.data() + off, b1.data() + off, nullptr, c1.data() + off, len);
    run(Op::multiply_accumulate, path, q, 0, a1.data() + off, b0.data() + off, nullptr,
        c1.data() + off, len);
    run(Op::multiply, path, q, 0, a1.data() + off, b1.data() + off, nullptr, c2.data() + off, len);
  };
  if (threads == 1 || words < kParallelMinWords) {
    for (std::size_t t = 0; t < count * per_limb; ++t) task(t);
  } else {
    parallel_for(count * per_limb, task, threads);
  }
}

void lift_centred(std::span<const u64> x, u64 p, std::span<u64> c,
                  std::span<const Modulus<u64>> moduli, unsigned threads) {
  check_lift_moduli(p, moduli);
  const std::size_t n = x.size();
  if (c.size() != moduli.size() * n) {
    throw InvalidParameter("vec::lift_centred: " + std::to_string(c.size()) +
                           " output words are not " + std::to_string(moduli.size()) +
                           " limbs of the input's " + std::to_string(n));
  }
  if (overlaps(x.data(), n, c.data(), c.size())) {
    throw InvalidParameter("vec::lift_centred: the output overlaps the input");
  }
  const CpuPath path = cpu_path();
  const auto task = [&](std::size_t i) {
    run_lift(path, x.data(), p, c.data() + i * n, n, moduli[i]);
  };
  if (threads == 1 || c.size() < kParallelMinWords) {
    for (std::size_t i = 0; i < moduli.size(); ++i) task(i);
  } else {
    parallel_for(moduli.size(), task, threads);
  }
}

WeightedSum::WeightedSum(u64 c, std::size_t max_terms, u64 x_bound) : c_(c), max_terms_(max_terms) {
  if (c < 2 || c >= (u64{1} << 62)) {
    throw InvalidParameter("vec::WeightedSum: modulus " + std::to_string(c) +
                           " is outside [2, 2^62)");
  }
  if (max_terms == 0 || x_bound == 0) {
    throw InvalidParameter("vec::WeightedSum: max_terms and x_bound must be at least 1");
  }
  ifma_ok_ = cpu::ifma_serves(c) && x_bound <= (u64{1} << 52) &&
             max_terms <= cpu::kWeightedSumMaxTerms && cpu::ifma_weighted_sum_kernel() != nullptr;
  fma_ok_ = cpu::avx2_weighted_sum_serves(x_bound, c) &&
            cpu::avx2_weighted_sum_kernel() != nullptr &&
            !cpu_path_unavailable_reason(CpuPath::avx2);
  avx512_ok_ = fma_ok_ && cpu::avx512_weighted_sum_kernel() != nullptr &&
               !cpu_path_unavailable_reason(CpuPath::avx512);
  if (ifma_ok_) constants_ = cpu::make_weighted_sum_modulus(c);
  wide_ok_ = !ifma_ok_ && (c & 1U) != 0 && max_terms <= cpu::kWeightedSumWideMaxTerms &&
             cpu::ifma_weighted_sum_wide_kernel() != nullptr;
  if (wide_ok_) wide_ = cpu::make_weighted_sum_wide_modulus(c);
  wide32_ok_ = cpu::avx2_weighted_sum_wide_serves(c) &&
               max_terms <= cpu::kWeightedSumWideMaxTerms &&
               cpu::avx2_weighted_sum_wide_kernel() != nullptr &&
               !cpu_path_unavailable_reason(CpuPath::avx2);
  if (wide32_ok_) wide32_ = cpu::make_weighted_sum_wide32_modulus(c);
}

WeightedSumPath WeightedSum::path() const {
  const CpuPath p = cpu_path();
  if (ifma_ok_ && p == CpuPath::ifma) return WeightedSumPath::ifma52;
  if (wide_ok_ && p == CpuPath::ifma) return WeightedSumPath::ifma62;
  // The AVX2 + FMA kernel also serves the paths above avx2 where IFMA does not (the avx512 path
  // has no weighted sum of its own; the ifma path for c = 2^49 or more than 2048 terms): the
  // same words as the scalar loop.
  if (fma_ok_ && p != CpuPath::scalar) return WeightedSumPath::fma50;
  // The wide AVX2 kernel serves the rest above the scalar path: the 60-bit primes of the avx2 and
  // avx512 paths (and of the ifma path in a build without the IFMA kernels).
  if (wide32_ok_ && p != CpuPath::scalar) return WeightedSumPath::avx2_62;
  return WeightedSumPath::none;
}

bool WeightedSum::operator()(std::span<const u64* const> x, std::span<const u64> w,
                             std::span<u64> out) const {
  if (x.empty() || x.size() > max_terms_ || w.size() != x.size()) {
    throw InvalidParameter("vec::WeightedSum: " + std::to_string(x.size()) + " terms and " +
                           std::to_string(w.size()) + " weights (1 to " +
                           std::to_string(max_terms_) + " terms, one weight each)");
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == nullptr)
      throw InvalidParameter("vec::WeightedSum: term " + std::to_string(i) + " is null");
    if (w[i] >= c_) {
      throw InvalidParameter("vec::WeightedSum: weight " + std::to_string(w[i]) + " (term " +
                             std::to_string(i) + ") is not below c = " + std::to_string(c_));
    }
  }
  // The wide kernels take the weights in Montgomery form, w·R mod c, each a Shoup product by
  // R mod c (c < 2^62).
  const auto montgomery_weights = [&](u64 r, u64 r_shoup) {
    std::array<u64, cpu::kWeightedSumWideMaxTerms> w_mont;
    const ShoupOperand<u64> rs{r, r_shoup};
    for (std::size_t i = 0; i < w.size(); ++i) w_mont[i] = mul_shoup(w[i], rs, c_);
    return w_mont;
  };
  switch (path()) {
    case WeightedSumPath::ifma52:
      cpu::ifma_weighted_sum_kernel()(x.data(), x.size(), w.data(), out.data(), out.size(),
                                      constants_);
      return true;
    case WeightedSumPath::ifma62: {
      const auto w_mont = montgomery_weights(wide_.r104, wide_.r104_shoup);  // R = 2^104
      cpu::ifma_weighted_sum_wide_kernel()(x.data(), x.size(), w_mont.data(), out.data(),
                                           out.size(), wide_);
      return true;
    }
    case WeightedSumPath::fma50: {
      // Eight lanes where the path has AVX-512 (1.3× faster than four on an Intel core), else four.
      const cpu::WeightedSumFmaKernel k = cpu_path() >= CpuPath::avx512 && avx512_ok_
                                              ? cpu::avx512_weighted_sum_kernel()
                                              : cpu::avx2_weighted_sum_kernel();
      k(x.data(), x.size(), w.data(), out.data(), out.size(), c_);
      return true;
    }
    case WeightedSumPath::avx2_62: {
      const auto w_mont = montgomery_weights(wide32_.r, wide32_.r_shoup);  // R = 2^(32·steps)
      cpu::avx2_weighted_sum_wide_kernel()(x.data(), x.size(), w_mont.data(), out.data(),
                                           out.size(), wide32_);
      return true;
    }
    case WeightedSumPath::none: break;
  }
  return false;
}

void fraction_round(std::span<const u64* const> t, std::span<const double> inv, u64 cap,
                    std::span<double> s, std::span<u64> v) {
  if (t.empty() || inv.size() != t.size() || s.size() != v.size()) {
    throw InvalidParameter("vec::fraction_round: " + std::to_string(t.size()) + " terms, " +
                           std::to_string(inv.size()) + " inverses, " + std::to_string(s.size()) +
                           " sums and " + std::to_string(v.size()) +
                           " counts (at least one term, one inverse each, as many sums as counts)");
  }
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == nullptr)
      throw InvalidParameter("vec::fraction_round: term " + std::to_string(i) + " is null");
  }
  const std::size_t n = v.size();
  const CpuPath p = cpu_path();
  cpu::FractionRoundKernel kernel = nullptr;
  if (p == CpuPath::avx512 || p == CpuPath::ifma) kernel = cpu::avx512_fraction_round_kernel();
  if (p == CpuPath::avx2) kernel = cpu::avx2_fraction_round_kernel();
  if (kernel != nullptr) {
    kernel(t.data(), t.size(), inv.data(), cap, s.data(), v.data(), n);
    return;
  }
  std::fill(s.begin(), s.end(), 0.0);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const u64* ti = t[i];
    const double w = inv[i];
    // t_i < 2^63: the signed conversion rounds the same value as the unsigned one, without the
    // latter's branch on the top bit.
    for (std::size_t k = 0; k < n; ++k)
      s[k] += static_cast<double>(static_cast<std::int64_t>(ti[k])) * w;
  }
  for (std::size_t k = 0; k < n; ++k) {
    // ⌊s + 1/2⌋ (s ≥ 0): ties up, the rounding BaseConverter::exact_error_bound assumes. By the
    // signed conversion (s is below the term count): the unsigned one branches on the value, and
    // the words may be secret (public-key encryption's ModDown; core/constant_time.hpp).
    const auto r = static_cast<u64>(
        static_cast<std::int64_t>(s[k] + 0.5));  // NOLINT(bugprone-incorrect-roundings)
    v[k] = std::min<u64>(r, cap);
  }
}

void scale_round_parts(std::span<const u64* const> x, std::span<const u64> mu,
                       std::span<const double> rho, std::span<const double> lambda,
                       std::span<double> g, std::span<u64> lo, std::span<u64> hi) {
  if (x.empty() || mu.size() != x.size() || rho.size() != x.size() || lambda.size() != x.size() ||
      g.size() != lo.size() || hi.size() != lo.size()) {
    throw InvalidParameter(
        "vec::scale_round_parts: " + std::to_string(x.size()) + " terms, " +
        std::to_string(mu.size()) + "/" + std::to_string(rho.size()) + "/" +
        std::to_string(lambda.size()) + " constants, " + std::to_string(g.size()) + "/" +
        std::to_string(lo.size()) + "/" + std::to_string(hi.size()) +
        " outputs (at least one term, the three constants for each, three outputs alike)");
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == nullptr)
      throw InvalidParameter("vec::scale_round_parts: term " + std::to_string(i) + " is null");
    if (mu[i] >= (u64{1} << 31)) {
      throw InvalidParameter("vec::scale_round_parts: mu " + std::to_string(mu[i]) + " (term " +
                             std::to_string(i) + ") is not below 2^31");
    }
  }
  const std::size_t n = lo.size();
  const CpuPath p = cpu_path();
  cpu::ScaleRoundPartsKernel kernel = nullptr;
  if (p == CpuPath::avx512 || p == CpuPath::ifma) kernel = cpu::avx512_scale_round_parts_kernel();
  if (p == CpuPath::avx2) kernel = cpu::avx2_scale_round_parts_kernel();
  if (kernel != nullptr) {
    kernel(x.data(), x.size(), mu.data(), rho.data(), lambda.data(), g.data(), lo.data(), hi.data(),
           n);
    return;
  }
  std::fill(g.begin(), g.end(), 0.0);
  std::fill(lo.begin(), lo.end(), u64{0});
  std::fill(hi.begin(), hi.end(), u64{0});
  for (std::size_t i = 0; i < x.size(); ++i) {
    const u64* xi = x[i];
    for (std::size_t k = 0; k < n; ++k) {
      const u64 a = xi[k] >> 31;
      const u64 b = xi[k] & ((u64{1} << 31) - 1);
      const u64 am = a * mu[i];
      lo[k] += am & 0xFFFFFFFFULL;
      hi[k] += am >> 32;
      // Both halves are below 2^31: the signed conversion is exact and cheaper than the unsigned.
      g[k] += static_cast<double>(static_cast<std::int64_t>(a)) * rho[i];
      g[k] += static_cast<double>(static_cast<std::int64_t>(b)) * lambda[i];
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    lo[k] += static_cast<u64>(g[k] + 0.5);  // NOLINT(bugprone-incorrect-roundings): ⌊g + 1/2⌋
  }
}

}  // namespace polyhe::vec
