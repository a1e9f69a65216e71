// SlotArray (HElib's EncryptedArray over Φ_m): rotations and shifts along each hypercube dimension
// and across the whole array, total sums and replication, on BGV ciphertexts, each against the
// same movement done on the plain slots by their coordinates; good dimensions rotate with one
// automorphism and bad ones with two; the hypercube's good and bad dimensions against their
// definition; the keys each operation names are the keys it needs; and the refusals.
#include "polyhe/bgv/slot_array.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bgv/bgv_cases.hpp"
#include "polyhe/bgv/slots.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "support/expect_error.hpp"
#include "support/test_rng.hpp"

namespace polyhe::bgv {
namespace {

using u64 = std::uint64_t;
using Slots = std::vector<std::vector<u64>>;  // k values of E (GF(p^d) or GR(p^r, d)), d words each

struct ArrayCase {
  std::size_t m;
  u64 t;
  const char* what;
};

void PrintTo(const ArrayCase& c, std::ostream* os) {
  *os << "m = " << c.m << ", t = " << c.t << " (" << c.what << ")";
}

// The hypercube coordinates of every slot, from the orders alone (row-major, first outermost).
std::vector<std::vector<std::size_t>> all_coordinates(const SlotEncoder& enc) {
  std::vector<std::vector<std::size_t>> out(1);
  for (const std::size_t n : enc.orders()) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& prefix : out) {
      for (std::size_t e = 0; e < n; ++e) {
        next.push_back(prefix);
        next.back().push_back(e);
      }
    }
    out = std::move(next);
  }
  return out;
}

std::int64_t wrap(std::int64_t x, std::int64_t n) {
  return ((x % n) + n) % n;
}

class SlotArrayOps : public ::testing::TestWithParam<ArrayCase> {
 protected:
  void SetUp() override {
    POLYHE_SEEDED_RNG(rng);
    ctx = Context::create(cases::phi_m_params(GetParam().m, {60, 60, 60, 60}, {60}), GetParam().t);
    array = std::make_unique<SlotArray>(ctx);
    Seed seed{};
    for (auto& b : seed) b = static_cast<std::uint8_t>(rng.bits());
    keygen = std::make_unique<rlwe::KeyGenerator>(ctx->params(), seed);
    sk = std::make_unique<rlwe::SecretKey>(keygen->secret_key());
    const SlotEncoder& enc = ctx->slot_encoder();
    d = enc.slot_degree();
    k = enc.slot_count();
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<u64> v(d);
      for (auto& c : v) c = rng.uniform(0, GetParam().t - 1);
      values.push_back(v);
    }
    coords = all_coordinates(enc);
  }

  [[nodiscard]] Ciphertext encrypt(const Slots& v) const {
    std::vector<u64> flat;
    for (const auto& s : v) flat.insert(flat.end(), s.begin(), s.end());
    return ctx->encryptor(*sk).encrypt(Plaintext{ctx->slot_encoder().encode(flat)});
  }
  [[nodiscard]] Slots decrypt(const Ciphertext& ct) const {
    const Decryptor dec = ctx->decryptor(*sk);
    EXPECT_GT(dec.noise_budget(ct), 0);
    const auto flat = ctx->slot_encoder().decode(dec.decrypt(ct).coeffs);
    Slots out(k);
    for (std::size_t i = 0; i < k; ++i) {
      const std::span<const u64> slot(flat.data() + i * d, d);
      out[i].assign(slot.begin(), slot.end());
    }
    return out;
  }
  // The evaluator with exactly the Galois keys `elements` names.
  [[nodiscard]] Evaluator evaluator(const std::vector<u64>& elements) const {
    return ctx->evaluator(nullptr, rlwe::share(keygen->galois_keys(*sk, elements)));
  }
  [[nodiscard]] std::size_t index(const std::vector<std::size_t>& e) const {
    return static_cast<std::size_t>(std::find(coords.begin(), coords.end(), e) - coords.begin());
  }
  // Slot i's value moves to where `to` sends it (none: dropped); slots nothing reaches hold 0.
  template <class To>
  [[nodiscard]] Slots moved(const Slots& v, To to) const {
    Slots out(k, std::vector<u64>(d, 0));
    for (std::size_t i = 0; i < k; ++i) {
      const std::int64_t j = to(i);
      if (j >= 0) out[static_cast<std::size_t>(j)] = v[i];
    }
    return out;
  }

  ContextPtr ctx;
  std::unique_ptr<SlotArray> array;
  std::unique_ptr<rlwe::KeyGenerator> keygen;
  std::unique_ptr<rlwe::SecretKey> sk;
  std::size_t d = 0, k = 0;
  Slots values;
  std::vector<std::vector<std::size_t>> coords;
};

TEST_P(SlotArrayOps, RotateAndShiftAlongEachDimension) {
  const Ciphertext ct = encrypt(values);
  for (std::size_t r = 0; r < array->dimensions(); ++r) {
    const auto n = static_cast<std::int64_t>(array->dimension_size(r));
    for (const std::int64_t step : {std::int64_t{1}, std::int64_t{-1}, n - 1, n + 2}) {
      const std::vector<u64> elements = array->rotate_along_elements(r, step);
      if (wrap(step, n) != 0) {
        EXPECT_EQ(elements.size(), array->good_dimension(r) ? 1U : 2U) << "dimension " << r;
      }
      const Ciphertext out = array->rotate_along(evaluator(elements), ct, r, step);
      const Slots want = moved(values, [&](std::size_t i) {
        auto e = coords[i];
        e[r] = static_cast<std::size_t>(wrap(static_cast<std::int64_t>(e[r]) + step, n));
        return static_cast<std::int64_t>(index(e));
      });
      ASSERT_EQ(decrypt(out), want) << "rotate_along(" << r << ", " << step << ")";
    }
    for (const std::int64_t step : {std::int64_t{1}, std::int64_t{-2}, n}) {
      const Ciphertext out =
          array->shift_along(evaluator(array->shift_along_elements(r, step)), ct, r, step);
      const Slots want = moved(values, [&](std::size_t i) -> std::int64_t {
        auto e = coords[i];
        const std::int64_t to = static_cast<std::int64_t>(e[r]) + step;
        if (to < 0 || to >= n) return -1;
        e[r] = static_cast<std::size_t>(to);
        return static_cast<std::int64_t>(index(e));
      });
      ASSERT_EQ(decrypt(out), want) << "shift_along(" << r << ", " << step << ")";
    }
  }
}

TEST_P(SlotArrayOps, RotateAndShiftTheWholeArray) {
  const Ciphertext ct = encrypt(values);
  const auto kk = static_cast<std::int64_t>(k);
  for (const std::int64_t step : {std::int64_t{1}, std::int64_t{-1}, std::int64_t{7}, kk - 1}) {
    const Ciphertext out = array->rotate(evaluator(array->rotate_elements(step)), ct, step);
    const Slots want =
        moved(values, [&](std::size_t i) { return wrap(static_cast<std::int64_t>(i) + step, kk); });
    ASSERT_EQ(decrypt(out), want) << "rotate(" << step << ")";
  }
  for (const std::int64_t step : {std::int64_t{3}, std::int64_t{-5}}) {
    const Ciphertext out = array->shift(evaluator(array->shift_elements(step)), ct, step);
    const Slots want = moved(values, [&](std::size_t i) -> std::int64_t {
      const std::int64_t to = static_cast<std::int64_t>(i) + step;
      return to < 0 || to >= kk ? -1 : to;
    });
    ASSERT_EQ(decrypt(out), want) << "shift(" << step << ")";
  }
  // Everything shifted out: an encryption of 0.
  const Ciphertext gone = array->shift(ctx->evaluator(), ct, kk);
  EXPECT_EQ(decrypt(gone), Slots(k, std::vector<u64>(d, 0)));
}

TEST_P(SlotArrayOps, TotalSumAndReplicate) {
  const u64 t = GetParam().t;
  const Evaluator ev = evaluator(array->total_sum_elements());
  std::vector<u64> total(d, 0);
  for (const auto& v : values) {
    for (std::size_t j = 0; j < d; ++j) total[j] = (total[j] + v[j]) % t;  // addition in GF(t^d)
  }
  const Ciphertext ct = encrypt(values);
  EXPECT_EQ(decrypt(array->total_sum(ev, ct)), Slots(k, total));
  const std::size_t slot = 5 % k;
  EXPECT_EQ(decrypt(array->replicate(ev, ct, slot)), Slots(k, values[slot]));
}

INSTANTIATE_TEST_SUITE_P(Rings, SlotArrayOps,
                         ::testing::Values(ArrayCase{315, 2, "good 6 x 2"},
                                           ArrayCase{1105, 2, "bad 8 x good 4"},
                                           ArrayCase{257, 2, "one bad dimension of 16"},
                                           ArrayCase{1155, 97, "good 6 x 2 x 2, d = 20"},
                                           ArrayCase{2047, 3, "22 slots of GF(3^88)"},
                                           ArrayCase{1105, 65536, "bad 8 x good 4, GR(2^16, 24)"},
                                           ArrayCase{1155, 9409, "good 6 x 2 x 2, GR(97^2, 20)"}),
                         [](const auto& param_info) {
                           return "m" + std::to_string(param_info.param.m) + "_t" +
                                  std::to_string(param_info.param.t);
                         });

// Good means g^n ≡ 1 mod m; a bad dimension's wrap is the Frobenius it names.
TEST(SlotArrayHypercube, GoodAndBadDimensionsByDefinition) {
  for (const auto& [m, t] : std::vector<std::pair<std::size_t, u64>>{{315, 2},
                                                                     {1105, 2},
                                                                     {257, 2},
                                                                     {1155, 97},
                                                                     {21845, 2},
                                                                     {4369, 65537},
                                                                     {8191, 2},
                                                                     {21845, 65536},
                                                                     {1155, 9409}}) {
    const auto enc = SlotEncoder::create(m, t);
    for (std::size_t r = 0; r < enc->generators().size(); ++r) {
      std::size_t wrap_value = 1;
      for (std::size_t e = 0; e < enc->orders()[r]; ++e)
        wrap_value = wrap_value * enc->generators()[r] % m;
      EXPECT_EQ(enc->good_dimension(r), wrap_value == 1) << m << " dimension " << r;
      const std::size_t f = enc->wrap_frobenius(r);
      ASSERT_NE(f, SlotEncoder::kNotFrobenius) << m << " dimension " << r;
      std::size_t pf = 1;  // the Frobenius is p's power, t = p^r
      for (std::size_t e = 0; e < f; ++e) pf = pf * (enc->prime() % m) % m;
      EXPECT_EQ(pf, wrap_value) << m << " dimension " << r;
    }
  }
  // Where the group allows, every dimension is good; m = 21845 has two bad ones (as HElib's).
  EXPECT_TRUE(SlotEncoder::create(1155, 97)->good_dimension(2));
  const auto big = SlotEncoder::create(21845, 2);
  EXPECT_FALSE(big->good_dimension(0));
  EXPECT_FALSE(big->good_dimension(1));
}

TEST(SlotArrayErrors, RefusedByName) {
  const auto params = cases::phi_m_params(315, {60, 60}, {60});
  const auto ctx = Context::create(params, 2);
  const SlotArray array(ctx);
  const auto refused = [](const auto& call, const char* what) {
    test::expect_error<InvalidParameter>(call, what);
  };
  refused([&] { (void)array.dimension_size(2); }, "dimension 2 does not exist");
  refused([&] { (void)array.rotate_along_elements(7, 1); }, "dimension 7 does not exist");
  refused([&] { (void)array.slot({0}); }, "1 coordinates for a hypercube of 2");
  refused([&] { (void)array.slot({6, 0}); }, "coordinate 0 = 6");
  refused([&] { (void)array.coordinates(12); }, "slot 12 is not below k = 12");
  refused([&] { (void)SlotArray(nullptr); }, "null context");
  rlwe::ParametersLiteral pow2;
  pow2.log_n = 12;
  pow2.q_bits = {30, 30};
  pow2.p_bits = {30};
  refused([&] { (void)SlotArray(Context::create(rlwe::Parameters::create(pow2), 65537)); },
          "x^N + 1");
  refused([&] { (void)SlotArray(Context::create(params, 22)); }, "prime or a prime power");
  // A rotation without its keys: the evaluator names the missing Galois element.
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey sk = keygen.secret_key();
  const Evaluator keyless = ctx->evaluator();
  const Ciphertext ct = ctx->encryptor(sk).encrypt(Plaintext{std::vector<u64>(params->n(), 0)});
  EXPECT_THROW((void)array.rotate_along(keyless, ct, 0, 1), InvalidParameter);
  refused([&] { (void)array.replicate(keyless, ct, 12); }, "slot 12 is not below k = 12");
  // An evaluator of another t (the masks would be another t's slots), and extreme steps: reduced
  // mod the length (rotations) or shifting everything out (shifts), without overflow.
  const auto other_t = Context::create(params, 11);
  EXPECT_THROW((void)array.rotate(other_t->evaluator(), ct, 0), MismatchedContext);
  EXPECT_THROW((void)array.shift(other_t->evaluator(), ct, 1), MismatchedContext);
  EXPECT_NO_THROW((void)array.rotate(keyless, ct, 0));  // the identity needs no key
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  const auto k = static_cast<std::int64_t>(array.size());
  EXPECT_EQ(array.rotate_elements(lowest), array.rotate_elements(((lowest % k) + k) % k));
  EXPECT_TRUE(array.shift_elements(lowest).empty());
  EXPECT_TRUE(array.shift_along_elements(0, std::numeric_limits<std::int64_t>::max()).empty());
  // The coordinates and the slot index are inverse.
  for (std::size_t i = 0; i < array.size(); ++i) EXPECT_EQ(array.slot(array.coordinates(i)), i);
}

}  // namespace
}  // namespace polyhe::bgv
