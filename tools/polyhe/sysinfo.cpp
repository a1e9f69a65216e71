#include "sysinfo.hpp"

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

std::vector<CpuFeature> cpu_features() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return {{"avx512f", __builtin_cpu_supports("avx512f") != 0},
          {"avx512dq", __builtin_cpu_supports("avx512dq") != 0},
          {"avx512ifma", __builtin_cpu_supports("avx512ifma") != 0}};
#else
  return {};
#endif
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
