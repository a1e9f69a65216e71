// Shoup multiplication by a precomputed operand.
#pragma once

#include "polyhe/arith/word.hpp"

namespace polyhe {

/// A constant w < q kept together with w' = ⌊w·2^β / q⌋ (as SEAL's MultiplyUIntModOperand).
template <Word W>
struct ShoupOperand {
  W w;
  W w_shoup;
};

/// w' = ⌊w·2^β / q⌋ for 0 ≤ w < q. Host only (a double-word division).
template <Word W>
constexpr ShoupOperand<W> make_shoup(W w, W q) {
  return {w, static_cast<W>((static_cast<Wide<W>>(w) << word_bits<W>) / q)};
}

/// a·w mod q up to one q: with Q = hi(a·w'), r = a·w − Q·q lies in [0, 2q) for every
/// 0 ≤ a < 2^β. Requires len(q) ≤ β−1 and w < q. Output in [0, 2q).
template <Word W>
POLYHE_HD constexpr W mul_shoup_lazy(W a, ShoupOperand<W> w, W q) {
  const W quot = mul_hi(a, w.w_shoup);
  return a * w.w - quot * q;
}

/// a·w mod q. Same preconditions; output in [0, q).
template <Word W>
POLYHE_HD constexpr W mul_shoup(W a, ShoupOperand<W> w, W q) {
  const W r = mul_shoup_lazy(a, w, q);
  return r - (q & (W{0} - static_cast<W>(r >= q)));
}

}  // namespace polyhe
