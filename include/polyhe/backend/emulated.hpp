// The emulated device: a Device (ring/device.hpp) whose "device memory" is host memory and whose
// kernels are the CUDA backend's own bodies and block programs (src/cuda/*_body.hpp), run on the
// host thread by thread in the order the launch shapes give. Selectable wherever a real backend
// is ("cuda-emulated"), it runs every scheme on the device code path without a GPU: the tests and
// CI prove the device path with it, bit for bit against the CPU backend. For correctness, not
// speed (it is one host thread emulating thousands).
#pragma once

#include <cstdint>
#include <memory>

#include "polyhe/ring/device.hpp"

namespace polyhe {

/// The order the emulated device runs the threads and blocks of a launch in: a race between
/// threads of a phase, or between blocks of one launch, gives different words in different orders.
enum class EmulatedOrder {
  forward,   // increasing
  reverse,   // decreasing
  shuffled,  // a seeded random order per phase
};

/// A new emulated device. Its allocations are filled with a poison pattern, so a word read before
/// any kernel wrote it gives wrong results rather than a lucky zero.
[[nodiscard]] std::shared_ptr<Device> make_emulated_device(
    EmulatedOrder order = EmulatedOrder::forward, std::uint64_t seed = 1);

}  // namespace polyhe
