#include "bench_device.hpp"

#include "polyhe/backend/emulated.hpp"
#include "polyhe/cpu/features.hpp"
#include "sysinfo.hpp"
#include "usage.hpp"

namespace polyhe::cli {

std::string bench_title(const std::string& scheme, const BenchBackend& backend, unsigned threads) {
  const std::string host = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  if (!backend.device) {
    return scheme + " benchmark on " + cpu_model() + ": " + host + ", CPU path " +
           std::string(to_string(cpu_path()));
  }
  if (backend.name == "cuda-emulated") {
    return scheme + " benchmark on the emulated device (the CUDA kernel bodies run on the host, " +
           cpu_model() + "; times are the emulation's, not a GPU's): host work on " + host;
  }
  return scheme + " benchmark on " + backend.device->name() +
         " (each call timed to the completion of its device work): host work on " + host;
}

BenchBackend make_bench_backend(const std::string& backend, int log_n) {
  if (backend == "cpu") return BenchBackend{};
  if (backend == "cuda-emulated") {
    if (log_n > kMaxEmulatedLogN) {
      throw UsageError("--backend cuda-emulated: --log-n " + std::to_string(log_n) + " is above " +
                       std::to_string(kMaxEmulatedLogN) +
                       "; the emulated device is for correctness at small N (use --backend cuda "
                       "on a GPU for timings)");
    }
    return BenchBackend{backend, make_emulated_device()};
  }
  if (backend == "cuda") return BenchBackend{backend, make_cuda_bench_device()};
  throw UsageError("--backend: " + backend + " is not cpu, cuda or cuda-emulated");
}

}  // namespace polyhe::cli
