// Modular addition, subtraction, negation and halving.
#pragma once

#include <type_traits>

#include "polyhe/arith/word.hpp"

namespace polyhe {

/// (a + b) mod q — [GPU-Polymul, Alg. 1], written without a branch.
/// Requires 0 ≤ a, b < q and len(q) ≤ β−1. Output in [0, q).
template <Word W>
POLYHE_HD constexpr W add_mod(W a, W b, W q) {
  const W s = a + b;
  return s - (q & (W{0} - static_cast<W>(s >= q)));
}

/// (a − b) mod q. Requires 0 ≤ a, b < q. Output in [0, q).
template <Word W>
POLYHE_HD constexpr W sub_mod(W a, W b, W q) {
  const W d = a - b;
  return d + (q & (W{0} - static_cast<W>(a < b)));
}

/// (−a) mod q. Requires 0 ≤ a < q. Output in [0, q).
template <Word W>
POLYHE_HD constexpr W neg_mod(W a, W q) {
  return (q - a) & (W{0} - static_cast<W>(a != 0));
}

/// The constant-time lazy addition of Mert–Öztürk–Savaş ([FPGA-FV, Alg. 2]): with K = len(q),
/// inputs anywhere in [0, 2^K) and the output in [0, 2^K), congruent to a + b mod q. Computes
/// T1 = a + b, T2 = T1 − q, T3 = T1 − 2q and selects by sign masks, never by a branch.
/// Requires len(q) ≤ β−2 (so T1 < 2^(β−1) and the signed view of T2, T3 is exact).
template <Word W>
POLYHE_HD constexpr W add_lazy_ct(W a, W b, W q) {
  using S = std::make_signed_t<W>;
  constexpr int kSign = word_bits<W> - 1;
  const W t1 = a + b;
  const W t2 = t1 - q;
  const W t3 = t1 - 2 * q;
  const W neg2 = static_cast<W>(static_cast<S>(t2) >> kSign);  // all ones when T2 < 0
  const W neg3 = static_cast<W>(static_cast<S>(t3) >> kSign);
  return (t1 & neg2) | (~neg2 & ((t2 & neg3) | (t3 & ~neg3)));
}

/// The constant-time lazy subtraction ([FPGA-FV, Alg. 3]): inputs in [0, 2^K), output in
/// [0, 2^K), congruent to a − b mod q. T1 = a − b, T2 = T1 + q, T3 = T1 + 2q, selected by sign.
/// Requires len(q) ≤ β−2.
template <Word W>
POLYHE_HD constexpr W sub_lazy_ct(W a, W b, W q) {
  using S = std::make_signed_t<W>;
  constexpr int kSign = word_bits<W> - 1;
  const W t1 = a - b;
  const W t2 = t1 + q;
  const W t3 = t1 + 2 * q;
  const W neg1 = static_cast<W>(static_cast<S>(t1) >> kSign);
  const W neg2 = static_cast<W>(static_cast<S>(t2) >> kSign);
  return (t3 & neg2) | (~neg2 & ((t2 & neg1) | (t1 & ~neg1)));
}

/// x/2 mod q for odd q, without a division or a branch (Zhang et al., as the paper's §III-A
/// uses it to fold 1/N into the inverse NTT): x/2 if x is even, ⌊x/2⌋ + (q+1)/2 if x is odd.
/// Requires q odd, len(q) ≤ β−1, 0 ≤ x < 2q. Output in [0, q) when x < q; in [0, 2q) when x < 2q.
template <Word W>
POLYHE_HD constexpr W halve_mod(W x, W q) {
  return (x >> 1) + (((q >> 1) + 1) & (W{0} - (x & 1)));
}

}  // namespace polyhe
