// KeySwitchParts: the dnum pairs (b_j, a_j) of a key-switching key, stored the way the key switch
// reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "polyhe/ntt/plan.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/poly.hpp"

namespace polyhe::rlwe {

/// `count` pairs (b_j, a_j) of polynomials over all of Q ∪ P (the ring's max_limbs() limbs) in
/// evaluation form. The key switch needs limb t of every part, one limb t at a time
/// (vec::key_inner_products), so the parts are stored limb by limb and, within a limb, in groups
/// of G = min(8, N) coefficients ordered b_0, a_0, b_1, a_1, …, b_{count−1}, a_{count−1}: word r of
/// group g of half h (0 = b, 1 = a) of part j in limb t is at
///   ((t·(N/G) + g)·2·count + 2·j + h)·G + r.
/// Read this way the key is one sequential stream and the inner product runs at the memory's
/// speed; as 2·count separate rows it ran 2–3× slower (perf.md §8). b(j) and a(j) rebuild the
/// polynomials (serialisation, tests).
class KeySwitchParts {
 public:
  KeySwitchParts() = default;
  /// count zero pairs over all limbs of `ring` (count ≥ 1, checked).
  KeySwitchParts(std::shared_ptr<const RingContext> ring, std::size_t count);

  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] const std::shared_ptr<const RingContext>& context() const { return ring_; }

  /// b_j and a_j as polynomials over all limbs, evaluation form (copies; j < count(), checked).
  [[nodiscard]] RnsPoly b(std::size_t j) const { return part(j, 0); }
  [[nodiscard]] RnsPoly a(std::size_t j) const { return part(j, 1); }
  /// Stores the pair j (j < count()): b and a of this ring, over all its limbs, in evaluation form
  /// (checked: InvalidParameter, or MismatchedContext for another ring).
  void set(std::size_t j, const RnsPoly& b, const RnsPoly& a);

  /// Limb t of every part, interleaved as above: 2·count·N words (t < max_limbs(), checked).
  [[nodiscard]] std::span<const std::uint64_t> limb(std::size_t t) const;

 private:
  [[nodiscard]] RnsPoly part(std::size_t j, std::size_t half) const;
  void check_part(std::size_t j, const char* op) const;

  std::shared_ptr<const RingContext> ring_;
  std::size_t count_ = 0;
  std::size_t group_ = 0;
  AlignedVector<std::uint64_t> words_;
};

}  // namespace polyhe::rlwe
