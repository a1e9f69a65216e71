// `polyhe bench --backend cuda`: the device suite. Compiled only when polyhe has its CUDA
// backend (cmd_bench_cuda_none.cpp stands in otherwise). Every time is taken with CUDA events;
// every row carries its floor (the fewest bytes over the measured copy bandwidth, or the fewest
// products over the measured multiply rate, whichever is larger) and the ratio measured/floor.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/bench.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/ntt/variant.hpp"
#include "timing.hpp"

namespace polyhe::cli {

/// One measurement of the CUDA suite.
struct CudaRow {
  std::string op;
  std::string device;  // the GPU's name
  int log_n = 0;
  int bits = 0;
  std::size_t limbs = 1;
  std::string variant;
  TimingStats stats;    // per call (per limb when extra["per"] = "limb")
  double floor_ns = 0;  // 0: no floor applies (the floors themselves)
  std::string config;   // markdown: radix, kernel, chunk ...
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // JSON keys after the fields
};

/// The benchmark JSON fields of docs/design.md, then "backend": "cuda", "unit": "ns", floor_ns and
/// ratio (when a floor applies), then `extra`; one line.
std::string cuda_row_json(const CudaRow& r);
std::string cuda_table_header();
std::string cuda_table_row(const CudaRow& r);

/// The device's floors, measured once at the start of the suite.
struct DeviceFloors {
  double d2d_bytes_per_s = 0;  // bytes read + written per second
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
  double bidir_bytes_per_s = 0;  // per direction, both running at once
  double mul64_per_s = 0;        // 64-bit high/low product pairs per second
  double mul32_per_s = 0;        // 32-bit high/low product pairs per second
};

/// How long to measure.
struct DeviceTimingOptions {
  double min_time_s = 0.3;       // per measurement, warm-up included
  double min_sample_s = 200e-6;  // device time per sample (event resolution ≈ 0.5 µs)
  double warmup_s = 0.01;
  std::size_t min_samples = 15;
  std::size_t max_samples = 2000;
  std::size_t max_calls = 64;  // calls per sample, so that a held batch fits the launch queue
};

/// Times call(i), i = 0, 1, ..., each enqueueing one operation on ctx's compute stream: batches
/// of back-to-back calls between two events, enqueued while `gate` holds the stream (the device
/// time, not the host's launch rate). Warm-up first, then enough calls per sample to last
/// min_sample_s (at most max_calls), samples until min_samples and min_time_s. A sample whose
/// gate timed out is dropped and the batch halved.
TimingStats time_device(const cuda::Context& ctx, cuda::bench::StreamGate& gate,
                        const std::function<void(std::size_t)>& call,
                        const DeviceTimingOptions& opt);

/// Order statistics of per-repetition seconds, in ns.
TimingStats stats_of_seconds(const std::vector<double>& seconds);

/// Products (high/low pairs) per butterfly of variant v in the multiply floor: a lower-bound
/// model counting a high and a low product as half a pair each — Shoup 1 high + 2 low = 1.5,
/// Montgomery a wide product + 1 low + 1 high = 2, Barrett a wide product + 2 high + 1 low = 2.5.
double products_per_butterfly(NttVariant v);

struct CudaSuiteConfig {
  std::vector<int> log_ns;  // single transforms and products
  DeviceTimingOptions timing;
};

/// Runs the whole suite on ctx (floors, single transforms, variant/radix/kernel comparisons,
/// batches, products, throughput) and hands every row to `sink`; `note` gets lines about
/// skipped cases.
void run_bench_cuda(const std::shared_ptr<const cuda::Context>& ctx, const CudaSuiteConfig& config,
                    const std::function<void(const CudaRow&)>& sink,
                    const std::function<void(const std::string&)>& note);

}  // namespace polyhe::cli
