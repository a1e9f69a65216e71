#include "text.hpp"

#include <cstdio>

namespace polyhe::cli {

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (char ch : message) {
    const bool space = ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(ch);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

}  // namespace polyhe::cli
