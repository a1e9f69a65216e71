// for_each(ctx, body, count, stream): body(i) for every i in [0, count) on the device, in one
// grid-stride kernel: the launcher of every element-wise body (elementwise_body.hpp,
// ring_bodies.hpp). Checked.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "cuda/check.hpp"
#include "cuda/grid_dependency.cuh"
#include "polyhe/backend/cuda/context.hpp"

namespace polyhe::cuda::detail {

inline constexpr unsigned kForEachThreads = 256;
// Resident blocks per SM that cover the SM's 2048 threads (sm_80/sm_90) at 256 threads each; a
// larger grid only adds block scheduling, a smaller one leaves SMs idle on small inputs.
inline constexpr std::size_t kForEachBlocksPerSm = 8;

/// The body is a grid constant: read from the parameter space in place (InlineScalars indexes it
/// by limb), never copied per thread.
template <class Body>
__global__ void __launch_bounds__(kForEachThreads)
    for_each_kernel(const __grid_constant__ Body body, std::size_t count) {
  wait_for_prerequisite_grid();
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    body(i);
  }
}

/// `dependent`: launched with programmatic stream serialization (grid_dependency.cuh; asked for on
/// devices of compute capability 9.0 and up only).
template <class Body>
void for_each(const Context& ctx, const Body& body, std::size_t count, Stream s, const char* name,
              bool dependent = false) {
  if (count == 0) return;
  const std::size_t sms = static_cast<std::size_t>(std::max(1, ctx.info().multiprocessors));
  const std::size_t blocks =
      std::min((count + kForEachThreads - 1) / kForEachThreads, sms * kForEachBlocksPerSm);
  if (dependent) {
    const cudaError_t launched =
        launch_dependent(for_each_kernel<Body>, dim3(static_cast<unsigned>(blocks)),
                         kForEachThreads, 0, static_cast<cudaStream_t>(s.native()), body, count);
    if (launched != cudaSuccess) check(launched, std::string(name) + " (dependent launch)");
    return;
  }
  for_each_kernel<<<static_cast<unsigned>(blocks), kForEachThreads, 0,
                    static_cast<cudaStream_t>(s.native())>>>(body, count);
  check_launch(name);
}

}  // namespace polyhe::cuda::detail
