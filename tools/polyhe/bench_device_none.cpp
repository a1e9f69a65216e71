#include "bench_device.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cli {

std::shared_ptr<Device> make_cuda_bench_device() {
  throw Error(
      "--backend cuda: this polyhe was built without CUDA (POLYHE_CUDA=OFF or nvcc not found)");
}

void cuda_profiler(bool /*start*/) {}

}  // namespace polyhe::cli
