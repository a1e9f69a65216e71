// `polyhe bench ckks` in-process: the JSON lines and their fields, the table, the precision of
// multiply_relin, the op filter, and every bad argument as one line with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "polyhe/core/thread_pool.hpp"
#include "run_cli.hpp"
#include "usage.hpp"

namespace polyhe::test {
namespace {

/// A secure set that runs in milliseconds: N = 2^12, q = 36, 30 bits, P = 36 bits (102 ≤ 109).
/// `extra` flags replace the defaults of the same name (CLI11 refuses an option given twice).
CliResult run_small(const std::vector<std::string>& extra) {
  std::vector<std::pair<std::string, std::string>> flags = {
      {"--log-n", "12"}, {"--primes", "36,30,36"}, {"--scale-bits", "30"}, {"--min-time", "0.002"}};
  std::vector<std::string> args = {"bench", "ckks"};
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

TEST(CliBenchCkks, JsonLinesPerOpWithTheCkksFields) {
  const auto r = run_small({"--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto ms = json_lines(r.out);
  const std::vector<std::string> ops = {"encode",  "encrypt", "add",     "multiply_relin",
                                        "rescale", "rotate",  "decrypt", "decode"};
  ASSERT_EQ(ms.size(), ops.size()) << r.out;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    for (const char* key :
         {"op",        "backend", "device", "log_n",      "bits",    "limbs", "variant",
          "median_ns", "p10_ns",  "p90_ns", "reps",       "threads", "path",  "scheme",
          "primes",    "special", "dnum",   "scale_bits", "log_qp",  "level"}) {
      EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    }
    EXPECT_EQ(m["op"], ops[i]);
    EXPECT_EQ(m["scheme"], "ckks");
    EXPECT_EQ(m["log_n"], 12);
    EXPECT_EQ(m["bits"], 30);
    EXPECT_EQ(m["scale_bits"], 30);
    EXPECT_EQ(m["limbs"], 2);
    EXPECT_EQ(m["level"], 1);
    EXPECT_EQ(m["primes"], nlohmann::json({36, 30}));
    EXPECT_EQ(m["special"], nlohmann::json({36}));
    EXPECT_EQ(m["dnum"], 2);
    EXPECT_EQ(m["variant"], "hybrid-dnum2");
    EXPECT_EQ(m["log_qp"], 102);
    EXPECT_EQ(m["threads"], 1);
    EXPECT_GE(m["reps"].get<int>(), 15);
    EXPECT_GT(m["median_ns"].get<double>(), 0);
    EXPECT_LE(m["p10_ns"].get<double>(), m["median_ns"].get<double>());
    EXPECT_LE(m["median_ns"].get<double>(), m["p90_ns"].get<double>());
    EXPECT_EQ(m.contains("precision_bits"), ops[i] == "multiply_relin") << m.dump();
  }
  // Δ = 2^30 and a 30-bit q_L: the product keeps well over 10 bits (about 17 measured).
  EXPECT_GT(ms[3]["precision_bits"].get<double>(), 10) << ms[3].dump();
  EXPECT_LT(ms[3]["precision_bits"].get<double>(), 30) << ms[3].dump();
}

TEST(CliBenchCkks, OpsFilterSpecialPrimesDnumAndThreads) {
  const unsigned before = thread_count();
  const auto r =
      run_cli({"bench",      "ckks",       "--log-n",       "12", "--primes",     "28,25,25",
               "--special",  "30",         "--dnum",        "3",  "--scale-bits", "25",
               "--ops",      "rotate,add", "--rotate-step", "-5", "--threads",    "2",
               "--min-time", "0.002",      "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 2U) << r.out;
  EXPECT_EQ(ms[0]["op"], "add");  // the canonical order, not the order given
  EXPECT_EQ(ms[1]["op"], "rotate");
  EXPECT_FALSE(ms[1].contains("rotations")) << ms[1].dump();
  for (const auto& m : ms) {
    EXPECT_EQ(m["primes"], nlohmann::json({28, 25, 25}));
    EXPECT_EQ(m["special"], nlohmann::json({30}));
    EXPECT_EQ(m["variant"], "hybrid-dnum3");
    EXPECT_EQ(m["level"], 2);
    EXPECT_EQ(m["threads"], 2);
  }
  EXPECT_EQ(thread_count(), before);  // the default pool is restored
}

// rotate_many runs only when named: 8 hoisted rotations a call, said in its JSON line.
TEST(CliBenchCkks, RotateManyOnlyWhenNamed) {
  const auto r = run_cli({"bench", "ckks", "--log-n", "12", "--primes", "28,25,25", "--special",
                          "30", "--scale-bits", "25", "--ops", "rotate_many,rotate", "--min-time",
                          "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 2U) << r.out;
  EXPECT_EQ(ms[0]["op"], "rotate");
  EXPECT_EQ(ms[1]["op"], "rotate_many");
  EXPECT_EQ(ms[1]["rotations"], 8);
  const auto all = run_cli({"bench", "ckks", "--log-n", "12", "--primes", "28,25,25", "--special",
                            "30", "--scale-bits", "25", "--min-time", "0.002", "--json"});
  ASSERT_EQ(all.status, 0) << all.err;
  for (const auto& m : json_lines(all.out)) EXPECT_NE(m["op"], "rotate_many");
}

// bootstrap runs only when named, with a sparse secret; its JSON line says the level the result
// is at, the slots and the precision against the input.
TEST(CliBenchCkks, BootstrapOnlyWhenNamed) {
  std::string primes = "60,40";
  for (int i = 0; i < 13; ++i) primes += ",58";
  const std::vector<std::string> base = {
      "bench",     "ckks",     "--log-n",    "8",          "--primes",     primes,
      "--special", "60,60,60", "--security", "none",       "--min-time",   "0.002",
      "--json",    "--ops",    "bootstrap",  "--eval-mod", "double_angle", "--bootstrap-levels",
      "2,2"};
  auto args = base;
  args.insert(args.end(), {"--hamming-weight", "64"});
  const auto r = run_cli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 1U) << r.out;
  EXPECT_EQ(ms[0]["op"], "bootstrap");
  EXPECT_EQ(ms[0]["level"], 0);
  EXPECT_EQ(ms[0]["levels_after"], 1);  // L = 14: 2 + 9 (double angles) + 2 consumed
  EXPECT_EQ(ms[0]["slots"], 128);
  EXPECT_EQ(ms[0]["hamming_weight"], 64);
  EXPECT_EQ(ms[0]["encapsulation_weight"], 0);
  EXPECT_GT(ms[0]["precision_bits"].get<double>(), 12.0);
  EXPECT_GT(ms[0]["rotation_keys"].get<int>(), 0);  // the transforms' rotations, keys made for each
  // A dense secret is refused before any key is made, naming the option.
  const auto dense = run_cli(base);
  EXPECT_EQ(dense.status, 2);
  EXPECT_NE(dense.err.find("--ops bootstrap needs a sparse secret for ModRaise: "
                           "--encapsulation-weight 32"),
            std::string::npos)
      << dense.err;
  // With encapsulation the secret may be dense.
  auto encapsulated = base;
  encapsulated.insert(encapsulated.end(), {"--encapsulation-weight", "32"});
  const auto e = run_cli(encapsulated);
  ASSERT_EQ(e.status, 0) << e.err;
  const auto es = json_lines(e.out);
  ASSERT_EQ(es.size(), 1U) << e.out;
  EXPECT_EQ(es[0]["hamming_weight"], 0);
  EXPECT_EQ(es[0]["encapsulation_weight"], 32);
  EXPECT_EQ(es[0]["levels_after"], 1);
  EXPECT_GT(es[0]["precision_bits"].get<double>(), 12.0);
  EXPECT_EQ(es[0]["input_scaling_bits"], 0);
  EXPECT_EQ(es[0]["rotation_keys"], ms[0]["rotation_keys"]);  // the same transforms
  EXPECT_GT(es[0]["input_precision_bits"].get<double>(), es[0]["precision_bits"].get<double>());
  // --message-ratio 12: the input scaled by 2^8 (q_0 of 60 bits, just above 2^60 here; Δ = 2^40)
  // before ModRaise. (At N = 2^8 the coefficients are large against q_0: a smaller ratio meets
  // the sine's error.)
  auto ratio = encapsulated;
  ratio.insert(ratio.end(), {"--message-ratio", "12"});
  const auto rr = run_cli(ratio);
  ASSERT_EQ(rr.status, 0) << rr.err;
  const auto rs = json_lines(rr.out);
  ASSERT_EQ(rs.size(), 1U) << rr.out;
  EXPECT_EQ(rs[0]["input_scaling_bits"], 8);
  EXPECT_GT(rs[0]["precision_bits"].get<double>(), es[0]["precision_bits"].get<double>() + 3.0);
  for (const char* text : {"0.5", "63", "-1"}) {
    auto wrong = encapsulated;
    wrong.insert(wrong.end(), {"--message-ratio", text});
    const auto w = run_cli(wrong);
    EXPECT_EQ(w.status, 2) << text;
    EXPECT_NE(w.err.find("use 0 (no input scaling) or a number of bits in [1, 62]"),
              std::string::npos)
        << w.err;
  }
  auto bad = base;
  bad.insert(bad.end(), {"--hamming-weight", "64", "--bootstrap-levels", "3"});
  EXPECT_EQ(run_cli(bad).status, 2);
  const auto all = run_small({"--json"});
  ASSERT_EQ(all.status, 0) << all.err;
  for (const auto& m : json_lines(all.out)) EXPECT_NE(m["op"], "bootstrap");
}

// --bootstrap-iterations 2: one more level, p estimated (31 + 9 − 20 − 2 = 18 at N = 2^8), and
// against the input's own decryption (refresh_precision_bits) far more bits than one iteration
// keeps (19.7 against 33.0 measured); bad counts and gains are refused by name.
TEST(CliBenchCkks, BootstrapIterations) {
  std::string primes = "60,40";
  for (int i = 0; i < 14; ++i) primes += ",58";
  const std::vector<std::string> base = {"bench",
                                         "ckks",
                                         "--log-n",
                                         "8",
                                         "--primes",
                                         primes,
                                         "--special",
                                         "60,60,60",
                                         "--security",
                                         "none",
                                         "--min-time",
                                         "0.002",
                                         "--json",
                                         "--ops",
                                         "bootstrap",
                                         "--eval-mod",
                                         "double_angle",
                                         "--bootstrap-levels",
                                         "2,2",
                                         "--hamming-weight",
                                         "64"};
  const auto one = run_cli(base);
  ASSERT_EQ(one.status, 0) << one.err;
  auto args = base;
  args.insert(args.end(), {"--bootstrap-iterations", "2"});
  const auto two = run_cli(args);
  ASSERT_EQ(two.status, 0) << two.err;
  const auto a = json_lines(one.out);
  const auto b = json_lines(two.out);
  ASSERT_EQ(a.size(), 1U) << one.out;
  ASSERT_EQ(b.size(), 1U) << two.out;
  EXPECT_EQ(a[0]["iterations"], 1);
  EXPECT_EQ(a[0]["iteration_precision_bits"], 0);
  EXPECT_EQ(b[0]["iterations"], 2);
  EXPECT_EQ(b[0]["iteration_precision_bits"], 18);
  EXPECT_EQ(b[0]["levels_after"].get<int>(), a[0]["levels_after"].get<int>() - 1);
  EXPECT_GT(b[0]["refresh_precision_bits"].get<double>(),
            a[0]["refresh_precision_bits"].get<double>() + 8.0);
  for (const auto& [iterations, precision, rule] :
       {std::tuple{"3", "0", "--bootstrap-iterations 3: use 1, or 2 for iterative bootstrapping"},
        std::tuple{"2", "41",
                   "--iteration-precision 41: use 0 (estimated) or a number of bits in [1, 40]"}}) {
    auto wrong = base;
    wrong.insert(wrong.end(),
                 {"--bootstrap-iterations", iterations, "--iteration-precision", precision});
    const auto w = run_cli(wrong);
    EXPECT_EQ(w.status, 2) << iterations << " " << precision;
    EXPECT_NE(w.err.find(rule), std::string::npos) << w.err;
  }
}

TEST(CliBenchCkks, TableModeWithParametersAndPrecision) {
  const auto r = run_small({});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s :
       {"N = 2^12, Q = 36,30 bits (L = 1), P = 36 bits, log2(QP) = 102, dnum = 2",
        "| op | level | median ms | p10 ms | p90 ms | reps |", "| multiply_relin | 1 | ",
        "| decode | 1 | ", "Precision of multiply_relin: ", "key generation excluded"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

TEST(CliBenchCkks, InsecureSetsNeedSecurityNone) {
  // 40 + 40 + 40 = 120 bits > 109 at N = 2^12.
  const std::vector<std::string> big = {
      "bench", "ckks",       "--log-n", "12",    "--primes", "40,40,40", "--scale-bits",
      "30",    "--min-time", "0.002",   "--ops", "add",      "--json"};
  expect_bad_input(run_cli(big), "--security none");
  expect_bad_input(run_cli(big), "log2(QP) = 120 bits exceeds the 109 bits");
  std::vector<std::string> opt_out = big;
  opt_out.insert(opt_out.end(), {"--security", "none"});
  const auto r = run_cli(opt_out);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_lines(r.out).at(0)["security"], "none");
  // 192-bit security allows only 75 bits at N = 2^12.
  expect_bad_input(run_small({"--security", "192"}), "192-bit");
}

struct BadCkks {
  std::vector<std::string> args;
  std::string needle;
};

TEST(CliBenchCkks, BadArgumentsAreOneLineErrors) {
  const std::vector<BadCkks> cases = {
      {{"--log-n", "18"}, "--log-n: 18 is outside [2, 17]"},
      {{"--log-n", "1"}, "--log-n: 1 is outside [2, 17]"},
      {{"--primes", ""}, "--primes: empty"},
      {{"--primes", "40,,40"}, "--primes: empty item"},
      {{"--primes", "40,x,40"}, "--primes: 'x' is not an integer"},
      {{"--primes", "40,63,40"}, "--primes: 63 is outside [2, 62]"},
      {{"--primes",
        [] {
          std::string many = "40";
          for (int i = 0; i < 64; ++i) many += ",40";
          return many;
        }()},
       "--primes: more than 64 values"},
      // 64 primes are read; with the special one, |Q| + |P| = 65 is refused before any work.
      {{"--primes",
        [] {
          std::string many = "40";
          for (int i = 0; i < 63; ++i) many += ",40";
          return many;
        }(),
        "--special", "60"},
       "64 + 1 primes exceeds the limit of 64"},
      {{"--primes", "40,40"}, "without --special; at least 3"},
      {{"--primes", "40", "--special", "40"}, "CKKS needs at least 2"},
      {{"--special", "0"}, "--special: 0 is outside"},
      {{"--scale-bits", "9"}, "--scale-bits: 9 is outside [10, 60]"},
      {{"--scale-bits", "61"}, "--scale-bits: 61 is outside [10, 60]"},
      {{"--primes", "30,20,30", "--scale-bits", "30"}, "multiply_relin needs"},
      {{"--dnum", "3"}, "--dnum: 3 is outside [0, 2]"},
      {{"--dnum", "-1"}, "--dnum: -1 is outside"},
      {{"--security", "80"}, "--security: '80' is not 128, 192, 256 or none"},
      {{"--ops", "add,sqrt"}, "unknown op 'sqrt'"},
      {{"--rotate-step", "0"}, "--rotate-step: 0"},
      {{"--rotate-step", "2048"}, "|step| < N/2 = 2048"},
      {{"--threads", "0"}, "--threads: 0 is outside"},
      {{"--min-time", "0"}, "--min-time"},
      {{"--log-n", "ten"}, "--log-n"},
      {{"--bogus"}, "--bogus"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.front() + " " + c.args.back());
    expect_bad_input(run_small(c.args), c.needle);
  }
}

TEST(CliBenchCkks, HelpStatesWhatIsTimedAndThePrecision) {
  const auto r = run_cli({"bench", "ckks", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* s :
       {"Usage: polyhe bench ckks", "--primes", "--special", "--scale-bits", "--dnum", "--security",
        "--rotate-step", "precision_bits", "key generation excluded"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

TEST(CliReport, QuickReportHasTheCkksBootstrappingBfvAndBgvSections) {
  const auto r = run_cli({"report", "--quick", "--min-time", "0.001"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s :
       {"## CKKS", "N = 2^12, Q = 36,30 bits", "| multiply_relin | 1 | ", "| rotate | 1 | ",
        "Precision of multiply_relin: ", "## CKKS bootstrapping", "N = 2^10, Q = 60,40,40,40,58,",
        "| bootstrap | 0 | ", "refreshed to level 3 of L = 17", "## BFV",
        "BFV: N = 2^12, Q = 36,36 bits", "Invariant noise budget: ", "## BGV",
        "BGV: N = 2^12, Q = 36,36 bits", "| mod_switch | 1 | ",
        "\nNoise budget: ", "bits after a following mod_switch to L − 1"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
}

TEST(CliUsage, IntegerSequencesKeepOrderAndDuplicates) {
  using cli::parse_int_sequence;
  EXPECT_EQ(parse_int_sequence("60,40,40,60", "--x", 2, 62), std::vector<int>({60, 40, 40, 60}));
  for (const char* bad : {"", ",", "40,", "a", "40-50", "-1", "63", "1"}) {
    EXPECT_THROW(parse_int_sequence(bad, "--x", 2, 62), cli::UsageError) << bad;
  }
}

}  // namespace
}  // namespace polyhe::test
