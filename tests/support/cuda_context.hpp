// The device tests' context: POLYHE_CONTEXT_OR_SKIP(ctx) declares ctx, a Context on device 0, or
// skips the test naming why no device is usable (polyhe::gpus' reason).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/gpu_info.hpp"

namespace polyhe::test {

/// A context on device 0, or nullptr with `why` set when no CUDA device is usable.
inline std::shared_ptr<const cuda::Context> device_or_skip_reason(std::string& why) {
  if (gpus(&why).empty()) return nullptr;
  return cuda::Context::create(0);
}

}  // namespace polyhe::test

#define POLYHE_CONTEXT_OR_SKIP(ctx)                          \
  std::string why_;                                          \
  const std::shared_ptr<const ::polyhe::cuda::Context> ctx = \
      ::polyhe::test::device_or_skip_reason(why_);           \
  if (ctx == nullptr) GTEST_SKIP() << "no CUDA device: " << why_
