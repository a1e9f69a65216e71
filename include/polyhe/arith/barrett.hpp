// Barrett reduction: the classical algorithm and two Dhem–Quisquater instantiations.
//
// All three reduce a double-word x < 2^(2m), m = len(q), to x mod q with one multiplication by a
// precomputed µ and one by q. They differ in how far the quotient estimate can be off, hence in
// how many correcting subtractions they need, and in how large q may be for µ to fit a word.
// The `_steps` forms also report the number of corrections used (for the statistics in
// docs/bench/reduction-corrections.md); the compiler drops that count where it is unused. µ must
// fit a word: Modulus also refuses the one q at each algorithm's top length where it would not
// (q = 2^(m−1), a power of two).
#pragma once

#include "polyhe/arith/word.hpp"

namespace polyhe {

template <Word W>
struct ReduceSteps {
  W value;
  int corrections;
};

/// ⌊x / 2^s⌋ for 0 ≤ s < β when the quotient fits a word: one funnel shift, never a
/// double-word shift by a run-time count.
template <Word W>
POLYHE_HD constexpr W shift_right_to_word(Wide<W> x, int s) {
  if constexpr (sizeof(W) == 8) {
    const W lo = static_cast<W>(x);
    const W hi = static_cast<W>(x >> 64);
    return (lo >> s) | ((hi << 1) << (63 - s));
  } else {
    return static_cast<W>(x >> s);
  }
}

/// ⌊c·µ / 2^s⌋ as hi((c << pre)·µ) >> post, exact because multiplying by 2^pre before the floor
/// and dividing by 2^post after it compose to one floor. Requires c << pre < 2^β.
template <Word W>
POLYHE_HD constexpr W barrett_quotient(W c, W mu, int pre, int post) {
  return mul_hi(static_cast<W>(c << pre), mu) >> post;
}

/// Constants of the classical Barrett reduction ([GPU-Polymul, Alg. 2]): µ = ⌊2^(2m) / q⌋.
template <Word W>
struct BarrettClassical {
  W q;
  W mu;
  int m;     // len(q)
  int pre;   // the quotient ⌊c·µ / 2^s⌋ is computed as ⌊hi((c << pre)·µ) / 2^post⌋,
  int post;  // pre = max(0, β − s), post = max(0, s − β): word-sized operands only
};

/// Constants of Dhem–Quisquater's Barrett ([GPU-Polymul, Alg. 3], PALISADE's form):
/// µ = ⌊2^(2m+3) / q⌋.
template <Word W>
struct BarrettDQ {
  W q;
  W mu;
  int m;     // len(q)
  int pre;   // the quotient ⌊c·µ / 2^s⌋ is computed as ⌊hi((c << pre)·µ) / 2^post⌋,
  int post;  // pre = max(0, β − s), post = max(0, s − β): word-sized operands only
};

/// Constants of the one-correction Barrett of [GPU-Polymul, Alg. 4]: µ = ⌊2^(2m+1) / q⌋.
template <Word W>
struct BarrettAlg4 {
  W q;
  W mu;
  int m;     // len(q)
  int pre;   // the quotient ⌊c·µ / 2^s⌋ is computed as ⌊hi((c << pre)·µ) / 2^post⌋,
  int post;  // pre = max(0, β − s), post = max(0, s − β): word-sized operands only
};

/// Classical Barrett ([GPU-Polymul, Alg. 2]). Requires len(q) = m ≤ β−2, 0 ≤ x < 2^(2m).
/// quot = ⌊⌊x / 2^(m−1)⌋ · µ / 2^(m+1)⌋ underestimates ⌊x/q⌋ by at most 2, so up to two
/// corrections (the paper quotes Barrett's ~1% for the second; measured by
/// bench/reduction_stats.cpp on products a·b, a, b < q: at most 0.21%, and up to 9.5% on uniform
/// x < 2^(2m)). Output in [0, q).
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> barrett_classical_steps(Wide<W> x,
                                                           const BarrettClassical<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 1);  // < 2^(m+1)
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  W rem = static_cast<W>(x) - quot * c.q;  // < 3q < 2^β: exact in one word
  int corrections = 0;
  if (rem >= c.q) {
    rem -= c.q;
    ++corrections;
  }
  if (rem >= c.q) {
    rem -= c.q;
    ++corrections;
  }
  return {rem, corrections};
}

template <Word W>
POLYHE_HD constexpr W barrett_classical_reduce(Wide<W> x, const BarrettClassical<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 1);
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  W rem = static_cast<W>(x) - quot * c.q;
  rem -= c.q & (W{0} - static_cast<W>(rem >= c.q));
  rem -= c.q & (W{0} - static_cast<W>(rem >= c.q));
  return rem;
}

/// Dhem–Quisquater Barrett ([GPU-Polymul, Alg. 3]). Requires len(q) = m ≤ β−4, 0 ≤ x < 2^(2m).
/// The estimate is off by at most 1: one correction. Output in [0, q).
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> barrett_dq_steps(Wide<W> x, const BarrettDQ<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 2);  // < 2^(m+2)
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  W rem = static_cast<W>(x) - quot * c.q;  // < 2q
  int corrections = 0;
  if (rem >= c.q) {
    rem -= c.q;
    ++corrections;
  }
  return {rem, corrections};
}

template <Word W>
POLYHE_HD constexpr W barrett_dq_reduce(Wide<W> x, const BarrettDQ<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 2);
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  const W rem = static_cast<W>(x) - quot * c.q;
  return rem - (c.q & (W{0} - static_cast<W>(rem >= c.q)));
}

/// The one-correction Barrett of [GPU-Polymul, Alg. 4] (Dhem–Quisquater with α = m+1, β = −2).
/// Requires 2 ≤ len(q) = m ≤ β−2, 0 ≤ x < 2^(2m). With c = ⌊x/2^(m−2)⌋ and µ = ⌊2^(2m+1)/q⌋,
///   c·µ/2^(m+3) ≥ x/q − x/2^(2m+1) − 2^(m−2)/q > x/q − 1,
/// so quot ≥ ⌊x/q⌋ − 1 and one correction suffices. Output in [0, q).
template <Word W>
POLYHE_HD constexpr ReduceSteps<W> barrett_alg4_steps(Wide<W> x, const BarrettAlg4<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 2);  // < 2^(m+2)
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  W rem = static_cast<W>(x) - quot * c.q;  // < 2q
  int corrections = 0;
  if (rem >= c.q) {
    rem -= c.q;
    ++corrections;
  }
  return {rem, corrections};
}

template <Word W>
POLYHE_HD constexpr W barrett_alg4_reduce(Wide<W> x, const BarrettAlg4<W>& c) {
  const W hi = shift_right_to_word<W>(x, c.m - 2);
  const W quot = barrett_quotient(hi, c.mu, c.pre, c.post);
  const W rem = static_cast<W>(x) - quot * c.q;
  return rem - (c.q & (W{0} - static_cast<W>(rem >= c.q)));
}

/// a·b mod q through each reduction. Requires 0 ≤ a, b < q. Output in [0, q).
template <Word W>
POLYHE_HD constexpr W mul_mod(W a, W b, const BarrettClassical<W>& c) {
  return barrett_classical_reduce(mul_wide(a, b), c);
}
template <Word W>
POLYHE_HD constexpr W mul_mod(W a, W b, const BarrettDQ<W>& c) {
  return barrett_dq_reduce(mul_wide(a, b), c);
}
template <Word W>
POLYHE_HD constexpr W mul_mod(W a, W b, const BarrettAlg4<W>& c) {
  return barrett_alg4_reduce(mul_wide(a, b), c);
}

}  // namespace polyhe
