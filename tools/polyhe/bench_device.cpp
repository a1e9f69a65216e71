#include "bench_device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

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

ProfiledRegion::ProfiledRegion(const BenchBackend& backend) : active_(backend.name == "cuda") {
  if (active_) cuda_profiler(true);
}

ProfiledRegion::~ProfiledRegion() {
  if (active_) cuda_profiler(false);
}

TransferRates measure_transfer_rates(Device& device) {
  constexpr std::size_t kWords = std::size_t{4} << 20;  // 32 MiB
  std::uint64_t* pinned = device.pinned_allocate(kWords);
  std::uint64_t* words = device.allocate(kWords);
  const std::span<std::uint64_t> host(pinned, kWords);
  std::fill(host.begin(), host.end(), std::uint64_t{0x5a5a});
  const auto seconds = [&](auto&& copy) {
    std::vector<double> t;
    for (int rep = 0; rep < 10; ++rep) {
      const auto t0 = std::chrono::steady_clock::now();
      copy();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    t.erase(t.begin());  // warm-up
    std::nth_element(t.begin(), t.begin() + 4, t.end());
    return t[4];
  };
  device.synchronize();
  const double up = seconds([&] {
    device.upload_async(nullptr, host, words);
    device.record()->wait();
  });
  const double down = seconds([&] { device.download_async(words, host)->wait(); });
  device.deallocate(words, kWords);
  device.pinned_free(pinned);
  const double bytes = static_cast<double>(kWords * sizeof(std::uint64_t));
  return TransferRates{bytes / up, bytes / down};
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
