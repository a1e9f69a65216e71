// The timing harness: warm up, size a sample to a minimum duration, take many samples, report
// order statistics per call (docs/design.md, "Performance method": medians over many repetitions).
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

namespace polyhe::cli {

struct TimingOptions {
  /// Keep sampling until this much time has been spent on one measurement (and min_samples).
  double min_time_s = 0.3;
  /// Each sample times enough back-to-back calls to last at least this long.
  double min_sample_s = 200e-6;
  /// Untimed running before the first sample (caches, page faults, clock ramp-up).
  double warmup_s = 0.01;
  std::size_t min_samples = 15;
  std::size_t max_samples = 5000;
};

/// Per-call times in nanoseconds.
struct TimingStats {
  double median_ns = 0;
  double p10_ns = 0;
  double p90_ns = 0;
  std::size_t reps = 0;  // number of samples
  std::size_t calls_per_sample = 0;
};

/// Order statistics of per-call sample times (linear interpolation between order statistics).
TimingStats summarize(std::vector<double> per_call_ns, std::size_t calls_per_sample);

/// Times `call(i)` for an op that consumes its input (an in-place operation): before every batch
/// of `calls` calls, `prepare(calls)` runs untimed (e.g. makes `calls` copies of the input), then
/// call(0), ..., call(calls − 1) run back to back, timed. Doubles the batch size until one batch
/// lasts min_sample_s, keeps running batches until warmup_s has passed, then takes samples of that
/// batch size until both min_samples and min_time_s are reached (or max_samples). min_time_s
/// counts the warm-up and the preparations.
template <class Prepare, class F>
TimingStats measure_prepared(Prepare&& prepare, F&& call, const TimingOptions& opt) {
  using Clock = std::chrono::steady_clock;
  auto time_batch = [&](std::size_t calls) {
    prepare(calls);
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) call(i);
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const auto start = Clock::now();
  std::size_t calls = 1;
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  while (time_batch(calls) < opt.min_sample_s && calls < (std::size_t{1} << 30)) calls *= 2;
  while (since_start() < opt.warmup_s) time_batch(calls);
  std::vector<double> samples;
  samples.reserve(opt.min_samples);
  while (samples.size() < opt.max_samples) {
    samples.push_back(time_batch(calls) * 1e9 / static_cast<double>(calls));
    if (samples.size() >= opt.min_samples && since_start() >= opt.min_time_s) break;
  }
  return summarize(std::move(samples), calls);
}

/// Times `call()`, which leaves its inputs as they were: measure_prepared with nothing to
/// prepare.
template <class F>
TimingStats measure(F&& call, const TimingOptions& opt) {
  return measure_prepared([](std::size_t) {}, [&](std::size_t) { call(); }, opt);
}

}  // namespace polyhe::cli
