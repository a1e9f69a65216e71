#include "polyhe/rlwe/authentication.hpp"

#include <sodium.h>

#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::rlwe {

namespace {

constexpr char kDomain[] = "polyhe-mac-v1";

void init_sodium() {
  if (sodium_init() < 0) throw Error("libsodium failed to initialise");
}

std::array<std::uint8_t, kMacTagBytes> tag_of(std::span<const std::uint8_t> bytes,
                                              const MacKey& key) {
  static_assert(kMacTagBytes >= crypto_generichash_BYTES_MIN &&
                kMacTagBytes <= crypto_generichash_BYTES_MAX);
  static_assert(kMacKeyBytes >= crypto_generichash_KEYBYTES_MIN &&
                kMacKeyBytes <= crypto_generichash_KEYBYTES_MAX);
  init_sodium();
  crypto_generichash_state state;
  crypto_generichash_init(&state, key.data(), key.size(), kMacTagBytes);
  crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(kDomain),
                            sizeof kDomain - 1);
  crypto_generichash_update(&state, bytes.data(), bytes.size());
  std::array<std::uint8_t, kMacTagBytes> tag{};
  crypto_generichash_final(&state, tag.data(), tag.size());
  sodium_memzero(&state, sizeof state);  // holds the key's block
  return tag;
}

}  // namespace

MacKey generate_mac_key() {
  init_sodium();
  MacKey key{};
  randombytes_buf(key.data(), key.size());
  return key;
}

std::vector<std::uint8_t> authenticate(std::span<const std::uint8_t> bytes, const MacKey& key) {
  const auto tag = tag_of(bytes, key);
  std::vector<std::uint8_t> out;
  out.reserve(bytes.size() + tag.size());
  out.insert(out.end(), bytes.begin(), bytes.end());
  out.insert(out.end(), tag.begin(), tag.end());
  return out;
}

std::span<const std::uint8_t> verify(std::span<const std::uint8_t> sealed, const MacKey& key) {
  if (sealed.size() < kMacTagBytes) {
    throw CorruptData("authenticated object: " + std::to_string(sealed.size()) +
                      " bytes, shorter than its " + std::to_string(kMacTagBytes) + "-byte tag");
  }
  const auto object = sealed.first(sealed.size() - kMacTagBytes);
  const auto expected = tag_of(object, key);
  if (crypto_verify_32(expected.data(), sealed.data() + object.size()) != 0) {
    throw CorruptData(
        "authenticated object: authentication failed (the tag does not match: the bytes were "
        "changed, truncated or extended, or the key is not the one they were tagged with)");
  }
  return object;
}

}  // namespace polyhe::rlwe
