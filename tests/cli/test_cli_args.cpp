// The command line in-process: help, version, errors as one line with exit status 2, and the
// shape of what info, selftest, bench ntt and report print.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/variant.hpp"
#include "polyhe/version.hpp"
#include "run_cli.hpp"
#include "timing.hpp"
#include "usage.hpp"

namespace polyhe::test {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(CliArgs, NoCommandPrintsHelpAndExitsTwo) {
  const auto r = run_cli({});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Subcommands:"), std::string::npos) << r.err;
}

TEST(CliArgs, HelpAndVersion) {
  auto r = run_cli({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos);
  r = run_cli({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, std::string(kVersion) + "\n");
}

TEST(CliArgs, EverySubcommandHasHelp) {
  for (const auto& cmd : {std::vector<std::string>{"info"},
                          {"selftest"},
                          {"polymul"},
                          {"bench"},
                          {"bench", "ntt"},
                          {"bench", "bfv"},
                          {"bench", "bgv"},
                          {"report"}}) {
    std::vector<std::string> args = cmd;
    args.emplace_back("--help");
    const auto r = run_cli(args);
    std::string usage = "Usage: polyhe";
    for (const auto& c : cmd) usage += " " + c;
    EXPECT_EQ(r.status, 0) << usage;
    EXPECT_NE(r.out.find(usage), std::string::npos) << r.out;
  }
}

TEST(CliArgs, BenchWithoutBenchmarkPrintsHelpAndExitsTwo) {
  const auto r = run_cli({"bench"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ntt"), std::string::npos);
}

TEST(CliArgs, UnknownCommandsAndFlagsAreOneLineErrors) {
  expect_bad_input(run_cli({"frobnicate"}), "unknown command 'frobnicate'");
  expect_bad_input(run_cli({"--bogus"}), "--bogus");
  expect_bad_input(run_cli({"info", "--bogus"}), "--bogus");
  expect_bad_input(run_cli({"bench", "fft"}), "fft");
  expect_bad_input(run_cli({"bench", "ntt", "--log-n"}), "--log-n");
  expect_bad_input(run_cli({"bench", "ntt", "--threads", "two"}), "--threads");
  expect_bad_input(run_cli({"selftest", "--seed", "x"}), "--seed");
}

struct BadBench {
  std::vector<std::string> args;
  std::string needle;
};

TEST(CliBenchNtt, BadArgumentsAreOneLineErrors) {
  const std::vector<BadBench> cases = {
      {{"--log-n", "18"}, "--log-n: 18 is outside [1, 17]"},
      {{"--log-n", "0-3"}, "--log-n: 0 is outside"},
      {{"--log-n", "14-12"}, "the range '14-12' is empty"},
      {{"--log-n", "ten"}, "'ten'"},
      {{"--log-n", "10,"}, "empty item"},
      {{"--log-n", "-3"}, "--log-n"},
      {{"--bits", "19"}, "--bits: 19 is outside [20, 62]"},
      {{"--bits", "30,63"}, "--bits: 63 is outside [20, 62]"},
      {{"--variant", "quick"}, "unknown NTT variant 'quick'"},
      {{"--ops", "ntt_forward,fft"}, "unknown op 'fft'"},
      {{"--threads", "0"}, "--threads: 0 is outside"},
      {{"--threads", "5000"}, "--threads: 5000 is outside"},
      {{"--min-time", "0"}, "--min-time: 0 seconds"},
      {{"--min-time", "-1"}, "--min-time"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"bench", "ntt"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    SCOPED_TRACE(c.args.front() + " " + c.args.back());
    expect_bad_input(run_cli(args), c.needle);
  }
}

const std::vector<std::string> kQuick = {"bench", "ntt", "--min-time", "0.001", "--log-n", "3"};

std::vector<nlohmann::json> bench_json(std::vector<std::string> extra, std::string* err = nullptr) {
  std::vector<std::string> args = kQuick;
  args.insert(args.end(), extra.begin(), extra.end());
  args.emplace_back("--json");
  const auto r = run_cli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  if (err) *err = r.err;
  std::vector<nlohmann::json> out;
  for (const auto& line : lines(r.out)) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(CliBenchNtt, JsonLinesHaveTheDesignFields) {
  const auto ms = bench_json({"--bits", "30,50"});
  ASSERT_EQ(ms.size(), 8U);
  const std::vector<std::string> ops = {"ntt_forward", "ntt_inverse", "polymul", "polymul_fused"};
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    for (const char* key : {"op", "backend", "device", "log_n", "bits", "limbs", "variant",
                            "median_ns", "p10_ns", "p90_ns", "reps", "threads"}) {
      EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    }
    EXPECT_EQ(m["op"], ops[i % 4]);
    EXPECT_EQ(m["backend"], "cpu");
    EXPECT_EQ(m["log_n"], 3);
    EXPECT_EQ(m["bits"], i < 4 ? 30 : 50);
    EXPECT_EQ(m["limbs"], 1);
    EXPECT_EQ(m["threads"], 1);
    EXPECT_EQ(m["variant"], "shoup-lazy");
    EXPECT_GE(m["reps"].get<int>(), 15);
    EXPECT_GT(m["median_ns"].get<double>(), 0);
    EXPECT_LE(m["p10_ns"].get<double>(), m["median_ns"].get<double>());
    EXPECT_LE(m["median_ns"].get<double>(), m["p90_ns"].get<double>());
  }
}

TEST(CliBenchNtt, AllVariantsSkipWhatThePrimeCannotServe) {
  std::string err;
  const auto ms = bench_json({"--bits", "62", "--variant", "all", "--ops", "ntt_forward"}, &err);
  EXPECT_EQ(ms.size(), kAllNttVariants.size() - 1);  // barrett-dq serves at most 60 bits
  for (const auto& m : ms) EXPECT_NE(m["variant"], "barrett-dq");
  EXPECT_NE(err.find("skipping barrett-dq"), std::string::npos) << err;
  EXPECT_EQ(bench_json({"--bits", "60", "--variant", "all", "--ops", "polymul"}).size(),
            kAllNttVariants.size());
}

TEST(CliBenchNtt, OpsFilterAndThreads) {
  const auto ms =
      bench_json({"--bits", "40", "--ops", "polymul_fused,ntt_inverse", "--threads", "2"});
  ASSERT_EQ(ms.size(), 2U);
  EXPECT_EQ(ms[0]["op"], "ntt_inverse");
  EXPECT_EQ(ms[1]["op"], "polymul_fused");
  for (const auto& m : ms) {
    EXPECT_EQ(m["threads"], 2);
    EXPECT_EQ(m["limbs"], 4);
  }
}

TEST(CliBenchNtt, TableMode) {
  std::vector<std::string> args = kQuick;
  for (const char* a : {"--bits", "30", "--variant", "montgomery"}) args.emplace_back(a);
  const auto r = run_cli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  const auto ls = lines(r.out);
  const auto header =
      std::find(ls.begin(), ls.end(),
                "| op | log N | bits | variant | path | median µs | p10 µs | p90 µs | reps |");
  ASSERT_NE(header, ls.end()) << r.out;
  EXPECT_EQ(ls.end() - header, 2 + 4);  // header, rule, four ops
  EXPECT_EQ(ls.back().rfind("| polymul_fused | 3 | 30 | montgomery | scalar | ", 0), 0U)
      << ls.back();
}

TEST(CliInfo, TextAndJson) {
  auto r = run_cli({"info"});
  EXPECT_EQ(r.status, 0);
  for (const char* s :
       {"polyhe ", "cpu ", "cpu kernels ", "cuda ", "shoup-lazy (default)", "max N ", "62 bits"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
  r = run_cli({"info", "--json"});
  EXPECT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], kVersion);
  EXPECT_EQ(j["ntt"]["default_variant"], "shoup-lazy");
  EXPECT_EQ(j["ntt"]["max_n"], 131072);
  EXPECT_EQ(j["words"][1]["max_prime_bits"], 62);
  EXPECT_EQ(j["words"][0]["max_prime_bits"], 30);
  EXPECT_TRUE(j["cuda"]["compiled"].is_boolean());
  EXPECT_TRUE(j["cuda"]["gpus"].is_array());
}

TEST(CliSelftest, PassesAndReportsCounts) {
  auto r = run_cli({"selftest", "--seed", "12345"});
  EXPECT_EQ(r.status, 0) << r.out;
  const auto ls = lines(r.out);
  ASSERT_FALSE(ls.empty());
  EXPECT_NE(ls.front().find("seed 12345"), std::string::npos);
  EXPECT_EQ(ls.back().rfind("selftest: ", 0), 0U);
  EXPECT_NE(ls.back().find(" passed, 0 failed"), std::string::npos) << ls.back();
  r = run_cli({"selftest", "--json", "--seed", "12345"});
  EXPECT_EQ(r.status, 0);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seed"], 12345);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_GT(j["passed"].get<int>(), 500);
}

TEST(CliReport, MarkdownToStdoutAndFile) {
  const std::string path = ::testing::TempDir() + "polyhe_report_test.md";
  const auto r = run_cli({"report", "--min-time", "0.001", "--output", path});
  EXPECT_EQ(r.status, 0) << r.err;
  std::ifstream file(path);
  std::stringstream written;
  written << file.rdbuf();
  EXPECT_EQ(written.str(), r.out);
  for (const char* s :
       {"# polyhe report", "## Self-test", " passed, 0 failed", "| op | log N | bits | variant |",
        "| polymul_fused | 17 | 60 | shoup-lazy |", "fused / unfused |",
        "| 17 | 60 | shoup-lazy |"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  std::remove(path.c_str());
  const auto plain = run_cli({"report", "--quick", "--min-time", "0.001"});
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.rfind("# polyhe report\n", 0), 0U);
  expect_bad_input(run_cli({"report", "--output", "/nonexistent-dir/report.md"}), "--output");
}

TEST(CliUsage, IntegerLists) {
  using cli::parse_int_list;
  EXPECT_EQ(parse_int_list("12", "--x", 1, 17), std::vector<int>({12}));
  EXPECT_EQ(parse_int_list("10-13", "--x", 1, 17), std::vector<int>({10, 11, 12, 13}));
  EXPECT_EQ(parse_int_list("14,10,12-13,10", "--x", 1, 17), std::vector<int>({14, 10, 12, 13}));
  for (const char* bad :
       {"", ",", "1,", "a", "1-", "-1", "3-2", "18", "+3", " 3", "1-2-3", "99999999999"}) {
    EXPECT_THROW(parse_int_list(bad, "--x", 1, 17), cli::UsageError) << bad;
  }
  // The count is bounded before ranges are expanded (issue 19: a million lengths used to spend
  // minutes in the duplicate check).
  EXPECT_EQ(parse_int_list("1-256", "--x", 1, 1 << 20).size(), 256U);
  EXPECT_EQ(parse_int_list("1-4,1-4", "--x", 1, 17, 8).size(), 4U);  // duplicates count too
  EXPECT_THROW(parse_int_list("1-257", "--x", 1, 1 << 20), cli::UsageError);
  EXPECT_THROW(parse_int_list("1-5,1-4", "--x", 1, 17, 8), cli::UsageError);
  try {
    (void)parse_int_list("2-1048576", "--n", 2, 1 << 20);
    ADD_FAILURE() << "a million values accepted";
  } catch (const cli::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--n: more than 256 values"), std::string::npos)
        << e.what();
  }
}

TEST(CliTiming, QuantilesInterpolate) {
  const auto s = cli::summarize({50, 10, 40, 20, 30, 60, 70, 80, 90, 100, 0}, 7);
  EXPECT_DOUBLE_EQ(s.median_ns, 50);
  EXPECT_DOUBLE_EQ(s.p10_ns, 10);
  EXPECT_DOUBLE_EQ(s.p90_ns, 90);
  EXPECT_EQ(s.reps, 11U);
  EXPECT_EQ(s.calls_per_sample, 7U);
  std::uint64_t calls = 0;
  const auto m = cli::measure([&] { ++calls; }, {.min_time_s = 0.001,
                                                 .min_sample_s = 1e-5,
                                                 .warmup_s = 0,
                                                 .min_samples = 20,
                                                 .max_samples = 30});
  EXPECT_GE(m.reps, 20U);
  EXPECT_LE(m.reps, 30U);
  EXPECT_GT(calls, 0U);
}

TEST(CliTiming, PreparedInputsAreRemadeBeforeEveryBatch) {
  // Every timed call consumes a fresh input: prepare(calls) makes exactly the batch's inputs.
  std::vector<int> inputs;
  std::size_t batches = 0;
  std::size_t stale = 0;
  const auto m = cli::measure_prepared(
      [&](std::size_t calls) {
        inputs.assign(calls, 1);
        ++batches;
      },
      [&](std::size_t i) {
        stale += inputs.at(i) != 1 ? 1 : 0;
        inputs[i] = 0;
      },
      {.min_time_s = 0.001,
       .min_sample_s = 1e-5,
       .warmup_s = 0,
       .min_samples = 20,
       .max_samples = 30});
  EXPECT_EQ(stale, 0U);
  EXPECT_EQ(inputs.size(), m.calls_per_sample);
  EXPECT_GT(batches, m.reps);  // the sizing batches too
  EXPECT_GE(m.reps, 20U);
}

}  // namespace
}  // namespace polyhe::test

namespace polyhe::test {
namespace {

TEST(CliBenchNttPaths, EveryPathThisCpuHasAndTheKernelThatRan) {
  const auto r = run_cli({"bench", "ntt", "--min-time", "0.001", "--log-n", "10", "--bits", "40,60",
                          "--cpu", "all", "--ops", "ntt_forward", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<nlohmann::json> ms;
  for (const auto& line : lines(r.out)) ms.push_back(nlohmann::json::parse(line));
  std::vector<std::string> at40, at60;  // the kernels timed per prime size
  for (const auto& m : ms) {
    ASSERT_TRUE(m.contains("path")) << m.dump();
    const auto path = parse_cpu_path(m["path"].get<std::string>());
    ASSERT_TRUE(path.has_value()) << m.dump();
    auto& seen = m["bits"] == 40 ? at40 : at60;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), m["path"]), 0) << "timed twice: " << m.dump();
    seen.push_back(m["path"]);
    // IFMA serves primes below 2^50 only: a 60-bit prime runs on the AVX-512 kernel at most.
    if (m["bits"] == 60) {
      EXPECT_LE(*path, CpuPath::avx512) << m.dump();
    }
  }
  // A 40-bit prime has a kernel on every path this CPU has.
  for (CpuPath p : kAllCpuPaths) {
    const bool timed = std::count(at40.begin(), at40.end(), std::string(to_string(p))) == 1;
    EXPECT_EQ(timed, !cpu_path_unavailable_reason(p)) << to_string(p);
  }
  EXPECT_EQ(ms[0]["path"], "scalar");  // paths in increasing order, scalar first
}

TEST(CliBenchNttPaths, RefusesUnknownOrUnavailablePaths) {
  expect_bad_input(run_cli({"bench", "ntt", "--log-n", "4", "--cpu", "sse9"}), "sse9");
  for (CpuPath p : kAllCpuPaths) {
    if (auto why = cpu_path_unavailable_reason(p)) {
      expect_bad_input(
          run_cli({"bench", "ntt", "--log-n", "4", "--cpu", std::string(to_string(p))}), *why);
    }
  }
}

}  // namespace
}  // namespace polyhe::test

namespace polyhe::test {
namespace {

TEST(CliBenchCyclic, JsonPerLengthAndDecomposition) {
  const auto r =
      run_cli({"bench", "cyclic", "--n", "15,16", "--bits", "40", "--min-time", "0.001", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 4U) << r.out;  // automatic and bluestein for each length
  for (const auto& line : ls) {
    const auto m = nlohmann::json::parse(line);
    EXPECT_EQ(m["op"], "cyclic_forward");
    EXPECT_TRUE(m["n"] == 15 || m["n"] == 16) << line;
    EXPECT_GT(m["median_ns"].get<double>(), 0);
    EXPECT_FALSE(m["variant"].get<std::string>().empty());
  }
  EXPECT_NE(nlohmann::json::parse(ls[1])["variant"].get<std::string>().find("bluestein"),
            std::string::npos);
}

TEST(CliBenchCyclic, InverseOnRequest) {
  const auto r =
      run_cli({"bench", "cyclic", "--n", "85", "--bits", "40", "--decomposition", "automatic",
               "--ops", "forward,inverse", "--min-time", "0.001", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 2U) << r.out;
  EXPECT_EQ(nlohmann::json::parse(ls[0])["op"], "cyclic_forward");
  EXPECT_EQ(nlohmann::json::parse(ls[1])["op"], "cyclic_inverse");
  expect_bad_input(run_cli({"bench", "cyclic", "--ops", "backward"}), "backward");
}

// The powerful-basis transforms of Z_q[X]/Phi_m, one row per route that applies: 255 = 3·5·17
// has all three; an even length is skipped with a line on stderr.
TEST(CliBenchCyclic, PowerfulTransformsPerRoute) {
  const auto r = run_cli({"bench", "cyclic", "--n", "255,16", "--bits", "40", "--ops",
                          "powerful_forward,powerful_inverse", "--min-time", "0.001", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 6U) << r.out;
  const char* routes[] = {"fused", "length_m", "per_factor"};
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const auto j = nlohmann::json::parse(ls[i]);
    EXPECT_EQ(j["op"], i % 2 == 0 ? "powerful_forward" : "powerful_inverse") << ls[i];
    EXPECT_EQ(j["n"], 255);
    EXPECT_EQ(j["variant"].get<std::string>().rfind(routes[i / 2], 0), 0U) << ls[i];
    EXPECT_GT(j["median_ns"].get<double>(), 0);
  }
  EXPECT_NE(r.err.find("n = 16"), std::string::npos) << r.err;
}

// On a device: each limb count, powerful_forward/_inverse of the Φ_n ring beside the negacyclic
// NTT of as many limbs at N = 2^ceil(log2 φ(n)) (255: φ = 128, the cyclotomic index 256); a ring
// the device does not serve is skipped with its reason; the CPU's cyclic plans are refused.
TEST(CliBenchCyclic, PowerfulTransformsOnTheEmulatedDevice) {
  const auto r = run_cli({"bench", "cyclic", "--n", "255,119", "--bits", "40", "--ops",
                          "powerful_forward,powerful_inverse", "--backend", "cuda-emulated",
                          "--limbs", "1,3", "--min-time", "0.001", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ls = lines(r.out);
  ASSERT_EQ(ls.size(), 8U) << r.out;
  const char* ops[] = {"powerful_forward", "powerful_inverse", "negacyclic_forward",
                       "negacyclic_inverse"};
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const auto j = nlohmann::json::parse(ls[i]);
    EXPECT_EQ(j["op"], ops[i % 4]) << ls[i];
    EXPECT_EQ(j["backend"], "cuda-emulated");
    EXPECT_EQ(j["n"], i % 4 < 2 ? 255 : 256);
    EXPECT_EQ(j["words"], 128);
    EXPECT_EQ(j["limbs"], i < 4 ? 1 : 3);
    EXPECT_DOUBLE_EQ(j["per_limb_ns"].get<double>(),
                     j["median_ns"].get<double>() / j["limbs"].get<double>());
  }
  EXPECT_NE(r.err.find("skipping m = 119"), std::string::npos) << r.err;
  expect_bad_input(run_cli({"bench", "cyclic", "--n", "255", "--backend", "cuda-emulated"}),
                   "cyclic plans");
}

TEST(CliBenchCyclic, RefusesBadOptions) {
  expect_bad_input(run_cli({"bench", "cyclic", "--decomposition", "fft9"}), "fft9");
  expect_bad_input(run_cli({"bench", "cyclic", "--bits", "70"}), "70");
  expect_bad_input(run_cli({"bench", "cyclic", "--n", "1"}), "--n");
  expect_bad_input(run_cli({"bench", "cyclic", "--n", "2-1048576"}), "--n: more than 256 values");
}

}  // namespace
}  // namespace polyhe::test
