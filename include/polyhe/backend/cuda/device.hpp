// The CUDA backend as a ring Device (ring/device.hpp): RnsPolys, ciphertexts and keys moved to it
// with to_device() run every ring operation as CUDA kernels on the context's GPU — the same
// kernel bodies and block programs the emulated device (backend/emulated.hpp) runs on the host.
#pragma once

#include <memory>

#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/ring/device.hpp"

namespace polyhe::cuda {

/// The Device of `ctx` (InvalidParameter for a null context). Its operations run in order on
/// the context's compute stream, asynchronously; its memory comes from the context's pool;
/// per-ring constants (moduli, NTT tables, automorphism maps) are uploaded once per ring.
/// Its transforms run in blocks of 2^11 words, or 2^POLYHE_CUDA_TILE_LOG when that environment
/// variable is set (8 … 13, a tuning knob read here; InvalidParameter naming any other value).
/// POLYHE_CUDA_CONVERT_GROUP (1 … 4, unset 3; another knob for timing, read here, anything else
/// refused) sets the targets one thread of a base conversion computes, and POLYHE_CUDA_PDL (1 or
/// unset: on, 0: plain launches) launches the kernels as programmatic dependent launches on
/// devices of compute capability 9.0 and up, each launch overlapping the tail of the kernel ahead
/// of it (1.04–1.18× faster on the scheme operations of an H200). None of them changes a word of
/// any result.
[[nodiscard]] std::shared_ptr<Device> make_device(std::shared_ptr<const Context> ctx);

}  // namespace polyhe::cuda
