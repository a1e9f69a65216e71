// Out-of-place ring operations (ring/poly_ops.hpp): on the host the polyhe::vec kernels, on a
// device its kernels, into a for-overwrite result where the operands live.
#include "polyhe/ring/poly_ops.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"

namespace polyhe {

namespace {

RnsPoly like(const RnsPoly& a, std::size_t limbs) {
  return RnsPoly(a.context(), limbs, a.form(), RnsPoly::kForOverwrite, a.device());
}

/// s may hold more limbs than a (a key over Q ∪ P); same context and placement, both in
/// evaluation form.
void check_prefix_operand(const RnsPoly& a, const RnsPoly& s, const char* op) {
  if (a.context() != s.context() || a.device() != s.device()) {
    throw MismatchedContext(std::string(op) +
                            ": the operand and the key belong to different contexts or live in "
                            "different places (move one with to_device() or to_host())");
  }
  if (s.limbs() < a.limbs()) {
    throw InvalidParameter(std::string(op) + ": the key has " + std::to_string(s.limbs()) +
                           " limbs, fewer than the operand's " + std::to_string(a.limbs()));
  }
  a.require_evaluation(op);
  s.require_evaluation(op);
}

enum class Combine { add, sub, multiply };

RnsPoly combine(const RnsPoly& a, const RnsPoly& b, Combine op, const char* name) {
  a.check_compatible(b, name);
  if (op == Combine::multiply) a.require_evaluation(name);
  RnsPoly c = like(a, a.limbs());
  if (a.on_device()) {
    const Device::Binary binary = op == Combine::add   ? Device::Binary::add
                                  : op == Combine::sub ? Device::Binary::sub
                                                       : Device::Binary::multiply;
    a.device()->binary(binary, *a.context(), LimbRange{0, a.limbs()}, a.device_words(),
                       b.device_words(), c.device_words());
    return c;
  }
  const auto moduli = a.context()->moduli(a.limbs());
  switch (op) {
    case Combine::add: vec::add(a.data(), b.data(), c.data(), moduli); break;
    case Combine::sub: vec::sub(a.data(), b.data(), c.data(), moduli); break;
    case Combine::multiply: vec::multiply(a.data(), b.data(), c.data(), moduli); break;
  }
  return c;
}

}  // namespace

RnsPoly sum(const RnsPoly& a, const RnsPoly& b) {
  return combine(a, b, Combine::add, "sum");
}

RnsPoly difference(const RnsPoly& a, const RnsPoly& b) {
  return combine(a, b, Combine::sub, "difference");
}

RnsPoly product(const RnsPoly& a, const RnsPoly& b) {
  return combine(a, b, Combine::multiply, "product");
}

RnsPoly negation(const RnsPoly& a) {
  RnsPoly c = like(a, a.limbs());
  if (a.on_device()) {
    a.device()->negate(*a.context(), LimbRange{0, a.limbs()}, a.device_words(), c.device_words());
  } else {
    vec::negate(a.data(), c.data(), a.context()->moduli(a.limbs()));
  }
  return c;
}

RnsPoly prefix(const RnsPoly& p, std::size_t limbs) {
  if (limbs == 0 || limbs > p.limbs()) {
    throw InvalidParameter("prefix: " + std::to_string(limbs) +
                           " limbs requested of a polynomial with " + std::to_string(p.limbs()));
  }
  RnsPoly out = like(p, limbs);
  const std::size_t words = limbs * p.n();
  if (p.on_device()) {
    p.device()->copy(p.device_words(), out.device_words(), words);
  } else {
    std::memcpy(out.data().data(), p.data().data(), words * sizeof(std::uint64_t));
  }
  return out;
}

RnsPoly multiply_by_prefix(const RnsPoly& a, const RnsPoly& s) {
  check_prefix_operand(a, s, "multiply_by_prefix");
  RnsPoly c = like(a, a.limbs());
  if (a.on_device()) {
    a.device()->binary(Device::Binary::multiply, *a.context(), LimbRange{0, a.limbs()},
                       a.device_words(), s.device_words(), c.device_words());
  } else {
    vec::multiply(a.data(), s.data().first(a.data().size()), c.data(),
                  a.context()->moduli(a.limbs()));
  }
  return c;
}

RnsPoly multiply_add_by_prefix(const RnsPoly& a, const RnsPoly& s, const RnsPoly& d) {
  check_prefix_operand(a, s, "multiply_add_by_prefix");
  a.check_compatible(d, "multiply_add_by_prefix");
  RnsPoly c = like(a, a.limbs());
  if (a.on_device()) {
    a.device()->multiply_add(*a.context(), LimbRange{0, a.limbs()}, a.device_words(),
                             s.device_words(), d.device_words(), c.device_words());
  } else {
    vec::multiply_add(a.data(), s.data().first(a.data().size()), d.data(), c.data(),
                      a.context()->moduli(a.limbs()));
  }
  return c;
}

namespace {

void check_plain(std::span<const std::uint64_t> x, std::uint64_t t, std::size_t n, const char* op) {
  if (t < 2 || t >= (std::uint64_t{1} << 62)) {
    throw InvalidParameter(std::string(op) + ": t = " + std::to_string(t) +
                           " is outside [2, 2^62)");
  }
  if (x.size() != n) {
    throw InvalidParameter(std::string(op) + ": " + std::to_string(x.size()) +
                           " coefficients for N = " + std::to_string(n));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] >= t) {
      throw InvalidParameter(std::string(op) + ": coefficient " + std::to_string(i) + " = " +
                             std::to_string(x[i]) + " is not below t = " + std::to_string(t));
    }
  }
}

RnsPoly placed(RnsPoly host, const std::shared_ptr<Device>& device) {
  if (!device) return host;  // moved, not copied
  return host.to_device(device);
}

}  // namespace

RnsPoly lift_from_plain(std::span<const std::uint64_t> x, std::uint64_t t,
                        const std::shared_ptr<const RingContext>& ring, std::size_t limbs,
                        const std::shared_ptr<Device>& device) {
  RnsPoly out(ring, limbs, PolyForm::kCoefficient, RnsPoly::kForOverwrite);
  check_plain(x, t, out.n(), "lift_from_plain");
  for (std::size_t i = 0; i < limbs; ++i) {
    vec::lift_centred(x, t, out.limb(i), ring->basis().modulus(i));
  }
  return placed(std::move(out), device);
}

RnsPoly lift_from_plain_scaled(std::span<const std::uint64_t> x, std::span<const std::uint64_t> y,
                               std::uint64_t t, std::span<const std::uint64_t> scalars,
                               const std::shared_ptr<const RingContext>& ring, std::size_t limbs,
                               const std::shared_ptr<Device>& device) {
  RnsPoly out(ring, limbs, PolyForm::kCoefficient, RnsPoly::kForOverwrite);
  check_plain(x, t, out.n(), "lift_from_plain_scaled");
  check_plain(y, t, out.n(), "lift_from_plain_scaled");
  if (scalars.size() != limbs) {
    throw InvalidParameter("lift_from_plain_scaled: " + std::to_string(scalars.size()) +
                           " scalars for " + std::to_string(limbs) + " limbs");
  }
  // Limb by limb in one pass over it (the lifted correction in a limb-sized scratch).
  AlignedVector<std::uint64_t> lifted(out.n());
  for (std::size_t i = 0; i < limbs; ++i) {
    const auto& qi = ring->basis().modulus(i);
    if (scalars[i] >= qi.value()) {
      throw InvalidParameter("lift_from_plain_scaled: scalar " + std::to_string(i) +
                             " is not below q = " + std::to_string(qi.value()));
    }
    const std::span<std::uint64_t> limb = out.limb(i);
    vec::lift_centred(x, t, limb, qi);
    vec::multiply_scalar(limb, scalars[i], limb, qi);
    vec::lift_centred(y, t, lifted, qi);
    vec::add(limb, lifted, limb, qi);
  }
  return placed(std::move(out), device);
}

TensorProduct tensor(const RnsPoly& a0, const RnsPoly& a1, const RnsPoly& b0, const RnsPoly& b1) {
  a0.check_compatible(a1, "tensor");
  a0.check_compatible(b0, "tensor");
  a0.check_compatible(b1, "tensor");
  a0.require_evaluation("tensor");
  TensorProduct t{like(a0, a0.limbs()), like(a0, a0.limbs()), like(a0, a0.limbs())};
  if (a0.on_device()) {
    a0.device()->tensor(*a0.context(), LimbRange{0, a0.limbs()}, a0.device_words(),
                        a1.device_words(), b0.device_words(), b1.device_words(),
                        t.c0.device_words(), t.c1.device_words(), t.c2.device_words());
  } else {
    vec::tensor(a0.data(), a1.data(), b0.data(), b1.data(), t.c0.data(), t.c1.data(), t.c2.data(),
                a0.context()->moduli(a0.limbs()));
  }
  return t;
}

}  // namespace polyhe
