// The self-test: a quick end-to-end check of the installed library, not a copy of the unit
// tests. Polynomial products of fresh random inputs through every NTT variant against an
// independent reference, transforms round-tripped, and the reduction worst case.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace polyhe::cli {

/// The checks on one parameter set.
struct SelftestGroup {
  std::string name;
  std::size_t passed = 0;
  std::vector<std::string> failures;  // "<check>: <what differed>"
  std::vector<std::string> skipped;   // what this parameter set does not serve (by name)
};

struct SelftestResult {
  std::uint64_t seed = 0;
  std::vector<SelftestGroup> groups;
  double seconds = 0;

  [[nodiscard]] std::size_t passed() const;
  [[nodiscard]] std::size_t failed() const;
  [[nodiscard]] bool ok() const { return failed() == 0; }
};

/// Runs every check with inputs drawn from `seed` (the same seed replays the same inputs).
SelftestResult run_selftest(std::uint64_t seed);

/// "selftest: 412 passed, 0 failed (0.31 s)".
std::string selftest_summary(const SelftestResult& r);
/// The seed line, one line per group (failures detailed below it), and the summary.
void write_selftest_text(const SelftestResult& r, std::ostream& out);
/// The result as one JSON object on one line.
std::string selftest_json(const SelftestResult& r);

}  // namespace polyhe::cli
