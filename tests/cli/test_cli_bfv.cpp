// `polyhe bench bfv` in-process: the JSON lines and their fields, the noise budgets of
// multiply_relin, the op filter, the coefficient encoder when t does not batch, the table, and
// every bad argument as one line with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/core/thread_pool.hpp"
#include "run_cli.hpp"

namespace polyhe::test {
namespace {

/// SEAL's default at N = 2^12 (q = 36, 36 bits, P = 37 bits, log QP = 109 ≤ 109) with t = 65537:
/// milliseconds per op, and one multiplication leaves about 20 of the 49 bits of budget.
/// `extra` flags replace the defaults of the same name (CLI11 refuses an option given twice).
CliResult run_small(const std::vector<std::string>& extra) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--log-n", "12"}, {"--primes", "36,36,37"}, {"--min-time", "0.002"}};
  std::vector<std::string> args = {"bench", "bfv"};
  for (const auto& [flag, value] : flags) {
    if (std::find(extra.begin(), extra.end(), flag) == extra.end()) {
      args.push_back(flag);
      args.push_back(value);
    }
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return run_cli(args);
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(CliBenchBfv, JsonLinesPerOpWithTheBfvFields) {
  const auto r = run_small({"--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto ms = json_lines(r.out);
  const std::vector<std::string> ops = {"encode", "encrypt", "add",   "multiply_relin",
                                        "rotate", "decrypt", "decode"};
  ASSERT_EQ(ms.size(), ops.size()) << r.out;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    for (const char* key :
         {"op",        "backend", "device",  "log_n", "bits",          "limbs",   "variant",
          "median_ns", "p10_ns",  "p90_ns",  "reps",  "threads",       "path",    "scheme",
          "security",  "primes",  "special", "dnum",  "plain_modulus", "encoder", "log_qp",
          "level"}) {
      EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    }
    EXPECT_EQ(m["op"], ops[i]);
    EXPECT_EQ(m["scheme"], "bfv");
    EXPECT_EQ(m["security"], "128");
    EXPECT_EQ(m["log_n"], 12);
    EXPECT_EQ(m["bits"], 17);  // len(65537)
    EXPECT_EQ(m["plain_modulus"], 65537);
    EXPECT_EQ(m["encoder"], "batch");
    EXPECT_EQ(m["limbs"], 2);
    EXPECT_EQ(m["level"], 1);
    EXPECT_EQ(m["primes"], nlohmann::json({36, 36}));
    EXPECT_EQ(m["special"], nlohmann::json({37}));
    EXPECT_EQ(m["dnum"], 2);
    EXPECT_EQ(m["variant"], "hybrid-dnum2");
    EXPECT_EQ(m["log_qp"], 109);
    EXPECT_EQ(m["threads"], 1);
    EXPECT_GE(m["reps"].get<int>(), 15);
    EXPECT_GT(m["median_ns"].get<double>(), 0);
    EXPECT_LE(m["p10_ns"].get<double>(), m["median_ns"].get<double>());
    EXPECT_LE(m["median_ns"].get<double>(), m["p90_ns"].get<double>());
    const bool multiply = ops[i] == "multiply_relin";
    EXPECT_EQ(m.contains("noise_budget_fresh"), multiply) << m.dump();
    EXPECT_EQ(m.contains("noise_budget_after"), multiply) << m.dump();
    EXPECT_EQ(m.contains("rotate_step"), ops[i] == "rotate") << m.dump();
  }
  // 72 bits of Q, t of 17 bits: about 49 bits fresh, about 22 after one multiplication.
  const auto& mul = ms[3];
  const int fresh = mul["noise_budget_fresh"].get<int>();
  const int after = mul["noise_budget_after"].get<int>();
  EXPECT_GT(fresh, 30) << mul.dump();
  EXPECT_LT(fresh, 72 - 17) << mul.dump();
  EXPECT_GT(after, 0) << mul.dump();
  EXPECT_LT(after, fresh) << mul.dump();
  EXPECT_EQ(ms[4]["rotate_step"], 1);
}

TEST(CliBenchBfv, OpsFilterSpecialPrimesDnumAndThreads) {
  // Q = 20,20,20 and P = 24,24 bits (log QP = 108): the default dnum would be 2.
  const unsigned before = thread_count();
  const auto r = run_cli({"bench", "bfv", "--log-n", "12", "--primes", "20,20,20", "--special",
                          "24,24", "--dnum", "3", "--ops", "rotate,add", "--rotate-step", "-5",
                          "--threads", "2", "--min-time", "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 2U) << r.out;
  EXPECT_EQ(ms[0]["op"], "add");  // the canonical order, not the order given
  EXPECT_EQ(ms[1]["op"], "rotate");
  EXPECT_EQ(ms[1]["rotate_step"], -5);
  for (const auto& m : ms) {
    EXPECT_EQ(m["primes"], nlohmann::json({20, 20, 20}));
    EXPECT_EQ(m["special"], nlohmann::json({24, 24}));
    EXPECT_EQ(m["dnum"], 3);
    EXPECT_EQ(m["variant"], "hybrid-dnum3");
    EXPECT_EQ(m["level"], 2);
    EXPECT_EQ(m["limbs"], 3);
    EXPECT_EQ(m["threads"], 2);
  }
  EXPECT_EQ(thread_count(), before);  // the default pool is restored
}

TEST(CliBenchBfv, WithoutBatchingTheCoefficientEncoderAndNoRotation) {
  // 65536 is not prime: values are coefficients, and the default op list leaves rotate out.
  const auto r = run_small({"--plain-modulus", "65536", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("rotate not run: t = 65536 does not batch"), std::string::npos) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 6U) << r.out;
  for (const auto& m : ms) {
    EXPECT_NE(m["op"], "rotate");
    EXPECT_EQ(m["encoder"], "coefficient");
    EXPECT_EQ(m["plain_modulus"], 65536);
    EXPECT_EQ(m["bits"], 17);
  }
  const auto table = run_small({"--plain-modulus", "65536", "--ops", "encode,decode"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("t = 65536 (17 bits, no batching: the coefficient encoder)"),
            std::string::npos)
      << table.out;
}

TEST(CliBenchBfv, AnExhaustedBudgetIsReported) {
  // t = 2^40 against a 72-bit Q: the product cannot decrypt; the benchmark says so on stderr.
  const auto r =
      run_small({"--plain-modulus", "1099511627776", "--ops", "multiply_relin", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("polyhe bench: multiply_relin exhausted the invariant noise budget"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(json_lines(r.out).at(0)["noise_budget_after"], 0) << r.out;
}

TEST(CliBenchBfv, TableModeWithParametersAndNoiseBudget) {
  const auto r = run_small({});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s :
       {"BFV benchmark on ",
        "BFV: N = 2^12, Q = 36,36 bits (L = 1), P = 37 bits, log2(QP) = 109, dnum = 2, t = 65537 "
        "(17 bits, batching: 2 × 2048 slots), security 128-bit",
        "| op | level | median ms | p10 ms | p90 ms | reps |", "| encrypt | 1 | ",
        "| multiply_relin | 1 | ", "| rotate | 1 | ", "| decrypt | 1 | ", "| decode | 1 | ",
        "key generation excluded", "without decode", "Invariant noise budget: "}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

TEST(CliBenchBfv, InsecureSetsNeedSecurityNone) {
  // 40 + 40 + 40 = 120 bits > 109 at N = 2^12.
  const std::vector<std::string> big = {"bench",    "bfv",      "--log-n",    "12",
                                        "--primes", "40,40,40", "--min-time", "0.002",
                                        "--ops",    "add",      "--json"};
  expect_bad_input(run_cli(big), "--security none");
  std::vector<std::string> opt_out = big;
  opt_out.insert(opt_out.end(), {"--security", "none"});
  const auto r = run_cli(opt_out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_lines(r.out).at(0)["security"], "none");
  expect_bad_input(run_small({"--security", "192"}), "192-bit");
}

struct BadBfv {
  std::vector<std::string> args;
  std::string needle;
};

TEST(CliBenchBfv, BadArgumentsAreOneLineErrors) {
  const std::vector<BadBfv> cases = {
      {{"--log-n", "18"}, "--log-n: 18 is outside [2, 17]"},
      {{"--log-n", "1"}, "--log-n: 1 is outside [2, 17]"},
      {{"--primes", ""}, "--primes: empty"},
      {{"--primes", "40,,40"}, "--primes: empty item"},
      {{"--primes", "40,63"}, "--primes: 63 is outside [2, 62]"},
      {{"--primes", "40"}, "1 prime without --special; at least 2"},
      {{"--special", "0"}, "--special: 0 is outside"},
      {{"--dnum", "3"}, "--dnum: 3 is outside [0, 2]"},
      {{"--dnum", "-1"}, "--dnum: -1 is outside"},
      {{"--plain-modulus", "1"}, "--plain-modulus: 1 is outside [2, 2^60)"},
      {{"--plain-modulus", "1152921504606846976"}, "--plain-modulus: 1152921504606846976 is"},
      {{"--plain-modulus", "x"}, "--plain-modulus"},
      {{"--security", "80"}, "--security: '80' is not 128, 192, 256 or none"},
      {{"--ops", "add,mod_switch"}, "unknown op 'mod_switch'"},
      {{"--plain-modulus", "65536", "--ops", "rotate"}, "rotate needs batching; t = 65536"},
      {{"--plain-modulus", "65536", "--rotate-step", "2"}, "--rotate-step 2: rotations need"},
      {{"--rotate-step", "0"}, "--rotate-step: 0"},
      {{"--rotate-step", "2048"}, "|step| < N/2 = 2048"},
      {{"--threads", "0"}, "--threads: 0 is outside"},
      {{"--min-time", "0"}, "--min-time"},
      {{"--bogus"}, "--bogus"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.front() + " " + c.args.back());
    expect_bad_input(run_small(c.args), c.needle);
  }
}

TEST(CliBenchBfv, HelpStatesWhatIsTimedAndTheBudget) {
  const auto r = run_cli({"bench", "bfv", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* s : {"Usage: polyhe bench bfv", "--primes", "--special", "--plain-modulus",
                        "--dnum", "--security", "--rotate-step", "noise_budget_after",
                        "key generation excluded", "without decode"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

}  // namespace
}  // namespace polyhe::test
