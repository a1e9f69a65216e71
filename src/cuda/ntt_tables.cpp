// DeviceNttTables (backend/cuda/ntt.hpp): each distinct twiddle table of a batch's plans
// uploaded once, and the butterfly policies re-pointed at the device's copies. Host code.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/ntt_programs.hpp"
#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe::cuda {
namespace {

// The table pointers of each butterfly policy, so that a host policy can be re-pointed at the
// device's copies.
template <Word W, class F>
void for_each_table(ReferenceButterfly<W>& p, F&& f) {
  f(p.fwd);
  f(p.inv);
}
template <Word W, class F>
void for_each_table(ShoupLazyButterfly<W>& p, F&& f) {
  f(p.fwd);
  f(p.fwd_shoup);
  f(p.inv);
  f(p.inv_shoup);
}
template <Word W, class R, class F>
void for_each_table(ReducedButterfly<W, R>& p, F&& f) {
  f(p.fwd);
  f(p.fwd_aux);
  f(p.inv);
  f(p.inv_aux);
}

}  // namespace

template <Word W>
std::shared_ptr<const DeviceNttTables<W>> DeviceNttTables<W>::create(
    std::shared_ptr<const Context> ctx, std::span<const NttPlan<W>* const> plans, NttVariant v) {
  if (!ctx) throw InvalidParameter("DeviceNttTables::create: no context");
  if (plans.empty()) throw InvalidParameter("DeviceNttTables::create: no plans (limbs = 0)");
  if (plans.size() > 65535) {
    throw InvalidParameter("DeviceNttTables::create: " + std::to_string(plans.size()) +
                           " limbs; at most 65535");
  }
  if (v == NttVariant::reference) {
    throw InvalidParameter(
        "DeviceNttTables::create: the reference variant runs on the CPU only (its 128-bit "
        "remainders have no device form worth compiling); every other variant runs on the device");
  }
  for (const NttPlan<W>* p : plans) {
    if (p == nullptr) throw InvalidParameter("DeviceNttTables::create: a null plan");
    if (p->n() != plans[0]->n()) {
      throw MismatchedContext("DeviceNttTables::create: plans of n = " +
                              std::to_string(plans[0]->n()) + " and n = " + std::to_string(p->n()));
    }
    p->require(v);
  }
  std::shared_ptr<DeviceNttTables> t(new DeviceNttTables());
  t->ctx_ = ctx;
  t->variant_ = v;
  t->plans_.assign(plans.begin(), plans.end());
  ctx->activate();
  const std::size_t n = plans[0]->n();
  const Stream s = ctx->compute();
  detail::with_policies<W>(plans, v, [&](auto host) {
    using P = std::remove_cvref_t<decltype(host[0])>;
    if constexpr (std::is_same_v<P, ReferenceButterfly<W>>) return;  // refused above
    // Each distinct host table once, in one device buffer.
    std::map<const W*, std::size_t> slot;
    std::vector<P> policies(host.begin(), host.end());
    for (P& p : policies) {
      for_each_table(p, [&](const W*& table) {
        if (table != nullptr) slot.emplace(table, slot.size());
      });
    }
    std::vector<W> staging(slot.size() * n);
    for (const auto& [table, i] : slot) std::copy(table, table + n, staging.begin() + i * n);
    t->tables_ = DeviceBuffer<W>(ctx, staging.size(), s);
    copy_async<W>(t->tables_.span(), staging, s);
    W* const base = t->tables_.data();
    for (P& p : policies) {
      for_each_table(p, [&](const W*& table) {
        if (table != nullptr) table = base + slot.at(table) * n;
      });
    }
    const std::size_t bytes = policies.size() * sizeof(P);
    t->policies_ = DeviceBuffer<unsigned char>(ctx, bytes, s);
    copy_async<unsigned char>(t->policies_.span(),
                              std::span<const unsigned char>(
                                  reinterpret_cast<const unsigned char*>(policies.data()), bytes),
                              s);
    synchronize(s);  // the staging vectors die here
  });
  return t;
}

template class DeviceNttTables<std::uint32_t>;
template class DeviceNttTables<std::uint64_t>;

}  // namespace polyhe::cuda
