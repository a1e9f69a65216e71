// Shared helpers for the CKKS tests: parameter sets, random slot vectors, precision in bits.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/encoder.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/test_rng.hpp"

namespace polyhe::ckks::test {

using Vec = std::vector<std::complex<double>>;

struct Case {
  int log_n;
  std::vector<int> q_bits;
  std::vector<int> p_bits;
  std::size_t dnum;  // 0 = default
  int scale_bits;
};

inline rlwe::ParametersPtr make_params(const Case& c) {
  rlwe::ParametersLiteral lit;
  lit.log_n = c.log_n;
  lit.q_bits = c.q_bits;
  lit.p_bits = c.p_bits;
  lit.dnum = c.dnum;
  lit.security = rlwe::SecurityLevel::insecure_none;  // deep chains at small N for speed
  return rlwe::Parameters::create(lit);
}

inline polyhe::Seed make_seed(polyhe::test::TestRng& rng) {
  polyhe::Seed s;
  for (auto& b : s) b = static_cast<std::uint8_t>(rng.bits());
  return s;
}

/// Values uniform in the unit disc.
inline Vec random_values(polyhe::test::TestRng& rng, std::size_t count) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vec v(count);
  for (auto& z : v) {
    do {
      z = {u(rng.engine()), u(rng.engine())};
    } while (std::abs(z) > 1.0);
  }
  return v;
}

/// Values on the unit circle (powers stay of magnitude 1).
inline Vec random_unit(polyhe::test::TestRng& rng, std::size_t count) {
  std::uniform_real_distribution<double> u(0.0, 2 * M_PI);
  Vec v(count);
  for (auto& z : v) z = std::polar(1.0, u(rng.engine()));
  return v;
}

/// −log2 of the largest slot error: the bits of precision.
inline double precision_bits(const Vec& expected, const Vec& got) {
  double worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(expected[i] - got[i]));
  }
  return worst == 0 ? 64.0 : -std::log2(worst);
}

inline Vec rotated(const Vec& v, std::int64_t step) {
  const auto n = static_cast<std::int64_t>(v.size());
  Vec out(v.size());
  for (std::int64_t j = 0; j < n; ++j) out[j] = v[((j + step) % n + n) % n];
  return out;
}

}  // namespace polyhe::ckks::test
