#include "usage.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

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

namespace {

void check_count(std::size_t count, std::size_t max_values, std::string_view option) {
  if (count > max_values) {
    throw UsageError(std::string(option) + ": more than " + std::to_string(max_values) +
                     " values (the limit for this option)");
  }
}

}  // namespace

std::vector<int> parse_int_list(std::string_view spec, std::string_view option, int lo, int hi,
                                std::size_t max_values) {
  std::vector<int> values;
  std::unordered_set<int> seen;
  std::size_t count = 0;
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
    count += static_cast<std::size_t>(last - first) + 1;
    check_count(count, max_values, option);
    for (int v = first; v <= last; ++v) {
      if (seen.insert(v).second) values.push_back(v);
    }
  }
  return values;
}

std::vector<int> parse_int_sequence(std::string_view spec, std::string_view option, int lo, int hi,
                                    std::size_t max_values) {
  const std::vector<std::string> items = split_list(spec, option);
  check_count(items.size(), max_values, option);
  std::vector<int> values;
  for (const std::string& item : items) {
    values.push_back(parse_bounded(item, item, option, lo, hi, "an integer"));
  }
  return values;
}

}  // namespace polyhe::cli
