// One benchmark measurement and its two renderings: a JSON line (docs/design.md, "Benchmark JSON")
// and a markdown table row.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "timing.hpp"

namespace polyhe::cli {

struct Measurement {
  std::string op;  // ntt_forward, ntt_inverse, polymul, polymul_fused
  std::string backend = "cpu";
  std::string device;  // CPU model name
  int log_n = 0;
  int bits = 0;
  std::size_t limbs = 1;  // limbs per timed call
  std::string variant;
  std::string path = "scalar";  // the CPU kernel path that ran (scalar, avx512, ifma)
  TimingStats stats;            // per call
  unsigned threads = 1;
  /// Device backends: the host's share per call (enqueue_median in bench_device.hpp).
  std::optional<double> enqueue_ns;
};

/// {"op", "backend", "device", "log_n", "bits", "limbs", "variant", "median_ns", "p10_ns",
/// "p90_ns", "reps", "threads", "path", "unit"[, "enqueue_ns"]} on one line, without the newline.
std::string measurement_json(const Measurement& m);

/// "| op | log N | bits | variant | path | median µs | p10 µs | p90 µs | reps |" and its rule line,
/// each ending in a newline.
std::string markdown_table_header();
std::string markdown_table_row(const Measurement& m);

/// Nanoseconds as microseconds with three decimals.
std::string micros(double ns);

}  // namespace polyhe::cli
