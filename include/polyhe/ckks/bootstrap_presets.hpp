// Bootstrappable CKKS parameter sets at 128-bit security, one call each: "N = 2^16, bootstrappable,
// 10 levels for me". A dense (uniform ternary) secret whose log2(QP) the HE standard's table
// bounds, sparse-secret encapsulation (h' = 32) for ModRaise, and a chain laid out as
//
//   q_0 | the user's levels (Δ) | SlotToCoeff | EvalMod | CoeffToSlot    + the special primes P
//
// (the bootstrap consumes the top levels first). docs/ckks-bootstrapping.md lists each set's
// chain, precision, key sizes and time.
#pragma once

#include <cstddef>

#include "polyhe/ckks/bootstrap.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::ckks {

struct BootstrappableParameters {
  rlwe::ParametersLiteral literal;  ///< rlwe::Parameters::create(literal): 128-bit, dense secret
  BootstrapConfig config;           ///< the Bootstrapper's configuration (encapsulation on)
  double scale = 0;                 ///< Δ of the user's levels: Context::create(params, scale)
  std::size_t levels = 0;           ///< the user's levels: a bootstrap returns at this level
};

/// The presets' two kinds. standard: one bootstrap, the fastest (about 18 bits). high: two
/// iterations (BootstrapConfig::iterations) with 50-bit user levels (Δ = 2^50, whose fresh
/// encryptions and rescales keep about 33 bits where Δ = 2^40 keeps 23.6) and q_0 of 60 bits:
/// about 33 bits for twice the time, one more level of the chain and four fewer user levels;
/// N = 2^16 only.
enum class BootstrapPrecision { standard, high };

/// The most user levels a bootstrappable set of N = 2^log_n holds at 128 bits: 12 for log_n = 16,
/// 2 for log_n = 15; 8 for log_n = 16 at high precision. InvalidParameter for any other log_n (a
/// smaller ring's 128-bit bound on log2(QP) cannot hold a bootstrap's dozen levels of 50 bits
/// and more; the estimates for the sparse encapsulation key cover N = 2^15 and 2^16 only) and for
/// high precision at N = 2^15 (its 881 bits hold no second iteration, and its fresh
/// encryptions at Δ = 2^35 keep only about 20 bits).
[[nodiscard]] std::size_t max_bootstrappable_levels(
    int log_n, BootstrapPrecision precision = BootstrapPrecision::standard);

/// The set of N = 2^log_n with `levels` user levels (1 ≤ levels ≤ max_bootstrappable_levels):
/// N = 2^16: q_0 of 55 bits, 40-bit user levels (Δ = 2^40), CoeffToSlot in 4 and SlotToCoeff in
/// 3 levels, EvalMod by a cosine and 4 double angles (9 levels), all 16 bootstrapping primes of
/// 60 bits, P = 4 × 61 bits.
/// N = 2^15: q_0 of 50 bits, 35-bit user levels (Δ = 2^35), CoeffToSlot and SlotToCoeff in 2
/// levels each, EvalMod by the scaled sine's Chebyshev series in its optimal depth (8 levels), all
/// 12 bootstrapping primes of 58 bits, P one prime of 59 bits with key-switching digits of one
/// prime (dnum = L + 1). (2^15's bound of 881 bits leaves little: prefer N = 2^16.)
/// Both take a message ratio of ρ = 9 bits (BootstrapConfig::message_ratio_bits: the input
/// scaled by 2^6 (2^16) or 2^5 (2^15) before ModRaise), where the bootstrap's noise and the
/// sine's error on a constant vector are about equal.
/// N = 2^16 at high precision: q_0 of 60 bits, 50-bit user levels (Δ = 2^50, the input not
/// scaled), two iterations (p estimated: 16) and 17 bootstrapping primes of 60 bits, the rest as
/// the standard set.
/// InvalidParameter naming the rule for another log_n or a level count out of range.
[[nodiscard]] BootstrappableParameters bootstrappable_parameters(
    int log_n, std::size_t levels, BootstrapPrecision precision = BootstrapPrecision::standard);

}  // namespace polyhe::ckks
