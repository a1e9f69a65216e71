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

/// ⌊w·2^β / q⌋ for many w < q under one q, a multiplication each instead of a double-word division
/// (the twiddle tables of an NTT plan: 2N companions per prime). With m = ⌊(2^2β − 1)/q⌋, found
/// once, e = ⌊w·m / 2^β⌋ = w·hi(m) + hi(w·lo(m)) is at most 2 below the quotient, and
/// r = w·2^β − e·q < 3q fits a word when len(q) ≤ β − 2, so at most two corrections make it exact.
/// Wider q (β − 1 bits) takes the division. Host only.
template <Word W>
class ShoupQuotient {
 public:
  explicit constexpr ShoupQuotient(W q) : q_(q), divide_(bit_length(q) > word_bits<W> - 2) {
    const Wide<W> m = ~Wide<W>{0} / q;
    m_hi_ = static_cast<W>(m >> word_bits<W>);
    m_lo_ = static_cast<W>(m);
  }
  /// ⌊w·2^β / q⌋ for 0 ≤ w < q.
  [[nodiscard]] constexpr W operator()(W w) const {
    if (divide_) return make_shoup(w, q_).w_shoup;
    W e = static_cast<W>(w * m_hi_ + mul_hi(w, m_lo_));
    W r = static_cast<W>(W{0} - static_cast<W>(e * q_));  // w·2^β − e·q, exact: it is < 3q
    while (r >= q_) {
      ++e;
      r -= q_;
    }
    return e;
  }
  [[nodiscard]] constexpr ShoupOperand<W> operand(W w) const { return {w, (*this)(w)}; }

 private:
  W q_;
  bool divide_;
  W m_hi_ = 0;
  W m_lo_ = 0;
};

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
