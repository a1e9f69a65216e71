// Rescale by the last prime: floor and round, exactly equal to big-integer division.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/rescale.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

class Rescale : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Rescale, FloorAndRoundEqualBigIntegerDivision) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis basis(test::random_primes(rng, GetParam(), 30, 62));
  const Rescaler rs(basis);
  ASSERT_EQ(rs.to(), basis.prefix(basis.size() - 1));
  test::BigRng gmp(rng);
  const std::size_t n = 64;
  const std::uint64_t q_last = basis.prime(basis.size() - 1);
  const mpz_class& q_top = big_product(rs.to());
  auto values = test::random_values(gmp, big_product(basis), n);
  // x ≡ ⌊q_L/2⌋ and ⌊q_L/2⌋ + 1 mod q_L: where floor and round part.
  values[n - 2] = gmp.get_z_range(q_top) * static_cast<unsigned long>(q_last) + q_last / 2;
  values[n - 1] = values[n - 2] + 1;
  const auto in = test::to_limbs(values, basis);
  std::vector<std::uint64_t> fl(rs.to().size() * n), rd(rs.to().size() * n);
  rs.floor(in, fl);
  rs.round(in, rd);
  const auto got_fl = to_bigint(fl, rs.to());
  const auto got_rd = to_bigint(rd, rs.to());
  for (std::size_t c = 0; c < n; ++c) {
    const mpz_class want_fl = values[c] / static_cast<unsigned long>(q_last);
    const mpz_class want_rd = (values[c] + q_last / 2) / static_cast<unsigned long>(q_last);
    EXPECT_EQ(got_fl[c], want_fl % q_top) << "x = " << values[c].get_str();
    EXPECT_EQ(got_rd[c], want_rd % q_top) << "x = " << values[c].get_str();
  }
  // In place, and threaded, give the same words.
  auto inplace = in;
  rs.round(inplace, std::span<std::uint64_t>(inplace).first(rd.size()), 2);
  EXPECT_TRUE(std::equal(rd.begin(), rd.end(), inplace.begin()));
}

INSTANTIATE_TEST_SUITE_P(Limbs, Rescale, ::testing::Values(2, 3, 5, 12, 30));

TEST(RescaleLarge, ThreadedEqualsInline) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis basis(test::random_primes(rng, 6, 40, 62));
  const Rescaler rs(basis);
  const std::size_t n = std::size_t{1} << 14;
  std::vector<std::uint64_t> x(basis.size() * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0, basis.prime(i / n) - 1);
  std::vector<std::uint64_t> a(rs.to().size() * n), b(a.size());
  rs.floor(x, a, 1);
  rs.floor(x, b, 0);
  EXPECT_EQ(a, b);
  const mpz_class v = to_bigint(x, basis, 12345);
  EXPECT_EQ(to_bigint(a, rs.to(), 12345), v / static_cast<unsigned long>(basis.prime(5)));
}

TEST(RescaleErrors, RejectBadShapes) {
  const RnsBasis one(std::vector<std::uint64_t>{1073741789ULL});
  try {
    Rescaler r(one);
    ADD_FAILURE() << "a one-prime basis was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("1 prime"), std::string::npos) << e.what();
  }
  const Rescaler rs(RnsBasis(std::vector<std::uint64_t>{1073741789ULL, 1152921504606846883ULL}));
  std::vector<std::uint64_t> in(8), out(4), bad(3);
  rs.floor(in, out);
  EXPECT_THROW(rs.floor(in, bad), InvalidParameter);
  EXPECT_THROW(rs.floor(bad, out), InvalidParameter);
  EXPECT_THROW(rs.floor(in, std::span<std::uint64_t>(in).subspan(2, 4)), InvalidParameter);
}

}  // namespace
}  // namespace polyhe
