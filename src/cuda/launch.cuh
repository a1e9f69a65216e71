// launch(program, ...): runs a block program (program.hpp) on the device, one CUDA block per
// block of the program, with a __syncthreads between phases. Every launch is checked.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cuda/check.hpp"
#include "cuda/program.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda::detail {

/// At most this many threads per block (ntt_programs.hpp's threads_for keeps to it), so that
/// ptxas may give each thread up to 255 registers and every block still fits an SM.
inline constexpr unsigned kMaxProgramThreads = 256;

template <class Program>
__global__ void __launch_bounds__(kMaxProgramThreads) program_kernel(const Program program) {
  extern __shared__ __align__(16) unsigned char shared[];
  const unsigned phases = program.phases();
  const ThreadIndex t{threadIdx.x, blockIdx.x, blockIdx.y};
  for (unsigned phase = 0; phase < phases; ++phase) {
    if (phase != 0) __syncthreads();
    program.run(phase, t, shared);
  }
}

/// Launches `program` on `stream`. A program asking for more than 48 KiB of shared memory per
/// block first raises the kernel's limit (up to `shared_optin`, the device's opt-in maximum;
/// InvalidParameter naming both sizes beyond it). DeviceError names `name` if the launch fails.
template <class Program>
void launch(const Program& program, cudaStream_t stream, std::size_t shared_optin,
            const char* name) {
  const LaunchShape s = program.shape();
  if (s.blocks == 0 || s.batch == 0 || s.threads == 0) return;
  if (s.shared_bytes > shared_optin) {
    throw InvalidParameter(std::string(name) + ": " + std::to_string(s.shared_bytes) +
                           " bytes of shared memory per block; the device allows " +
                           std::to_string(shared_optin));
  }
  if (s.threads > kMaxProgramThreads) {
    throw InvalidParameter(std::string(name) + ": " + std::to_string(s.threads) +
                           " threads per block; the block programs take at most " +
                           std::to_string(kMaxProgramThreads));
  }
  if (s.batch > 65535) {
    throw InvalidParameter(std::string(name) + ": " + std::to_string(s.batch) +
                           " limbs in one launch; the grid allows 65535");
  }
  constexpr std::size_t kDefaultShared = 48 * 1024;
  if (s.shared_bytes > kDefaultShared) {
    check(cudaFuncSetAttribute(program_kernel<Program>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(s.shared_bytes)),
          std::string("cudaFuncSetAttribute(") + name + ", MaxDynamicSharedMemorySize " +
              std::to_string(s.shared_bytes) + ")");
  }
  program_kernel<Program><<<dim3(s.blocks, s.batch), s.threads, s.shared_bytes, stream>>>(program);
  check_launch(std::string(name) + "<<<(" + std::to_string(s.blocks) + ", " +
               std::to_string(s.batch) + "), " + std::to_string(s.threads) + ", " +
               std::to_string(s.shared_bytes) + ">>>");
}

}  // namespace polyhe::cuda::detail
