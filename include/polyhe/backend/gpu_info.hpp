// What CUDA devices this process can see. Always available: without CUDA support compiled in,
// cuda_compiled() is false and gpus() is empty.
#pragma once

#include <string>
#include <vector>

namespace polyhe {

struct GpuInfo {
  int index = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  unsigned long long global_memory_bytes = 0;
  int multiprocessors = 0;
};

/// Whether this build of polyhe compiled its CUDA parts.
bool cuda_compiled();

/// The visible CUDA devices; empty when CUDA is not compiled in, no driver is loaded or no
/// device is present. `why_none` (optional) receives the reason when the list is empty.
std::vector<GpuInfo> gpus(std::string* why_none = nullptr);

}  // namespace polyhe
