// Montgomery reduction: the word-level algorithm, and the variant for NTT-friendly primes.
#pragma once

#include "polyhe/arith/barrett.hpp"  // ReduceSteps
#include "polyhe/arith/word.hpp"

namespace polyhe {

/// Constants of word-level Montgomery reduction with R = 2^β ([FPGA-FV, Alg. 4]).
template <Word W>
struct Montgomery {
  W q;
  W q_inv;  // q^−1 mod 2^β
  W r2;     // R² mod q, to enter the Montgomery domain: redc(a·r2) = a·R mod q
};

/// REDC(T) = T·R^−1 mod q with R = 2^β. Requires q odd and 0 ≤ T < q·2^β.
/// With m = (T mod R)·q^−1 mod R, T − m·q is divisible by R and their low words agree, so
/// (T − m·q)/R = hi(T) − hi(m·q) ∈ (−q, q): one conditional addition of q. Output in [0, q).
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> montgomery_steps(Wide<W> t, const Montgomery<W>& c) {
  const W m = static_cast<W>(t) * c.q_inv;
  const W t_hi = static_cast<W>(t >> word_bits<W>);
  const W mq_hi = mul_hi(m, c.q);
  const W r = t_hi - mq_hi;
  if (t_hi < mq_hi) return {static_cast<W>(r + c.q), 1};
  return {r, 0};
}

template <Word W>
POLYHE_HD constexpr W montgomery_reduce(Wide<W> t, const Montgomery<W>& c) {
  const W m = static_cast<W>(t) * c.q_inv;
  const W t_hi = static_cast<W>(t >> word_bits<W>);
  const W mq_hi = mul_hi(m, c.q);
  return (t_hi - mq_hi) + (c.q & (W{0} - static_cast<W>(t_hi < mq_hi)));
}

/// a·b·R^−1 mod q. Requires q odd, 0 ≤ a, b < q (or just a·b < q·2^β). Output in [0, q).
template <Word W>
POLYHE_HD constexpr W montgomery_mul(W a, W b, const Montgomery<W>& c) {
  return montgomery_reduce(mul_wide(a, b), c);
}

/// a·b mod q for plain (non-Montgomery) a, b: two reductions, the second by R² mod q.
template <Word W>
POLYHE_HD constexpr W mul_mod(W a, W b, const Montgomery<W>& c) {
  return montgomery_reduce(mul_wide(montgomery_reduce(mul_wide(a, b), c), c.r2), c);
}

/// Constants of the Montgomery variant for NTT-friendly primes q = qH·2^k + 1
/// ([FPGA-FV, Alg. 5]). Since q ≡ 1 mod 2^k, −q^−1 ≡ −1 mod 2^k: each step needs no multiplication
/// to find m, only the k-bit two's complement of the low bits. r = ⌈len(q)/k⌉ steps of k bits
/// divide by R = 2^(r·k) ≥ 2^len(q) > q.
template <Word W>
struct MontgomeryNtt {
  W q;
  W q_hi;      // qH = (q − 1) / 2^k
  int k;       // the 2-adic valuation of q − 1
  int rounds;  // r = ⌈len(q) / k⌉
  W r2;        // R² mod q with R = 2^(r·k)
};

/// T·2^(−r·k) mod q. Requires q = qH·2^k + 1, 0 ≤ T < q². Each round computes
/// T ← ⌊T/2^k⌋ + qH·m + [T mod 2^k ≠ 0] with m = −T mod 2^k, which is exactly (T + m·q)/2^k;
/// after r rounds T < q + q(q−1)/2^(rk) < 2q: one correction. Output in [0, q).
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> montgomery_ntt_steps(Wide<W> t, const MontgomeryNtt<W>& c) {
  const W mask = (W{1} << c.k) - 1;
  for (int i = 0; i < c.rounds; ++i) {
    const W low = static_cast<W>(t) & mask;
    const W m = (W{0} - low) & mask;
    const W carry = static_cast<W>(low != 0);
    t = (t >> c.k) + mul_wide(c.q_hi, m) + carry;
  }
  const W r = static_cast<W>(t);
  if (r >= c.q) return {static_cast<W>(r - c.q), 1};
  return {r, 0};
}

template <Word W>
POLYHE_HD constexpr W montgomery_ntt_reduce(Wide<W> t, const MontgomeryNtt<W>& c) {
  const W mask = (W{1} << c.k) - 1;
  for (int i = 0; i < c.rounds; ++i) {
    const W low = static_cast<W>(t) & mask;
    const W m = (W{0} - low) & mask;
    t = (t >> c.k) + mul_wide(c.q_hi, m) + static_cast<W>(low != 0);
  }
  const W r = static_cast<W>(t);
  return r - (c.q & (W{0} - static_cast<W>(r >= c.q)));
}

template <Word W>
POLYHE_HD constexpr W montgomery_ntt_mul(W a, W b, const MontgomeryNtt<W>& c) {
  return montgomery_ntt_reduce(mul_wide(a, b), c);
}

template <Word W>
POLYHE_HD constexpr W mul_mod(W a, W b, const MontgomeryNtt<W>& c) {
  return montgomery_ntt_reduce(mul_wide(montgomery_ntt_reduce(mul_wide(a, b), c), c.r2), c);
}

}  // namespace polyhe
