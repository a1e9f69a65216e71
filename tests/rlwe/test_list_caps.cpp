// Every list a call takes is capped before any work (hardening, second pass): Galois elements and
// rotation steps for keys at the ring's number of automorphisms (N), hoisted rotations at one
// output ciphertext per distinct rotation (N/2 steps for CKKS's rotate_many and BGV's
// rotate_rows_many, N keys for rlwe::apply_galois_hoisted). A list one above the cap is refused
// with InvalidParameter naming the count and the cap — before a key is made or a rotation
// computed (the lists name no key the evaluator holds, so any work would have thrown later with
// another message) — and a list at the cap is served.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "polyhe/bgv/bgv.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

rlwe::ParametersPtr small_params() {
  rlwe::ParametersLiteral lit;
  lit.log_n = 5;  // N = 32: the caps are small enough to reach
  lit.q_bits = {40, 40};
  lit.p_bits = {45};
  lit.security = rlwe::SecurityLevel::insecure_none;
  return rlwe::Parameters::create(lit);
}

Seed seed_of(std::uint8_t b) {
  Seed s{};
  s.fill(b);
  return s;
}

template <class F>
void expect_capped(F&& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected InvalidParameter with '" << needle << "'";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ListCaps, KeyListsAreCappedAtTheAutomorphismCount) {
  const rlwe::ParametersPtr params = small_params();
  const std::size_t n = params->n();
  rlwe::KeyGenerator keygen(params, seed_of(1));
  const rlwe::SecretKey sk = keygen.secret_key();
  const std::vector<std::uint64_t> elements(n + 1, 3);
  expect_capped([&] { (void)keygen.galois_keys(sk, elements); },
                "galois_keys: 33 Galois elements, above the cap of 32");
  const std::vector<std::int64_t> steps(n + 1, 1);
  expect_capped([&] { (void)keygen.rotation_keys(sk, steps); },
                "rotation_keys: 33 steps, above the cap of 32");
  // At the cap: served (duplicates make one key each).
  EXPECT_EQ(keygen.galois_keys(sk, std::span(elements).first(n)).keys.size(), 1u);
  EXPECT_EQ(keygen.rotation_keys(sk, std::span(steps).first(n)).keys.size(), 1u);
}

TEST(ListCaps, HoistedRotationsAreCappedAtOneOutputPerRotation) {
  const rlwe::ParametersPtr params = small_params();
  const std::size_t n = params->n();
  rlwe::KeyGenerator keygen(params, seed_of(2));
  const rlwe::SecretKey sk = keygen.secret_key();
  const std::int64_t one[] = {1};
  const auto galois = rlwe::share(keygen.rotation_keys(sk, one));
  rlwe::Encryptor enc(sk, seed_of(3));
  const rlwe::Ciphertext ct = enc.encrypt_zero(params->max_level());

  const std::vector<const rlwe::KeySwitchKey*> identities(n + 1, nullptr);
  expect_capped([&] { (void)rlwe::apply_galois_hoisted(ct, identities); },
                "apply_galois_hoisted: 33 keys, above the cap of 32");
  EXPECT_EQ(rlwe::apply_galois_hoisted(ct, std::span(identities).first(n)).size(), n);

  // Steps of 0 need no key: without the cap, N/2 + 1 of them would be computed.
  const std::vector<std::int64_t> zeros(n / 2 + 1, 0);
  const ckks::Evaluator ckks_ev(params, nullptr, galois);
  expect_capped([&] { (void)ckks_ev.rotate_many(ct, zeros); },
                "rotate_many: 17 steps, above the cap of 16");
  EXPECT_EQ(ckks_ev.rotate_many(ct, std::span(zeros).first(n / 2)).size(), n / 2);

  const bgv::ContextPtr ctx = bgv::Context::create(params, 65537);
  const bgv::Evaluator bgv_ev(ctx, nullptr, galois);
  expect_capped([&] { (void)bgv_ev.rotate_rows_many(ct, zeros); },
                "rotate_rows_many: 17 steps, above the cap of 16");
  EXPECT_EQ(bgv_ev.rotate_rows_many(ct, std::span(zeros).first(n / 2)).size(), n / 2);
}

}  // namespace
}  // namespace polyhe
