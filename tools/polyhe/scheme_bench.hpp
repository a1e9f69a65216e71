// What the scheme benchmarks (bench ckks, bench bfv, bench bgv) share: the --security option,
// prime bit sizes and their comma lists, range text for messages, the markdown table, and the
// guard that restores the default thread pool's size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "measurement.hpp"
#include "polyhe/ring/device.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rlwe/security.hpp"
#include "timing.hpp"

namespace polyhe::cli {

/// A freshly generated key where the ops run: moved as it is for host memory (a copy would
/// double the peak: the N = 2^16 bootstrap's Galois keys alone are 5.9 GB), copied to the device
/// otherwise (the host copy is released when `key` goes).
template <class Key>
[[nodiscard]] Key placed(Key key, const std::shared_ptr<Device>& device) {
  return device ? key.to_device(device) : std::move(key);
}

/// "[lo, hi]".
std::string range_text(long long lo, long long hi);

/// --security: 128, 192, 256 or none (UsageError naming the value otherwise).
rlwe::SecurityLevel parse_security(const std::string& s);
/// The inverse: "128", "192", "256" or "none".
std::string security_name(rlwe::SecurityLevel s);
/// For the parameter summaries: "128-bit", … or "none (insecure, by request)".
std::string security_text(rlwe::SecurityLevel s);

/// The markdown table of a scheme benchmark: op, the level it ran at, median/p10/p90 in ms, reps.
std::string scheme_table_header();
std::string scheme_table_row(const Measurement& m, std::size_t level);

/// The bit length of each prime.
std::vector<int> bit_sizes(const std::vector<std::uint64_t>& primes);
/// "50,40,40".
std::string join(const std::vector<int>& values);

/// --threads: in [1, kMaxThreads] (UsageError naming the value otherwise).
unsigned checked_threads(unsigned threads);
/// --min-time: in (0, 600] seconds (UsageError otherwise); the warm-up is at most a quarter of it.
TimingOptions timing_for(double min_time_s);
/// Parameters::create; an InsecureParameters error gains the command-line hint (--security none).
rlwe::ParametersPtr create_parameters(const rlwe::ParametersLiteral& literal);

/// Sets the default pool's size for a benchmark and restores it when the benchmark ends
/// (in-process callers such as the tests and `polyhe report` share the pool).
class ThreadCountGuard {
 public:
  explicit ThreadCountGuard(unsigned threads);
  ~ThreadCountGuard();
  ThreadCountGuard(const ThreadCountGuard&) = delete;
  ThreadCountGuard& operator=(const ThreadCountGuard&) = delete;

 private:
  unsigned saved_;
};

}  // namespace polyhe::cli
