// The batch API: many host ciphertexts (or plaintext polynomials) through one operation sequence
// on a device, with transfers overlapped with compute — the point of [FPGA-FV]
// (I/O must be overlapped with compute, one operand resident on
// the accelerator). Item i + 1 is uploaded and item i − 1 downloaded on the device's own streams,
// from page-locked staging, while item i computes; keys and other operands the operation uses
// stay resident on the device.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/ring/device.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/ciphertext.hpp"

namespace polyhe::rlwe {

/// Items in flight: each holds its device input, its result until downloaded, and their staging.
inline constexpr std::size_t kDefaultBatchDepth = 3;

/// A reusable batch runner on one device: its slots (device inputs, page-locked staging) stay
/// allocated between calls of map() while the items keep their shape, so repeated batches pay
/// no allocation. Not thread-safe (one caller at a time); map() as map_on_device below.
class DeviceBatch {
 public:
  /// Checks: a device, 1 ≤ depth ≤ 16 (InvalidParameter).
  explicit DeviceBatch(std::shared_ptr<Device> device, std::size_t depth = kDefaultBatchDepth);
  DeviceBatch(DeviceBatch&&) noexcept;
  DeviceBatch& operator=(DeviceBatch&&) noexcept;
  DeviceBatch(const DeviceBatch&) = delete;
  DeviceBatch& operator=(const DeviceBatch&) = delete;
  ~DeviceBatch();

  [[nodiscard]] const std::shared_ptr<Device>& device() const;
  [[nodiscard]] std::vector<Ciphertext> map(std::span<const Ciphertext> inputs,
                                            const std::function<Ciphertext(const Ciphertext&)>& op);
  [[nodiscard]] std::vector<Ciphertext> map(std::span<const RnsPoly> inputs,
                                            const std::function<Ciphertext(const RnsPoly&)>& op);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// op(x) for every ciphertext x of `inputs`, on `device`, the results back in host memory in the
/// inputs' order (each as op returned it: size, level, scale and factor kept). op receives the
/// item on the device and must return a ciphertext there; it may use anything else on the device
/// (keys, resident operands) and must not move its argument or result elsewhere. Checks: a
/// device; the inputs in host memory, of one Parameters object, level and size (InvalidParameter
/// naming the first that differs); 1 ≤ depth ≤ 16. An exception from op or the device stops the
/// batch and propagates (the items done so far are lost).
[[nodiscard]] std::vector<Ciphertext> map_on_device(
    const std::shared_ptr<Device>& device, std::span<const Ciphertext> inputs,
    const std::function<Ciphertext(const Ciphertext&)>& op, std::size_t depth = kDefaultBatchDepth);

/// The same for plaintext polynomials (host memory, one ring, limb count and form; checked) into
/// ciphertexts, e.g. encryption with an Encryptor whose key lives on the device.
[[nodiscard]] std::vector<Ciphertext> map_on_device(
    const std::shared_ptr<Device>& device, std::span<const RnsPoly> inputs,
    const std::function<Ciphertext(const RnsPoly&)>& op, std::size_t depth = kDefaultBatchDepth);

}  // namespace polyhe::rlwe
