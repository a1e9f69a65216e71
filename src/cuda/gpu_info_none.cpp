// gpu_info.hpp for a build without CUDA: no devices, and why.
#include <string>
#include <vector>

#include "polyhe/backend/gpu_info.hpp"

namespace polyhe {

bool cuda_compiled() {
  return false;
}

std::vector<GpuInfo> gpus(std::string* why_none) {
  if (why_none != nullptr) *why_none = "polyhe was built without CUDA";
  return {};
}

}  // namespace polyhe
