#include "polyhe/rlwe/origin.hpp"

#include <sodium.h>

#include <algorithm>
#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace polyhe::rlwe {

namespace {

// The personalisation of the key id's BLAKE2b: "polyhe-keyid" padded with zeros to 16 bytes, as
// Python's hashlib.blake2b(person=b"polyhe-keyid") pads it.
constexpr std::array<unsigned char, crypto_generichash_blake2b_PERSONALBYTES> kPersonal = {
    'p', 'o', 'l', 'y', 'h', 'e', '-', 'k', 'e', 'y', 'i', 'd', 0, 0, 0, 0};

bool integer_scheme(SchemeTag s) {
  return s == SchemeTag::bfv || s == SchemeTag::bgv;
}

}  // namespace

const char* to_string(SchemeTag s) {
  switch (s) {
    case SchemeTag::unrecorded: return "unrecorded";
    case SchemeTag::ckks: return "CKKS";
    case SchemeTag::bfv: return "BFV";
    case SchemeTag::bgv: return "BGV";
  }
  return "unknown";
}

KeyId key_id(const PublicKey& pk) {
  if (sodium_init() < 0) throw Error("libsodium failed to initialise");
  const std::vector<std::uint8_t> bytes = serialize(pk);
  KeyId id{};
  static_assert(kKeyIdBytes >= crypto_generichash_blake2b_BYTES_MIN);
  crypto_generichash_blake2b_salt_personal(id.data(), id.size(), bytes.data(), bytes.size(),
                                           nullptr, 0, nullptr, kPersonal.data());
  return id;
}

bool is_recorded(const KeyId& key) {
  return std::any_of(key.begin(), key.end(), [](std::uint8_t b) { return b != 0; });
}

std::string to_hex(const KeyId& key) {
  if (!is_recorded(key)) return "none";
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * key.size());
  for (const std::uint8_t b : key) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

void Origin::validate(const char* what) const {
  const auto tag = static_cast<unsigned>(scheme);
  if (tag > static_cast<unsigned>(SchemeTag::bgv)) {
    throw CorruptData(std::string(what) + ": scheme tag " + std::to_string(tag) +
                      " is not one of 0 (unrecorded), 1 (CKKS), 2 (BFV), 3 (BGV)");
  }
  if (integer_scheme(scheme) ? t < 2 : t != 0) {
    throw CorruptData(std::string(what) + ": plaintext modulus t = " + std::to_string(t) +
                      " for a " + to_string(scheme) + " ciphertext (" +
                      (integer_scheme(scheme) ? "BFV and BGV record a t of at least 2"
                                              : "only BFV and BGV record a t; it must be 0") +
                      ")");
  }
}

void check_origin(const Origin& recorded, const Origin& expected, const char* what) {
  const bool both_schemes =
      recorded.scheme != SchemeTag::unrecorded && expected.scheme != SchemeTag::unrecorded;
  if (both_schemes && recorded.scheme != expected.scheme) {
    throw MismatchedContext(std::string(what) + ": scheme: the bytes hold a " +
                            to_string(recorded.scheme) + " ciphertext, the context is " +
                            to_string(expected.scheme));
  }
  if (both_schemes && integer_scheme(recorded.scheme) && recorded.t != expected.t) {
    throw MismatchedContext(std::string(what) +
                            ": t: the ciphertext was made for t = " + std::to_string(recorded.t) +
                            ", the context has t = " + std::to_string(expected.t));
  }
  if (is_recorded(recorded.key) && is_recorded(expected.key) && recorded.key != expected.key) {
    throw MismatchedContext(std::string(what) + ": key id: the ciphertext was made under key set " +
                            to_hex(recorded.key) + ", the context holds key set " +
                            to_hex(expected.key) + " (it would decrypt to garbage)");
  }
}

}  // namespace polyhe::rlwe
