// The NTT options of the device ring's transforms (DeviceRing, the scheme paths): radix 8 and the
// default tile (blocks of 2^11 64-bit words), unless the environment variable POLYHE_CUDA_TILE_LOG
// names another tile. A tuning knob, read when a device is made, for timing grid shapes on a GPU
// machine without a rebuild (scripts/gpu-ab.sh's env variants): a limb of 2^log_n words runs as
// 2^(log_n − tile_log) blocks of the two-pass programs, so at N = 2^14 the default gives a limb
// 8 blocks, and 9 limbs fill 72 of an H200's 132 SMs.
#pragma once

#include <cstdlib>
#include <string>

#include "polyhe/backend/cuda/ntt.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda::detail {

/// The tiles the knob accepts: 2^8 … 2^13 words a block (64-bit words: 2 KiB … 64 KiB of shared
/// memory), the range the emulation tests run the scheme paths over.
inline constexpr unsigned kRingTileLogMin = 8;
inline constexpr unsigned kRingTileLogMax = 13;

/// NttOptions{} with tile_log from `value` (POLYHE_CUDA_TILE_LOG's text; null or empty: the
/// default). InvalidParameter naming the value and the rule for anything but a decimal number in
/// [kRingTileLogMin, kRingTileLogMax].
inline NttOptions ring_ntt_options(const char* value) {
  NttOptions o;
  if (value == nullptr || *value == '\0') return o;
  const std::string text(value);
  unsigned v = 0;
  bool ok = text.size() <= 2;
  for (const char ch : text) {
    ok = ok && ch >= '0' && ch <= '9';
    if (ok) v = v * 10 + static_cast<unsigned>(ch - '0');
  }
  if (!ok || v < kRingTileLogMin || v > kRingTileLogMax) {
    throw InvalidParameter("POLYHE_CUDA_TILE_LOG=" + text +
                           ": the device ring's NTT blocks hold 2^tile_log words, tile_log a "
                           "number from " +
                           std::to_string(kRingTileLogMin) + " to " +
                           std::to_string(kRingTileLogMax) + " (unset: 11)");
  }
  o.tile_log = v;
  return o;
}

/// The targets a thread of a base conversion computes when POLYHE_CUDA_CONVERT_GROUP is unset: 3,
/// from an H200's timing (2026-11-28: BFV multiply_relin at 2^14 1.05× faster than G = 1, G = 4
/// no better, CKKS and BGV unchanged).
inline constexpr unsigned kRingConvertGroup = 3;

/// The targets of a base conversion one device thread computes (ConvertBody's G, ring_bodies.hpp),
/// from `value` (POLYHE_CUDA_CONVERT_GROUP's text): 1 … 4; null or empty: kRingConvertGroup. A
/// knob like the tile's, read when a device is made; InvalidParameter naming the value and the
/// rule for anything else.
inline unsigned ring_convert_group(const char* value) {
  if (value == nullptr || *value == '\0') return kRingConvertGroup;
  const std::string text(value);
  if (text.size() != 1 || text[0] < '1' || text[0] > '4') {
    throw InvalidParameter("POLYHE_CUDA_CONVERT_GROUP=" + text +
                           ": a device thread of a base conversion computes 1 to 4 targets "
                           "(unset: " +
                           std::to_string(kRingConvertGroup) + ")");
  }
  return static_cast<unsigned>(text[0] - '0');
}

/// ring_convert_group(getenv("POLYHE_CUDA_CONVERT_GROUP")).
inline unsigned ring_convert_group() {
  return ring_convert_group(
      std::getenv("POLYHE_CUDA_CONVERT_GROUP"));  // NOLINT(concurrency-mt-unsafe)
}

/// Whether the device ring launches its kernels as programmatic dependent launches
/// (grid_dependency.cuh: each kernel's launch overlaps the tail of the one ahead of it), from
/// `value` (POLYHE_CUDA_PDL's text): "1", null or empty yes (the default since an H200 timed it
/// at 1.04–1.18× faster on every scheme operation, 2026-11-28), "0" no: plain launches.
/// Devices before compute capability 9.0 launch plainly either way. A knob like the tile's, read
/// when a device is made; InvalidParameter naming the value and the rule for anything else.
inline bool ring_dependent_launch(const char* value) {
  if (value == nullptr || *value == '\0') return true;
  const std::string text(value);
  if (text == "0" || text == "1") return text == "1";
  throw InvalidParameter("POLYHE_CUDA_PDL=" + text +
                         ": 1 (or unset) launches the device ring's kernels as programmatic "
                         "dependent launches, 0 as plain ones");
}

/// ring_dependent_launch(getenv("POLYHE_CUDA_PDL")).
inline bool ring_dependent_launch() {
  return ring_dependent_launch(std::getenv("POLYHE_CUDA_PDL"));  // NOLINT(concurrency-mt-unsafe)
}

/// ring_ntt_options(getenv("POLYHE_CUDA_TILE_LOG")).
inline NttOptions ring_ntt_options() {
  return ring_ntt_options(std::getenv("POLYHE_CUDA_TILE_LOG"));  // NOLINT(concurrency-mt-unsafe)
}

}  // namespace polyhe::cuda::detail
