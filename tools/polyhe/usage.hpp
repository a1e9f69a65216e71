// Command-line arguments the commands parse themselves (lists, ranges), and the error they throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace polyhe::cli {

/// A bad command line: `polyhe` prints the message on one line and exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An integer option's value as typed: canonical decimal only (digits, no '+', no spaces, no
/// leading zero, so "012" is not octal 10 and "0x10" not 16), in [lo, hi]. Throws UsageError naming
/// `option`, the text as typed and the rule; nothing is clamped or read in another base.
std::uint64_t parse_decimal(std::string_view text, std::string_view option, std::uint64_t lo,
                            std::uint64_t hi);

/// As parse_decimal, with an optional leading '-' (signed options such as --rotate-step).
std::int64_t parse_signed_decimal(std::string_view text, std::string_view option, std::int64_t lo,
                                  std::int64_t hi);

/// The comma-separated items of `spec` ("a,b,c"); throws UsageError naming `option` on an empty
/// item.
std::vector<std::string> split_list(std::string_view spec, std::string_view option);

/// The most values a list option gives (each is a measurement or a prime): checked while the list
/// is read, before ranges are expanded, so "2-1048576" is refused at once.
inline constexpr std::size_t kMaxListValues = 256;

/// Integers from "12", "10-17" or a comma list of either ("10,12,14-16"), each in [lo, hi] and
/// written as parse_decimal reads them, in
/// the order given, duplicates dropped. Throws UsageError naming `option` and the bad item, or the
/// count when the items (ranges expanded, before duplicates are dropped) exceed `max_values`.
std::vector<int> parse_int_list(std::string_view spec, std::string_view option, int lo, int hi,
                                std::size_t max_values = kMaxListValues);

/// Integers from a comma list ("60,40,40,60"), each in [lo, hi], in the order given, duplicates
/// kept (prime bit sizes repeat). No ranges. Throws UsageError naming `option` and the bad item,
/// or the count when there are more than `max_values`.
std::vector<int> parse_int_sequence(std::string_view spec, std::string_view option, int lo, int hi,
                                    std::size_t max_values = kMaxListValues);

}  // namespace polyhe::cli
