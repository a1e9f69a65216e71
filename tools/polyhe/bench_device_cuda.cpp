#include <string>

#include "bench_device.hpp"
#include "cuda/bench.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/device.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cli {

std::shared_ptr<Device> make_cuda_bench_device() {
  std::string why;
  if (gpus(&why).empty()) throw Error("--backend cuda: no usable CUDA device: " + why);
  return cuda::make_device(cuda::Context::create(0));
}

void cuda_profiler(bool start) {
  (void)cuda::bench::profiler(start);  // a profiler is optional; without one nothing happens
}

}  // namespace polyhe::cli
