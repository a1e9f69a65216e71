// emulate(program): runs a block program (program.hpp) on the host, thread by thread, in the
// order the argument names; the tests run each program in several orders and require the same
// words, which exposes a read of what another thread writes in the same phase, or of what another
// block writes in the same launch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/program.hpp"

namespace polyhe::cuda::detail {

enum class EmulationOrder {
  forward,   // blocks and threads in increasing order
  reverse,   // both in decreasing order
  shuffled,  // both in a seeded random order, a new one per phase
};

/// Runs every block of `program` on the host. Shared memory is filled with a poison pattern
/// before each block, so a read of shared memory that nothing wrote gives wrong words.
template <class Program>
void emulate(const Program& program, EmulationOrder order = EmulationOrder::forward,
             std::uint64_t seed = 1) {
  const LaunchShape shape = program.shape();
  // 16-byte aligned like the device's dynamic shared memory.
  std::vector<std::uint64_t> shared((shape.shared_bytes + 15) / 16 * 2 + 2);
  std::mt19937_64 rng(seed);  // test scheduling only, never keys or noise
  auto ordered = [&](unsigned count) {
    std::vector<unsigned> ids(count);
    std::iota(ids.begin(), ids.end(), 0u);
    if (order == EmulationOrder::reverse) std::reverse(ids.begin(), ids.end());
    if (order == EmulationOrder::shuffled) std::shuffle(ids.begin(), ids.end(), rng);
    return ids;
  };
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

}  // namespace polyhe::cuda::detail
