// An RLWE ciphertext: 2 (or 3, before relinearisation) RNS polynomials at one level, in
// evaluation form, with the scheme's scale (CKKS) or plaintext factor (BGV).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/sampler.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::rlwe {

/// (c_0, c_1[, c_2]) over Q_l = q_0..q_l, every part in evaluation form, decrypting to
/// c_0 + c_1·s (+ c_2·s²). `scale` is the CKKS scaling factor Δ of the message (1 for schemes
/// without one). A fresh symmetric encryption remembers the seed of its c_1 so it serialises at
/// half size; any mutable access to the parts forgets it.
///
/// `factor` is BGV's plaintext factor f ∈ Z_t^*: the ciphertext satisfies
/// [c_0 + c_1·s]_{Q_l} = f·m + t·e, and decryption multiplies by f^−1 mod t (bgv/bgv.hpp). It is
/// 1 for a fresh BGV ciphertext and for every CKKS or BFV ciphertext, which ignore it. rlwe only
/// carries it (through copies, rlwe's operations and serialisation); BGV checks it against t.
///
/// Placement: every part lives in host memory or on one Device (ring/device.hpp), and the
/// operations on a ciphertext run there. to_device() / to_host() move a copy.
///
/// Threads: a value (as RnsPoly): share it const between threads; a mutation (operator[],
/// parts(), set_*) must not overlap any other use of the same ciphertext.
class Ciphertext {
 public:
  /// Zero parts at `level` (≤ L, checked), `size` ∈ {2, 3} (checked), on `device` (null: host).
  Ciphertext(ParametersPtr params, std::size_t level, std::size_t size = 2, double scale = 1.0,
             const std::shared_ptr<Device>& device = nullptr);
  /// The same shape with unspecified words (RnsPoly's for-overwrite parts), for a result the
  /// caller writes entirely before anything reads it.
  Ciphertext(ParametersPtr params, std::size_t level, std::size_t size, double scale,
             RnsPoly::ForOverwrite, const std::shared_ptr<Device>& device = nullptr);
  /// Where the parts live (null: host memory).
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return parts_[0].device(); }
  /// A copy whose parts live on `device` (null: host memory); scale, factor and seed kept.
  [[nodiscard]] Ciphertext to_device(const std::shared_ptr<Device>& device) const;
  [[nodiscard]] Ciphertext to_host() const { return to_device(nullptr); }

  [[nodiscard]] const ParametersPtr& params() const { return params_; }
  [[nodiscard]] std::size_t level() const { return parts_[0].level(); }
  [[nodiscard]] std::size_t limbs() const { return parts_[0].limbs(); }
  [[nodiscard]] std::size_t size() const { return parts_.size(); }
  [[nodiscard]] double scale() const { return scale_; }
  void set_scale(double s) { scale_ = s; }
  [[nodiscard]] std::uint64_t factor() const { return factor_; }
  /// InvalidParameter for 0 (never a unit mod t).
  void set_factor(std::uint64_t f);

  [[nodiscard]] const RnsPoly& operator[](std::size_t i) const { return parts_[i]; }
  [[nodiscard]] RnsPoly& operator[](std::size_t i) {
    seed_.reset();
    return parts_[i];
  }
  [[nodiscard]] const std::vector<RnsPoly>& parts() const { return parts_; }
  [[nodiscard]] std::vector<RnsPoly>& parts() {
    seed_.reset();
    return parts_;
  }

  /// The seed c_1 was expanded from (fresh symmetric encryptions only).
  [[nodiscard]] const std::optional<Seed>& seed() const { return seed_; }
  void set_seed(const Seed& s) { seed_ = s; }

 private:
  void check_shape(std::size_t level, std::size_t size) const;

  ParametersPtr params_;
  std::vector<RnsPoly> parts_;
  double scale_;
  std::uint64_t factor_ = 1;
  std::optional<Seed> seed_;
};

/// Throws MismatchedContext naming `op` unless a and b live in the same place (both in host
/// memory, or both on one device).
void check_same_place(const Ciphertext& a, const Ciphertext& b, const char* op);

}  // namespace polyhe::rlwe
