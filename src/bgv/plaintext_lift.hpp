// Internal to polyhe_bgv: the plaintext checks and the centred lift of a plaintext to Z_Q that
// BFV (multiply_plain) and BGV (encryption, plaintext operations) share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "polyhe/bgv/context.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/poly_ops.hpp"

namespace polyhe::bgv::detail {

/// InvalidParameter unless m has N coefficients, each < t; the message names `op`, the size or
/// the first offending coefficient and its index.
inline void check_plaintext(const Context& ctx, const Plaintext& m, const char* op) {
  const std::size_t n = ctx.n();
  if (m.coeffs.size() != n) {
    throw InvalidParameter(std::string(op) + ": the plaintext has " +
                           std::to_string(m.coeffs.size()) + " coefficients; it must have N = " +
                           std::to_string(n) + " (encode it with the context's encoder)");
  }
  const std::uint64_t t = ctx.t().value();
  for (std::size_t i = 0; i < n; ++i) {
    if (m.coeffs[i] >= t) {
      throw InvalidParameter(std::string(op) + ": plaintext coefficient " +
                             std::to_string(m.coeffs[i]) + " at index " + std::to_string(i) +
                             " is not below t = " + std::to_string(t));
    }
  }
}

/// m lifted centred to Q_l (each coefficient's representative in (−t/2, t/2]) and transformed:
/// l + 1 limbs, evaluation form, on `device` (null: host memory; the lift runs on the host, the
/// transform where the polynomial lives). Precondition: check_plaintext.
inline RnsPoly lifted_plaintext(const Context& ctx, const Plaintext& m, std::size_t l,
                                const std::shared_ptr<Device>& device) {
  RnsPoly out = lift_from_plain(m.coeffs, ctx.t().value(), ctx.params()->ring(), l + 1, device);
  out.to_evaluation();
  return out;
}

}  // namespace polyhe::bgv::detail
