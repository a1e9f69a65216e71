// rlwe::load_parameters, with the minimum security level insecure_none so that every stored
// level, and so every table a crafted set asks for, is reached. Each input is loaded twice: as it
// is, and with its header repaired (payload size = the bytes that follow, hash = BLAKE2b of the
// stored fields, as the loader computes it), since a mutation almost never keeps a BLAKE2b hash
// right and the fields behind it are what is worth fuzzing. A set that loads must re-serialise to
// the bytes it was loaded from and carry the hash of its header.
#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace {

using polyhe::fuzz::Bytes;

std::uint64_t get_u64(std::span<const std::uint8_t> b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

void put_u64(Bytes& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// The header's parameter hash and payload size rewritten to agree with the payload.
Bytes repaired(std::span<const std::uint8_t> in) {
  constexpr std::size_t kHashAt = 8, kSizeAt = 16;
  Bytes b(in.begin(), in.end());
  const std::size_t payload = b.size() - polyhe::serial::kHeaderBytes;
  std::uint8_t digest[crypto_generichash_BYTES_MIN];
  crypto_generichash(digest, sizeof digest, b.data() + polyhe::serial::kHeaderBytes, payload,
                     nullptr, 0);
  put_u64(b, kHashAt, get_u64(digest, 0));
  put_u64(b, kSizeAt, payload);
  return b;
}

void load_and_check(std::span<const std::uint8_t> in) {
  using namespace polyhe;
  const rlwe::ParametersPtr params = rlwe::load_parameters(in, rlwe::SecurityLevel::insecure_none);
  fuzz::require(params->hash() == get_u64(in, 8), "parameters: hash is not the header's");
  fuzz::require_same_bytes(rlwe::serialize(*params), in, "parameters: re-serialised bytes differ");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (sodium_init() < 0) __builtin_trap();
  const std::span<const std::uint8_t> in(data, size);
  polyhe::fuzz::run([&] { load_and_check(in); });
  if (size >= polyhe::serial::kHeaderBytes) {
    const Bytes fixed = repaired(in);
    if (!std::equal(fixed.begin(), fixed.end(), in.begin())) {
      polyhe::fuzz::run([&] { load_and_check(fixed); });
    }
  }
  return 0;
}
