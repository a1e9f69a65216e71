// bgv::load_plaintext under a BGV context of the fixture's parameters and t = 65537 (≡ 1 mod 2N:
// batching). A plaintext that loads must re-serialise to its bytes and must serve: its slots
// encode back to its coefficients (the batch encoding is a bijection), and its BGV encryption
// under the fixture's secret key decrypts to it exactly.
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/bgv/bgv.hpp"
#include "polyhe/bgv/serial.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace polyhe;
  const fuzz::Fixture& f = fuzz::fixture();
  const bgv::ContextPtr& ctx = fuzz::bgv_context();
  const std::span<const std::uint8_t> in(data, size);
  return fuzz::run([&] {
    const bgv::Plaintext pt = bgv::load_plaintext(in, *ctx);
    fuzz::require_same_bytes(bgv::serialize(pt, *ctx), in,
                             "BGV plaintext: re-serialised bytes differ");

    fuzz::require(ctx->encode(ctx->decode(pt)).coeffs == pt.coeffs,
                  "BGV plaintext: encode(decode(pt)) ≠ pt");
    const bgv::Ciphertext ct = ctx->encryptor(f.sk, fuzz::fixed_seed(4)).encrypt(pt);
    fuzz::require(ctx->decryptor(f.sk).decrypt(ct).coeffs == pt.coeffs,
                  "BGV plaintext: Dec(Enc(pt)) ≠ pt");
  });
}
