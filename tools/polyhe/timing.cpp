#include "timing.hpp"

#include <algorithm>
#include <cmath>

namespace polyhe::cli {

namespace {

/// The p-quantile (0 ≤ p ≤ 1) of sorted values, interpolating linearly between neighbours.
double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

TimingStats summarize(std::vector<double> per_call_ns, std::size_t calls_per_sample) {
  std::sort(per_call_ns.begin(), per_call_ns.end());
  TimingStats s;
  s.median_ns = quantile(per_call_ns, 0.5);
  s.p10_ns = quantile(per_call_ns, 0.1);
  s.p90_ns = quantile(per_call_ns, 0.9);
  s.reps = per_call_ns.size();
  s.calls_per_sample = calls_per_sample;
  return s;
}

}  // namespace polyhe::cli
