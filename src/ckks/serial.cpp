#include "polyhe/ckks/serial.hpp"

#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe::ckks {

using namespace rlwe::serial_detail;

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
  expect_remaining(r, poly_bytes(*params, level + 1));
  Plaintext pt{params, RnsPoly(params->ring(), level + 1, PolyForm::kEvaluation), scale};
  read_poly(r, pt.poly, "m");
  r.expect_end();
  return pt;
}

}  // namespace polyhe::ckks
