// launch(program, ...): runs a block program (program.hpp) on the device, one CUDA block per
// block of the program, with a __syncthreads between phases (a cluster program: a cluster-wide
// barrier where it asks for one). Every launch is checked.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cuda/check.hpp"
#include "cuda/grid_dependency.cuh"
#include "cuda/program.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda::detail {

/// At most this many threads per block (ntt_programs.hpp's threads_for keeps to it), so that
/// ptxas may give each thread up to 255 registers and every block still fits an SM.
inline constexpr unsigned kMaxProgramThreads = 256;

/// Program::kMinBlocks where it declares one (program_min_blocks), else 1.
template <class Program>
inline constexpr unsigned kProgramMinBlocks = [] {
  if constexpr (requires { Program::kMinBlocks; }) {
    return Program::kMinBlocks;
  } else {
    return 1u;
  }
}();

template <class Program>
__global__ void __launch_bounds__(kMaxProgramThreads, kProgramMinBlocks<Program>)
    program_kernel(const Program program) {
  wait_for_prerequisite_grid();
  extern __shared__ __align__(16) unsigned char shared[];
  const unsigned phases = program.phases();
  const ThreadIndex t{threadIdx.x, blockIdx.x, blockIdx.y};
  for (unsigned phase = 0; phase < phases; ++phase) {
    if (phase != 0) __syncthreads();
    program.run(phase, t, shared);
  }
}

/// A cluster program's view of its cluster's shared memory (program.hpp).
struct DeviceClusterShared {
  void* shared;
  __device__ void* local() const { return shared; }
  __device__ void* block(unsigned rank) const {
    return cooperative_groups::this_cluster().map_shared_rank(shared, rank);
  }
};

template <class Program>
__global__ void __launch_bounds__(kMaxProgramThreads) cluster_kernel(const Program program) {
  wait_for_prerequisite_grid();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) unsigned char shared[];
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned phases = program.phases();
  const ThreadIndex t{threadIdx.x, cluster.block_rank(), blockIdx.y};
  const DeviceClusterShared view{shared};
  for (unsigned phase = 0; phase < phases; ++phase) {
    if (program.cluster_barrier(phase)) {
      cluster.sync();
    } else if (phase != 0) {
      __syncthreads();
    }
    program.run(phase, t, view);
  }
  if (program.cluster_barrier(phases)) cluster.sync();
#else
  __trap();  // launch_cluster refuses devices before compute capability 9.0
#endif
}

/// Lets `kernel` take `bytes` of dynamic shared memory per block (more than the default 48 KiB).
template <class Kernel>
void raise_shared_limit(Kernel kernel, std::size_t bytes, const char* name) {
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(bytes));
  if (err != cudaSuccess) {
    check(err, std::string("cudaFuncSetAttribute(") + name + ", MaxDynamicSharedMemorySize " +
                   std::to_string(bytes) + ")");
  }
}

/// Launches `program` on `stream`. A program asking for more than 48 KiB of shared memory per
/// block first raises the kernel's limit (up to `shared_optin`, the device's opt-in maximum;
/// InvalidParameter naming both sizes beyond it). DeviceError names `name` if the launch fails.
/// `dependent`: launched with programmatic stream serialization (grid_dependency.cuh; the caller
/// asks for it on devices of compute capability 9.0 and up only).
template <class Program>
void launch(const Program& program, cudaStream_t stream, std::size_t shared_optin, const char* name,
            bool dependent = false) {
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
  // The launch as error messages name it, built only when one is thrown (this runs for every
  // launch, and the host's share of a launch is what the small transforms wait on).
  const auto what = [&] {
    return std::string(name) + "<<<(" + std::to_string(s.blocks) + ", " + std::to_string(s.batch) +
           "), " + std::to_string(s.threads) + ", " + std::to_string(s.shared_bytes) + ">>>";
  };
  constexpr std::size_t kDefaultShared = 48 * 1024;
  if constexpr (ClusterProgram<Program>) {
    const auto kernel = cluster_kernel<Program>;
    if (s.shared_bytes > kDefaultShared) {
      raise_shared_limit(kernel, s.shared_bytes, name);
    }
    int clusters = 0;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(s.blocks, s.batch);
    config.blockDim = dim3(s.threads);
    config.dynamicSmemBytes = s.shared_bytes;
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = s.cluster;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    cudaLaunchAttribute attributes[2] = {attribute, dependent_launch_attribute()};
    config.attrs = attributes;
    config.numAttrs = 1;  // the occupancy query sees the cluster alone
    const cudaError_t occupancy = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
    if (occupancy != cudaSuccess) {
      check(occupancy, "cudaOccupancyMaxActiveClusters(" + what() + ")");
    }
    if (clusters == 0) {
      throw InvalidParameter(what() + ": a cluster of " + std::to_string(s.cluster) +
                             " blocks of " + std::to_string(s.threads) + " threads and " +
                             std::to_string(s.shared_bytes) +
                             " bytes of shared memory each does not fit this device");
    }
    config.numAttrs = dependent ? 2 : 1;
    const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, program);
    if (launched != cudaSuccess) {
      check(launched,
            "cudaLaunchKernelEx(" + what() + ", cluster " + std::to_string(s.cluster) + ")");
    }
  } else {
    if (s.shared_bytes > kDefaultShared) {
      raise_shared_limit(program_kernel<Program>, s.shared_bytes, name);
    }
    if (dependent) {
      const cudaError_t launched =
          launch_dependent(program_kernel<Program>, dim3(s.blocks, s.batch), s.threads,
                           s.shared_bytes, stream, program);
      if (launched != cudaSuccess) check(launched, "cudaLaunchKernelEx(" + what() + ", dependent)");
      return;
    }
    program_kernel<Program>
        <<<dim3(s.blocks, s.batch), s.threads, s.shared_bytes, stream>>>(program);
    const cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) check(launched, what() + " launch");
  }
}

}  // namespace polyhe::cuda::detail
