#include "scheme_bench.hpp"

#include <algorithm>
#include <bit>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

std::string range_text(long long lo, long long hi) {
  // Appended piece by piece: GCC 12's "[" + std::string(...) trips a false -Wrestrict
  // (GCC PR 105329) once this function is compiled on its own.
  std::string s = "[";
  s += std::to_string(lo);
  s += ", ";
  s += std::to_string(hi);
  s += ']';
  return s;
}

rlwe::SecurityLevel parse_security(const std::string& s) {
  if (s == "128") return rlwe::SecurityLevel::bits128;
  if (s == "192") return rlwe::SecurityLevel::bits192;
  if (s == "256") return rlwe::SecurityLevel::bits256;
  if (s == "none") return rlwe::SecurityLevel::insecure_none;
  throw UsageError("--security: '" + s + "' is not 128, 192, 256 or none");
}

std::string security_text(rlwe::SecurityLevel s) {
  return s == rlwe::SecurityLevel::insecure_none ? std::string("none (insecure, by request)")
                                                 : security_name(s) + "-bit";
}

std::string scheme_table_header() {
  return "| op | level | median ms | p10 ms | p90 ms | reps |\n"
         "|---|---:|---:|---:|---:|---:|\n";
}

std::string scheme_table_row(const Measurement& m, std::size_t level) {
  const TimingStats& s = m.stats;
  return "| " + m.op + " | " + std::to_string(level) + " | " + fixed(s.median_ns / 1e6, 3) + " | " +
         fixed(s.p10_ns / 1e6, 3) + " | " + fixed(s.p90_ns / 1e6, 3) + " | " +
         std::to_string(s.reps) + " |\n";
}

std::string security_name(rlwe::SecurityLevel s) {
  switch (s) {
    case rlwe::SecurityLevel::bits128: return "128";
    case rlwe::SecurityLevel::bits192: return "192";
    case rlwe::SecurityLevel::bits256: return "256";
    case rlwe::SecurityLevel::insecure_none: return "none";
  }
  return "?";
}

std::vector<int> bit_sizes(const std::vector<std::uint64_t>& primes) {
  std::vector<int> bits;
  bits.reserve(primes.size());
  for (const std::uint64_t q : primes) bits.push_back(static_cast<int>(std::bit_width(q)));
  return bits;
}

std::string join(const std::vector<int>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) s += ',';
    s += std::to_string(values[i]);
  }
  return s;
}

unsigned checked_threads(unsigned threads) {
  if (threads < 1 || threads > kMaxThreads) {
    throw UsageError("--threads: " + std::to_string(threads) + " is outside " +
                     range_text(1, kMaxThreads));
  }
  return threads;
}

TimingOptions timing_for(double min_time_s) {
  if (!(min_time_s > 0 && min_time_s <= 600)) {
    throw UsageError("--min-time: " + fixed(min_time_s, 3) + " seconds is outside (0, 600]");
  }
  TimingOptions t;
  t.min_time_s = min_time_s;
  t.warmup_s = std::min(t.warmup_s, min_time_s / 4);
  return t;
}

rlwe::ParametersPtr create_parameters(const rlwe::ParametersLiteral& literal) {
  try {
    return rlwe::Parameters::create(literal);
  } catch (const InsecureParameters& e) {
    throw InsecureParameters(std::string(e.what()) + " (on this command line: --security none)");
  }
}

ThreadCountGuard::ThreadCountGuard(unsigned threads) : saved_(thread_count()) {
  if (threads != saved_) set_thread_count(threads);
}

ThreadCountGuard::~ThreadCountGuard() {
  if (thread_count() != saved_) set_thread_count(saved_);
}

}  // namespace polyhe::cli
