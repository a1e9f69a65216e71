#include "polyhe/ring/poly.hpp"

#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"

namespace polyhe {

const char* to_string(PolyForm f) {
  return f == PolyForm::kCoefficient ? "coefficient" : "evaluation";
}

namespace {

void check_shape(const std::shared_ptr<const RingContext>& context, std::size_t limbs) {
  if (!context) throw InvalidParameter("RnsPoly: the context is null");
  if (limbs < 1 || limbs > context->max_limbs()) {
    throw InvalidParameter("RnsPoly: " + std::to_string(limbs) +
                           " limbs requested; the context has 1.." +
                           std::to_string(context->max_limbs()));
  }
}

}  // namespace

RnsPoly::RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs, PolyForm form)
    : context_(std::move(context)), limbs_(limbs), form_(form) {
  check_shape(context_, limbs_);
  data_.assign(limbs_ * context_->n(), 0);
}

RnsPoly::RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs, PolyForm form,
                 ForOverwrite)
    : context_(std::move(context)), limbs_(limbs), form_(form) {
  check_shape(context_, limbs_);
  data_.resize(limbs_ * context_->n());  // default-initialised by Storage: not zeroed
}

std::span<std::uint64_t> RnsPoly::limb(std::size_t i) {
  if (i >= limbs_) {
    throw InvalidParameter("RnsPoly: limb " + std::to_string(i) + " out of range; it has " +
                           std::to_string(limbs_));
  }
  return data().subspan(i * n(), n());
}

std::span<const std::uint64_t> RnsPoly::limb(std::size_t i) const {
  return const_cast<RnsPoly*>(this)->limb(i);
}

void RnsPoly::check_compatible(const RnsPoly& b, const char* op) const {
  if (context_ != b.context_) {
    throw MismatchedContext(std::string("RnsPoly::") + op +
                            ": operands belong to different contexts (N = " + std::to_string(n()) +
                            " with " + std::to_string(limbs_) +
                            " limbs vs N = " + std::to_string(b.n()) + " with " +
                            std::to_string(b.limbs_) + " limbs)");
  }
  if (limbs_ != b.limbs_) {
    throw MismatchedContext(std::string("RnsPoly::") + op + ": limb counts differ (" +
                            std::to_string(limbs_) + " vs " + std::to_string(b.limbs_) +
                            "); drop limbs to bring both to one level");
  }
  if (form_ != b.form_) {
    throw InvalidParameter(std::string("RnsPoly::") + op + ": forms differ (" + to_string(form_) +
                           " vs " + to_string(b.form_) +
                           "); convert one with to_evaluation() or to_coefficient()");
  }
}

void RnsPoly::require_evaluation(const char* op) const {
  if (form_ != PolyForm::kEvaluation) {
    throw InvalidParameter(std::string("RnsPoly::") + op +
                           " needs evaluation form, the operands are in coefficient form; "
                           "convert with to_evaluation() first");
  }
}

void RnsPoly::to_evaluation() {
  if (form_ == PolyForm::kEvaluation) {
    throw InvalidParameter("RnsPoly::to_evaluation: already in evaluation form");
  }
  forward_batch<std::uint64_t>(data(), context_->plans(limbs_));
  form_ = PolyForm::kEvaluation;
}

void RnsPoly::to_coefficient() {
  if (form_ == PolyForm::kCoefficient) {
    throw InvalidParameter("RnsPoly::to_coefficient: already in coefficient form");
  }
  inverse_batch<std::uint64_t>(data(), context_->plans(limbs_));
  form_ = PolyForm::kCoefficient;
}

void RnsPoly::add(const RnsPoly& b) {
  check_compatible(b, "add");
  vec::add(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::sub(const RnsPoly& b) {
  check_compatible(b, "sub");
  vec::sub(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::negate() {
  vec::negate(data(), data(), context_->moduli(limbs_));
}

void RnsPoly::multiply(const RnsPoly& b) {
  check_compatible(b, "multiply");
  require_evaluation("multiply");
  vec::multiply(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::multiply_accumulate(const RnsPoly& a, const RnsPoly& b) {
  check_compatible(a, "multiply_accumulate");
  check_compatible(b, "multiply_accumulate");
  require_evaluation("multiply_accumulate");
  vec::multiply_accumulate(a.data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::multiply_scalar(std::span<const std::uint64_t> residues) {
  if (residues.size() != limbs_) {
    throw InvalidParameter("RnsPoly::multiply_scalar: " + std::to_string(residues.size()) +
                           " residues given for " + std::to_string(limbs_) + " limbs");
  }
  for (std::size_t i = 0; i < limbs_; ++i) {
    const std::uint64_t q = context_->basis().prime(i);
    if (residues[i] >= q) {
      throw InvalidParameter("RnsPoly::multiply_scalar: residue " + std::to_string(i) + " = " +
                             std::to_string(residues[i]) + " is not below q_" + std::to_string(i) +
                             " = " + std::to_string(q));
    }
  }
  vec::multiply_scalar(data(), residues, data(), context_->moduli(limbs_));
}

void RnsPoly::multiply_scalar(std::uint64_t s) {
  std::vector<std::uint64_t> residues(limbs_);
  for (std::size_t i = 0; i < limbs_; ++i) residues[i] = s % context_->basis().prime(i);
  multiply_scalar(residues);
}

void RnsPoly::drop_last_limb() {
  if (limbs_ < 2) {
    throw InvalidParameter("RnsPoly::drop_last_limb: a polynomial of 1 limb has none to drop");
  }
  --limbs_;
  data_.resize(limbs_ * n());
}

}  // namespace polyhe
