// Plaintext matrix × encrypted vector: the diagonal method (Halevi–Shoup) with baby-step
// giant-step and hoisted baby rotations, over the slots of a CKKS ciphertext.
//
// For an n × n matrix M (n = N/2 slots), diagonal k is d_k[j] = M[j][(j + k) mod n], and
//     M·x = Σ_k d_k ⊙ rot(x, k),           rot(x, k)[j] = x[(j + k) mod n] (a left rotation).
// With k = n1·g + b (0 ≤ b < n1) and rot(d, −n1·g) ⊙ rot(x, n1·g + b) = rot(rot(d, −n1·g) ⊙
// rot(x, b), n1·g):
//     M·x = Σ_g rot( Σ_b rot(d_{n1·g+b}, −n1·g) ⊙ rot(x, b), n1·g ).
// The baby rotations rot(x, b) share one ModUp (Evaluator::rotate_many); each giant step costs
// one rotation. The rotated diagonals are encoded once, at the level and scale where they are
// used (default scale: q_level, so that the rescale after apply() returns the input's scale
// exactly). rotations() names the Galois keys a transform needs, and nothing else.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"

namespace polyhe::ckks {

/// The nonzero diagonals of a slots × slots matrix, by index k ∈ [0, slots): diagonal k holds
/// M[j][(j + k) mod slots] at position j, slots() values each.
using Diagonals = std::map<std::size_t, std::vector<std::complex<double>>>;

/// The diagonals of the slots × slots matrix that holds `m` (rows × cols, row-major, each ≤
/// slots) in its top-left corner and zeros elsewhere, so that M·x reads the first cols slots of
/// x and writes the first rows. transpose: the diagonals of mᵀ instead (x·m for a row vector x:
/// the product with the matrix on the other side, without transposing it first). Only nonzero
/// diagonals are kept. InvalidParameter for a shape that does not fit or a non-finite entry.
[[nodiscard]] Diagonals diagonals_of(std::span<const std::complex<double>> m, std::size_t rows,
                                     std::size_t cols, std::size_t slots, bool transpose = false);

class LinearTransform {
 public:
  /// The transform of `diagonals` for ciphertexts at `level` (≤ L), its diagonals encoded at
  /// `scale` (0: q_level, exact after the rescale that follows). baby_steps n1: a power of two
  /// in [1, slots] (0: the one that needs the fewest rotations). InvalidParameter: a diagonal
  /// index ≥ slots, a diagonal of another length or with a non-finite value, no diagonal, a
  /// level above L, a bad scale or baby-step count.
  LinearTransform(const Context& ctx, const Diagonals& diagonals, std::size_t level,
                  double scale = 0, std::size_t baby_steps = 0);

  /// The slot rotations apply() needs Galois keys for (left steps > 0, increasing): the baby
  /// steps 1 … n1 − 1 that some diagonal uses and the giant steps n1·g ≠ 0.
  [[nodiscard]] std::vector<std::int64_t> rotations() const;

  /// M·ct, not rescaled: its scale is ct.scale() · scale(), its level ct's. ct must be at
  /// level(), of size 2, on the device the transform lives on (to_device); the evaluator needs
  /// the Galois keys of rotations() (InvalidParameter naming a missing one before any work).
  [[nodiscard]] Ciphertext apply(const Evaluator& ev, const Ciphertext& ct) const;

  /// A copy whose encoded diagonals live on `device` (null: host memory).
  [[nodiscard]] LinearTransform to_device(const std::shared_ptr<Device>& device) const;

  [[nodiscard]] std::size_t level() const { return level_; }
  [[nodiscard]] double scale() const { return scale_; }
  [[nodiscard]] std::size_t baby_steps() const { return n1_; }
  /// The number of nonzero diagonals (plaintexts held).
  [[nodiscard]] std::size_t diagonal_count() const;

 private:
  LinearTransform() = default;

  ParametersPtr params_;
  std::size_t level_ = 0;
  double scale_ = 0;
  std::size_t slots_ = 0;
  std::size_t n1_ = 1;
  // giant g → (baby b → rot(d_{n1·g+b}, −n1·g) encoded).
  std::map<std::size_t, std::map<std::size_t, Plaintext>> plain_;
};

}  // namespace polyhe::ckks
