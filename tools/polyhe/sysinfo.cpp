#include "sysinfo.hpp"

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <thread>

#ifndef POLYHE_BUILD_TYPE
#define POLYHE_BUILD_TYPE ""
#endif

namespace polyhe::cli {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return line.substr(start);
  }
  return "unknown CPU";
}

unsigned logical_cores() {
  return std::max(1U, std::thread::hardware_concurrency());
}

std::vector<CpuFeature> cpu_feature_list() {
  const CpuFeatures& f = polyhe::cpu_features();
  if (!f.x86_64) return {};
  return {{"avx2", f.avx2},
          {"fma", f.fma},
          {"os_avx_state", f.os_avx},
          {"avx512f", f.avx512f},
          {"avx512dq", f.avx512dq},
          {"avx512vl", f.avx512vl},
          {"avx512bw", f.avx512bw},
          {"avx512ifma", f.avx512ifma},
          {"os_avx512_state", f.os_avx512}};
}

std::string cpu_path_line() {
  try {
    const CpuPath active = cpu_path();
    std::string line = std::string(to_string(active));
    if (active == best_cpu_path()) {
      line += " (" + best_cpu_path_reason() + ")";
    } else {
      line += " (forced by POLYHE_CPU or the API; the best here is " +
              std::string(to_string(best_cpu_path())) + ": " + best_cpu_path_reason() + ")";
    }
    return line;
  } catch (const Error& e) {
    return std::string("invalid: ") + e.what();
  }
}

std::string build_type() {
  const std::string type = POLYHE_BUILD_TYPE;
  return type.empty() ? "unspecified" : type;
}

std::string compiler() {
#if defined(__clang__)
  return "Clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown compiler";
#endif
}

GpuReport gpu_report() {
  GpuReport r;
  r.cuda_compiled = cuda_compiled();
  r.gpus = gpus(&r.why_none);
  return r;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace polyhe::cli
