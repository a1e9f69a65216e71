// emulate(program): runs a block program (program.hpp) on the host, thread by thread, in the
// order the argument names (a cluster program cluster by cluster, emulate_cluster); the tests run
// each program in several orders and require the same words, which exposes a read of what another
// thread writes in the same phase, or of what another block writes in the same launch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/program.hpp"

namespace polyhe::cuda::detail {

enum class EmulationOrder {
  forward,   // blocks and threads in increasing order
  reverse,   // both in decreasing order
  shuffled,  // both in a seeded random order, a new one per phase
};

/// 0 … count − 1 in the order of an EmulationOrder.
struct Scheduler {
  EmulationOrder order;
  std::mt19937_64 rng;  // test scheduling only, never keys or noise
  std::vector<unsigned> operator()(unsigned count) {
    std::vector<unsigned> ids(count);
    std::iota(ids.begin(), ids.end(), 0u);
    if (order == EmulationOrder::reverse) std::reverse(ids.begin(), ids.end());
    if (order == EmulationOrder::shuffled) std::shuffle(ids.begin(), ids.end(), rng);
    return ids;
  }
};

template <class Program>
void emulate_cluster(const Program& program, EmulationOrder order, std::uint64_t seed);

/// Runs every block of `program` on the host (a cluster program through emulate_cluster). Shared
/// memory is filled with a poison pattern before each block, so a read of shared memory that
/// nothing wrote gives wrong words.
template <class Program>
void emulate(const Program& program, EmulationOrder order = EmulationOrder::forward,
             std::uint64_t seed = 1) {
  if constexpr (ClusterProgram<Program>) {
    emulate_cluster(program, order, seed);
  } else {
    const LaunchShape shape = program.shape();
    // 16-byte aligned like the device's dynamic shared memory.
    std::vector<std::uint64_t> shared((shape.shared_bytes + 15) / 16 * 2 + 2);
    Scheduler ordered{order, std::mt19937_64(seed)};
    const unsigned phases = program.phases();
    for (unsigned batch : ordered(shape.batch)) {
      for (unsigned block : ordered(shape.blocks)) {
        std::fill(shared.begin(), shared.end(), 0xdeadbeefdeadbeefULL);
        for (unsigned phase = 0; phase < phases; ++phase) {
          for (unsigned thread : ordered(shape.threads)) {
            program.run(phase, ThreadIndex{thread, block, batch}, shared.data());
          }
        }
      }
    }
  }
}

/// The shared memory of the blocks of one emulated cluster, seen from block `rank`.
class HostClusterShared {
 public:
  HostClusterShared(std::vector<std::vector<std::uint64_t>>& blocks, unsigned rank, bool remote_ok)
      : blocks_(&blocks), rank_(rank), remote_ok_(remote_ok) {}
  [[nodiscard]] void* local() const { return (*blocks_)[rank_].data(); }
  /// Throws std::logic_error for another block's memory before the first cluster barrier.
  [[nodiscard]] void* block(unsigned rank) const {
    if (rank != rank_ && !remote_ok_) {
      throw std::logic_error("block " + std::to_string(rank_) +
                             " touches the shared memory of block " + std::to_string(rank) +
                             " before a cluster barrier");
    }
    return (*blocks_)[rank].data();
  }

 private:
  std::vector<std::vector<std::uint64_t>>* blocks_;
  unsigned rank_;
  bool remote_ok_;
};

/// Runs every cluster of a cluster program (program.hpp) on the host. Between two cluster
/// barriers each block of a cluster runs all its phases before the next block starts, in the
/// order the argument names, so a read of what another block writes without a cluster barrier
/// between gives different words in different orders; a block's shared memory is poisoned when
/// it exits unless a final cluster barrier keeps it; touching another block's memory before the
/// first cluster barrier throws std::logic_error.
template <class Program>
void emulate_cluster(const Program& program, EmulationOrder order, std::uint64_t seed) {
  const LaunchShape shape = program.shape();
  const unsigned k = shape.cluster;
  if (k == 0 || shape.blocks % k != 0)
    throw std::logic_error("blocks not a multiple of the cluster");
  const std::size_t words = (shape.shared_bytes + 15) / 16 * 2 + 2;
  std::vector<std::vector<std::uint64_t>> shared(k, std::vector<std::uint64_t>(words));
  Scheduler ordered{order, std::mt19937_64(seed)};
  const unsigned phases = program.phases();
  // Segments: the phases between two cluster barriers.
  std::vector<unsigned> cuts{0};
  for (unsigned p = 1; p < phases; ++p) {
    if (program.cluster_barrier(p)) cuts.push_back(p);
  }
  cuts.push_back(phases);
  const bool kept = program.cluster_barrier(phases);
  for (unsigned batch : ordered(shape.batch)) {
    for (unsigned cluster : ordered(shape.blocks / k)) {
      for (auto& s : shared) std::fill(s.begin(), s.end(), 0xdeadbeefdeadbeefULL);
      for (std::size_t seg = 0; seg + 1 < cuts.size(); ++seg) {
        const bool remote_ok = seg > 0 || program.cluster_barrier(0);
        for (unsigned rank : ordered(k)) {
          const HostClusterShared view(shared, rank, remote_ok);
          for (unsigned phase = cuts[seg]; phase < cuts[seg + 1]; ++phase) {
            for (unsigned thread : ordered(shape.threads)) {
              program.run(phase, ThreadIndex{thread, cluster * k + rank, batch}, view);
            }
          }
          if (seg + 2 == cuts.size() && !kept) {
            std::fill(shared[rank].begin(), shared[rank].end(), 0xdeadbeefdeadbeefULL);
          }
        }
      }
    }
  }
}

}  // namespace polyhe::cuda::detail
