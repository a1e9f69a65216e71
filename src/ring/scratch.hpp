// Per-thread scratch buffers of the ring layer's CPU paths (key switching, ModDown, encryption,
// rescaling): a key switch at N = 2^14 would otherwise allocate and page-fault in several MiB per
// call. Internal to src/ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace polyhe::detail {

/// Slot `slot` holds at least `words` words until the next call with the same slot on this
/// thread. The scratch is not wiped by itself: public-key encryption wipes the words it leaves
/// secret there (EncV, Acc1's P limbs, Conv) before it returns.
enum ScratchSlot : std::size_t {
  kScratchConv,
  kScratchCoef,
  kScratchUp,
  kScratchAcc0,
  kScratchAcc1,
  kScratchEncV,   // encryption: v's transform over Q_l ∪ P
  kScratchEncPm,  // encryption: P·m
  kScratchMoved,  // hoisted key switching: one limb of the digits, permuted
  kScratchSlots
};
std::span<std::uint64_t> scratch(std::size_t slot, std::size_t words);

}  // namespace polyhe::detail
