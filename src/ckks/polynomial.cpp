#include "polyhe/ckks/polynomial.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

namespace {

constexpr std::size_t kNoLevel = std::numeric_limits<std::size_t>::max();  // a constant: no ct
// The smallest scale a power may have: below it the message has fewer bits than the noise.
constexpr double kMinPowerScale = 0x1p20;

enum class Basis { chebyshev, power };

std::size_t last_nonzero(const std::vector<double>& c) {
  std::size_t d = c.size();
  while (d > 1 && c[d - 1] == 0.0) --d;
  return d == 0 ? 0 : d - 1;
}

void check_coefficients(const std::vector<double>& c, const char* what) {
  if (c.empty()) throw InvalidParameter(std::string(what) + ": no coefficient");
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!std::isfinite(c[i])) {
      throw InvalidParameter(std::string(what) + ": coefficient " + std::to_string(i) +
                             " is not finite");
    }
  }
  if (last_nonzero(c) > kMaxDegree) {
    throw InvalidParameter(std::string(what) + ": degree " + std::to_string(last_nonzero(c)) +
                           " is above the largest evaluated, " + std::to_string(kMaxDegree));
  }
}

// The largest giant power k·2^m ≤ d (d ≥ k).
std::size_t giant_for(std::size_t d, std::size_t k) {
  std::size_t n = k;
  while (2 * n <= d) n *= 2;
  return n;
}

// p = q·T_n + r (deg p < 2n) in the basis.
std::pair<std::vector<double>, std::vector<double>> divide(const std::vector<double>& c,
                                                           std::size_t n, Basis basis) {
  const std::size_t d = last_nonzero(c);
  std::vector<double> q(d - n + 1), r(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(n));
  if (basis == Basis::power) {
    for (std::size_t j = 0; j + n <= d; ++j) q[j] = c[n + j];
    return {q, r};
  }
  q[0] = c[n];
  for (std::size_t j = 1; j + n <= d; ++j) {
    q[j] = 2 * c[n + j];
    r[n - j] -= c[n + j];
  }
  return {q, r};
}

// Levels below the input's: the powers' depths (T_i or x^i at ⌈log2 i⌉ below T_1) and, by the
// same recursion as the evaluation, the depth of each node; kNoLevel for a constant.
class Plan {
 public:
  Plan(std::size_t k, Basis basis) : k_(k), basis_(basis) {}

  static std::size_t power_depth(std::size_t i) {
    return static_cast<std::size_t>(std::bit_width(i - 1));
  }

  // The depth below T_1's level of the value of c (kNoLevel: a constant).
  std::size_t depth(const std::vector<double>& c) const {
    const std::size_t d = last_nonzero(c);
    if (d < k_) {
      std::size_t deepest = kNoLevel;
      for (std::size_t i = 1; i <= d; ++i) {
        if (c[i] != 0.0) {
          const std::size_t t = power_depth(i) + 1;
          deepest = deepest == kNoLevel ? t : std::max(deepest, t);
        }
      }
      return deepest;
    }
    const std::size_t n = giant_for(d, k_);
    const auto [q, r] = divide(c, n, basis_);
    const std::size_t dq = depth(q);
    const std::size_t product = std::max(dq == kNoLevel ? 0 : dq, power_depth(n)) + 1;
    const std::size_t dr = depth(r);
    return dr == kNoLevel ? product : std::max(product, dr);
  }

  // The ciphertext products (multiply_relin) the evaluation of c makes: one per power it makes
  // (Evaluation::power's recursion) and one per division whose quotient is not a constant.
  std::size_t products(const std::vector<double>& c) const {
    std::set<std::size_t> made{1};
    return products(c, made);
  }

 private:
  std::size_t products(const std::vector<double>& c, std::set<std::size_t>& made) const {
    const std::size_t d = last_nonzero(c);
    std::size_t count = 0;
    if (d < k_) {
      for (std::size_t i = 1; i <= d; ++i) {
        if (c[i] != 0.0) count += make(i, made);
      }
      return count;
    }
    const std::size_t n = giant_for(d, k_);
    const auto [q, r] = divide(c, n, basis_);
    count += make(n, made);
    if (depth(q) != kNoLevel) count += 1 + products(q, made);
    return count + products(r, made);
  }

  std::size_t make(std::size_t i, std::set<std::size_t>& made) const {
    if (made.contains(i)) return 0;
    const std::size_t a = std::bit_floor(i - 1) == 0 ? 1 : std::bit_floor(i - 1);
    const std::size_t b = i - a;
    std::size_t count = make(a, made) + make(b, made) + 1;
    if (basis_ == Basis::chebyshev && a != b) count += make(a - b, made);
    made.insert(i);
    return count;
  }

  std::size_t k_;
  Basis basis_;
};

// The baby-step count k of the options for the series c: a power of two in [2, kMaxDegree], or
// for 0 the one with the fewest ciphertext products among those that keep the optimal depth
// (k = 2's), the smaller on a tie.
std::size_t baby_steps_of(const PolynomialOptions& o, const std::vector<double>& c, Basis basis) {
  if (o.baby_steps != 0) {
    const std::size_t k = o.baby_steps;
    if (k < 2 || !std::has_single_bit(k) || k > kMaxDegree) {
      throw InvalidParameter("evaluate: baby_steps = " + std::to_string(o.baby_steps) +
                             " is not 0 or a power of two in [2, " + std::to_string(kMaxDegree) +
                             "]");
    }
    return k;
  }
  const std::size_t optimal = Plan(2, basis).depth(c);
  std::size_t best = 2;
  std::size_t fewest = Plan(2, basis).products(c);
  for (std::size_t k = 4; k <= last_nonzero(c); k *= 2) {
    const Plan plan(k, basis);
    if (plan.depth(c) != optimal) continue;
    const std::size_t products = plan.products(c);
    if (products < fewest) {
      best = k;
      fewest = products;
    }
  }
  return best;
}

// The evaluation over one ciphertext: the powers made on demand, nodes evaluated at the scale
// their parent needs.
class Evaluation {
 public:
  Evaluation(const Evaluator& ev, Ciphertext t1, std::size_t k, Basis basis)
      : ev_(ev), k_(k), basis_(basis), top_(t1.level()) {
    powers_.emplace(1, std::move(t1));
  }

  // The value of c (c_0 included) at scale `target`, at level top − Plan.depth(c); nullopt for
  // a constant (the caller adds c_0 itself).
  std::optional<Ciphertext> node(const std::vector<double>& c, double target) {
    const std::size_t d = last_nonzero(c);
    if (d < k_) return leaf(c, target);
    const std::size_t n = giant_for(d, k_);
    // Named, not structured bindings: Clang before 16 refuses to capture those in the lambda.
    const auto quotient_remainder = divide(c, n, basis_);
    const std::vector<double>& q = quotient_remainder.first;
    const std::vector<double>& r = quotient_remainder.second;
    const Ciphertext& tn = power(n);
    Ciphertext product = [&] {
      const std::size_t dq = Plan(k_, basis_).depth(q);
      if (dq == kNoLevel) return scaled(tn, q[0], target);
      const std::size_t level = std::min(top_ - dq, tn.level());
      const Ciphertext qv = *node(q, target * prime(level) / tn.scale());
      Ciphertext p = ev_.rescale(
          ev_.multiply_relin(ev_.drop_to_level(qv, level), ev_.drop_to_level(tn, level)));
      p.set_scale(target);  // the same value to within the ulps of the scales' products
      return p;
    }();
    std::optional<Ciphertext> rest = node(r, target);
    if (!rest) return r[0] == 0.0 ? product : ev_.add_const(product, r[0]);
    const std::size_t level = std::min(product.level(), rest->level());
    Ciphertext sum = ev_.drop_to_level(product, level);
    ev_.add_inplace(sum, ev_.drop_to_level(*rest, level));
    return sum;
  }

  // T_i (or x^i): T_{2a} = 2·T_a² − 1, T_{a+b} = 2·T_a·T_b − T_{a−b} (a the largest power of two
  // below a + b); x^{a+b} = x^a·x^b.
  const Ciphertext& power(std::size_t i) {
    if (auto it = powers_.find(i); it != powers_.end()) return it->second;
    const std::size_t a = std::bit_floor(i - 1) == 0 ? 1 : std::bit_floor(i - 1);
    const std::size_t b = i - a;
    const Ciphertext& ta = power(a);
    const Ciphertext& tb = power(b);
    const std::size_t level = std::min(ta.level(), tb.level());
    Ciphertext p =
        ev_.rescale(ev_.multiply_relin(ev_.drop_to_level(ta, level), ev_.drop_to_level(tb, level)));
    if (p.scale() < kMinPowerScale) {
      // s_a·s_b/q: an input whose scale is far below its primes loses its message in the powers.
      throw InvalidParameter(
          "evaluate: the power " + std::to_string(i) + " came out at scale 2^" +
          std::to_string(std::log2(p.scale())) + ", from an input at scale 2^" +
          std::to_string(std::log2(powers_.at(1).scale())) + " over primes of about 2^" +
          std::to_string(std::log2(prime(level))) +
          " (a product's scale is s_a·s_b/q): bring the ciphertext to a scale near its primes "
          "first (rescale it, or encrypt it at the levels whose primes match its scale)");
    }
    if (basis_ == Basis::chebyshev) {
      p = ev_.multiply_integer(p, 2);
      if (a == b) {
        p = ev_.add_const(p, -1.0);
      } else {
        ev_.sub_inplace(p, aligned(power(a - b), p.level(), p.scale()));
      }
    }
    return powers_.emplace(i, std::move(p)).first->second;
  }

 private:
  double prime(std::size_t level) const {
    return static_cast<double>(ev_.params()->q_primes()[level]);
  }

  // c·t at scale `target`, one level below t (c encoded at the scale that lands there).
  Ciphertext scaled(const Ciphertext& t, double c, double target) const {
    Ciphertext out = ev_.rescale(ev_.multiply_const(t, c, target * prime(t.level()) / t.scale()));
    out.set_scale(target);  // the same value to within the constant's rounding
    return out;
  }

  // t at (level, scale): one level spent on a multiplication by 1 when the scale differs.
  Ciphertext aligned(const Ciphertext& t, std::size_t level, double scale) const {
    if (t.scale() == scale) return ev_.drop_to_level(t, level);
    return ev_.drop_to_level(scaled(t, 1.0, scale), level);
  }

  std::optional<Ciphertext> leaf(const std::vector<double>& c, double target) {
    const std::size_t d = last_nonzero(c);
    std::optional<Ciphertext> sum;
    std::size_t level = top_;
    for (std::size_t i = 1; i <= d; ++i) {
      if (c[i] != 0.0) level = std::min(level, power(i).level() - 1);
    }
    for (std::size_t i = 1; i <= d; ++i) {
      if (c[i] == 0.0) continue;
      Ciphertext term = ev_.drop_to_level(scaled(power(i), c[i], target), level);
      if (sum) {
        ev_.add_inplace(*sum, term);
      } else {
        sum = std::move(term);
      }
    }
    if (sum && c[0] != 0.0) sum = ev_.add_const(*sum, c[0]);
    return sum;
  }

  const Evaluator& ev_;
  std::size_t k_;
  Basis basis_;
  std::size_t top_;
  std::map<std::size_t, Ciphertext> powers_;
};

std::size_t depth_of(const std::vector<double>& c, std::size_t k, Basis basis) {
  const std::size_t d = Plan(k, basis).depth(c);
  return d == kNoLevel ? 0 : d;
}

Ciphertext run(const Evaluator& ev, const Ciphertext& x, Ciphertext t1, std::size_t levels_before,
               const std::vector<double>& c, std::size_t k, Basis basis, double target,
               const char* what) {
  const std::size_t need = depth_of(c, k, basis) + levels_before;
  if (x.level() < need) {
    throw InvalidParameter(std::string(what) + ": the polynomial takes " + std::to_string(need) +
                           " levels and the ciphertext has " + std::to_string(x.level()) +
                           " left (bootstrap or start higher)");
  }
  Evaluation e(ev, std::move(t1), k, basis);
  if (std::optional<Ciphertext> out = e.node(c, target)) return std::move(*out);
  // A constant: 0·x at the target scale (a zero message has every scale), plus c_0.
  Ciphertext zero = ev.multiply_integer(x, 0);
  zero.set_scale(target);
  return c[0] == 0.0 ? zero : ev.add_const(zero, c[0]);
}

void check_input(const Ciphertext& x, const char* what) {
  if (x.size() != 2) {
    throw InvalidParameter(std::string(what) + ": relinearise the ciphertext first (size " +
                           std::to_string(x.size()) + ")");
  }
}

double target_of(const Ciphertext& x, const PolynomialOptions& o, const char* what) {
  const double t = o.scale == 0 ? x.scale() : o.scale;
  if (!(t >= 1.0) || !std::isfinite(t)) {
    throw InvalidParameter(std::string(what) + ": scale " + std::to_string(t) +
                           " is not a finite number >= 1");
  }
  return t;
}

bool unit_interval(const ChebyshevSeries& p) {
  return p.a == -1.0 && p.b == 1.0;
}

void check_interval(double a, double b, const char* what) {
  if (!std::isfinite(a) || !std::isfinite(b) || !(a < b)) {
    throw InvalidParameter(std::string(what) + ": the interval [" + std::to_string(a) + ", " +
                           std::to_string(b) + "] is not finite with a < b");
  }
}

}  // namespace

ChebyshevSeries ChebyshevSeries::fit(const std::function<double(double)>& f, double a, double b,
                                     std::size_t degree) {
  check_interval(a, b, "ChebyshevSeries::fit");
  if (degree > kMaxDegree) {
    throw InvalidParameter("ChebyshevSeries::fit: degree " + std::to_string(degree) + " is above " +
                           std::to_string(kMaxDegree));
  }
  const std::size_t m = degree + 1;
  std::vector<double> values(m);
  for (std::size_t j = 0; j < m; ++j) {
    const double t =
        std::cos(std::numbers::pi * (static_cast<double>(j) + 0.5) / static_cast<double>(m));
    const double x = 0.5 * (a + b) + 0.5 * (b - a) * t;
    values[j] = f(x);
    if (!std::isfinite(values[j])) {
      throw InvalidParameter("ChebyshevSeries::fit: f(" + std::to_string(x) + ") is not finite");
    }
  }
  // In long double: the sums of m terms keep their error near one double ulp of the result.
  ChebyshevSeries s{a, b, std::vector<double>(m)};
  for (std::size_t i = 0; i < m; ++i) {
    long double sum = 0;
    for (std::size_t j = 0; j < m; ++j) {
      // cos(π·i·(j + ½)/m) with the angle reduced mod 2π exactly (i·(2j + 1) mod 4m).
      const std::size_t e = (i * (2 * j + 1)) % (4 * m);
      sum += static_cast<long double>(values[j]) *
             std::cos(std::numbers::pi_v<long double> * static_cast<long double>(e) /
                      static_cast<long double>(2 * m));
    }
    s.coeffs[i] = static_cast<double>((i == 0 ? 1.0L : 2.0L) * sum / static_cast<long double>(m));
  }
  return s;
}

double ChebyshevSeries::operator()(double x) const {
  const double t = (2 * x - a - b) / (b - a);
  double b1 = 0, b2 = 0;
  for (std::size_t i = coeffs.size(); i-- > 1;) {
    const double b0 = coeffs[i] + 2 * t * b1 - b2;
    b2 = b1;
    b1 = b0;
  }
  return coeffs.empty() ? 0.0 : coeffs[0] + t * b1 - b2;
}

std::size_t ChebyshevSeries::degree() const {
  return last_nonzero(coeffs);
}

double PowerSeries::operator()(double x) const {
  double y = 0;
  for (std::size_t i = coeffs.size(); i-- > 0;) y = y * x + coeffs[i];
  return y;
}

std::size_t PowerSeries::degree() const {
  return last_nonzero(coeffs);
}

std::size_t depth(const ChebyshevSeries& p, const PolynomialOptions& options) {
  check_coefficients(p.coeffs, "depth");
  const std::size_t d =
      depth_of(p.coeffs, baby_steps_of(options, p.coeffs, Basis::chebyshev), Basis::chebyshev);
  return d + (d > 0 && !unit_interval(p) ? 1 : 0);
}

std::size_t depth(const PowerSeries& p, const PolynomialOptions& options) {
  check_coefficients(p.coeffs, "depth");
  return depth_of(p.coeffs, baby_steps_of(options, p.coeffs, Basis::power), Basis::power);
}

std::size_t products(const ChebyshevSeries& p, const PolynomialOptions& options) {
  check_coefficients(p.coeffs, "products");
  return Plan(baby_steps_of(options, p.coeffs, Basis::chebyshev), Basis::chebyshev)
      .products(p.coeffs);
}

std::size_t products(const PowerSeries& p, const PolynomialOptions& options) {
  check_coefficients(p.coeffs, "products");
  return Plan(baby_steps_of(options, p.coeffs, Basis::power), Basis::power).products(p.coeffs);
}

Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x, const ChebyshevSeries& p,
                    const PolynomialOptions& options) {
  const char* const what = "evaluate (Chebyshev series)";
  check_coefficients(p.coeffs, what);
  check_interval(p.a, p.b, what);
  check_input(x, what);
  const std::size_t k = baby_steps_of(options, p.coeffs, Basis::chebyshev);
  const double target = target_of(x, options, what);
  if (unit_interval(p) || p.degree() == 0) {
    return run(ev, x, x, 0, p.coeffs, k, Basis::chebyshev, target, what);
  }
  // t = α·x + β on [−1, 1], at x's scale one level down.
  const double alpha = 2 / (p.b - p.a);
  const double beta = -(p.a + p.b) / (p.b - p.a);
  if (x.level() == 0) {
    throw InvalidParameter(std::string(what) +
                           ": the map onto [-1, 1] takes a level and the ciphertext has none");
  }
  // The constant at q_l: the rescale gives x's scale back.
  Ciphertext t = ev.rescale(ev.multiply_const(x, alpha));
  if (beta != 0.0) t = ev.add_const(t, beta);
  return run(ev, x, std::move(t), 1, p.coeffs, k, Basis::chebyshev, target, what);
}

Ciphertext evaluate(const Evaluator& ev, const Ciphertext& x, const PowerSeries& p,
                    const PolynomialOptions& options) {
  const char* const what = "evaluate (power series)";
  check_coefficients(p.coeffs, what);
  check_input(x, what);
  return run(ev, x, x, 0, p.coeffs, baby_steps_of(options, p.coeffs, Basis::power), Basis::power,
             target_of(x, options, what), what);
}

}  // namespace polyhe::ckks
