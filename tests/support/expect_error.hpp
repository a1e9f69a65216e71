// An exception of one type whose message names what was refused: the check every refusal test
// makes (the type alone would pass a refusal for the wrong reason).
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace polyhe::test {

/// `call()` throws `Error` (exactly that type or one derived from it) and its message contains
/// `needle`; a call that returns, or throws anything else, fails the test.
template <class Error, class Call>
void expect_error(const Call& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "nothing thrown; expected an error naming " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace polyhe::test
