#include "polyhe/ring/poly.hpp"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"

namespace polyhe {

const char* to_string(PolyForm f) {
  return f == PolyForm::kCoefficient ? "coefficient" : "evaluation";
}

namespace {

void check_shape(const std::shared_ptr<const RingContext>& context, std::size_t limbs,
                 const std::shared_ptr<Device>& device) {
  if (!context) throw InvalidParameter("RnsPoly: the context is null");
  if (device && !context->device_serves()) {
    throw InvalidParameter(
        "RnsPoly: the ring mod Phi_" + std::to_string(context->m()) +
        " (odd m, phi(m) = " + std::to_string(context->n()) +
        ") has no device transforms; a device serves x^N + 1 and the odd m whose transform takes "
        "the fused route with phi(m) a power of two (m a product of at least two Fermat primes "
        "3, 5, 17, 257 with phi(m)/phi(largest) a multiple of 8, as 255, 3855, 4369, 21845, "
        "65535); keep these polynomials in host memory");
  }
  if (limbs < 1 || limbs > context->max_limbs()) {
    throw InvalidParameter("RnsPoly: " + std::to_string(limbs) +
                           " limbs requested; the context has 1.." +
                           std::to_string(context->max_limbs()));
  }
}

}  // namespace

const char* to_string(DeviceKind k) {
  return k == DeviceKind::cuda ? "cuda" : "cuda-emulated";
}

RnsPoly::RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs, PolyForm form,
                 std::shared_ptr<Device> device)
    : context_(std::move(context)), limbs_(limbs), form_(form), device_(std::move(device)) {
  check_shape(context_, limbs_, device_);
  if (device_) {
    device_words_ = DeviceWords(device_, limbs_ * context_->n());
    device_->zero(device_words_.data(), limbs_ * context_->n());
  } else {
    data_.assign(limbs_ * context_->n(), 0);
  }
}

RnsPoly::RnsPoly(std::shared_ptr<const RingContext> context, std::size_t limbs, PolyForm form,
                 ForOverwrite, std::shared_ptr<Device> device)
    : context_(std::move(context)), limbs_(limbs), form_(form), device_(std::move(device)) {
  check_shape(context_, limbs_, device_);
  if (device_) {
    device_words_ = DeviceWords(device_, limbs_ * context_->n());
  } else {
    data_.resize(limbs_ * context_->n());  // default-initialised by Storage: not zeroed
  }
}

RnsPoly::RnsPoly(const RnsPoly& other)
    : context_(other.context_),
      limbs_(other.limbs_),
      form_(other.form_),
      device_(other.device_),
      data_(other.data_) {
  if (device_) {
    const std::size_t words = limbs_ * context_->n();
    device_words_ = DeviceWords(device_, words);
    device_->copy(other.device_words_.data(), device_words_.data(), words);
  }
}

RnsPoly& RnsPoly::operator=(const RnsPoly& other) {
  if (this != &other) *this = RnsPoly(other);
  return *this;
}

RnsPoly RnsPoly::to_device(const std::shared_ptr<Device>& device) && {
  if (device == device_) return std::move(*this);
  return static_cast<const RnsPoly&>(*this).to_device(device);
}

RnsPoly RnsPoly::to_host() && {
  if (!device_) return std::move(*this);
  return static_cast<const RnsPoly&>(*this).to_host();
}

RnsPoly RnsPoly::to_device(const std::shared_ptr<Device>& device) const& {
  if (!device) return to_host();
  if (device == device_) return *this;
  if (device_) return to_host().to_device(device);
  RnsPoly out(context_, limbs_, form_, kForOverwrite, device);
  device->upload(data_, out.device_words_.data());
  return out;
}

RnsPoly RnsPoly::to_host() const& {
  if (!device_) return *this;
  RnsPoly out(context_, limbs_, form_, kForOverwrite);
  device_->download(device_words_.data(), out.data_);
  return out;
}

std::uint64_t* RnsPoly::device_words() const {
  if (!device_) {
    throw InvalidParameter("RnsPoly::device_words: the polynomial is in host memory");
  }
  return device_words_.data();
}

void RnsPoly::throw_on_device(const char* op) const {
  throw InvalidParameter(std::string("RnsPoly::") + op + ": the words live on the device " +
                         device_->name() + "; read them through to_host()");
}

std::span<std::uint64_t> RnsPoly::limb(std::size_t i) {
  if (device_) throw_on_device("limb");
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
  if (device_ != b.device_) {
    auto where = [](const RnsPoly& p) {
      return p.device_ ? "on the device " + p.device_->name() : std::string("in host memory");
    };
    throw MismatchedContext(std::string("RnsPoly::") + op + ": one operand is " + where(*this) +
                            ", the other " + where(b) +
                            "; move one with to_device() or to_host() first");
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
  if (device_) {
    device_->ntt(*context_, range(), device_words(), device_words(), false);
  } else {
    if (context_->power_of_two() && !detail::in_secret_scope()) {
      forward_batch<std::uint64_t>(data(), context_->plans(limbs_));
    } else {
      context_->forward_from(0, data());  // in a SecretScope: the transforms' scratch wiped after
    }
  }
  form_ = PolyForm::kEvaluation;
}

void RnsPoly::to_coefficient() {
  if (form_ == PolyForm::kCoefficient) {
    throw InvalidParameter("RnsPoly::to_coefficient: already in coefficient form");
  }
  if (device_) {
    device_->ntt(*context_, range(), device_words(), device_words(), true);
  } else {
    if (context_->power_of_two() && !detail::in_secret_scope()) {
      inverse_batch<std::uint64_t>(data(), context_->plans(limbs_));
    } else {
      context_->inverse_from(0, data());  // in a SecretScope: the transforms' scratch wiped after
    }
  }
  form_ = PolyForm::kCoefficient;
}

void RnsPoly::add(const RnsPoly& b) {
  check_compatible(b, "add");
  if (device_) {
    device_->binary(Device::Binary::add, *context_, range(), device_words(), b.device_words(),
                    device_words());
    return;
  }
  vec::add(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::sub(const RnsPoly& b) {
  check_compatible(b, "sub");
  if (device_) {
    device_->binary(Device::Binary::sub, *context_, range(), device_words(), b.device_words(),
                    device_words());
    return;
  }
  vec::sub(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::negate() {
  if (device_) {
    device_->negate(*context_, range(), device_words(), device_words());
    return;
  }
  vec::negate(data(), data(), context_->moduli(limbs_));
}

void RnsPoly::multiply(const RnsPoly& b) {
  check_compatible(b, "multiply");
  require_evaluation("multiply");
  if (device_) {
    device_->binary(Device::Binary::multiply, *context_, range(), device_words(), b.device_words(),
                    device_words());
    return;
  }
  vec::multiply(data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::multiply_accumulate(const RnsPoly& a, const RnsPoly& b) {
  check_compatible(a, "multiply_accumulate");
  check_compatible(b, "multiply_accumulate");
  require_evaluation("multiply_accumulate");
  if (device_) {
    device_->multiply_add(*context_, range(), a.device_words(), b.device_words(), device_words(),
                          device_words());
    return;
  }
  vec::multiply_accumulate(a.data(), b.data(), data(), context_->moduli(limbs_));
}

void RnsPoly::check_residues(std::span<const std::uint64_t> residues, const char* op) const {
  if (residues.size() != limbs_) {
    throw InvalidParameter(std::string("RnsPoly::") + op + ": " + std::to_string(residues.size()) +
                           " residues given for " + std::to_string(limbs_) + " limbs");
  }
  for (std::size_t i = 0; i < limbs_; ++i) {
    const std::uint64_t q = context_->basis().prime(i);
    if (residues[i] >= q) {
      throw InvalidParameter(std::string("RnsPoly::") + op + ": residue " + std::to_string(i) +
                             " = " + std::to_string(residues[i]) + " is not below q_" +
                             std::to_string(i) + " = " + std::to_string(q));
    }
  }
}

void RnsPoly::add_split_constant(std::span<const std::uint64_t> lo,
                                 std::span<const std::uint64_t> hi) {
  split_constant(lo, hi, false, "add_split_constant");
}

void RnsPoly::multiply_split_constant(std::span<const std::uint64_t> lo,
                                      std::span<const std::uint64_t> hi) {
  split_constant(lo, hi, true, "multiply_split_constant");
}

void RnsPoly::split_constant(std::span<const std::uint64_t> lo, std::span<const std::uint64_t> hi,
                             bool multiply, const char* op) {
  require_evaluation(op);
  check_residues(lo, op);
  check_residues(hi, op);
  if (device_) {
    device_->split_constant(*context_, range(), device_words(), lo, hi, device_words(), multiply);
    return;
  }
  const std::size_t half = n() / 2;
  for (std::size_t i = 0; i < limbs_; ++i) {
    const Modulus<std::uint64_t>& q = context_->basis().modulus(i);
    const std::span<std::uint64_t> low = limb(i).first(half), high = limb(i).subspan(half);
    if (multiply) {
      vec::multiply_scalar(low, lo[i], low, q);
      vec::multiply_scalar(high, hi[i], high, q);
    } else {
      const std::uint64_t qv = q.value();
      for (const auto& [words, k] : {std::pair{low, lo[i]}, std::pair{high, hi[i]}}) {
        for (std::uint64_t& w : words) w = w + k >= qv ? w + k - qv : w + k;
      }
    }
  }
}

void RnsPoly::multiply_scalar(std::span<const std::uint64_t> residues) {
  check_residues(residues, "multiply_scalar");
  if (device_) {
    device_->multiply_scalar(*context_, range(), device_words(), residues, device_words());
    return;
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
  if (!device_) data_.resize(limbs_ * n());  // device words stay allocated, the last unused
}

namespace detail {

namespace {
std::atomic<WipeObserver> g_wipe_observer{nullptr};
}  // namespace

void set_wipe_observer(WipeObserver observer) noexcept {
  g_wipe_observer.store(observer);
}

}  // namespace detail

void RnsPoly::wipe() {
  if (device_) {
    // Every allocated word: limbs dropped by drop_last_limb stay allocated.
    if (device_words_.data() != nullptr) device_->zero(device_words_.data(), device_words_.words());
    return;
  }
  // The whole block, dropped limbs included (their words are still in it): grown to its capacity
  // without initialisation (Storage), zeroed, and shrunk back — no reallocation either way.
  const std::size_t size = data_.size();
  data_.resize(data_.capacity());
  secure_zero(std::span<std::uint64_t>(data_));
  data_.resize(size);
  if (const detail::WipeObserver observer = detail::g_wipe_observer.load()) observer(data_);
}

}  // namespace polyhe
