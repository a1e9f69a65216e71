// The device timing harness and the rendering of the CUDA suite's rows (bench_cuda.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>

#include "bench_cuda.hpp"
#include "measurement.hpp"
#include "text.hpp"

namespace polyhe::cli {

namespace {

double tenth(double ns) {
  return std::round(ns * 10) / 10;
}

}  // namespace

std::string cuda_row_json(const CudaRow& r) {
  nlohmann::ordered_json j = {{"op", r.op},
                              {"backend", "cuda"},
                              {"device", r.device},
                              {"log_n", r.log_n},
                              {"bits", r.bits},
                              {"limbs", r.limbs},
                              {"variant", r.variant},
                              {"median_ns", tenth(r.stats.median_ns)},
                              {"p10_ns", tenth(r.stats.p10_ns)},
                              {"p90_ns", tenth(r.stats.p90_ns)},
                              {"reps", r.stats.reps},
                              {"threads", 1},
                              {"unit", "ns"}};
  if (r.floor_ns > 0) {
    j["floor_ns"] = tenth(r.floor_ns);
    j["ratio"] = std::round(r.stats.median_ns / r.floor_ns * 100) / 100;
  }
  for (const auto& [key, value] : r.extra.items()) j[key] = value;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string cuda_table_header() {
  return "| op | log N | bits | limbs | variant | config | median µs | p10 µs | p90 µs | reps | "
         "floor µs | ratio |\n"
         "|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|\n";
}

std::string cuda_table_row(const CudaRow& r) {
  const bool floor = r.floor_ns > 0;
  return "| " + r.op + " | " + std::to_string(r.log_n) + " | " + std::to_string(r.bits) + " | " +
         std::to_string(r.limbs) + " | " + r.variant + " | " + r.config + " | " +
         micros(r.stats.median_ns) + " | " + micros(r.stats.p10_ns) + " | " +
         micros(r.stats.p90_ns) + " | " + std::to_string(r.stats.reps) + " | " +
         (floor ? micros(r.floor_ns) : "") + " | " +
         (floor ? fixed(r.stats.median_ns / r.floor_ns, 2) : "") + " |\n";
}

TimingStats stats_of_seconds(const std::vector<double>& seconds) {
  std::vector<double> ns;
  ns.reserve(seconds.size());
  for (double s : seconds) ns.push_back(s * 1e9);
  return summarize(std::move(ns), 1);
}

double products_per_butterfly(NttVariant v) {
  switch (v) {
    case NttVariant::shoup_lazy:
    case NttVariant::shoup: return 1.5;
    case NttVariant::montgomery:
    case NttVariant::montgomery_ntt: return 2.0;
    default: return 2.5;
  }
}

TimingStats time_device(const cuda::Context& ctx, cuda::bench::StreamGate& gate,
                        const std::function<void(std::size_t)>& call,
                        const DeviceTimingOptions& opt) {
  using Clock = std::chrono::steady_clock;
  const cuda::Stream s = ctx.compute();
  cuda::Event start(ctx);
  cuda::Event end(ctx);
  std::size_t next = 0;
  // Seconds of `calls` calls on the device, or a negative value when the gate timed out.
  auto batch = [&](std::size_t calls) {
    gate.hold(s);
    try {
      start.record(s);
      for (std::size_t i = 0; i < calls; ++i) call(next++);
      end.record(s);
    } catch (...) {
      gate.release();  // a refused call (bad options) must not leave the stream held
      throw;
    }
    gate.release();
    end.synchronize();
    if (gate.timed_out()) return -1.0;
    return static_cast<double>(cuda::Event::elapsed_ms(start, end)) * 1e-3;
  };
  const auto t0 = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  double one = batch(1);
  for (int i = 0; i < 3 || since_start() < opt.warmup_s; ++i) one = batch(1);
  std::size_t calls = opt.max_calls;
  if (one > 0) {
    calls = static_cast<std::size_t>(std::ceil(opt.min_sample_s / one));
    calls = std::clamp<std::size_t>(calls, 1, opt.max_calls);
  }
  std::vector<double> samples;
  std::size_t attempts = 0;
  while (samples.size() < opt.max_samples && attempts++ < 4 * opt.max_samples) {
    const double seconds = batch(calls);
    if (seconds < 0) {
      calls = std::max<std::size_t>(calls / 2, 1);
      continue;
    }
    samples.push_back(seconds * 1e9 / static_cast<double>(calls));
    if (samples.size() >= opt.min_samples && since_start() >= opt.min_time_s) break;
  }
  return summarize(std::move(samples), calls);
}

}  // namespace polyhe::cli
