// The check of the backend-twin tests: a ciphertext the device made equals the CPU's — shape,
// level, scale, factor and every word — and stayed on the device.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/rlwe/ciphertext.hpp"
#include "support/test_device.hpp"

namespace polyhe::test {

inline void expect_same(const rlwe::Ciphertext& host, const rlwe::Ciphertext& dev,
                        const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(host.device());
  ASSERT_TRUE(dev.device()) << "the result left the device";
  ASSERT_EQ(dev.size(), host.size());
  ASSERT_EQ(dev.level(), host.level());
  EXPECT_EQ(dev.scale(), host.scale());
  EXPECT_EQ(dev.factor(), host.factor());
  for (std::size_t p = 0; p < host.size(); ++p) {
    const std::vector<std::uint64_t> expect(host[p].data().begin(), host[p].data().end());
    ASSERT_EQ(words_of(dev[p]), expect) << "part " << p;
  }
}

}  // namespace polyhe::test
