// Hybrid key switching, ModDown and public-key encryption's ModDown (ring/key_switching.hpp): the
// CPU path (fused kernels on per-thread scratch, the limbs spread over the default pool) and the
// device path (the paper's steps as device operations, written once for every Device). Both give
// the same words: each step's output is the unique residue in [0, q), and the fused CPU steps
// compute the same functions as the device's separate ones.
#include "polyhe/ring/key_switching.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"
#include "ring/scratch.hpp"

namespace polyhe {

namespace detail {

std::span<std::uint64_t> scratch(std::size_t slot, std::size_t words) {
  thread_local std::array<AlignedVector<std::uint64_t>, kScratchSlots> buffers;
  AlignedVector<std::uint64_t>& b = buffers[slot];
  if (b.size() < words) b.resize(words);
  return std::span<std::uint64_t>(b.data(), words);
}

}  // namespace detail

namespace {

using u64 = std::uint64_t;
using detail::scratch;

/// Q_l then P: the ring limbs and moduli of the working basis at level l.
struct QpLayout {
  QpLayout(const HybridKeySwitch& ks, std::size_t level)
      : q_limbs(level + 1), p_limbs(ks.p_count()), p_first(ks.max_level() + 1) {
    const RingContext& ring = *ks.ring;
    for (std::size_t i = 0; i < q_limbs; ++i) {
      index.push_back(i);
      moduli.push_back(ring.basis().modulus(i));
    }
    for (std::size_t r = 0; r < p_limbs; ++r) {
      index.push_back(p_first + r);
      moduli.push_back(ring.basis().modulus(p_first + r));
    }
  }
  [[nodiscard]] std::span<const Modulus<u64>> mod_q() const {
    return std::span<const Modulus<u64>>(moduli).first(q_limbs);
  }
  [[nodiscard]] std::span<const Modulus<u64>> mod_p() const {
    return std::span<const Modulus<u64>>(moduli).subspan(q_limbs);
  }
  [[nodiscard]] std::size_t limbs() const { return q_limbs + p_limbs; }
  std::size_t q_limbs;
  std::size_t p_limbs;
  std::size_t p_first;  // the ring's index of p_0
  [[nodiscard]] std::span<const std::size_t> limb_index() const { return index; }
  std::vector<std::size_t> index;  // the ring's limb at each position
  std::vector<Modulus<u64>> moduli;
};

void check_setup(const HybridKeySwitch& ks, const char* op) {
  if (!ks.ring || ks.basis == nullptr) {
    throw InvalidParameter(std::string(op) + ": the key-switching setup has no ring or basis");
  }
  if (ks.ring->max_limbs() != ks.max_level() + 1 + ks.p_count()) {
    throw InvalidParameter(std::string(op) + ": the ring's " +
                           std::to_string(ks.ring->max_limbs()) + " primes are not Q's " +
                           std::to_string(ks.max_level() + 1) + " and P's " +
                           std::to_string(ks.p_count()));
  }
}

/// u: at level l where `device` lives, evaluation form — made so unless accumulating, when it
/// must already be so.
void prepare_output(const HybridKeySwitch& ks, std::size_t ql,
                    const std::shared_ptr<Device>& device, RnsPoly& u, bool accumulate,
                    const char* op) {
  const bool ready = u.context() == ks.ring && u.limbs() == ql &&
                     u.form() == PolyForm::kEvaluation && u.device() == device;
  if (accumulate && !ready) {
    throw InvalidParameter(std::string(op) +
                           ": accumulating into a polynomial of another ring, level, form or "
                           "placement");
  }
  if (!ready) u = RnsPoly(ks.ring, ql, PolyForm::kEvaluation, RnsPoly::kForOverwrite, device);
}

// ---------------------------------------------------------------------------------------------
// CPU path.

/// x_i ± e mod q_i on every limb i of x (n words each): e small and signed, |e_j| < every q_i.
/// Branch-free in e (an error of encryption: secret). The limbs run on the default pool: on the
/// calling thread alone this was 16 % of a one-thread public-key encryption at N = 2^16 (Intel
/// core), one of the serial steps that held two threads to 1.05–1.13× one.
void add_small(std::span<u64> x, std::span<const std::int64_t> e,
               std::span<const Modulus<u64>> moduli, bool subtract) {
  const std::size_t n = e.size();
  parallel_for(moduli.size(), [&](std::size_t i) {
    const u64 q = moduli[i].value();
    u64* const limb = x.data() + i * n;
    for (std::size_t j = 0; j < n; ++j) {
      const auto s = static_cast<u64>(e[j]);
      const u64 y = s + (q & (u64{0} - (s >> 63)));  // e_j mod q, in [0, q)
      if (subtract) {
        const u64 d = limb[j] - y;
        limb[j] = d + (q & (u64{0} - static_cast<u64>(limb[j] < y)));
      } else {
        const u64 t = limb[j] + y;  // < 2q < 2^63
        limb[j] = t - (q & (u64{0} - static_cast<u64>(t >= q)));
      }
    }
  });
}

/// The coefficient-form addend of public-key encryption's ModDown: an error e over Q_l ∪ P
/// (small: added as it is, residue by residue) and, over Q_l only, P·m (empty: none).
struct SmallAddend {
  std::span<const std::int64_t> e;
  std::span<const u64> pm;
};

// ModDown in evaluation form (ring/key_switching.hpp's layout): u = round((acc + addend)/P) over
// Q_l, with acc's Q_l limbs in acc_q and its P limbs in acc_p (overwritten). acc_q may be u's own
// words when not accumulating: the result then overwrites it in place.
void cpu_mod_down(const HybridKeySwitch& ks, std::size_t level, std::span<const u64> acc_q,
                  std::span<u64> acc_p, RnsPoly& u, const SmallAddend* addend, bool accumulate) {
  const std::size_t n = ks.ring->n();
  const std::size_t ql = level + 1;
  const std::size_t k = ks.p_count();
  const RingContext& ring = *ks.ring;
  const QpLayout layout(ks, level);
  const auto idx = layout.limb_index();
  const auto mod_q = layout.mod_q();
  const auto mod_p = layout.mod_p();
  // u = (acc_Q − NTT([acc_P]_centred))·P^−1 = round(acc/P). The exact (HPS) conversion of the
  // centred residue: FastBConv's overshoot u·P (0 ≤ u < k) would leave an error of mean
  // (k − 1)/2 on every coefficient, a constant offset that the canonical embedding concentrates
  // on the slots near ζ = 1 (measured: 2^-23 instead of 2^-27 at k = 2).
  const auto p_inv = ks.p_inv_mod_q.first(ql);
  const std::span<u64> conv = scratch(detail::kScratchConv, ql * n);
  ring.inverse(acc_p, idx.subspan(ql));
  if (k == 1 && addend == nullptr) {
    // One special prime and no addend: per limb, the lift of [acc_P]_centred, its transform and
    // (acc_i − ·)·P^−1 in one fused call (NttPlan::forward_lifted), into u_i or, to accumulate,
    // into a scratch limb added to u_i.
    const u64 p = mod_p[0].value();
    const bool in_place = acc_q.data() == u.data().data();  // then the work is the scratch limb
    parallel_for(ql, [&](std::size_t i) {
      const std::span<u64> out = accumulate ? conv.subspan(i * n, n) : u.limb(i);
      const std::span<u64> work = in_place ? conv.subspan(i * n, n) : out;
      ring.forward_lifted(i, acc_p, p, acc_q.subspan(i * n, n), p_inv[i], out, work);
      if (accumulate) vec::add(u.limb(i), out, u.limb(i), mod_q[i]);
    });
    return;
  }
  if (addend != nullptr) add_small(acc_p, addend->e, mod_p, false);
  if (k == 1) {
    // One special prime: the conversion of a single residue is exact already; centre it.
    vec::lift_centred(acc_p, mod_p[0].value(), conv, mod_q);
  } else {
    ks.p_to_q[level].convert_exact(acc_p, conv);
  }
  // (acc_Q + a_Q − conv)·P^−1 = (acc_Q − (conv − a_Q))·P^−1: the addend's Q limbs join the
  // conversion in coefficient form and ride on its transform.
  if (addend != nullptr) {
    add_small(conv, addend->e, mod_q, true);
    if (!addend->pm.empty()) vec::sub(conv, addend->pm, conv, mod_q);
  }
  ring.forward(conv, idx.first(ql));
  if (accumulate) {
    vec::sub_multiply_scalar(acc_q, conv, p_inv, conv, mod_q);
    vec::add(u.data(), conv, u.data(), mod_q);
    return;
  }
  vec::sub_multiply_scalar(acc_q, conv, p_inv, u.data(), mod_q);
}

// The inner product of the digits with the key, limb by limb: for limb t of Q_l ∪ P (QpLayout
// order) acc0_t = Σ_j up_j,t·b_j,t and acc1_t = Σ_j up_j,t·a_j,t, both halves in one pass over
// the digits and one sequential pass over the key's interleaved limb (vec::key_inner_products).
void accumulate_limb(std::span<const u64* const> up, const KeySwitchParts& key, std::size_t t,
                     const QpLayout& layout, std::span<u64> acc0, std::span<u64> acc1,
                     std::size_t n) {
  // Limb t of the key: Q's limbs keep their index, P's follow Q_L's in the ring.
  const std::size_t key_limb = t < layout.q_limbs ? t : layout.p_first + (t - layout.q_limbs);
  vec::key_inner_products(up, key.limb(key_limb), key.count(), key.width(key_limb),
                          acc0.subspan(t * n, n), acc1.subspan(t * n, n), layout.moduli[t]);
}

// d in coefficient form (ModUp's input), into scratch: the inverse transform of each limb, out of
// place (no copy of d first).
std::span<u64> cpu_coefficients(const RingContext& ring, const RnsPoly& d, std::size_t n) {
  const std::size_t ql = d.limbs();
  const std::span<u64> d_coef = scratch(detail::kScratchCoef, ql * n);
  parallel_for(ql, [&](std::size_t i) { ring.inverse(i, d.limb(i), d_coef.subspan(i * n, n)); });
  return d_coef;
}

// One prime per digit: limb t of every digit's ModUp into up (digit j at up[j]) — the centred
// lift of digit j to q_t read through the transform's first pass, into `lifted` (digits·n words),
// or d's own limb t for digit t.
void lift_limb(const RingContext& ring, const QpLayout& layout, const RnsPoly& d,
               std::span<const u64> d_coef, std::size_t t, std::size_t n, std::span<u64> lifted,
               std::span<const u64*> up) {
  std::size_t count = 0;
  for (std::size_t j = 0; j < up.size(); ++j) {
    if (j == t) {
      up[j] = d.data().data() + t * n;
      continue;
    }
    const std::span<u64> dst = lifted.subspan(count * n, n);
    ring.forward_lifted(layout.limb_index()[t], d_coef.subspan(j * n, n), layout.moduli[j].value(),
                        dst);
    up[j] = dst.data();
    ++count;
  }
}

// Digits of several primes: ModUp of each digit to all of Q_l ∪ P (exact centred conversion), its
// own limbs being d's, in evaluation form: digit j's limb t at up_all[(j·qp + t)·n].
void mod_up_all(const HybridKeySwitch& ks, const QpLayout& layout, const RnsPoly& d,
                std::span<const u64> d_coef, std::span<u64> up_all) {
  const std::size_t n = ks.ring->n();
  const std::size_t l = d.level();
  const std::size_t qp = layout.limbs();
  const KeySwitchBasis& basis = *ks.basis;
  const auto idx = layout.limb_index();
  for (std::size_t j = 0; j < basis.digit_count(l); ++j) {
    const std::size_t start = j * basis.alpha();
    const std::size_t size = basis.digit(l, j).size();
    const std::span<u64> up = up_all.subspan(j * qp * n, qp * n);
    basis.mod_up_centred(l, j, d_coef.subspan(start * n, size * n), up);
    std::memcpy(up.data() + start * n, d.data().data() + start * n, size * n * sizeof(u64));
    if (start > 0) ks.ring->forward(up.first(start * n), idx.first(start));
    ks.ring->forward(up.subspan((start + size) * n), idx.subspan(start + size));
  }
}

void cpu_key_switch(const HybridKeySwitch& ks, const RnsPoly& d, const KeySwitchParts& key,
                    RnsPoly& u0, RnsPoly& u1, bool accumulate) {
  const std::size_t n = ks.ring->n();
  const std::size_t l = d.level();
  const std::size_t ql = l + 1;
  const std::size_t qp = ql + ks.p_count();
  const KeySwitchBasis& basis = *ks.basis;
  const RingContext& ring = *ks.ring;
  const QpLayout layout(ks, l);
  const std::span<const u64> d_coef = cpu_coefficients(ring, d, n);

  const std::span<u64> acc0 = scratch(detail::kScratchAcc0, qp * n);
  const std::span<u64> acc1 = scratch(detail::kScratchAcc1, qp * n);
  const std::size_t digits = basis.digit_count(l);
  if (basis.alpha() == 1) {
    // One prime per digit (digit j is limb j; SEAL's default shape): build the digits' limb t
    // for one target limb at a time and take the inner product with the key's limb t at once.
    // The working set is the digits' copies of one limb, not of the whole of Q_l ∪ P.
    parallel_for(qp, [&](std::size_t t) {
      std::vector<const u64*> up(digits);
      lift_limb(ring, layout, d, d_coef, t, n, scratch(detail::kScratchUp, digits * n), up);
      accumulate_limb(up, key, t, layout, acc0, acc1, n);
    });
  } else {
    // ModUp of every digit, then the inner product limb by limb.
    const std::span<u64> up_all = scratch(detail::kScratchUp, digits * qp * n);
    mod_up_all(ks, layout, d, d_coef, up_all);
    parallel_for(qp, [&](std::size_t t) {
      std::vector<const u64*> up(digits);
      for (std::size_t j = 0; j < digits; ++j) up[j] = up_all.data() + (j * qp + t) * n;
      accumulate_limb(up, key, t, layout, acc0, acc1, n);
    });
  }
  cpu_mod_down(ks, l, acc0.first(ql * n), acc0.subspan(ql * n), u0, nullptr, accumulate);
  cpu_mod_down(ks, l, acc1.first(ql * n), acc1.subspan(ql * n), u1, nullptr, accumulate);
}

// Coefficients a chunk of hoisted key switching (cpu_key_switch_hoisted): a multiple of the key's
// groups of 8 residues.
constexpr std::size_t kHoistChunk = 1024;

// Hoisted: d's ModUp once (limb by limb for one-prime digits, as above), then for each target r
// and each limb t the digits' limb t permuted by σ_{k_r} (one gather a digit: σ commutes with
// the centred lift and the transform on x^N + 1, so this is limb t of the ModUp of σ(d)) and
// its inner product with key r — Q_l's limbs straight into u0[r] and u1[r], P's into scratch —
// then ModDown of each target in place. The targets share each limb's lifted digits while they
// are in cache.
void cpu_key_switch_hoisted(const HybridKeySwitch& ks, const RnsPoly& d,
                            std::span<const std::uint64_t> galois,
                            std::span<const KeySwitchParts* const> keys,
                            std::span<RnsPoly* const> u0, std::span<RnsPoly* const> u1) {
  const std::size_t n = ks.ring->n();
  const std::size_t l = d.level();
  const std::size_t ql = l + 1;
  const std::size_t k = ks.p_count();
  const std::size_t qp = ql + k;
  const std::size_t targets = keys.size();
  const KeySwitchBasis& basis = *ks.basis;
  const RingContext& ring = *ks.ring;
  const QpLayout layout(ks, l);
  const std::size_t digits = basis.digit_count(l);
  const bool one_prime = basis.alpha() == 1;
  const std::span<const u64> d_coef = cpu_coefficients(ring, d, n);

  std::vector<std::span<const std::uint32_t>> perm(targets);
  for (std::size_t r = 0; r < targets; ++r) perm[r] = ring.automorphism_table(galois[r]);
  // P's limbs of target r's part j (0: u0, 1: u1) at acc_p[((2r + j)·k)·n].
  const std::span<u64> acc_p = scratch(detail::kScratchAcc0, 2 * targets * k * n);
  std::span<u64> up_all;
  if (!one_prime) {
    up_all = scratch(detail::kScratchUp, digits * qp * n);
    mod_up_all(ks, layout, d, d_coef, up_all);
  }
  parallel_for(qp, [&](std::size_t t) {
    std::vector<const u64*> up(digits);
    if (one_prime) {
      lift_limb(ring, layout, d, d_coef, t, n, scratch(detail::kScratchUp, digits * n), up);
    } else {
      for (std::size_t j = 0; j < digits; ++j) up[j] = up_all.data() + (j * qp + t) * n;
    }
    // A chunk of coefficients at a time: the permuted digits of the chunk stay in L1 while the
    // inner product reads them with the matching bytes of the key (whose groups of residues
    // run in coefficient order); the digits' whole limb stays in L2 for the gathers.
    const std::size_t chunk = std::min(n, kHoistChunk);
    const std::span<u64> moved = scratch(detail::kScratchMoved, digits * chunk);
    std::vector<const u64*> src(digits);
    for (std::size_t j = 0; j < digits; ++j) src[j] = moved.data() + j * chunk;
    const std::size_t key_limb = t < ql ? t : layout.p_first + (t - ql);
    for (std::size_t r = 0; r < targets; ++r) {
      const std::span<u64> c0 =
          t < ql ? u0[r]->limb(t) : acc_p.subspan((2 * r * k + (t - ql)) * n, n);
      const std::span<u64> c1 =
          t < ql ? u1[r]->limb(t) : acc_p.subspan(((2 * r + 1) * k + (t - ql)) * n, n);
      const std::span<const std::uint8_t> key = keys[r]->limb(key_limb);
      const std::size_t parts = keys[r]->count();
      const std::size_t key_bytes = 2 * parts * keys[r]->width(key_limb);  // a coefficient's
      for (std::size_t c = 0; c < n; c += chunk) {
        for (std::size_t j = 0; j < digits; ++j) {
          vec::gather(std::span<const u64>(up[j], n), perm[r].subspan(c, chunk),
                      moved.subspan(j * chunk, chunk));
        }
        vec::key_inner_products(src, key.subspan(c * key_bytes, chunk * key_bytes), parts,
                                keys[r]->width(key_limb), c0.subspan(c, chunk),
                                c1.subspan(c, chunk), layout.moduli[t]);
      }
    }
  });
  for (std::size_t r = 0; r < targets; ++r) {
    cpu_mod_down(ks, l, u0[r]->data(), acc_p.subspan(2 * r * k * n, k * n), *u0[r], nullptr, false);
    cpu_mod_down(ks, l, u1[r]->data(), acc_p.subspan((2 * r + 1) * k * n, k * n), *u1[r], nullptr,
                 false);
  }
}

// ---------------------------------------------------------------------------------------------
// Device path: the same steps as device operations, on device scratch.

/// Operations over a Q_l ∪ P buffer: each runs twice, on Q_l's limbs and on P's (contiguous in
/// the buffer, not in the ring's numbering).
struct DeviceQp {
  Device& dev;
  const RingContext& ring;
  std::size_t n;
  std::size_t ql;
  std::size_t k;
  std::size_t p_first;
  DeviceQp(Device& device, const HybridKeySwitch& ks, std::size_t level)
      : dev(device),
        ring(*ks.ring),
        n(ks.ring->n()),
        ql(level + 1),
        k(ks.p_count()),
        p_first(ks.max_level() + 1) {}
  [[nodiscard]] std::size_t words() const { return (ql + k) * n; }
  [[nodiscard]] LimbRange q() const { return {0, ql}; }
  [[nodiscard]] LimbRange p() const { return {p_first, k}; }
};

/// ModDown on the device (cpu_mod_down's steps), both parts of a key switch or an encryption in
/// the same launches: acc[j] over Q_l ∪ P in evaluation form, addend[j] null (both) or over
/// Q_l ∪ P in coefficient form, into u[j]. P's limbs of both parts are gathered side by side, so
/// that one transform pair, one lift (or conversion) and one transform pair over Q_l serve both,
/// and one launch ends both: 7 launches where one part at a time took 12 (on an H200 each launch
/// or copy removed saved 10–14 µs of host time, more than a kernel takes at these sizes). With one
/// special prime and no addend (every key switch of CKKS's default chain) the lift, the forward
/// pair and the last step are two launches (Device::lift_forward_sub): 5 in all.
void device_mod_down(const HybridKeySwitch& ks, std::size_t level, const std::array<u64*, 2>& acc,
                     const std::array<const u64*, 2>& addend, const std::array<RnsPoly*, 2>& u,
                     bool accumulate) {
  const DeviceQp s(*u[0]->device(), ks, level);
  Device& dev = s.dev;
  const bool with_addend = addend[0] != nullptr;
  const std::size_t pw = s.k * s.n, qw = s.ql * s.n;  // words of P's limbs, of Q_l's
  DeviceWords last(u[0]->device(), 2 * pw);
  const std::array<const u64*, 2> acc_p = {acc[0] + qw, acc[1] + qw};
  const std::array<u64*, 2> last_parts = {last.data(), last.data() + pw};
  dev.copy_batch(acc_p, last_parts, pw);
  std::vector<std::size_t> p_limbs(s.k), q_limbs(s.ql);
  std::iota(p_limbs.begin(), p_limbs.end(), s.p_first);
  std::iota(q_limbs.begin(), q_limbs.end(), std::size_t{0});
  dev.ntt_mapped(s.ring, p_limbs, 2, last.data(), last.data(), true);
  if (with_addend) {
    for (std::size_t j = 0; j < 2; ++j) {
      dev.binary(Device::Binary::add, s.ring, s.p(), last_parts[j], addend[j] + qw, last_parts[j]);
    }
  }
  const std::array<const u64*, 2> a = {acc[0], acc[1]};
  const std::array<u64*, 2> out = {u[0]->device_words(), u[1]->device_words()};
  const auto p_inv = ks.p_inv_mod_q.first(s.ql);
  if (s.k == 1 && !with_addend) {
    // The lift, the forward transforms and the last step in two launches.
    dev.lift_forward_sub(s.ring, s.ql, last.data(), s.ring.basis().prime(s.p_first), a, p_inv, out,
                         accumulate, {});
    return;
  }
  DeviceWords conv(u[0]->device(), 2 * qw);
  if (s.k == 1) {
    dev.lift_centred(s.ring, s.q(), last.data(), s.ring.basis().prime(s.p_first), conv.data(), 2);
  } else {
    dev.convert(ks.p_to_q[level], s.n, last.data(), conv.data(), q_limbs, true, 2, qw);
  }
  if (with_addend) {
    for (std::size_t j = 0; j < 2; ++j) {
      u64* const cj = conv.data() + j * qw;
      dev.binary(Device::Binary::sub, s.ring, s.q(), cj, addend[j], cj);
    }
  }
  dev.ntt_mapped(s.ring, q_limbs, 2, conv.data(), conv.data(), false);
  dev.sub_multiply_scalar_parts(s.ring, s.q(), a, conv.data(), p_inv, out, accumulate);
  // With an addend (encryption) P's part and the conversion are secret: zeroed before their
  // memory is released.
  if (with_addend) {
    dev.zero(last.data(), last.words());
    dev.zero(conv.data(), conv.words());
  }
}

// ModUp on the device: every digit of d over Q_l ∪ P (the DeviceQp layout), evaluation form,
// digit j at j·(Q_l ∪ P)'s words. About 6 launches however many digits (one per step and digit
// would be ~10 each); with one-prime digits one fewer, the lift being the load of the transforms'
// first pass.
DeviceWords device_mod_up(const HybridKeySwitch& ks, const RnsPoly& d, const DeviceQp& s) {
  Device& dev = s.dev;
  const std::size_t l = d.level();
  const std::size_t qp = s.ql + s.k;
  const KeySwitchBasis& basis = *ks.basis;
  const std::size_t digits = basis.digit_count(l);
  DeviceWords d_coef(d.device(), s.ql * s.n);
  dev.ntt(s.ring, s.q(), d.device_words(), d_coef.data(), true);
  // Each digit into its own Q_l ∪ P buffer in coefficient form — a digit's own limbs too: their
  // transform gives back d's words — then all buffers' transforms in the same launches.
  DeviceWords up(d.device(), digits * qp * s.n);
  if (basis.alpha() == 1) {
    // The lift as the load of the transforms' first pass (Device::lift_digits_forward).
    dev.lift_digits_forward(s.ring, digits, s.ql, s.p_first, s.k, d_coef.data(), up.data());
    return up;
  }
  std::vector<std::size_t> qp_limbs(qp);
  for (std::size_t t = 0; t < qp; ++t) qp_limbs[t] = t < s.ql ? t : s.p_first + (t - s.ql);
  for (std::size_t j = 0; j < digits; ++j) {
    const std::size_t start = j * basis.alpha();
    const std::size_t size = basis.digit(l, j).size();
    u64* const upj = up.data() + j * qp * s.n;
    const u64* const digit = d_coef.data() + start * s.n;
    dev.convert(basis.up_converter(l, j), s.n, digit, upj, basis.up_limbs(l, j), true, 1, 0);
    dev.copy(digit, upj + start * s.n, size * s.n);
  }
  dev.ntt_mapped(s.ring, qp_limbs, digits, up.data(), up.data(), false);
  return up;
}

void device_key_switch(const HybridKeySwitch& ks, const RnsPoly& d, const KeySwitchParts& key,
                       RnsPoly& u0, RnsPoly& u1, bool accumulate) {
  const std::size_t l = d.level();
  const DeviceQp s(*d.device(), ks, l);
  const std::size_t digits = ks.basis->digit_count(l);
  const DeviceWords up = device_mod_up(ks, d, s);
  DeviceWords acc0(d.device(), s.words()), acc1(d.device(), s.words());
  s.dev.key_inner_products(s.ring, s.ql, s.p_first, s.k, up.data(), digits, key, acc0.data(),
                           acc1.data());
  device_mod_down(ks, l, {acc0.data(), acc1.data()}, {nullptr, nullptr}, {&u0, &u1}, accumulate);
}

// Hoisted on the device: the ModUp once, then per target every digit's limbs permuted by σ_{k_r}
// in one launch (Device::permute_slots), the inner products and ModDown.
void device_key_switch_hoisted(const HybridKeySwitch& ks, const RnsPoly& d,
                               std::span<const std::uint64_t> galois,
                               std::span<const KeySwitchParts* const> keys,
                               std::span<RnsPoly* const> u0, std::span<RnsPoly* const> u1) {
  const std::size_t l = d.level();
  const DeviceQp s(*d.device(), ks, l);
  const std::size_t digits = ks.basis->digit_count(l);
  const DeviceWords up = device_mod_up(ks, d, s);
  DeviceWords moved(d.device(), digits * s.words());
  DeviceWords acc0(d.device(), s.words()), acc1(d.device(), s.words());
  for (std::size_t r = 0; r < keys.size(); ++r) {
    s.dev.permute_slots(s.ring, digits * (s.ql + s.k), up.data(), moved.data(), galois[r]);
    s.dev.key_inner_products(s.ring, s.ql, s.p_first, s.k, moved.data(), digits, *keys[r],
                             acc0.data(), acc1.data());
    device_mod_down(ks, l, {acc0.data(), acc1.data()}, {nullptr, nullptr}, {u0[r], u1[r]}, false);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------

namespace {

// d over ks.ring in evaluation form with at most L + 1 limbs; the key over the same ring, where d
// lives, with a part for each digit at d's level. `op` begins each message.
void check_switch_input(const HybridKeySwitch& ks, const RnsPoly& d, const KeySwitchParts& key,
                        const std::string& op) {
  if (d.context() != ks.ring || key.context() != ks.ring) {
    throw MismatchedContext(op + ": the polynomial and the key belong to different parameters");
  }
  if (d.device() != key.device()) {
    throw MismatchedContext(op +
                            ": the polynomial and the key live in different places (move the "
                            "key or the ciphertext with to_device() / to_host())");
  }
  if (d.form() != PolyForm::kEvaluation) {
    throw InvalidParameter(op + ": the polynomial must be in evaluation form");
  }
  if (d.limbs() > ks.max_level() + 1) {
    throw InvalidParameter(op + ": the polynomial has " + std::to_string(d.limbs()) +
                           " limbs; Q has " + std::to_string(ks.max_level() + 1));
  }
  const std::size_t digits = ks.basis->digit_count(d.level());
  if (key.count() < digits) {
    throw InvalidParameter(op + ": the key has " + std::to_string(key.count()) + " parts for " +
                           std::to_string(digits) + " digits");
  }
}

}  // namespace

void key_switch(const HybridKeySwitch& ks, const RnsPoly& d, const KeySwitchParts& key, RnsPoly& u0,
                RnsPoly& u1, bool accumulate) {
  check_setup(ks, "key_switch");
  check_switch_input(ks, d, key, "key_switch");
  prepare_output(ks, d.limbs(), d.device(), u0, accumulate, "key_switch");
  prepare_output(ks, d.limbs(), d.device(), u1, accumulate, "key_switch");
  if (d.on_device()) {
    device_key_switch(ks, d, key, u0, u1, accumulate);
  } else {
    cpu_key_switch(ks, d, key, u0, u1, accumulate);
  }
}

void key_switch_hoisted(const HybridKeySwitch& ks, const RnsPoly& d,
                        std::span<const std::uint64_t> galois,
                        std::span<const KeySwitchParts* const> keys, std::span<RnsPoly* const> u0,
                        std::span<RnsPoly* const> u1) {
  check_setup(ks, "key_switch_hoisted");
  const std::size_t targets = keys.size();
  if (galois.size() != targets || u0.size() != targets || u1.size() != targets) {
    throw InvalidParameter("key_switch_hoisted: " + std::to_string(galois.size()) +
                           " Galois elements, " + std::to_string(targets) + " keys and " +
                           std::to_string(u0.size()) + " + " + std::to_string(u1.size()) +
                           " outputs: one key and two outputs for each element");
  }
  for (std::size_t r = 0; r < targets; ++r) {
    const std::string which = "key_switch_hoisted: target " + std::to_string(r) + " (element " +
                              std::to_string(galois[r]) + ")";
    if (!ks.ring->is_galois_element(galois[r])) {
      throw InvalidParameter(which + ": the element must be " + ks.ring->galois_rule());
    }
    if (keys[r] == nullptr || u0[r] == nullptr || u1[r] == nullptr) {
      throw InvalidParameter(which + ": a null key or output");
    }
    check_switch_input(ks, d, *keys[r], which);
  }
  if (targets == 0) return;  // nothing to switch
  // Every output its own polynomial, none of them d (d is read until the last target).
  std::vector<const RnsPoly*> outputs;
  outputs.reserve(2 * targets + 1);
  outputs.push_back(&d);
  for (std::size_t r = 0; r < targets; ++r) {
    for (const RnsPoly* u : {u0[r], u1[r]}) {
      if (std::find(outputs.begin(), outputs.end(), u) != outputs.end()) {
        throw InvalidParameter("key_switch_hoisted: target " + std::to_string(r) +
                               ": an output is the input or another output");
      }
      outputs.push_back(u);
    }
  }
  if (!ks.ring->power_of_two()) {
    // Over Φ_m the automorphism is no signed permutation of the coefficients, so it does not
    // commute with the centred lift: each target is switched on its own (the same words as
    // key_switch of σ(d), which is what this function promises).
    for (std::size_t r = 0; r < targets; ++r) {
      key_switch(ks, d.automorphism(galois[r]), *keys[r], *u0[r], *u1[r]);
    }
    return;
  }
  for (std::size_t r = 0; r < targets; ++r) {
    prepare_output(ks, d.limbs(), d.device(), *u0[r], false, "key_switch_hoisted");
    prepare_output(ks, d.limbs(), d.device(), *u1[r], false, "key_switch_hoisted");
  }
  if (d.on_device()) {
    device_key_switch_hoisted(ks, d, galois, keys, u0, u1);
  } else {
    cpu_key_switch_hoisted(ks, d, galois, keys, u0, u1);
  }
}

void encrypt_with_public_key(const HybridKeySwitch& ks, std::size_t level,
                             std::span<const std::int64_t> v, std::span<const std::int64_t> e0,
                             std::span<const std::int64_t> e1, const RnsPoly& b, const RnsPoly& a,
                             const RnsPoly* m, RnsPoly& c0, RnsPoly& c1) {
  check_setup(ks, "encrypt");
  const std::size_t n = ks.ring->n();
  if (level > ks.max_level()) {
    throw InvalidParameter("encrypt: level " + std::to_string(level) +
                           " exceeds L = " + std::to_string(ks.max_level()));
  }
  for (const auto* small : {&v, &e0, &e1}) {
    if (small->size() != n) {
      throw InvalidParameter("encrypt: " + std::to_string(small->size()) +
                             " small coefficients for N = " + std::to_string(n));
    }
  }
  for (const RnsPoly* key : {&b, &a}) {
    if (key->context() != ks.ring || key->limbs() != ks.ring->max_limbs() ||
        key->form() != PolyForm::kEvaluation || key->device() != b.device()) {
      throw InvalidParameter(
          "encrypt: the public key must cover all of Q ∪ P in evaluation form, both halves in "
          "one place");
    }
  }
  const std::size_t ql = level + 1;
  if (m != nullptr && (m->context() != ks.ring || m->limbs() != ql ||
                       m->form() != PolyForm::kCoefficient || m->device() != b.device())) {
    throw InvalidParameter(
        "encrypt: the message must be at the ciphertext's level, in coefficient form, where the "
        "key lives");
  }
  prepare_output(ks, ql, b.device(), c0, false, "encrypt");
  prepare_output(ks, ql, b.device(), c1, false, "encrypt");

  if (b.on_device()) {
    const DeviceQp s(*b.device(), ks, level);
    Device& dev = s.dev;
    DeviceWords vw(b.device(), s.words()), acc0(b.device(), s.words()), acc1(b.device(), s.words()),
        add0(b.device(), s.words()), add1(b.device(), s.words());
    auto lift = [&](std::span<const std::int64_t> small, u64* out) {
      dev.lift_signed(s.ring, s.q(), small, out);
      dev.lift_signed(s.ring, s.p(), small, out + s.ql * n);
    };
    lift(v, vw.data());
    dev.ntt(s.ring, s.q(), vw.data(), vw.data(), false);
    dev.ntt(s.ring, s.p(), vw.data() + s.ql * n, vw.data() + s.ql * n, false);
    lift(e0, add0.data());
    lift(e1, add1.data());
    if (m != nullptr) {
      // P·m over Q_l (it is 0 mod P): added to e_0's Q limbs.
      DeviceWords pm(b.device(), s.ql * n);
      dev.multiply_scalar(s.ring, s.q(), m->device_words(), ks.p_mod_q.first(s.ql), pm.data());
      dev.binary(Device::Binary::add, s.ring, s.q(), add0.data(), pm.data(), add0.data());
    }
    for (int part = 0; part < 2; ++part) {
      const u64* key = (part == 0 ? b : a).device_words();
      u64* const acc = part == 0 ? acc0.data() : acc1.data();
      dev.binary(Device::Binary::multiply, s.ring, s.q(), vw.data(), key, acc);
      dev.binary(Device::Binary::multiply, s.ring, s.p(), vw.data() + s.ql * n, key + s.p_first * n,
                 acc + s.ql * n);
    }
    device_mod_down(ks, level, {acc0.data(), acc1.data()}, {add0.data(), add1.data()}, {&c0, &c1},
                    false);
    // Secret (v, its products, the errors): zeroed before the device memory is released.
    for (const DeviceWords* w : {&vw, &acc0, &acc1, &add0, &add1}) dev.zero(w->data(), w->words());
    return;
  }

  // Over Q_l ∪ P: (v·b + e_0 + P·m, v·a + e_1), then ModDown divides by P, leaving
  // m + (v·e + e_0 + e_1·s)/P + rounding ≈ a few units of noise (SEAL's encryption). Only v is
  // transformed: the errors (and a message in coefficient form, times P) are small
  // coefficient-form addends that ModDown takes in with its own transforms.
  //
  // Secrets (core/wipe.hpp): v·b and v·a over Q_l are accumulated in c_0's and c_1's own words,
  // where ModDown overwrites each with its ciphertext part; what is left in this thread's scratch
  // — v's transform, the P limbs of both products, ModDown's conversion — is wiped before return,
  // also when an exception leaves (and then c_0 and c_1 too). The kernels' scratch is wiped by
  // the caller's SecretScope. P·m is the message's, not a secret: not wiped.
  const QpLayout layout(ks, level);
  const std::size_t qp = layout.limbs();
  const std::size_t words = ql * n;
  const std::size_t p_words = layout.p_limbs * n;
  const std::span<u64> vq_all = scratch(detail::kScratchEncV, qp * n);
  const std::span<u64> acc1_p = scratch(detail::kScratchAcc1, p_words);
  const std::span<u64> conv = scratch(detail::kScratchConv, words);  // ModDown's, taken here
  const std::span<u64> pm = m != nullptr ? scratch(detail::kScratchEncPm, words) : std::span<u64>();
  struct Wipe {
    std::span<u64> spans[3];
    RnsPoly* parts[2];
    std::size_t n;
    bool done = false;
    ~Wipe() {
      if (done) return;  // finish() wiped the scratch
      for (const std::span<u64> w : spans) secure_zero(w);
      for (RnsPoly* c : parts) secure_zero(c->data());
    }
    /// The normal way out: the scratch wiped a limb at a time on the default pool (about 10 MB
    /// at N = 2^16, a tenth of an encryption's time on one thread), the parts kept.
    void finish() {
      for (const std::span<u64> w : spans) {
        parallel_for((w.size() + n - 1) / n, [&](std::size_t i) {
          secure_zero(w.subspan(i * n, std::min(n, w.size() - i * n)));
        });
      }
      done = true;
    }
  } wipe{{vq_all, acc1_p, conv}, {&c0, &c1}, n};
  parallel_for(qp, [&](std::size_t i) {
    // v mod q for |v| < q, branch-free.
    const u64 q = layout.moduli[i].value();
    u64* const limb = vq_all.data() + i * n;
    for (std::size_t j = 0; j < n; ++j) {
      const auto x = static_cast<u64>(v[j]);
      limb[j] = x + (q & (u64{0} - (x >> 63)));
    }
  });
  ks.ring->forward(vq_all, layout.limb_index());
  const auto mod_q = layout.mod_q();
  const auto mod_p = layout.mod_p();
  if (m != nullptr) vec::multiply_scalar(m->data(), ks.p_mod_q.first(ql), pm, mod_q);
  const std::span<u64> vq(vq_all.data(), words), vp(vq_all.data() + words, p_words);
  const std::size_t p_at = layout.p_first * n;
  // Q_l: into the ciphertext's words. P: v·a into scratch, then v·b over v's own limbs.
  vec::multiply(vq, b.data().first(words), c0.data(), mod_q);
  vec::multiply(vq, a.data().first(words), c1.data(), mod_q);
  vec::multiply(vp, a.data().subspan(p_at), acc1_p, mod_p);
  vec::multiply(vp, b.data().subspan(p_at), vp, mod_p);
  const SmallAddend add0{e0, pm}, add1{e1, {}};
  cpu_mod_down(ks, level, c0.data(), vp, c0, &add0, false);
  cpu_mod_down(ks, level, c1.data(), acc1_p, c1, &add1, false);
  wipe.finish();
}

}  // namespace polyhe
