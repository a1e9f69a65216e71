// The forward transform of centred lifts, ended by (a − ·)·s: the last steps of rescale and of
// ModDown with one special prime, as two block programs instead of four launches; and ModUp's
// lift of one-prime digits as the load of its forward transform.
//
// Both steps, one polynomial part at a time on the CPU (ring/key_switching.cpp):
//   y_j = NTT_j(lift_{p → q_j}(x))          x: one limb modulo p, in coefficient form
//   c_j = (a_j − y_j)·s_j  (or c_j += that)  limb j of a part, s_j < q_j
// On the device the lift becomes the load of the forward transform's column pass (LiftColumnNtt)
// and the subtraction and the product its row pass's store (SubScaleRowNtt), so that neither the
// lifted limbs nor the transform's output make an extra round trip through device memory and two
// launches go. The transforms are ntt_body.hpp's group functions over the same butterfly policy,
// so the words equal those of the steps run one by one (lift_centred_word, then the transform, then
// SubMultiplyScalarBody's arithmetic).
//
// The grid's row b (b < parts·limbs) is part b / limbs, ring limb b % limbs. Per-part pointers are
// kept in fixed arrays and read through pick(), a select over constant indices: a kernel parameter
// indexed at run time would be copied to local memory by every thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/ntt_body.hpp"
#include "cuda/ring_bodies.hpp"
#include "polyhe/arith/shoup.hpp"

namespace polyhe::cuda::detail {

/// arr[i] for i < kBatchPointers, by selects (see above).
template <class T>
POLYHE_HD POLYHE_NTT_INLINE T pick(const T (&arr)[kBatchPointers], unsigned i) {
  T r = arr[0];
  POLYHE_UNROLL
  for (unsigned k = 1; k < kBatchPointers; ++k) {
    if (k == i) r = arr[k];
  }
  return r;
}

/// Reads position pos of limb x (N words modulo p) as its centred lift reduced modulo w.q, times
/// `factor` when kScaled (BGV's rescale: the lift times μ, MultiplyScalarBody's arithmetic).
template <bool kScaled>
struct LiftLoad {
  const std::uint64_t* x;
  std::uint64_t p;
  WideBarrett w;
  ShoupOperand<std::uint64_t> factor;
  POLYHE_HD std::uint64_t operator()(Pos pos) const {
    const std::uint64_t r = lift_centred_word(x[pos], p, w);
    if constexpr (kScaled) {
      return mul_shoup(r, factor, w.q);
    } else {
      return r;
    }
  }
};

/// Stores v at position pos as c[pos] = (a[pos] − v)·s mod q, or c[pos] += that (v in [0, q)):
/// operator() gives a slot whose assignment does it (ct_group writes `out(pos) = x`).
struct SubScaleStore {
  const std::uint64_t* a;
  std::uint64_t* c;
  ShoupOperand<std::uint64_t> s;
  std::uint64_t q;
  bool accumulate;
  POLYHE_HD void put(Pos pos, std::uint64_t v) const {
    sub_scale(c[pos], a[pos], v, s, q, accumulate);
  }
  struct Slot;
  POLYHE_HD Slot operator()(Pos pos) const;
};

/// A copy of the store (not a pointer to it: the store is a local of the kernel) and the position.
struct SubScaleStore::Slot {
  SubScaleStore store;
  Pos pos;
  // NOLINTNEXTLINE(misc-unconventional-assign-operator,
  // cppcoreguidelines-c-copy-assignment-signature)
  POLYHE_HD void operator=(std::uint64_t v) const { store.put(pos, v); }
};

POLYHE_HD inline SubScaleStore::Slot SubScaleStore::operator()(Pos pos) const {
  return {*this, pos};
}

/// The forward column pass (ColumnNtt's, stages [0, log_n1)) of the lifts: grid row b transforms
/// the lift of x's limb b / limbs (modulo p, or modulo x_moduli[b / limbs] when that is set) to
/// buffer limb t = b % limbs into dst's limb b. Buffer limb t is ring limb t for t < q_limbs and
/// p_first + (t − q_limbs) above (the Q_l ∪ P layout of key switching; q_limbs = limbs for plain
/// ring limbs 0 … limbs − 1). policies[t] transforms buffer limb t. With kScaled every lift is
/// multiplied by factors[ring limb] first.
template <class P, int RMAX, bool kScaled = false>
struct LiftColumnNtt {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;                           // per buffer limb, limbs of them
  const WideBarrett* wide;                     // per ring limb (all of the ring's)
  const std::uint64_t* x;                      // parts limbs
  std::uint64_t p;                             // their modulus, unless x_moduli
  const LimbModulus<std::uint64_t>* x_moduli;  // or per part (ModUp: x's limb j mod q_j)
  std::uint64_t* dst;                          // parts·limbs limbs
  unsigned log_n1;
  unsigned log_n2;
  unsigned log_width;
  unsigned limbs;
  unsigned q_limbs;
  unsigned p_first;
  unsigned parts;
  unsigned threads;
  const ShoupOperand<std::uint64_t>* factors = nullptr;  // per ring limb, read when kScaled

  [[nodiscard]] POLYHE_HD Passes passes() const { return {0, log_n1, RMAX}; }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << (log_n2 - log_width), limbs * parts,
            (std::size_t{1} << (log_n1 + log_width)) * sizeof(std::uint64_t)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return passes().count(); }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const unsigned part = t.batch / limbs;
    const unsigned limb = t.batch - part * limbs;
    const unsigned ring_limb = limb < q_limbs ? limb : p_first + (limb - q_limbs);
    const P pol = policies[limb];
    const unsigned log_n = log_n1 + log_n2;
    const Pos width = Pos{1} << log_width;
    const Pos c0 = static_cast<Pos>(t.block) << log_width;
    const ColumnTile<std::uint64_t> tile{static_cast<std::uint64_t*>(shared), c0, log_n2,
                                         log_width};
    LiftLoad<kScaled> load{x + (static_cast<std::size_t>(part) << log_n),
                           x_moduli != nullptr ? x_moduli[part].q : p,
                           wide[ring_limb],
                           {}};
    if constexpr (kScaled) load.factor = factors[ring_limb];
    const Passes ps = passes();
    const int r = ps.stages(phase);
    const unsigned s0 = ps.first(phase);
    // The lift is the first pass's load, device memory the last pass's store (Either).
    const Either<LiftLoad<kScaled>, ColumnTile<std::uint64_t>> in{load, tile, phase != 0};
    const Either<Linear<std::uint64_t>, ColumnTile<std::uint64_t>> out{
        {dst + (static_cast<std::size_t>(t.batch) << log_n), 0}, tile, phase + 1 != ps.count()};
    const unsigned log_te1 = log_n1 - s0 - static_cast<unsigned>(r);  // log2(te / n2)
    const Pos groups = (Pos{1} << (log_n1 - static_cast<unsigned>(r))) << log_width;
    for (Pos g = t.thread; g < groups; g += threads) {
      const Pos col = c0 + (g & (width - 1));
      const Pos jg = g >> log_width;
      const Pos rem = ((jg & ((Pos{1} << log_te1) - 1)) << log_n2) + col;
      ct_group_any<RMAX, std::uint64_t>(r, pol, in, out, s0, log_te1 + log_n2, jg >> log_te1, rem,
                                        false);
    }
  }
};

/// The forward row pass (RowNtt's, stages [log_n1, log_n)) of LiftColumnNtt's output `src`, its
/// last store c_j = (a_j − ·)·s_j (or c_j += that) into part b / limbs, limb b % limbs.
template <class P, int RMAX>
struct SubScaleRowNtt {
  static constexpr unsigned kMinBlocks = program_min_blocks(RMAX);
  const P* policies;  // per ring limb
  const LimbModulus<std::uint64_t>* moduli;
  const ShoupOperand<std::uint64_t>* scalars;  // s_j per ring limb
  const std::uint64_t* src;                    // parts·limbs limbs
  const std::uint64_t* a[kBatchPointers];      // per part, limbs limbs
  std::uint64_t* c[kBatchPointers];            // per part, limbs limbs; may be a's
  unsigned log_n1;
  unsigned log_n2;
  unsigned limbs;
  unsigned parts;
  unsigned threads;
  bool accumulate;

  [[nodiscard]] POLYHE_HD Passes passes() const { return {log_n1, log_n1 + log_n2, RMAX}; }
  [[nodiscard]] LaunchShape shape() const {
    return {threads, 1u << log_n1, limbs * parts,
            (std::size_t{1} << log_n2) * sizeof(std::uint64_t)};
  }
  [[nodiscard]] POLYHE_HD unsigned phases() const { return passes().count(); }

  POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const {
    const unsigned part = t.batch / limbs;
    const unsigned limb = t.batch - part * limbs;
    const P pol = policies[limb];
    const unsigned log_n = log_n1 + log_n2;
    const Pos row0 = static_cast<Pos>(t.block) << log_n2;
    const Linear<std::uint64_t> sm{static_cast<std::uint64_t*>(shared), row0};
    const Passes ps = passes();
    const Either<Linear<std::uint64_t>, Linear<std::uint64_t>> in{
        {const_cast<std::uint64_t*>(src) + (static_cast<std::size_t>(t.batch) << log_n), 0},
        sm,
        phase != 0};
    const bool final = phase + 1 == ps.count();
    const int r = ps.stages(phase);
    const unsigned s0 = ps.first(phase);
    const unsigned log_te = log_n - s0 - static_cast<unsigned>(r);
    const unsigned log_groups = log_n2 - static_cast<unsigned>(r);
    const Pos groups = Pos{1} << log_groups;
    const Pos g0 = static_cast<Pos>(t.block) << log_groups;
    const std::size_t limb_off = static_cast<std::size_t>(limb) << log_n;
    const Either<SubScaleStore, Linear<std::uint64_t>> out{
        {pick(a, part) + limb_off, pick(c, part) + limb_off, scalars[limb], moduli[limb].q,
         accumulate},
        sm,
        !final};
    for (Pos g = t.thread; g < groups; g += threads) {
      const Pos gg = g0 + g;
      ct_group_any<RMAX, std::uint64_t>(r, pol, in, out, s0, log_te, gg >> log_te,
                                        gg & ((Pos{1} << log_te) - 1), final);
    }
  }
};

}  // namespace polyhe::cuda::detail
