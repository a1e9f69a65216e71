// BGV decryption's last step in RNS: the centred residue x_c ∈ (−Q/2, Q/2] of x mod Q (given
// over the basis Q), reduced modulo a plaintext modulus t that need not be prime, times a unit f of
// Z_t — the exact conversion of Halevi–Polyakov–Shoup (BaseConverter::convert_exact's sums) to
// one target that an RnsBasis could not hold.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/rns/basis.hpp"

namespace polyhe {

/// With y_i = [x_i·q̂_i^−1]_{q_i} and v = round(Σ_i y_i/q_i) (double), x_c ≡ Σ_i y_i·q̂_i − v·Q
/// (mod t), exact unless x lies within Q·δ of ±Q/2 (δ = |Q|·(|Q| + 3)·2^−53, as convert_exact) —
/// far outside every decryptable ciphertext's range.
class PlainReducer {
 public:
  /// Q and 2 ≤ t < 2^60 (InvalidParameter naming t otherwise).
  PlainReducer(RnsBasis q, std::uint64_t t);
  [[nodiscard]] const RnsBasis& basis() const { return q_; }
  [[nodiscard]] std::uint64_t plain_modulus() const { return t_; }
  /// out[k] = f·[x_c]_t for the |Q| limbs of N words in x (every word below its prime), N =
  /// out.size() (checked: x holds |Q|·N words); f < t, a unit (checked: InvalidParameter).
  /// Blocks of coefficients run on the default thread pool.
  void reduce(std::span<const std::uint64_t> x, std::uint64_t f,
              std::span<std::uint64_t> out) const;

 private:
  RnsBasis q_;
  std::uint64_t t_;
  std::vector<ShoupOperand<std::uint64_t>> hat_mod_t_;  // q̂_i mod t
  std::vector<std::uint64_t> hat_raw_;                  // the same, plain
  std::vector<double> inv_q_;                           // 1/q_i
  ShoupOperand<std::uint64_t> q_mod_t_;                 // Q mod t
};

}  // namespace polyhe
