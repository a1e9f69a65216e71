#include "polyhe/ckks/bootstrap.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <set>
#include <span>
#include <string>
#include <utility>

#include "fft_stages.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/key_switch.hpp"

namespace polyhe::ckks {

namespace {

using Complex = std::complex<double>;
constexpr double kTwoPi = 2 * std::numbers::pi;

// The largest error over [−1, 1], sampled densely, of EvalMod's result with the series p in
// place of f, in units of t/q_0 mod 1 (what SlotToCoeff reads): the series' own error for the
// Chebyshev sine; for the double angles, the error after the r doublings y → 2y² − 1 (which
// multiply the cosine's error by up to 4 each near y = ±1), divided by 2π.
double fit_error(const ChebyshevSeries& p, double (*f)(double, double, int), double k, int r,
                 bool angles) {
  double worst = 0;
  constexpr int kSamples = 4096;
  for (int i = 0; i <= kSamples; ++i) {
    const double u = -1.0 + 2.0 * i / kSamples;
    double y = p(u);
    double z = f(u, k, r);
    if (angles) {
      for (int j = 0; j < r; ++j) {
        y = 2 * y * y - 1;
        z = 2 * z * z - 1;
      }
    }
    worst = std::max(worst, std::abs(y - z) / (angles ? kTwoPi : 1.0));
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

// The series of EvalMod: the given degree, or one chosen in two steps. First the smallest 2^j − 1
// whose EvalMod is within 2^−40 of t/q_0 mod 1 (fit_error): that fixes the depth, and its error
// is near double precision's floor (about 2^−47 for the sine). The message is only 2^−ρ' of q_0
// (ρ' up to 20 without input scaling), so the series' error counts 2^ρ' times over in the
// result: the goal is that floor, not 2^−40 (degree 140 of K = 16's sine meets 2^−40 and costs
// five bits of the bootstrap's precision at ρ' = 20). Then, since the products grow with the
// degree (about d/2 in the optimal depth) and the depth only with ⌈log2(d + 1)⌉, a bisection
// below 2^j − 1 finds the smallest degree within twice that error (one bit; each degree it
// returns was itself checked): 145 instead of 255 for that sine, 27 instead of 31 for the
// cosine of K = 16 and four double angles.
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
    const double error = fit_error(s, f, c.k, c.double_angles, angles);
    if (error > goal) continue;
    const double floor = 2 * error;
    std::size_t lo = d / 2;  // 2^(j−1) − 1: does not fit (or is below the first degree tried)
    while (d - lo > 1) {
      const std::size_t mid = lo + (d - lo) / 2;
      ChebyshevSeries m = fit(mid);
      if (fit_error(m, f, c.k, c.double_angles, angles) <= floor) {
        d = mid;
        s = std::move(m);
      } else {
        lo = mid;
      }
    }
    return s;
  }
  throw InvalidParameter("Bootstrapper: no series of degree below " + std::to_string(kMaxDegree) +
                         " reaches its error goal for K = " + std::to_string(c.k) +
                         "; lower K or use more double angles");
}

// arcsin(a·y)/a to degree d (Taylor: the coefficient of y^(2k+1) is (2k)!/(4^k·(k!)²·(2k+1))),
// for EvalMod's output y: sin(2π·m/q_0) by double angles (a = 1), sin(2π·m/q_0)/(2π) by the
// Chebyshev sine (a = 2π); either way 2π·m/q_0 or m/q_0 again, as SlotToCoeff expects.
PowerSeries arcsine_series(const BootstrapConfig& c) {
  const double a = c.eval_mod == EvalMod::double_angle ? 1.0 : kTwoPi;
  PowerSeries p;
  p.coeffs.assign(c.arcsine_degree + 1, 0.0);
  double term = 1.0;  // (2k)!/(4^k·(k!)²·(2k+1))·a^(2k)
  for (std::size_t k = 0; 2 * k + 1 <= c.arcsine_degree; ++k) {
    if (k > 0) {
      const double kk = static_cast<double>(k);
      term *= (2 * kk - 1) * (2 * kk - 1) / ((2 * kk) * (2 * kk + 1)) * a * a;
    }
    p.coeffs[2 * k + 1] = term;
  }
  return p;
}

// The ciphertext (c_0, c_1), given by its coefficients modulo q_0, lifted centred to every prime
// of Q_L (host memory).
Ciphertext raise(const ParametersPtr& params, std::span<const std::uint64_t> c0,
                 std::span<const std::uint64_t> c1, double scale) {
  const RingContext& ring = *params->ring();
  const std::size_t top = params->max_level();
  const std::uint64_t q0 = params->q_primes()[0];
  Ciphertext out(params, top, 2, scale);
  for (std::size_t part = 0; part < 2; ++part) {
    RnsPoly& target = out[part];
    for (std::size_t i = 0; i <= top; ++i) {
      ring.forward_lifted(i, part == 0 ? c0 : c1, q0, target.limb(i));
    }
  }
  return out;
}

std::string one_decimal(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// c·2^bits modulo q_0, in place: ModRaise's input scaling (BootstrapConfig::message_ratio_bits).
void times_power_of_two(std::span<std::uint64_t> c, int bits, std::uint64_t q0) {
  if (bits == 0) return;
  const unsigned __int128 factor = (static_cast<unsigned __int128>(1) << bits) % q0;
  for (std::uint64_t& x : c) x = static_cast<std::uint64_t>((x * factor) % q0);
}

Ciphertext at_level_zero(const Evaluator& ev, const Ciphertext& ct, const char* op) {
  rlwe::check_same_params(ct.params(), ev.params(), op);
  if (ct.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(ct.size()) + ")");
  }
  return (ct.level() == 0 ? ct : ev.drop_to_level(ct, 0)).to_host();
}

// The parameters of the key s → s': N, Q = {q_0}, the fewest leading special primes P' with
// q_0's width (key switching's digit rule), the ephemeral weight h'. They claim nothing
// themselves: the Bootstrapper's constructor decides whether the set as a whole may.
ParametersPtr encapsulation_parameters_for(const rlwe::Parameters& p, std::size_t weight) {
  const std::uint64_t q0 = p.q_primes()[0];
  const double q0_bits = std::log2(static_cast<double>(q0));
  rlwe::ParametersLiteral lit;
  lit.log_n = std::countr_zero(p.n());
  lit.q = {q0};
  double bits = 0;
  for (const std::uint64_t prime : p.p_primes()) {
    lit.p.push_back(prime);
    bits += std::log2(static_cast<double>(prime));
    if (bits + 1 >= q0_bits) break;
  }
  lit.dnum = 1;
  lit.hamming_weight = weight;
  lit.security = rlwe::SecurityLevel::insecure_none;
  return rlwe::Parameters::create(lit);
}

// log2(q_0·P') bounds under which an ephemeral secret of weight h' ≥ 32 keeps 128 bits: the
// largest of Bossuat, Troncoso-Pastoriza and Hubaux's 128-bit sets (eprint 2022/024, Lattigo's
// defaults), by ring degree; 0 where they give none.
int encapsulation_bound(std::size_t n) {
  if (n == std::size_t{1} << 15) return 152;
  if (n == std::size_t{1} << 16) return 426;
  return 0;
}

constexpr std::size_t kMinClaimedWeight = 32;

// Every check of the constructor and the quantities they give, without the transforms.
struct Plan {
  double scale = 0;
  ChebyshevSeries series;
  PowerSeries arcsine;
  std::size_t mod_depth = 0;
  std::size_t depth = 0;
  ParametersPtr encapsulation;
};

Plan plan_for(const ParametersPtr& params, const BootstrapConfig& config) {
  if (!params) throw InvalidParameter("Bootstrapper: null parameters");
  Plan out;
  const char* const op = "Bootstrapper";
  const std::size_t n = params->n() / 2;
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
  if (config.message_ratio_bits != 0 &&
      !(config.message_ratio_bits >= 1 && config.message_ratio_bits <= 62)) {
    throw InvalidParameter(std::string(op) +
                           ": message_ratio_bits = " + std::to_string(config.message_ratio_bits) +
                           " is neither 0 (no input scaling) nor in [1, 62]");
  }
  if (config.eval_mod == EvalMod::double_angle &&
      (config.double_angles < 1 || config.double_angles > 10)) {
    throw InvalidParameter(std::string(op) + ": double_angles = " +
                           std::to_string(config.double_angles) + " is outside [1, 10]");
  }
  const std::size_t top = params->max_level();
  out.scale = config.scale != 0
                  ? config.scale
                  : std::ldexp(1.0, static_cast<int>(std::lround(
                                        std::log2(static_cast<double>(params->q_primes()[top])))));
  if (!(out.scale >= 1.0) || !std::isfinite(out.scale)) {
    throw InvalidParameter(std::string(op) + ": scale " + std::to_string(out.scale) +
                           " is not a finite number >= 1");
  }
  out.series = sine_series(config);
  const PolynomialOptions series_options{0, config.eval_mod_baby_steps};
  out.mod_depth =
      ckks::depth(out.series, series_options) +
      (config.eval_mod == EvalMod::double_angle ? static_cast<std::size_t>(config.double_angles)
                                                : 0);
  if (config.arcsine_degree != 0) {
    if (config.arcsine_degree % 2 == 0 || config.arcsine_degree < 3 || config.arcsine_degree > 15) {
      throw InvalidParameter(std::string(op) +
                             ": arcsine_degree = " + std::to_string(config.arcsine_degree) +
                             " is neither 0 (no correction) nor odd in [3, 15]");
    }
    out.arcsine = arcsine_series(config);
    out.mod_depth += ckks::depth(out.arcsine);
  }
  if (config.iterations != 1 && config.iterations != 2) {
    throw InvalidParameter(std::string(op) + ": iterations = " + std::to_string(config.iterations) +
                           " is neither 1 nor 2");
  }
  if (config.iteration_precision_bits < 0 || config.iteration_precision_bits > 40) {
    throw InvalidParameter(std::string(op) + ": iteration_precision_bits = " +
                           std::to_string(config.iteration_precision_bits) +
                           " is outside [0, 40] (0: estimated)");
  }
  const std::size_t second = config.iterations - 1;  // the second iteration's 2^−p
  out.depth = config.coeff_to_slot_levels + out.mod_depth + config.slot_to_coeff_levels + second;
  if (out.depth + 1 > top) {
    throw InvalidParameter(std::string(op) + ": bootstrapping takes " + std::to_string(out.depth) +
                           " levels (CoeffToSlot " + std::to_string(config.coeff_to_slot_levels) +
                           ", EvalMod " + std::to_string(out.mod_depth) + ", SlotToCoeff " +
                           std::to_string(config.slot_to_coeff_levels) +
                           (second != 0 ? ", the second iteration 1" : "") +
                           ") and the parameters have L = " + std::to_string(top) +
                           ": at least one must be left");
  }
  // K against ModRaise's I: σ = √((h + 1)/12) for the secret it is raised under.
  const std::size_t n_ring = params->n();
  if (config.encapsulation_weight > n_ring) {
    throw InvalidParameter(std::string(op) + ": encapsulation_weight = " +
                           std::to_string(config.encapsulation_weight) +
                           " is above N = " + std::to_string(n_ring));
  }
  const std::size_t weight = config.encapsulation_weight != 0 ? config.encapsulation_weight
                             : params->hamming_weight() != 0  ? params->hamming_weight()
                                                              : 2 * n_ring / 3;
  const double sigma = std::sqrt((static_cast<double>(weight) + 1.0) / 12.0);
  if (config.k < 6.0 * sigma) {
    throw InvalidParameter(
        std::string(op) + ": K = " + std::to_string(config.k) +
        " is below 6σ = " + std::to_string(6.0 * sigma) +
        " of ModRaise's multiple of q_0 for a secret of weight " + std::to_string(weight) +
        (config.encapsulation_weight == 0 && params->hamming_weight() == 0
             ? " (a uniform ternary secret, about 2N/3): set encapsulation_weight (e.g. 32)"
             : "") +
        "; raise K or lower the weight");
  }
  if (config.encapsulation_weight != 0) {
    out.encapsulation = encapsulation_parameters_for(*params, config.encapsulation_weight);
    if (params->security() != rlwe::SecurityLevel::insecure_none) {
      const int bound = encapsulation_bound(n_ring);
      const bool covered = params->security() == rlwe::SecurityLevel::bits128 && bound != 0 &&
                           config.encapsulation_weight >= kMinClaimedWeight &&
                           out.encapsulation->log_qp() <= bound;
      if (!covered) {
        throw InsecureParameters(
            std::string(op) +
            ": the encapsulation key is an RLWE sample under a sparse secret "
            "(h' = " +
            std::to_string(config.encapsulation_weight) + ") at log2(q_0·P') = " +
            std::to_string(out.encapsulation->log_qp()) + " bits, N = " + std::to_string(n_ring) +
            ", and the parameters claim " + rlwe::to_string(params->security()) +
            ": estimates cover 128 bits only, h' >= 32 and log2(q_0·P') <= 152 (N = 2^15) or "
            "426 (N = 2^16); use security = insecure_none for other sets");
      }
    }
  }

  return out;
}

}  // namespace

namespace {

// mod_raise of ct times 2^bits.
Ciphertext scaled_raise(const Evaluator& ev, const Ciphertext& ct, int bits, const char* op) {
  const ParametersPtr& params = ev.params();
  const Ciphertext low = at_level_zero(ev, ct, op);
  const RingContext& ring = *params->ring();
  const std::uint64_t q0 = params->q_primes()[0];
  std::vector<std::uint64_t> c0(params->n()), c1(params->n());
  ring.inverse(0, low[0].limb(0), c0);  // coefficient form, mod q_0
  ring.inverse(0, low[1].limb(0), c1);
  times_power_of_two(c0, bits, q0);
  times_power_of_two(c1, bits, q0);
  return raise(params, c0, c1, ct.scale()).to_device(ct.device());
}

}  // namespace

Ciphertext mod_raise(const Evaluator& ev, const Ciphertext& ct) {
  return scaled_raise(ev, ct, 0, "mod_raise");
}

EncapsulationKeys EncapsulationKeys::to_device(const std::shared_ptr<Device>& device) const {
  return EncapsulationKeys{to_sparse, to_dense.to_device(device)};
}

Bootstrapper::Bootstrapper(const Context& ctx, const BootstrapConfig& config)
    : params_(ctx.params()), config_(config) {
  Plan plan = plan_for(params_, config);
  scale_ = plan.scale;
  series_ = std::move(plan.series);
  arcsine_ = std::move(plan.arcsine);
  depth_ = plan.depth;
  encap_params_ = std::move(plan.encapsulation);
  const std::size_t mod_depth = plan.mod_depth;
  const std::size_t n = ctx.slots();
  const std::size_t top = params_->max_level();
  const double q0 = static_cast<double>(params_->q_primes()[0]);
  if (config.message_ratio_bits != 0) {
    const double room = std::log2(q0) - std::log2(ctx.scale()) - config.message_ratio_bits;
    input_bits_ = std::max(0, static_cast<int>(std::floor(room)));
  }
  if (config.iterations == 2) {
    iteration_bits_ = config.iteration_precision_bits;
    if (iteration_bits_ == 0) {
      // The error budget (docs/ckks-bootstrapping.md): the bootstrap's noise about
      // 31 − 1.5·(log2 N − 14) − ρ' bits below the message; two bits under it.
      const double rho = std::log2(q0) - std::log2(ctx.scale()) - input_bits_;
      const double log_n = std::log2(static_cast<double>(params_->n()));
      const double bits = 31.0 - 1.5 * (log_n - 14.0) - rho - 2.0;
      iteration_bits_ = std::clamp(static_cast<int>(std::floor(bits)), 1, 40);
    }
  }
  // CoeffToSlot: n·BR(w_t)/Δ' → BR(w_t)/(2·q_0·K), the constant spread over the groups.
  std::vector<Diagonals> cts = detail::fft_groups(n, config.coeff_to_slot_levels, true);
  const double c_cts = scale_ / (2.0 * static_cast<double>(n) * q0 * config.k);
  const double per_cts = std::pow(c_cts, 1.0 / static_cast<double>(cts.size()));
  for (std::size_t g = 0; g < cts.size(); ++g) {
    detail::scale_diagonals(cts[g], per_cts);
    coeff_to_slot_.emplace_back(ctx, cts[g], top - g);
  }
  // SlotToCoeff: V·(2^b·w_m/q_0 in bit-reversed slots, times 2π for the double angles) →
  // V·w_m/Δ'.
  std::vector<Diagonals> stc = detail::fft_groups(n, config.slot_to_coeff_levels, false);
  const double c_stc = std::ldexp(q0 / scale_, -input_bits_) /
                       (config.eval_mod == EvalMod::double_angle ? kTwoPi : 1.0);
  const double per_stc = std::pow(c_stc, 1.0 / static_cast<double>(stc.size()));
  const std::size_t stc_top = top - config.coeff_to_slot_levels - mod_depth;
  for (std::size_t g = 0; g < stc.size(); ++g) {
    detail::scale_diagonals(stc[g], per_stc);
    slot_to_coeff_.emplace_back(ctx, stc[g], stc_top - g);
  }
}

std::size_t Bootstrapper::depth_for(const ParametersPtr& params, const BootstrapConfig& config) {
  return plan_for(params, config).depth;
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

Ciphertext Bootstrapper::encapsulated_raise(const Evaluator& ev, const Ciphertext& ct,
                                            const rlwe::KeySwitchKey& to_sparse,
                                            const rlwe::KeySwitchKey& to_dense) const {
  const Ciphertext low = at_level_zero(ev, ct, "bootstrap");
  const RingContext& ring = *params_->ring();
  const auto& small = encap_params_->ring();
  const std::size_t n = params_->n();
  const std::uint64_t q0 = params_->q_primes()[0];
  std::vector<std::uint64_t> c0(n), c1(n), t(n);
  ring.inverse(0, low[0].limb(0), c0);
  ring.inverse(0, low[1].limb(0), c1);
  times_power_of_two(c0, input_bits_, q0);  // before the switch, whose noise it would scale
  times_power_of_two(c1, input_bits_, q0);
  // s → s' modulo q_0 (host memory): (c_0 + u_0, u_1), (u_0, u_1) = KeySwitch(c_1).
  RnsPoly d(small, 1, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  small->forward_lifted(0, c1, q0, d.limb(0));
  RnsPoly u0(small, 1, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  RnsPoly u1(small, 1, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  rlwe::key_switch(d, to_sparse, u0, u1);
  small->inverse(0, u0.limb(0), t);
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t sum = c0[j] + t[j];
    c0[j] = sum >= q0 ? sum - q0 : sum;
  }
  small->inverse(0, u1.limb(0), c1);
  // ModRaise under s', then s' → s at the top level, where the ciphertext lives.
  Ciphertext x = raise(params_, c0, c1, ct.scale()).to_device(ct.device());
  const std::size_t limbs = x[1].limbs();
  RnsPoly v0(params_->ring(), limbs, PolyForm::kEvaluation, RnsPoly::kForOverwrite, ct.device());
  RnsPoly v1(params_->ring(), limbs, PolyForm::kEvaluation, RnsPoly::kForOverwrite, ct.device());
  rlwe::key_switch(x[1], to_dense, v0, v1);
  x[0].add(v0);
  x[1] = std::move(v1);
  return x;
}

Ciphertext Bootstrapper::eval_mod(const Evaluator& ev, const Ciphertext& u) const {
  Ciphertext s = sine(ev, u);
  if (arcsine_.coeffs.empty()) return s;
  return evaluate(ev, s, arcsine_, {scale_, 0});
}

Ciphertext Bootstrapper::sine(const Evaluator& ev, const Ciphertext& u) const {
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

BootstrapKeys Bootstrapper::generate_keys(rlwe::KeyGenerator& keygen,
                                          const rlwe::SecretKey& sk) const {
  rlwe::check_same_params(sk.params, params_, "Bootstrapper::generate_keys");
  BootstrapKeys out{keygen.rotation_keys(sk, rotations(), /*conjugation=*/true), std::nullopt};
  if (encap_params_) out.encapsulation = encapsulation_keys(keygen, sk);
  return out;
}

EncapsulationKeys Bootstrapper::encapsulation_keys(rlwe::KeyGenerator& keygen,
                                                   const rlwe::SecretKey& sk) const {
  rlwe::check_same_params(sk.params, params_, "Bootstrapper::encapsulation_keys");
  if (!encap_params_) {
    throw InvalidParameter(
        "Bootstrapper::encapsulation_keys: this Bootstrapper does not encapsulate "
        "(encapsulation_weight = 0)");
  }
  rlwe::KeyGenerator ephemeral = keygen.for_parameters(encap_params_);
  const rlwe::SecretKey sparse = ephemeral.secret_key();  // exactly h' nonzero coefficients
  const rlwe::SecretKey dense_there = rlwe::rebase_secret(sk, encap_params_);
  const rlwe::SecretKey sparse_here = rlwe::rebase_secret(sparse, params_);
  return EncapsulationKeys{ephemeral.switching_key(sparse, dense_there.s),
                           keygen.switching_key(sk, sparse_here.s)};
}

Ciphertext Bootstrapper::bootstrap(const Evaluator& ev, const Ciphertext& ct) const {
  return iterate(ev, ct, nullptr, nullptr);
}

Ciphertext Bootstrapper::bootstrap(const Evaluator& ev, const Ciphertext& ct,
                                   const EncapsulationKeys& keys) const {
  return iterate(ev, ct, &keys.to_sparse, &keys.to_dense);
}

Ciphertext Bootstrapper::bootstrap(const Evaluator& ev, const Ciphertext& ct,
                                   const rlwe::KeySwitchKey& to_sparse,
                                   const rlwe::KeySwitchKey& to_dense) const {
  return iterate(ev, ct, &to_sparse, &to_dense);
}

Ciphertext Bootstrapper::iterate(const Evaluator& ev, const Ciphertext& ct,
                                 const rlwe::KeySwitchKey* to_sparse,
                                 const rlwe::KeySwitchKey* to_dense) const {
  Ciphertext first = refresh(ev, ct, to_sparse, to_dense);
  if (config_.iterations == 1) return first;
  // The first bootstrap's error e, against ct's own decryption (its noise included: the message
  // a bootstrap keeps), at level 0 where ct is; 2^p·e is a message like any other.
  const Ciphertext low = ct.level() == 0 ? ct : ev.drop_to_level(ct, 0);
  const Ciphertext error = ev.multiply_integer(ev.sub(ev.drop_to_level(first, 0), low),
                                               std::int64_t{1} << iteration_bits_);
  const Ciphertext fixed = refresh(ev, error, to_sparse, to_dense);  // 2^p·e, at first's level
  // 2^−p, encoded at the prime the rescale drops: the scale comes back to ct's to an ulp.
  const std::size_t level = first.level();
  Ciphertext correction =
      ev.rescale(ev.multiply_const(fixed, Complex(std::ldexp(1.0, -iteration_bits_), 0.0)));
  correction.set_scale(ct.scale());
  return ev.sub(ev.drop_to_level(first, level - 1), correction);
}

Ciphertext Bootstrapper::refresh(const Evaluator& ev, const Ciphertext& ct,
                                 const rlwe::KeySwitchKey* to_sparse,
                                 const rlwe::KeySwitchKey* to_dense) const {
  const bool keys = to_sparse != nullptr;
  const char* const op = "bootstrap";
  rlwe::check_same_params(ev.params(), params_, op);
  rlwe::check_same_params(ct.params(), params_, op);
  if (ct.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(ct.size()) + ")");
  }
  if (encap_params_ && !keys) {
    throw InvalidParameter(std::string(op) + ": this Bootstrapper encapsulates (h' = " +
                           std::to_string(config_.encapsulation_weight) +
                           "): pass its EncapsulationKeys (Bootstrapper::generate_keys)");
  }
  if (!encap_params_ && keys) {
    throw InvalidParameter(std::string(op) +
                           ": encapsulation keys given to a Bootstrapper without encapsulation "
                           "(encapsulation_weight = 0)");
  }
  if (keys) {
    rlwe::check_same_params(to_sparse->params, encap_params_, "bootstrap (key s -> s')");
    rlwe::check_same_params(to_dense->params, params_, "bootstrap (key s' -> s)");
    if (to_sparse->galois_element != 0 || to_dense->galois_element != 0) {
      throw InvalidParameter(std::string(op) +
                             ": a Galois key given as an encapsulation key (generate_keys)");
    }
  }
  for (const std::int64_t s : rotations()) {
    if (!ev.can_rotate(s)) {
      throw InvalidParameter(std::string(op) + ": no Galois key for rotation step " +
                             std::to_string(s) +
                             "; generate the keys of Bootstrapper::rotations()");
    }
  }
  if (input_bits_ > 0) {
    const double ratio = std::log2(static_cast<double>(params_->q_primes()[0])) -
                         std::log2(ct.scale()) - input_bits_;
    if (ratio < config_.message_ratio_bits - 1.0) {
      throw InvalidParameter(std::string(op) + ": a ciphertext at scale 2^" +
                             one_decimal(std::log2(ct.scale())) + ", multiplied by 2^" +
                             std::to_string(input_bits_) + " before ModRaise, leaves q_0/m = 2^" +
                             one_decimal(ratio) + ", more than a bit under the message ratio 2^" +
                             one_decimal(config_.message_ratio_bits) +
                             " this Bootstrapper was made for (its context's scale): bootstrap "
                             "at that scale");
    }
  }
  // ModRaise (of the input times 2^b); the raised message t = 2^b·m + q_0·I read at the working
  // scale (CoeffToSlot's constant assumes Δ').
  Ciphertext x = keys ? encapsulated_raise(ev, ct, *to_sparse, *to_dense)
                      : scaled_raise(ev, ct, input_bits_, op);
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
