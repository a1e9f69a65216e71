// The ciphertext loaders against the fixture's parameters: rlwe::load_ciphertext, and the
// schemes' ckks::load_ciphertext and bgv::load_ciphertext (t = 65537), which add their rules on
// the scale and the factor to rlwe's checks. A ciphertext that loads must re-serialise to its
// bytes (a seeded one stays seeded), and must serve: it decrypts under the fixture's secret key,
// decryption is linear (Dec(ct + ct) = 2·Dec(ct) word for word), and a size-3 one relinearises
// to a size-2 ciphertext of the same level, scale and factor. A scheme loader accepts only what
// rlwe's accepts, and only with its scheme's scale and factor.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>

#include "fuzz_common.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace {

using namespace polyhe;

void use(const rlwe::Ciphertext& ct, std::span<const std::uint8_t> in) {
  const fuzz::Fixture& f = fuzz::fixture();
  fuzz::require_same_bytes(rlwe::serialize(ct), in, "ciphertext: re-serialised bytes differ");
  fuzz::require(ct.params() == f.params && ct.level() <= f.params->max_level() &&
                    (ct.size() == 2 || ct.size() == 3) && ct.scale() > 0 && ct.factor() > 0,
                "ciphertext: loaded with an invalid shape");

  const RnsPoly d = rlwe::decrypt_poly(ct, f.sk);
  const RnsPoly d2 = rlwe::decrypt_poly(rlwe::add(ct, ct), f.sk);
  const auto& q = f.params->q_primes();
  for (std::size_t i = 0; i < d.limbs(); ++i) {
    for (std::size_t j = 0; j < d.n(); ++j) {
      const std::uint64_t w = d.limb(i)[j];
      const std::uint64_t twice = w >= q[i] - w ? w - (q[i] - w) : w + w;
      fuzz::require(w < q[i] && d2.limb(i)[j] == twice, "ciphertext: Dec(ct + ct) ≠ 2·Dec(ct)");
    }
  }
  if (ct.size() == 3) {
    const rlwe::Ciphertext r = rlwe::relinearize(ct, f.relin);
    fuzz::require(r.size() == 2 && r.level() == ct.level() && r.scale() == ct.scale() &&
                      r.factor() == ct.factor(),
                  "ciphertext: relinearisation changed the level, scale or factor");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Fixture& f = fuzz::fixture();
  const std::span<const std::uint8_t> in(data, size);
  bool rlwe_loaded = false;
  fuzz::run([&] {
    const rlwe::Ciphertext ct = rlwe::load_ciphertext(in, f.params);
    rlwe_loaded = true;
    use(ct, in);
  });
  fuzz::run([&] {
    const rlwe::Ciphertext ct = ckks::load_ciphertext(in, f.params);
    fuzz::require(rlwe_loaded, "ckks::load_ciphertext accepted what rlwe's refuses");
    fuzz::require(ct.factor() == 1 && ct.scale() >= 1.0, "ckks::load_ciphertext: bad factor/scale");
    fuzz::require_same_bytes(rlwe::serialize(ct), in,
                             "CKKS ciphertext: re-serialised bytes differ");
  });
  fuzz::run([&] {
    const rlwe::Ciphertext ct = bgv::load_ciphertext(in, *fuzz::bgv_context());
    fuzz::require(rlwe_loaded, "bgv::load_ciphertext accepted what rlwe's refuses");
    fuzz::require(ct.scale() == 1.0 && ct.factor() < fuzz::kPlainModulus &&
                      std::gcd(ct.factor(), fuzz::kPlainModulus) == 1,
                  "bgv::load_ciphertext: bad factor/scale");
    fuzz::require_same_bytes(rlwe::serialize(ct), in, "BGV ciphertext: re-serialised bytes differ");
  });
  return 0;
}
