// BFV decryption rounding (BEHZ/SEAL with the redundant prime γ): noisy encodings decrypt exactly
// up to the documented noise bound, and every input gives GMP's round(t·x/Q) mod t outside the
// documented window (inside it, exactly what the algorithm's integer model predicts).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/decrypt_rounder.hpp"
#include "rns/rns_cases.hpp"

namespace polyhe {
namespace {

struct BasisCase {
  std::size_t limbs;
  int lo, hi;  // prime sizes, bits
};

enum class PlainKind { two, three, f4, bits20, bits40, bits59, even16, even40, max };

const char* name(PlainKind k) {
  switch (k) {
    case PlainKind::two: return "t2";
    case PlainKind::three: return "t3";
    case PlainKind::f4: return "t65537";
    case PlainKind::bits20: return "t20bit";
    case PlainKind::bits40: return "t40bit";
    case PlainKind::bits59: return "t59bit";
    case PlainKind::even16: return "t65536";
    case PlainKind::even40: return "t40bitEven";
    case PlainKind::max: return "t2pow60minus1";
  }
  return "?";
}

bool coprime(std::uint64_t t, const RnsBasis& q) {
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (t % q.prime(i) == 0) return false;
  }
  return true;
}

/// A plaintext modulus of the kind, coprime to Q (random kinds are redrawn until it is).
std::uint64_t make_t(test::TestRng& rng, PlainKind kind, const RnsBasis& q) {
  auto random_bits = [&](int bits, bool even) {
    for (;;) {
      std::uint64_t t = rng.uniform(std::uint64_t{1} << (bits - 1), (std::uint64_t{1} << bits) - 1);
      if (even) t &= ~std::uint64_t{1};
      if (coprime(t, q)) return t;
    }
  };
  switch (kind) {
    case PlainKind::two: return 2;
    case PlainKind::three: return 3;
    case PlainKind::f4: return 65537;
    case PlainKind::bits20: return random_bits(20, false);
    case PlainKind::bits40: return random_bits(40, false);
    case PlainKind::bits59: return random_bits(59, false);
    case PlainKind::even16: return 65536;
    case PlainKind::even40: return random_bits(40, true);
    case PlainKind::max: return BfvDecryptRounder::kMaxPlainModulus;
  }
  return 2;
}

/// round(a/b) = ⌊(2a + b)/(2b)⌋ for b > 0 and any sign of a (halves up).
mpz_class round_div(const mpz_class& a, const mpz_class& b) {
  mpz_class q;
  const mpz_class num = 2 * a + b;
  const mpz_class den = 2 * b;
  mpz_fdiv_q(q.get_mpz_t(), num.get_mpz_t(), den.get_mpz_t());
  return q;
}

std::uint64_t mod_u64(const mpz_class& x, std::uint64_t m) {
  return mpz_fdiv_ui(x.get_mpz_t(), m);
}

/// What the algorithm computes, in exact integers: S = Σ τ_i·q̂_i with τ_i = [x_i·γ·t·q̂_i^−1]_{q_i},
/// W = (γ·t·x − S)/Q, e = W centred mod γ, A = (W − e)/γ; the output is A mod t.
mpz_class model(const mpz_class& x, const RnsBasis& q, std::uint64_t t, std::uint64_t gamma) {
  mpz_class s = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    const std::uint64_t qi = q.prime(i);
    const mpz_class tau = mpz_class(x * static_cast<unsigned long>(gamma) *
                                    static_cast<unsigned long>(t) * q.q_hat_inverse(i).w) %
                          static_cast<unsigned long>(qi);
    s += tau * big_q_hat(q, i);
  }
  const mpz_class w =
      (x * static_cast<unsigned long>(gamma) * static_cast<unsigned long>(t) - s) / big_product(q);
  const mpz_class e = centre(w, mpz_class(static_cast<unsigned long>(gamma)));
  return (w - e) / static_cast<unsigned long>(gamma);
}

/// Checks out[c] for x = values[c]: always the integer model; GMP's round(t·x/Q) mod t outside
/// the window frac(t·x/Q) ∈ [1/2, 1/2 + L/γ); inside it, that or one less. Returns how many
/// values were in the window and how many of those came out one less.
std::pair<std::size_t, std::size_t> check_against_gmp(const BfvDecryptRounder& dec,
                                                      const std::vector<mpz_class>& values,
                                                      const std::vector<std::uint64_t>& out) {
  const RnsBasis& q = dec.basis();
  const std::uint64_t t = dec.plain_modulus();
  const mpz_class& big_q = big_product(q);
  const mpz_class gamma = static_cast<unsigned long>(dec.gamma());
  const auto nq = static_cast<unsigned long>(q.size());
  std::size_t in_window = 0, one_less = 0;
  for (std::size_t c = 0; c < values.size(); ++c) {
    const mpz_class tx = values[c] * t;
    const std::uint64_t want = mod_u64(round_div(tx, big_q), t);
    const mpz_class rem = tx % big_q;  // frac(t·x/Q) = rem/Q
    const bool window = 2 * rem >= big_q && gamma * (2 * rem - big_q) < 2 * nq * big_q;
    EXPECT_LT(out[c], t);
    EXPECT_EQ(out[c], mod_u64(model(values[c], q, t, dec.gamma()), t))
        << "coefficient " << c << " x = " << values[c].get_str();
    if (!window) {
      EXPECT_EQ(out[c], want) << "coefficient " << c << " x = " << values[c].get_str();
      continue;
    }
    ++in_window;
    if (out[c] != want) {
      ++one_less;
      EXPECT_EQ(out[c], (want + t - 1) % t) << "x = " << values[c].get_str();
    }
  }
  return {in_window, one_less};
}

class DecryptRounder : public ::testing::TestWithParam<std::tuple<BasisCase, PlainKind>> {
 protected:
  void SetUp() override {
    const auto& [bc, kind] = GetParam();
    rng_ = std::make_unique<test::TestRng>(
        std::hash<std::string>{}(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    basis_ = std::make_unique<RnsBasis>(test::random_primes(*rng_, bc.limbs, bc.lo, bc.hi));
    t_ = make_t(*rng_, kind, *basis_);
  }
  std::unique_ptr<test::TestRng> rng_;
  std::unique_ptr<RnsBasis> basis_;
  std::uint64_t t_ = 0;
};

// x = Δ·m + v (+ a multiple of Q) with |v| up to bfv_max_noise(), the extremes included: exactly m.
TEST_P(DecryptRounder, NoisyEncodingsUpToTheBoundDecryptExactly) {
  SCOPED_TRACE(test::replay_hint());
  const RnsBasis& q = *basis_;
  const BfvDecryptRounder dec(q, t_);
  const mpz_class& big_q = big_product(q);
  const mpz_class bound = bfv_max_noise(dec);
  if (bound < 0) {
    // Q is too small for this t: no noise bound; RandomValuesMatchGmpOutsideTheWindow still runs.
    EXPECT_LT(big_q, mpz_class(2) * t_ * t_ * 4) << "a negative bound needs Q < 8t^2";
    return;
  }
  // Against the derivation: t·V + r·(t − 1) ≤ Q·(1/2 − L/γ), and V + 1 breaks it.
  const mpz_class r = mod_u64(big_q, t_);
  const auto lhs = [&](const mpz_class& v) -> mpz_class {
    return 2 * mpz_class(dec.gamma()) * (t_ * v + r * (t_ - 1));
  };
  const mpz_class rhs =
      mpz_class(dec.gamma()) * big_q - 2 * static_cast<unsigned long>(q.size()) * big_q;
  EXPECT_LE(lhs(bound), rhs);
  EXPECT_GT(lhs(bound + 1), rhs);

  test::BigRng gmp(*rng_);
  const std::size_t n = 512;
  const mpz_class delta = big_q / static_cast<unsigned long>(t_);
  std::vector<mpz_class> values(n);
  std::vector<std::uint64_t> messages(n);
  for (std::size_t c = 0; c < n; ++c) {
    std::uint64_t m = rng_->uniform(0, t_ - 1);
    mpz_class v = gmp.get_z_range(2 * bound + 1) - bound;
    switch (c % 8) {  // the extremes: m ∈ {0, t − 1} against v = ±V
      case 0: m = 0, v = bound; break;
      case 1: m = t_ - 1, v = -bound; break;
      case 2: m = t_ - 1, v = bound; break;
      case 3: m = 0, v = -bound; break;
      case 4: v = 0; break;
      default: break;
    }
    messages[c] = m;
    // A multiple of Q on top changes nothing modulo Q (from_bigint reduces any integer).
    values[c] = delta * m + v + big_q * static_cast<long>(rng_->uniform(0, 4) - 2);
  }
  const auto x = test::to_limbs(values, q);
  std::vector<std::uint64_t> got(n);
  dec.round(x, got);
  for (std::size_t c = 0; c < n; ++c) {
    ASSERT_EQ(got[c], messages[c])
        << "coefficient " << c << " t = " << t_ << " x = " << values[c].get_str();
  }
}

// Any x ∈ [0, Q): the output equals the integer model of the algorithm always, and GMP's
// round(t·x/Q) mod t unless frac(t·x/Q) ∈ [1/2, 1/2 + L/γ), where it may be one less.
TEST_P(DecryptRounder, RandomValuesMatchGmpOutsideTheWindow) {
  SCOPED_TRACE(test::replay_hint());
  const RnsBasis& q = *basis_;
  const BfvDecryptRounder dec(q, t_);
  const mpz_class& big_q = big_product(q);
  const mpz_class gamma = static_cast<unsigned long>(dec.gamma());
  const auto nq = static_cast<unsigned long>(q.size());
  test::BigRng gmp(*rng_);
  const std::size_t n = 600;
  auto values = test::random_values(gmp, big_q, n - 40);  // 0, 1, Q − 1, ⌊Q/2⌋, ⌊Q/2⌋ + 1 first
  // x with t·x ≡ c (mod Q) for c straddling Q/2 and the window's far edge Q/2 + L·Q/γ.
  const mpz_class t_inv = [&] {
    mpz_class inv;
    const mpz_class tz(static_cast<unsigned long>(t_));
    mpz_invert(inv.get_mpz_t(), tz.get_mpz_t(), big_q.get_mpz_t());
    return inv;
  }();
  const mpz_class far_edge = big_q / 2 + nq * big_q / gamma;
  for (long d = -10; d < 10; ++d) {
    for (const mpz_class& c : {mpz_class(big_q / 2 + 1 + d), mpz_class(far_edge + d)}) {
      values.push_back(mpz_class(mpz_class(c * t_inv) % big_q + big_q) % big_q);
    }
  }
  const auto x = test::to_limbs(values, q);
  std::vector<std::uint64_t> got(values.size());
  dec.round(x, got);
  const auto [in_window, one_less] = check_against_gmp(dec, values, got);
  // Only constructed values can be expected in the window (a uniform x lands in it with
  // probability L/γ): c = ⌊Q/2⌋ + 1 + d for d ≥ 0 (10), c = far edge + d for d ≤ 0 or 1 (12), and
  // x = ⌊Q/2⌋ + 1 (t·x/Q = t/2 + t/(2Q) for odd t). For Q above 2^6·L·γ some of them come out one
  // less (the window exists to be tested).
  EXPECT_LE(in_window, 10U + 12U + 1U);
  if (big_q > gamma * 64 * nq) {
    EXPECT_GT(one_less, 0U) << "window never exercised";
  }
}

// x = 0 and x = Q − 1 give 0 (t·(Q − 1)/Q = t − t/Q rounds to t when t < Q/2).
TEST_P(DecryptRounder, EdgeValues) {
  const RnsBasis& q = *basis_;
  const BfvDecryptRounder dec(q, t_);
  const std::vector<mpz_class> values = {0, big_product(q) - 1};
  const auto x = test::to_limbs(values, q);
  std::vector<std::uint64_t> got(2);
  dec.round(x, got);
  EXPECT_EQ(got[0], 0U);
  check_against_gmp(dec, values, got);
}

INSTANTIATE_TEST_SUITE_P(
    Bases, DecryptRounder,
    ::testing::Combine(::testing::Values(BasisCase{1, 30, 30}, BasisCase{1, 60, 60},
                                         BasisCase{2, 30, 40}, BasisCase{3, 50, 60},
                                         BasisCase{5, 30, 60}, BasisCase{8, 55, 60},
                                         BasisCase{10, 30, 60}),
                       ::testing::Values(PlainKind::two, PlainKind::three, PlainKind::f4,
                                         PlainKind::bits20, PlainKind::bits40, PlainKind::bits59,
                                         PlainKind::even16, PlainKind::even40, PlainKind::max)),
    [](const auto& tp) {
      const BasisCase& b = std::get<0>(tp.param);
      return std::to_string(b.limbs) + "x" + std::to_string(b.lo) + "_" + std::to_string(b.hi) +
             "bits_" + name(std::get<1>(tp.param));
    });

// Many coefficients over threads: every thread count gives the single-threaded words.
TEST(DecryptRounderLarge, ThreadedEqualsInline) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis q(test::random_primes(rng, 8, 50, 60));
  const BfvDecryptRounder dec(q, 65537);
  const std::size_t n = std::size_t{1} << 14;
  std::vector<std::uint64_t> x(q.size() * n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = rng.uniform(0, q.prime(i / n) - 1);
  std::vector<std::uint64_t> ref(n), got(n);
  dec.round(x, ref, 1);
  for (unsigned threads : {0U, 2U, 4U}) {
    std::fill(got.begin(), got.end(), 0);
    dec.round(x, got, threads);
    EXPECT_EQ(got, ref) << threads << " threads";
  }
  const std::vector<mpz_class> last = {to_bigint(x, q, n - 1)};
  check_against_gmp(dec, last, std::vector<std::uint64_t>{ref[n - 1]});
}

// A basis of 40 primes (several reductions of the 128-bit accumulators).
TEST(DecryptRounderLarge, ManyPrimes) {
  POLYHE_SEEDED_RNG(rng);
  const RnsBasis q(test::random_primes(rng, 40, 60, 62));
  const std::uint64_t t = (std::uint64_t{1} << 59) + 12345;
  ASSERT_TRUE(coprime(t, q));
  const BfvDecryptRounder dec(q, t);
  test::BigRng gmp(rng);
  const auto values = test::random_values(gmp, big_product(q), 64);
  const auto x = test::to_limbs(values, q);
  std::vector<std::uint64_t> got(values.size());
  dec.round(x, got);
  check_against_gmp(dec, values, got);
}

// γ: for a basis of primes below 2^52, the largest prime below 2^50 (IFMA52-friendly) that Q does
// not hold; otherwise 2^61 − 1 unless Q holds it, then the next prime below.
TEST(DecryptRounderGamma, AvoidsThePrimesOfQ) {
  std::uint64_t below50 = (std::uint64_t{1} << 50) - 1;
  while (!is_prime(below50)) below50 -= 2;
  const BfvDecryptRounder narrow(RnsBasis(std::vector<std::uint64_t>{1073741789ULL}), 65537);
  EXPECT_EQ(narrow.gamma(), below50);
  const BfvDecryptRounder narrow_taken(RnsBasis(std::vector<std::uint64_t>{1073741789ULL, below50}),
                                       65537);
  EXPECT_LT(narrow_taken.gamma(), below50);
  EXPECT_TRUE(is_prime(narrow_taken.gamma()));
  EXPECT_EQ(bit_length(narrow_taken.gamma()), 50);
  // A 55-bit prime in Q: γ goes back to 61 bits.
  std::uint64_t p55 = (std::uint64_t{1} << 55) - 1;
  while (!is_prime(p55)) p55 -= 2;
  const std::uint64_t mersenne = (std::uint64_t{1} << 61) - 1;
  const BfvDecryptRounder a(RnsBasis(std::vector<std::uint64_t>{p55}), 65537);
  EXPECT_EQ(a.gamma(), mersenne);
  const RnsBasis q(std::vector<std::uint64_t>{1073741789ULL, mersenne});
  const BfvDecryptRounder b(q, 65537);
  EXPECT_NE(b.gamma(), mersenne);
  EXPECT_TRUE(is_prime(b.gamma()));
  EXPECT_EQ(bit_length(b.gamma()), 61);
  EXPECT_DOUBLE_EQ(b.inexact_band(), 2.0 / static_cast<double>(b.gamma()));
  test::TestRng rng(7);
  test::BigRng gmp(rng);
  const auto values = test::random_values(gmp, big_product(q), 32);
  const auto x = test::to_limbs(values, q);
  std::vector<std::uint64_t> got(values.size());
  b.round(x, got);
  check_against_gmp(b, values, got);
}

void expect_message(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one naming " << needle;
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DecryptRounderErrors, NameTheOffendingValue) {
  const std::uint64_t q0 = 1073741789ULL;
  const RnsBasis q(std::vector<std::uint64_t>{q0, 1152921504606846883ULL});
  expect_message([&] { BfvDecryptRounder d(q, 0); }, "t = 0");
  expect_message([&] { BfvDecryptRounder d(q, 1); }, "t = 1");
  expect_message([&] { BfvDecryptRounder d(q, std::uint64_t{1} << 60); },
                 "t = " + std::to_string(std::uint64_t{1} << 60));
  expect_message([&] { BfvDecryptRounder d(q, 3 * q0); }, std::to_string(q0));
  expect_message([&] { BfvDecryptRounder d(q, 3 * q0); }, "t = " + std::to_string(3 * q0));

  const BfvDecryptRounder dec(q, 17);
  std::vector<std::uint64_t> in(8), out(4);
  dec.round(in, out);  // zeros round to zeros
  EXPECT_EQ(out, std::vector<std::uint64_t>(4, 0));
  std::vector<std::uint64_t> odd(7), short_out(3), empty;
  expect_message([&] { dec.round(odd, out); }, "7 words");
  expect_message([&] { dec.round(empty, out); }, "0 words");
  expect_message([&] { dec.round(in, short_out); }, "3 words");
  expect_message([&] { dec.round(in, std::span<std::uint64_t>(in).subspan(2, 4)); }, "overlap");
}

}  // namespace
}  // namespace polyhe
