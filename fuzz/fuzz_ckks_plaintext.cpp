// ckks::load_plaintext against the fixture's parameters. A plaintext that loads must re-serialise
// to its bytes and must serve: it decodes (whatever its words and scale, into finite or infinite
// doubles, never UB) and encrypts under the fixture's secret key to a ciphertext that decrypts
// back to exactly its polynomial plus the small error.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/ring/poly_ops.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyhe;
  const fuzz::Fixture& f = fuzz::fixture();
  const ckks::ContextPtr& ctx = fuzz::ckks_context();
  const std::span<const std::uint8_t> in(data, size);
  return fuzz::run([&] {
    const ckks::Plaintext pt = ckks::load_plaintext(in, f.params);
    fuzz::require_same_bytes(ckks::serialize(pt), in, "CKKS plaintext: re-serialised bytes differ");
    fuzz::require(pt.params == f.params && pt.scale > 0 && pt.level() <= f.params->max_level(),
                  "CKKS plaintext: loaded with an invalid level or scale");

    (void)ctx->decode(pt);
    const ckks::Ciphertext ct = ctx->encryptor(f.sk, fuzz::fixed_seed(4)).encrypt(pt);
    fuzz::require(ct.level() == pt.level() && ct.scale() == pt.scale,
                  "CKKS plaintext: its encryption has another level or scale");
    fuzz::require_small(difference(rlwe::decrypt_poly(ct, f.sk), pt.poly), kErrorEta,
                        "CKKS plaintext: Dec(Enc(pt)) − pt is not small");
  });
}
