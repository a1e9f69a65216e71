// Rescaling by the last prime ([RNS-CKKS-GPU, Alg. 9/19]): from Q_L = q_0..q_L to Q_{L−1},
// dividing by q_L.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "polyhe/rns/basis.hpp"

namespace polyhe {

/// Division by the last prime q_L of a basis of L + 1 ≥ 2 primes, with its constants
/// (q_L^−1 mod q_i with Shoup companions, ⌊q_L/2⌋·q_L^−1 mod q_i) built once. Exact: x_L = x mod
/// q_L is known exactly, so there is no approximation error.
///
/// in: (L + 1)·N words over the basis; out: L·N words over its prefix q_0..q_{L−1}. out may be
/// exactly the first L·N words of in (in place) or disjoint from in; no other overlap (checked).
/// Threads as in BaseConverter.
class Rescaler {
 public:
  /// Throws InvalidParameter unless the basis has at least 2 primes.
  explicit Rescaler(RnsBasis basis);

  [[nodiscard]] const RnsBasis& from() const { return from_; }
  [[nodiscard]] const RnsBasis& to() const { return to_; }

  /// ⌊x/q_L⌋ for x ∈ [0, Q_L): x_i' = (x_i − x_L)·q_L^−1 mod q_i ([RNS-CKKS-GPU, Alg. 9]).
  void floor(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
             unsigned threads = 0) const;

  /// round(x/q_L) = ⌊(x + ⌊q_L/2⌋)/q_L⌋ for x ∈ [0, Q_L) (ties, impossible for odd q_L, would
  /// round up): ⌊q_L/2⌋ is added to x_L before and its share ⌊q_L/2⌋·q_L^−1 added after,
  /// x_i' = (x_i − [x_L + ⌊q_L/2⌋]_{q_L})·q_L^−1 + ⌊q_L/2⌋·q_L^−1 mod q_i. A result ≥ Q_{L−1}
  /// (x within q_L/2 of Q_L) wraps to 0 mod Q_{L−1}, as the centred view expects.
  void round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
             unsigned threads = 0) const;

 private:
  void run(std::span<const std::uint64_t> in, std::span<std::uint64_t> out, bool rounded,
           unsigned threads) const;

  RnsBasis from_;
  RnsBasis to_;
  std::vector<ShoupOperand<std::uint64_t>> q_last_inv_;  // q_L^−1 mod q_i
  std::vector<ShoupOperand<std::uint64_t>> one_;         // 1 mod q_i: Shoup reduces any word
  std::vector<std::uint64_t> half_inv_;                  // ⌊q_L/2⌋·q_L^−1 mod q_i
};

}  // namespace polyhe
