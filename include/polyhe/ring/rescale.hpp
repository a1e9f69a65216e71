// Division by the last prime as a ring operation ([RNS-CKKS-GPU, Alg. 9/19] rescale): CKKS's
// rescale (μ = 1) and BGV's modulus switch (μ = t). It runs where its polynomials live: on the host
// the CPU kernels (the centred lift fused with each limb's transform), on a device the device's
// kernels — the same words either way. The schemes call it; they never touch a kernel.
#pragma once

#include <cstdint>
#include <span>

#include "polyhe/ring/poly.hpp"

namespace polyhe {

/// Division by the last prime q_l of each polynomial x at level l ≥ 1 (evaluation form), into out
/// (a new polynomial at level l − 1 where x lives) or, in place, x itself dropping its last limb:
/// (x − δ)·q_l^−1 limb by limb with δ ≡ x mod q_l, δ = μ·[x_l·μ^−1]_centred, transformed under
/// each q_i. Error multiple μ = 1: round(x/q_l), CKKS's rescale. μ = t: BGV's modulus switch,
/// whose correction δ is ≡ 0 mod t so the message survives (times q_l^−1 mod t). Checks: level
/// ≥ 1, evaluation form, all alike (context, level, placement), μ invertible mod q_l.
void rescale_by_last_prime(std::span<const RnsPoly* const> in, std::span<RnsPoly* const> out,
                           std::uint64_t error_multiple = 1);
void rescale_by_last_prime_inplace(std::span<RnsPoly* const> polys,
                                   std::uint64_t error_multiple = 1);

}  // namespace polyhe
