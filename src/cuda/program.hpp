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
//
// A cluster program (shape().cluster = K > 1; Hopper's thread-block clusters) runs its blocks in
// groups of K that can read and write each other's shared memory, and has instead
//   POLYHE_HD bool cluster_barrier(unsigned phase) const;   the barrier before `phase` spans the
//                                                            cluster (phase 0: before the first,
//                                                            phases(): before the blocks exit)
//   template <class Shared>
//   POLYHE_HD void run(unsigned phase, ThreadIndex t, const Shared& shared) const;
// where shared.local() is the block's own shared memory and shared.block(rank) that of block
// `rank` of its cluster (rank = blockIdx.x mod K). A block may touch another block's shared
// memory only after a cluster barrier (the blocks of a cluster start together only then), what
// one block writes there is seen by the other only after the next cluster barrier, and a block
// whose shared memory another reads in the last phases must not exit before a final cluster
// barrier. emulate_cluster() checks those rules as emulate() checks the two above.
#pragma once

#include <concepts>
#include <cstddef>

#include "polyhe/core/config.hpp"

namespace polyhe::cuda::detail {

/// threadIdx.x, blockIdx.x, blockIdx.y.
struct ThreadIndex {
  unsigned thread;
  unsigned block;
  unsigned batch;
};

/// blockDim.x, gridDim.x, gridDim.y, the dynamic shared memory of one block and the blocks of a
/// cluster along x (1: no cluster; else blocks is a multiple of it).
struct LaunchShape {
  unsigned threads;
  unsigned blocks;
  unsigned batch;
  std::size_t shared_bytes;
  unsigned cluster = 1;
};

/// Blocks of 256 threads that one SM must be able to hold for a program of largest radix 2^rmax:
/// __launch_bounds__'s second argument on the device, a cap on registers for ptxas. A program may
/// declare `static constexpr unsigned kMinBlocks` (launch.cuh reads it; 1, no cap, when absent).
/// Three blocks caps a thread at 80 registers (64 Ki registers an SM, allocated per warp in
/// multiples of 256). Up to radix 8 the default transforms fit without spilling, and an H200
/// measured 3 blocks (against ptxas's own 94 registers for ColumnNtt and 108 for LiftColumnNtt,
/// 2 blocks) 4–6 % faster for CKKS multiply_relin, rotate and rescale at 2^16. Radix-16 programs
/// spill up to 172 bytes a thread under that cap, so they keep ptxas's choice.
constexpr unsigned program_min_blocks(int rmax) {
  return rmax <= 3 ? 3u : 1u;
}

/// Whether Program is a cluster program.
template <class Program>
concept ClusterProgram = requires(const Program& p) {
  { p.cluster_barrier(0u) } -> std::same_as<bool>;
};

}  // namespace polyhe::cuda::detail
