// The ciphertext loaders against the fixture's parameters: rlwe::load_ciphertext, and the
// schemes' ckks::load_ciphertext and bgv::load_ciphertext (t = 65537, the fixture's key id),
// which add their rules on the scale, the factor and the recorded origin to rlwe's checks. A
// ciphertext that loads must re-serialise, with the origin its bytes record, to its bytes (a
// seeded one stays seeded; bytes of format version 2 to the same object in version 3), and must
// serve: it decrypts under the fixture's secret key, decryption is linear (Dec(ct + ct) =
// 2·Dec(ct) word for word), and a size-3 one relinearises to a size-2 ciphertext of the same
// level, scale and factor. A scheme loader accepts only what rlwe's accepts, and only with its
// scheme's scale and factor and an origin that agrees with its own.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "fuzz_common.hpp"
#include "polyhe/bgv/serial.hpp"
#include "polyhe/ckks/serial.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rlwe/serial.hpp"

namespace {

using namespace polyhe;

// The bytes `in` stand for in the current format: themselves, or for version 2 the same object
// with an unrecorded origin block after the header.
std::vector<std::uint8_t> current(std::span<const std::uint8_t> in) {
  std::vector<std::uint8_t> out(in.begin(), in.end());
  if (serial::format_version(in) >= 3) return out;
  out.insert(out.begin() + serial::kHeaderBytes, rlwe::kOriginBytes, 0);
  out[4] = static_cast<std::uint8_t>(serial::kFormatVersion);
  const std::uint64_t payload = out.size() - serial::kHeaderBytes;
  for (int i = 0; i < 8; ++i) out[16 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
  return out;
}

void same_bytes(const rlwe::Ciphertext& ct, std::span<const std::uint8_t> in, const char* what) {
  fuzz::require_same_bytes(rlwe::serialize(ct, rlwe::ciphertext_origin(in)), current(in), what);
}

void use(const rlwe::Ciphertext& ct, std::span<const std::uint8_t> in) {
  const fuzz::Fixture& f = fuzz::fixture();
  same_bytes(ct, in, "ciphertext: re-serialised bytes differ");
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
  const rlwe::KeyId key = rlwe::key_id(f.pk);
  // An origin that agrees with the scheme loader's expectation wherever both record a field.
  auto agrees = [&](const rlwe::Origin& expected) {
    const rlwe::Origin o = rlwe::ciphertext_origin(in);
    return (o.scheme == rlwe::SchemeTag::unrecorded || o.scheme == expected.scheme) &&
           (o.scheme == rlwe::SchemeTag::unrecorded || o.t == expected.t) &&
           (!rlwe::is_recorded(o.key) || o.key == expected.key);
  };
  fuzz::run([&] {
    const rlwe::Ciphertext ct = ckks::load_ciphertext(in, f.params, key);
    fuzz::require(rlwe_loaded, "ckks::load_ciphertext accepted what rlwe's refuses");
    fuzz::require(agrees(ckks::origin(key)), "ckks::load_ciphertext: accepted another origin");
    fuzz::require(ct.factor() == 1 && ct.scale() >= 1.0, "ckks::load_ciphertext: bad factor/scale");
    same_bytes(ct, in, "CKKS ciphertext: re-serialised bytes differ");
  });
  fuzz::run([&] {
    const bgv::Context& ctx = *fuzz::bgv_context();
    const rlwe::Ciphertext ct = bgv::load_ciphertext(in, ctx, key);
    fuzz::require(rlwe_loaded, "bgv::load_ciphertext accepted what rlwe's refuses");
    fuzz::require(agrees(bgv::origin(ctx, key)), "bgv::load_ciphertext: accepted another origin");
    fuzz::require(ct.scale() == 1.0 && ct.factor() < fuzz::kPlainModulus &&
                      std::gcd(ct.factor(), fuzz::kPlainModulus) == 1,
                  "bgv::load_ciphertext: bad factor/scale");
    same_bytes(ct, in, "BGV ciphertext: re-serialised bytes differ");
  });
  return 0;
}
