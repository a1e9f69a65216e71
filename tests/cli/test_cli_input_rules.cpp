// What the command line does with input that would otherwise be read as something else: integers
// in another base, out of range or with a sign; empty values; a NUL byte in polymul's input; a
// report's files when the run is refused; the direct cyclic DFT at lengths where it would run for
// hours. Each is refused with one line naming the value as typed and the rule, exit status 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "output_file.hpp"
#include "polyhe/core/error.hpp"
#include "run_cli.hpp"
#include "usage.hpp"

namespace polyhe::test {
namespace {

struct BadArgs {
  std::vector<std::string> args;
  std::string needle;
};

void expect_all_refused(const std::vector<BadArgs>& cases) {
  for (const auto& c : cases) {
    std::string shown;
    for (const auto& a : c.args) shown += " '" + a + "'";
    SCOPED_TRACE("polyhe" + shown);
    expect_bad_input(run_cli(c.args), c.needle);
  }
}

// CLI11 would read "012" as octal 10 and "0x0c" as 12, clamp overflow to 2^64 - 1 and wrap "-5"
// to 2^64 - 5. Every integer option is decimal, and the message quotes what was typed. The bench
// cases add --min-time 0, which the commands refuse at once: a value read in another base reaches
// that check instead of running a benchmark.
TEST(CliIntegerOptions, OtherBasesOverflowAndSignsAreRefusedAsTyped) {
  const std::string no_digits = "' is not a decimal integer";
  expect_all_refused({
      {{"bench", "ckks", "--log-n", "012", "--min-time", "0"}, "--log-n: '012" + no_digits},
      {{"bench", "ckks", "--log-n", "0x0c", "--min-time", "0"}, "--log-n: '0x0c" + no_digits},
      {{"bench", "ckks", "--scale-bits", "040", "--min-time", "0"}, "--scale-bits: '040"},
      {{"bench", "ckks", "--dnum", "+1", "--min-time", "0"}, "--dnum: '+1" + no_digits},
      {{"bench", "ckks", "--threads", "4294967296", "--min-time", "0"},
       "--threads: '4294967296' is outside [0, 4294967295]"},
      {{"bench", "ckks", "--rotate-step", "9223372036854775808", "--min-time", "0"},
       "--rotate-step: '9223372036854775808' is outside"},
      {{"bench", "bfv", "--plain-modulus", "0x10001", "--min-time", "0"},
       "--plain-modulus: '0x10001" + no_digits},
      {{"bench", "bfv", "--plain-modulus", "18446744073709551617", "--min-time", "0"},
       "--plain-modulus: '18446744073709551617' is outside [0, 18446744073709551615]"},
      {{"bench", "bfv", "--plain-modulus", "-65537", "--min-time", "0"},
       "--plain-modulus: '-65537" + no_digits},
      {{"bench", "bfv", "--rotate-step", "-0x3", "--min-time", "0"}, "--rotate-step: '-0x3"},
      {{"bench", "bgv", "--dnum", "1e1", "--min-time", "0"}, "--dnum: '1e1" + no_digits},
      {{"bench", "bgv", "--m", "021845", "--min-time", "0"}, "--m: '021845" + no_digits},
      {{"bench", "ntt", "--threads", "-1", "--min-time", "0"}, "--threads: '-1" + no_digits},
      {{"bench", "ntt", "--threads", "0x2", "--min-time", "0"}, "--threads: '0x2" + no_digits},
      {{"bench", "cyclic", "--bits", "062", "--min-time", "0"}, "--bits: '062" + no_digits},
      {{"bench", "cyclic", "--bits", " 40", "--min-time", "0"}, "--bits: ' 40" + no_digits},
      {{"selftest", "--seed", "99999999999999999999999"},
       "--seed: '99999999999999999999999' is outside [0, 18446744073709551615]"},
      {{"selftest", "--seed", "-5"}, "--seed: '-5" + no_digits},
      {{"selftest", "--seed", "0x10"}, "--seed: '0x10" + no_digits},
      {{"report", "--seed", "010", "--min-time", "0"}, "--seed: '010" + no_digits},
      {{"bench", "ntt", "--log-n", "012", "--min-time", "0"}, "--log-n: '012'"},
  });
}

// The largest seed is read exactly (it used to be the value overflow clamped to).
TEST(CliIntegerOptions, TheExtremesAreReadExactly) {
  const auto r = run_cli({"selftest", "--seed", "18446744073709551615", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"seed\":18446744073709551615"), std::string::npos) << r.out;

  using cli::parse_decimal;
  using cli::parse_signed_decimal;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(parse_decimal("0", "--x", 0, kMax), 0U);
  EXPECT_EQ(parse_decimal("18446744073709551615", "--x", 0, kMax), kMax);
  EXPECT_EQ(
      parse_signed_decimal("-9223372036854775808", "--x", std::numeric_limits<std::int64_t>::min(),
                           std::numeric_limits<std::int64_t>::max()),
      std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_signed_decimal("-7", "--x", -10, 10), -7);
  for (const char* bad :
       {"", "-", "+1", "01", "00", "0x1", "1e3", " 1", "1 ", "1.0", "18446744073709551616"}) {
    EXPECT_THROW((void)parse_decimal(bad, "--x", 0, kMax), cli::UsageError) << bad;
  }
  for (const char* bad : {"", "-", "--1", "-01", "+1", "9223372036854775808",
                          "-9223372036854775809", "-0x1", "-11"}) {
    EXPECT_THROW(
        (void)parse_signed_decimal(bad, "--x", -10, std::numeric_limits<std::int64_t>::max()),
        cli::UsageError)
        << bad;
  }
}

// --m 0 used to be read as "no --m": the ring x^N + 1. The help no longer asks 8 | phi(m), which
// the library stopped requiring; m = 3 runs.
TEST(CliIntegerOptions, BgvMIsOddInItsRange) {
  expect_bad_input(run_cli({"bench", "bgv", "--m", "0", "--min-time", "0"}),
                   "--m: '0' is outside [3, 131072]");
  const auto help = run_cli({"bench", "bgv", "--help"});
  EXPECT_EQ(help.out.find("phi(m)"), std::string::npos) << help.out;
  const auto r = run_cli({"bench", "bgv", "--m", "3", "--security", "none", "--ops", "add",
                          "--min-time", "0.001", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
}

// An explicitly empty value used to be read as the option left out (the default). The report
// cases add --min-time 0 so that, read as the default, they stop at once.
TEST(CliEmptyValues, AreRefusedNotReadAsTheDefault) {
  const std::string empty = ": empty value";
  expect_all_refused({
      {{"polymul", "--variant", ""}, "--variant" + empty},
      {{"bench", "ntt", "--variant", "", "--min-time", "0"}, "--variant" + empty},
      {{"bench", "ntt", "--ops", "", "--min-time", "0"}, "--ops" + empty},
      {{"bench", "ntt", "--cpu", "", "--min-time", "0"}, "--cpu" + empty},
      {{"bench", "ckks", "--ops", "", "--min-time", "0"}, "--ops" + empty},
      {{"bench", "ckks", "--special", "", "--min-time", "0"}, "--special" + empty},
      {{"bench", "bfv", "--ops", "", "--min-time", "0"}, "--ops" + empty},
      {{"bench", "bgv", "--special", "", "--min-time", "0"}, "--special" + empty},
      {{"report", "--output", "", "--min-time", "0"}, "--output" + empty},
      {{"report", "--data", "", "--min-time", "0"}, "--data" + empty},
  });
}

// JSON text has no NUL byte; nlohmann's reader stopped at one and ignored what followed.
TEST(CliPolymulInput, NulByteIsRefusedWithItsOffset) {
  const std::string good = R"({"q":17,"a":[1,2],"b":[3,4]})";
  expect_bad_input(run_cli({"polymul"}, good + std::string(1, '\0') + " garbage"),
                   "NUL byte at byte offset 28");
  expect_bad_input(run_cli({"polymul"}, std::string(R"({"q":1)") + '\0' + R"(7,"a":[1,2]})"),
                   "NUL byte at byte offset 6");
  EXPECT_EQ(run_cli({"polymul"}, good).status, 0);
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// Files in `dir` whose name starts with `prefix` (the temporary files beside a target).
std::vector<std::string> files_named(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  return out;
}

// `report --output keep.md --data keep.jsonl --min-time -1` used to truncate both files, then
// refuse the option.
TEST(CliReportFiles, ARefusedRunLeavesExistingFilesIntact) {
  const std::string dir = ::testing::TempDir();
  const std::string md = dir + "polyhe_keep_test.md";
  const std::string data = dir + "polyhe_keep_test.jsonl";
  write_file(md, "keep this report\n");
  write_file(data, "{\"keep\":1}\n");
  expect_bad_input(run_cli({"report", "--output", md, "--data", data, "--min-time", "-1"}),
                   "--min-time");
  expect_bad_input(run_cli({"report", "--output", md, "--data", md, "--min-time", "-1"}),
                   "both name");
  EXPECT_EQ(read_file(md), "keep this report\n");
  EXPECT_EQ(read_file(data), "{\"keep\":1}\n");
  EXPECT_EQ(files_named(dir, "polyhe_keep_test.md.").size(), 0U);
  std::remove(md.c_str());
  std::remove(data.c_str());
}

// A run that fails after the files were named (the OutputFile is destroyed uncommitted) leaves
// the old file; commit replaces it whole, with its permissions, through a symbolic link.
TEST(CliReportFiles, ReplacedOnlyOnCommit) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "polyhe_commit_test.md";
  const std::string link = dir + "polyhe_commit_test_link.md";
  write_file(path, "old\n");
  ::chmod(path.c_str(), 0640);
  std::remove(link.c_str());
  std::filesystem::create_symlink(path, link);
  {
    cli::OutputFile file(link, "--output");
    EXPECT_EQ(files_named(dir, "polyhe_commit_test.md.").size(), 1U);  // the temporary file
  }  // destroyed without commit: the run failed
  EXPECT_EQ(read_file(path), "old\n");
  EXPECT_EQ(files_named(dir, "polyhe_commit_test.md.").size(), 0U);
  {
    cli::OutputFile file(link, "--output");
    file.commit("new\n");
  }
  EXPECT_EQ(read_file(path), "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640U);
  EXPECT_EQ(files_named(dir, "polyhe_commit_test.md.").size(), 0U);
  EXPECT_THROW(cli::OutputFile(dir + "no-such-dir/x.md", "--output"), cli::UsageError);
  EXPECT_THROW(cli::OutputFile(dir, "--output"), cli::UsageError);  // a directory
  std::remove(link.c_str());
  std::remove(path.c_str());
}

// The direct DFT is O(n^2): about 0.16 s a call at n = 8192, most of an hour at 2^20 (the longest
// --n). Named, it is refused above 4096; within "all" it is left out there, with a note. (n = 8192,
// not 2^20, so that without the limit this test fails in a second instead of hanging.)
TEST(CliBenchCyclic, DirectIsRefusedAboveItsLimit) {
  expect_bad_input(run_cli({"bench", "cyclic", "--n", "8192", "--decomposition", "direct",
                            "--min-time", "0.001"}),
                   "--decomposition direct with --n 8192");
  expect_bad_input(run_cli({"bench", "cyclic", "--n", "64,8192", "--decomposition",
                            "bluestein,direct", "--min-time", "0.001"}),
                   "up to n = 4096");
  const auto r = run_cli({"bench", "cyclic", "--n", "8192", "--bits", "40", "--decomposition",
                          "all", "--min-time", "0.001", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("skipping direct at n = 8192"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("direct("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bluestein"), std::string::npos) << r.out;
  const auto small = run_cli({"bench", "cyclic", "--n", "64", "--bits", "40", "--decomposition",
                              "direct", "--min-time", "0.001", "--json"});
  ASSERT_EQ(small.status, 0) << small.err;
  EXPECT_NE(small.out.find("direct(64)"), std::string::npos) << small.out;
}

}  // namespace
}  // namespace polyhe::test
