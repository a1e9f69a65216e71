// The emulated device: a Device (ring/device.hpp) whose "device memory" is host memory and whose
// kernels are the CUDA backend's own bodies and block programs (src/cuda/*_body.hpp), run on the
// host thread by thread in the order the launch shapes give. Selectable wherever a real backend
// is ("cuda-emulated"), it runs every scheme on the device code path without a GPU: the tests and
// CI prove the device path with it, bit for bit against the CPU backend. For correctness, not
// speed (it is one host thread emulating thousands).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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
/// any kernel wrote it gives wrong results rather than a lucky zero. POLYHE_CUDA_TILE_LOG,
/// POLYHE_CUDA_CONVERT_GROUP and POLYHE_CUDA_PDL are read and refused as by cuda::make_device
/// (backend/cuda/device.hpp); the last changes nothing here (no launches to overlap).
[[nodiscard]] std::shared_ptr<Device> make_emulated_device(
    EmulatedOrder order = EmulatedOrder::forward, std::uint64_t seed = 1);

/// One block program an emulated device ran: the name its launcher gives the kernel, the grid
/// (threads per block, blocks, batch: blockDim.x, gridDim.x, gridDim.y) and the dynamic shared
/// memory of a block, as the GPU would be asked for them.
struct EmulatedLaunch {
  std::string name;
  unsigned threads = 0;
  unsigned blocks = 0;
  unsigned batch = 0;
  std::size_t shared_bytes = 0;
};

/// The block programs `device` ran since it was made or since the last call, oldest first (the
/// last 4096 at most), and the log emptied: how the tests see which grids the ring operations
/// choose. InvalidParameter naming the device when it is not an emulated one.
[[nodiscard]] std::vector<EmulatedLaunch> take_emulated_launches(Device& device);

}  // namespace polyhe
