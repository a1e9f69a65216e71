// Polynomials of encrypted CKKS slots: a Chebyshev series on an interval [a, b] or a power
// series, evaluated slot by slot in the optimal depth ⌈log2(d + 1)⌉ (one more for the affine map
// onto [−1, 1] when [a, b] is another interval), with the result at exactly the scale asked for.
//
// The evaluation divides p by the largest giant power T_n (n = k·2^m ≤ deg p, k the baby-step
// count), p = q·T_n + r, and recurses on q and r; leaves of degree < k are sums of constants
// times the baby powers T_1 … T_{k−1}. With k = 2 every leaf is c_1·T_1 + c_0 and the depth is
// optimal: the leaf takes one level, T_{2^j} takes j, and each division adds one to the deeper of
// q and T_n. Larger k do fewer ciphertext products (about k + d/k instead of d/2) and often cost
// one more level (a leaf's constants meet T_{k−1}, already at depth log2 k), but not for every
// degree: 27 takes 5 levels with k = 2, 4 or 8 (17, 11 and 11 products), 145 takes 8 with k = 2
// to 16 (79 to 27 for a dense series). The default picks, for the series at hand, the k with the
// fewest products among those of the optimal depth.
//
// Scales: every constant is encoded at the scale that makes its product, once rescaled, land on
// the scale its sum needs (Lattigo's and Bossuat et al.'s way), so the result has exactly the
// target scale whatever the primes, and evaluations chained level after level do not drift.
// Chebyshev division by T_n (deg p < 2n): q_0 = c_n, q_j = 2·c_{n+j}; r_i = c_i, less c_{2n−i}
// for n − deg(q) ≤ i < n; from T_n·T_j = (T_{n+j} + T_{n−j})/2.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "polyhe/ckks/ckks.hpp"

namespace polyhe::ckks {

/// p(x) = Σ c_i·T_i(t), t = (2x − a − b)/(b − a), for x in [a, b].
struct ChebyshevSeries {
  double a = -1.0;
  double b = 1.0;
  std::vector<double> coeffs;  ///< c_0 … c_d

  /// The interpolant of f at the degree + 1 Chebyshev nodes of [a, b] (the first kind: the
  /// series that is near-minimax for smooth f). InvalidParameter: a ≥ b, a non-finite bound or
  /// value of f, degree above kMaxDegree.
  [[nodiscard]] static ChebyshevSeries fit(const std::function<double(double)>& f, double a,
                                           double b, std::size_t degree);
  /// p(x) in double precision (Clenshaw's recurrence).
  [[nodiscard]] double operator()(double x) const;
  /// The index of the last nonzero coefficient (0 for a constant or empty series).
  [[nodiscard]] std::size_t degree() const;
};

/// p(x) = Σ c_i·x^i.
struct PowerSeries {
  std::vector<double> coeffs;  ///< c_0 … c_d
  [[nodiscard]] double operator()(double x) const;
  [[nodiscard]] std::size_t degree() const;
};

/// The largest degree evaluate() takes.
inline constexpr std::size_t kMaxDegree = 1 << 12;

struct PolynomialOptions {
  /// The result's scale (0: the input's).
  double scale = 0;
  /// k, a power of two ≥ 2: the leaves' degree bound (see above). 0: the k with the fewest
  /// ciphertext products among those that keep the optimal depth (k = 2's), the smaller on a tie.
  std::size_t baby_steps = 0;
};

/// The levels evaluate() consumes: ⌈log2(d + 1)⌉ (d ≥ 1; 0 for a constant) with the default or
/// 2 baby steps, one more with a Chebyshev interval other than [−1, 1]; larger baby steps may
/// take one more.
[[nodiscard]] std::size_t depth(const ChebyshevSeries& p, const PolynomialOptions& options = {});
[[nodiscard]] std::size_t depth(const PowerSeries& p, const PolynomialOptions& options = {});

/// The ciphertext products (multiply_relin, each a key switch) evaluate() makes: the powers of
/// the input it builds and one per division by a giant power with a non-constant quotient (the
/// affine map onto [−1, 1] and the constants' products are not counted).
[[nodiscard]] std::size_t products(const ChebyshevSeries& p, const PolynomialOptions& options = {});
[[nodiscard]] std::size_t products(const PowerSeries& p, const PolynomialOptions& options = {});

/// p(x) slot by slot: a ciphertext at x.level() − depth(p), of exactly options.scale (or x's).
/// Needs the relinearisation key (for d ≥ 2). InvalidParameter: a series of no coefficient, a
/// non-finite coefficient, degree above kMaxDegree, fewer levels left than depth(p), a bad
/// baby-step count or scale; the ciphertext of size 2.
[[nodiscard]] Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x,
                                  const ChebyshevSeries& p, const PolynomialOptions& options = {});
[[nodiscard]] Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x, const PowerSeries& p,
                                  const PolynomialOptions& options = {});

}  // namespace polyhe::ckks
