// rlwe::load_galois_keys against the fixture's parameters. Keys that load must re-serialise to
// their bytes, be filed under their own odd Galois element k < 2N, and serve: the automorphism of
// the first key applied to the fixture's ciphertext gives a well-formed ciphertext.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rlwe/serial.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyhe;
  const fuzz::Fixture& f = fuzz::fixture();
  const std::span<const std::uint8_t> in(data, size);
  return fuzz::run([&] {
    const rlwe::GaloisKeys keys = rlwe::load_galois_keys(in, f.params);
    fuzz::require_same_bytes(rlwe::serialize(keys), in, "Galois keys: re-serialised bytes differ");
    fuzz::require(keys.params == f.params, "Galois keys: not of the given parameters");
    for (const auto& [k, key] : keys.keys) {
      fuzz::require(k == key.galois_element && k % 2 == 1 && k < 2 * f.params->n() &&
                        &keys.at(k) == &key && key.params == f.params,
                    "Galois keys: a key is filed under another element, or an invalid one");
    }
    if (keys.keys.empty()) return;
    const rlwe::Ciphertext out = rlwe::apply_galois(f.ct, keys.keys.begin()->second);
    const fuzz::Bytes out_bytes = rlwe::serialize(out);
    fuzz::require(rlwe::serialize(rlwe::load_ciphertext(out_bytes, f.params)) == out_bytes,
                  "Galois keys: the rotated ciphertext does not round-trip");
  });
}
