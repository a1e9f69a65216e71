// The device a backend-twin test runs on: the emulated device (tests built without
// POLYHE_TEST_CUDA_DEVICE, label unit, in CI) or a real CUDA GPU (the same sources built with it,
// label gpu; without a usable GPU the tests skip, naming why). POLYHE_DEVICE_OR_SKIP(dev)
// declares dev, a std::shared_ptr<Device>.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "polyhe/backend/emulated.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/ring/poly.hpp"
#ifdef POLYHE_TEST_CUDA_DEVICE
#include "polyhe/backend/cuda/device.hpp"
#include "support/cuda_context.hpp"
#endif

namespace polyhe::test {

/// The device under test, or nullptr with `why` set.
inline std::shared_ptr<Device> test_device(std::string& why) {
#ifdef POLYHE_TEST_CUDA_DEVICE
  const auto ctx = device_or_skip_reason(why);
  if (ctx == nullptr) return nullptr;
  return cuda::make_device(ctx);
#else
  static_cast<void>(why);
  // Shuffled thread and block order: a race inside a kernel body would change the words.
  return make_emulated_device(EmulatedOrder::shuffled, 11);
#endif
}

/// The words of p wherever they live.
inline std::vector<std::uint64_t> words_of(const RnsPoly& p) {
  const RnsPoly h = p.to_host();
  return {h.data().begin(), h.data().end()};
}

}  // namespace polyhe::test

#define POLYHE_DEVICE_OR_SKIP(dev)                                                        \
  std::string why_device_;                                                                \
  const std::shared_ptr<::polyhe::Device> dev = ::polyhe::test::test_device(why_device_); \
  if (dev == nullptr) GTEST_SKIP() << "no CUDA device: " << why_device_
