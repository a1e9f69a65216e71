#include "polyhe/ring/key_parts.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "polyhe/core/error.hpp"

namespace polyhe {

namespace {

// The bytes a residue below q needs.
std::size_t residue_bytes(std::uint64_t q) {
  return std::max<std::size_t>(1, (static_cast<std::size_t>(std::bit_width(q - 1)) + 7) / 8);
}

/// Calls f(word, first, length) for the runs of part j's half `half` within a limb: coefficients
/// first … first + length − 1 lie at the consecutive packed words word … word + length − 1. Whole
/// groups of G words first, then the last n mod G words as one group of that size (n not a multiple
/// of 8: rings Φ_m with odd m).
template <class F>
void for_each_run(std::size_t n, std::size_t group, std::size_t count, std::size_t j,
                  std::size_t half, F f) {
  const std::size_t full = n - n % group;
  for (std::size_t i = 0, g = 0; i < full; i += group, ++g) {
    f((g * 2 * count + 2 * j + half) * group, i, group);
  }
  if (full < n) f(full * 2 * count + (2 * j + half) * (n - full), full, n - full);
}

/// f(std::integral_constant<std::size_t, w>) for a width w in [1, 8]: the byte loops below with a
/// constant width, which the compiler turns into a few wide stores and loads.
template <class F>
void with_width(std::size_t w, F f) {
  switch (w) {
    case 1: f(std::integral_constant<std::size_t, 1>{}); break;
    case 2: f(std::integral_constant<std::size_t, 2>{}); break;
    case 3: f(std::integral_constant<std::size_t, 3>{}); break;
    case 4: f(std::integral_constant<std::size_t, 4>{}); break;
    case 5: f(std::integral_constant<std::size_t, 5>{}); break;
    case 6: f(std::integral_constant<std::size_t, 6>{}); break;
    case 7: f(std::integral_constant<std::size_t, 7>{}); break;
    default: f(std::integral_constant<std::size_t, 8>{}); break;
  }
}

/// x[0 … length − 1] as `W`-byte little-endian residues from p on, and back. On a little-endian
/// host a residue's bytes are the low W bytes of its word, copied as such (a few wide moves).
template <std::size_t W>
void put(std::uint8_t* p, const std::uint64_t* x, std::size_t length) {
  for (std::size_t r = 0; r < length; ++r) {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(p + r * W, x + r, W);
    } else {
      for (std::size_t b = 0; b < W; ++b) p[r * W + b] = static_cast<std::uint8_t>(x[r] >> (8 * b));
    }
  }
}

template <std::size_t W>
void get(const std::uint8_t* p, std::uint64_t* x, std::size_t length) {
  for (std::size_t r = 0; r < length; ++r) {
    std::uint64_t v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, p + r * W, W);
    } else {
      for (std::size_t b = 0; b < W; ++b) v |= std::uint64_t{p[r * W + b]} << (8 * b);
    }
    x[r] = v;
  }
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
    const std::uint8_t* limb = bytes + offset_[t];
    with_width(w, [&](auto width) {
      for_each_run(n, group_, count_, j, half,
                   [&](std::size_t word, std::size_t first, std::size_t length) {
                     get<width()>(limb + word * width(), dst + first, length);
                   });
    });
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
  // Every residue checked before any byte is written: a refused part leaves the key as it was.
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    const std::uint64_t q = ring_->basis().modulus(t).value();
    for (const RnsPoly* p : {&b, &a}) {
      for (const std::uint64_t x : p->limb(t)) {
        if (x >= q) {
          throw InvalidParameter("KeySwitchParts::set: residue " + std::to_string(x) + " of limb " +
                                 std::to_string(t) + " is not below q = " + std::to_string(q));
        }
      }
    }
  }
  auto* bytes = reinterpret_cast<std::uint8_t*>(storage_.data());
  for (std::size_t t = 0; t < ring_->max_limbs(); ++t) {
    std::uint8_t* limb = bytes + offset_[t];
    for (std::size_t half = 0; half < 2; ++half) {
      const std::uint64_t* src = (half == 0 ? b : a).limb(t).data();
      with_width(width_[t], [&](auto width) {
        for_each_run(n, group_, count_, j, half,
                     [&](std::size_t word, std::size_t first, std::size_t length) {
                       put<width()>(limb + word * width(), src + first, length);
                     });
      });
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
