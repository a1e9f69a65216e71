// The NTT benchmark: forward and inverse transforms and the two polynomial products, timed per
// (log N, prime size, variant) with the harness of timing.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "measurement.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/variant.hpp"
#include "timing.hpp"

namespace polyhe::cli {

enum class BenchOp { ntt_forward, ntt_inverse, polymul, polymul_fused };

inline constexpr std::array<BenchOp, 4> kAllBenchOps = {BenchOp::ntt_forward, BenchOp::ntt_inverse,
                                                        BenchOp::polymul, BenchOp::polymul_fused};

/// The op's name in tables and JSON: "ntt_forward", ...
std::string_view to_string(BenchOp op);

struct BenchCase {
  int log_n = 0;
  int bits = 0;
  std::uint64_t q = 0;  // the largest NTT prime of `bits` bits for N = 2^log_n
};

struct BenchNttConfig {
  std::vector<BenchCase> cases;
  std::vector<NttVariant> variants;
  std::vector<BenchOp> ops;
  std::vector<CpuPath> paths;  // CPU kernel paths to time the default variant on
  unsigned threads = 1;
  TimingOptions timing;
};

/// Checks and expands the command line: --log-n in [1, 17], --bits in [20, 62] (and a prime of
/// that size ≡ 1 mod 2N must exist), known variants and ops, 1 ≤ --threads ≤ 256,
/// 0 < --min-time ≤ 600. Throws UsageError naming the option and the value.
BenchNttConfig make_bench_ntt_config(const BenchNttArgs& args);

/// Runs every (case, path, variant, op) in that nesting order (ops in the order of kAllBenchOps)
/// and hands each measurement to `sink`. Only the default variant has per-path kernels; the
/// others run once per case, on the scalar code. A path whose kernel for the case is one already
/// timed (IFMA asked for a prime ≥ 2^50 runs the AVX-512 kernel) is not timed twice. The active
/// path is restored afterwards. With
/// threads > 1 the batched API is timed on 2·threads limbs of one plan per call. A variant the
/// prime cannot serve is skipped with a line to `note`.
void run_bench_ntt(const BenchNttConfig& config,
                   const std::function<void(const Measurement&)>& sink,
                   const std::function<void(const std::string&)>& note);

}  // namespace polyhe::cli
