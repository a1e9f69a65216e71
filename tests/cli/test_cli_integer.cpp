// `polyhe bench bfv` and `polyhe bench bgv` in-process, one parameterised suite for both: the JSON
// lines and their fields, the noise budgets of multiply_relin (and BGV's after a modulus switch),
// the op filter, the coefficient encoder when t does not batch, the table, and every bad argument
// as one line with exit status 2. BGV's mod_switch at L = 0 has its own tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
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
CliResult run_small(const std::string& scheme, const std::vector<std::string>& extra) {
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"--log-n", "12"}, {"--primes", "36,36,37"}, {"--min-time", "0.002"}};
  std::vector<std::string> args = {"bench", scheme};
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

const nlohmann::json& line_of(const std::vector<nlohmann::json>& ms, const std::string& op) {
  const auto it = std::find_if(ms.begin(), ms.end(), [&](const auto& m) { return m["op"] == op; });
  if (it == ms.end()) throw std::runtime_error("no JSON line for " + op);
  return *it;
}

/// The parameter is the scheme's name on the command line: "bfv" or "bgv".
class CliBenchInteger : public ::testing::TestWithParam<std::string> {
 protected:
  [[nodiscard]] bool bgv() const { return GetParam() == "bgv"; }

  /// Every op of the scheme, in the order they run.
  [[nodiscard]] std::vector<std::string> all_ops() const {
    std::vector<std::string> ops = {"encode", "encrypt", "add",   "multiply_relin",
                                    "rotate", "decrypt", "decode"};
    if (bgv()) ops.insert(ops.begin() + 4, "mod_switch");
    return ops;
  }

  [[nodiscard]] CliResult run_small(const std::vector<std::string>& extra) const {
    return test::run_small(GetParam(), extra);
  }
};

TEST_P(CliBenchInteger, JsonLinesPerOpWithTheSchemeFields) {
  const auto r = run_small({"--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto ms = json_lines(r.out);
  const std::vector<std::string> ops = all_ops();
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
    EXPECT_EQ(m["scheme"], GetParam());
    EXPECT_EQ(m["security"], "128");
    EXPECT_EQ(m["log_n"], 12);
    EXPECT_EQ(m["bits"], 17);  // len(65537)
    EXPECT_EQ(m["plain_modulus"], 65537);
    EXPECT_EQ(m["encoder"], "batch");
    EXPECT_EQ(m["limbs"], 2);
    EXPECT_EQ(m["level"], 1);  // mod_switch too: the level of its input
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
    EXPECT_EQ(m.contains("noise_budget_after_switch"), multiply && bgv()) << m.dump();
    EXPECT_EQ(m.contains("rotate_step"), ops[i] == "rotate") << m.dump();
  }
  // 72 bits of Q, t of 17 bits: about 49 bits fresh, about 20 after one multiplication.
  const auto& mul = line_of(ms, "multiply_relin");
  const int fresh = mul["noise_budget_fresh"].get<int>();
  const int after = mul["noise_budget_after"].get<int>();
  EXPECT_GT(fresh, 30) << mul.dump();
  EXPECT_LT(fresh, 72 - 17) << mul.dump();
  EXPECT_GT(after, 0) << mul.dump();
  EXPECT_LT(after, fresh) << mul.dump();
  if (bgv()) {
    // Switched to Q_0 (36 bits): the noise drops by about q_1 down to its floor, t·2^6 or so.
    const int switched = mul["noise_budget_after_switch"].get<int>();
    EXPECT_GT(switched, 0) << mul.dump();
    EXPECT_LT(switched, 36 - 17) << mul.dump();
  }
  EXPECT_EQ(line_of(ms, "rotate")["rotate_step"], 1);
}

TEST_P(CliBenchInteger, OpsFilterSpecialPrimesDnumAndThreads) {
  // Q = 20,20,20 and P = 24,24 bits (log QP = 108): the default dnum would be 2.
  const unsigned before = thread_count();
  const std::string ops = bgv() ? "rotate,mod_switch,add" : "rotate,add";
  const auto r = run_cli({"bench", GetParam(), "--log-n", "12", "--primes", "20,20,20", "--special",
                          "24,24", "--dnum", "3", "--ops", ops, "--rotate-step", "-5", "--threads",
                          "2", "--min-time", "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  // The canonical order, not the order given.
  std::vector<std::string> expected = {"add", "rotate"};
  if (bgv()) expected.insert(expected.begin() + 1, "mod_switch");
  ASSERT_EQ(ms.size(), expected.size()) << r.out;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = ms[i];
    EXPECT_EQ(m["op"], expected[i]);
    EXPECT_EQ(m["primes"], nlohmann::json({20, 20, 20}));
    EXPECT_EQ(m["special"], nlohmann::json({24, 24}));
    EXPECT_EQ(m["dnum"], 3);
    EXPECT_EQ(m["variant"], "hybrid-dnum3");
    EXPECT_EQ(m["level"], 2);
    EXPECT_EQ(m["limbs"], 3);
    EXPECT_EQ(m["threads"], 2);
  }
  EXPECT_EQ(line_of(ms, "rotate")["rotate_step"], -5);
  EXPECT_EQ(thread_count(), before);  // the default pool is restored
}

TEST_P(CliBenchInteger, WithoutBatchingTheCoefficientEncoderAndNoRotation) {
  // 65536 is not prime: values are coefficients, and the default op list leaves rotate out.
  const auto r = run_small({"--plain-modulus", "65536", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("rotate not run: t = 65536 does not batch"), std::string::npos) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), all_ops().size() - 1) << r.out;
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
  const auto skipped = run_small({"--plain-modulus", "65536", "--ops", "encode"});
  ASSERT_EQ(skipped.status, 0) << skipped.err;
  EXPECT_EQ(skipped.out.find("Not run:"), std::string::npos) << skipped.out;  // not asked for
}

TEST_P(CliBenchInteger, AnExhaustedBudgetIsReported) {
  // t = 2^40 against a 72-bit Q: the product cannot decrypt; the benchmark says so on stderr.
  const auto r =
      run_small({"--plain-modulus", "1099511627776", "--ops", "multiply_relin", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string needle = bgv() ? "polyhe bench: multiply_relin exhausted the noise budget"
                                   : "polyhe bench: multiply_relin exhausted the invariant noise "
                                     "budget";
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(json_lines(r.out).at(0)["noise_budget_after"], 0) << r.out;
}

TEST_P(CliBenchInteger, TableModeWithParametersAndNoiseBudget) {
  const auto r = run_small({});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string title = bgv() ? "BGV" : "BFV";
  std::vector<std::string> needles = {
      title + " benchmark on ",
      title +
          ": N = 2^12, Q = 36,36 bits (L = 1), P = 37 bits, log2(QP) = 109, dnum = 2, t = "
          "65537 (17 bits, batching: 2 × 2048 slots), security 128-bit",
      "| op | level | median ms | p10 ms | p90 ms | reps |",
      "| encrypt | 1 | ",
      "| multiply_relin | 1 | ",
      "| rotate | 1 | ",
      "| decrypt | 1 | ",
      "| decode | 1 | ",
      "key generation excluded",
      "without decode"};
  if (bgv()) {
    needles.insert(needles.end(),
                   {"| mod_switch | 1 | ", "t·(encryption of zero) + m",
                    "mod_switch = mod_switch_to_next_inplace of a fresh ciphertext from L to L − 1",
                    "on copies made before each timed batch, untimed",
                    "\nNoise budget: ", " bits after a following mod_switch to L − 1"});
  } else {
    needles.insert(needles.end(), {"round(Q·m/t)", "Invariant noise budget: "});
    EXPECT_EQ(r.out.find("mod_switch"), std::string::npos) << r.out;
  }
  for (const std::string& s : needles) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

TEST_P(CliBenchInteger, InsecureSetsNeedSecurityNone) {
  // 40 + 40 + 40 = 120 bits > 109 at N = 2^12.
  const std::vector<std::string> big = {"bench",    GetParam(), "--log-n",    "12",
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

struct BadIntegerArgs {
  std::vector<std::string> args;
  std::string needle;
};

TEST_P(CliBenchInteger, BadArgumentsAreOneLineErrors) {
  std::vector<BadIntegerArgs> cases = {
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
      {{"--ops", "add,frobnicate"}, "unknown op 'frobnicate'"},
      {{"--plain-modulus", "65536", "--ops", "rotate"}, "rotate needs batching; t = 65536"},
      {{"--plain-modulus", "65536", "--rotate-step", "2"}, "--rotate-step 2: rotations need"},
      {{"--rotate-step", "0"}, "--rotate-step: 0"},
      {{"--rotate-step", "2048"}, "|step| < N/2 = 2048"},
      {{"--threads", "0"}, "--threads: 0 is outside"},
      {{"--min-time", "0"}, "--min-time"},
      {{"--bogus"}, "--bogus"},
  };
  if (bgv()) {
    cases.push_back({{"--primes", "36,37", "--ops", "add,mod_switch"},
                     "mod_switch drops the last ciphertext prime, and there is only one"});
  } else {
    cases.push_back({{"--ops", "add,mod_switch"}, "unknown op 'mod_switch'"});
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args.front() + " " + c.args.back());
    expect_bad_input(run_small(c.args), c.needle);
  }
}

TEST_P(CliBenchInteger, HelpStatesWhatIsTimedAndTheBudget) {
  const auto r = run_cli({"bench", GetParam(), "--help"});
  EXPECT_EQ(r.status, 0);
  std::vector<std::string> needles = {"Usage: polyhe bench " + GetParam(),
                                      "--primes",
                                      "--special",
                                      "--plain-modulus",
                                      "--dnum",
                                      "--security",
                                      "--rotate-step",
                                      "noise_budget_after",
                                      "key generation excluded",
                                      "without decode"};
  if (bgv()) needles.insert(needles.end(), {"mod_switch", "noise_budget_after_switch", "untimed"});
  for (const std::string& s : needles) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " in " << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, CliBenchInteger, ::testing::Values("bfv", "bgv"),
                         [](const auto& c) { return c.param; });

TEST(CliBenchBgv, OneCiphertextPrimeLeavesModSwitchOut) {
  // Q = 36 bits alone (L = 0): nothing to drop, so the default list skips mod_switch, and
  // multiply_relin has no budget after a switch.
  const auto r = run_cli({"bench", "bgv", "--log-n", "12", "--primes", "36,37", "--ops",
                          "add,multiply_relin", "--min-time", "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 2U) << r.out;
  EXPECT_EQ(ms[1]["level"], 0);
  EXPECT_TRUE(ms[1].contains("noise_budget_after")) << ms[1].dump();
  EXPECT_FALSE(ms[1].contains("noise_budget_after_switch")) << ms[1].dump();

  const auto all =
      run_cli({"bench", "bgv", "--log-n", "12", "--primes", "36,37", "--min-time", "0.002"});
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(all.out.find("| mod_switch |"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("Not run: mod_switch (1 ciphertext prime (L = 0): there is no prime to "
                         "drop)."),
            std::string::npos)
      << all.out;
  const auto json = run_cli(
      {"bench", "bgv", "--log-n", "12", "--primes", "36,37", "--min-time", "0.002", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.err.find("polyhe bench: mod_switch not run: 1 ciphertext prime"),
            std::string::npos)
      << json.err;
}

// --m: BGV over Φ_m in the powerful basis; every op, rotate turning the slots, the ring in the
// JSON.
TEST(CliBenchBgv, OddMRunsEveryOpOverPhiM) {
  const auto r = run_cli({"bench", "bgv", "--m", "1155", "--primes", "40,40,41", "--security",
                          "none", "--plain-modulus", "65537", "--min-time", "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_EQ(ms.size(), 8U) << r.out;
  for (const auto& j : ms) {
    EXPECT_EQ(j["m"], 1155) << j.dump();
    EXPECT_EQ(j["phi_m"], 480) << j.dump();
    EXPECT_EQ(j["basis"], "powerful") << j.dump();
    EXPECT_EQ(j["encoder"], "slots") << j.dump();  // 65537 is prime, of small order mod 1155
  }
  // ord_1155(65537): 65537 ≡ 857 mod 1155; d divides lcm(2, 4, 6, 10) = 60.
  const auto d = line_of(ms, "encode")["slot_degree"].get<std::uint64_t>();
  EXPECT_EQ(480 % d, 0U);
  EXPECT_EQ(line_of(ms, "encode")["slots"].get<std::uint64_t>(), 480 / d);
  // With slots, rotate turns them as one row (SlotArray::rotate) by the default step 1.
  EXPECT_EQ(line_of(ms, "rotate")["rotate_step"], 1);
  EXPECT_EQ(line_of(ms, "rotate")["rotation"], "slots");
  EXPECT_FALSE(line_of(ms, "rotate").contains("galois_element"));
  EXPECT_GT(line_of(ms, "multiply_relin")["noise_budget_after_switch"].get<int>(), 0);

  const auto text = run_cli({"bench", "bgv", "--m", "1155", "--primes", "40,40,41", "--security",
                             "none", "--ops", "encode", "--min-time", "0.002"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("m = 1155 (Phi_m of degree 480, powerful basis)"), std::string::npos)
      << text.out;

  // t = 2^16 has slots of the Galois ring GR(2^16, d), rotated as a row like GF(t^d)'s.
  const auto ring =
      run_cli({"bench", "bgv", "--m", "1155", "--primes", "40,40,41", "--security", "none",
               "--plain-modulus", "65536", "--ops", "rotate", "--min-time", "0.002"});
  ASSERT_EQ(ring.status, 0) << ring.err;
  EXPECT_NE(ring.out.find("slots of GR(2^16, d)"), std::string::npos) << ring.out;
  EXPECT_NE(ring.out.find("SlotArray::rotate"), std::string::npos) << ring.out;

  // Without slots (t = 2^4 · 17 · 241, not a prime power), rotate is the key-switched
  // automorphism X -> X^2.
  const auto raw =
      run_cli({"bench", "bgv", "--m", "1155", "--primes", "40,40,41", "--security", "none",
               "--plain-modulus", "65552", "--ops", "rotate", "--min-time", "0.002", "--json"});
  ASSERT_EQ(raw.status, 0) << raw.err;
  const auto raw_ms = json_lines(raw.out);
  EXPECT_EQ(line_of(raw_ms, "rotate")["galois_element"], 2);
  EXPECT_FALSE(line_of(raw_ms, "rotate").contains("rotate_step"));
}

// --m on a device: the rings RingContext::device_serves (φ(m) a power of two on the fused route),
// every op on the emulated device.
TEST(CliBenchBgv, OddMRunsOnTheEmulatedDevice) {
  const auto r = run_cli({"bench", "bgv", "--m", "255", "--primes", "40,40,41", "--security",
                          "none", "--plain-modulus", "257", "--backend", "cuda-emulated",
                          "--min-time", "0.002", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ms = json_lines(r.out);
  ASSERT_FALSE(ms.empty());
  for (const auto& m : ms) EXPECT_EQ(m["backend"], "cuda-emulated") << m.dump();
  EXPECT_GT(line_of(ms, "multiply_relin")["median_ns"].get<double>(), 0);
  EXPECT_GT(line_of(ms, "rotate")["median_ns"].get<double>(), 0);
}

TEST(CliBenchBgv, OddMRefusesWhatItCannotRun) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "bgv", "--m", "1155", "--log-n", "12"}, "not both"},
      {{"bench", "bgv", "--m", "1154"}, "is not odd"},
      {{"bench", "bgv", "--m", "1155", "--plain-modulus", "77"}, "coprime to m = 1155"},
      {{"bench", "bgv", "--m", "1155", "--plain-modulus", "65552", "--rotate-step", "2"},
       "X -> X^2"},
      {{"bench", "bgv", "--m", "1155", "--rotate-step", "0"}, "need 0 < |step| < k"},
      {{"bench", "bgv", "--m", "3", "--security", "none", "--ops", "rotate"}, "has one slot"},
      // φ(1155) = 480: not a ring a device serves, refused by name when the keys are placed.
      {{"bench", "bgv", "--m", "1155", "--primes", "40,40,41", "--security", "none", "--backend",
        "cuda-emulated"},
       "Phi_1155 (odd m, phi(m) = 480) has no device transforms"},
      {{"bench", "bfv", "--m", "1155"}, "--m"},
  };
  for (const auto& [args, needle] : cases) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args[2];
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace polyhe::test
