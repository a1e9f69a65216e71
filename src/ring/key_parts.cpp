#include "polyhe/ring/key_parts.hpp"

#include <algorithm>
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"

namespace polyhe {

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

/// The word index of coefficient i of half `half` of part j within a limb: whole groups of G
/// words first, then the last n mod G words as one group of that size (n not a multiple of 8:
/// rings Φ_m with odd m).
std::size_t packed_word(std::size_t i, std::size_t n, std::size_t group, std::size_t count,
                        std::size_t j, std::size_t half) {
  const std::size_t full = n - n % group;
  if (i < full) return ((i / group) * 2 * count + 2 * j + half) * group + i % group;
  const std::size_t rest = n - full;
  return full * 2 * count + (2 * j + half) * rest + (i - full);
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

KeySwitchParts::KeySwitchParts(const KeySwitchParts& other)
    : ring_(other.ring_),
      count_(other.count_),
      group_(other.group_),
      width_(other.width_),
      offset_(other.offset_),
      storage_(other.storage_),
      device_(other.device_) {
  if (device_) {
    const std::size_t words = other.device_words_.words();
    device_words_ = DeviceWords(device_, words);
    device_->copy(other.device_words_.data(), device_words_.data(), words);
  }
}

KeySwitchParts& KeySwitchParts::operator=(const KeySwitchParts& other) {
  if (this != &other) *this = KeySwitchParts(other);
  return *this;
}

KeySwitchParts KeySwitchParts::to_device(const std::shared_ptr<Device>& device) const {
  if (device == device_) return *this;
  if (device_ && device) return to_host().to_device(device);
  if (!ring_) throw InvalidParameter("KeySwitchParts::to_device: an empty key has no parts");
  const std::size_t n = ring_->n();
  const std::size_t limbs = ring_->max_limbs();
  KeySwitchParts out(ring_, count_);
  if (device_) {
    // Device → host: download the GPU layout and pack it.
    std::vector<std::uint64_t> staging(device_words_.words());
    device_->download(device_words_.data(), staging);
    for (std::size_t j = 0; j < count_; ++j) {
      RnsPoly b(ring_, limbs, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
      RnsPoly a(ring_, limbs, PolyForm::kEvaluation, RnsPoly::kForOverwrite);
      for (std::size_t t = 0; t < limbs; ++t) {
        const std::uint64_t* at = staging.data() + (t * count_ + j) * 2 * n;
        std::copy(at, at + n, b.limb(t).begin());
        std::copy(at + n, at + 2 * n, a.limb(t).begin());
      }
      out.set(j, b, a);
    }
    return out;
  }
  // Host → device: unpack into the GPU layout, upload once.
  std::vector<std::uint64_t> staging(limbs * count_ * 2 * n);
  for (std::size_t j = 0; j < count_; ++j) {
    for (std::size_t half = 0; half < 2; ++half) {
      const RnsPoly p = part(j, half);
      for (std::size_t t = 0; t < limbs; ++t) {
        std::ranges::copy(p.limb(t), staging.begin() + static_cast<std::ptrdiff_t>(
                                                           ((t * count_ + j) * 2 + half) * n));
      }
    }
  }
  out.storage_ = {};
  out.device_ = device;
  out.device_words_ = DeviceWords(device, staging.size());
  device->upload(staging, out.device_words_.data());
  return out;
}

const std::uint64_t* KeySwitchParts::device_words() const {
  if (!device_)
    throw InvalidParameter("KeySwitchParts::device_words: the parts are in host memory");
  return device_words_.data();
}

void KeySwitchParts::require_host(const char* op) const {
  if (device_) {
    throw InvalidParameter(std::string("KeySwitchParts::") + op +
                           ": the parts live on the device " + device_->name() +
                           "; use to_host() first");
  }
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
  if (device_) return to_host().part(j, half);
  const std::size_t n = ring_->n();
  RnsPoly p(ring_, ring_->max_limbs(), PolyForm::kEvaluation, RnsPoly::kForOverwrite);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(storage_.data());
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    const std::size_t w = width_[t];
    std::uint64_t* dst = p.limb(t).data();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t word = packed_word(i, n, group_, count_, j, half);
      dst[i] = get(bytes + offset_[t] + word * w, w);
    }
  }
  return p;
}

void KeySwitchParts::set(std::size_t j, const RnsPoly& b, const RnsPoly& a) {
  check_part(j, "set");
  require_host("set");
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
        const std::size_t word = packed_word(i, n, group_, count_, j, half);
        put(bytes + offset_[t] + word * w, src[i], w);
      }
    }
  }
}

std::span<const std::uint8_t> KeySwitchParts::limb(std::size_t t) const {
  check_limb(t, "limb");
  require_host("limb");
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(storage_.data());
  return {bytes + offset_[t], offset_[t + 1] - offset_[t]};
}

std::size_t KeySwitchParts::width(std::size_t t) const {
  check_limb(t, "width");
  return width_[t];
}

}  // namespace polyhe
