// Block programs: how polyhe's CUDA kernels are written so that the host can run them too.
//
// A block program is a trivially copyable struct (its pointers name device memory on the device,
// host memory under emulation) with
//   LaunchShape shape() const;                                          host: the launch
//   unsigned phases() const;                                            how many phases
//   POLYHE_HD void run(unsigned phase, ThreadIndex t, void* shared) const;
// Every thread of a block runs phase 0, then phase 1, ..., with a block-wide barrier between two
// phases (a __syncthreads on the device). Within a phase a thread may read and write only what no
// other thread of its block touches in that phase; across blocks of one launch, only what no other
// block touches. The device runs programs through launch() (launch.cuh); the tests run them on the
// host through emulate() (emulate.hpp), which checks those two rules by running the threads and
// the blocks in several orders. The arithmetic is the POLYHE_HD code of arith/ and ntt/, so the
// host and the device compute with the very same functions.
#pragma once

#include <cstddef>

#include "polyhe/core/config.hpp"

namespace polyhe::cuda::detail {

/// threadIdx.x, blockIdx.x, blockIdx.y.
struct ThreadIndex {
  unsigned thread;
  unsigned block;
  unsigned batch;
};

/// blockDim.x, gridDim.x, gridDim.y and the dynamic shared memory of one block.
struct LaunchShape {
  unsigned threads;
  unsigned blocks;
  unsigned batch;
  std::size_t shared_bytes;
};

}  // namespace polyhe::cuda::detail
