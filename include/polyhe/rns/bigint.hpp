// Exact reconstruction between RNS limbs and big integers (GMP), for tests and decoding, and an
// RnsBasis's big-integer constants. The one public header that includes GMP: include it when you
// want big integers.
#pragma once

#include <gmpxx.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/rns/basis.hpp"

namespace polyhe {

class BfvDecryptRounder;  // rns/decrypt_rounder.hpp

// Layout as everywhere: |basis| limbs of N words, limb i at [i·N, (i+1)·N), words in [0, q_i)
// (a precondition; the reconstruction of an unreduced word is still x mod Q of what was given).
// N is inferred from the size (checked: a whole, non-zero number of limbs).

/// Q = Π q_i of the basis.
[[nodiscard]] const mpz_class& big_product(const RnsBasis& basis);
/// q̂_i = Q / q_i (i < |basis|, a precondition).
[[nodiscard]] const mpz_class& big_q_hat(const RnsBasis& basis, std::size_t i);

/// The largest noise |v| for which every x ≡ ⌊Q/t⌋·m + v (mod Q), 0 ≤ m < t, decrypts to m
/// under the rounder (rns/decrypt_rounder.hpp, its formula). Negative when Q is too small for t
/// to guarantee any message.
[[nodiscard]] mpz_class bfv_max_noise(const BfvDecryptRounder& rounder);

/// The CRT composition x = Σ_i [x_i·q̂_i^−1]_{q_i}·q̂_i mod Q of coefficient `index`, in [0, Q).
/// Throws InvalidParameter when index ≥ N.
mpz_class to_bigint(std::span<const std::uint64_t> limbs, const RnsBasis& basis, std::size_t index);

/// Every coefficient, in [0, Q).
std::vector<mpz_class> to_bigint(std::span<const std::uint64_t> limbs, const RnsBasis& basis);

/// Every coefficient, centred: in (−Q/2, Q/2].
std::vector<mpz_class> to_bigint_centred(std::span<const std::uint64_t> limbs,
                                         const RnsBasis& basis);

/// The representative of x mod m in (−m/2, m/2], for m ≥ 1.
mpz_class centre(const mpz_class& x, const mpz_class& m);

/// The reverse: out[i·N + c] = values[c] mod q_i, in [0, q_i), for integers of any sign and size
/// (N = values.size(); out.size() must be |basis|·N, checked).
void from_bigint(std::span<const mpz_class> values, const RnsBasis& basis,
                 std::span<std::uint64_t> out);

}  // namespace polyhe
