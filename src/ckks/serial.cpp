#include "polyhe/ckks/serial.hpp"

#include <cmath>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

using namespace rlwe::serial_detail;

namespace {

// CorruptData unless 1 ≤ scale < Q_level.
void check_scale(double scale, const rlwe::Parameters& params, std::size_t level,
                 const char* what) {
  const int bits = params.q_basis().prefix(level + 1).product_bits();
  // Q_l ≥ 2^(bits − 1): a scale below that bound is below Q_l; ldexp gives inf past double's range.
  if (!(scale >= 1.0) || !(scale < std::ldexp(1.0, bits - 1))) {
    throw CorruptData(std::string(what) + ": scale " + std::to_string(scale) + " (2^" +
                      std::to_string(std::log2(scale)) + ") is outside [1, 2^" +
                      std::to_string(bits - 1) + "), the range of a CKKS scale at level " +
                      std::to_string(level) + " (Q_l has " + std::to_string(bits) + " bits)");
  }
}

}  // namespace

rlwe::Origin origin(const rlwe::KeyId& key) {
  return rlwe::Origin{rlwe::SchemeTag::ckks, 0, key};
}

Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes, const ParametersPtr& params,
                           const rlwe::KeyId& key) {
  Ciphertext ct = rlwe::load_ciphertext(bytes, params, origin(key));
  if (ct.factor() != 1) {
    throw CorruptData("CKKS ciphertext: factor " + std::to_string(ct.factor()) +
                      " is not 1 (a CKKS ciphertext has no plaintext factor; this is a BGV "
                      "ciphertext or damaged data)");
  }
  check_scale(ct.scale(), *params, ct.level(), "CKKS ciphertext");
  return ct;
}

std::vector<std::uint8_t> serialize(const Plaintext& pt) {
  if (!pt.params) throw InvalidParameter("serialize plaintext: null parameters");
  const rlwe::Parameters& params = *pt.params;
  const std::size_t limbs = pt.poly.limbs();
  if (limbs > params.q_count()) {
    throw InvalidParameter(
        "serialize plaintext: " + std::to_string(limbs) +
        " limbs, plaintexts have at most L + 1 = " + std::to_string(params.q_count()));
  }
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + 16 + poly_bytes(params, limbs));
  serial::Writer w(out);
  begin(w, serial::Kind::plaintext, params);
  w.u64(limbs - 1);
  w.f64(pt.scale);
  write_poly(w, pt.poly, params, limbs, "plaintext polynomial");
  w.finish();
  return out;
}

Plaintext load_plaintext(std::span<const std::uint8_t> bytes, const ParametersPtr& params) {
  serial::Reader r(bytes, "plaintext");
  open(r, serial::Kind::plaintext, params);
  const std::size_t level = r.count("level", 0, params->max_level());
  const double scale = read_scale(r);
  check_scale(scale, *params, level, "CKKS plaintext");
  expect_remaining(r, poly_bytes(*params, level + 1));
  Plaintext pt{params, RnsPoly(params->ring(), level + 1, PolyForm::kEvaluation), scale};
  read_poly(r, pt.poly, "m");
  r.expect_end();
  return pt;
}

}  // namespace polyhe::ckks
