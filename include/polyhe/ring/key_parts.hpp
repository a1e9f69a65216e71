// KeySwitchParts: the dnum pairs (b_j, a_j) of a key-switching key, stored the way the key switch
// reads them on the host, or on a device in the device's layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/ntt/plan.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/ring/poly.hpp"

namespace polyhe {

/// `count` pairs (b_j, a_j) of polynomials over all of Q ∪ P (the ring's max_limbs() limbs) in
/// evaluation form. The key switch needs limb t of every part, one limb t at a time
/// (vec::key_inner_products), so the parts are stored limb by limb and, within a limb, in groups
/// of G = min(8, N) coefficients ordered b_0, a_0, b_1, a_1, …, b_{count−1}, a_{count−1}; and each
/// residue mod q_t takes only the w_t = ⌈len(q_t − 1)/8⌉ bytes it needs (little-endian; 5 for a
/// 40-bit prime). Word r of group g of half h (0 = b, 1 = a) of part j in limb t starts at byte
///   offset(t) + ((g·2·count + 2·j + h)·G + r)·w_t,   offset(t) = Σ_{t' < t} 2·count·N·w_t'.
/// When G does not divide N (φ(m) for some odd m), the last N mod G words of a limb form one
/// final group of that size, in the same order.
/// Read this way the key is one sequential stream, as short as the primes allow: the inner product
/// runs at the memory's speed, 2–3× faster than over 2·count separate rows of 64-bit words (an
/// AMD Zen 5 core, N = 2^14 and 2^16), and a key of 40-bit primes takes 5/8 of the memory. b(j)
/// and a(j) rebuild the polynomials (serialisation, tests).
///
/// On a device (to_device()) the layout is the GPU's: full 64-bit words, limb by limb, and within
/// limb t the N words of b_0, a_0, b_1, a_1, …: word i of half h of part j at
/// ((t·count + j)·2 + h)·N + i, so the threads of a warp read consecutive words of each part
/// (device_words()).
class KeySwitchParts {
 public:
  KeySwitchParts() = default;
  /// count zero pairs over all limbs of `ring` (count ≥ 1, checked), in host memory.
  KeySwitchParts(std::shared_ptr<const RingContext> ring, std::size_t count);
  KeySwitchParts(const KeySwitchParts& other);
  KeySwitchParts& operator=(const KeySwitchParts& other);
  KeySwitchParts(KeySwitchParts&&) noexcept = default;
  KeySwitchParts& operator=(KeySwitchParts&&) noexcept = default;
  ~KeySwitchParts() = default;

  /// Where the parts live (null: host memory) and a copy elsewhere (null: host memory).
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return device_; }
  [[nodiscard]] KeySwitchParts to_device(const std::shared_ptr<Device>& device) const;
  [[nodiscard]] KeySwitchParts to_host() const { return to_device(nullptr); }
  /// On a device: the words in the device layout above (InvalidParameter on the host).
  [[nodiscard]] const std::uint64_t* device_words() const;

  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] const std::shared_ptr<const RingContext>& context() const { return ring_; }

  /// b_j and a_j as polynomials over all limbs, evaluation form, in host memory (copies; j <
  /// count(), checked).
  [[nodiscard]] RnsPoly b(std::size_t j) const { return part(j, 0); }
  [[nodiscard]] RnsPoly a(std::size_t j) const { return part(j, 1); }
  /// Stores the pair j (j < count()): b and a of this ring, over all its limbs, in evaluation form,
  /// in host memory (checked: InvalidParameter, or MismatchedContext for another ring); host
  /// parts only.
  void set(std::size_t j, const RnsPoly& b, const RnsPoly& a);

  /// Limb t of every part, interleaved as above: 2·count·N·width(t) bytes (t < max_limbs(),
  /// checked); host parts only.
  [[nodiscard]] std::span<const std::uint8_t> limb(std::size_t t) const;
  /// w_t: the bytes per residue of limb t (t < max_limbs(), checked).
  [[nodiscard]] std::size_t width(std::size_t t) const;

 private:
  [[nodiscard]] RnsPoly part(std::size_t j, std::size_t half) const;
  void check_part(std::size_t j, const char* op) const;
  void check_limb(std::size_t t, const char* op) const;
  void require_host(const char* op) const;

  std::shared_ptr<const RingContext> ring_;
  std::size_t count_ = 0;
  std::size_t group_ = 0;
  std::vector<std::size_t> width_;        // per limb
  std::vector<std::size_t> offset_;       // per limb, and the total at the end
  AlignedVector<std::uint64_t> storage_;  // offset_.back() bytes, 64-byte aligned
  std::shared_ptr<Device> device_;        // null: storage_ holds the parts
  DeviceWords device_words_;              // on a device: max_limbs·2·count·N words
};

}  // namespace polyhe
