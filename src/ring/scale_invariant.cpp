// BFV's scale-invariant tensor product (ring/scale_invariant.hpp): the CPU path on one per-thread
// workspace, the device path as the same steps on device operations.
#include "polyhe/ring/scale_invariant.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"

namespace polyhe {

namespace {

using u64 = std::uint64_t;

TensorProduct cpu_tensor(const ScaleInvariantTables& t, const RnsPoly& a0, const RnsPoly& a1,
                         const RnsPoly& b0, const RnsPoly& b1) {
  const RingContext& ring = *a0.context();
  const std::size_t n = ring.n();
  const std::size_t ql = a0.limbs();
  const std::size_t kr = t.aux_limbs;
  const std::size_t ext = ql + kr;
  std::vector<Modulus<u64>> moduli;
  std::vector<const NttPlan<u64>*> plans;
  for (std::size_t i = 0; i < ql; ++i) {
    moduli.push_back(ring.basis().modulus(i));
    plans.push_back(&ring.plan(i));
  }
  for (std::size_t i = 0; i < kr; ++i) {
    moduli.push_back(t.aux_ring->basis().modulus(i));
    plans.push_back(&t.aux_ring->plan(i));
  }
  const std::span<const NttPlan<u64>* const> plans_q(plans.data(), ql);
  const std::span<const NttPlan<u64>* const> plans_r(plans.data() + ql, kr);
  // One per-thread workspace (no allocation or page faults per call): the four extended parts,
  // the coefficient scratch, the three tensor parts and the scaled output over R_l.
  thread_local AlignedVector<u64> work;
  const std::size_t words = 4 * ext * n + ql * n + 3 * ext * n + kr * n;
  if (work.size() < words) work.resize(words);
  u64* cursor = work.data();
  const auto take = [&cursor](std::size_t count) {
    const std::span<u64> s(cursor, count);
    cursor += count;
    return s;
  };
  const std::span<u64> coef = take(ql * n);
  // Each input part over Q_l ∪ R_l in evaluation form: Q_l's limbs as they are; R_l's from the
  // exact (centred) conversion of the coefficients.
  const auto extend = [&](const RnsPoly& p) {
    const std::span<u64> e = take(ext * n);
    std::copy(p.data().begin(), p.data().end(), e.begin());
    std::copy(p.data().begin(), p.data().end(), coef.begin());
    inverse_batch<u64>(coef, plans_q);
    const std::span<u64> r_part = e.subspan(ql * n);
    t.q_to_r->convert_exact(coef, r_part);
    forward_batch<u64>(r_part, plans_r);
    return e;
  };
  const std::span<u64> e0 = extend(a0), e1 = extend(a1);
  const std::span<u64> f0 = extend(b0), f1 = extend(b1);
  const std::span<u64> d = take(3 * ext * n);
  const std::span<u64> d0 = d.first(ext * n), d1 = d.subspan(ext * n, ext * n),
                       d2 = d.subspan(2 * ext * n);
  vec::tensor(e0, e1, f0, f1, d0, d1, d2, moduli);
  TensorProduct out{RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite),
                    RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite),
                    RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite)};
  const std::span<u64> scaled = take(kr * n);
  RnsPoly* parts[] = {&out.c0, &out.c1, &out.c2};
  for (std::size_t j = 0; j < 3; ++j) {
    const std::span<u64> dj = d.subspan(j * ext * n, ext * n);
    inverse_batch<u64>(dj, plans);
    t.scale->round(dj, scaled);  // round(t·d/Q_l) over R_l
    t.r_to_q->convert_exact(scaled, parts[j]->data());
    forward_batch<u64>(parts[j]->data(), plans_q);
  }
  return out;
}

TensorProduct device_tensor(const ScaleInvariantTables& t, const RnsPoly& a0, const RnsPoly& a1,
                            const RnsPoly& b0, const RnsPoly& b1) {
  const std::shared_ptr<Device>& device = a0.device();
  Device& dev = *device;
  const RingContext& ring = *a0.context();
  const RingContext& aux = *t.aux_ring;
  const std::size_t n = ring.n();
  const std::size_t ql = a0.limbs();
  const std::size_t kr = t.aux_limbs;
  const std::size_t ext = ql + kr;
  const LimbRange q{0, ql}, r{0, kr};
  std::vector<std::size_t> to_r(kr), to_q(ql);
  std::iota(to_r.begin(), to_r.end(), std::size_t{0});
  std::iota(to_q.begin(), to_q.end(), std::size_t{0});
  DeviceWords coef(device, ql * n);
  const auto extend = [&](const RnsPoly& p) {
    DeviceWords e(device, ext * n);
    dev.copy(p.device_words(), e.data(), ql * n);
    dev.ntt(ring, q, p.device_words(), coef.data(), true);
    dev.convert(*t.q_to_r, n, coef.data(), e.data() + ql * n, to_r, true);
    dev.ntt(aux, r, e.data() + ql * n, e.data() + ql * n, false);
    return e;
  };
  const DeviceWords e0 = extend(a0), e1 = extend(a1), f0 = extend(b0), f1 = extend(b1);
  DeviceWords d[3] = {DeviceWords(device, ext * n), DeviceWords(device, ext * n),
                      DeviceWords(device, ext * n)};
  dev.tensor(ring, q, e0.data(), e1.data(), f0.data(), f1.data(), d[0].data(), d[1].data(),
             d[2].data());
  const std::size_t at = ql * n;
  dev.tensor(aux, r, e0.data() + at, e1.data() + at, f0.data() + at, f1.data() + at,
             d[0].data() + at, d[1].data() + at, d[2].data() + at);
  TensorProduct out{
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device),
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device),
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device)};
  RnsPoly* parts[] = {&out.c0, &out.c1, &out.c2};
  DeviceWords scaled(device, kr * n);
  for (std::size_t j = 0; j < 3; ++j) {
    dev.ntt(ring, q, d[j].data(), d[j].data(), true);
    dev.ntt(aux, r, d[j].data() + at, d[j].data() + at, true);
    dev.scale_round(*t.scale, n, d[j].data(), scaled.data());
    dev.convert(*t.r_to_q, n, scaled.data(), parts[j]->device_words(), to_q, true);
    dev.ntt(ring, q, parts[j]->device_words(), parts[j]->device_words(), false);
  }
  return out;
}

}  // namespace

TensorProduct scale_invariant_tensor(const ScaleInvariantTables& tables, const RnsPoly& a0,
                                     const RnsPoly& a1, const RnsPoly& b0, const RnsPoly& b1) {
  a0.check_compatible(a1, "scale_invariant_tensor");
  a0.check_compatible(b0, "scale_invariant_tensor");
  a0.check_compatible(b1, "scale_invariant_tensor");
  a0.require_evaluation("scale_invariant_tensor");
  if (!tables.aux_ring || tables.q_to_r == nullptr || tables.r_to_q == nullptr ||
      tables.scale == nullptr) {
    throw InvalidParameter("scale_invariant_tensor: incomplete tables");
  }
  if (tables.q_to_r->from().size() != a0.limbs() ||
      tables.aux_limbs > tables.aux_ring->max_limbs()) {
    throw InvalidParameter("scale_invariant_tensor: the tables are for " +
                           std::to_string(tables.q_to_r->from().size()) +
                           " limbs, the operands have " + std::to_string(a0.limbs()));
  }
  return a0.on_device() ? device_tensor(tables, a0, a1, b0, b1)
                        : cpu_tensor(tables, a0, a1, b0, b1);
}

}  // namespace polyhe
