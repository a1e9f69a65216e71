#include "polyhe/rlwe/key_switch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
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
using u64 = std::uint64_t;

// The inner product of the digits with the key, limb by limb: for limb t of Q_l ∪ P (QpLayout
// order) acc0_t = Σ_j up_j,t·b_j,t and acc1_t = Σ_j up_j,t·a_j,t, both halves in one pass over
// the digits and one sequential pass over the key's interleaved limb (vec::key_inner_products).
void accumulate_limb(std::span<const u64* const> up, const KeySwitchKey& key, std::size_t t,
                     const QpLayout& layout, std::size_t big_l, std::span<u64> acc0,
                     std::span<u64> acc1, std::size_t n) {
  // Limb t of the key: Q's limbs keep their index, P's follow Q_L's in the ring.
  const std::size_t key_limb = t < layout.q_limbs ? t : big_l + 1 + (t - layout.q_limbs);
  vec::key_inner_products(up, key.parts.limb(key_limb), key.parts.count(),
                          key.parts.width(key_limb), acc0.subspan(t * n, n), acc1.subspan(t * n, n),
                          layout.moduli[t]);
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

void mod_down(const Parameters& params, std::size_t level, std::span<std::uint64_t> acc, RnsPoly& u,
              std::span<const std::uint64_t> addend, bool accumulate) {
  const auto& ring = params.ring();
  const std::size_t n = params.n();
  const std::size_t ql = level + 1;
  const std::size_t k = params.p_count();
  if (acc.size() != (ql + k) * n) {
    throw InvalidParameter("mod_down: " + std::to_string(acc.size()) +
                           " words is not (l + 1 + k)·N = " + std::to_string((ql + k) * n));
  }
  if (!addend.empty() && addend.size() != acc.size()) {
    throw InvalidParameter("mod_down: the addend has " + std::to_string(addend.size()) +
                           " words, not (l + 1 + k)·N = " + std::to_string((ql + k) * n));
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
  if (accumulate) {
    if (u.context() != ring || u.limbs() != ql || u.form() != PolyForm::kEvaluation) {
      throw InvalidParameter(
          "mod_down: accumulating into a polynomial of another ring, level or "
          "form");
    }
  } else if (u.context() != ring || u.limbs() != ql || u.form() != PolyForm::kEvaluation) {
    u = RnsPoly(ring, ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  }
  if (k == 1 && addend.empty()) {
    // One special prime and no addend: per limb, the lift of [acc_P]_centred, its transform and
    // (acc_i − ·)·P^−1 in one fused call (NttPlan::forward_lifted), into u_i or, to accumulate,
    // into a scratch limb added to u_i.
    const std::uint64_t p = mod_p[0].value();
    parallel_for(ql, [&](std::size_t i) {
      const std::span<std::uint64_t> out = accumulate ? conv.subspan(i * n, n) : u.limb(i);
      layout.plans[i]->forward_lifted(acc_p, p, acc.subspan(i * n, n), p_inv[i], out, out);
      if (accumulate) vec::add(u.limb(i), out, u.limb(i), mod_q[i]);
    });
    return;
  }
  if (!addend.empty()) vec::add(acc_p, addend.subspan(ql * n), acc_p, mod_p);
  if (k == 1) {
    // One special prime: the conversion of a single residue is exact already; centre it.
    vec::lift_centred(acc_p, mod_p[0].value(), conv, mod_q);
  } else {
    down.convert_exact(acc_p, conv);
  }
  // (acc_Q + a_Q − conv)·P^−1 = (acc_Q − (conv − a_Q))·P^−1: the addend's Q limbs join the
  // conversion in coefficient form and ride on its transform.
  if (!addend.empty()) vec::sub(conv, addend.first(ql * n), conv, mod_q);
  forward_batch<std::uint64_t>(conv, plans_all.first(ql));
  if (accumulate) {
    vec::sub_multiply_scalar(acc.first(ql * n), conv, p_inv, conv, mod_q);
    vec::add(u.data(), conv, u.data(), mod_q);
    return;
  }
  vec::sub_multiply_scalar(acc.first(ql * n), conv, p_inv, u.data(), mod_q);
}

void key_switch(const RnsPoly& d, const KeySwitchKey& key, RnsPoly& u0, RnsPoly& u1,
                bool accumulate) {
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

  // d in coefficient form, for ModUp.
  const std::span<u64> d_coef = scratch(kScratchCoef, ql * n);
  parallel_for(ql, [&](std::size_t i) {  // out of place: no copy of d first
    layout.plans[i]->inverse(d.limb(i), d_coef.subspan(i * n, n));
  });

  const std::span<u64> acc0 = scratch(kScratchAcc0, qp * n);
  const std::span<u64> acc1 = scratch(kScratchAcc1, qp * n);
  const std::size_t digits = ks.digit_count(l);
  const std::size_t alpha = ks.alpha();
  if (alpha == 1) {
    // One prime per digit (digit j is limb j; SEAL's default shape): build the digits' limb t
    // for one target limb at a time — the centred lift of each other digit to q_t, transformed
    // under q_t; a digit's own limb is d's — and take the inner product with the key's limb t
    // at once. The working set is the digits' copies of one limb, not of the whole of Q_l ∪ P.
    parallel_for(qp, [&](std::size_t t) {
      const std::span<u64> lifted = scratch(kScratchUp, digits * n);
      std::vector<const u64*> up(digits);
      std::size_t count = 0;
      for (std::size_t j = 0; j < digits; ++j) {
        if (j == t) {
          up[j] = d.data().data() + t * n;
          continue;
        }
        // The centred lift of digit j to q_t read through the transform's first pass.
        const std::span<u64> dst = lifted.subspan(count * n, n);
        layout.plans[t]->forward_lifted(std::span<const u64>(d_coef).subspan(j * n, n),
                                        layout.moduli[j].value(), dst);
        up[j] = dst.data();
        ++count;
      }
      accumulate_limb(up, key, t, layout, big_l, acc0, acc1, n);
    });
  } else {
    // Digits of several primes: ModUp of each digit to all of Q_l ∪ P (exact centred conversion),
    // its own limbs being d's; then the inner product limb by limb.
    const std::span<u64> up_all = scratch(kScratchUp, digits * qp * n);
    for (std::size_t j = 0; j < digits; ++j) {
      const std::size_t start = j * alpha;
      const std::size_t size = ks.digit(l, j).size();
      const std::span<u64> up = up_all.subspan(j * qp * n, qp * n);
      ks.mod_up_centred(l, j, std::span<const u64>(d_coef).subspan(start * n, size * n), up);
      std::memcpy(up.data() + start * n, d.data().data() + start * n, size * n * sizeof(u64));
      if (start > 0) forward_batch<u64>(up.first(start * n), plans_all.first(start));
      forward_batch<u64>(up.subspan((start + size) * n), plans_all.subspan(start + size));
    }
    parallel_for(qp, [&](std::size_t t) {
      std::vector<const u64*> up(digits);
      for (std::size_t j = 0; j < digits; ++j) up[j] = up_all.data() + (j * qp + t) * n;
      accumulate_limb(up, key, t, layout, big_l, acc0, acc1, n);
    });
  }

  mod_down(params, l, acc0, u0, {}, accumulate);
  mod_down(params, l, acc1, u1, {}, accumulate);
}

}  // namespace polyhe::rlwe
