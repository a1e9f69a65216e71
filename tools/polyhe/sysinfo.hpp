// What the tool reports about the machine and the build it runs.
#pragma once

#include <string>
#include <vector>

#include "polyhe/backend/gpu_info.hpp"

namespace polyhe::cli {

/// "model name" from /proc/cpuinfo, else "unknown CPU".
std::string cpu_model();
unsigned logical_cores();

struct CpuFeature {
  const char* name;
  bool present;
};
/// The ISA extensions polyhe's kernels are chosen by at run time (polyhe::cpu_features(), read
/// from CPUID and XGETBV); empty on other architectures.
std::vector<CpuFeature> cpu_feature_list();

/// "ifma (AVX-512 F/DQ/VL/BW and IFMA52 present ...)": the active CPU path and why; when
/// POLYHE_CPU is invalid, its error message.
std::string cpu_path_line();

/// CMake's build type of this binary ("Release", ...).
std::string build_type();
/// Compiler name and version.
std::string compiler();

struct GpuReport {
  bool cuda_compiled = false;
  std::vector<GpuInfo> gpus;
  std::string why_none;  // when gpus is empty
};
GpuReport gpu_report();

/// The current UTC time, ISO 8601 ("2025-01-31T12:00:00Z").
std::string utc_timestamp();

}  // namespace polyhe::cli
