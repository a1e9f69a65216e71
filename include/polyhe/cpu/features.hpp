// Run-time CPU dispatch: what the processor and the operating system support, and which kernel
// path is active. Read once (CPUID and the OS's XSAVE state); never decided at build time.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace polyhe {

/// The kernel paths, in increasing order of what they require.
///   scalar: portable C++, always available.
///   avx2:   AVX2 + FMA kernels (four 64-bit lanes, products from 32×32 multiplies; the NTT in
///           exact double-precision arithmetic for q < 2^50) where they exist; the operations
///           without one run the scalar kernels.
///   avx512: AVX-512 F/DQ/VL/BW kernels for 64-bit words, primes up to 62 bits.
///   ifma:   AVX-512 IFMA52 kernels for primes below 2^50; wider primes take the avx512 kernels.
enum class CpuPath { scalar = 0, avx2 = 1, avx512 = 2, ifma = 3 };

/// Every path, lowest first.
inline constexpr CpuPath kAllCpuPaths[] = {CpuPath::scalar, CpuPath::avx2, CpuPath::avx512,
                                           CpuPath::ifma};

std::string_view to_string(CpuPath p);
std::optional<CpuPath> parse_cpu_path(std::string_view name);

struct CpuFeatures {
  bool x86_64 = false;
  bool avx2 = false;
  bool fma = false;
  bool os_avx = false;  // XCR0 enables the SSE and YMM state (XGETBV)
  bool avx512f = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512bw = false;
  bool avx512ifma = false;
  bool os_avx512 = false;        // XCR0 enables the opmask and all ZMM state (XGETBV)
  bool compiled_avx2 = false;    // this build compiled the avx2 kernels
  bool compiled_avx512 = false;  // this build compiled the avx512 kernels
  bool compiled_ifma = false;    // this build compiled the ifma kernels
};

/// The features of this CPU and OS, detected once.
const CpuFeatures& cpu_features();

/// The highest path this CPU, OS and build support, and a sentence saying why.
CpuPath best_cpu_path();
std::string best_cpu_path_reason();

/// The active path: POLYHE_CPU (scalar|avx2|avx512|ifma) when set, else best_cpu_path(). A
/// POLYHE_CPU naming an unknown path or one above best_cpu_path() makes this throw
/// InvalidParameter with the reason (a lower path than the CPU has is allowed).
CpuPath cpu_path();

/// Sets the active path for the whole process (the API form of POLYHE_CPU); same rules.
void set_cpu_path(CpuPath p);

/// Why `p` cannot be used here, or nothing when it can.
std::optional<std::string> cpu_path_unavailable_reason(CpuPath p);

}  // namespace polyhe
