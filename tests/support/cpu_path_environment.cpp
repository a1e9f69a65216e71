// Linked into every binary that CTest runs once per CPU path (polyhe_add_path_test): when
// POLYHE_CPU names a path this CPU lacks (cpu_path() refuses it), every test of the binary is
// skipped with the reason, so that a test outside CpuPathTest (a plain TEST) does not fail on
// the refusal instead; CTest reports the run as skipped (SKIP_REGULAR_EXPRESSION).
#include <gtest/gtest.h>

#include <cstdio>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"

namespace {

class CpuPathEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    try {
      (void)polyhe::cpu_path();
    } catch (const polyhe::InvalidParameter& e) {
      // gtest counts the tests of a skipped environment as passed; this line is what CTest's
      // SKIP_REGULAR_EXPRESSION reads.
      std::printf("[  SKIPPED ] every test: %s\n", e.what());
      GTEST_SKIP() << e.what();
    }
  }
};

[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new CpuPathEnvironment);

}  // namespace
