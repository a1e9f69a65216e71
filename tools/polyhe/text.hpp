// Small text helpers shared by the commands.
#pragma once

#include <string>
#include <string_view>

namespace polyhe::cli {

/// `message` on one line: line breaks and tabs become spaces, runs of spaces collapse, and the
/// ends are trimmed (error messages must stay one line on stderr).
std::string one_line(std::string_view message);

/// `value` with `decimals` digits after the point ("%.*f").
std::string fixed(double value, int decimals);

}  // namespace polyhe::cli
