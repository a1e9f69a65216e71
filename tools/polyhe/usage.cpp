#include "usage.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace polyhe::cli {

namespace {

/// The rule every integer on the command line follows, for the messages.
constexpr const char* kDecimalRule = "digits only, no sign, no leading zero";

enum class Scan { ok, not_decimal, too_large };

/// Canonical decimal digits ("0", or a non-zero digit then digits) into `value`; too_large when
/// the number exceeds 2^64 - 1 (nothing is clamped).
Scan scan_decimal(std::string_view digits, std::uint64_t& value) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return Scan::not_decimal;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return Scan::not_decimal;
  }
  value = 0;
  for (const char c : digits) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (~std::uint64_t{0} - digit) / 10) return Scan::too_large;
    value = value * 10 + digit;
  }
  return Scan::ok;
}

template <class T>
std::string range_text(T lo, T hi) {
  std::string range = "[";  // appended, not `"[" + ...`: GCC 12 warns falsely (-Wrestrict) on that
  range += std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return range;
}

[[noreturn]] void throw_outside(std::string_view text, std::string_view option,
                                const std::string& range) {
  throw UsageError(std::string(option) + ": '" + std::string(text) + "' is outside " + range);
}

/// A decimal integer in [lo, hi]; throws UsageError otherwise.
int parse_bounded(std::string_view text, std::string_view item, std::string_view option, int lo,
                  int hi, std::string_view expected = "an integer or a range of integers") {
  const std::string range = range_text(lo, hi);
  std::uint64_t value = 0;
  const Scan scan = scan_decimal(text, value);
  if (scan == Scan::not_decimal) {
    throw UsageError(std::string(option) + ": '" + std::string(item) + "' is not " +
                     std::string(expected) + " in " + range + " (" + kDecimalRule + ")");
  }
  if (scan == Scan::too_large || value < static_cast<std::uint64_t>(std::max(lo, 0)) ||
      value > static_cast<std::uint64_t>(std::max(hi, 0))) {
    throw UsageError(std::string(option) + ": " + std::string(text) + " is outside " + range);
  }
  return static_cast<int>(value);
}

}  // namespace

std::uint64_t parse_decimal(std::string_view text, std::string_view option, std::uint64_t lo,
                            std::uint64_t hi) {
  const std::string range = range_text(lo, hi);
  std::uint64_t value = 0;
  const Scan scan = scan_decimal(text, value);
  if (scan == Scan::not_decimal) {
    throw UsageError(std::string(option) + ": '" + std::string(text) +
                     "' is not a decimal integer (" + kDecimalRule + ")");
  }
  if (scan == Scan::too_large || value < lo || value > hi) throw_outside(text, option, range);
  return value;
}

std::int64_t parse_signed_decimal(std::string_view text, std::string_view option, std::int64_t lo,
                                  std::int64_t hi) {
  const std::string range = range_text(lo, hi);
  const bool negative = !text.empty() && text[0] == '-';
  std::uint64_t magnitude = 0;
  const Scan scan = scan_decimal(negative ? text.substr(1) : text, magnitude);
  if (scan == Scan::not_decimal) {
    throw UsageError(std::string(option) + ": '" + std::string(text) +
                     "' is not a decimal integer (an optional '-', then digits; no '+', no "
                     "leading zero)");
  }
  // |INT64_MIN| = 2^63: the one magnitude that fits negated but not as it is.
  constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;
  if (scan == Scan::too_large || magnitude > kMaxMagnitude - (negative ? 0 : 1)) {
    throw_outside(text, option, range);
  }
  const std::int64_t value =
      negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  if (value < lo || value > hi) throw_outside(text, option, range);
  return value;
}

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
