// The multiplicative reductions — classical, Dhem–Quisquater and [GPU-Polymul, Alg. 4] Barrett,
// Montgomery and its NTT-prime variant — against unsigned __int128 arithmetic, on both word sizes:
// at every bit length of q each algorithm serves (random and extreme q), exhaustively for q < 2^8,
// and on the worst case the GPU paper names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "arith/arith_cases.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using test::TestRng;

// Each algorithm as the tests see it: its constants, its reduction, its input range [0, bound),
// and `scale`, the factor with reduce(x)·scale ≡ x mod q (1 for Barrett, R mod q for Montgomery).
// `accepts` is the algorithm's precondition on q, written from the paper, independently of
// Modulus::supports (which the tests compare against it).

template <Word W>
bool mu_fits(int exponent, W q) {  // ⌊2^exponent / q⌋ < 2^β
  return (u128{1} << exponent) / q <= static_cast<W>(~W{0});
}

template <Word W_>
struct ClassicalBarrett {
  using W = W_;
  using Constants = BarrettClassical<W>;
  static constexpr Reduction kKind = Reduction::barrett_classical;
  static constexpr int kMaxBits = word_bits<W> - 2;  // [GPU-Polymul, Alg. 2]: len(q) ≤ β−2
  static constexpr int kMaxCorrections = 2;
  static bool accepts(W q) { return bit_length(q) <= kMaxBits; }
  static const Constants& constants(const Modulus<W>& m) { return m.barrett_classical(); }
  static W reduce(Wide<W> x, const Constants& c) { return barrett_classical_reduce(x, c); }
  static ReduceSteps<W> steps(Wide<W> x, const Constants& c) {
    return barrett_classical_steps(x, c);
  }
  static W domain_mul(W a, W b, const Constants& c) { return mul_mod(a, b, c); }
  static Wide<W> input_bound(const Modulus<W>& m) { return Wide<W>{1} << (2 * m.bits()); }
  static W scale(const Modulus<W>&) { return 1; }
};

template <Word W_>
struct DqBarrett {
  using W = W_;
  using Constants = BarrettDQ<W>;
  static constexpr Reduction kKind = Reduction::barrett_dq;
  static constexpr int kMaxBits = word_bits<W> - 4;  // [GPU-Polymul, Alg. 3]: len(q) ≤ β−4
  static constexpr int kMaxCorrections = 1;
  static bool accepts(W q) {
    const int m = bit_length(q);
    return m <= kMaxBits && mu_fits(2 * m + 3, q);
  }
  static const Constants& constants(const Modulus<W>& m) { return m.barrett_dq(); }
  static W reduce(Wide<W> x, const Constants& c) { return barrett_dq_reduce(x, c); }
  static ReduceSteps<W> steps(Wide<W> x, const Constants& c) { return barrett_dq_steps(x, c); }
  static W domain_mul(W a, W b, const Constants& c) { return mul_mod(a, b, c); }
  static Wide<W> input_bound(const Modulus<W>& m) { return Wide<W>{1} << (2 * m.bits()); }
  static W scale(const Modulus<W>&) { return 1; }
};

template <Word W_>
struct Alg4Barrett {
  using W = W_;
  using Constants = BarrettAlg4<W>;
  static constexpr Reduction kKind = Reduction::barrett_alg4;
  static constexpr int kMaxBits = word_bits<W> - 2;  // [GPU-Polymul, Alg. 4]: len(q) ≤ β−2
  static constexpr int kMaxCorrections = 1;
  static bool accepts(W q) {
    const int m = bit_length(q);
    return m <= kMaxBits && mu_fits(2 * m + 1, q);
  }
  static const Constants& constants(const Modulus<W>& m) { return m.barrett_alg4(); }
  static W reduce(Wide<W> x, const Constants& c) { return barrett_alg4_reduce(x, c); }
  static ReduceSteps<W> steps(Wide<W> x, const Constants& c) { return barrett_alg4_steps(x, c); }
  static W domain_mul(W a, W b, const Constants& c) { return mul_mod(a, b, c); }
  static Wide<W> input_bound(const Modulus<W>& m) { return Wide<W>{1} << (2 * m.bits()); }
  static W scale(const Modulus<W>&) { return 1; }
};

template <Word W_>
struct MontgomeryRedc {
  using W = W_;
  using Constants = Montgomery<W>;
  static constexpr Reduction kKind = Reduction::montgomery;
  static constexpr int kMaxBits = word_bits<W> - 1;  // any odd q a Modulus holds
  static constexpr int kMaxCorrections = 1;
  static bool accepts(W q) { return q % 2 == 1; }
  static const Constants& constants(const Modulus<W>& m) { return m.montgomery(); }
  static W reduce(Wide<W> x, const Constants& c) { return montgomery_reduce(x, c); }
  static ReduceSteps<W> steps(Wide<W> x, const Constants& c) { return montgomery_steps(x, c); }
  static W domain_mul(W a, W b, const Constants& c) { return montgomery_mul(a, b, c); }
  // REDC's precondition: T < q·R with R = 2^β.
  static Wide<W> input_bound(const Modulus<W>& m) {
    return static_cast<Wide<W>>(m.value()) << word_bits<W>;
  }
  static W scale(const Modulus<W>& m) {  // R mod q
    return static_cast<W>((u128{1} << word_bits<W>) % m.value());
  }
};

template <Word W_>
struct MontgomeryNttRedc {
  using W = W_;
  using Constants = MontgomeryNtt<W>;
  static constexpr Reduction kKind = Reduction::montgomery_ntt;
  static constexpr int kMaxBits = word_bits<W> - 1;
  static constexpr int kMaxCorrections = 1;
  static bool accepts(W q) { return q % 2 == 1; }  // every odd q is qH·2^k + 1 with k ≥ 1
  static const Constants& constants(const Modulus<W>& m) { return m.montgomery_ntt(); }
  static W reduce(Wide<W> x, const Constants& c) { return montgomery_ntt_reduce(x, c); }
  static ReduceSteps<W> steps(Wide<W> x, const Constants& c) { return montgomery_ntt_steps(x, c); }
  static W domain_mul(W a, W b, const Constants& c) { return montgomery_ntt_mul(a, b, c); }
  static Wide<W> input_bound(const Modulus<W>& m) { return mul_wide(m.value(), m.value()); }
  static W scale(const Modulus<W>& m) {  // 2^(rounds·k) mod q
    const auto& c = m.montgomery_ntt();
    return static_cast<W>(pow_mod(2, static_cast<std::uint64_t>(c.rounds) * c.k, m.value()));
  }
};

/// reduce(x) and steps(x) against x mod q: in [0, q), reduce(x)·scale ≡ x, steps agree and
/// used at most kMaxCorrections corrections.
template <class A, class W = typename A::W>
::testing::AssertionResult check_input(const Modulus<W>& mod, const typename A::Constants& c,
                                       W scale, Wide<W> x) {
  const W q = mod.value();
  const W got = A::reduce(x, c);
  const ReduceSteps<W> steps = A::steps(x, c);
  const bool ok = got < q && static_cast<Wide<W>>(mul_wide(got, scale) % q) == x % q &&
                  steps.value == got && steps.corrections >= 0 &&
                  steps.corrections <= A::kMaxCorrections;
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "x = " << test::u128_string(x) << ", q = " << q << ": reduce = " << got << ", steps = {"
         << steps.value << ", " << steps.corrections << "}, scale = " << scale
         << ", x mod q = " << test::u128_string(x % q);
}

/// The product paths: reduce and steps on a·b, the algorithm's own multiplication
/// (a·b·scale^−1), and mul_mod (plain a·b mod q).
template <class A, class W = typename A::W>
::testing::AssertionResult check_product(const Modulus<W>& mod, const typename A::Constants& c,
                                         W scale, W a, W b) {
  if (auto r = check_input<A>(mod, c, scale, mul_wide(a, b)); !r) return r;
  const W q = mod.value();
  const W plain = static_cast<W>(mul_wide(a, b) % q);
  const W own = A::domain_mul(a, b, c);
  const W via_mul_mod = mul_mod(a, b, c);
  if (own < q && mul_wide(own, scale) % q == plain && via_mul_mod == plain) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "a = " << a << ", b = " << b << ", q = " << q << ": domain mul = " << own
         << ", mul_mod = " << via_mul_mod << ", a*b mod q = " << plain;
}

/// `samples` random products a·b (a, b < q) and as many random x in the input range, 1 in 8 of
/// those next to a multiple of q (k·q and k·q − 1), plus the edge values.
template <class A, class W = typename A::W>
void check_modulus(TestRng& rng, W q, int samples) {
  const Modulus<W> mod(q);
  ASSERT_TRUE(mod.supports(A::kKind)) << *mod.unsupported_reason(A::kKind);
  const auto& c = A::constants(mod);
  const W scale = A::scale(mod);
  const Wide<W> bound = A::input_bound(mod);
  for (W a : {W{0}, W{1}, static_cast<W>(q - 1), static_cast<W>(q / 2)}) {
    for (W b : {W{0}, W{1}, static_cast<W>(q - 1), static_cast<W>(q / 2)}) {
      ASSERT_TRUE(check_product<A>(mod, c, scale, a, b));
    }
  }
  for (Wide<W> x : {Wide<W>{0}, Wide<W>{q}, bound - 1, bound - 1 - (bound - 1) % q}) {
    ASSERT_TRUE(check_input<A>(mod, c, scale, x));
  }
  for (int i = 0; i < samples; ++i) {
    const W a = test::uniform_word_below(rng, q);
    const W b = test::uniform_word_below(rng, q);
    ASSERT_TRUE(check_product<A>(mod, c, scale, a, b));
    Wide<W> x = test::uniform_below<W>(rng, bound);
    if (i % 8 == 0) x -= x % q + (i % 16 == 0 && x >= q ? 1 : 0);
    ASSERT_TRUE(check_input<A>(mod, c, scale, x));
  }
}

template <class A>
struct Named;
#define POLYHE_NAME_REDUCTION(Algorithm)                                            \
  template <Word W>                                                                 \
  struct Named<Algorithm<W>> {                                                      \
    static std::string name() { return #Algorithm + std::to_string(word_bits<W>); } \
  };
POLYHE_NAME_REDUCTION(ClassicalBarrett)
POLYHE_NAME_REDUCTION(DqBarrett)
POLYHE_NAME_REDUCTION(Alg4Barrett)
POLYHE_NAME_REDUCTION(MontgomeryRedc)
POLYHE_NAME_REDUCTION(MontgomeryNttRedc)
#undef POLYHE_NAME_REDUCTION

template <class A>
class ReductionTest : public ::testing::Test {};

struct ReductionNames {
  template <class A>
  static std::string GetName(int) {
    return Named<A>::name();
  }
};

using Reductions =
    ::testing::Types<ClassicalBarrett<std::uint32_t>, ClassicalBarrett<std::uint64_t>,
                     DqBarrett<std::uint32_t>, DqBarrett<std::uint64_t>, Alg4Barrett<std::uint32_t>,
                     Alg4Barrett<std::uint64_t>, MontgomeryRedc<std::uint32_t>,
                     MontgomeryRedc<std::uint64_t>, MontgomeryNttRedc<std::uint32_t>,
                     MontgomeryNttRedc<std::uint64_t>>;
TYPED_TEST_SUITE(ReductionTest, Reductions, ReductionNames);

// Every bit length 2..max: the smallest, largest and random q of that length the algorithm
// accepts, kSamplesPerLength products and as many direct inputs in all.
TYPED_TEST(ReductionTest, EveryBitLength) {
  using A = TypeParam;
  using W = typename A::W;
  POLYHE_SEEDED_RNG(rng);
  for (int m = 2; m <= A::kMaxBits; ++m) {
    const auto qs = test::moduli_of_length<W>(rng, m, A::accepts);
    ASSERT_FALSE(qs.empty()) << "no modulus of " << m << " bits";
    const int per_q =
        (test::kSamplesPerLength + static_cast<int>(qs.size()) - 1) / static_cast<int>(qs.size());
    for (W q : qs) {
      SCOPED_TRACE("len(q) = " + std::to_string(m) + ", q = " + std::to_string(q));
      ASSERT_NO_FATAL_FAILURE(check_modulus<A>(rng, q, per_q));
    }
  }
}

// Every q < 2^8 the algorithm accepts: every product a·b, and every x < min(bound, 2^(2m)) —
// the whole input range for the Barrett variants (2^(2m)) and Montgomery-NTT (q²).
TYPED_TEST(ReductionTest, ExhaustiveSmallModuli) {
  using A = TypeParam;
  using W = typename A::W;
  for (W q = 2; q < (W{1} << test::kExhaustiveBits); ++q) {
    if (!A::accepts(q)) continue;
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    ASSERT_TRUE(mod.supports(A::kKind));
    const auto& c = A::constants(mod);
    const W scale = A::scale(mod);
    for (W a = 0; a < q; ++a) {
      for (W b = 0; b < q; ++b) ASSERT_TRUE(check_product<A>(mod, c, scale, a, b));
    }
    const Wide<W> full = Wide<W>{1} << (2 * mod.bits());
    const Wide<W> bound = std::min(A::input_bound(mod), full);
    for (Wide<W> x = 0; x < bound; ++x) ASSERT_TRUE(check_input<A>(mod, c, scale, x));
  }
}

// Which lengths the Modulus serves with this algorithm: exactly those `accepts` allows, at both
// ends of every length, and the reason names q when it refuses.
TYPED_TEST(ReductionTest, SupportMatchesPrecondition) {
  using A = TypeParam;
  using W = typename A::W;
  for (int m = 2; m <= word_bits<W> - 1; ++m) {
    const W lo = W{1} << (m - 1);
    const W hi = static_cast<W>((Wide<W>{1} << m) - 1);
    for (W q : {lo, static_cast<W>(lo + 1), static_cast<W>(hi - 1), hi}) {
      const Modulus<W> mod(q);
      EXPECT_EQ(mod.supports(A::kKind), A::accepts(q)) << "q = " << q;
      if (A::accepts(q)) continue;
      const auto why = mod.unsupported_reason(A::kKind);
      ASSERT_TRUE(why.has_value());
      EXPECT_NE(why->find(std::to_string(q)), std::string::npos) << *why;
      try {
        (void)A::constants(mod);
        ADD_FAILURE() << "constants for unsupported q = " << q << " did not throw";
      } catch (const InvalidParameter& e) {
        EXPECT_NE(std::string(e.what()).find(std::to_string(q)), std::string::npos) << e.what();
      }
    }
  }
}

template <class W>
class WordTest : public ::testing::Test {};
using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(WordTest, Words);

// The GPU paper's worst case (§II-B): Özerk's and Lee's reductions need two corrections for
// a·b mod q with a = 994674970, b = 994705408 = q − 1, q = 994705409 (30 bits). a·b ≡ −a ≡ 30439.
// Classical Barrett also needs two here: ⌊a·b/q⌋ − quot = 2 (measured on both word sizes);
// DQ and [GPU-Polymul, Alg. 4] need one. On 32-bit words DQ cannot serve a 30-bit q (len(q) ≤ β−4 =
// 28).
TYPED_TEST(WordTest, PaperWorstCase) {
  using W = TypeParam;
  const W q = 994705409, a = 994674970, b = 994705408;
  constexpr W kExpected = 30439;
  ASSERT_EQ(static_cast<W>(mul_wide(a, b) % q), kExpected);
  const Modulus<W> mod(q);
  const Wide<W> x = mul_wide(a, b);

  const auto classical = barrett_classical_steps(x, mod.barrett_classical());
  EXPECT_EQ(classical.value, kExpected);
  EXPECT_EQ(classical.corrections, 2);
  EXPECT_EQ(barrett_classical_reduce(x, mod.barrett_classical()), kExpected);

  const auto alg4 = barrett_alg4_steps(x, mod.barrett_alg4());
  EXPECT_EQ(alg4.value, kExpected);
  EXPECT_EQ(alg4.corrections, 1);
  EXPECT_EQ(barrett_alg4_reduce(x, mod.barrett_alg4()), kExpected);

  if constexpr (word_bits<W> == 32) {
    EXPECT_FALSE(mod.supports(Reduction::barrett_dq));
  } else {
    const auto dq = barrett_dq_steps(x, mod.barrett_dq());
    EXPECT_EQ(dq.value, kExpected);
    EXPECT_EQ(dq.corrections, 1);
  }
  EXPECT_EQ(mul_mod(a, b, mod.montgomery()), kExpected);
  EXPECT_EQ(mul_mod(a, b, mod.montgomery_ntt()), kExpected);
  EXPECT_EQ(mod.mul(a, b), kExpected);
  // q − 1 = 7589·2^17: the NTT variant takes ⌈30/17⌉ = 2 rounds of 17 bits.
  EXPECT_EQ(mod.montgomery_ntt().k, 17);
  EXPECT_EQ(mod.montgomery_ntt().rounds, 2);
  EXPECT_EQ(mod.montgomery_ntt().q_hi, W{7589});
}

}  // namespace
}  // namespace polyhe
