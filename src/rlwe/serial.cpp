#include "polyhe/rlwe/serial.hpp"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/context.hpp"

namespace polyhe::rlwe {

using serial::Kind;
using serial::Reader;
using serial::Writer;

namespace serial_detail {

std::string hex(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void begin(Writer& w, Kind kind, const Parameters& params) {
  w.header(kind, params.hash());
}

serial::Header open(Reader& r, Kind kind, const ParametersPtr& params) {
  if (!params) {
    throw InvalidParameter(std::string("load ") + serial::to_string(kind) + ": null parameters");
  }
  const serial::Header h = r.header(kind);
  if (h.parameter_hash != params->hash()) {
    throw MismatchedContext(std::string(serial::to_string(kind)) +
                            ": written under parameters with hash " + hex(h.parameter_hash) +
                            ", loaded against parameters with hash " + hex(params->hash()) +
                            " (load it with the parameters it was made under)");
  }
  return h;
}

void write_poly(Writer& w, const RnsPoly& p, const Parameters& params, std::size_t limbs,
                const char* what) {
  if (p.context() != params.ring() || p.limbs() != limbs || p.form() != PolyForm::kEvaluation) {
    throw InvalidParameter(
        std::string("serialize: ") + what + " must be a polynomial of its parameters' ring with " +
        std::to_string(limbs) + " limbs in evaluation form (it has " + std::to_string(p.limbs()) +
        " limbs in " + to_string(p.form()) + " form)");
  }
  if (p.on_device()) {
    // A device object is written from a host copy, wiped after (it may be a secret key's).
    RnsPoly host = p.to_host();
    w.words(host.data());
    host.wipe();
  } else {
    w.words(p.data());
  }
}

void read_poly(Reader& r, RnsPoly& p, const std::string& field) {
  const RnsBasis& basis = p.context()->basis();
  for (std::size_t i = 0; i < p.limbs(); ++i) {
    const std::string name = field + " limb " + std::to_string(i);
    r.words(p.limb(i), basis.prime(i), name.c_str());
  }
}

std::uint64_t poly_bytes(const Parameters& params, std::size_t limbs) {
  return std::uint64_t{8} * limbs * params.n();
}

void expect_remaining(Reader& r, std::uint64_t needed) {
  if (r.remaining() != needed) {
    r.fail("the fields read so far call for " + std::to_string(needed) +
           " more bytes, but the payload holds " + std::to_string(r.remaining()) + " at offset " +
           std::to_string(r.offset()));
  }
}

double read_scale(Reader& r) {
  const double scale = r.f64("scale");
  if (!std::isfinite(scale) || !(scale > 0)) {
    r.fail("scale " + std::to_string(scale) + " is not a finite positive number");
  }
  return scale;
}

}  // namespace serial_detail

namespace {

using namespace serial_detail;

constexpr std::size_t kSecurityLevels = 4;  // bits128, bits192, bits256, insecure_none

// Parameters::hash(): the first 8 bytes (little endian) of BLAKE2b-128 over the canonical fields.
// Computed here over the stored bytes so a damaged payload is recognised before it reaches
// Parameters::create (whose InsecureParameters must only ever describe intact parameters).
std::uint64_t fields_hash(std::span<const std::uint8_t> fields) {
  if (sodium_init() < 0) throw Error("libsodium failed to initialise");
  std::uint8_t digest[crypto_generichash_BYTES_MIN];
  crypto_generichash(digest, sizeof digest, fields.data(), fields.size(), nullptr, 0);
  std::uint64_t h = 0;
  for (int i = 0; i < 8; ++i) h |= std::uint64_t{digest[i]} << (8 * i);
  return h;
}

// A u32 count in [lo, hi] followed by that many primes (< 2^kMaxBits), read without trusting it.
std::vector<std::uint64_t> read_primes(Reader& r, const char* count_field, const char* field,
                                       std::uint32_t lo, std::uint32_t hi) {
  const std::uint32_t count = r.u32(count_field);
  if (count < lo || count > hi) {
    r.fail(std::string(count_field) + " = " + std::to_string(count) + " is outside [" +
           std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  if (r.remaining() / 8 < count) {
    r.fail(std::string(count_field) + " = " + std::to_string(count) + " primes need " +
           std::to_string(8 * std::uint64_t{count}) + " bytes, only " +
           std::to_string(r.remaining()) + " left");
  }
  std::vector<std::uint64_t> primes(count);
  r.words(primes, std::uint64_t{1} << RnsBasis::kMaxBits, field);
  return primes;
}

void read_seed(Reader& r, Seed& seed) {
  r.bytes(seed, "seed");
}

void write_seed(Writer& w, const Seed& seed) {
  w.bytes(seed);
}

void require_params(const ParametersPtr& params, const char* what) {
  if (!params) throw InvalidParameter(std::string("serialize ") + what + ": null parameters");
}

std::size_t all_limbs(const Parameters& params) {
  return params.q_count() + params.p_count();
}

std::size_t top_digits(const Parameters& params) {
  return params.key_switch_basis().digit_count(params.max_level());
}

// The ksk-payload of serial.hpp: bytes once the parameters are known.
std::uint64_t ksk_payload_bytes(const Parameters& params) {
  return 3 * 8 + kSeedBytes + top_digits(params) * poly_bytes(params, all_limbs(params));
}

void write_ksk_payload(Writer& w, const KeySwitchKey& key) {
  const Parameters& params = *key.params;
  const std::size_t dnum = top_digits(params);
  if (key.parts.count() != dnum) {
    throw InvalidParameter("serialize key-switching key: " + std::to_string(key.parts.count()) +
                           " parts, the parameters have " + std::to_string(dnum) + " digits");
  }
  if (key.parts.context() != params.ring()) {
    throw MismatchedContext(
        "serialize key-switching key: its parts belong to other parameters than the key's");
  }
  const std::size_t limbs = all_limbs(params);
  w.u64(key.galois_element);
  w.u64(dnum);
  w.u64(limbs);
  write_seed(w, key.seed);
  // A key on a device is written from one host copy.
  const std::optional<KeySwitchParts> downloaded =
      key.parts.device() ? std::optional<KeySwitchParts>(key.parts.to_host()) : std::nullopt;
  const KeySwitchParts& parts = downloaded ? *downloaded : key.parts;
  for (std::size_t j = 0; j < dnum; ++j) {
    write_poly(w, parts.b(j), params, limbs, "key-switching key part b_j");
  }
}

// Reads one ksk-payload. The caller has checked (before anything is allocated) that the
// remaining bytes are exactly the ksk_payload_bytes(params) of each key it expects.
KeySwitchKey read_ksk_payload(Reader& r, const ParametersPtr& params) {
  const std::uint64_t g = r.u64("Galois element");
  if (g != 0 && !params->ring()->is_galois_element(g)) {
    r.fail("Galois element " + std::to_string(g) + " is neither 0 (relinearisation) nor " +
           params->ring()->galois_rule());
  }
  const std::size_t dnum = top_digits(*params);
  r.count("dnum", dnum, dnum);
  const std::size_t limbs = all_limbs(*params);
  r.count("limbs", limbs, limbs);
  KeySwitchKey key{params, KeySwitchParts(params->ring(), dnum), {}, g};
  read_seed(r, key.seed);
  const auto& ring = params->ring();
  for (std::size_t j = 0; j < dnum; ++j) {
    RnsPoly b(ring, limbs, PolyForm::kEvaluation);
    read_poly(r, b, "b_" + std::to_string(j));
    RnsPoly a(ring, limbs, PolyForm::kEvaluation);
    Prng prng(key.seed, kStreamKeySwitchA + j);
    sample_uniform(prng, a);
    key.parts.set(j, b, a);
  }
  return key;
}

}  // namespace

// ---- parameters ------------------------------------------------------------------------------

std::vector<std::uint8_t> serialize(const Parameters& params) {
  std::vector<std::uint8_t> out;
  Writer w(out);
  begin(w, Kind::parameters, params);
  w.bytes(params.encode_fields());
  w.finish();
  return out;
}

ParametersPtr load_parameters(std::span<const std::uint8_t> bytes, SecurityLevel minimum) {
  if (static_cast<unsigned>(minimum) >= kSecurityLevels) {
    throw InvalidParameter("load_parameters: minimum security level " +
                           std::to_string(static_cast<unsigned>(minimum)) +
                           " is not a SecurityLevel");
  }
  Reader r(bytes, "parameters");
  const serial::Header h = r.header(Kind::parameters);
  const std::uint64_t stored = fields_hash(bytes.subspan(r.offset()));
  if (stored != h.parameter_hash) {
    r.fail("the header's hash " + hex(h.parameter_hash) + " is not the hash " + hex(stored) +
           " of the stored fields (damaged data)");
  }
  ParametersLiteral lit;
  const std::uint32_t log_n = r.u32("log_n");
  if (log_n > 17) r.fail("log_n = " + std::to_string(log_n) + " is outside [1, 17]");
  lit.log_n = static_cast<int>(log_n);
  std::uint64_t n = std::uint64_t{1} << log_n;
  if (log_n == 0) {  // Φ_m for an odd m
    lit.m = r.u64("m");
    if (lit.m % 2 == 0 || lit.m < 3 || lit.m > RingContext::kMaxM) {
      r.fail("m = " + std::to_string(lit.m) + " is not odd in [3, " +
             std::to_string(RingContext::kMaxM) + "]");
    }
    n = euler_phi(lit.m);
  }
  lit.q = read_primes(r, "|Q|", "q", 1, kMaxSerialPrimes - 1);
  lit.p =
      read_primes(r, "|P|", "p", 1, static_cast<std::uint32_t>(kMaxSerialPrimes - lit.q.size()));
  const std::uint32_t dnum = r.u32("dnum");
  if (dnum < 1 || dnum > lit.q.size()) {
    r.fail("dnum = " + std::to_string(dnum) +
           " is outside [1, |Q| = " + std::to_string(lit.q.size()) + "]");
  }
  lit.dnum = dnum;
  lit.hamming_weight = r.count("hamming weight", 0, n);
  const std::uint8_t security = r.u8("security");
  if (security >= kSecurityLevels) {
    r.fail("security level " + std::to_string(security) + " is not one of 0..3");
  }
  lit.security = static_cast<SecurityLevel>(security);
  r.expect_end();
  if (security_rank(lit.security) < security_rank(minimum)) {
    throw InsecureParameters(
        "parameters: the stored set declares security " + std::string(to_string(lit.security)) +
        ", below the minimum " + to_string(minimum) +
        " this load requires; load it with minimum = SecurityLevel::insecure_none to accept it "
        "by name");
  }
  ParametersPtr params;
  try {
    params = Parameters::create(lit);
  } catch (const InvalidParameter& e) {
    r.fail(std::string("the stored values are not valid parameters: ") + e.what());
  }
  if (params->hash() != h.parameter_hash) {
    r.fail("the re-created parameters hash to " + hex(params->hash()) + ", not " +
           hex(h.parameter_hash));
  }
  return params;
}

// ---- secret key ------------------------------------------------------------------------------

std::vector<std::uint8_t> serialize(const SecretKey& sk) {
  require_params(sk.params, "secret key");
  const Parameters& params = *sk.params;
  const std::size_t limbs = all_limbs(params);
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + 8 + poly_bytes(params, limbs));
  Writer w(out);
  begin(w, Kind::secret_key, params);
  w.u64(limbs);
  write_poly(w, sk.s, params, limbs, "secret key s");
  w.finish();
  return out;
}

namespace {

// A secret key is ternary (KeyGenerator::secret_key): every coefficient is −1, 0 or 1, the same in
// every limb, with exactly h nonzero for a sparse secret. Bytes that pass the word checks but
// change a coefficient (a tampered or damaged key) would otherwise decrypt to garbage silently.
void check_ternary(const RnsPoly& s, const Parameters& params) {
  const polyhe::detail::SecretScope secret;  // the transform's scratch wiped (core/wipe.hpp)
  RnsPoly coeffs = s;
  coeffs.to_coefficient();
  const std::size_t n = params.n();
  const RnsBasis& basis = params.ring()->basis();
  std::size_t nonzero = 0;
  std::string problem;
  for (std::size_t j = 0; j < n && problem.empty(); ++j) {
    const std::uint64_t q0 = basis.prime(0);
    const std::uint64_t w0 = coeffs.limb(0)[j];
    const int v = w0 == 0 ? 0 : w0 == 1 ? 1 : w0 == q0 - 1 ? -1 : 2;
    if (v == 2) {
      problem = "coefficient " + std::to_string(j) + " is " + std::to_string(w0) +
                " mod q_0 = " + std::to_string(q0) + ", not -1, 0 or 1";
      break;
    }
    nonzero += v != 0 ? 1 : 0;
    for (std::size_t i = 1; i < coeffs.limbs(); ++i) {
      const std::uint64_t qi = basis.prime(i);
      const std::uint64_t want = v == 0 ? 0 : v == 1 ? 1 : qi - 1;
      if (coeffs.limb(i)[j] != want) {
        problem = "coefficient " + std::to_string(j) + " is " + std::to_string(v) +
                  " mod q_0 but " + std::to_string(coeffs.limb(i)[j]) + " mod prime " +
                  std::to_string(i) + " (" + std::to_string(qi) + ")";
        break;
      }
    }
  }
  coeffs.wipe();  // the secret, in the clear
  if (!problem.empty()) {
    throw CorruptData("secret key: s is not a ternary secret: " + problem +
                      " (damaged or altered data)");
  }
  if (params.hamming_weight() != 0 && nonzero != params.hamming_weight()) {
    throw CorruptData("secret key: s has " + std::to_string(nonzero) +
                      " nonzero coefficients, the parameters' sparse secret has h = " +
                      std::to_string(params.hamming_weight()) + " (damaged or altered data)");
  }
}

}  // namespace

SecretKey load_secret_key(std::span<const std::uint8_t> bytes, const ParametersPtr& params) {
  Reader r(bytes, "secret key");
  open(r, Kind::secret_key, params);
  const std::size_t limbs = all_limbs(*params);
  r.count("limbs", limbs, limbs);
  expect_remaining(r, poly_bytes(*params, limbs));
  SecretKey sk{params, RnsPoly(params->ring(), limbs, PolyForm::kEvaluation)};
  read_poly(r, sk.s, "s");
  r.expect_end();
  check_ternary(sk.s, *params);
  return sk;
}

// ---- public key ------------------------------------------------------------------------------

std::vector<std::uint8_t> serialize(const PublicKey& pk) {
  require_params(pk.params, "public key");
  const Parameters& params = *pk.params;
  const std::size_t limbs = all_limbs(params);
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + 8 + kSeedBytes + poly_bytes(params, limbs));
  Writer w(out);
  begin(w, Kind::public_key, params);
  w.u64(limbs);
  write_seed(w, pk.seed);
  write_poly(w, pk.b, params, limbs, "public key b");
  w.finish();
  return out;
}

PublicKey load_public_key(std::span<const std::uint8_t> bytes, const ParametersPtr& params) {
  Reader r(bytes, "public key");
  open(r, Kind::public_key, params);
  const std::size_t limbs = all_limbs(*params);
  r.count("limbs", limbs, limbs);
  expect_remaining(r, kSeedBytes + poly_bytes(*params, limbs));
  const auto& ring = params->ring();
  PublicKey pk{params,
               RnsPoly(ring, limbs, PolyForm::kEvaluation),
               RnsPoly(ring, limbs, PolyForm::kEvaluation),
               {}};
  read_seed(r, pk.seed);
  read_poly(r, pk.b, "b");
  r.expect_end();
  Prng prng(pk.seed, kStreamPublicKeyA);
  sample_uniform(prng, pk.a);
  return pk;
}

// ---- key-switching keys ----------------------------------------------------------------------

std::vector<std::uint8_t> serialize(const KeySwitchKey& key) {
  require_params(key.params, "key-switching key");
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + ksk_payload_bytes(*key.params));
  Writer w(out);
  begin(w, Kind::key_switch_key, *key.params);
  write_ksk_payload(w, key);
  w.finish();
  return out;
}

KeySwitchKey load_key_switch_key(std::span<const std::uint8_t> bytes, const ParametersPtr& params) {
  Reader r(bytes, "key-switching key");
  open(r, Kind::key_switch_key, params);
  expect_remaining(r, ksk_payload_bytes(*params));
  KeySwitchKey key = read_ksk_payload(r, params);
  r.expect_end();
  return key;
}

std::vector<std::uint8_t> serialize(const GaloisKeys& keys) {
  require_params(keys.params, "Galois keys");
  const Parameters& params = *keys.params;
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + 8 + keys.keys.size() * ksk_payload_bytes(params));
  Writer w(out);
  begin(w, Kind::galois_keys, params);
  w.u64(keys.keys.size());
  for (const auto& [k, key] : keys.keys) {  // std::map: increasing k
    check_same_params(keys.params, key.params, "serialize Galois keys");
    if (k != key.galois_element || !params.ring()->is_galois_element(k)) {
      throw InvalidParameter("serialize Galois keys: the key stored under element " +
                             std::to_string(k) + " is for element " +
                             std::to_string(key.galois_element) + " (both must agree and be " +
                             params.ring()->galois_rule() + ")");
    }
    write_ksk_payload(w, key);
  }
  w.finish();
  return out;
}

GaloisKeys load_galois_keys(std::span<const std::uint8_t> bytes, const ParametersPtr& params) {
  Reader r(bytes, "Galois keys");
  open(r, Kind::galois_keys, params);
  // At most one key per odd element below 2N: N of them.
  const std::uint64_t count = r.count("key count", 0, params->n());
  const std::uint64_t per_key = ksk_payload_bytes(*params);
  expect_remaining(r, count * per_key);  // count ≤ 2^17, per_key < 2^40: no overflow
  GaloisKeys keys{params, {}};
  std::uint64_t previous = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t at = r.offset();
    KeySwitchKey key = read_ksk_payload(r, params);
    if (key.galois_element == 0 || key.galois_element <= previous) {
      r.fail("key " + std::to_string(i) + " at offset " + std::to_string(at) +
             " has Galois element " + std::to_string(key.galois_element) +
             "; the elements must be odd and strictly increasing");
    }
    previous = key.galois_element;
    keys.keys.emplace(previous, std::move(key));
  }
  r.expect_end();
  return keys;
}

// ---- ciphertexts -----------------------------------------------------------------------------

std::vector<std::uint8_t> serialize(const Ciphertext& ct, const Origin& origin) {
  std::vector<std::uint8_t> out;
  serialize(ct, out, origin);
  return out;
}

void serialize(const Ciphertext& ct, std::vector<std::uint8_t>& out, const Origin& origin) {
  require_params(ct.params(), "ciphertext");
  const Parameters& params = *ct.params();
  const std::size_t limbs = ct.limbs();
  const bool seeded = ct.seed().has_value() && ct.size() == 2;
  const std::size_t stored_parts = seeded ? 1 : ct.size();
  try {
    origin.validate("serialize ciphertext");
  } catch (const CorruptData& e) {
    throw InvalidParameter(e.what());
  }
  const std::size_t need = serial::kHeaderBytes + kOriginBytes + 33 + (seeded ? kSeedBytes : 0) +
                           stored_parts * poly_bytes(params, limbs);
  if (out.capacity() - out.size() < need) {
    // Geometric growth, so that appending many ciphertexts to one buffer copies it O(log n) times.
    out.reserve(std::max(out.size() + need, 2 * out.capacity()));
  }
  const std::size_t start = out.size();
  try {
    Writer w(out);
    begin(w, Kind::ciphertext, params);
    w.u8(static_cast<std::uint8_t>(origin.scheme));
    w.u64(origin.t);
    w.bytes(origin.key);
    w.u64(ct.level());
    w.u64(ct.size());
    w.f64(ct.scale());
    w.u64(ct.factor());
    w.u8(seeded ? 1 : 0);
    if (seeded) write_seed(w, *ct.seed());
    for (std::size_t i = 0; i < stored_parts; ++i) {
      write_poly(w, ct[i], params, limbs, "ciphertext part");
    }
    w.finish();
  } catch (...) {
    out.resize(start);  // what was there before, and nothing of this one
    throw;
  }
}

namespace {

// The origin block of a ciphertext of format version ≥ 3 (unrecorded before), validated.
Origin read_origin(Reader& r, const serial::Header& h) {
  Origin recorded;
  if (h.version < 3) return recorded;
  recorded.scheme = static_cast<SchemeTag>(r.u8("scheme tag"));
  recorded.t = r.u64("plaintext modulus t");
  r.bytes(recorded.key, "key id");
  recorded.validate("ciphertext");
  return recorded;
}

}  // namespace

Origin ciphertext_origin(std::span<const std::uint8_t> bytes) {
  Reader r(bytes, "ciphertext");
  return read_origin(r, r.header(Kind::ciphertext));
}

Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes, const ParametersPtr& params,
                           const Origin& expected) {
  Reader r(bytes, "ciphertext");
  const serial::Header h = open(r, Kind::ciphertext, params);
  check_origin(read_origin(r, h), expected, "ciphertext");
  const std::size_t level = r.count("level", 0, params->max_level());
  const std::size_t size = r.count("size", 2, 3);
  const double scale = read_scale(r);
  const std::uint64_t factor = r.u64("factor");
  if (factor == 0) r.fail("plaintext factor 0 is not invertible (it must be > 0)");
  const std::uint8_t seeded = r.u8("seeded flag");
  if (seeded > 1) r.fail("seeded flag " + std::to_string(seeded) + " is neither 0 nor 1");
  if (seeded == 1 && size != 2) {
    r.fail("a seeded ciphertext has 2 parts, this one claims " + std::to_string(size));
  }
  const std::size_t limbs = level + 1;
  const std::size_t stored_parts = seeded == 1 ? 1 : size;
  expect_remaining(r, (seeded == 1 ? kSeedBytes : 0) + stored_parts * poly_bytes(*params, limbs));
  Seed seed{};
  if (seeded == 1) read_seed(r, seed);
  Ciphertext ct(params, level, size, scale);
  ct.set_factor(factor);
  for (std::size_t i = 0; i < stored_parts; ++i) read_poly(r, ct[i], "c_" + std::to_string(i));
  r.expect_end();
  if (seeded == 1) {
    Prng prng(seed, kStreamCiphertextA);
    sample_uniform(prng, ct[1]);
    ct.set_seed(seed);  // after the mutable access above, which forgets any seed
  }
  return ct;
}

}  // namespace polyhe::rlwe
