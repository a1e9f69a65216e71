#include "polyhe/rlwe/key_parts.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"

namespace polyhe::rlwe {

namespace {

// The bytes a residue below q needs.
std::size_t residue_bytes(std::uint64_t q) {
  return std::max<std::size_t>(1, (static_cast<std::size_t>(std::bit_width(q - 1)) + 7) / 8);
}

void put(std::uint8_t* p, std::uint64_t x, std::size_t w) {
  for (std::size_t b = 0; b < w; ++b) p[b] = static_cast<std::uint8_t>(x >> (8 * b));
}

std::uint64_t get(const std::uint8_t* p, std::size_t w) {
  std::uint64_t x = 0;
  for (std::size_t b = 0; b < w; ++b) x |= std::uint64_t{p[b]} << (8 * b);
  return x;
}

}  // namespace

KeySwitchParts::KeySwitchParts(std::shared_ptr<const RingContext> ring, std::size_t count)
    : ring_(std::move(ring)), count_(count) {
  if (!ring_) throw InvalidParameter("KeySwitchParts: no ring");
  if (count_ == 0) throw InvalidParameter("KeySwitchParts: a key has at least one part, not 0");
  const std::size_t n = ring_->n();
  group_ = std::min<std::size_t>(n, 8);
  offset_.push_back(0);
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    width_.push_back(residue_bytes(ring_->basis().modulus(t).value()));
    offset_.push_back(offset_.back() + 2 * count_ * n * width_.back());
  }
  storage_.assign((offset_.back() + 7) / 8, 0);
}

void KeySwitchParts::check_part(std::size_t j, const char* op) const {
  if (j >= count_) {
    throw InvalidParameter(std::string("KeySwitchParts::") + op + ": part " + std::to_string(j) +
                           " of a key with " + std::to_string(count_) + " parts");
  }
}

void KeySwitchParts::check_limb(std::size_t t, const char* op) const {
  const std::size_t limbs = ring_ ? ring_->max_limbs() : 0;
  if (t >= limbs) {
    throw InvalidParameter(std::string("KeySwitchParts::") + op + ": limb " + std::to_string(t) +
                           " of " + std::to_string(limbs));
  }
}

RnsPoly KeySwitchParts::part(std::size_t j, std::size_t half) const {
  check_part(j, half == 0 ? "b" : "a");
  const std::size_t n = ring_->n();
  RnsPoly p(ring_, ring_->max_limbs(), PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(storage_.data());
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    const std::size_t w = width_[t];
    std::uint64_t* dst = p.limb(t).data();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t g = i / group_;
      const std::size_t word = (g * 2 * count_ + 2 * j + half) * group_ + i % group_;
      dst[i] = get(bytes + offset_[t] + word * w, w);
    }
  }
  return p;
}

void KeySwitchParts::set(std::size_t j, const RnsPoly& b, const RnsPoly& a) {
  check_part(j, "set");
  for (const RnsPoly* p : {&b, &a}) {
    if (p->context() != ring_) {
      throw MismatchedContext("KeySwitchParts::set: a part of another ring");
    }
    if (p->limbs() != ring_->max_limbs() || p->form() != PolyForm::kEvaluation) {
      throw InvalidParameter("KeySwitchParts::set: a part has " + std::to_string(p->limbs()) +
                             " limbs in " + to_string(p->form()) + " form; the rule: all " +
                             std::to_string(ring_->max_limbs()) +
                             " limbs of Q ∪ P, in evaluation form");
    }
  }
  const std::size_t n = ring_->n();
  auto* bytes = reinterpret_cast<std::uint8_t*>(storage_.data());
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    const std::size_t w = width_[t];
    const std::uint64_t q = ring_->basis().modulus(t).value();
    for (std::size_t half = 0; half < 2; ++half) {
      const std::uint64_t* src = (half == 0 ? b : a).limb(t).data();
      for (std::size_t i = 0; i < n; ++i) {
        if (src[i] >= q) {
          throw InvalidParameter("KeySwitchParts::set: residue " + std::to_string(src[i]) +
                                 " of limb " + std::to_string(t) +
                                 " is not below q = " + std::to_string(q));
        }
        const std::size_t g = i / group_;
        const std::size_t word = (g * 2 * count_ + 2 * j + half) * group_ + i % group_;
        put(bytes + offset_[t] + word * w, src[i], w);
      }
    }
  }
}

std::span<const std::uint8_t> KeySwitchParts::limb(std::size_t t) const {
  check_limb(t, "limb");
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(storage_.data());
  return {bytes + offset_[t], offset_[t + 1] - offset_[t]};
}

std::size_t KeySwitchParts::width(std::size_t t) const {
  check_limb(t, "width");
  return width_[t];
}

}  // namespace polyhe::rlwe
