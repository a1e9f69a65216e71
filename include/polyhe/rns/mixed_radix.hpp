// Balanced mixed-radix digits of residues (Garner's reconstruction, centred): the exact integer a
// polynomial's coefficient stands for, as digits small enough for machine words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/rns/basis.hpp"

namespace polyhe {

/// For the primes q_0 … q_{k−1} of a basis (odd, pairwise distinct): the centred x in
/// (−Q_k/2, Q_k/2) with x ≡ x_i mod q_i is x = v_0 + q_0·(v_1 + q_1·(v_2 + …)) with every digit
/// |v_i| ≤ (q_i − 1)/2 — for odd primes these digits cover exactly that range, so the centred x's
/// come out directly: v_i = centre((x_i − v_0 − q_0·v_1 − …)/(q_0⋯q_{i−1}) mod q_i), computed as
/// t ← (t − v_j)·q_j^{−1} mod q_i for j < i (Shoup products, lazy). The CKKS decoder composes the
/// digits (in 128-bit integers or doubles) to read a coefficient. Immutable once made; share it.
class MixedRadix {
 public:
  /// Coefficients a call of digits() takes at most.
  static constexpr std::size_t kBlock = 64;

  /// The constants q_j^{−1} mod q_i for every j < i < basis.size().
  explicit MixedRadix(const RnsBasis& basis);

  /// For `count` ≤ kBlock coefficients over the first `primes` primes (≤ the basis's size), the
  /// residue of coefficient c modulo q_i at words[i·stride + c] (in [0, q_i)):
  /// out[i·kBlock + c] = v_i of coefficient c. InvalidParameter for count > kBlock or too many
  /// primes.
  void digits(const std::uint64_t* words, std::size_t stride, std::size_t count, std::size_t primes,
              std::int64_t* out) const;

  [[nodiscard]] std::size_t size() const { return moduli_.size(); }

 private:
  [[noreturn]] void refuse(std::size_t count, std::size_t primes) const;

  std::vector<Modulus<std::uint64_t>> moduli_;
  // inverses_[i·(i−1)/2 + j] = q_j^{−1} mod q_i, for j < i.
  std::vector<ShoupOperand<std::uint64_t>> inverses_;
};

// Inline: the decoder calls it once per 64 coefficients, and out of line it measured 4 % slower
// (a whole decode at N = 2^14, one Zen 5 core).
inline void MixedRadix::digits(const std::uint64_t* words, std::size_t stride, std::size_t count,
                               std::size_t primes, std::int64_t* out) const {
  if (count > kBlock || primes > moduli_.size()) refuse(count, primes);
  std::uint64_t t[kBlock];
  for (std::size_t i = 0; i < primes; ++i) {
    const std::uint64_t q = moduli_[i].value();
    // bias ≡ 0 mod q and ≥ 2^61 > |v_j|: d = t + bias − v_j ≥ 0 is congruent to t − v_j, and with
    // t < 2q < 2^63 (lazy), bias < 2^61 + q < 2^61 + 2^62 and −v_j < 2^61, d < 2^64.
    const std::uint64_t bias = q * (((std::uint64_t{1} << 61) + q - 1) / q);
    for (std::size_t c = 0; c < count; ++c) t[c] = words[i * stride + c];
    const ShoupOperand<std::uint64_t>* inv = inverses_.data() + i * (i - 1) / 2;
    for (std::size_t j = 0; j < i; ++j) {
      const std::int64_t* vj = out + j * kBlock;
      for (std::size_t c = 0; c < count; ++c) {
        const std::uint64_t d = t[c] + bias - static_cast<std::uint64_t>(vj[c]);
        t[c] = mul_shoup_lazy(d, inv[j], q);  // in [0, 2q)
      }
    }
    for (std::size_t c = 0; c < count; ++c) t[c] -= t[c] >= q ? q : 0;
    std::int64_t* vi = out + i * kBlock;
    for (std::size_t c = 0; c < count; ++c) {
      vi[c] = t[c] > q / 2 ? static_cast<std::int64_t>(t[c]) - static_cast<std::int64_t>(q)
                           : static_cast<std::int64_t>(t[c]);
    }
  }
}

}  // namespace polyhe
