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

}  // namespace polyhe::test
