// gpu_info.hpp for a build with CUDA: the devices the CUDA runtime reports.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "polyhe/backend/gpu_info.hpp"

namespace polyhe {

bool cuda_compiled() {
  return true;
}

std::vector<GpuInfo> gpus(std::string* why_none) {
  std::vector<GpuInfo> list;
  int count = 0;
  if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    if (why_none != nullptr)
      *why_none = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
    return list;
  }
  std::string last_error = "cudaGetDeviceCount: no CUDA device found";
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (const cudaError_t err = cudaGetDeviceProperties(&prop, i); err != cudaSuccess) {
      // A device the runtime counts but cannot describe is left out of the list.
      last_error = "cudaGetDeviceProperties(" + std::to_string(i) + "): " + cudaGetErrorString(err);
      continue;
    }
    GpuInfo info;
    info.index = i;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.global_memory_bytes = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    list.push_back(std::move(info));
  }
  if (list.empty() && why_none != nullptr) *why_none = last_error;
  return list;
}

}  // namespace polyhe
