// The `polyhe` command line as a function of its arguments and streams, so that tests can run it
// in-process. Exit status: 0 success, 1 a self-test failed, 2 bad usage or bad input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace polyhe::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

/// Runs `polyhe args...` (args without the program name). Never throws: every error becomes one
/// line "polyhe: error: <message>" on `err` and exit status 2.
int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err);

}  // namespace polyhe::cli
