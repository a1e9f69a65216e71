// The 128-bit bootstrappable presets (ckks/bootstrap_presets.hpp): every level count of both
// rings gives parameters that pass the HE standard's table with a dense secret, a Bootstrapper
// configuration whose encapsulation claim is covered, and a bootstrap that returns at exactly the
// levels asked for; one level more than the maximum is refused, and would break the table. With
// POLYHE_PRESET_BOOTSTRAP (the slow test): one whole bootstrap of the N = 2^15 preset, its
// precision against the input.
#include "polyhe/ckks/bootstrap_presets.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "ckks/ckks_cases.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::ckks {
namespace {

#ifndef POLYHE_PRESET_BOOTSTRAP
TEST(BootstrapPresets, EveryLevelCountIsBootstrappableAt128Bits) {
  for (const int log_n : {15, 16}) {
    const std::size_t most = max_bootstrappable_levels(log_n);
    for (std::size_t levels = 1; levels <= most; ++levels) {
      const BootstrappableParameters set = bootstrappable_parameters(log_n, levels);
      const rlwe::ParametersPtr params = rlwe::Parameters::create(set.literal);
      EXPECT_EQ(params->security(), rlwe::SecurityLevel::bits128);
      EXPECT_EQ(params->hamming_weight(), 0u);
      const std::size_t depth = Bootstrapper::depth_for(params, set.config);
      EXPECT_EQ(params->max_level() - depth, levels) << "log_n " << log_n;
      EXPECT_EQ(set.levels, levels);
      EXPECT_EQ(set.scale, std::ldexp(1.0, log_n == 16 ? 40 : 35));
      EXPECT_EQ(set.config.message_ratio_bits, 9.0);
    }
    // One more user level of the same size breaks the table: the maximum is the maximum.
    BootstrappableParameters set = bootstrappable_parameters(log_n, most);
    set.literal.q_bits.insert(set.literal.q_bits.begin() + 1, log_n == 16 ? 40 : 35);
    if (set.literal.dnum != 0) set.literal.dnum = set.literal.q_bits.size();
    EXPECT_THROW((void)rlwe::Parameters::create(set.literal), InsecureParameters) << log_n;
    try {
      (void)bootstrappable_parameters(log_n, most + 1);
      ADD_FAILURE() << "levels above the maximum were accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("is outside [1, " + std::to_string(most) + "]"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(max_bootstrappable_levels(16), 12u);
  EXPECT_EQ(max_bootstrappable_levels(15), 2u);
  EXPECT_THROW((void)bootstrappable_parameters(14, 1), InvalidParameter);
  EXPECT_THROW((void)bootstrappable_parameters(15, 0), InvalidParameter);
}

// High precision (N = 2^16 only): Δ = 2^50, two iterations, one more bootstrapping prime; every
// level count passes the table and returns at the levels asked for, one more breaks it.
TEST(BootstrapPresets, HighPrecisionIsBootstrappableAt128Bits) {
  constexpr auto high = BootstrapPrecision::high;
  const std::size_t most = max_bootstrappable_levels(16, high);
  EXPECT_EQ(most, 8u);
  for (std::size_t levels = 1; levels <= most; ++levels) {
    const BootstrappableParameters set = bootstrappable_parameters(16, levels, high);
    const rlwe::ParametersPtr params = rlwe::Parameters::create(set.literal);
    EXPECT_EQ(params->security(), rlwe::SecurityLevel::bits128);
    EXPECT_EQ(set.config.iterations, 2u);
    EXPECT_EQ(set.scale, std::ldexp(1.0, 50));
    EXPECT_EQ(params->max_level() - Bootstrapper::depth_for(params, set.config), levels);
    EXPECT_EQ(set.literal.q_bits.size(), 1 + levels + 17);
  }
  BootstrappableParameters set = bootstrappable_parameters(16, most, high);
  set.literal.q_bits.insert(set.literal.q_bits.begin() + 1, 50);
  EXPECT_THROW((void)rlwe::Parameters::create(set.literal), InsecureParameters);
  try {
    (void)bootstrappable_parameters(16, most + 1, high);
    ADD_FAILURE() << "levels above the maximum were accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("is outside [1, 8] for N = 2^16 at 128-bit security "
                                         "and high precision"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)max_bootstrappable_levels(15, high);
    ADD_FAILURE() << "high precision at N = 2^15 was accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("high precision needs log_n = 16"), std::string::npos)
        << e.what();
  }
}
#else
// A whole bootstrap of the N = 2^15 preset with one user level: values uniform in the complex unit
// disc over all 2^14 slots come back at level 1 to within 2^−16 (18.9 bits measured, the input
// encrypted with the secret key; docs/ckks-bootstrapping.md).
TEST(BootstrapPresets, TheN15PresetBootstraps) {
  POLYHE_SEEDED_RNG(rng);
  const BootstrappableParameters set = bootstrappable_parameters(15, 1);
  const rlwe::ParametersPtr params = rlwe::Parameters::create(set.literal);
  const ContextPtr ctx = Context::create(params, set.scale);
  const Bootstrapper boot(*ctx, set.config);
  // The input scaled to a message ratio of 2^9 to 2^10 against q_0 (50 bits, Δ = 2^35).
  EXPECT_EQ(boot.input_scaling_bits(), 5);
  rlwe::KeyGenerator keygen(params, test::make_seed(rng));
  const rlwe::SecretKey sk = keygen.secret_key();
  BootstrapKeys keys = boot.generate_keys(keygen, sk);
  const Evaluator ev(params, rlwe::share(keygen.relinearization_key(sk)),
                     rlwe::share(std::move(keys.galois)));
  const Encryptor encryptor = ctx->encryptor(sk, test::make_seed(rng));
  const test::Vec x = test::random_values(rng, ctx->slots());
  const Ciphertext low = encryptor.encrypt(ctx->encode(x, std::size_t{0}));
  const Ciphertext fresh = boot.bootstrap(ev, low, *keys.encapsulation);
  EXPECT_EQ(fresh.level(), 1u);
  const double bits = test::precision_bits(x, ctx->decode(ctx->decryptor(sk).decrypt(fresh)));
  EXPECT_GT(bits, 16.0);
  std::cout << "N = 2^15 preset bootstrap: " << bits << " bits, " << boot.rotations().size()
            << " rotation keys\n";
}
#endif

}  // namespace
}  // namespace polyhe::ckks
