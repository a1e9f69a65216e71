// rlwe::load_secret_key against the fixture's parameters. A key that loads must re-serialise to
// its bytes, and must serve: whatever s the loader accepts, the symmetric encryption of zero
// under s decrypts under s to the fresh error e alone (c_0 + c_1·s = −a·s + e + a·s), every
// coefficient the same small value in every limb (|e| ≤ η = 21, ring/sampler.hpp).
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
    const rlwe::SecretKey sk = rlwe::load_secret_key(in, f.params);
    fuzz::require_same_bytes(rlwe::serialize(sk), in, "secret key: re-serialised bytes differ");

    rlwe::Encryptor enc(sk, fuzz::fixed_seed(4));
    fuzz::require_small(rlwe::decrypt_poly(enc.encrypt_zero(f.params->max_level()), sk), kErrorEta,
                        "secret key: Dec(Enc(0)) is not the small error e");
  });
}
