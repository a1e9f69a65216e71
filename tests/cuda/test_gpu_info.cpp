// gpu_info in a CUDA build: it reports CUDA as compiled, and either describes each device or
// says why there is none. Runs with or without a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <iostream>
#include <string>

#include "polyhe/backend/gpu_info.hpp"

namespace polyhe {
namespace {

TEST(GpuInfo, ReportsCudaCompiled) {
  EXPECT_TRUE(cuda_compiled());  // this directory is built only when POLYHE_HAVE_CUDA
}

TEST(GpuInfo, ListsDevicesOrSaysWhyNone) {
  std::string why;
  const auto list = gpus(&why);
  if (list.empty()) {
    EXPECT_FALSE(why.empty()) << "an empty device list must come with a reason";
    std::cout << "no GPU: " << why << "\n";
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const GpuInfo& g = list[i];
    EXPECT_GE(g.index, 0);
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.compute_major, 0);
    EXPECT_GT(g.global_memory_bytes, 0u);
    EXPECT_GT(g.multiprocessors, 0);
  }
  EXPECT_EQ(gpus().size(), list.size());  // the reason is optional
}

}  // namespace
}  // namespace polyhe
