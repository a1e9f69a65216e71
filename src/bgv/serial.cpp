#include "polyhe/bgv/serial.hpp"

#include <string>

#include "plaintext_lift.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::bgv {

using namespace rlwe::serial_detail;

std::vector<std::uint8_t> serialize(const Plaintext& pt, const Context& ctx) {
  detail::check_plaintext(ctx, pt, "serialize plaintext");
  const std::size_t n = ctx.n();
  std::vector<std::uint8_t> out;
  out.reserve(serial::kHeaderBytes + 16 + 8 * n);
  serial::Writer w(out);
  begin(w, serial::Kind::integer_plaintext, *ctx.params());
  w.u64(ctx.t().value());
  w.u64(n);
  w.words(pt.coeffs);
  w.finish();
  return out;
}

Plaintext load_plaintext(std::span<const std::uint8_t> bytes, const Context& ctx) {
  serial::Reader r(bytes, "BFV/BGV plaintext");
  open(r, serial::Kind::integer_plaintext, ctx.params());
  const std::uint64_t t = r.u64("t");
  if (t != ctx.t().value()) {
    throw MismatchedContext("BFV/BGV plaintext: written for t = " + std::to_string(t) +
                            ", the context has t = " + std::to_string(ctx.t().value()));
  }
  const std::size_t n = ctx.n();
  r.count("N", n, n);
  expect_remaining(r, 8 * static_cast<std::uint64_t>(n));
  Plaintext pt{std::vector<std::uint64_t>(n)};
  r.words(pt.coeffs, t, "coefficients");
  r.expect_end();
  return pt;
}

}  // namespace polyhe::bgv
