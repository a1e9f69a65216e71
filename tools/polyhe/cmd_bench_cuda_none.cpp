// `polyhe bench --backend cuda` in a build without the CUDA backend: one error line.
#include <ostream>

#include "commands.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cli {

int cmd_bench_cuda(const BenchCudaArgs& /*args*/, std::ostream& /*out*/, std::ostream& /*err*/) {
  throw Error(
      "bench --backend cuda: this polyhe was built without CUDA (POLYHE_CUDA=OFF or nvcc not "
      "found)");
}

}  // namespace polyhe::cli
