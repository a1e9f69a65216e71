// The device transforms and products on 64-bit words (ntt_launch.cuh).
#include "cuda/ntt_launch.cuh"

namespace polyhe::cuda {
POLYHE_CUDA_NTT_INSTANTIATE(std::uint64_t)
}  // namespace polyhe::cuda
