#include "usage.hpp"

#include <algorithm>
#include <string>

namespace polyhe::cli {

namespace {

/// A decimal integer in [lo, hi], digits only; throws UsageError otherwise.
int parse_bounded(std::string_view text, std::string_view item, std::string_view option, int lo,
                  int hi, std::string_view expected = "an integer or a range of integers") {
  std::string range = "[";  // appended, not `"[" + ...`: GCC 12 warns falsely (-Wrestrict) on that
  range += std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    throw UsageError(std::string(option) + ": '" + std::string(item) + "' is not " +
                     std::string(expected) + " in " + range);
  }
  const int value = std::stoi(std::string(text));
  if (value < lo || value > hi) {
    throw UsageError(std::string(option) + ": " + std::to_string(value) + " is outside " + range);
  }
  return value;
}

}  // namespace

std::vector<std::string> split_list(std::string_view spec, std::string_view option) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    const std::string_view item = spec.substr(start, comma - start);
    if (item.empty()) {
      throw UsageError(std::string(option) + ": empty item in '" + std::string(spec) + "'");
    }
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<int> parse_int_list(std::string_view spec, std::string_view option, int lo, int hi) {
  std::vector<int> values;
  for (const std::string& item : split_list(spec, option)) {
    const std::size_t dash = item.find('-');
    int first = 0;
    int last = 0;
    if (dash == std::string::npos) {
      first = last = parse_bounded(item, item, option, lo, hi);
    } else {
      first = parse_bounded(std::string_view(item).substr(0, dash), item, option, lo, hi);
      last = parse_bounded(std::string_view(item).substr(dash + 1), item, option, lo, hi);
      if (first > last) {
        throw UsageError(std::string(option) + ": the range '" + item + "' is empty");
      }
    }
    for (int v = first; v <= last; ++v) {
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
  }
  return values;
}

std::vector<int> parse_int_sequence(std::string_view spec, std::string_view option, int lo,
                                    int hi) {
  std::vector<int> values;
  for (const std::string& item : split_list(spec, option)) {
    values.push_back(parse_bounded(item, item, option, lo, hi, "an integer"));
  }
  return values;
}

}  // namespace polyhe::cli
