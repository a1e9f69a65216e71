// The limb-wide element-wise kernels (backend/cuda/elementwise.hpp) on the device against the
// CPU: polyhe::vec on 64-bit words, an unsigned __int128 reference on both, bit for bit, over
// limbs 1..8, n = 2^4..2^17 and several primes per word. Skips, naming the reason, without a
// device; the argument checks that need no device run everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/elementwise.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "support/cuda_context.hpp"
#include "support/test_rng.hpp"

namespace polyhe::cuda {
namespace {

using test::TestRng;

template <Word W>
std::vector<W> test_primes();

template <>
std::vector<std::uint32_t> test_primes() {
  return {786433U, 1073479681U, 994705409U, 12289U};  // 20, 30, 30, 14 bits
}

template <>
std::vector<std::uint64_t> test_primes() {
  return {1073479681ULL, 1125899903827969ULL, 1152921504606584833ULL,
          4611686018425815041ULL};  // 30, 50, 60, 62 bits
}

/// Operands of one shape: edge pairs (0, 1, q−1)² in words 0..8 of every limb, uniform elsewhere.
template <Word W>
struct Operands {
  std::vector<W> basis;
  std::size_t n;
  std::vector<W> a, b, d, scalars;

  Operands(std::vector<W> primes, std::size_t n_, TestRng& rng) : basis(std::move(primes)), n(n_) {
    for (std::size_t l = 0; l < basis.size(); ++l) {
      const W q = basis[l];
      const W edges[3] = {0, 1, static_cast<W>(q - 1)};
      for (std::size_t j = 0; j < n; ++j) {
        const bool edge = j < 9;
        a.push_back(edge ? edges[j / 3] : static_cast<W>(rng.uniform(0, q - 1)));
        b.push_back(edge ? edges[j % 3] : static_cast<W>(rng.uniform(0, q - 1)));
        d.push_back(edge ? static_cast<W>(q - 1) : static_cast<W>(rng.uniform(0, q - 1)));
      }
      scalars.push_back(l == 0 ? W{1} : static_cast<W>(rng.uniform(0, q - 1)));
    }
  }
  [[nodiscard]] u128 q_of(std::size_t i) const { return basis[i / n]; }
};

/// want[i] = f(i, q_i) by the __int128 reference.
template <Word W, class F>
std::vector<W> reference(const Operands<W>& x, F f) {
  std::vector<W> out(x.a.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<W>(f(i, x.q_of(i)));
  return out;
}

template <Word W>
::testing::AssertionResult same_words(const std::vector<W>& got, const std::vector<W>& want,
                                      const Operands<W>& x, const char* what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << what << ": sizes " << got.size() << ", " << want.size();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      return ::testing::AssertionFailure()
             << what << " (limbs " << x.basis.size() << ", n " << x.n << "): word " << i
             << " (limb " << i / x.n << ", q = " << x.basis[i / x.n] << "): a = " << x.a[i]
             << ", b = " << x.b[i] << ", d = " << x.d[i] << ", device " << got[i] << ", expected "
             << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

template <Word W>
void check_shape(const std::shared_ptr<const Context>& ctx, const Operands<W>& x) {
  const Stream s = ctx->compute();
  const DeviceModuli<W> m = DeviceModuli<W>::create(ctx, x.basis, x.n);
  ASSERT_EQ(m.words(), x.a.size());
  const DeviceBuffer<W> a = to_device(ctx, x.a, s);
  const DeviceBuffer<W> b = to_device(ctx, x.b, s);
  const DeviceBuffer<W> d = to_device(ctx, x.d, s);
  DeviceBuffer<W> c(ctx, m.words(), s);
  const auto& ha = x.a;
  const auto& hb = x.b;
  const auto& hd = x.d;

  std::vector<W> sum =
      reference(x, [&](std::size_t i, u128 q) { return (ha[i] + u128{hb[i]}) % q; });
  std::vector<W> diff =
      reference(x, [&](std::size_t i, u128 q) { return (ha[i] + q - hb[i]) % q; });
  std::vector<W> neg = reference(x, [&](std::size_t i, u128 q) { return (q - ha[i]) % q; });
  std::vector<W> prod =
      reference(x, [&](std::size_t i, u128 q) { return u128{ha[i]} * hb[i] % q; });
  std::vector<W> fma =
      reference(x, [&](std::size_t i, u128 q) { return (u128{ha[i]} * hb[i] + hd[i]) % q; });
  std::vector<W> scaled =
      reference(x, [&](std::size_t i, u128 q) { return u128{ha[i]} * x.scalars[i / x.n] % q; });
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    // The CPU library agrees with the reference (its own tests say so); the device must too.
    std::vector<Modulus<W>> moduli(x.basis.begin(), x.basis.end());
    std::vector<W> cpu(ha.size());
    vec::add(ha, hb, cpu, moduli, 1);
    EXPECT_EQ(cpu, sum);
    vec::multiply_add(ha, hb, hd, cpu, moduli, 1);
    EXPECT_EQ(cpu, fma);
    vec::multiply_scalar(ha, x.scalars, cpu, moduli, 1);
    EXPECT_EQ(cpu, scaled);
  }

  add(m, a.cspan(), b.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), sum, x, "add"));
  sub(m, a.cspan(), b.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), diff, x, "sub"));
  negate(m, a.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), neg, x, "negate"));
  multiply(m, a.cspan(), b.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), prod, x, "multiply"));
  multiply_add(m, a.cspan(), b.cspan(), d.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), fma, x, "multiply_add"));
  multiply_scalar(m, a.cspan(), x.scalars, c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), scaled, x, "multiply_scalar"));

  // In place: c = a for add, c = d for multiply_add.
  copy_async(c.span(), a.cspan(), s);
  add(m, c.cspan(), b.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), sum, x, "add in place"));
  copy_async(c.span(), d.cspan(), s);
  multiply_add(m, a.cspan(), b.cspan(), c.cspan(), c.span(), s);
  EXPECT_TRUE(same_words(to_host(c.cspan(), s), fma, x, "multiply_add in place"));
}

template <class W>
class ElementwiseDevice : public ::testing::Test {};
using WordTypes = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(ElementwiseDevice, WordTypes);

TYPED_TEST(ElementwiseDevice, EveryOperationMatchesTheCpu) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  const std::vector<W> primes = test_primes<W>();
  for (std::size_t limbs = 1; limbs <= 8; ++limbs) {
    for (const int log_n : {4, 5, 9, 12, 17}) {
      std::vector<W> basis;
      for (std::size_t l = 0; l < limbs; ++l) basis.push_back(primes[(l + limbs) % primes.size()]);
      const Operands<W> x(basis, std::size_t{1} << log_n, rng);
      check_shape(ctx, x);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// More limbs than travel inside the kernel's parameters: the scalars go through a device buffer.
TYPED_TEST(ElementwiseDevice, ManyLimbsTakeTheScalarTable) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  POLYHE_SEEDED_RNG(rng);
  const std::vector<W> primes = test_primes<W>();
  std::vector<W> basis;
  for (std::size_t l = 0; l < kInlineScalarLimbs + 3; ++l)
    basis.push_back(primes[l % primes.size()]);
  const Operands<W> x(basis, 64, rng);
  check_shape(ctx, x);
}

TYPED_TEST(ElementwiseDevice, BadArgumentsThrowInvalidParameter) {
  using W = TypeParam;
  POLYHE_CONTEXT_OR_SKIP(ctx);
  const std::vector<W> primes = test_primes<W>();
  const Stream s = ctx->compute();
  EXPECT_THROW(DeviceModuli<W>::create(ctx, primes, 12), InvalidParameter);  // not 2^k
  EXPECT_THROW(DeviceModuli<W>::create(ctx, primes, 0), InvalidParameter);
  EXPECT_THROW(DeviceModuli<W>::create(ctx, std::span<const W>(), 16), InvalidParameter);
  const std::vector<W> too_wide{static_cast<W>(W{1} << (word_bits<W> - 2))};  // β − 1 bits
  EXPECT_THROW(DeviceModuli<W>::create(ctx, too_wide, 16), InvalidParameter);

  const DeviceModuli<W> m = DeviceModuli<W>::create(ctx, primes, 16);
  // Written before use: the accepted call below reads it (compute-sanitizer's initcheck flagged
  // the read of an uninitialised buffer on the H200, 2026-11-26).
  DeviceBuffer<W> a = to_device(ctx, std::vector<W>(m.words(), W{0}), s);
  DeviceBuffer<W> short_buffer(ctx, m.words() - 1, s);
  DeviceBuffer<W> wide(ctx, 2 * m.words(), s);
  try {
    add(m, a.cspan(), short_buffer.cspan(), a.span(), s);
    ADD_FAILURE() << "add accepted operands of different sizes";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(m.words() - 1)), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(negate(m, a.cspan(), short_buffer.span(), s), InvalidParameter);
  // c overlapping a by all but one word.
  EXPECT_THROW(negate(m, wide.cspan().subspan(0, m.words()), wide.span().subspan(1, m.words()), s),
               InvalidParameter);
  std::vector<W> scalars(primes.size(), 1);
  EXPECT_NO_THROW(multiply_scalar(m, a.cspan(), scalars, a.span(), s));
  scalars[2] = primes[2];  // not below q
  EXPECT_THROW(multiply_scalar(m, a.cspan(), scalars, a.span(), s), InvalidParameter);
  scalars.pop_back();
  EXPECT_THROW(multiply_scalar(m, a.cspan(), scalars, a.span(), s), InvalidParameter);
  ctx->synchronize();
}

}  // namespace
}  // namespace polyhe::cuda
