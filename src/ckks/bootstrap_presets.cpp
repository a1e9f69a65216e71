#include "polyhe/ckks/bootstrap_presets.hpp"

#include <cmath>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

namespace {

// One ring's layout: the bit sizes of each part of the chain and the bootstrap's configuration.
struct Layout {
  int q0_bits;
  int user_bits;
  int boot_bits;
  int special_bits;
  std::size_t special_count;
  std::size_t coeff_to_slot_levels;
  std::size_t slot_to_coeff_levels;
  EvalMod eval_mod;
  std::size_t eval_mod_levels;  // EvalMod's depth for K = 16 (checked by the tests)
  std::size_t max_levels;       // the most user levels within the 128-bit bound on log2(QP)
  bool prime_digits;            // dnum = L + 1 (one prime per digit: P of one prime suffices)
  double message_ratio_bits;    // ρ: the input scaled to within 2^ρ of q_0 before ModRaise
  std::size_t iterations;       // 1, or 2 (a second bootstrap of the first one's error)
};

Layout layout_for(int log_n, BootstrapPrecision precision) {
  // Precision is set by the message ratio ρ' = log2(q_0/(2^b·Δ)) ModRaise sees (the input is
  // scaled by 2^b to reach ρ, in [ρ, ρ + 1)): the bootstrap's own noise lies about 28 − ρ' bits
  // below the message at N = 2^16 (29 − ρ' at 2^15), the sine's error (2π·m/q_0)²/6 about
  // 2ρ' − 2.7 bits below a coefficient m as large as q_0/2^ρ' (a constant vector's). ρ = 9
  // balances the two: about 18 bits for any input.
  // 2^15's 881 bits are tight: digits of one prime let P be a single prime and leave 58-bit
  // bootstrapping primes room.
  // High precision: two iterations square the bootstrap's error, so what is left is the rounding
  // of a rescale at Δ, about a fresh encryption's noise: Δ = 2^50 keeps about 33 bits (2^45: 28,
  // 2^40: 23.6), and q_0 of 60 bits keeps ρ = 9 with b = 0.
  // 60 + 50·8 + 17·60 + 4·61 = 1724 bits, within 2^16's 1747.
  if (precision == BootstrapPrecision::high) {
    if (log_n == 16) return {60, 50, 60, 61, 4, 4, 3, EvalMod::double_angle, 9, 8, false, 9, 2};
    if (log_n == 15) {
      throw InvalidParameter(
          "bootstrappable_parameters: high precision needs log_n = 16 (N = 2^15's 881 bits hold "
          "no second iteration, and its fresh encryptions at Δ = 2^35 keep about 20 bits)");
    }
  }
  if (log_n == 16) return {55, 40, 60, 61, 4, 4, 3, EvalMod::double_angle, 9, 12, false, 9, 1};
  if (log_n == 15) return {50, 35, 58, 59, 1, 2, 2, EvalMod::chebyshev, 8, 2, true, 9, 1};
  throw InvalidParameter("bootstrappable_parameters: log_n = " + std::to_string(log_n) +
                         " has no 128-bit bootstrappable set; use 15 or 16");
}

}  // namespace

std::size_t max_bootstrappable_levels(int log_n, BootstrapPrecision precision) {
  return layout_for(log_n, precision).max_levels;
}

BootstrappableParameters bootstrappable_parameters(int log_n, std::size_t levels,
                                                   BootstrapPrecision precision) {
  const Layout l = layout_for(log_n, precision);
  if (levels < 1 || levels > l.max_levels) {
    throw InvalidParameter("bootstrappable_parameters: levels = " + std::to_string(levels) +
                           " is outside [1, " + std::to_string(l.max_levels) + "] for N = 2^" +
                           std::to_string(log_n) + " at 128-bit security" +
                           (precision == BootstrapPrecision::high ? " and high precision" : ""));
  }
  BootstrappableParameters out;
  rlwe::ParametersLiteral& lit = out.literal;
  lit.log_n = log_n;
  lit.q_bits.push_back(l.q0_bits);
  lit.q_bits.insert(lit.q_bits.end(), levels, l.user_bits);
  const std::size_t boot =
      l.coeff_to_slot_levels + l.eval_mod_levels + l.slot_to_coeff_levels + (l.iterations - 1);
  lit.q_bits.insert(lit.q_bits.end(), boot, l.boot_bits);
  lit.p_bits.assign(l.special_count, l.special_bits);
  if (l.prime_digits) lit.dnum = lit.q_bits.size();
  lit.security = rlwe::SecurityLevel::bits128;
  out.config.coeff_to_slot_levels = l.coeff_to_slot_levels;
  out.config.slot_to_coeff_levels = l.slot_to_coeff_levels;
  out.config.eval_mod = l.eval_mod;
  out.config.k = 16;
  out.config.encapsulation_weight = 32;
  out.config.message_ratio_bits = l.message_ratio_bits;
  out.config.iterations = l.iterations;
  out.scale = std::ldexp(1.0, l.user_bits);
  out.levels = levels;
  return out;
}

}  // namespace polyhe::ckks
