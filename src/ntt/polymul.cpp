#include "polyhe/ntt/polymul.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/arith/ntt_schedule.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe {

namespace {

template <Word W>
void check_sizes(std::size_t a, std::size_t b, std::size_t c, std::size_t n, const char* what) {
  if (a != n || b != n || c != n) {
    throw InvalidParameter(std::string(what) + ": operand sizes " + std::to_string(a) + ", " +
                           std::to_string(b) + ", " + std::to_string(c) +
                           " must all equal the plan's N = " + std::to_string(n));
  }
}

/// Scratch for the second operand, reused across calls on the same thread.
template <Word W>
W* scratch(std::size_t n) {
  thread_local AlignedVector<W> buffer;
  if (buffer.size() < n) buffer.resize(n);
  return buffer.data();
}

}  // namespace

template <Word W>
void polymul(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan, NttVariant v) {
  const std::size_t n = plan.n();
  check_sizes<W>(a.size(), b.size(), c.size(), n, "polymul");
  W* tb = scratch<W>(n);
  std::copy(b.begin(), b.end(), tb);
  if (c.data() != a.data()) std::copy(a.begin(), a.end(), c.begin());
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    if (v == NttVariant::shoup_lazy) {
      const cpu::NttKernel64* k = plan.cpu_kernel();
      k->forward(c.data());
      k->forward(tb);
      k->hadamard(c.data(), tb, c.data());
      k->inverse(c.data());
      return;
    }
  }
  plan.visit(v, [&](const auto& p) {
    detail::forward_ct(c.data(), n, p, n);
    detail::forward_ct(tb, n, p, n);
    for (std::size_t i = 0; i < n; ++i) c[i] = p.mul(c[i], tb[i]);
    detail::inverse_gs(c.data(), n, p, n / 2);
  });
}

template <Word W>
void polymul_fused(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan,
                   NttVariant v) {
  const std::size_t n = plan.n();
  check_sizes<W>(a.size(), b.size(), c.size(), n, "polymul_fused");
  W* tb = scratch<W>(n);
  std::copy(b.begin(), b.end(), tb);
  if (c.data() != a.data()) std::copy(a.begin(), a.end(), c.begin());
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    if (v == NttVariant::shoup_lazy) {
      const cpu::NttKernel64* k = plan.cpu_kernel();
      k->forward_truncated(c.data());
      k->forward_truncated(tb);
      k->fused_hadamard(c.data(), tb, c.data());
      k->inverse_truncated(c.data());
      return;
    }
  }
  plan.visit(v, [&](const auto& p) {
    detail::forward_ct(c.data(), n, p, n / 2);
    detail::forward_ct(tb, n, p, n / 2);
    detail::fused_hadamard(c.data(), tb, c.data(), n, p, plan.q());
    detail::inverse_gs(c.data(), n, p, n / 4);  // no stage left when n = 2
  });
}

template <Word W>
void hadamard(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan) {
  const std::size_t n = plan.n();
  check_sizes<W>(a.size(), b.size(), c.size(), n, "hadamard");
  const auto& m = plan.modulus();
  for (std::size_t i = 0; i < n; ++i) c[i] = m.mul(a[i], b[i]);
}

#define POLYHE_INSTANTIATE(W)                                                                     \
  template void polymul<W>(Span<const W>, Span<const W>, Span<W>, const NttPlan<W>&, NttVariant); \
  template void polymul_fused<W>(Span<const W>, Span<const W>, Span<W>, const NttPlan<W>&,        \
                                 NttVariant);                                                     \
  template void hadamard<W>(Span<const W>, Span<const W>, Span<W>, const NttPlan<W>&);
POLYHE_INSTANTIATE(std::uint32_t)
POLYHE_INSTANTIATE(std::uint64_t)
#undef POLYHE_INSTANTIATE

}  // namespace polyhe
