// Element-wise modular arithmetic on the device, over every limb of a flattened RNS polynomial
// in one kernel launch: the CUDA counterparts of the limb-batched polyhe::vec functions
// (cpu/elementwise.hpp), returning the same words bit for bit.
//
// Layout (docs/design.md, "Data layout"): L limbs of n words, limb i at words [i·n, (i+1)·n) modulo
// q_i; every operand holds L·n words. Words W = uint32_t (primes up to 30 bits, the fast path on
// GPUs) or uint64_t (up to 62 bits): the one-correction Barrett of [GPU-Polymul, Alg. 4] serves
// len(q) ≤ β − 2.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/device_span.hpp"

namespace polyhe::cuda {

/// The constants one limb's kernels read: q and the [GPU-Polymul, Alg. 4] Barrett constants. A POD
/// that lives in device memory (DeviceModuli) and in host memory alike (the emulation tests).
template <Word W>
struct LimbModulus {
  W q;
  BarrettAlg4<W> barrett;
};

/// LimbModulus of q. Throws InvalidParameter naming q and the rule unless 2 ≤ len(q) ≤ β − 2 and
/// [GPU-Polymul, Alg. 4]'s µ fits a word (Modulus<W>::barrett_alg4): 30 bits on uint32_t, 62 on
/// uint64_t.
template <Word W>
LimbModulus<W> make_limb_modulus(W q) {
  const Modulus<W> m(q);
  return {q, m.barrett_alg4()};
}

/// Per-limb constants of an RNS basis (and the limb length n), uploaded once and shared by every
/// element-wise call over data of that shape. Move-only (it owns device memory of its context).
template <Word W>
class DeviceModuli {
 public:
  /// Validates every prime (make_limb_modulus) and n (a power of two ≥ 1, with limbs·n words
  /// addressable), then uploads the constants on ctx's compute stream and waits for the copy.
  /// Throws InvalidParameter naming the value (an empty basis included), DeviceError on a CUDA
  /// failure. The constants are freed on the compute stream: work on other streams that reads
  /// them must be complete before the DeviceModuli is destroyed.
  static DeviceModuli create(std::shared_ptr<const Context> ctx, std::span<const W> primes,
                             std::size_t n);

  [[nodiscard]] std::size_t limbs() const { return primes_.size(); }
  /// Words per limb.
  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] int log_n() const { return log_n_; }
  /// limbs()·n(): the size of every operand.
  [[nodiscard]] std::size_t words() const { return primes_.size() * n_; }
  [[nodiscard]] std::span<const W> primes() const { return primes_; }
  [[nodiscard]] DeviceSpan<const LimbModulus<W>> device_moduli() const { return moduli_.cspan(); }
  [[nodiscard]] const Context& context() const { return *moduli_.context(); }
  [[nodiscard]] const std::shared_ptr<const Context>& context_ptr() const {
    return moduli_.context();
  }

 private:
  DeviceModuli(std::vector<W> primes, std::size_t n, int log_n, DeviceBuffer<LimbModulus<W>> m)
      : primes_(std::move(primes)), n_(n), log_n_(log_n), moduli_(std::move(m)) {}

  std::vector<W> primes_;
  std::size_t n_;
  int log_n_;
  DeviceBuffer<LimbModulus<W>> moduli_;
};

extern template class DeviceModuli<std::uint32_t>;
extern template class DeviceModuli<std::uint64_t>;

/// Scalars of multiply_scalar travel inside the kernel's parameters (as Shoup pairs) up to this
/// many limbs; above it they are uploaded to a temporary device buffer on the call's stream.
inline constexpr std::size_t kInlineScalarLimbs = 64;

// --- Operations --------------------------------------------------------------------------------
//
// Each makes m's device current, then runs ONE grid-stride kernel over the L·n words on stream
// s (256 threads per block, at most 8 blocks per SM), asynchronously: launch errors throw
// DeviceError, errors while the kernel runs surface at the next synchronisation. Checked,
// InvalidParameter naming the sizes: every operand holds exactly m.words() words, and the output c
// is either exactly an input (in place) or disjoint from it — a partial overlap is refused.
// Preconditions (not checked: the data are on the device): every input word of limb i in [0, q_i);
// the spans are device memory of m's context. Output: every word of limb i of c in [0, q_i).

/// Operand types that take no part in deducing W (deduced from m alone), so a DeviceSpan<W>
/// converts where DeviceSpan<const W> is expected.
template <Word W>
using ConstWordSpan = std::type_identity_t<DeviceSpan<const W>>;
template <Word W>
using WordSpan = std::type_identity_t<DeviceSpan<W>>;

/// c = (a + b) mod q_i.
template <Word W>
void add(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c, Stream s);

/// c = (a − b) mod q_i.
template <Word W>
void sub(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c, Stream s);

/// c = (−a) mod q_i.
template <Word W>
void negate(const DeviceModuli<W>& m, ConstWordSpan<W> a, WordSpan<W> c, Stream s);

/// c = a·b mod q_i (Barrett, [GPU-Polymul, Alg. 4]).
template <Word W>
void multiply(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c,
              Stream s);

/// c = (d + a·b) mod q_i: one [GPU-Polymul, Alg. 4] reduction of a·b + d ≤ q² − q < 2^(2m). c may
/// also be exactly d (multiply-accumulate).
template <Word W>
void multiply_add(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b,
                  ConstWordSpan<W> d, WordSpan<W> c, Stream s);

/// Limb i of c = a·scalars[i] mod q_i (Shoup). Checked besides the sizes: scalars.size() =
/// limbs, every scalars[i] < q_i (InvalidParameter naming the limb, the scalar and q_i).
/// scalars is host memory, read before the call returns.
template <Word W>
void multiply_scalar(const DeviceModuli<W>& m, ConstWordSpan<W> a,
                     std::type_identity_t<std::span<const W>> scalars, WordSpan<W> c, Stream s);

}  // namespace polyhe::cuda
