#include "polyhe/ckks/bootstrap.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <set>
#include <string>
#include <utility>

#include "fft_stages.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

namespace {

using Complex = std::complex<double>;
constexpr double kTwoPi = 2 * std::numbers::pi;

// The largest error of a series against f over [−1, 1], sampled densely.
double fit_error(const ChebyshevSeries& p, double (*f)(double, double, int), double k, int r) {
  double worst = 0;
  constexpr int kSamples = 4096;
  for (int i = 0; i <= kSamples; ++i) {
    const double u = -1.0 + 2.0 * i / kSamples;
    worst = std::max(worst, std::abs(p(u) - f(u, k, r)));
  }
  return worst;
}

// sin(2π·K·u)/(2π): t/q_0 − I for u = t/(q_0·K), t = m + q_0·I with m ≪ q_0.
double scaled_sine(double u, double k, int) {
  return std::sin(kTwoPi * k * u) / kTwoPi;
}
// cos(2π(K·u − 1/4)/2^r): r double angles later, sin(2π·K·u).
double shifted_cosine(double u, double k, int r) {
  return std::cos(kTwoPi * (k * u - 0.25) / std::ldexp(1.0, r));
}

// The series of EvalMod: the given degree, or the smallest 2^j − 1 whose fit is within 2^−40 of
// the function (near double precision's limit for the sums of a few hundred terms; the scheme's
// noise at the working scale is larger).
ChebyshevSeries sine_series(const BootstrapConfig& c) {
  const bool angles = c.eval_mod == EvalMod::double_angle;
  auto* const f = angles ? shifted_cosine : scaled_sine;
  auto fit = [&](std::size_t d) {
    return ChebyshevSeries::fit([&](double u) { return f(u, c.k, c.double_angles); }, -1.0, 1.0, d);
  };
  if (c.sine_degree != 0) return fit(c.sine_degree);
  const double goal = std::ldexp(1.0, -40);
  for (std::size_t d = 7; d < kMaxDegree; d = 2 * d + 1) {
    ChebyshevSeries s = fit(d);
    if (fit_error(s, f, c.k, c.double_angles) <= goal) return s;
  }
  throw InvalidParameter("Bootstrapper: no series of degree below " + std::to_string(kMaxDegree) +
                         " reaches its error goal for K = " + std::to_string(c.k) +
                         "; lower K or use more double angles");
}

}  // namespace

Ciphertext mod_raise(const Evaluator& ev, const Ciphertext& ct) {
  const ParametersPtr& params = ev.params();
  rlwe::check_same_params(ct.params(), params, "mod_raise");
  if (ct.size() != 2) {
    throw InvalidParameter("mod_raise: relinearise the ciphertext first (size " +
                           std::to_string(ct.size()) + ")");
  }
  const Ciphertext low = (ct.level() == 0 ? ct : ev.drop_to_level(ct, 0)).to_host();
  const RingContext& ring = *params->ring();
  const std::size_t top = params->max_level();
  const std::uint64_t q0 = params->q_primes()[0];
  Ciphertext out(params, top, 2, ct.scale());
  std::vector<std::uint64_t> coeffs(params->n());
  for (std::size_t part = 0; part < 2; ++part) {
    ring.inverse(0, low[part].limb(0), coeffs);  // c_part mod q_0, coefficient form
    RnsPoly& target = out[part];
    for (std::size_t i = 0; i <= top; ++i) ring.forward_lifted(i, coeffs, q0, target.limb(i));
  }
  return out.to_device(ct.device());
}

Bootstrapper::Bootstrapper(const Context& ctx, const BootstrapConfig& config)
    : params_(ctx.params()), config_(config) {
  const char* const op = "Bootstrapper";
  const std::size_t n = ctx.slots();
  if (n < 4)
    throw InvalidParameter(std::string(op) + ": N = " + std::to_string(2 * n) + " is below 8");
  const std::size_t log_n = static_cast<std::size_t>(std::countr_zero(n));
  for (const auto& [name, levels] :
       {std::pair{"coeff_to_slot_levels", config.coeff_to_slot_levels},
        std::pair{"slot_to_coeff_levels", config.slot_to_coeff_levels}}) {
    if (levels < 1 || levels > log_n) {
      throw InvalidParameter(std::string(op) + ": " + name + " = " + std::to_string(levels) +
                             " is outside [1, log2(N/2) = " + std::to_string(log_n) + "]");
    }
  }
  if (!(config.k >= 1.0 && config.k <= 1 << 20)) {
    throw InvalidParameter(std::string(op) + ": K = " + std::to_string(config.k) +
                           " is outside [1, 2^20]");
  }
  if (config.eval_mod == EvalMod::double_angle &&
      (config.double_angles < 1 || config.double_angles > 10)) {
    throw InvalidParameter(std::string(op) + ": double_angles = " +
                           std::to_string(config.double_angles) + " is outside [1, 10]");
  }
  const std::size_t top = params_->max_level();
  scale_ = config.scale != 0
               ? config.scale
               : std::ldexp(1.0, static_cast<int>(std::lround(
                                     std::log2(static_cast<double>(params_->q_primes()[top])))));
  if (!(scale_ >= 1.0) || !std::isfinite(scale_)) {
    throw InvalidParameter(std::string(op) + ": scale " + std::to_string(scale_) +
                           " is not a finite number >= 1");
  }
  series_ = sine_series(config);
  const PolynomialOptions series_options{0, config.eval_mod_baby_steps};
  const std::size_t mod_depth =
      ckks::depth(series_, series_options) + (config.eval_mod == EvalMod::double_angle
                                                  ? static_cast<std::size_t>(config.double_angles)
                                                  : 0);
  depth_ = config.coeff_to_slot_levels + mod_depth + config.slot_to_coeff_levels;
  if (depth_ + 1 > top) {
    throw InvalidParameter(
        std::string(op) + ": bootstrapping takes " + std::to_string(depth_) +
        " levels (CoeffToSlot " + std::to_string(config.coeff_to_slot_levels) + ", EvalMod " +
        std::to_string(mod_depth) + ", SlotToCoeff " + std::to_string(config.slot_to_coeff_levels) +
        ") and the parameters have L = " + std::to_string(top) + ": at least one must be left");
  }

  const double q0 = static_cast<double>(params_->q_primes()[0]);
  // CoeffToSlot: n·BR(w_t)/Δ' → BR(w_t)/(2·q_0·K), the constant spread over the groups.
  std::vector<Diagonals> cts = detail::fft_groups(n, config.coeff_to_slot_levels, true);
  const double c_cts = scale_ / (2.0 * static_cast<double>(n) * q0 * config.k);
  const double per_cts = std::pow(c_cts, 1.0 / static_cast<double>(cts.size()));
  for (std::size_t g = 0; g < cts.size(); ++g) {
    detail::scale_diagonals(cts[g], per_cts);
    coeff_to_slot_.emplace_back(ctx, cts[g], top - g);
  }
  // SlotToCoeff: V·(w_m/q_0 in bit-reversed slots, times 2π for the double angles) → V·w_m/Δ'.
  std::vector<Diagonals> stc = detail::fft_groups(n, config.slot_to_coeff_levels, false);
  const double c_stc = q0 / scale_ / (config.eval_mod == EvalMod::double_angle ? kTwoPi : 1.0);
  const double per_stc = std::pow(c_stc, 1.0 / static_cast<double>(stc.size()));
  const std::size_t stc_top = top - config.coeff_to_slot_levels - mod_depth;
  for (std::size_t g = 0; g < stc.size(); ++g) {
    detail::scale_diagonals(stc[g], per_stc);
    slot_to_coeff_.emplace_back(ctx, stc[g], stc_top - g);
  }
}

std::vector<std::int64_t> Bootstrapper::rotations() const {
  std::set<std::int64_t> steps;
  for (const auto* group : {&coeff_to_slot_, &slot_to_coeff_}) {
    for (const LinearTransform& t : *group) {
      for (const std::int64_t s : t.rotations()) steps.insert(s);
    }
  }
  return {steps.begin(), steps.end()};
}

Bootstrapper Bootstrapper::to_device(const std::shared_ptr<Device>& device) const {
  Bootstrapper b = *this;
  for (auto* group : {&b.coeff_to_slot_, &b.slot_to_coeff_}) {
    for (LinearTransform& t : *group) t = t.to_device(device);
  }
  return b;
}

Ciphertext Bootstrapper::eval_mod(const Evaluator& ev, const Ciphertext& u) const {
  const std::size_t k = config_.eval_mod_baby_steps;
  if (config_.eval_mod == EvalMod::chebyshev) return evaluate(ev, u, series_, {scale_, k});
  // cos(2θ) = 2·cos²θ − 1, r times; each square's input at the scale that lands its output on
  // the next one's (the last on Δ'): s_i = √(s_{i+1}·q_ℓ), ℓ the level it is squared at.
  const int r = config_.double_angles;
  const std::size_t first = u.level() - ckks::depth(series_, {0, k});  // the cosine's level
  std::vector<double> target(static_cast<std::size_t>(r) + 1);
  target[static_cast<std::size_t>(r)] = scale_;
  for (int i = r - 1; i >= 0; --i) {
    const double q = static_cast<double>(params_->q_primes()[first - static_cast<std::size_t>(i)]);
    target[static_cast<std::size_t>(i)] = std::sqrt(target[static_cast<std::size_t>(i) + 1] * q);
  }
  Ciphertext c = evaluate(ev, u, series_, {target[0], k});
  for (int i = 0; i < r; ++i) {
    c = ev.rescale(ev.multiply_relin(c, c));
    c.set_scale(target[static_cast<std::size_t>(i) + 1]);  // to within the ulps of the product
    c = ev.add_const(ev.multiply_integer(c, 2), -1.0);
  }
  return c;
}

Ciphertext Bootstrapper::bootstrap(const Evaluator& ev, const Ciphertext& ct) const {
  const char* const op = "bootstrap";
  rlwe::check_same_params(ev.params(), params_, op);
  rlwe::check_same_params(ct.params(), params_, op);
  if (ct.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(ct.size()) + ")");
  }
  for (const std::int64_t s : rotations()) {
    if (!ev.can_rotate(s)) {
      throw InvalidParameter(std::string(op) + ": no Galois key for rotation step " +
                             std::to_string(s) +
                             "; generate the keys of Bootstrapper::rotations()");
    }
  }
  // ModRaise; the raised message t = m + q_0·I read at the working scale (CoeffToSlot's
  // constant assumes Δ').
  Ciphertext x = mod_raise(ev, ct);
  x.set_scale(scale_);
  for (const LinearTransform& t : coeff_to_slot_) {
    x = ev.rescale(t.apply(ev, x));
    x.set_scale(scale_);  // t's diagonals at q_ℓ: Δ'·q_ℓ/q_ℓ, to within an ulp
  }
  // Complex slots a + ib (= BR(w_t)/(2·q_0·K)) into real slots 2a and 2b: exact, no level.
  const Ciphertext conj = ev.conjugate(x);
  const Ciphertext re = ev.add(x, conj);
  const Ciphertext im = ev.multiply_const(ev.sub(x, conj), Complex(0.0, -1.0), 1.0);
  const Ciphertext mre = eval_mod(ev, re);
  const Ciphertext mim = eval_mod(ev, im);
  Ciphertext y = ev.add(mre, ev.multiply_const(mim, Complex(0.0, 1.0), 1.0));
  for (const LinearTransform& t : slot_to_coeff_) {
    y = ev.rescale(t.apply(ev, y));
    y.set_scale(scale_);
  }
  // y's polynomial is m again (its slots V·w_m/Δ' at scale Δ'): read at ct's scale.
  y.set_scale(ct.scale());
  return y;
}

}  // namespace polyhe::ckks
