// NttPlan::visit: builds the butterfly policy of a variant over the plan's tables and hands it
// to a callable. Include this where a transform schedule is instantiated.
#pragma once

#include "polyhe/arith/butterfly.hpp"
#include "polyhe/ntt/plan.hpp"

namespace polyhe {

template <Word W>
template <class F>
void NttPlan<W>::visit(NttVariant v, F&& f) const {
  require(v);
  const W q = modulus_.value();
  switch (v) {
    case NttVariant::reference: f(ReferenceButterfly<W>{fwd_.data(), inv_.data(), q}); return;
    case NttVariant::shoup_lazy:
      f(ShoupLazyButterfly<W>{fwd_.data(), fwd_shoup_.data(), inv_half_.data(),
                              inv_half_shoup_.data(), q, modulus_.barrett_alg4()});
      return;
    case NttVariant::shoup:
      f(ReducedButterfly<W, ShoupReduction<W>>{fwd_.data(), fwd_shoup_.data(), inv_half_.data(),
                                               inv_half_shoup_.data(), q,
                                               ShoupReduction<W>{modulus_.barrett_alg4(), q}});
      return;
    case NttVariant::barrett_classical:
      f(ReducedButterfly<W, PlainTwiddleReduction<W, BarrettClassical<W>>>{
          fwd_.data(), nullptr, inv_half_.data(), nullptr, q, {modulus_.barrett_classical()}});
      return;
    case NttVariant::barrett_dq:
      f(ReducedButterfly<W, PlainTwiddleReduction<W, BarrettDQ<W>>>{
          fwd_.data(), nullptr, inv_half_.data(), nullptr, q, {modulus_.barrett_dq()}});
      return;
    case NttVariant::barrett_alg4:
      f(ReducedButterfly<W, PlainTwiddleReduction<W, BarrettAlg4<W>>>{
          fwd_.data(), nullptr, inv_half_.data(), nullptr, q, {modulus_.barrett_alg4()}});
      return;
    case NttVariant::montgomery:
      f(ReducedButterfly<W, MontgomeryReduction<W>>{
          fwd_mont_.data(), nullptr, inv_half_mont_.data(), nullptr, q, {modulus_.montgomery()}});
      return;
    case NttVariant::montgomery_ntt:
      f(ReducedButterfly<W, MontgomeryNttReduction<W>>{fwd_mntt_.data(),
                                                       nullptr,
                                                       inv_half_mntt_.data(),
                                                       nullptr,
                                                       q,
                                                       {modulus_.montgomery_ntt()}});
      return;
  }
}

}  // namespace polyhe
