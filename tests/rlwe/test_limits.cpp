// Cheap checks first (issue 19): Parameters::create and load_parameters check counts and security
// before they search for primes or build tables, so a refused request costs next to nothing
// whatever it asks for. The "before anything is built" half is checked in a child process whose
// address space is capped at its size now plus 256 MiB (RLIMIT_AS): a set whose tables take
// gigabytes must still be refused there with its own error, not std::bad_alloc. (The cap cannot
// coexist with AddressSanitizer's shadow memory, so that half is not built under it.)
#include <gtest/gtest.h>
#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rlwe/serial.hpp"

#if !defined(__SANITIZE_ADDRESS__)
#include <sys/resource.h>
#endif

namespace polyhe {
namespace {

using Bytes = std::vector<std::uint8_t>;
using rlwe::SecurityLevel;

// 2^17 with 64 primes of 60 bits: 3840 bits (over the 3523 of 128-bit security); tables of about
// 2.4 GB if it were ever built.
rlwe::ParametersLiteral huge_literal(SecurityLevel security) {
  const std::vector<std::uint64_t> primes = ntt_primes(60, std::size_t{1} << 17, 64);
  rlwe::ParametersLiteral lit;
  lit.log_n = 17;
  lit.q.assign(primes.begin(), primes.end() - 1);
  lit.p = {primes.back()};
  lit.dnum = lit.q.size();
  lit.security = security;
  return lit;
}

// The serialised fields of `lit` (explicit primes), as Parameters::encode_fields writes them,
// with a correct header hash: a well-formed file that names a huge set.
Bytes parameter_file(const rlwe::ParametersLiteral& lit) {
  Bytes fields;
  serial::Writer f(fields);
  f.u32(static_cast<std::uint32_t>(lit.log_n));
  f.u32(static_cast<std::uint32_t>(lit.q.size()));
  f.words(lit.q);
  f.u32(static_cast<std::uint32_t>(lit.p.size()));
  f.words(lit.p);
  f.u32(static_cast<std::uint32_t>(lit.dnum));
  f.u64(lit.hamming_weight);
  f.u8(static_cast<std::uint8_t>(lit.security));
  std::uint8_t digest[crypto_generichash_BYTES_MIN];
  crypto_generichash(digest, sizeof digest, fields.data(), fields.size(), nullptr, 0);
  std::uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h |= std::uint64_t{digest[i]} << (8 * i);
  Bytes out;
  serial::Writer w(out);
  w.header(serial::Kind::parameters, h);
  w.bytes(fields);
  w.finish();
  return out;
}

TEST(ParameterLimits, TooManyPrimesIsRefusedByCount) {
  for (const std::size_t q_count : {rlwe::kMaxPrimes, std::size_t{300}, std::size_t{100000}}) {
    rlwe::ParametersLiteral lit;
    lit.log_n = 12;
    lit.q_bits.assign(q_count, 40);
    lit.p_bits = {40};
    lit.security = SecurityLevel::insecure_none;
    try {
      (void)rlwe::Parameters::create(lit);
      ADD_FAILURE() << q_count << " primes accepted";
    } catch (const InvalidParameter& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::to_string(q_count) + " + 1 primes exceeds the limit of 64"),
                std::string::npos)
          << what;
    }
  }
  // At the limit: accepted (a small N keeps it quick).
  rlwe::ParametersLiteral lit;
  lit.log_n = 5;
  lit.q_bits.assign(rlwe::kMaxPrimes - 1, 30);
  lit.p_bits = {30};
  lit.security = SecurityLevel::insecure_none;
  EXPECT_EQ(rlwe::Parameters::create(lit)->q_count(), rlwe::kMaxPrimes - 1);
}

TEST(ParameterLimits, SerialisedPrimeCountsAreBounded) {
  rlwe::ParametersLiteral lit = huge_literal(SecurityLevel::insecure_none);
  lit.p.push_back(ntt_primes(59, std::size_t{1} << 17, 1)[0]);  // 65 primes
  EXPECT_THROW((void)rlwe::load_parameters(parameter_file(lit), SecurityLevel::insecure_none),
               CorruptData);
}

// The largest odd-m sets the limits admit: m = 131023 (a prime: one Rader transform of length
// 131023 per prime, over a convolution of 131022 = 2·9·29·251 that nests two more), with 27 + 1
// primes of 62 bits (128-bit secure, accepted by the default minimum) and with 63 + 1 (the prime
// limit, opted out by name). Loading plans every prime's transform; the tables each transform
// needs are built on its first use (src/ntt/cyclic/nodes.hpp's LazyTable), so loading is quick —
// measured in docs/security.md, not asserted here. The loaded set equals the stored one, and the
// transforms it builds on first use are right: X goes to ω^k in the slot of exponent k, and back.
TEST(ParameterLimits, LargestOddMSetsLoadAndTransform) {
  struct Case {
    std::size_t q_count;
    SecurityLevel security;
  };
  for (const Case c : {Case{27, SecurityLevel::bits128},
                       Case{rlwe::kMaxPrimes - 1, SecurityLevel::insecure_none}}) {
    SCOPED_TRACE(::testing::Message() << c.q_count << " + 1 primes");
    rlwe::ParametersLiteral lit;
    lit.m = 131023;
    lit.q_bits.assign(c.q_count, 62);
    lit.p_bits = {62};
    lit.security = c.security;
    const rlwe::ParametersPtr params = rlwe::Parameters::create(lit);
    const Bytes bytes = rlwe::serialize(*params);
    const rlwe::ParametersPtr loaded = rlwe::load_parameters(bytes, c.security);
    EXPECT_EQ(loaded->hash(), params->hash());
    EXPECT_EQ(loaded->m(), lit.m);
    EXPECT_EQ(loaded->n(), lit.m - 1);
    EXPECT_EQ(loaded->q_primes(), params->q_primes());
    EXPECT_EQ(loaded->p_primes(), params->p_primes());
    EXPECT_EQ(rlwe::serialize(*loaded), bytes);
    const RingContext& ring = *loaded->ring();
    for (const std::size_t i : {std::size_t{0}, ring.max_limbs() - 1}) {
      const PowerfulNtt& t = *ring.powerful(i);
      std::vector<std::uint64_t> x(ring.n(), 0);
      x[1] = 1;  // X: for a prime m the powerful basis is the power basis
      ring.forward(i, x);
      const auto k = t.slot_exponents();
      for (std::size_t slot = 0; slot < x.size(); slot += 1009) {
        ASSERT_EQ(x[slot], pow_mod(t.omega(), k[slot], t.q())) << "limb " << i << ", slot " << slot;
      }
      ring.inverse(i, x);
      std::vector<std::uint64_t> monomial(ring.n(), 0);
      monomial[1] = 1;
      EXPECT_EQ(x, monomial) << "limb " << i;
    }
  }
}

#if !defined(__SANITIZE_ADDRESS__)

// The process's address space now (VmSize), in bytes.
rlim_t address_space_now() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      rlim_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

// Runs `body` with the address space capped at its size now + 256 MiB. Exit codes: 0 the body
// threw the expected error, 1 it returned, 2 std::bad_alloc (it built tables), 3 another error.
template <class Expected>
[[noreturn]] void capped(const std::function<void()>& body) {
  const rlim_t cap = address_space_now() + (rlim_t{256} << 20);
  const rlimit limit{cap, cap};
  if (address_space_now() == 0 || setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(4);
  try {
    body();
    std::_Exit(1);
  } catch (const Expected&) {
    std::_Exit(0);
  } catch (const std::bad_alloc&) {
    std::_Exit(2);
  } catch (...) {
    std::_Exit(3);
  }
}

TEST(ParameterLimitsDeathTest, RefusedBeforeAnyTableIsBuilt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const rlwe::ParametersLiteral insecure = huge_literal(SecurityLevel::bits128);
  // Construction: over the 128-bit bound.
  EXPECT_EXIT(capped<InsecureParameters>([&] { (void)rlwe::Parameters::create(insecure); }),
              testing::ExitedWithCode(0), "");
  // A file that declares itself insecure_none, loaded under the default minimum.
  const Bytes declared_none = parameter_file(huge_literal(SecurityLevel::insecure_none));
  EXPECT_EXIT(capped<InsecureParameters>([&] { (void)rlwe::load_parameters(declared_none); }),
              testing::ExitedWithCode(0), "");
  // A file that claims 128 bits but carries 3840: refused by the table, before building.
  const Bytes claims_128 = parameter_file(insecure);
  EXPECT_EXIT(capped<InsecureParameters>([&] { (void)rlwe::load_parameters(claims_128); }),
              testing::ExitedWithCode(0), "");
  // P narrower than a digit: refused before building too.
  rlwe::ParametersLiteral narrow = huge_literal(SecurityLevel::insecure_none);
  narrow.dnum = 1;
  EXPECT_EXIT(capped<InvalidParameter>([&] { (void)rlwe::Parameters::create(narrow); }),
              testing::ExitedWithCode(0), "");
  // And the cap is real: building the same set opted out by name runs out of memory there.
  const rlwe::ParametersLiteral opted_out = huge_literal(SecurityLevel::insecure_none);
  EXPECT_EXIT(capped<InsecureParameters>([&] { (void)rlwe::Parameters::create(opted_out); }),
              testing::ExitedWithCode(2), "");
}

#endif

}  // namespace
}  // namespace polyhe
