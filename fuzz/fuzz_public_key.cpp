// rlwe::load_public_key against the fixture's parameters. A key that loads must re-serialise to
// its bytes; its a half, expanded again from the stored seed, must be the fixture's when the seed
// is; and it must serve: a public-key encryption under it is a well-formed ciphertext (it loads
// back from its own bytes to the same bytes). When the bytes are the fixture's key, that
// encryption of zero decrypts under the fixture's secret to small noise.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/rlwe/serial.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyhe;
  const fuzz::Fixture& f = fuzz::fixture();
  const std::span<const std::uint8_t> in(data, size);
  return fuzz::run([&] {
    const rlwe::PublicKey pk = rlwe::load_public_key(in, f.params);
    fuzz::require_same_bytes(rlwe::serialize(pk), in, "public key: re-serialised bytes differ");
    if (pk.seed == f.pk.seed) {
      fuzz::require(std::ranges::equal(pk.a.data(), f.pk.a.data()),
                    "public key: a is not the expansion of its seed");
    }

    rlwe::Encryptor enc(pk, fuzz::fixed_seed(4));
    const rlwe::Ciphertext ct = enc.encrypt_zero(f.params->max_level());
    const fuzz::Bytes ct_bytes = rlwe::serialize(ct);
    fuzz::require(rlwe::serialize(rlwe::load_ciphertext(ct_bytes, f.params)) == ct_bytes,
                  "public key: its encryption does not round-trip");
    if (std::ranges::equal(pk.b.data(), f.pk.b.data()) && pk.seed == f.pk.seed) {
      // v·e + e_0 + e_1·s, divided by P: about the rounding error (rlwe/keys.hpp).
      fuzz::require_small(rlwe::decrypt_poly(ct, f.sk), 64,
                          "public key: the fixture's key does not decrypt its encryption");
    }
  });
}
