// Serialisation of RLWE parameters, keys and ciphertexts (docs/design.md, "Errors and bad input":
// deserialisation never trusts a length, an index or a modulus it reads).
//
// Every object is the 24-byte header of core/serial.hpp followed by its payload, all integers
// little endian:
//
//     magic u32 ("PLHE") | version u16 (1) | kind u16 | parameter hash u64 | payload size u64
//
// The parameter hash is Parameters::hash() of the context the object was made under. A
// polynomial block `poly(l)` is l limbs of N words u64, limb-major (limb i, residues mod prime i
// of the parameters' ring: q_0..q_L then p_0..p_{k−1}), in evaluation form (the bit-reversed
// negacyclic NTT order of ring/poly.hpp), every word of limb i < prime i. A seed is 32 bytes.
// A public `a` half that was expanded from a seed is not stored: the loader expands it again
// from (seed, stream) exactly as key generation and encryption do (rlwe/keys.hpp streams).
//
//   parameters    (kind 1, hash = the hash of the payload itself)
//       Parameters::encode_fields(): log_n u32, |Q| u32, q_0..q_L u64, |P| u32, p_0..p_{k−1} u64,
//       dnum u32, hamming_weight u64, security u8 (0 = 128, 1 = 192, 2 = 256 bits,
//       3 = insecure_none)
//   secret key    (kind 2)   limbs u64 (= L+1+k) | s: poly(L+1+k)
//                            (checked on load to be ternary: every coefficient −1, 0 or 1 and
//                            the same in every limb, exactly h nonzero for a sparse secret)
//   public key    (kind 3)   limbs u64 (= L+1+k) | seed | b: poly(L+1+k)
//                            (a = uniform from (seed, kStreamPublicKeyA) over L+1+k limbs)
//   key-switching (kind 4)   ksk-payload:
//     key                      galois_element u64 (0: relinearisation; else odd, < 2N)
//                              | dnum u64 (= digit_count(L)) | limbs u64 (= L+1+k) | seed
//                              | b_0..b_{dnum−1}: poly(L+1+k) each
//                              (a_j = uniform from (seed, kStreamKeySwitchA + j), L+1+k limbs)
//   Galois keys   (kind 5)   count u64 (≤ N) | count × ksk-payload, Galois elements odd and
//                            strictly increasing
//   ciphertext    (kind 7)   origin (version 3; absent in version 2, whose ciphertexts load with
//                              their origin unrecorded): scheme u8 (0 unrecorded, 1 CKKS, 2 BFV,
//                              3 BGV) | t u64 (BFV/BGV: ≥ 2; else 0) | key id: 16 bytes (all
//                              zero: unrecorded) — rlwe/origin.hpp; checked against the
//                              context's where both record a field (MismatchedContext)
//                            | level u64 (≤ L) | size u64 (2 or 3) | scale f64 (finite, > 0)
//                            | factor u64 (> 0: BGV's plaintext factor, 1 otherwise; rlwe does
//                              not know t, BGV checks f < t and gcd(f, t) = 1 when it is used)
//                            | seeded u8 (0 or 1)
//                            | seeded = 1 (size 2 only): seed | c_0: poly(level+1)
//                              (c_1 = uniform from (seed, kStreamCiphertextA), level+1 limbs)
//                            | seeded = 0: c_0..c_{size−1}: poly(level+1) each
//
// Loading checks, in every build and before allocating anything sized by the input: the header
// (magic, version, kind, payload size = the bytes that follow), the parameter hash against
// params->hash(), every count and length against the parameters, that the payload has exactly the
// length those imply (nothing missing, nothing trailing), and every word against its prime.
// Malformed bytes throw CorruptData naming the field; well-formed bytes written under other
// parameters throw MismatchedContext with both hashes. A loaded object belongs to the
// ParametersPtr it was loaded against (pass the one pointer your other objects share).
//
// What loading cannot check — words changed below their primes in a public key, a key-switching
// key or a ciphertext, a Galois key relabelled to another valid rotation — authenticated
// serialisation detects (rlwe/authentication.hpp: a keyed BLAKE2b tag over the bytes).
// The schemes add their own rules: ckks::load_ciphertext (scale range, factor 1) and
// bgv::load_ciphertext (factor a unit mod t); use those for ciphertexts of a scheme.
//
// The serialised secret key is the secret: the caller owns (and should wipe) those bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "polyhe/core/serial.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/origin.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::rlwe {

/// The most primes (|Q| + |P|) load_parameters accepts: Parameters' own limit (kMaxPrimes).
inline constexpr std::size_t kMaxSerialPrimes = kMaxPrimes;

[[nodiscard]] std::vector<std::uint8_t> serialize(const Parameters& params);
/// Re-creates the parameters through Parameters::create (so the security level is re-checked:
/// InsecureParameters passes through); the header's hash must be the hash of the stored fields.
/// The caller's policy comes first: the stored security level must be at least `minimum`
/// (insecure_none < 128 < 192 < 256 bits), checked before anything is built — a file cannot
/// lower the bar by declaring itself insecure. InsecureParameters names both levels; pass
/// SecurityLevel::insecure_none to accept any stored level by name (tests, toy examples).
[[nodiscard]] ParametersPtr load_parameters(std::span<const std::uint8_t> bytes,
                                            SecurityLevel minimum = SecurityLevel::bits128);

[[nodiscard]] std::vector<std::uint8_t> serialize(const SecretKey& sk);
[[nodiscard]] SecretKey load_secret_key(std::span<const std::uint8_t> bytes,
                                        const ParametersPtr& params);

/// b and the seed of a: half the size of both halves.
[[nodiscard]] std::vector<std::uint8_t> serialize(const PublicKey& pk);
[[nodiscard]] PublicKey load_public_key(std::span<const std::uint8_t> bytes,
                                        const ParametersPtr& params);

/// The b_j and the seed of the a_j: half size.
[[nodiscard]] std::vector<std::uint8_t> serialize(const KeySwitchKey& key);
[[nodiscard]] KeySwitchKey load_key_switch_key(std::span<const std::uint8_t> bytes,
                                               const ParametersPtr& params);

[[nodiscard]] std::vector<std::uint8_t> serialize(const GaloisKeys& keys);
[[nodiscard]] GaloisKeys load_galois_keys(std::span<const std::uint8_t> bytes,
                                          const ParametersPtr& params);

/// The bytes of an origin block in a ciphertext: scheme u8, t u64, key id.
inline constexpr std::size_t kOriginBytes = 1 + 8 + kKeyIdBytes;

/// A seeded ciphertext (fresh symmetric encryption) stores c_0 and the seed of c_1: half size;
/// it loads seeded again. Any other ciphertext stores every part. `origin` is recorded as given
/// (the schemes make it: ckks::origin, bgv::origin); InvalidParameter if it is inconsistent
/// (Origin::validate).
[[nodiscard]] std::vector<std::uint8_t> serialize(const Ciphertext& ct, const Origin& origin = {});
/// The same bytes appended to `out`: a caller that serialises many ciphertexts reuses one buffer
/// (a fresh vector of megabytes per call costs its page faults again whenever the allocator has
/// given the last one back to the system). On an exception `out` is left as it was.
void serialize(const Ciphertext& ct, std::vector<std::uint8_t>& out, const Origin& origin = {});
/// The recorded origin is checked against `expected` (check_origin: MismatchedContext naming the
/// field); the schemes' loaders pass theirs.
[[nodiscard]] Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes,
                                         const ParametersPtr& params, const Origin& expected = {});

/// The origin a ciphertext's bytes record (unrecorded for format version 2), read from its header
/// and origin block alone: CorruptData for bytes that are not a ciphertext's or an inconsistent
/// origin. The rest of the bytes is not checked (load_ciphertext does that).
[[nodiscard]] Origin ciphertext_origin(std::span<const std::uint8_t> bytes);

/// Building blocks for the schemes' own objects (ckks/serial.hpp).
namespace serial_detail {

/// Writes the header of a `kind` object made under `params`.
void begin(serial::Writer& w, serial::Kind kind, const Parameters& params);
/// Reads and checks the header (CorruptData) and its parameter hash against params
/// (MismatchedContext naming both hashes); InvalidParameter for null params. Returns the header.
serial::Header open(serial::Reader& r, serial::Kind kind, const ParametersPtr& params);
/// Appends p's words; InvalidParameter unless p is in evaluation form over params' ring with
/// `limbs` limbs (`what` names the object in the message).
void write_poly(serial::Writer& w, const RnsPoly& p, const Parameters& params, std::size_t limbs,
                const char* what);
/// Fills p (evaluation form, of params' ring) limb by limb, each word checked < its prime.
void read_poly(serial::Reader& r, RnsPoly& p, const std::string& field);
/// CorruptData unless exactly `needed` bytes remain (checked before allocating what they hold).
void expect_remaining(serial::Reader& r, std::uint64_t needed);
/// The bytes of one poly(limbs) block under params.
[[nodiscard]] std::uint64_t poly_bytes(const Parameters& params, std::size_t limbs);
/// A scale field: finite and > 0 (CorruptData otherwise).
[[nodiscard]] double read_scale(serial::Reader& r);
/// "0x" and 16 hex digits.
[[nodiscard]] std::string hex(std::uint64_t v);

}  // namespace serial_detail

}  // namespace polyhe::rlwe
