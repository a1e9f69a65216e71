// BFV's scale-invariant tensor product (ring/scale_invariant.hpp): the CPU path on one per-thread
// workspace, the device path as the same steps on device operations.
#include "polyhe/ring/scale_invariant.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
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
  const std::span<const Modulus<u64>> moduli_q(moduli.data(), ql);
  const std::span<const Modulus<u64>> moduli_r(moduli.data() + ql, kr);
  // One per-thread workspace (no allocation or page faults per call): the four inputs' parts over
  // R_l, the coefficient scratch, the three tensor parts over Q_l ∪ R_l and the scaled output
  // over R_l. Q_l's limbs of the inputs are read where they are, never copied.
  thread_local AlignedVector<u64> work;
  const std::size_t words = 4 * kr * n + ql * n + 3 * ext * n + kr * n;
  if (work.size() < words) work.resize(words);
  u64* cursor = work.data();
  const auto take = [&cursor](std::size_t count) {
    const std::span<u64> s(cursor, count);
    cursor += count;
    return s;
  };
  const std::span<u64> coef = take(ql * n);
  // Each input's part over R_l in evaluation form, from the exact (centred) conversion of its
  // coefficients (the inverse transforms out of place, into the coefficient scratch).
  const auto extend = [&](const RnsPoly& p) {
    const std::span<u64> r_part = take(kr * n);
    parallel_for(ql, [&](std::size_t i) { ring.inverse(i, p.limb(i), coef.subspan(i * n, n)); });
    t.q_to_r->convert_exact(coef, r_part);
    forward_batch<u64>(r_part, plans_r);
    return r_part;
  };
  // A square (b the same polynomials as a: multiply(x, x)) extends its operand once.
  const bool square = &a0 == &b0 && &a1 == &b1;
  const std::span<const u64> e0 = extend(a0), e1 = extend(a1);
  const std::span<const u64> f0 = square ? e0 : extend(b0), f1 = square ? e1 : extend(b1);
  // Part j of the product over Q_l ∪ R_l, Q_l's limbs first: d.subspan(j·ext·n, ext·n).
  const std::span<u64> d = take(3 * ext * n);
  const auto q_of = [&](std::size_t j) { return d.subspan(j * ext * n, ql * n); };
  const auto r_of = [&](std::size_t j) { return d.subspan((j * ext + ql) * n, kr * n); };
  vec::tensor(a0.data(), a1.data(), b0.data(), b1.data(), q_of(0), q_of(1), q_of(2), moduli_q);
  vec::tensor(e0, e1, f0, f1, r_of(0), r_of(1), r_of(2), moduli_r);
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

// The CPU's steps on device operations, each over every polynomial of its stage in one set of
// launches: the two-pass transforms are latency-bound at these sizes (H200, N = 2^14: the row pass
// 10.6 µs over 8 limbs, 13.3 over 32), so the four inputs share one inverse over Q_l and one
// forward over R_l, and the three products one inverse over each and one forward.
// Layout: the inputs' coefficients and R_l parts side by side (4·|Q_l| and 4·|R_l| limbs), the
// products' Q_l and R_l limbs apart (3·|Q_l|, 3·|R_l|); the tensor over Q_l reads the inputs
// where they are; the base conversions and the scale-and-round take every polynomial of their
// stage in one launch too, and the gathers and scatters are one launch each. 17 launches and no
// copies at N = 2^14, where one polynomial at a time took 44 launches and 4 copies. A square
// extends two inputs (half the first stage's transforms and conversions), as on the CPU.
TensorProduct device_tensor(const ScaleInvariantTables& t, const RnsPoly& a0, const RnsPoly& a1,
                            const RnsPoly& b0, const RnsPoly& b1) {
  const std::shared_ptr<Device>& device = a0.device();
  Device& dev = *device;
  const RingContext& ring = *a0.context();
  const RingContext& aux = *t.aux_ring;
  const std::size_t n = ring.n();
  const std::size_t ql = a0.limbs();
  const std::size_t kr = t.aux_limbs;
  const std::size_t wq = ql * n, wr = kr * n;  // words of one polynomial over Q_l, over R_l
  const LimbRange q{0, ql}, r{0, kr};
  std::vector<std::size_t> q_limbs(ql), r_limbs(kr);
  std::iota(q_limbs.begin(), q_limbs.end(), std::size_t{0});
  std::iota(r_limbs.begin(), r_limbs.end(), std::size_t{0});

  // Each input over R_l in evaluation form, from the exact (centred) conversion of its
  // coefficients. A square (b the same polynomials as a: multiply(x, x)) extends two, not four.
  const bool square = &a0 == &b0 && &a1 == &b1;
  const std::size_t m = square ? 2 : 4;
  DeviceWords coef(device, m * wq), ext_r(device, m * wr);
  const std::array<const u64*, 4> inputs = {a0.device_words(), a1.device_words(), b0.device_words(),
                                            b1.device_words()};
  const std::array<u64*, 4> gathered = {coef.data(), coef.data() + wq, coef.data() + 2 * wq,
                                        coef.data() + 3 * wq};
  dev.copy_batch(std::span(inputs).first(m), std::span(gathered).first(m), wq);
  dev.ntt_mapped(ring, q_limbs, m, coef.data(), coef.data(), true);
  dev.convert(*t.q_to_r, n, coef.data(), ext_r.data(), r_limbs, true, m, wr);
  dev.ntt_mapped(aux, r_limbs, m, ext_r.data(), ext_r.data(), false);

  // The degree-2 product over Q_l ∪ R_l, then round(t·d/Q_l) over R_l and back to Q_l.
  DeviceWords dq(device, 3 * wq), dr(device, 3 * wr);
  dev.tensor(ring, q, a0.device_words(), a1.device_words(), b0.device_words(), b1.device_words(),
             dq.data(), dq.data() + wq, dq.data() + 2 * wq);
  const u64* e = ext_r.data();
  const u64* f = square ? e : e + 2 * wr;  // b's parts over R_l
  dev.tensor(aux, r, e, e + wr, f, f + wr, dr.data(), dr.data() + wr, dr.data() + 2 * wr);
  dev.ntt_mapped(ring, q_limbs, 3, dq.data(), dq.data(), true);
  dev.ntt_mapped(aux, r_limbs, 3, dr.data(), dr.data(), true);
  DeviceWords scaled(device, 3 * wr), back(device, 3 * wq);
  dev.scale_round(*t.scale, n, dq.data(), dr.data(), scaled.data(), 3);
  dev.convert(*t.r_to_q, n, scaled.data(), back.data(), q_limbs, true, 3, wq);
  dev.ntt_mapped(ring, q_limbs, 3, back.data(), back.data(), false);
  TensorProduct out{
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device),
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device),
      RnsPoly(a0.context(), ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device)};
  const std::array<const u64*, 3> results = {back.data(), back.data() + wq, back.data() + 2 * wq};
  const std::array<u64*, 3> parts = {out.c0.device_words(), out.c1.device_words(),
                                     out.c2.device_words()};
  dev.copy_batch(results, parts, wq);
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
