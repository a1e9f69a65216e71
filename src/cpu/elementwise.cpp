// polyhe::vec: validation once per call, then the kernels of the active CPU path, per limb and
// per chunk of a limb, on the default thread pool for large batches.
#include "polyhe/cpu/elementwise.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise_kernel.hpp"
#include "polyhe/cpu/features.hpp"

namespace polyhe::cpu {

#if !defined(POLYHE_HAVE_AVX512_KERNELS)
const ElementwiseKernels* avx512_elementwise_kernels() {
  return nullptr;
}
#endif
#if !defined(POLYHE_HAVE_IFMA_KERNELS)
const ElementwiseKernels* ifma_elementwise_kernels() {
  return nullptr;
}
#endif

const ElementwiseKernels& elementwise_kernels(CpuPath p, std::uint64_t q) {
  if (p == CpuPath::ifma && ifma_serves(q)) {
    if (const auto* k = ifma_elementwise_kernels()) return *k;
  }
  if (p != CpuPath::scalar) {
    if (const auto* k = avx512_elementwise_kernels()) return *k;
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

enum class Op { add, sub, negate, multiply, multiply_scalar, multiply_accumulate };

const char* name(Op op) {
  switch (op) {
    case Op::add: return "vec::add";
    case Op::sub: return "vec::sub";
    case Op::negate: return "vec::negate";
    case Op::multiply: return "vec::multiply";
    case Op::multiply_scalar: return "vec::multiply_scalar";
    case Op::multiply_accumulate: return "vec::multiply_accumulate";
  }
  return "vec";
}

bool has_b(Op op) {
  return op != Op::negate && op != Op::multiply_scalar;
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
  if (x.empty() || c.empty() || x.data() == c.data()) return;
  const auto xb = reinterpret_cast<std::uintptr_t>(x.data());
  const auto cb = reinterpret_cast<std::uintptr_t>(c.data());
  if (xb < cb + c.size_bytes() && cb < xb + x.size_bytes()) {
    throw InvalidParameter(std::string(name(op)) + ": the output overlaps operand " + operand +
                           " without being it (c may alias a or b exactly, or not at all)");
  }
}

/// Sizes equal (b ignored where the operation has none) and no partial overlap.
void check_operands(std::span<const u64> a, std::span<const u64> b, std::span<const u64> c, Op op) {
  if (a.size() != c.size() || (has_b(op) && b.size() != c.size())) {
    throw InvalidParameter(std::string(name(op)) + ": operand sizes " + std::to_string(a.size()) +
                           (has_b(op) ? ", " + std::to_string(b.size()) : std::string()) + " and " +
                           std::to_string(c.size()) + " differ");
  }
  check_overlap(a, c, "a", op);
  if (has_b(op)) check_overlap(b, c, "b", op);
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

/// The operation on n words modulo q on `path` (b absent for negate and multiply_scalar; s used
/// by multiply_scalar only).
void run(Op op, CpuPath path, const Modulus<u64>& q, u64 s, const u64* a, const u64* b, u64* c,
         std::size_t n) {
  if (n == 0) return;
  const u64 qv = q.value();
  debug_check_reduced(a, n, qv);
  if (has_b(op)) debug_check_reduced(b, n, qv);
  if (op == Op::multiply_accumulate) debug_check_reduced(c, n, qv);
  const cpu::ElementwiseKernels& k = cpu::elementwise_kernels(path, qv);
  // Alg. 4 serves every 2 ≤ q < 2^62 except q = 2^61, where µ = 2^64 does not fit a word:
  // there the products take the double-word remainder on every path.
  const bool alg4 =
      (op == Op::multiply || op == Op::multiply_accumulate) && q.supports(Reduction::barrett_alg4);
  switch (op) {
    case Op::add: k.add(a, b, c, n, qv); return;
    case Op::sub: k.sub(a, b, c, n, qv); return;
    case Op::negate: k.negate(a, c, n, qv); return;
    case Op::multiply_scalar: k.multiply_scalar(a, make_shoup(s, qv), c, n, qv); return;
    case Op::multiply:
      if (alg4) {
        k.multiply(a, b, c, n, q.barrett_alg4());
      } else {
        for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<u64>(mul_wide(a[i], b[i]) % qv);
      }
      return;
    case Op::multiply_accumulate:
      if (alg4) {
        k.multiply_accumulate(a, b, c, n, q.barrett_alg4());
      } else {
        for (std::size_t i = 0; i < n; ++i) {
          c[i] = static_cast<u64>((mul_wide(a[i], b[i]) + c[i]) % qv);
        }
      }
      return;
  }
}

void one_modulus(Op op, std::span<const u64> a, std::span<const u64> b, u64 s, std::span<u64> c,
                 const Modulus<u64>& q) {
  check_modulus(q, op);
  check_operands(a, b, c, op);
  if (op == Op::multiply_scalar) check_scalar(s, q, op);
  run(op, cpu_path(), q, s, a.data(), has_b(op) ? b.data() : nullptr, c.data(), c.size());
}

void limbs(Op op, std::span<const u64> a, std::span<const u64> b, std::span<const u64> scalars,
           std::span<u64> c, std::span<const Modulus<u64>> moduli, unsigned threads) {
  check_operands(a, b, c, op);
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
  if (op == Op::multiply_scalar) {
    if (scalars.size() != count) {
      throw InvalidParameter(std::string(name(op)) + ": " + std::to_string(scalars.size()) +
                             " scalars given for " + std::to_string(count) + " limbs");
    }
    for (std::size_t i = 0; i < count; ++i) check_scalar(scalars[i], moduli[i], op);
  }
  const std::size_t n = c.size() / count;
  const CpuPath path = cpu_path();
  const u64* pb = has_b(op) ? b.data() : nullptr;
  // Words [begin, end) of limb i.
  const auto task = [&](std::size_t i, std::size_t begin, std::size_t end) {
    const std::size_t off = i * n + begin;
    run(op, path, moduli[i], op == Op::multiply_scalar ? scalars[i] : 0, a.data() + off,
        at(pb, off), c.data() + off, end - begin);
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

}  // namespace

void add(std::span<const u64> a, std::span<const u64> b, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::add, a, b, 0, c, q);
}
void sub(std::span<const u64> a, std::span<const u64> b, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::sub, a, b, 0, c, q);
}
void negate(std::span<const u64> a, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::negate, a, {}, 0, c, q);
}
void multiply(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
              const Modulus<u64>& q) {
  one_modulus(Op::multiply, a, b, 0, c, q);
}
void multiply_scalar(std::span<const u64> a, u64 s, std::span<u64> c, const Modulus<u64>& q) {
  one_modulus(Op::multiply_scalar, a, {}, s, c, q);
}
void multiply_accumulate(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
                         const Modulus<u64>& q) {
  one_modulus(Op::multiply_accumulate, a, b, 0, c, q);
}

void add(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::add, a, b, {}, c, moduli, threads);
}
void sub(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::sub, a, b, {}, c, moduli, threads);
}
void negate(std::span<const u64> a, std::span<u64> c, std::span<const Modulus<u64>> moduli,
            unsigned threads) {
  limbs(Op::negate, a, {}, {}, c, moduli, threads);
}
void multiply(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
              std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply, a, b, {}, c, moduli, threads);
}
void multiply_scalar(std::span<const u64> a, std::span<const u64> scalars, std::span<u64> c,
                     std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply_scalar, a, {}, scalars, c, moduli, threads);
}
void multiply_accumulate(std::span<const u64> a, std::span<const u64> b, std::span<u64> c,
                         std::span<const Modulus<u64>> moduli, unsigned threads) {
  limbs(Op::multiply_accumulate, a, b, {}, c, moduli, threads);
}

}  // namespace polyhe::vec
