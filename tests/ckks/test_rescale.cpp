// Evaluator::rescale and rescale_inplace word for word against the definition, on every CPU
// path (CTest runs this binary once per path, with POLYHE_CPU set): each part leaves evaluation
// form limb by limb, is divided by q_l with rounding by the RNS rescaler (exact, tested against
// big integers in tests/rns), and returns to evaluation form. The evaluator fuses the lift of
// the last limb, the transforms and the subtraction (NttPlan::forward_lifted); the words must
// agree exactly, at every level, for ciphertexts of 2 and 3 parts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhe/polyhe.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;
using ckks::Ciphertext;

using EvaluatorRescale = test::CpuPathTest;

/// round(x/q_l) of one part, through coefficient form.
std::vector<u64> reference(const rlwe::Parameters& params, std::span<const u64> x,
                           std::size_t level) {
  const std::size_t n = params.n();
  const auto plans = params.ring()->plans(level + 1);
  std::vector<u64> coef(x.begin(), x.begin() + static_cast<std::ptrdiff_t>((level + 1) * n));
  for (std::size_t i = 0; i <= level; ++i) plans[i]->inverse(std::span(coef).subspan(i * n, n));
  std::vector<u64> out(level * n);
  params.rescaler(level).round(coef, out, 1);
  for (std::size_t i = 0; i < level; ++i) plans[i]->forward(std::span(out).subspan(i * n, n));
  return out;
}

struct Chain {
  int log_n;
  std::vector<int> q_bits;
  int p_bits;
};

TEST_F(EvaluatorRescale, EqualsTheDefinitionAtEveryLevel) {
  POLYHE_SEEDED_RNG(rng);
  // 40-bit primes take the IFMA kernel's uncorrected schedule, 50-bit ones its corrected one,
  // 60-bit ones the AVX-512 kernel (no fused form); n = 64 has no fused form either; from
  // n = 2^15 the transforms run in a scratch rather than in the output.
  const std::vector<Chain> chains = {{6, {50, 40, 40}, 50},
                                     {10, {50, 40, 40, 40}, 50},
                                     {12, {60, 50, 40, 50, 60}, 61},
                                     {14, {50, 40, 40}, 50},
                                     {15, {50, 40, 40}, 50}};
  for (const Chain& ch : chains) {
    rlwe::ParametersLiteral lit;
    lit.log_n = ch.log_n;
    lit.q_bits = ch.q_bits;
    lit.p_bits = {ch.p_bits};
    lit.security = rlwe::SecurityLevel::insecure_none;
    const auto params = rlwe::Parameters::create(lit);
    const ckks::Evaluator eval(params);
    const std::size_t n = params->n();
    for (std::size_t level = params->max_level(); level >= 1; --level) {
      for (std::size_t size : {2, 3}) {
        Ciphertext ct(params, level, size, 1.0, RnsPoly::kForOverwrite);
        for (std::size_t p = 0; p < size; ++p) {
          const auto d = ct[p].data();
          for (std::size_t i = 0; i <= level; ++i) {
            const u64 q = params->q_primes()[i];
            for (std::size_t j = 0; j < n; ++j) d[i * n + j] = rng.uniform(0, q - 1);
            d[i * n] = 0;
            d[i * n + 1] = q - 1;
          }
        }
        const std::string where = "N=" + std::to_string(n) + " level " + std::to_string(level) +
                                  " size " + std::to_string(size) + " path " +
                                  std::string(to_string(path_));
        const Ciphertext out = eval.rescale(ct);
        Ciphertext in_place = ct;
        eval.rescale_inplace(in_place);
        ASSERT_EQ(out.level(), level - 1) << where;
        ASSERT_EQ(in_place.level(), level - 1) << where;
        for (std::size_t p = 0; p < size; ++p) {
          const auto want = reference(*params, ct[p].data(), level);
          const auto got = out[p].data();
          const auto got_in_place = in_place[p].data();
          ASSERT_EQ(std::vector<u64>(got.begin(), got.end()), want) << where << " part " << p;
          ASSERT_EQ(std::vector<u64>(got_in_place.begin(), got_in_place.end()), want)
              << where << " part " << p << " (in place)";
        }
      }
    }
  }
}

}  // namespace
}  // namespace polyhe
