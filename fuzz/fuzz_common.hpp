// What the libFuzzer targets share (docs/fuzzing.md): one small parameter set with keys and
// ciphertexts made from fixed seeds, the rule for exceptions, and the check that turns a broken
// invariant into a crash libFuzzer records.
//
// The parameters are N = 16, Q = three primes (40, 30, 30 bits), P = one 40-bit prime,
// insecure_none: small enough for tens of thousands of executions a second, yet with every
// structure of a real set (levels, several digits, a special prime). make_corpus writes its seeds
// from this same fixture, so the seeds carry the hash these parameters check on load.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <utility>
#include <vector>

#include "polyhe/bgv/context.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/sampler.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::fuzz {

using Bytes = std::vector<std::uint8_t>;

/// A fixed seed per use: every key and ciphertext of the fixture is reproducible.
inline Seed fixed_seed(std::uint8_t tag) {
  Seed s{};
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<std::uint8_t>(tag * 31 + i);
  return s;
}

inline rlwe::ParametersPtr make_params() {
  rlwe::ParametersLiteral lit;
  lit.log_n = 4;
  lit.q_bits = {40, 30, 30};
  lit.p_bits = {40};
  lit.security = rlwe::SecurityLevel::insecure_none;
  return rlwe::Parameters::create(lit);
}

/// The keys and ciphertexts the targets load against, use, and make_corpus writes as seeds.
struct Fixture {
  rlwe::ParametersPtr params;
  rlwe::SecretKey sk;
  rlwe::PublicKey pk;
  rlwe::KeySwitchKey relin;
  rlwe::GaloisKeys galois;    // rotation by 1 and conjugation
  rlwe::Ciphertext ct;        // public-key encryption of a uniform message at the top level
  rlwe::Ciphertext ct_three;  // size 3 at the top level (what relinearisation takes)
};

inline Fixture make_fixture() {
  const rlwe::ParametersPtr params = make_params();
  rlwe::KeyGenerator keygen(params, fixed_seed(1));
  rlwe::SecretKey sk = keygen.secret_key();
  rlwe::PublicKey pk = keygen.public_key(sk);
  rlwe::KeySwitchKey relin = keygen.relinearization_key(sk);
  const std::int64_t steps[] = {1};
  rlwe::GaloisKeys galois = keygen.rotation_keys(sk, steps, true);
  Prng prng(fixed_seed(2));
  RnsPoly m(params->ring(), params->q_count(), PolyForm::kEvaluation);
  sample_uniform(prng, m);
  rlwe::Encryptor enc(pk, fixed_seed(3));
  rlwe::Ciphertext ct = enc.encrypt(m);
  rlwe::Ciphertext ct_three(params, params->max_level(), 3);
  for (std::size_t i = 0; i < 3; ++i) sample_uniform(prng, ct_three[i]);
  return Fixture{
      params,        std::move(sk),      std::move(pk), std::move(relin), std::move(galois),
      std::move(ct), std::move(ct_three)};
}

/// Made once per process: the targets load every input against the same Parameters object.
inline const Fixture& fixture() {
  static const Fixture f = make_fixture();
  return f;
}

/// The BGV context of the fixture's parameters with t = 65537 (≡ 1 mod 2N: batching).
inline constexpr std::uint64_t kPlainModulus = 65537;
inline const bgv::ContextPtr& bgv_context() {
  static const bgv::ContextPtr ctx = bgv::Context::create(fixture().params, kPlainModulus);
  return ctx;
}

/// The CKKS context of the fixture's parameters (default scale; the targets pass theirs).
inline const ckks::ContextPtr& ckks_context() {
  static const ckks::ContextPtr ctx = ckks::Context::create(fixture().params);
  return ctx;
}

/// A broken invariant: name it and crash, so libFuzzer keeps the input as a finding.
[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "polyhe fuzz: invariant broken: %s\n", what);
  std::fflush(stderr);
  __builtin_trap();
}

inline void require(bool ok, const char* what) {
  if (!ok) fail(what);
}

/// The bytes `in` stand for in the format this build writes. Every object but a ciphertext has
/// the same payload in versions 2 and 3, so a readable older version differs only in its header's
/// version field (u16 at offset 4). Ciphertexts gained an origin block in version 3 and have their
/// own rule (fuzz_ciphertext.cpp).
inline Bytes in_current_version(std::span<const std::uint8_t> in) {
  Bytes out(in.begin(), in.end());
  if (out.size() >= serial::kHeaderBytes && serial::format_version(in) < serial::kFormatVersion) {
    out[4] = static_cast<std::uint8_t>(serial::kFormatVersion & 0xff);
    out[5] = static_cast<std::uint8_t>(serial::kFormatVersion >> 8);
  }
  return out;
}

/// A successful load must describe exactly its bytes, as this build writes them: the encoding
/// is canonical.
inline void require_same_bytes(const Bytes& again, std::span<const std::uint8_t> in,
                               const char* what) {
  require(again == in_current_version(in), what);
}

/// Runs one input. polyhe::Error (CorruptData, MismatchedContext, InvalidParameter,
/// InsecureParameters: the loaders' documented refusals) is the expected outcome of bad bytes;
/// every other exception escapes, terminates and is a finding.
/// With POLYHE_FUZZ_VERBOSE set, each refusal's message is printed (to see why a seed is refused).
template <class Body>
int run(Body&& body) {
  static const bool verbose = std::getenv("POLYHE_FUZZ_VERBOSE") != nullptr;
  try {
    body();
    if (verbose) std::fprintf(stderr, "polyhe fuzz: loaded\n");
  } catch (const polyhe::Error& e) {
    if (verbose) std::fprintf(stderr, "polyhe fuzz: refused: %s\n", e.what());
  }
  return 0;
}

/// The centred value of word w mod q.
inline std::int64_t centred(std::uint64_t w, std::uint64_t q) {
  return w > q / 2 ? -static_cast<std::int64_t>(q - w) : static_cast<std::int64_t>(w);
}

/// Requires p (any form; a copy is taken to coefficient form) to be one integer of magnitude at
/// most `bound` per coefficient, the same in every limb.
inline void require_small(RnsPoly p, std::int64_t bound, const char* what) {
  p.to_coefficient();
  const auto& basis = p.context()->basis();
  for (std::size_t j = 0; j < p.n(); ++j) {
    const std::int64_t v = centred(p.limb(0)[j], basis.prime(0));
    require(v >= -bound && v <= bound, what);
    for (std::size_t i = 1; i < p.limbs(); ++i)
      require(centred(p.limb(i)[j], basis.prime(i)) == v, what);
  }
}

}  // namespace polyhe::fuzz
