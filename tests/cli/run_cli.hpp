// Runs `polyhe` in-process for the tests: arguments and stdin in, exit status and streams out.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace polyhe::test {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline CliResult run_cli(const std::vector<std::string>& args, const std::string& input = "") {
  std::istringstream in(input);
  std::ostringstream out, err;
  CliResult r;
  r.status = polyhe::cli::run(args, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// Exit status 2, nothing on stdout, and exactly one line "polyhe: error: ..." on stderr that
/// contains `needle`.
inline void expect_bad_input(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(r.err.empty() || r.err.back() != '\n') << r.err;
  EXPECT_EQ(r.err.rfind("polyhe: error: ", 0), 0U) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

}  // namespace polyhe::test
