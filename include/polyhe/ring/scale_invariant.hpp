// BFV's scale-invariant tensor product as a ring operation (Halevi–Polyakov–Shoup, "An improved
// RNS variant of the BFV homomorphic encryption scheme", §4): both ciphertexts extended exactly
// from Q_l to Q_l ∪ R_l, tensored there, scaled by t/Q_l and rounded over R_l, and brought back
// to Q_l. Runs where the ciphertexts live (ring/device.hpp), the same words on the host and on a
// device.
#pragma once

#include <cstddef>
#include <memory>

#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/scale_rounder.hpp"

namespace polyhe {

/// The tables of the product at one level l (bgv::Context builds them once): the auxiliary ring
/// R (its first aux_limbs primes are R_l), the exact conversions Q_l → R_l and R_l → Q_l, and the
/// scale-and-round from Q_l ∪ R_l to R_l. The pointers stay owned by their builder.
struct ScaleInvariantTables {
  std::shared_ptr<const RingContext> aux_ring;
  std::size_t aux_limbs = 0;
  const BaseConverter* q_to_r = nullptr;
  const BaseConverter* r_to_q = nullptr;
  const ScaleRounder* scale = nullptr;
};

/// round(t/Q_l · (a0 + a1·s)(b0 + b1·s)) as three parts (c0, c1, c2) over Q_l in evaluation
/// form, where the operands live: the operands in evaluation form at level l (l + 1 limbs, the
/// tables' level), all alike (checked, as tensor()). Exact up to the HPS rounding bounds stated by
/// ScaleRounder and BaseConverter::convert_exact.
[[nodiscard]] TensorProduct scale_invariant_tensor(const ScaleInvariantTables& tables,
                                                   const RnsPoly& a0, const RnsPoly& a1,
                                                   const RnsPoly& b0, const RnsPoly& b1);

}  // namespace polyhe
