// `polyhe polymul` in-process: every class of bad input is exit status 2 with one line naming the
// problem; good input gives the negacyclic product.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/variant.hpp"
#include "reference/negacyclic.hpp"
#include "run_cli.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {
namespace {

struct BadInput {
  const char* name;
  std::string input;
  std::string needle;  // must appear in the error line
};

// Named by its case alone: the inputs are long, and ctest shows the parameter in the test name.
void PrintTo(const BadInput& b, std::ostream* os) {
  *os << b.name;
}

std::string zeros(std::size_t n) {
  std::string s = "[";
  for (std::size_t i = 0; i < n; ++i) s += i ? ",0" : "0";
  return s + "]";
}

const std::string kAB = R"("a":[1,2,3,4],"b":[5,6,7,8])";

std::vector<BadInput> bad_inputs() {
  return {
      {"MalformedJson", "{bad", "malformed JSON"},
      {"EmptyInput", "", "malformed JSON"},
      {"TrailingGarbage", R"({"q":17,)" + kAB + "} x", "malformed JSON"},
      {"InvalidUtf8", "{\"q\":\"\xff\"}", "malformed JSON"},
      {"TopLevelArray", "[1,2]", "not an object"},
      {"TopLevelNumber", "17", "not an object"},
      {"DeepNesting", std::string(100000, '[') + std::string(100000, ']'), "not an object"},
      {"DeepNestingInside", R"({"q":17,"a":)" + std::string(100000, '['), "a[0]"},
      {"UnknownKey", R"({"q":17,"x":1,)" + kAB + "}", "unknown key \"x\""},
      {"UnknownKeyWithNewline", R"({"q":17,"x\ny":1,)" + kAB + "}", "unknown key"},
      {"DuplicateKey", R"({"q":17,)" + kAB + R"(,"a":[1]})", "duplicate key \"a\""},
      {"MissingQ", "{" + kAB + "}", "missing key \"q\""},
      {"MissingA", R"({"q":17,"b":[5,6,7,8]})", "missing key \"a\""},
      {"MissingB", R"({"q":17,"a":[1,2,3,4]})", "missing key \"b\""},
      {"ANotArray", R"({"q":17,"a":5,"b":[5,6,7,8]})", "a must be an array"},
      {"BNotArray", R"({"q":17,"a":[1,2,3,4],"b":"5678"})", "b must be an array"},
      {"BIsObject", R"({"q":17,"a":[1,2,3,4],"b":{}})", "b must be an array"},
      {"QArray", R"({"q":[17],)" + kAB + "}", "q must be an integer"},
      {"QNull", R"({"q":null,)" + kAB + "}", "q must be an integer"},
      {"NestedCoefficient", R"({"q":17,"a":[1,2,3,[4]],"b":[5,6,7,8]})", "a[3] must be an integer"},
      {"NullCoefficient", R"({"q":17,"a":[null,2,3,4],"b":[5,6,7,8]})", "a[0] must be an integer"},
      {"BoolCoefficient", R"({"q":17,"a":[1,2,3,4],"b":[5,true,7,8]})", "b[1] must be an integer"},
      {"ObjectCoefficient", R"({"q":17,"a":[1,{},3,4],"b":[5,6,7,8]})", "a[1] must be an integer"},
      {"NegativeCoefficient", R"({"q":17,"a":[1,-3,3,4],"b":[5,6,7,8]})", "a[1] = -3 is negative"},
      {"NegativeQ", R"({"q":-17,)" + kAB + "}", "q = -17 is negative"},
      {"FloatCoefficient", R"({"q":17,"a":[1.5,2,3,4],"b":[5,6,7,8]})",
       "a[0] = 1.5 is not an integer"},
      {"IntegralFloat", R"({"q":17,"a":[1,2,3,4.0],"b":[5,6,7,8]})",
       "a[3] = 4.0 is not an integer"},
      {"ExponentCoefficient", R"({"q":17,"a":[1e3,2,3,4],"b":[5,6,7,8]})",
       "a[0] = 1e3 is not an integer"},
      {"FloatQ", R"({"q":17.0,)" + kAB + "}", "q = 17.0 is not an integer"},
      {"HugeNegative", R"({"q":17,"a":[-99999999999999999999,2,3,4],"b":[5,6,7,8]})",
       "is negative"},
      {"NumberAbove64Bits", R"({"q":18446744073709551616,)" + kAB + "}",
       "q = 18446744073709551616 exceeds 2^64 - 1"},
      {"StringAbove64Bits", R"({"q":17,"a":["18446744073709551616",2,3,4],"b":[5,6,7,8]})",
       "a[0] = \"18446744073709551616\" exceeds 2^64 - 1"},
      {"StringFarAbove64Bits", R"({"q":"99999999999999999999999999",)" + kAB + "}", "exceeds"},
      {"StringPlusSign", R"({"q":17,"a":["+1",2,3,4],"b":[5,6,7,8]})",
       "a[0] = \"+1\" is not a decimal integer"},
      {"StringMinusSign", R"({"q":17,"a":["-1",2,3,4],"b":[5,6,7,8]})",
       "a[0] = \"-1\" is not a decimal"},
      {"StringLeadingSpace", R"({"q":17,"a":[" 1",2,3,4],"b":[5,6,7,8]})", "a[0] = \" 1\""},
      {"StringTrailingSpace", R"({"q":"17 ",)" + kAB + "}", "q = \"17 \" is not a decimal"},
      {"StringHex", R"({"q":"0x11",)" + kAB + "}", "q = \"0x11\" is not a decimal"},
      {"StringFraction", R"({"q":17,"a":[1,2,3,4],"b":[5,6,"7.0",8]})", "b[2] = \"7.0\""},
      {"StringEmpty", R"({"q":17,"a":["",2,3,4],"b":[5,6,7,8]})", "a[0] = \"\" is empty"},
      {"EmptyArrays", R"({"q":17,"a":[],"b":[]})", "a is empty"},
      {"EmptyB", R"({"q":17,"a":[1,2,3,4],"b":[]})", "b is empty"},
      {"LengthOne", R"({"q":17,"a":[1],"b":[5]})", "N = 1"},
      {"UnequalLengths", R"({"q":17,"a":[1,2,3,4],"b":[5,6]})", "a has 4 coefficients but b has 2"},
      {"NotPowerOfTwo", R"({"q":17,"a":[1,2,3],"b":[5,6,7]})", "N = 3"},
      {"NotPowerOfTwo6", R"({"q":13,"a":[1,2,3,4,5,6],"b":[1,2,3,4,5,6]})", "N = 6"},
      {"TooLong", R"({"q":17,"a":)" + zeros((1U << 17) + 1) + "}", "more than 131072"},
      // The reader keeps a token and the whitespace before it: input is bounded before parsing.
      {"TooManyBytes",
       R"({"q":17,"a":[1,2,3,4],)" + std::string((16U << 20) + 1, ' ') + R"("b":[5,6,7,8]})",
       "the input exceeds 16 MiB"},
      {"HugeStringToken", R"({"q":")" + std::string(17U << 20, '1') + R"("})",
       "the input exceeds 16 MiB"},
      {"CoefficientEqualsQ", R"({"q":17,"a":[1,2,17,4],"b":[5,6,7,8]})",
       "a[2] = 17 is not below q = 17"},
      {"CoefficientAboveQ", R"({"q":17,"a":[1,2,3,4],"b":[5,6,7,100]})",
       "b[3] = 100 is not below q = 17"},
      {"QNotPrime", R"({"q":15,)" + kAB + "}", "q = 15 is not prime"},
      {"QZero", R"({"q":0,)" + kAB + "}", "q = 0"},
      {"QOne", R"({"q":"1",)" + kAB + "}", "q = 1"},
      {"QNotOneMod2N", R"({"q":13,)" + kAB + "}", "q = 13 is not 1 mod 2N = 8"},
      {"Q63Bits", R"({"q":9223372036854775783,)" + kAB + "}",
       "q = 9223372036854775783 is too large"},
      {"Q64Bits", R"({"q":"18446744073709551557",)" + kAB + "}", "is too large"},
      {"QMax", R"({"q":18446744073709551615,)" + kAB + "}", "is too large"},
  };
}

class CliPolymulBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliPolymulBadInput, ExitsTwoWithOneLineNamingTheProblem) {
  expect_bad_input(run_cli({"polymul"}, GetParam().input), GetParam().needle);
  expect_bad_input(run_cli({"polymul", "--fused"}, GetParam().input), GetParam().needle);
}

INSTANTIATE_TEST_SUITE_P(AllClasses, CliPolymulBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& p) { return std::string(p.param.name); });

// a = 1 + 2x + 3x^2 + 4x^3, b = 5 + 6x + 7x^2 + 8x^3 mod (x^4 + 1, 17), by hand:
//   c0 = 1·5 − (2·8 + 3·7 + 4·6) = −56 ≡ 12
//   c1 = 1·6 + 2·5 − (3·8 + 4·7) = −36 ≡ 15
//   c2 = 1·7 + 2·6 + 3·5 − 4·8  =   2
//   c3 = 1·8 + 2·7 + 3·6 + 4·5  =  60 ≡ 9
const std::string kSmallProduct = "{\"c\":[\"12\",\"15\",\"2\",\"9\"]}\n";

TEST(CliPolymul, HandComputedProduct) {
  const auto r = run_cli({"polymul"}, R"({"q":17,"a":[1,2,3,4],"b":[5,6,7,8]})");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kSmallProduct);
  EXPECT_EQ(r.err, "");
}

TEST(CliPolymul, StringsAndNumbersGiveTheSameOutput) {
  for (const std::string input : {
           R"({"q":"17","a":["1","2","3","4"],"b":["5","6","7","8"]})",
           R"({"b":[5,"6",7,"8"],"a":["1",2,"3",4],"q":17})",
           " {\n  \"q\" : 17,\n  \"a\" : [ 1, 2, 3, 4 ],\n  \"b\" : [5,6,7,8]\n}\n\n",
       }) {
    const auto r = run_cli({"polymul"}, input);
    EXPECT_EQ(r.status, 0) << input << r.err;
    EXPECT_EQ(r.out, kSmallProduct) << input;
  }
}

TEST(CliPolymul, EveryVariantFusedOrNotGivesTheSameProduct) {
  for (NttVariant v : kAllNttVariants) {
    for (bool fused : {false, true}) {
      std::vector<std::string> args = {"polymul", "--variant", std::string(to_string(v))};
      if (fused) args.emplace_back("--fused");
      const auto r = run_cli(args, R"({"q":17,"a":[1,2,3,4],"b":[5,6,7,8]})");
      EXPECT_EQ(r.status, 0) << to_string(v) << ' ' << r.err;
      EXPECT_EQ(r.out, kSmallProduct) << to_string(v) << (fused ? " fused" : "");
    }
  }
}

TEST(CliPolymul, UnknownVariantIsBadUsage) {
  expect_bad_input(
      run_cli({"polymul", "--variant", "fast"}, R"({"q":17,"a":[1,2,3,4],"b":[5,6,7,8]})"),
      "unknown NTT variant 'fast'");
}

TEST(CliPolymul, VariantThatCannotServeQIsBadInput) {
  const std::uint64_t q = ntt_primes(62, 4, 1).at(0);
  expect_bad_input(run_cli({"polymul", "--variant", "barrett-dq"},
                           "{\"q\":" + std::to_string(q) + ",\"a\":[1,2,3,4],\"b\":[5,6,7,8]}"),
                   "barrett-dq");
}

std::string json_poly(const std::vector<std::uint64_t>& p, bool strings) {
  std::string s = "[";
  for (std::size_t i = 0; i < p.size(); ++i) {
    s += i ? "," : "";
    if (strings) s += '"';
    s += std::to_string(p[i]);
    if (strings) s += '"';
  }
  return s + "]";
}

std::string expected_output(const std::vector<std::uint64_t>& c) {
  return "{\"c\":" + json_poly(c, true) + "}\n";
}

TEST(CliPolymul, SixtyTwoBitPrimeAtTheEdges) {
  const std::uint64_t q = ntt_primes(62, 8, 1).at(0);
  ASSERT_EQ(bit_length(q), 62);
  const std::vector<std::uint64_t> a = {q - 1, q - 2, 0, 1, q - 1, 2, q / 2, q - 1};
  const std::vector<std::uint64_t> b = {q - 1, 1, q - 1, q / 3, 0, q - 1, 5, q - 2};
  const std::string want = expected_output(schoolbook_negacyclic(a, b, q));
  for (bool strings : {false, true}) {
    const std::string input = "{\"q\":\"" + std::to_string(q) +
                              "\",\"a\":" + json_poly(a, strings) +
                              ",\"b\":" + json_poly(b, strings) + "}";
    for (const char* flag : {"--variant=shoup-lazy", "--fused"}) {
      const auto r = run_cli({"polymul", flag}, input);
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(r.out, want) << flag;
    }
  }
}

TEST(CliPolymul, RandomInputsAgainstSchoolbook) {
  POLYHE_SEEDED_RNG(rng);
  for (int bits : {30, 50, 62}) {
    const std::size_t n = 256;
    const std::uint64_t q = ntt_primes(bits, n, 1).at(0);
    std::vector<std::uint64_t> a(n), b(n);
    for (auto& x : a) x = rng.uniform(0, q - 1);
    for (auto& x : b) x = rng.uniform(0, q - 1);
    const std::string input = "{\"q\":" + std::to_string(q) + ",\"a\":" + json_poly(a, false) +
                              ",\"b\":" + json_poly(b, true) + "}";
    const auto r = run_cli({"polymul", "--fused"}, input);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, expected_output(schoolbook_negacyclic(a, b, q))) << bits << " bits";
  }
}

TEST(CliPolymul, LargestLengthIsAccepted) {
  const std::size_t n = std::size_t{1} << 17;
  const std::uint64_t q = ntt_primes(40, n, 1).at(0);
  std::string one = "[1";
  for (std::size_t i = 1; i < n; ++i) one += ",0";
  one += "]";
  const auto r = run_cli(
      {"polymul"}, "{\"q\":" + std::to_string(q) + ",\"a\":" + one + ",\"b\":" + zeros(n) + "}");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"c\":[\"0\",\"0\",", 0), 0U);
}

}  // namespace
}  // namespace polyhe::test
