// The limb-wide element-wise operations: validation on the host, then one grid-stride kernel
// (for_each.cuh) applying a body of elementwise_body.hpp to every word of the flattened limbs.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/elementwise_body.hpp"
#include "cuda/for_each.cuh"
#include "polyhe/backend/cuda/elementwise.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"

namespace polyhe::cuda {

namespace {

template <class Body>
void launch(const Context& ctx, const Body& body, std::size_t count, Stream s, const char* name) {
  detail::for_each(ctx, body, count, s, name);
}

template <Word W>
void check_size(const DeviceModuli<W>& m, std::size_t size, const char* op, const char* operand) {
  if (size != m.words()) {
    throw InvalidParameter(std::string("cuda::") + op + ": " + operand + " holds " +
                           std::to_string(size) + " words, expected limbs " +
                           std::to_string(m.limbs()) + " x n " + std::to_string(m.n()) + " = " +
                           std::to_string(m.words()));
  }
}

/// c must be x exactly or disjoint from it (sizes already checked equal).
template <Word W>
void check_alias(DeviceSpan<W> c, DeviceSpan<const W> x, const char* op, const char* operand) {
  if (static_cast<const void*>(c.data()) == static_cast<const void*>(x.data())) return;
  if (bytes_overlap(c.data(), c.size_bytes(), x.data(), x.size_bytes())) {
    throw InvalidParameter(std::string("cuda::") + op + ": the output overlaps " + operand +
                           " partially; it must be the same words or disjoint");
  }
}

/// Activates the context and checks an output against its inputs.
template <Word W>
void prepare(const DeviceModuli<W>& m, const char* op, DeviceSpan<W> c,
             std::initializer_list<std::pair<DeviceSpan<const W>, const char*>> inputs) {
  for (const auto& [x, name] : inputs) check_size(m, x.size(), op, name);
  check_size(m, c.size(), op, "c");
  for (const auto& [x, name] : inputs) check_alias(c, x, op, name);
  m.context().activate();
}

}  // namespace

template <Word W>
DeviceModuli<W> DeviceModuli<W>::create(std::shared_ptr<const Context> ctx,
                                        std::span<const W> primes, std::size_t n) {
  if (ctx == nullptr) throw InvalidParameter("DeviceModuli: null context");
  if (primes.empty()) throw InvalidParameter("DeviceModuli: the basis holds no prime");
  if (n == 0 || !std::has_single_bit(n)) {
    throw InvalidParameter("DeviceModuli: n = " + std::to_string(n) +
                           " words per limb is not a power of two >= 1");
  }
  if (n > std::numeric_limits<std::size_t>::max() / sizeof(W) / primes.size()) {
    throw InvalidParameter("DeviceModuli: " + std::to_string(primes.size()) + " limbs of n = " +
                           std::to_string(n) + " words overflow the address space");
  }
  std::vector<LimbModulus<W>> host;
  host.reserve(primes.size());
  for (std::size_t i = 0; i < primes.size(); ++i) {
    try {
      host.push_back(make_limb_modulus(primes[i]));
    } catch (const InvalidParameter& e) {
      throw InvalidParameter("DeviceModuli: limb " + std::to_string(i) + ": " + e.what());
    }
  }
  const Stream s = ctx->compute();
  DeviceBuffer<LimbModulus<W>> device = to_device(ctx, host, s);
  synchronize(s);
  return DeviceModuli(std::vector<W>(primes.begin(), primes.end()), n, std::countr_zero(n),
                      std::move(device));
}

template <Word W>
void add(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c,
         Stream s) {
  prepare<W>(m, "add", c, {{a, "a"}, {b, "b"}});
  const AddBody<W> body{m.device_moduli().data(), a.data(), b.data(), c.data(), m.log_n()};
  launch(m.context(), body, m.words(), s, "cuda::add kernel");
}

template <Word W>
void sub(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c,
         Stream s) {
  prepare<W>(m, "sub", c, {{a, "a"}, {b, "b"}});
  const SubBody<W> body{m.device_moduli().data(), a.data(), b.data(), c.data(), m.log_n()};
  launch(m.context(), body, m.words(), s, "cuda::sub kernel");
}

template <Word W>
void negate(const DeviceModuli<W>& m, ConstWordSpan<W> a, WordSpan<W> c, Stream s) {
  prepare<W>(m, "negate", c, {{a, "a"}});
  const NegateBody<W> body{m.device_moduli().data(), a.data(), c.data(), m.log_n()};
  launch(m.context(), body, m.words(), s, "cuda::negate kernel");
}

template <Word W>
void multiply(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b, WordSpan<W> c,
              Stream s) {
  prepare<W>(m, "multiply", c, {{a, "a"}, {b, "b"}});
  const MultiplyBody<W> body{m.device_moduli().data(), a.data(), b.data(), c.data(), m.log_n()};
  launch(m.context(), body, m.words(), s, "cuda::multiply kernel");
}

template <Word W>
void multiply_add(const DeviceModuli<W>& m, ConstWordSpan<W> a, ConstWordSpan<W> b,
                  ConstWordSpan<W> d, WordSpan<W> c, Stream s) {
  prepare<W>(m, "multiply_add", c, {{a, "a"}, {b, "b"}, {d, "d"}});
  const MultiplyAddBody<W> body{
      m.device_moduli().data(), a.data(), b.data(), d.data(), c.data(), m.log_n()};
  launch(m.context(), body, m.words(), s, "cuda::multiply_add kernel");
}

template <Word W>
void multiply_scalar(const DeviceModuli<W>& m, ConstWordSpan<W> a,
                     std::type_identity_t<std::span<const W>> scalars, WordSpan<W> c, Stream s) {
  if (scalars.size() != m.limbs()) {
    throw InvalidParameter("cuda::multiply_scalar: " + std::to_string(scalars.size()) +
                           " scalars for " + std::to_string(m.limbs()) + " limbs");
  }
  prepare<W>(m, "multiply_scalar", c, {{a, "a"}});
  std::vector<ShoupOperand<W>> ops(m.limbs());
  for (std::size_t i = 0; i < m.limbs(); ++i) {
    const W q = m.primes()[i];
    if (scalars[i] >= q) {
      throw InvalidParameter("cuda::multiply_scalar: limb " + std::to_string(i) + ": scalar " +
                             std::to_string(scalars[i]) + " is not below q = " + std::to_string(q));
    }
    ops[i] = make_shoup(scalars[i], q);
  }
  const LimbModulus<W>* moduli = m.device_moduli().data();
  if (m.limbs() <= kInlineScalarLimbs) {
    InlineScalars<W> inline_ops{};
    std::copy(ops.begin(), ops.end(), inline_ops.op);
    const MultiplyScalarBody<W, InlineScalars<W>> body{moduli, a.data(), c.data(), m.log_n(),
                                                       inline_ops};
    launch(m.context(), body, m.words(), s, "cuda::multiply_scalar kernel");
  } else {
    // Freed on s after the kernel (stream-ordered); the pageable source is staged before
    // copy_async returns.
    const DeviceBuffer<ShoupOperand<W>> device_ops = to_device(m.context_ptr(), ops, s);
    const MultiplyScalarBody<W, const ShoupOperand<W>*> body{moduli, a.data(), c.data(), m.log_n(),
                                                             device_ops.data()};
    launch(m.context(), body, m.words(), s, "cuda::multiply_scalar kernel");
  }
}

#define POLYHE_INSTANTIATE(W)                                                                   \
  template class DeviceModuli<W>;                                                               \
  template void add<W>(const DeviceModuli<W>&, ConstWordSpan<W>, ConstWordSpan<W>, WordSpan<W>, \
                       Stream);                                                                 \
  template void sub<W>(const DeviceModuli<W>&, ConstWordSpan<W>, ConstWordSpan<W>, WordSpan<W>, \
                       Stream);                                                                 \
  template void negate<W>(const DeviceModuli<W>&, ConstWordSpan<W>, WordSpan<W>, Stream);       \
  template void multiply<W>(const DeviceModuli<W>&, ConstWordSpan<W>, ConstWordSpan<W>,         \
                            WordSpan<W>, Stream);                                               \
  template void multiply_add<W>(const DeviceModuli<W>&, ConstWordSpan<W>, ConstWordSpan<W>,     \
                                ConstWordSpan<W>, WordSpan<W>, Stream);                         \
  template void multiply_scalar<W>(const DeviceModuli<W>&, ConstWordSpan<W>,                    \
                                   std::type_identity_t<std::span<const W>>, WordSpan<W>, Stream);
POLYHE_INSTANTIATE(std::uint32_t)
POLYHE_INSTANTIATE(std::uint64_t)
#undef POLYHE_INSTANTIATE

}  // namespace polyhe::cuda
