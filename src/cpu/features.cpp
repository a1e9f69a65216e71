#include "polyhe/cpu/features.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#endif

#include "polyhe/core/error.hpp"

namespace polyhe {

std::string_view to_string(CpuPath p) {
  switch (p) {
    case CpuPath::scalar: return "scalar";
    case CpuPath::avx2: return "avx2";
    case CpuPath::avx512: return "avx512";
    case CpuPath::ifma: return "ifma";
  }
  return "unknown";
}

std::optional<CpuPath> parse_cpu_path(std::string_view name) {
  for (CpuPath p : kAllCpuPaths) {
    if (to_string(p) == name) return p;
  }
  return std::nullopt;
}

namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(POLYHE_HAVE_AVX2_KERNELS)
  f.compiled_avx2 = true;
#endif
#if defined(POLYHE_HAVE_AVX512_KERNELS)
  f.compiled_avx512 = true;
#endif
#if defined(POLYHE_HAVE_IFMA_KERNELS)
  f.compiled_ifma = true;
#endif
#if defined(__x86_64__) || defined(_M_X64)
  f.x86_64 = true;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  const bool osxsave = (ecx >> 27) & 1U;
  f.fma = (ecx >> 12) & 1U;
  if (osxsave) {
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    // SSE (1), AVX (2), opmask (5), ZMM_Hi256 (6), Hi16_ZMM (7).
    f.os_avx = (xcr0_lo & 0x6U) == 0x6U;
    f.os_avx512 = (xcr0_lo & 0xE6U) == 0xE6U;
  }
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    f.avx2 = (ebx >> 5) & 1U;
    f.avx512f = (ebx >> 16) & 1U;
    f.avx512dq = (ebx >> 17) & 1U;
    f.avx512ifma = (ebx >> 21) & 1U;
    f.avx512bw = (ebx >> 30) & 1U;
    f.avx512vl = (ebx >> 31) & 1U;
  }
#endif
  return f;
}

std::optional<std::string> avx2_missing(const CpuFeatures& f) {
  if (!f.x86_64) return "the CPU is not x86-64";
  if (!f.compiled_avx2) return "this build did not compile the AVX2 kernels";
  if (!f.avx2 || !f.fma) return "the CPU lacks AVX2 or FMA";
  if (!f.os_avx) return "the operating system does not enable the AVX register state";
  return std::nullopt;
}

std::optional<std::string> avx512_missing(const CpuFeatures& f) {
  if (!f.x86_64) return "the CPU is not x86-64";
  if (!f.compiled_avx512) return "this build did not compile the AVX-512 kernels";
  if (!(f.avx512f && f.avx512dq && f.avx512vl && f.avx512bw)) {
    return "the CPU lacks AVX-512 F/DQ/VL/BW";
  }
  if (!f.os_avx512) return "the operating system does not enable the AVX-512 register state";
  return std::nullopt;
}

std::atomic<int> g_active{-1};
std::mutex g_init_mutex;

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::optional<std::string> cpu_path_unavailable_reason(CpuPath p) {
  const CpuFeatures& f = cpu_features();
  switch (p) {
    case CpuPath::scalar: return std::nullopt;
    case CpuPath::avx2: return avx2_missing(f);
    case CpuPath::avx512: return avx512_missing(f);
    case CpuPath::ifma:
      if (auto why = avx512_missing(f)) return why;
      if (!f.compiled_ifma) return "this build did not compile the AVX-512 IFMA kernels";
      if (!f.avx512ifma) return "the CPU lacks AVX-512 IFMA52";
      return std::nullopt;
  }
  return "unknown path";
}

CpuPath best_cpu_path() {
  if (!cpu_path_unavailable_reason(CpuPath::ifma)) return CpuPath::ifma;
  if (!cpu_path_unavailable_reason(CpuPath::avx512)) return CpuPath::avx512;
  if (!cpu_path_unavailable_reason(CpuPath::avx2)) return CpuPath::avx2;
  return CpuPath::scalar;
}

std::string best_cpu_path_reason() {
  switch (best_cpu_path()) {
    case CpuPath::ifma:
      return "AVX-512 F/DQ/VL/BW and IFMA52 present and enabled by the OS: IFMA kernels for "
             "primes below 2^50, AVX-512 kernels for wider primes";
    case CpuPath::avx512:
      return "AVX-512 F/DQ/VL/BW present and enabled, but no IFMA (" +
             *cpu_path_unavailable_reason(CpuPath::ifma) +
             "): AVX-512 kernels for every prime, the transforms and base conversion's sums in "
             "double precision below 2^50";
    case CpuPath::avx2:
      return "AVX2 present and enabled, but no AVX-512 (" +
             *cpu_path_unavailable_reason(CpuPath::avx512) +
             "): AVX2 kernels where they exist, scalar ones for the rest";
    case CpuPath::scalar: return "scalar kernels: " + *cpu_path_unavailable_reason(CpuPath::avx2);
  }
  return "";
}

void set_cpu_path(CpuPath p) {
  if (auto why = cpu_path_unavailable_reason(p)) {
    throw InvalidParameter("CPU path '" + std::string(to_string(p)) +
                           "' is not available: " + *why + "; the best here is '" +
                           std::string(to_string(best_cpu_path())) + "'");
  }
  std::lock_guard lock(g_init_mutex);
  g_active.store(static_cast<int>(p), std::memory_order_release);
}

CpuPath cpu_path() {
  int v = g_active.load(std::memory_order_acquire);
  if (v >= 0) return static_cast<CpuPath>(v);
  std::lock_guard lock(g_init_mutex);
  v = g_active.load(std::memory_order_relaxed);
  if (v >= 0) return static_cast<CpuPath>(v);
  CpuPath chosen = best_cpu_path();
  if (const char* env = std::getenv("POLYHE_CPU"); env != nullptr && *env != '\0') {
    const auto requested = parse_cpu_path(env);
    if (!requested) {
      throw InvalidParameter(std::string("POLYHE_CPU=") + env +
                             " is not a CPU path; use scalar, avx2, avx512 or ifma");
    }
    if (auto why = cpu_path_unavailable_reason(*requested)) {
      throw InvalidParameter(std::string("POLYHE_CPU=") + env + " is refused: " + *why +
                             "; the best here is '" + std::string(to_string(best_cpu_path())) +
                             "'");
    }
    chosen = *requested;
  }
  g_active.store(static_cast<int>(chosen), std::memory_order_release);
  return chosen;
}

}  // namespace polyhe
