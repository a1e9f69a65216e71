// rlwe::load_key_switch_key against the fixture's parameters. A key that loads must re-serialise
// to its bytes, its a_j must be the fixture's when its seed is, and it must serve: a
// relinearisation key (Galois element 0) relinearises the fixture's size-3 ciphertext, a Galois
// key applies its automorphism to the fixture's ciphertext, and the result is a well-formed
// ciphertext (it loads back from its bytes to the same bytes).
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
    const rlwe::KeySwitchKey key = rlwe::load_key_switch_key(in, f.params);
    fuzz::require_same_bytes(rlwe::serialize(key), in,
                             "key-switching key: re-serialised bytes differ");
    if (key.seed == f.relin.seed) {
      for (std::size_t j = 0; j < key.parts.count(); ++j) {
        fuzz::require(std::ranges::equal(key.parts.a(j).data(), f.relin.parts.a(j).data()),
                      "key-switching key: a_j is not the expansion of its seed");
      }
    }

    const rlwe::Ciphertext out = key.galois_element == 0 ? rlwe::relinearize(f.ct_three, key)
                                                         : rlwe::apply_galois(f.ct, key);
    fuzz::require(out.size() == 2 && out.level() == f.ct.level(),
                  "key-switching key: the switched ciphertext has the wrong shape");
    const fuzz::Bytes out_bytes = rlwe::serialize(out);
    fuzz::require(rlwe::serialize(rlwe::load_ciphertext(out_bytes, f.params)) == out_bytes,
                  "key-switching key: the switched ciphertext does not round-trip");
  });
}
