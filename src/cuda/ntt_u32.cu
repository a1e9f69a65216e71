// The device transforms and products on 32-bit words (ntt_launch.cuh).
#include "cuda/ntt_launch.cuh"

namespace polyhe::cuda {
POLYHE_CUDA_NTT_INSTANTIATE(std::uint32_t)
}  // namespace polyhe::cuda
