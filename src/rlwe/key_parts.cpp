#include "polyhe/rlwe/key_parts.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "polyhe/core/error.hpp"

namespace polyhe::rlwe {

KeySwitchParts::KeySwitchParts(std::shared_ptr<const RingContext> ring, std::size_t count)
    : ring_(std::move(ring)), count_(count) {
  if (!ring_) throw InvalidParameter("KeySwitchParts: no ring");
  if (count_ == 0) throw InvalidParameter("KeySwitchParts: a key has at least one part, not 0");
  group_ = std::min<std::size_t>(ring_->n(), 8);
  words_.assign(2 * count_ * ring_->max_limbs() * ring_->n(), 0);
}

void KeySwitchParts::check_part(std::size_t j, const char* op) const {
  if (j >= count_) {
    throw InvalidParameter(std::string("KeySwitchParts::") + op + ": part " + std::to_string(j) +
                           " of a key with " + std::to_string(count_) + " parts");
  }
}

RnsPoly KeySwitchParts::part(std::size_t j, std::size_t half) const {
  check_part(j, half == 0 ? "b" : "a");
  const std::size_t n = ring_->n();
  RnsPoly p(ring_, ring_->max_limbs(), PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  const std::size_t row = 2 * count_ * group_;  // words per group of one limb
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    const std::uint64_t* src = words_.data() + t * 2 * count_ * n + (2 * j + half) * group_;
    std::uint64_t* dst = p.limb(t).data();
    for (std::size_t g = 0; g < n / group_; ++g) {
      std::copy_n(src + g * row, group_, dst + g * group_);
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
  const std::size_t row = 2 * count_ * group_;
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    std::uint64_t* limb = words_.data() + t * 2 * count_ * n;
    for (std::size_t half = 0; half < 2; ++half) {
      const std::uint64_t* src = (half == 0 ? b : a).limb(t).data();
      std::uint64_t* dst = limb + (2 * j + half) * group_;
      for (std::size_t g = 0; g < n / group_; ++g) {
        std::copy_n(src + g * group_, group_, dst + g * row);
      }
    }
  }
}

std::span<const std::uint64_t> KeySwitchParts::limb(std::size_t t) const {
  if (!ring_ || t >= ring_->max_limbs()) {
    throw InvalidParameter("KeySwitchParts::limb: limb " + std::to_string(t) + " of " +
                           std::to_string(ring_ ? ring_->max_limbs() : 0));
  }
  const std::size_t words = 2 * count_ * ring_->n();
  return std::span<const std::uint64_t>(words_).subspan(t * words, words);
}

}  // namespace polyhe::rlwe
