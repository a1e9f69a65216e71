// Plaintext matrix × encrypted vector (ckks/linear_transform.hpp) against the same product in
// double precision: full and banded matrices, rectangular ones in both orientations, every
// baby-step count (the BSGS split changes the rotations, not the result), the keys it names being
// exactly the ones it needs, the scale restored exactly by the rescale that follows, and every
// refusal before any work.
#include "polyhe/ckks/linear_transform.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <set>
#include <string>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::ckks {
namespace {

using test::Vec;

// N = 2^6 (32 slots), three 40-bit primes and a 50-bit special prime; scale 2^40.
test::Case small_case() {
  return {6, {50, 40, 40}, {50}, 0, 40};
}

struct Fixture {
  rlwe::ParametersPtr params;
  ContextPtr ctx;
  rlwe::KeyGenerator keygen;
  rlwe::SecretKey sk;
  std::shared_ptr<const rlwe::KeySwitchKey> relin;
  Encryptor encryptor;
  Decryptor decryptor;

  explicit Fixture(polyhe::test::TestRng& rng)
      : params(test::make_params(small_case())),
        ctx(Context::create(params)),
        keygen(params, test::make_seed(rng)),
        sk(keygen.secret_key()),
        relin(rlwe::share(keygen.relinearization_key(sk))),
        encryptor(ctx->encryptor(sk, test::make_seed(rng))),
        decryptor(ctx->decryptor(sk)) {}

  Evaluator evaluator(const std::vector<std::int64_t>& steps) {
    return Evaluator(params, relin, rlwe::share(keygen.rotation_keys(sk, steps)));
  }
  Ciphertext encrypt(const Vec& x) { return encryptor.encrypt(ctx->encode(x)); }
  Vec decrypt(const Ciphertext& ct) const { return ctx->decode(decryptor.decrypt(ct)); }
};

/// M·x in double precision for the slots × slots matrix of `d`.
Vec reference(const Diagonals& d, const Vec& x) {
  const std::size_t n = x.size();
  Vec y(n, 0.0);
  for (const auto& [k, values] : d) {
    for (std::size_t j = 0; j < n; ++j) y[j] += values[j] * x[(j + k) % n];
  }
  return y;
}

Diagonals random_diagonals(polyhe::test::TestRng& rng, const std::vector<std::size_t>& indices,
                           std::size_t slots) {
  Diagonals d;
  for (const std::size_t k : indices) d[k] = test::random_values(rng, slots);
  return d;
}

std::vector<std::size_t> all_indices(std::size_t slots) {
  std::vector<std::size_t> v(slots);
  for (std::size_t k = 0; k < slots; ++k) v[k] = k;
  return v;
}

TEST(LinearTransform, DenseAndBandedMatricesAtEveryBabyStepCount) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::size_t level = f.params->max_level();
  const Vec x = test::random_values(rng, slots);
  const Ciphertext ct = f.encrypt(x);
  for (const auto& indices :
       {all_indices(slots), std::vector<std::size_t>{0, 1, 2, slots - 1, slots - 2},
        std::vector<std::size_t>{5}, std::vector<std::size_t>{0}}) {
    const Diagonals d = random_diagonals(rng, indices, slots);
    const Vec want = reference(d, x);
    for (std::size_t n1 = 0; n1 <= slots; n1 = n1 == 0 ? 1 : 2 * n1) {
      const LinearTransform t(*f.ctx, d, level, 0, n1);
      SCOPED_TRACE("diagonals " + std::to_string(indices.size()) + ", baby steps " +
                   std::to_string(t.baby_steps()));
      EXPECT_EQ(t.diagonal_count(), indices.size());
      const std::vector<std::int64_t> steps = t.rotations();
      const Evaluator ev = f.evaluator(steps);
      Ciphertext y = t.apply(ev, ct);
      EXPECT_EQ(y.level(), level);
      EXPECT_EQ(y.scale(), ct.scale() * static_cast<double>(f.params->q_primes()[level]));
      ev.rescale_inplace(y);
      EXPECT_EQ(y.scale(), ct.scale());  // the default scale is q_level: exact after rescale
      const double bits = test::precision_bits(want, f.decrypt(y));
      // |M·x| ≤ Σ|d_k| ≤ 32 here: 20 bits below the 2^40 scale is far above the noise.
      EXPECT_GT(bits, 20.0);
    }
  }
}

// The rotations it names are exactly the ones some diagonal needs: the split by n1 of each index
// k = n1·g + b asks for b and n1·g when nonzero, and the transform runs with those keys alone.
TEST(LinearTransform, NeedsExactlyTheKeysItNames) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const Diagonals d = random_diagonals(rng, {0, 3, 9, 10, 17, 31}, slots);
  const LinearTransform t(*f.ctx, d, f.params->max_level(), 0, 8);
  // 0 = 0·8 + 0, 3 = 0·8 + 3, 9 = 8 + 1, 10 = 8 + 2, 17 = 16 + 1, 31 = 24 + 7.
  EXPECT_EQ(t.rotations(), (std::vector<std::int64_t>{1, 2, 3, 7, 8, 16, 24}));
  const Ciphertext ct = f.encrypt(test::random_values(rng, slots));
  EXPECT_NO_THROW((void)t.apply(f.evaluator(t.rotations()), ct));
  for (const std::int64_t missing : t.rotations()) {
    std::vector<std::int64_t> fewer;
    for (const std::int64_t s : t.rotations()) {
      if (s != missing) fewer.push_back(s);
    }
    try {
      (void)t.apply(f.evaluator(fewer), ct);
      ADD_FAILURE() << "ran without the key of step " << missing;
    } catch (const InvalidParameter& e) {
      EXPECT_NE(
          std::string(e.what()).find("no Galois key for rotation step " + std::to_string(missing)),
          std::string::npos)
          << e.what();
    }
  }
  // The automatic split of a dense matrix needs far fewer rotations than one per diagonal.
  const LinearTransform dense(*f.ctx, random_diagonals(rng, all_indices(slots), slots),
                              f.params->max_level());
  EXPECT_LT(dense.rotations().size(), slots / 2);
}

// Rectangular matrices in the top-left corner, both orientations: M·x reads the first cols slots
// and writes the first rows; the transpose gives x·M for a row vector x (mᵀ·x).
TEST(LinearTransform, RectangularMatricesInBothOrientations) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::size_t rows = 5, cols = 12;
  const Vec m = test::random_values(rng, rows * cols);
  Vec x = test::random_values(rng, slots);
  const Ciphertext ct = f.encrypt(x);
  for (const bool transpose : {false, true}) {
    SCOPED_TRACE(transpose ? "x·m" : "m·x");
    const Diagonals d = diagonals_of(m, rows, cols, slots, transpose);
    const LinearTransform t(*f.ctx, d, f.params->max_level());
    const Evaluator ev = f.evaluator(t.rotations());
    const Ciphertext y = ev.rescale(t.apply(ev, ct));
    const Vec got = f.decrypt(y);
    const std::size_t out_len = transpose ? cols : rows;
    for (std::size_t i = 0; i < slots; ++i) {
      std::complex<double> want = 0.0;
      if (i < out_len) {
        const std::size_t in_len = transpose ? rows : cols;
        for (std::size_t j = 0; j < in_len; ++j) {
          want += (transpose ? m[j * cols + i] : m[i * cols + j]) * x[j];
        }
      }
      EXPECT_LT(std::abs(got[i] - want), 1e-5) << "slot " << i;
    }
  }
  // A matrix of zeros has no diagonal: refused by the transform, not by diagonals_of.
  const Vec zeros(rows * cols, 0.0);
  EXPECT_TRUE(diagonals_of(zeros, rows, cols, slots).empty());
  EXPECT_THROW(LinearTransform(*f.ctx, diagonals_of(zeros, rows, cols, slots), 1),
               InvalidParameter);
}

// Two transforms in a row at the levels they are used at: the second's diagonals at level L − 1.
TEST(LinearTransform, ComposesLevelAfterLevel) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::size_t top = f.params->max_level();
  const Diagonals a = random_diagonals(rng, {0, 1, 2}, slots);
  const Diagonals b = random_diagonals(rng, {0, slots - 1}, slots);
  const LinearTransform ta(*f.ctx, a, top);
  const LinearTransform tb(*f.ctx, b, top - 1);
  std::set<std::int64_t> steps;
  for (const auto s : ta.rotations()) steps.insert(s);
  for (const auto s : tb.rotations()) steps.insert(s);
  const Evaluator ev = f.evaluator({steps.begin(), steps.end()});
  const Vec x = test::random_values(rng, slots);
  const Ciphertext y = ev.rescale(tb.apply(ev, ev.rescale(ta.apply(ev, f.encrypt(x)))));
  EXPECT_EQ(y.level(), top - 2);
  EXPECT_GT(test::precision_bits(reference(b, reference(a, x)), f.decrypt(y)), 20.0);
  // The first transform's ciphertext level is not the second's: refused, naming both.
  try {
    (void)tb.apply(ev, f.encrypt(x));
    ADD_FAILURE() << "applied at the wrong level";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("at level " + std::to_string(top) +
                                         ", the transform's diagonals at level " +
                                         std::to_string(top - 1)),
              std::string::npos)
        << e.what();
  }
}

TEST(LinearTransform, BadInputIsRefusedNamingTheRule) {
  POLYHE_SEEDED_RNG(rng);
  Fixture f(rng);
  const std::size_t slots = f.ctx->slots();
  const std::size_t top = f.params->max_level();
  auto refused = [&](const Diagonals& d, std::size_t level, double scale, std::size_t n1,
                     const std::string& needle) {
    try {
      (void)LinearTransform(*f.ctx, d, level, scale, n1);
      ADD_FAILURE() << "accepted; expected '" << needle << "'";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const Diagonals good = random_diagonals(rng, {0, 1}, slots);
  refused({}, top, 0, 0, "no diagonal");
  refused(random_diagonals(rng, {slots}, slots), top, 0, 0,
          "diagonal index 32 is not below the slot count 32");
  refused({{0, Vec(3, 1.0)}}, top, 0, 0, "diagonal 0 has 3 values, expected 32");
  Diagonals nan = good;
  nan[1][4] = {0.0, std::nan("")};
  refused(nan, top, 0, 0, "diagonal 1 value 4 is not finite");
  refused(good, top + 1, 0, 0, "exceeds the top level");
  refused(good, top, 0.5, 0, "is not a finite number >= 1");
  refused(good, top, 0, 3, "baby_steps = 3 is not a power of two in [1, 32]");
  refused(good, top, 0, 64, "baby_steps = 64");
  EXPECT_EQ(diagonals_of(Vec(6, 1.0), 2, 3, slots).size(), 4u);  // diagonals 0, 1, 2, 31
  EXPECT_THROW((void)diagonals_of(Vec(5, 1.0), 2, 3, slots), InvalidParameter);
  EXPECT_THROW((void)diagonals_of(Vec{}, 0, 3, slots), InvalidParameter);
  EXPECT_THROW((void)diagonals_of(Vec(33, 1.0), 1, slots + 1, slots), InvalidParameter);
  EXPECT_THROW((void)diagonals_of(Vec(1, {std::nan(""), 0.0}), 1, 1, slots), InvalidParameter);
}

}  // namespace
}  // namespace polyhe::ckks
