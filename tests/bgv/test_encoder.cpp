// The BFV/BGV integer encoders against slow references: slots as Horner evaluations at ζ^e
// (128-bit products), schoolbook negacyclic products, automorphisms by moving coefficients
// (i → i·g mod 2N, negated past N), and every validation error.
#include "polyhe/bgv/encoder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "reference/negacyclic.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using bgv::BatchEncoder;
using bgv::CoefficientEncoder;
using bgv::PlaintextModulus;
using U64s = std::vector<std::uint64_t>;
using I64s = std::vector<std::int64_t>;
__extension__ using i128 = __int128;

constexpr std::uint64_t kMaxT = (std::uint64_t{1} << 60) - 1;

// A batching prime of `bits` bits for ring degree n: 65537 for 17 bits (the classic choice),
// otherwise the largest of that size ≡ 1 mod 2n.
std::uint64_t batching_prime(int bits, std::size_t n) {
  if (bits == 17) return 65537;
  return ntt_primes(bits, n, 1).front();
}

std::uint64_t mul(std::uint64_t a, std::uint64_t b, std::uint64_t t) {
  return static_cast<std::uint64_t>(static_cast<u128>(a) * b % t);
}

U64s random_unsigned(test::TestRng& rng, std::size_t count, std::uint64_t t) {
  U64s v(count);
  for (std::uint64_t& x : v) x = rng.uniform(0, t - 1);
  return v;
}

I64s random_signed(test::TestRng& rng, std::size_t count, const PlaintextModulus& t) {
  I64s v(count);
  for (std::int64_t& x : v) {
    x = t.signed_min() + static_cast<std::int64_t>(rng.uniform(
                             0, static_cast<std::uint64_t>(t.signed_max() - t.signed_min())));
  }
  return v;
}

// e(r, c): 5^c mod 2N for row 0, 2N − 5^c mod 2N for row 1 (the documented layout).
std::uint64_t slot_exponent(std::size_t n, std::size_t slot) {
  const std::size_t half = n / 2;
  const std::uint64_t two_n = 2 * n;
  std::uint64_t e = 1;
  for (std::size_t c = 0; c < slot % half; ++c) e = e * 5 % two_n;
  return slot < half ? e : two_n - e;
}

// m(x) mod t by Horner.
std::uint64_t evaluate(const U64s& m, std::uint64_t x, std::uint64_t t) {
  u128 acc = 0;
  for (std::size_t i = m.size(); i-- > 0;) acc = (acc * x + m[i]) % t;
  return static_cast<std::uint64_t>(acc);
}

// σ_g(m) = m(x^g): coefficient i moves to i·g mod 2N, negated when that is ≥ N.
U64s automorphism(const U64s& m, std::uint64_t g, std::uint64_t t) {
  const std::size_t n = m.size();
  U64s out(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t j = i * g % (2 * n);
    if (j < n) {
      out[j] = m[i];
    } else {
      out[j - n] = m[i] == 0 ? 0 : t - m[i];
    }
  }
  return out;
}

// Expects f() to throw InvalidParameter with a message containing every one of `parts`.
template <class F>
void expect_invalid(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no InvalidParameter thrown";
  } catch (const InvalidParameter& e) {
    const std::string what = e.what();
    for (const std::string& p : parts) {
      EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' missing from: " << what;
    }
  }
}

// ---- PlaintextModulus and the batching predicate -----------------------------------------------

TEST(BgvPlaintextModulus, AcceptsExactlyTwoToTwoPowSixty) {
  for (const std::uint64_t t : {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{65537}, kMaxT}) {
    EXPECT_NO_THROW(bgv::check_plaintext_modulus(t));
    EXPECT_EQ(PlaintextModulus(t).value(), t);
  }
  EXPECT_EQ(PlaintextModulus(kMaxT).bits(), 60);
  for (const std::uint64_t t :
       {std::uint64_t{0}, std::uint64_t{1}, kMaxT + 1, std::numeric_limits<std::uint64_t>::max()}) {
    SCOPED_TRACE(t);
    expect_invalid([&] { bgv::check_plaintext_modulus(t); }, {std::to_string(t), "2^60"});
    expect_invalid([&] { (void)PlaintextModulus(t); }, {std::to_string(t), "2^60"});
  }
}

TEST(BgvPlaintextModulus, SignedRangeIsOneRepresentativePerResidue) {
  struct Case {
    std::uint64_t t;
    std::int64_t lo, hi;
  };
  const std::vector<Case> cases = {
      {2, -1, 0},
      {3, -1, 1},
      {256, -128, 127},
      {65537, -32768, 32768},
      {kMaxT, -static_cast<std::int64_t>(kMaxT / 2), static_cast<std::int64_t>(kMaxT / 2)}};
  for (const Case& c : cases) {
    SCOPED_TRACE("t = " + std::to_string(c.t));
    const PlaintextModulus t(c.t);
    EXPECT_EQ(t.signed_min(), c.lo);
    EXPECT_EQ(t.signed_max(), c.hi);
    EXPECT_EQ(static_cast<std::uint64_t>(c.hi - c.lo) + 1, c.t);
    for (const std::int64_t v :
         {c.lo, c.lo + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, c.hi - 1, c.hi}) {
      if (!t.in_signed_range(v)) continue;  // ±1 for t = 2
      const std::uint64_t x = t.from_signed(v);
      EXPECT_LT(x, c.t);
      EXPECT_EQ(static_cast<std::int64_t>((static_cast<i128>(x) - v) % c.t), 0);
      EXPECT_EQ(t.to_signed(x), v);
    }
    EXPECT_FALSE(t.in_signed_range(c.lo - 1));
    EXPECT_FALSE(t.in_signed_range(c.hi + 1));
  }
}

TEST(BgvPlaintextModulus, SupportsBatching) {
  EXPECT_TRUE(bgv::supports_batching(65537, 1 << 15));       // 65537 = 2^16 + 1
  EXPECT_FALSE(bgv::supports_batching(65537, 1 << 16));      // 65537 mod 2^17 = 65537
  EXPECT_TRUE(bgv::supports_batching(97, 16));               // 97 = 3·32 + 1
  EXPECT_FALSE(bgv::supports_batching(97, 64));              // 97 mod 128 = 97
  EXPECT_FALSE(bgv::supports_batching(3 * 32 * 5 + 1, 16));  // 481 = 13·37
  EXPECT_FALSE(bgv::supports_batching(65537, 3));            // N not a power of two
  EXPECT_FALSE(bgv::supports_batching(65537, 0));
  EXPECT_FALSE(bgv::supports_batching(65537, 1));
  EXPECT_FALSE(bgv::supports_batching(1, 16));
  const std::uint64_t wide = ntt_primes(61, 16, 1).front();  // an NTT prime, but t ≥ 2^60
  EXPECT_FALSE(bgv::supports_batching(wide, 16));
  EXPECT_TRUE(PlaintextModulus(batching_prime(60, 1 << 17)).supports_batching(1 << 17));
  EXPECT_NO_THROW(bgv::check_batching(65537, 1 << 15));
  expect_invalid([] { bgv::check_batching(65537, 1 << 16); },
                 {"t = 65537", "2N = 131072", "t mod 2N = 65537", "CoefficientEncoder"});
  expect_invalid([] { bgv::check_batching(481, 16); }, {"t = 481", "not prime"});
  expect_invalid([] { bgv::check_batching(97, 12); }, {"N = 12"});
}

// ---- Errors ------------------------------------------------------------------------------------

TEST(BgvEncoderErrors, Construction) {
  expect_invalid([] { (void)BatchEncoder(16, 1); }, {"t = 1", "2^60"});
  expect_invalid([] { (void)BatchEncoder(16, kMaxT + 1); }, {std::to_string(kMaxT + 1), "2^60"});
  // 481 = 13·37 ≡ 1 mod 32, not prime.
  expect_invalid([] { (void)BatchEncoder(16, 481); },
                 {"t = 481", "2N = 32", "not prime", "CoefficientEncoder"});
  // 65537 is prime, but 1 mod 2N fails for N = 2^16.
  expect_invalid([] { (void)BatchEncoder(1 << 16, 65537); },
                 {"t = 65537", "2N = 131072", "CoefficientEncoder"});
  expect_invalid([] { (void)BatchEncoder(65536, 257); }, {"t = 257", "2N = 131072"});
  expect_invalid([] { (void)BatchEncoder(24, 97); }, {"N = 24", "power of two"});
  expect_invalid([] { (void)BatchEncoder(std::size_t{1} << 18, batching_prime(40, 1 << 17)); },
                 {"N = 262144"});
  expect_invalid([] { (void)CoefficientEncoder(1, 97); }, {"N = 1", "outside [2, 131072]"});
  expect_invalid([] { (void)CoefficientEncoder(std::size_t{1} << 18, 97); },
                 {"N = 262144", "outside"});
  EXPECT_NO_THROW((void)CoefficientEncoder(24, 97));  // φ(35) = 24: the ring mod Φ_35
  expect_invalid([] { (void)CoefficientEncoder(16, 0); }, {"t = 0"});
}

// Both encoders reject the same inputs with messages naming the value; outputs stay untouched.
template <class Encoder>
void check_call_errors(const Encoder& enc) {
  const std::size_t n = enc.n();
  const std::uint64_t t = enc.t();
  const PlaintextModulus& pt = enc.plaintext_modulus();
  U64s out(n, 7);
  const U64s untouched = out;
  I64s sout(n, 7);

  const U64s too_many(n + 1, 0);
  expect_invalid([&] { enc.encode(std::span<const std::uint64_t>(too_many), out); },
                 {std::to_string(n + 1), "N = " + std::to_string(n)});
  const I64s too_many_signed(n + 1, 0);
  expect_invalid([&] { (void)enc.encode(std::span<const std::int64_t>(too_many_signed)); },
                 {std::to_string(n + 1)});

  U64s big = {0, 1, 0};
  big.push_back(t);
  expect_invalid([&] { enc.encode(std::span<const std::uint64_t>(big), out); },
                 {"value " + std::to_string(t), "index 3"});
  big.back() = std::numeric_limits<std::uint64_t>::max();
  expect_invalid([&] { (void)enc.encode(std::span<const std::uint64_t>(big)); },
                 {std::to_string(big.back()), "index 3"});

  for (const std::int64_t bad :
       {pt.signed_max() + 1, pt.signed_min() - 1, std::numeric_limits<std::int64_t>::min(),
        std::numeric_limits<std::int64_t>::max()}) {
    const I64s v = {0, bad};
    expect_invalid([&] { enc.encode(std::span<const std::int64_t>(v), out); },
                   {"value " + std::to_string(bad), "index 1", std::to_string(pt.signed_min()),
                    std::to_string(pt.signed_max())});
  }
  EXPECT_EQ(out, untouched);

  const U64s ok = {0, 1};  // valid for every t
  U64s short_out(n - 1), long_out(n + 1);
  expect_invalid([&] { enc.encode(std::span<const std::uint64_t>(ok), short_out); },
                 {std::to_string(n - 1), "N = " + std::to_string(n)});
  expect_invalid([&] { enc.encode(std::span<const std::uint64_t>(ok), long_out); },
                 {std::to_string(n + 1)});
  const I64s ok_signed = {0, -1};
  expect_invalid([&] { enc.encode(std::span<const std::int64_t>(ok_signed), short_out); },
                 {std::to_string(n - 1)});

  const U64s coeffs(n, 0);
  expect_invalid([&] { enc.decode(coeffs, short_out); }, {std::to_string(n - 1)});
  I64s short_sout(n - 1);
  expect_invalid([&] { enc.decode_signed(coeffs, short_sout); }, {std::to_string(n - 1)});
  const U64s short_coeffs(n - 1, 0);
  expect_invalid([&] { (void)enc.decode(short_coeffs); }, {std::to_string(n - 1)});
  U64s bad_coeffs(n, 0);
  bad_coeffs[n - 1] = t + 5;
  expect_invalid([&] { enc.decode(bad_coeffs, out); },
                 {std::to_string(t + 5), "index " + std::to_string(n - 1)});
  expect_invalid([&] { enc.decode_signed(bad_coeffs, sout); }, {std::to_string(t + 5)});
  EXPECT_EQ(out, untouched);
  EXPECT_EQ(sout, I64s(n, 7));
}

TEST(BgvEncoderErrors, BatchEncodeAndDecode) {
  check_call_errors(BatchEncoder(64, 257));
}

TEST(BgvEncoderErrors, CoefficientEncodeAndDecode) {
  for (const std::uint64_t t : {std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{256}, kMaxT}) {
    SCOPED_TRACE("t = " + std::to_string(t));
    check_call_errors(CoefficientEncoder(16, t));
  }
}

// ---- Batching: round trips over (log N, bits of t) ---------------------------------------------

class BgvBatchRoundTrip : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(BgvBatchRoundTrip, UnsignedSignedAndPartial) {
  POLYHE_SEEDED_RNG(rng);
  const auto [log_n, bits] = GetParam();
  const std::size_t n = std::size_t{1} << log_n;
  const std::uint64_t t = batching_prime(bits, n);
  ASSERT_EQ(bit_length(t), bits);
  const BatchEncoder enc(n, t);
  EXPECT_EQ(enc.slot_count(), n);
  EXPECT_EQ(enc.row_size(), n / 2);
  EXPECT_EQ(enc.zeta(), minimal_primitive_root(t, n));

  const U64s values = random_unsigned(rng, n, t);
  const U64s coeffs = enc.encode(std::span<const std::uint64_t>(values));
  ASSERT_EQ(coeffs.size(), n);
  for (const std::uint64_t c : coeffs) ASSERT_LT(c, t);
  EXPECT_EQ(enc.decode(coeffs), values);

  const I64s svalues = random_signed(rng, n, enc.plaintext_modulus());
  const U64s scoeffs = enc.encode(std::span<const std::int64_t>(svalues));
  EXPECT_EQ(enc.decode_signed(scoeffs), svalues);

  // Fewer values than slots: the rest are zero. Signed edges of the range included.
  const PlaintextModulus& pt = enc.plaintext_modulus();
  const I64s edges = {pt.signed_min(), pt.signed_max(), -1, 0, 1};
  I64s expected(n, 0);
  std::copy(edges.begin(), edges.end(), expected.begin());
  EXPECT_EQ(enc.decode_signed(enc.encode(std::span<const std::int64_t>(edges))), expected);
  const U64s few = {t - 1, 0, 1};
  U64s expected_u(n, 0);
  std::copy(few.begin(), few.end(), expected_u.begin());
  EXPECT_EQ(enc.decode(enc.encode(std::span<const std::uint64_t>(few))), expected_u);

  // Output-span overloads, in place (out aliasing values).
  U64s in_place = values;
  enc.encode(std::span<const std::uint64_t>(in_place), std::span<std::uint64_t>(in_place));
  EXPECT_EQ(in_place, coeffs);
  enc.decode(std::span<const std::uint64_t>(in_place), std::span<std::uint64_t>(in_place));
  EXPECT_EQ(in_place, values);
}

INSTANTIATE_TEST_SUITE_P(Sizes, BgvBatchRoundTrip,
                         ::testing::Combine(::testing::Values(12, 13, 14, 15),
                                            ::testing::Values(17, 20, 40, 60)),
                         [](const auto& c) {
                           return "N2e" + std::to_string(std::get<0>(c.param)) + "_t" +
                                  std::to_string(std::get<1>(c.param)) + "bits";
                         });

// ---- Batching: slots are evaluations at ζ^e ----------------------------------------------------

class BgvBatchSemantics : public ::testing::TestWithParam<int> {};  // bits of t

TEST_P(BgvBatchSemantics, SlotsAreHornerEvaluationsSmallN) {
  POLYHE_SEEDED_RNG(rng);
  for (const std::size_t n : {std::size_t{2}, std::size_t{4}, std::size_t{16}, std::size_t{64}}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const std::uint64_t t = batching_prime(GetParam(), n);
    const BatchEncoder enc(n, t);
    const std::uint64_t zeta = enc.zeta();
    ASSERT_EQ(pow_mod(zeta, n, t), t - 1);  // primitive 2N-th root
    const U64s m = random_unsigned(rng, n, t);
    const U64s slots = enc.decode(m);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(slots[i], evaluate(m, pow_mod(zeta, slot_exponent(n, i), t), t)) << "slot " << i;
    }
    // Known answers: x evaluates to ζ^e(i); the constant a to a everywhere.
    U64s x(n, 0);
    x[1] = 1;
    const U64s xs = enc.decode(x);
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(xs[i], pow_mod(zeta, slot_exponent(n, i), t));
    EXPECT_EQ(enc.encode(std::span<const std::uint64_t>(U64s(n, t - 1))), [&] {
      U64s c(n, 0);
      c[0] = t - 1;
      return c;
    }());
  }
}

TEST_P(BgvBatchSemantics, RandomSlotsAreHornerEvaluationsLargeN) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = 1 << 12;
  const std::uint64_t t = batching_prime(GetParam(), n);
  const BatchEncoder enc(n, t);
  const U64s m = random_unsigned(rng, n, t);
  const U64s slots = enc.decode(m);
  for (int k = 0; k < 24; ++k) {
    const std::size_t i = rng.uniform(0, n - 1);
    EXPECT_EQ(slots[i], evaluate(m, pow_mod(enc.zeta(), slot_exponent(n, i), t), t))
        << "slot " << i;
  }
}

// The product in Z_t[x]/(x^N + 1) is the slot-wise product.
TEST_P(BgvBatchSemantics, ProductIsSlotwise) {
  POLYHE_SEEDED_RNG(rng);
  for (const std::size_t n :
       {std::size_t{16}, std::size_t{64}, std::size_t{1} << 12, std::size_t{1} << 14}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const std::uint64_t t = batching_prime(GetParam(), n);
    const BatchEncoder enc(n, t);
    const U64s a = random_unsigned(rng, n, t), b = random_unsigned(rng, n, t);
    const U64s pa = enc.encode(std::span<const std::uint64_t>(a));
    const U64s pb = enc.encode(std::span<const std::uint64_t>(b));
    U64s prod(n);
    if (n <= 64) {
      prod = test::schoolbook_negacyclic(pa, pb, t);
    } else {
      // An independent plan (another root) for the product: the ring product does not depend
      // on the root.
      const auto plan = NttPlan<std::uint64_t>::create(n, t, pow_mod(enc.zeta(), 3, t));
      polymul<std::uint64_t>(pa, pb, prod, *plan);
    }
    const U64s slots = enc.decode(prod);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(slots[i], mul(a[i], b[i], t)) << "slot " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Bits, BgvBatchSemantics, ::testing::Values(17, 20, 40, 60),
                         [](const auto& c) { return std::to_string(c.param) + "bits"; });

// ---- Batching: rotations and the row swap ------------------------------------------------------

class BgvBatchRotation : public ::testing::TestWithParam<std::size_t> {};  // N

// slot (r, c) of the expected result = slot (r, c + s mod N/2) of the input.
U64s rotate_rows(const U64s& slots, std::int64_t s) {
  const std::size_t n = slots.size(), half = n / 2;
  const auto h = static_cast<std::int64_t>(half);
  const auto shift = static_cast<std::size_t>(((s % h) + h) % h);
  U64s out(n);
  for (std::size_t r = 0; r < 2; ++r) {
    for (std::size_t c = 0; c < half; ++c) out[r * half + c] = slots[r * half + (c + shift) % half];
  }
  return out;
}

TEST_P(BgvBatchRotation, GaloisRotationRotatesRowsLeft) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam(), half = n / 2;
  const std::uint64_t t = batching_prime(40, n);
  const BatchEncoder enc(n, t);
  const U64s slots = random_unsigned(rng, n, t);
  const U64s m = enc.encode(std::span<const std::uint64_t>(slots));
  std::vector<std::int64_t> steps;
  for (std::size_t p = 1; p <= half; p *= 2) {
    steps.push_back(static_cast<std::int64_t>(p));
    steps.push_back(-static_cast<std::int64_t>(p));
  }
  for (int k = 0; k < 4; ++k) {
    const auto s = static_cast<std::int64_t>(rng.uniform(0, 3 * half));
    steps.push_back(s);
    steps.push_back(-s);
  }
  for (const std::int64_t s : steps) {
    SCOPED_TRACE("step " + std::to_string(s));
    const std::uint64_t g = rlwe::galois_element_for_rotation(n, s);
    EXPECT_EQ(enc.decode(automorphism(m, g, t)), rotate_rows(slots, s));
  }
}

TEST_P(BgvBatchRotation, ConjugationSwapsRows) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = GetParam(), half = n / 2;
  const std::uint64_t t = batching_prime(60, n);
  const BatchEncoder enc(n, t);
  const I64s slots = random_signed(rng, n, enc.plaintext_modulus());
  const U64s m = enc.encode(std::span<const std::int64_t>(slots));
  I64s swapped(n);
  for (std::size_t c = 0; c < half; ++c) {
    swapped[c] = slots[half + c];
    swapped[half + c] = slots[c];
  }
  const std::uint64_t g = rlwe::galois_element_for_conjugation(n);
  EXPECT_EQ(enc.decode_signed(automorphism(m, g, t)), swapped);
}

INSTANTIATE_TEST_SUITE_P(Sizes, BgvBatchRotation,
                         ::testing::Values(std::size_t{2}, std::size_t{16}, std::size_t{1} << 12),
                         [](const auto& c) { return "N" + std::to_string(c.param); });

// ---- CoefficientEncoder ------------------------------------------------------------------------

class BgvCoefficientRoundTrip : public ::testing::TestWithParam<std::uint64_t> {};  // t

TEST_P(BgvCoefficientRoundTrip, UnsignedSignedAndEdges) {
  POLYHE_SEEDED_RNG(rng);
  const std::uint64_t t = GetParam();
  for (const std::size_t n : {std::size_t{2}, std::size_t{1} << 12, std::size_t{1} << 15}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const CoefficientEncoder enc(n, t);
    const PlaintextModulus& pt = enc.plaintext_modulus();

    const U64s values = random_unsigned(rng, n, t);
    const U64s coeffs = enc.encode(std::span<const std::uint64_t>(values));
    EXPECT_EQ(coeffs, values);  // the identity on [0, t)
    EXPECT_EQ(enc.decode(coeffs), values);

    const I64s svalues = random_signed(rng, n, pt);
    const U64s scoeffs = enc.encode(std::span<const std::int64_t>(svalues));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_LT(scoeffs[i], t);
      ASSERT_EQ((static_cast<i128>(scoeffs[i]) - svalues[i]) % static_cast<i128>(t), 0);
    }
    EXPECT_EQ(enc.decode_signed(scoeffs), svalues);

    // Range edges, fewer values than N.
    const I64s edges = {pt.signed_min(), pt.signed_max()};
    const U64s edge_coeffs = enc.encode(std::span<const std::int64_t>(edges));
    U64s expected(n, 0);
    expected[0] = t - t / 2;  // −⌊t/2⌋ mod t
    expected[1] = static_cast<std::uint64_t>(pt.signed_max());
    EXPECT_EQ(edge_coeffs, expected);
    const I64s decoded = enc.decode_signed(edge_coeffs);
    EXPECT_EQ(decoded[0], pt.signed_min());
    EXPECT_EQ(decoded[1], pt.signed_max());
    // Unsigned edges: t − 1 decodes signed to −1 (t > 2) and ⌈t/2⌉ to −⌊t/2⌋.
    const U64s uedges = {t - 1, t - t / 2, t / 2};
    U64s full(n, 0);
    std::copy(uedges.begin(), uedges.begin() + std::min<std::size_t>(n, 3), full.begin());
    const I64s s = enc.decode_signed(full);
    EXPECT_EQ(s[0], -1);
    EXPECT_EQ(s[1], pt.signed_min());

    // In place.
    U64s in_place = values;
    enc.encode(std::span<const std::uint64_t>(in_place), std::span<std::uint64_t>(in_place));
    EXPECT_EQ(in_place, values);
  }
}

INSTANTIATE_TEST_SUITE_P(Moduli, BgvCoefficientRoundTrip,
                         ::testing::Values(std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{256},
                                           std::uint64_t{65537}, (std::uint64_t{1} << 59) + 12345,
                                           kMaxT),
                         [](const auto& c) { return "t" + std::to_string(c.param); });

}  // namespace
}  // namespace polyhe
