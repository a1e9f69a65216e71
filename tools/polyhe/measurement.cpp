#include "measurement.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "text.hpp"

namespace polyhe::cli {

namespace {

/// To 0.1 ns: finer digits are noise, and they make the JSON hard to read.
double tenth(double ns) {
  return std::round(ns * 10) / 10;
}

}  // namespace

std::string measurement_json(const Measurement& m) {
  // nlohmann::ordered_json keeps the fields in the order of docs/design.md ("Benchmark JSON").
  nlohmann::ordered_json j = {{"op", m.op},
                              {"backend", m.backend},
                              {"device", m.device},
                              {"log_n", m.log_n},
                              {"bits", m.bits},
                              {"limbs", m.limbs},
                              {"variant", m.variant},
                              {"median_ns", tenth(m.stats.median_ns)},
                              {"p10_ns", tenth(m.stats.p10_ns)},
                              {"p90_ns", tenth(m.stats.p90_ns)},
                              {"reps", m.stats.reps},
                              {"threads", m.threads},
                              {"path", m.path},
                              {"unit", "ns"}};
  if (m.enqueue_ns) j["enqueue_ns"] = tenth(*m.enqueue_ns);
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string micros(double ns) {
  return fixed(ns / 1000, 3);
}

std::string markdown_table_header() {
  return "| op | log N | bits | variant | path | median µs | p10 µs | p90 µs | reps |\n"
         "|---|---:|---:|---|---|---:|---:|---:|---:|\n";
}

std::string markdown_table_row(const Measurement& m) {
  return "| " + m.op + " | " + std::to_string(m.log_n) + " | " + std::to_string(m.bits) + " | " +
         m.variant + " | " + m.path + " | " + micros(m.stats.median_ns) + " | " +
         micros(m.stats.p10_ns) + " | " + micros(m.stats.p90_ns) + " | " +
         std::to_string(m.stats.reps) + " |\n";
}

}  // namespace polyhe::cli
