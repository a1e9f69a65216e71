// The device element-wise bodies (src/cuda/elementwise_body.hpp) run on the host over host memory,
// exactly as the kernel applies them (word i of the flattened limbs, limb i >> log_n), against an
// unsigned __int128 reference and, on 64-bit words, the CPU polyhe::vec functions, bit for bit.
// Built and run in every configuration, with or without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/elementwise_body.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/backend/cuda/elementwise.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "support/test_rng.hpp"

namespace polyhe::cuda {
namespace {

using test::TestRng;

template <Word W>
std::vector<W> test_primes();

template <>
std::vector<std::uint32_t> test_primes() {
  return {786433U,      // 3·2^18 + 1: 20 bits
          1073479681U,  // largest 30-bit prime ≡ 1 mod 2^17
          994705409U,   // 30 bits, the paper's q (7589·2^17 + 1)
          12289U};      // 14 bits
}

template <>
std::vector<std::uint64_t> test_primes() {
  return {1073479681ULL,            // 30 bits
          1125899903827969ULL,      // 50 bits
          1152921504606584833ULL,   // largest 60-bit prime ≡ 1 mod 2^17
          4611686018425815041ULL};  // largest 62-bit prime ≡ 1 mod 2^17: [GPU-Polymul, Alg. 4] max
}

/// One flattened RNS operand set: limb l under basis[l], n = 2^log_n words per limb. Words 0..8
/// of every limb hold the edge pairs (a, b) ∈ {0, 1, q−1}², d = q−1 − j % 2 there; the rest is
/// uniform in [0, q).
template <Word W>
struct Case {
  std::vector<W> basis;
  int log_n;
  std::vector<LimbModulus<W>> moduli;
  std::vector<W> a, b, d, scalars;

  Case(std::vector<W> primes, int log_n_, TestRng& rng) : basis(std::move(primes)), log_n(log_n_) {
    const std::size_t n = std::size_t{1} << log_n;
    for (const W q : basis) moduli.push_back(make_limb_modulus(q));
    for (std::size_t l = 0; l < basis.size(); ++l) {
      const W q = basis[l];
      const W edges[3] = {0, 1, static_cast<W>(q - 1)};
      for (std::size_t j = 0; j < n; ++j) {
        if (j < 9) {
          a.push_back(edges[j / 3]);
          b.push_back(edges[j % 3]);
          d.push_back(static_cast<W>(q - 1 - j % 2));
        } else {
          a.push_back(static_cast<W>(rng.uniform(0, q - 1)));
          b.push_back(static_cast<W>(rng.uniform(0, q - 1)));
          d.push_back(static_cast<W>(rng.uniform(0, q - 1)));
        }
      }
      // Scalars 0, 1 and q−1 on the first limbs, random elsewhere.
      scalars.push_back(l == 0   ? W{0}
                        : l == 1 ? W{1}
                        : l == 2 ? static_cast<W>(q - 1)
                                 : static_cast<W>(rng.uniform(0, q - 1)));
    }
  }

  [[nodiscard]] std::size_t size() const { return a.size(); }
  [[nodiscard]] W q_of(std::size_t i) const { return basis[i >> log_n]; }
  [[nodiscard]] std::string shape() const {
    std::ostringstream s;
    s << "n = 2^" << log_n << ", basis {";
    for (std::size_t l = 0; l < basis.size(); ++l) s << (l ? ", " : "") << basis[l];
    s << "}";
    return s.str();
  }
};

/// The bodies are applied exactly as elementwise_kernel does, one index at a time.
template <class Body>
void apply(const Body& body, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) body(i);
}

template <Word W>
::testing::AssertionResult same_words(const std::vector<W>& got, const std::vector<W>& want,
                                      const Case<W>& k, const char* what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " words, expected " << want.size();
  }
  std::size_t mismatches = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && mismatches++ == 0) first = i;
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << " (" << k.shape() << "): " << mismatches << " of " << got.size()
         << " words differ; first at word " << first << " (limb " << (first >> k.log_n)
         << ", q = " << k.q_of(first) << "): a = " << k.a[first] << ", b = " << k.b[first]
         << ", d = " << k.d[first] << ", got " << got[first] << ", expected " << want[first];
}

/// want[i] = f(i, q_i) by the __int128 reference.
template <Word W, class F>
std::vector<W> reference(const Case<W>& k, F f) {
  std::vector<W> out(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) out[i] = static_cast<W>(f(i, u128{k.q_of(i)}));
  return out;
}

template <Word W>
void check_case(const Case<W>& k) {
  const std::size_t count = k.size();
  const LimbModulus<W>* m = k.moduli.data();
  const int log_n = k.log_n;
  const auto& a = k.a;
  const auto& b = k.b;
  const auto& d = k.d;
  std::vector<W> c(count);

  apply(AddBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
  EXPECT_TRUE(same_words(
      c, reference(k, [&](std::size_t i, u128 q) { return (a[i] + u128{b[i]}) % q; }), k, "add"));

  apply(SubBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
  EXPECT_TRUE(same_words(
      c, reference(k, [&](std::size_t i, u128 q) { return (a[i] + q - b[i]) % q; }), k, "sub"));

  apply(NegateBody<W>{m, a.data(), c.data(), log_n}, count);
  EXPECT_TRUE(same_words(c, reference(k, [&](std::size_t i, u128 q) { return (q - a[i]) % q; }), k,
                         "negate"));

  const auto product = reference(k, [&](std::size_t i, u128 q) { return u128{a[i]} * b[i] % q; });
  apply(MultiplyBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
  EXPECT_TRUE(same_words(c, product, k, "multiply"));

  const auto fma =
      reference(k, [&](std::size_t i, u128 q) { return (u128{a[i]} * b[i] + d[i]) % q; });
  apply(MultiplyAddBody<W>{m, a.data(), b.data(), d.data(), c.data(), log_n}, count);
  EXPECT_TRUE(same_words(c, fma, k, "multiply_add"));

  std::vector<ShoupOperand<W>> ops;
  for (std::size_t l = 0; l < k.basis.size(); ++l) {
    ops.push_back(Modulus<W>(k.basis[l]).shoup(k.scalars[l]));
  }
  const auto scaled =
      reference(k, [&](std::size_t i, u128 q) { return u128{a[i]} * k.scalars[i >> log_n] % q; });
  InlineScalars<W> inline_ops{};
  std::copy(ops.begin(), ops.end(), inline_ops.op);
  apply(MultiplyScalarBody<W, InlineScalars<W>>{m, a.data(), c.data(), log_n, inline_ops}, count);
  EXPECT_TRUE(same_words(c, scaled, k, "multiply_scalar (inline scalars)"));
  std::fill(c.begin(), c.end(), W{0});
  apply(MultiplyScalarBody<W, const ShoupOperand<W>*>{m, a.data(), c.data(), log_n, ops.data()},
        count);
  EXPECT_TRUE(same_words(c, scaled, k, "multiply_scalar (scalar table)"));

  // In place: c is a (add), c is d (multiply-accumulate).
  std::vector<W> in_place = a;
  apply(AddBody<W>{m, in_place.data(), b.data(), in_place.data(), log_n}, count);
  EXPECT_TRUE(same_words(
      in_place, reference(k, [&](std::size_t i, u128 q) { return (a[i] + u128{b[i]}) % q; }), k,
      "add in place"));
  in_place = d;
  apply(MultiplyAddBody<W>{m, a.data(), b.data(), in_place.data(), in_place.data(), log_n}, count);
  EXPECT_TRUE(same_words(in_place, fma, k, "multiply_add in place (c = d)"));

  if constexpr (std::is_same_v<W, std::uint64_t>) {
    // The CPU functions the device must match (any CPU path; they agree bit for bit).
    std::vector<Modulus<W>> moduli;
    for (const W q : k.basis) moduli.emplace_back(q);
    std::vector<W> cpu(count);
    vec::add(a, b, cpu, moduli, 1);
    apply(AddBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "add vs vec::add"));
    vec::sub(a, b, cpu, moduli, 1);
    apply(SubBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "sub vs vec::sub"));
    vec::negate(a, cpu, moduli, 1);
    apply(NegateBody<W>{m, a.data(), c.data(), log_n}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "negate vs vec::negate"));
    vec::multiply(a, b, cpu, moduli, 1);
    apply(MultiplyBody<W>{m, a.data(), b.data(), c.data(), log_n}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "multiply vs vec::multiply"));
    vec::multiply_add(a, b, d, cpu, moduli, 1);
    apply(MultiplyAddBody<W>{m, a.data(), b.data(), d.data(), c.data(), log_n}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "multiply_add vs vec::multiply_add"));
    vec::multiply_scalar(a, k.scalars, cpu, moduli, 1);
    apply(MultiplyScalarBody<W, InlineScalars<W>>{m, a.data(), c.data(), log_n, inline_ops}, count);
    EXPECT_TRUE(same_words(c, cpu, k, "multiply_scalar vs vec::multiply_scalar"));
  }
}

template <class W>
class ElementwiseEmu : public ::testing::Test {};

using WordTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(ElementwiseEmu, WordTypes);

/// Limbs 1..5 under rotating bases (every prime at every limb position), n = 2^4..2^12.
TYPED_TEST(ElementwiseEmu, EveryOperationMatchesTheReference) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  const std::vector<W> primes = test_primes<W>();
  for (std::size_t limbs = 1; limbs <= 5; ++limbs) {
    for (int log_n = 4; log_n <= 12; ++log_n) {
      std::vector<W> basis;
      for (std::size_t l = 0; l < limbs; ++l) {
        basis.push_back(primes[(l + limbs + static_cast<std::size_t>(log_n)) % primes.size()]);
      }
      const Case<W> k(basis, log_n, rng);
      check_case(k);
      if (::testing::Test::HasFailure()) return;  // one shape's report is enough
    }
  }
}

/// One limb per prime, each prime alone, at the smallest and a mid size.
TYPED_TEST(ElementwiseEmu, EachPrimeAlone) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  for (const W q : test_primes<W>()) {
    for (const int log_n : {4, 10}) {
      const Case<W> k({q}, log_n, rng);
      check_case(k);
    }
  }
}

/// The largest inputs at [GPU-Polymul, Alg. 4]'s top length make a·b + d largest: (q−1)² + (q−1).
TYPED_TEST(ElementwiseEmu, MultiplyAddAtTheTopOfTheRange) {
  using W = TypeParam;
  const W q = test_primes<W>()[1 + (sizeof(W) == 8 ? 2 : 0)];  // 30 bits / 62 bits
  const std::vector<LimbModulus<W>> m{make_limb_modulus(q)};
  const std::vector<W> top(16, static_cast<W>(q - 1));
  std::vector<W> c(16);
  apply(MultiplyAddBody<W>{m.data(), top.data(), top.data(), top.data(), c.data(), 4}, 16);
  const W want = static_cast<W>((u128{q - 1} * (q - 1) + (q - 1)) % q);  // = 0
  for (const W x : c) EXPECT_EQ(x, want);
}

TEST(ElementwiseEmuModuli, RefusesModuliAlg4CannotServe) {
  // 31 bits on 32-bit words, 63 on 64-bit words: beyond β − 2.
  EXPECT_THROW(make_limb_modulus<std::uint32_t>(2147483647U), InvalidParameter);
  EXPECT_THROW(make_limb_modulus<std::uint64_t>(9223372036854775783ULL), InvalidParameter);
  EXPECT_THROW(make_limb_modulus<std::uint32_t>(1), InvalidParameter);
  EXPECT_THROW(make_limb_modulus<std::uint64_t>(0), InvalidParameter);
  // 2^29 is 30 bits, but µ = 2^61 / 2^29 = 2^32 does not fit a word.
  EXPECT_THROW(make_limb_modulus<std::uint32_t>(1U << 29), InvalidParameter);
  try {
    make_limb_modulus<std::uint32_t>(2147483647U);
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("2147483647"), std::string::npos) << e.what();
  }
  const LimbModulus<std::uint32_t> m = make_limb_modulus<std::uint32_t>(1073479681U);
  EXPECT_EQ(m.q, 1073479681U);
  EXPECT_EQ(m.barrett.q, 1073479681U);
  EXPECT_EQ(m.barrett.m, 30);
}

}  // namespace
}  // namespace polyhe::cuda
