// Per-thread scratch buffers of the ring layer's CPU paths (key switching, ModDown, encryption,
// rescaling): a key switch at N = 2^14 would otherwise allocate and page-fault in several MiB per
// call. Internal to src/ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace polyhe::detail {

/// Slot `slot` holds at least `words` words until the next call with the same slot on this
/// thread.
enum ScratchSlot : std::size_t {
  kScratchConv,
  kScratchCoef,
  kScratchUp,
  kScratchAcc0,
  kScratchAcc1,
  kScratchEncV,
  kScratchAdd0,
  kScratchAdd1,
  kScratchSlots
};
std::span<std::uint64_t> scratch(std::size_t slot, std::size_t words);

}  // namespace polyhe::detail
