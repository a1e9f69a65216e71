#include "polyhe/bgv/serial.hpp"

#include <numeric>
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

rlwe::Origin origin(const Context& ctx, const rlwe::KeyId& key) {
  return rlwe::Origin{ctx.scheme() == Scheme::bfv ? rlwe::SchemeTag::bfv : rlwe::SchemeTag::bgv,
                      ctx.t().value(), key};
}

rlwe::Ciphertext load_ciphertext(std::span<const std::uint8_t> bytes, const Context& ctx,
                                 const rlwe::KeyId& key) {
  rlwe::Ciphertext ct = rlwe::load_ciphertext(bytes, ctx.params(), origin(ctx, key));
  const std::string scheme(to_string(ctx.scheme()));
  if (ct.scale() != 1.0) {
    throw CorruptData(scheme + " ciphertext: scale " + std::to_string(ct.scale()) +
                      " is not 1 (BFV and BGV ciphertexts carry no scale; this is a CKKS "
                      "ciphertext or damaged data)");
  }
  const std::uint64_t t = ctx.t().value();
  const std::uint64_t f = ct.factor();
  if (ctx.scheme() == Scheme::bfv && f != 1) {
    throw CorruptData("BFV ciphertext: factor " + std::to_string(f) +
                      " is not 1 (BFV has no plaintext factor)");
  }
  if (f >= t || std::gcd(f, t) != 1) {
    throw CorruptData(scheme + " ciphertext: factor " + std::to_string(f) +
                      " is not a unit below t = " + std::to_string(t) +
                      " (it must be < t and coprime to t, so that decryption can divide by it)");
  }
  return ct;
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
