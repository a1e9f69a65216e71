// Programmatic dependent launch (compute capability 9.0 and up): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may be scheduled before the kernel ahead of it
// in the stream has finished, so that its launch overlaps that kernel's tail instead of following
// it. Every kernel of ours calls wait_for_prerequisite_grid() first, before it reads or writes any
// memory: with the attribute, that waits until the kernel ahead has completed and its writes are
// visible (the order the stream would have given); without it, both instructions return at once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace polyhe::cuda::detail {

/// The launch attribute that makes a launch a programmatic dependent one.
inline cudaLaunchAttribute dependent_launch_attribute() {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

/// kernel<<<grid, threads, shared_bytes, stream>>>(args...) as a programmatic dependent launch;
/// the launch's error (the caller checks it, naming the kernel).
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, unsigned threads,
                             std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = dependent_launch_attribute();
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// Waits for the grids this one depends on (griddepcontrol.wait), then lets the grids that depend
/// on this one be scheduled (griddepcontrol.launch_dependents). Called by every thread of every
/// block at the kernel's entry: a dependent grid's blocks are then scheduled only once every block
/// of this grid has passed its own wait, so at most one kernel waits ahead of the one running.
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();            // griddepcontrol.wait, a compiler memory barrier
  cudaTriggerProgrammaticLaunchCompletion();  // griddepcontrol.launch_dependents
#endif
}

}  // namespace polyhe::cuda::detail
