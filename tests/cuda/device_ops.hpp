// One catalogue operation per functor, applied to one lane of inputs, for host and device alike.
//
// test_arith_device.cpp runs each functor on the host (compiled by the host compiler, as the CPU
// library is) and, through run_on_device (device_ops.cu), in a kernel; the two must agree bit
// for bit. A functor holds only the POD constants of its reduction (BarrettAlg4<W>, ...), so it
// travels to the kernel by value. What the four inputs and three outputs of a lane mean is the
// functor's to say; unused outputs are 0.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/butterfly.hpp"
#include "polyhe/arith/montgomery.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::test {

template <Word W>
struct In {
  W a, b, c, d;
};

template <Word W>
struct Out {
  W r0, r1, r2;
};

/// The double word hi·2^β + lo.
template <Word W>
POLYHE_HD constexpr Wide<W> join(W hi, W lo) {
  return (static_cast<Wide<W>>(hi) << word_bits<W>) | lo;
}

// --- Additions (add.hpp) -----------------------------------------------------------------------

/// a, b < q → (add_mod, sub_mod).
template <Word W>
struct AddSubModOp {
  using word = W;
  W q;
  POLYHE_HD Out<W> operator()(In<W> x) const {
    return {add_mod(x.a, x.b, q), sub_mod(x.a, x.b, q), 0};
  }
};

/// a < q → neg_mod.
template <Word W>
struct NegModOp {
  using word = W;
  W q;
  POLYHE_HD Out<W> operator()(In<W> x) const { return {neg_mod(x.a, q), 0, 0}; }
};

/// a, b < 2^len(q), len(q) ≤ β−2 → (add_lazy_ct, sub_lazy_ct).
template <Word W>
struct LazyAddSubOp {
  using word = W;
  W q;
  POLYHE_HD Out<W> operator()(In<W> x) const {
    return {add_lazy_ct(x.a, x.b, q), sub_lazy_ct(x.a, x.b, q), 0};
  }
};

/// a < 2q, q odd → halve_mod.
template <Word W>
struct HalveModOp {
  using word = W;
  W q;
  POLYHE_HD Out<W> operator()(In<W> x) const { return {halve_mod(x.a, q), 0, 0}; }
};

// --- Double-word reductions (barrett.hpp, montgomery.hpp) --------------------------------------

template <Word W>
POLYHE_HD constexpr W reduce_with(Wide<W> x, const BarrettClassical<W>& c) {
  return barrett_classical_reduce(x, c);
}
template <Word W>
POLYHE_HD constexpr W reduce_with(Wide<W> x, const BarrettDQ<W>& c) {
  return barrett_dq_reduce(x, c);
}
template <Word W>
POLYHE_HD constexpr W reduce_with(Wide<W> x, const BarrettAlg4<W>& c) {
  return barrett_alg4_reduce(x, c);
}
template <Word W>
POLYHE_HD constexpr W reduce_with(Wide<W> x, const Montgomery<W>& c) {
  return montgomery_reduce(x, c);
}
template <Word W>
POLYHE_HD constexpr W reduce_with(Wide<W> x, const MontgomeryNtt<W>& c) {
  return montgomery_ntt_reduce(x, c);
}

template <Word W>
POLYHE_HD constexpr ReduceSteps<W> steps_with(Wide<W> x, const BarrettClassical<W>& c) {
  return barrett_classical_steps(x, c);
}
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> steps_with(Wide<W> x, const BarrettDQ<W>& c) {
  return barrett_dq_steps(x, c);
}
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> steps_with(Wide<W> x, const BarrettAlg4<W>& c) {
  return barrett_alg4_steps(x, c);
}
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> steps_with(Wide<W> x, const Montgomery<W>& c) {
  return montgomery_steps(x, c);
}
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> steps_with(Wide<W> x, const MontgomeryNtt<W>& c) {
  return montgomery_ntt_steps(x, c);
}

/// x = join(a, b) within the reduction's input range → (reduce, steps value, steps corrections).
template <Word W, class C>
struct ReduceOp {
  using word = W;
  C c;
  POLYHE_HD Out<W> operator()(In<W> x) const {
    const Wide<W> t = join(x.a, x.b);
    const ReduceSteps<W> s = steps_with<W>(t, c);
    return {reduce_with<W>(t, c), s.value, static_cast<W>(s.corrections)};
  }
};

/// a, b < q → (mul_mod, and for the Montgomery forms their one-reduction product a·b·R^−1).
template <Word W, class C>
struct MulModOp {
  using word = W;
  C c;
  POLYHE_HD Out<W> operator()(In<W> x) const {
    W raw = 0;
    if constexpr (std::is_same_v<C, Montgomery<W>>) raw = montgomery_mul(x.a, x.b, c);
    if constexpr (std::is_same_v<C, MontgomeryNtt<W>>) raw = montgomery_ntt_mul(x.a, x.b, c);
    return {mul_mod(x.a, x.b, c), raw, 0};
  }
};

template <Word W>
using BarrettClassicalReduceOp = ReduceOp<W, BarrettClassical<W>>;
template <Word W>
using BarrettDQReduceOp = ReduceOp<W, BarrettDQ<W>>;
template <Word W>
using BarrettAlg4ReduceOp = ReduceOp<W, BarrettAlg4<W>>;
template <Word W>
using MontgomeryReduceOp = ReduceOp<W, Montgomery<W>>;
template <Word W>
using MontgomeryNttReduceOp = ReduceOp<W, MontgomeryNtt<W>>;
template <Word W>
using BarrettClassicalMulOp = MulModOp<W, BarrettClassical<W>>;
template <Word W>
using BarrettDQMulOp = MulModOp<W, BarrettDQ<W>>;
template <Word W>
using BarrettAlg4MulOp = MulModOp<W, BarrettAlg4<W>>;
template <Word W>
using MontgomeryMulOp = MulModOp<W, Montgomery<W>>;
template <Word W>
using MontgomeryNttMulOp = MulModOp<W, MontgomeryNtt<W>>;

// --- Shoup (shoup.hpp) -------------------------------------------------------------------------

/// a any word, (b, c) = (w, w') with w < q → (mul_shoup, mul_shoup_lazy).
template <Word W>
struct MulShoupOp {
  using word = W;
  W q;
  POLYHE_HD Out<W> operator()(In<W> x) const {
    const ShoupOperand<W> w{x.b, x.c};
    return {mul_shoup(x.a, w, q), mul_shoup_lazy(x.a, w, q), 0};
  }
};

// --- Butterfly policies (arith/butterfly.hpp) ----------------------------------------------------

/// Points a policy's forward and inverse tables at one twiddle (and its companion), so that
/// fwd_tw(0) and inv_tw(0) read it through the policy's own accessors. On the device the twiddle
/// must lie in global memory, as a ring's tables do (the accessors read through `__ldg`, which a
/// local copy faults with cudaErrorInvalidAddressSpace): the ops take their input by reference,
/// and apply_kernel passes the element of the uploaded array.
template <Word W>
POLYHE_HD void bind_twiddle(ReferenceButterfly<W>& p, const W* w, const W*) {
  p.fwd = w;
  p.inv = w;
}
template <Word W>
POLYHE_HD void bind_twiddle(ShoupLazyButterfly<W>& p, const W* w, const W* aux) {
  p.fwd = w;
  p.fwd_shoup = aux;
  p.inv = w;
  p.inv_shoup = aux;
}
template <Word W, class R>
POLYHE_HD void bind_twiddle(ReducedButterfly<W, R>& p, const W* w, const W* aux) {
  p.fwd = w;
  p.fwd_aux = aux;
  p.inv = w;
  p.inv_aux = aux;
}

/// (x, y) = (a, b) in the policy's CT input range, twiddle (c, d) → (x, y) after ct.
template <Word W, class P>
struct CtOp {
  using word = W;
  P policy;
  POLYHE_HD Out<W> operator()(const In<W>& in) const {
    P p = policy;
    bind_twiddle(p, &in.c, &in.d);
    W x = in.a;
    W y = in.b;
    p.ct(x, y, p.fwd_tw(0));
    return {x, y, 0};
  }
};

/// (x, y) = (a, b) in the policy's GS input range, twiddle (c, d) → (x, y) after gs.
template <Word W, class P>
struct GsOp {
  using word = W;
  P policy;
  POLYHE_HD Out<W> operator()(const In<W>& in) const {
    P p = policy;
    bind_twiddle(p, &in.c, &in.d);
    W x = in.a;
    W y = in.b;
    p.gs(x, y, p.inv_tw(0));
    return {x, y, 0};
  }
};

/// a, b < q, twiddle (c, d) → (mul, mul_tw, fwd_out(inv_out(a))).
template <Word W, class P>
struct PolicyMulOp {
  using word = W;
  P policy;
  POLYHE_HD Out<W> operator()(const In<W>& in) const {
    P p = policy;
    bind_twiddle(p, &in.c, &in.d);
    return {p.mul(in.a, in.b), p.mul_tw(in.a, p.fwd_tw(0)), p.fwd_out(p.inv_out(in.a))};
  }
};

/// Harvey's range corrections: a < 4q, b < 2q → (fwd_out(a), inv_out(b)).
template <Word W>
struct LazyOutOp {
  using word = W;
  ShoupLazyButterfly<W> policy;
  POLYHE_HD Out<W> operator()(In<W> in) const {
    return {policy.fwd_out(in.a), policy.inv_out(in.b), 0};
  }
};

template <Word W>
using ClassicalButterfly = ReducedButterfly<W, PlainTwiddleReduction<W, BarrettClassical<W>>>;
template <Word W>
using DQButterfly = ReducedButterfly<W, PlainTwiddleReduction<W, BarrettDQ<W>>>;
template <Word W>
using Alg4Butterfly = ReducedButterfly<W, PlainTwiddleReduction<W, BarrettAlg4<W>>>;
template <Word W>
using MontgomeryButterfly = ReducedButterfly<W, MontgomeryReduction<W>>;
template <Word W>
using MontgomeryNttButterfly = ReducedButterfly<W, MontgomeryNttReduction<W>>;
template <Word W>
using ShoupButterfly = ReducedButterfly<W, ShoupReduction<W>>;

#define POLYHE_TEST_POLICY_OPS(Policy)   \
  template <Word W>                      \
  using Ct##Policy = CtOp<W, Policy<W>>; \
  template <Word W>                      \
  using Gs##Policy = GsOp<W, Policy<W>>; \
  template <Word W>                      \
  using Mul##Policy = PolicyMulOp<W, Policy<W>>;
POLYHE_TEST_POLICY_OPS(ReferenceButterfly)
POLYHE_TEST_POLICY_OPS(ShoupLazyButterfly)
POLYHE_TEST_POLICY_OPS(ClassicalButterfly)
POLYHE_TEST_POLICY_OPS(DQButterfly)
POLYHE_TEST_POLICY_OPS(Alg4Butterfly)
POLYHE_TEST_POLICY_OPS(MontgomeryButterfly)
POLYHE_TEST_POLICY_OPS(MontgomeryNttButterfly)
POLYHE_TEST_POLICY_OPS(ShoupButterfly)
#undef POLYHE_TEST_POLICY_OPS

/// Every functor above, as a template over the word; device_ops.cu instantiates run_on_device
/// for each, for both words.
#define POLYHE_TEST_DEVICE_OPS(X)                                                                 \
  X(AddSubModOp)                                                                                  \
  X(NegModOp) X(LazyAddSubOp) X(HalveModOp) X(BarrettClassicalReduceOp) X(BarrettDQReduceOp)      \
      X(BarrettAlg4ReduceOp) X(MontgomeryReduceOp) X(MontgomeryNttReduceOp)                       \
          X(BarrettClassicalMulOp) X(BarrettDQMulOp) X(BarrettAlg4MulOp) X(MontgomeryMulOp)       \
              X(MontgomeryNttMulOp) X(MulShoupOp) X(LazyOutOp) X(CtReferenceButterfly)            \
                  X(GsReferenceButterfly) X(MulReferenceButterfly) X(CtShoupLazyButterfly)        \
                      X(GsShoupLazyButterfly) X(MulShoupLazyButterfly) X(CtClassicalButterfly)    \
                          X(GsClassicalButterfly) X(MulClassicalButterfly) X(CtDQButterfly)       \
                              X(GsDQButterfly) X(MulDQButterfly) X(CtAlg4Butterfly)               \
                                  X(GsAlg4Butterfly) X(MulAlg4Butterfly) X(CtMontgomeryButterfly) \
                                      X(GsMontgomeryButterfly) X(MulMontgomeryButterfly)          \
                                          X(CtMontgomeryNttButterfly) X(GsMontgomeryNttButterfly) \
                                              X(MulMontgomeryNttButterfly) X(CtShoupButterfly)    \
                                                  X(GsShoupButterfly) X(MulShoupButterfly)

/// Applies op to every lane on the current CUDA device and returns the outputs. Throws
/// DeviceError naming the CUDA call that failed.
template <class Op>
std::vector<Out<typename Op::word>> run_on_device(const Op& op,
                                                  const std::vector<In<typename Op::word>>& in);

}  // namespace polyhe::test
