// A fixture for tests that run once per CPU kernel path: CTest sets POLYHE_CPU as a user would;
// the fixture reads the path the library then uses, and skips, naming the reason, when this CPU
// lacks it (cpu_path() refuses a path above the CPU's).
#pragma once

#include <gtest/gtest.h>

#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"

namespace polyhe::test {

class CpuPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      path_ = cpu_path();
    } catch (const InvalidParameter& e) {
      GTEST_SKIP() << e.what();
    }
  }
  CpuPath path_ = CpuPath::scalar;
};

/// Restores the process's CPU path when a test that switches paths with set_cpu_path ends.
class PathGuard {
 public:
  PathGuard() : saved_(cpu_path()) {}
  ~PathGuard() { set_cpu_path(saved_); }
  PathGuard(const PathGuard&) = delete;
  PathGuard& operator=(const PathGuard&) = delete;

 private:
  CpuPath saved_;
};

}  // namespace polyhe::test
