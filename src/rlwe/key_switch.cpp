#include "polyhe/rlwe/key_switch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/rlwe/encryption.hpp"

namespace polyhe::rlwe {

std::span<std::uint64_t> scratch(std::size_t slot, std::size_t words) {
  thread_local std::array<AlignedVector<std::uint64_t>, kScratchSlots> buffers;
  AlignedVector<std::uint64_t>& b = buffers[slot];
  if (b.size() < words) b.resize(words);
  return std::span<std::uint64_t>(b.data(), words);
}

namespace {

using Plans = std::span<const NttPlan<std::uint64_t>* const>;

// ModUp of a one-prime digit (dnum = L + 1, SEAL's default shape): x ∈ [0, q) lifted as its centred
// representative (x − q when x > q/2) to every other limb of `out` (QpLayout order). Exact, and
// far cheaper than the general conversion: one Shoup reduction and a select per word.
void lift_centred(std::span<const std::uint64_t> x, std::uint64_t q, std::size_t own,
                  const QpLayout& layout, std::span<std::uint64_t> out) {
  const std::size_t n = x.size();
  const std::uint64_t half = q / 2;
  for (std::size_t t = 0; t < layout.moduli.size(); ++t) {
    if (t == own) continue;
    const std::uint64_t qt = layout.moduli[t].value();
    const ShoupOperand<std::uint64_t> one = make_shoup<std::uint64_t>(1, qt);
    const std::uint64_t q_mod = mul_shoup(q, one, qt);
    std::uint64_t* o = out.data() + t * n;
    const std::uint64_t* in = x.data();
    if (q <= 2 * qt) {
      // x < q ≤ 2·q_t: one conditional subtraction reduces; the loop vectorises.
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = in[i] >= qt ? in[i] - qt : in[i];
        const std::uint64_t shifted = r >= q_mod ? r - q_mod : r + qt - q_mod;
        o[i] = in[i] > half ? shifted : r;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = mul_shoup(in[i], one, qt);
        const std::uint64_t shifted = r >= q_mod ? r - q_mod : r + qt - q_mod;
        o[i] = in[i] > half ? shifted : r;
      }
    }
  }
}

}  // namespace

QpLayout::QpLayout(const Parameters& params, std::size_t level)
    : q_limbs(level + 1), p_limbs(params.p_count()) {
  const auto& ring = params.ring();
  const std::size_t big_l = params.max_level();
  plans.reserve(q_limbs + p_limbs);
  moduli.reserve(q_limbs + p_limbs);
  for (std::size_t i = 0; i < q_limbs; ++i) {
    plans.push_back(&ring->plan(i));
    moduli.push_back(ring->basis().modulus(i));
  }
  for (std::size_t r = 0; r < p_limbs; ++r) {
    plans.push_back(&ring->plan(big_l + 1 + r));
    moduli.push_back(ring->basis().modulus(big_l + 1 + r));
  }
}

void mod_down(const Parameters& params, std::size_t level, std::span<std::uint64_t> acc,
              RnsPoly& u) {
  const auto& ring = params.ring();
  const std::size_t n = params.n();
  const std::size_t ql = level + 1;
  const std::size_t k = params.p_count();
  if (acc.size() != (ql + k) * n) {
    throw InvalidParameter("mod_down: " + std::to_string(acc.size()) +
                           " words is not (l + 1 + k)·N = " + std::to_string((ql + k) * n));
  }
  const QpLayout layout(params, level);
  const Plans plans_all(layout.plans);
  const auto mod_q = layout.mod_q();
  const auto mod_p = layout.mod_p();
  // u = (acc_Q − NTT([acc_P]_centred))·P^−1 = round(acc/P). The exact (HPS) conversion of the
  // centred residue: FastBConv's overshoot u·P (0 ≤ u < k) would leave an error of mean
  // (k − 1)/2 on every coefficient, a constant offset that the canonical embedding concentrates
  // on the slots near ζ = 1 (measured: 2^-23 instead of 2^-27 at k = 2).
  const auto p_inv = params.p_inv_mod_q().first(ql);
  const BaseConverter& down = params.p_to_q(level);
  const std::span<std::uint64_t> conv = scratch(kScratchConv, ql * n);
  const std::span<std::uint64_t> acc_p = acc.subspan(ql * n);
  inverse_batch<std::uint64_t>(acc_p, plans_all.subspan(ql));
  if (k == 1) {
    // One special prime: the conversion of a single residue is exact already; centre it.
    const std::uint64_t p = mod_p[0].value();
    for (std::size_t i = 0; i < ql; ++i) {
      const std::uint64_t q = mod_q[i].value();
      const ShoupOperand<std::uint64_t> one = make_shoup<std::uint64_t>(1, q);
      const std::uint64_t p_mod_q = mul_shoup(p, one, q);
      std::uint64_t* out = conv.data() + i * n;
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t x = acc_p[j];
        const std::uint64_t r = mul_shoup(x, one, q);  // x mod q
        // x > p/2 stands for x − p.
        const std::uint64_t shifted = r >= p_mod_q ? r - p_mod_q : r + q - p_mod_q;
        out[j] = x > p / 2 ? shifted : r;
      }
    }
  } else {
    down.convert_exact(acc_p, conv);
  }
  forward_batch<std::uint64_t>(conv, plans_all.first(ql));
  if (u.context() != ring || u.limbs() != ql || u.form() != PolyForm::kEvaluation) {
    u = RnsPoly(ring, ql, PolyForm::kEvaluation);
  }
  vec::sub(acc.first(ql * n), conv, u.data(), mod_q);
  vec::multiply_scalar(u.data(), p_inv, u.data(), mod_q);
}

void key_switch(const RnsPoly& d, const KeySwitchKey& key, RnsPoly& u0, RnsPoly& u1) {
  const Parameters& params = *key.params;
  if (d.context() != params.ring()) {
    throw MismatchedContext(
        "key_switch: the polynomial and the key belong to different parameters");
  }
  if (d.form() != PolyForm::kEvaluation) {
    throw InvalidParameter("key_switch: the polynomial must be in evaluation form");
  }
  const std::size_t n = params.n();
  const std::size_t l = d.level();
  const std::size_t big_l = params.max_level();
  const std::size_t k = params.p_count();
  const std::size_t ql = l + 1;
  const std::size_t qp = ql + k;
  const KeySwitchBasis& ks = params.key_switch_basis();

  const QpLayout layout(params, l);
  const Plans plans_all(layout.plans);
  const std::span<const Modulus<std::uint64_t>> mod_q = layout.mod_q();
  const std::span<const Modulus<std::uint64_t>> mod_p = layout.mod_p();

  // d in coefficient form, for ModUp.
  const std::span<std::uint64_t> d_coef = scratch(kScratchCoef, ql * n);
  std::copy(d.data().begin(), d.data().end(), d_coef.begin());
  inverse_batch<std::uint64_t>(d_coef, plans_all.first(ql));

  const std::span<std::uint64_t> up = scratch(kScratchUp, qp * n);
  const std::span<std::uint64_t> acc0 = scratch(kScratchAcc0, qp * n);
  const std::span<std::uint64_t> acc1 = scratch(kScratchAcc1, qp * n);
  const std::span<std::uint64_t> up_s = up;
  const std::size_t digits = ks.digit_count(l);
  const std::size_t alpha = ks.alpha();
  for (std::size_t j = 0; j < digits; ++j) {
    const std::size_t start = j * alpha;
    const std::size_t size = ks.digit(l, j).size();
    if (size == 1) {
      lift_centred(std::span<const std::uint64_t>(d_coef).subspan(start * n, n),
                   layout.moduli[start].value(), start, layout, up_s);
    } else {
      ks.mod_up_centred(l, j, std::span<const std::uint64_t>(d_coef).subspan(start * n, size * n),
                        up_s);
    }
    // The digit's own limbs are d's, already transformed; NTT the rest.
    std::memcpy(up.data() + start * n, d.data().data() + start * n,
                size * n * sizeof(std::uint64_t));
    if (start > 0) forward_batch<std::uint64_t>(up_s.first(start * n), plans_all.first(start));
    forward_batch<std::uint64_t>(up_s.subspan((start + size) * n), plans_all.subspan(start + size));
    const auto up_q = std::span<const std::uint64_t>(up).first(ql * n);
    const auto up_p = std::span<const std::uint64_t>(up).subspan(ql * n);
    const std::span<std::uint64_t> a0q(acc0.data(), ql * n), a0p(acc0.data() + ql * n, k * n);
    const std::span<std::uint64_t> a1q(acc1.data(), ql * n), a1p(acc1.data() + ql * n, k * n);
    const auto bq = key.b[j].data().first(ql * n);
    const auto bp = key.b[j].data().subspan((big_l + 1) * n);
    const auto aq = key.a[j].data().first(ql * n);
    const auto ap = key.a[j].data().subspan((big_l + 1) * n);
    if (j == 0) {
      vec::multiply(up_q, bq, a0q, mod_q);
      vec::multiply(up_p, bp, a0p, mod_p);
      vec::multiply(up_q, aq, a1q, mod_q);
      vec::multiply(up_p, ap, a1p, mod_p);
    } else {
      vec::multiply_accumulate(up_q, bq, a0q, mod_q);
      vec::multiply_accumulate(up_p, bp, a0p, mod_p);
      vec::multiply_accumulate(up_q, aq, a1q, mod_q);
      vec::multiply_accumulate(up_p, ap, a1p, mod_p);
    }
  }

  mod_down(params, l, acc0, u0);
  mod_down(params, l, acc1, u1);
}

}  // namespace polyhe::rlwe
