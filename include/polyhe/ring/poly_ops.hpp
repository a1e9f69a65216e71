// Ring operations on RnsPolys that make a new polynomial (out of place, one pass, no copy of an
// operand first) or combine a polynomial with a key over more limbs. Each runs where its operands
// live (ring/device.hpp) and gives the same words on the host and on a device.
//
// Checks (every build): operands of one context and placement (MismatchedContext), equal limb
// counts where said, the forms the operation needs (InvalidParameter), each naming the operation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "polyhe/ring/poly.hpp"

namespace polyhe {

/// a + b, a − b and −a (either form; a and b alike).
[[nodiscard]] RnsPoly sum(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] RnsPoly difference(const RnsPoly& a, const RnsPoly& b);
[[nodiscard]] RnsPoly negation(const RnsPoly& a);
/// a·b slot-wise (evaluation form; a and b alike).
[[nodiscard]] RnsPoly product(const RnsPoly& a, const RnsPoly& b);

/// The first `limbs` limbs of p (1 ≤ limbs ≤ p.limbs(), checked), in p's form and placement.
[[nodiscard]] RnsPoly prefix(const RnsPoly& p, std::size_t limbs);

/// a·s and d + a·s over a's l limbs, evaluation form, where s may hold more limbs (a key kept
/// over all of Q ∪ P): its first l limbs are used. d at a's limb count.
[[nodiscard]] RnsPoly multiply_by_prefix(const RnsPoly& a, const RnsPoly& s);
[[nodiscard]] RnsPoly multiply_add_by_prefix(const RnsPoly& a, const RnsPoly& s, const RnsPoly& d);

/// Plaintexts modulo t lifted into the ring (coefficient form, `limbs` limbs of `ring`, where
/// `device` says: computed on the host, then uploaded): limb j holds the centred lift of x
/// (residues modulo t: x_i − t where x_i > ⌊t/2⌋) modulo q_j; the scaled form holds
/// lift(x)·scalars[j] + lift(y) (BFV's Δ·m plus its rounding correction). Checks: every x_i, y_i
/// below t, 2 ≤ t < 2^62, N coefficients each, one scalar per limb below its prime.
[[nodiscard]] RnsPoly lift_from_plain(std::span<const std::uint64_t> x, std::uint64_t t,
                                      const std::shared_ptr<const RingContext>& ring,
                                      std::size_t limbs, const std::shared_ptr<Device>& device);
[[nodiscard]] RnsPoly lift_from_plain_scaled(std::span<const std::uint64_t> x,
                                             std::span<const std::uint64_t> y, std::uint64_t t,
                                             std::span<const std::uint64_t> scalars,
                                             const std::shared_ptr<const RingContext>& ring,
                                             std::size_t limbs,
                                             const std::shared_ptr<Device>& device);

/// The degree-2 product of (a0, a1) and (b0, b1), evaluation form, all four alike:
/// c0 = a0·b0, c1 = a0·b1 + a1·b0, c2 = a1·b1.
struct TensorProduct {
  RnsPoly c0;
  RnsPoly c1;
  RnsPoly c2;
};
[[nodiscard]] TensorProduct tensor(const RnsPoly& a0, const RnsPoly& a1, const RnsPoly& b0,
                                   const RnsPoly& b1);

}  // namespace polyhe
