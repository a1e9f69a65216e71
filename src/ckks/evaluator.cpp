#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/ckks/ckks.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/ring/rescale.hpp"
#include "polyhe/rlwe/key_switch.hpp"
#include "polyhe/rlwe/operations.hpp"

namespace polyhe::ckks {
namespace {

std::string log2_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "2^%.6f", std::log2(v));
  return buf;
}

// Scales must agree to double rounding: CKKS adds messages only at one scale.
bool same_scale(double a, double b) {
  return std::fabs(a - b) <= std::ldexp(std::fabs(a), -40);
}

// log2 of Q_l = q_0·…·q_l.
double log2_modulus(const rlwe::Parameters& params, std::size_t level) {
  double s = 0;
  for (std::size_t i = 0; i <= level; ++i)
    s += std::log2(static_cast<double>(params.q_primes()[i]));
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Evaluator.

Evaluator::Evaluator(ParametersPtr params, std::shared_ptr<const rlwe::KeySwitchKey> relin,
                     std::shared_ptr<const rlwe::GaloisKeys> galois)
    : params_(std::move(params)), relin_(std::move(relin)), galois_(std::move(galois)) {
  if (!params_) throw InvalidParameter("Evaluator: null parameters");
  if (!params_->power_of_two()) {
    throw InvalidParameter("ckks::Evaluator: the ring is Phi_" + std::to_string(params_->m()) +
                           " (odd m); CKKS here serves x^N + 1 only");
  }
  if (relin_ != nullptr)
    rlwe::check_same_params(params_, relin_->params, "Evaluator (relinearization key)");
  if (galois_ != nullptr)
    rlwe::check_same_params(params_, galois_->params, "Evaluator (Galois keys)");
}

void Evaluator::check_params(const Ciphertext& a, const char* op) const {
  rlwe::check_same_params(params_, a.params(), op);
}

void Evaluator::check_pair(const Ciphertext& a, const Ciphertext& b, const char* op) const {
  check_params(a, op);
  check_params(b, op);
  rlwe::check_same_place(a, b, op);
  if (a.level() != b.level()) {
    throw InvalidParameter(std::string(op) + ": operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                           "); bring the higher one down with Evaluator::drop_to_level(ct, " +
                           std::to_string(std::min(a.level(), b.level())) + ") first");
  }
  if (!same_scale(a.scale(), b.scale())) {
    throw InvalidParameter(std::string(op) + ": operands carry different scales (" +
                           log2_text(a.scale()) + " and " + log2_text(b.scale()) +
                           "); CKKS adds messages only at one scale: rescale the operand with the "
                           "larger scale, or multiply the other by a constant (multiply_const with "
                           "const_scale = the ratio) so both match");
  }
}

void Evaluator::check_plain(const Ciphertext& a, const Plaintext& p, const char* op) const {
  check_params(a, op);
  rlwe::check_same_params(params_, p.params, op);
  if (a.level() != p.level()) {
    throw InvalidParameter(std::string(op) + ": the plaintext is at level " +
                           std::to_string(p.level()) + ", the ciphertext at level " +
                           std::to_string(a.level()) + "; encode the plaintext at level " +
                           std::to_string(a.level()));
  }
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  check_pair(a, b, "add");
  return rlwe::add(a, b);
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  check_pair(a, b, "sub");
  return rlwe::sub(a, b);
}

void Evaluator::add_inplace(Ciphertext& a, const Ciphertext& b) const {
  check_pair(a, b, "add");
  rlwe::add_inplace(a, b);
}

void Evaluator::sub_inplace(Ciphertext& a, const Ciphertext& b) const {
  check_pair(a, b, "sub");
  rlwe::sub_inplace(a, b);
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  check_params(a, "negate");
  Ciphertext out = a;
  rlwe::negate_inplace(out);
  return out;
}

// Adding messages needs one scale on both sides.
void check_plain_scale(const Ciphertext& a, const Plaintext& p, const char* op) {
  if (!same_scale(a.scale(), p.scale)) {
    throw InvalidParameter(std::string(op) + ": the plaintext's scale " + log2_text(p.scale) +
                           " differs from the ciphertext's " + log2_text(a.scale()) +
                           "; encode the plaintext at ciphertext.scale()");
  }
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const Plaintext& p) const {
  check_plain(a, p, "add_plain");
  check_plain_scale(a, p, "add_plain");
  Ciphertext out = a;
  out[0].add(p.poly);
  return out;
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const Plaintext& p) const {
  check_plain(a, p, "sub_plain");
  check_plain_scale(a, p, "sub_plain");
  Ciphertext out = a;
  out[0].sub(p.poly);
  return out;
}

std::vector<std::uint64_t> Evaluator::residues(double v, std::size_t limbs) const {
  if (!std::isfinite(v)) {
    throw InvalidParameter("constant times scale is not finite (" + std::to_string(v) + ")");
  }
  const double r = std::round(v);
  std::vector<std::uint64_t> out(limbs);
  const bool negative = r < 0;
  const double mag = std::fabs(r);
  for (std::size_t i = 0; i < limbs; ++i) {
    const std::uint64_t q = params_->q_primes()[i];
    std::uint64_t res = 0;
    if (mag < 0x1p63) {
      res = static_cast<std::uint64_t>(mag) % q;
    } else {
      // mag = m·2^e exactly, m < 2^53 an integer, e ≥ 11.
      int e = 0;
      const double frac = std::frexp(mag, &e);
      const auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));
      const std::uint64_t two_e = pow_mod(2, static_cast<std::uint64_t>(e - 53), q);
      res = static_cast<std::uint64_t>((static_cast<unsigned __int128>(m % q) * two_e) % q);
    }
    out[i] = negative && res != 0 ? q - res : res;
  }
  return out;
}

std::pair<std::uint64_t, std::uint64_t> Evaluator::constant_slots(std::uint64_t re,
                                                                  std::uint64_t im,
                                                                  std::size_t i) const {
  // X^{N/2} evaluates to ι = ψ^{N/2} on slots j < N/2 and −ι on the rest (bit-reversed order).
  const Modulus<std::uint64_t>& mod = params_->ring()->basis().modulus(i);
  const std::uint64_t q = mod.value();
  const std::uint64_t iota = pow_mod(params_->ring()->plan(i).psi(), params_->n() / 2, q);
  const std::uint64_t b_iota = mod.mul(im, iota);
  return {(re + b_iota) % q, (re + q - b_iota) % q};
}

void Evaluator::add_scaled_const(Ciphertext& ct, std::complex<double> c, double scale) const {
  const std::size_t limbs = ct.limbs();
  const auto re = residues(c.real() * scale, limbs);
  const auto im = residues(c.imag() * scale, limbs);
  std::vector<std::uint64_t> lo(limbs), hi(limbs);
  for (std::size_t i = 0; i < limbs; ++i) std::tie(lo[i], hi[i]) = constant_slots(re[i], im[i], i);
  ct[0].add_split_constant(lo, hi);
}

Ciphertext Evaluator::add_const(const Ciphertext& a, std::complex<double> c) const {
  check_params(a, "add_const");
  Ciphertext out = a;
  add_scaled_const(out, c, a.scale());
  return out;
}

void Evaluator::check_product(const Ciphertext& a, const Ciphertext& b, const char* op) const {
  check_params(a, op);
  check_params(b, op);
  if (a.level() != b.level()) {
    throw InvalidParameter(std::string(op) + ": operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                           "); bring the higher one down with Evaluator::drop_to_level(ct, " +
                           std::to_string(std::min(a.level(), b.level())) + ") first");
  }
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidParameter(std::string(op) +
                           ": operands must be relinearised (size 2), got sizes " +
                           std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  const double scale = a.scale() * b.scale();
  const double room = log2_modulus(*params_, a.level());
  if (std::log2(scale) >= room - 1) {
    throw InvalidParameter(std::string(op) + ": the product's scale " + log2_text(scale) +
                           " leaves no room below the modulus at level " +
                           std::to_string(a.level()) + " (2^" + std::to_string(room) +
                           "): rescale the operands first (Evaluator::rescale), or choose a "
                           "longer chain or a smaller scale");
  }
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  check_product(a, b, "multiply");
  rlwe::check_same_place(a, b, "multiply");
  const double scale = a.scale() * b.scale();
  TensorProduct t = tensor(a[0], a[1], b[0], b[1]);
  Ciphertext out(params_, a.level(), 3, scale, RnsPoly::kForOverwrite, a.device());
  out[0] = std::move(t.c0);
  out[1] = std::move(t.c1);
  out[2] = std::move(t.c2);
  return out;
}

Ciphertext Evaluator::relinearize(const Ciphertext& a) const {
  check_params(a, "relinearize");
  if (a.size() == 2) return a;
  if (relin_ == nullptr) {
    throw InvalidParameter(
        "relinearize: this evaluator has no relinearization key (pass one made by "
        "KeyGenerator::relinearization_key to the Evaluator)");
  }
  return rlwe::relinearize(a, *relin_);
}

Ciphertext Evaluator::multiply_relin(const Ciphertext& a, const Ciphertext& b) const {
  check_product(a, b, "multiply_relin");
  if (relin_ == nullptr) {
    throw InvalidParameter(
        "multiply_relin: this evaluator has no relinearization key (pass one made by "
        "KeyGenerator::relinearization_key to the Evaluator)");
  }
  rlwe::check_same_place(a, b, "multiply_relin");
  // (a_0·b_0, a_0·b_1 + a_1·b_0) straight into the result, and a_1·b_1's key switch added to it:
  // no size-3 ciphertext, no separate switched pair.
  TensorProduct t = tensor(a[0], a[1], b[0], b[1]);
  Ciphertext out(params_, a.level(), 2, a.scale() * b.scale(), RnsPoly::kForOverwrite, a.device());
  out[0] = std::move(t.c0);
  out[1] = std::move(t.c1);
  rlwe::key_switch(t.c2, *relin_, out[0], out[1], /*accumulate=*/true);
  return out;
}

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const Plaintext& p) const {
  check_plain(a, p, "multiply_plain");
  const double scale = a.scale() * p.scale;
  const double room = log2_modulus(*params_, a.level());
  if (std::log2(scale) >= room - 1) {
    throw InvalidParameter("multiply_plain: the product's scale " + log2_text(scale) +
                           " leaves no room below the modulus at level " +
                           std::to_string(a.level()) + " (2^" + std::to_string(room) +
                           "): rescale first, or encode the plaintext at a smaller scale");
  }
  Ciphertext out = a;
  for (RnsPoly& part : out.parts()) part.multiply(p.poly);
  out.set_scale(scale);
  return out;
}

Ciphertext Evaluator::multiply_const(const Ciphertext& a, std::complex<double> c,
                                     double const_scale) const {
  check_params(a, "multiply_const");
  if (const_scale == 0) const_scale = static_cast<double>(params_->q_primes()[a.level()]);
  if (!(const_scale > 0) || !std::isfinite(const_scale)) {
    throw InvalidParameter("multiply_const: const_scale = " + std::to_string(const_scale) +
                           " must be positive and finite");
  }
  const std::size_t limbs = a.limbs();
  const auto re = residues(c.real() * const_scale, limbs);
  Ciphertext out = a;
  out.set_scale(a.scale() * const_scale);
  if (c.imag() == 0) {
    for (RnsPoly& part : out.parts()) part.multiply_scalar(re);
    return out;
  }
  const auto im = residues(c.imag() * const_scale, limbs);
  std::vector<std::uint64_t> lo(limbs), hi(limbs);
  for (std::size_t i = 0; i < limbs; ++i) std::tie(lo[i], hi[i]) = constant_slots(re[i], im[i], i);
  for (RnsPoly& part : out.parts()) part.multiply_split_constant(lo, hi);
  return out;
}

Ciphertext Evaluator::multiply_integer(const Ciphertext& a, std::int64_t c) const {
  check_params(a, "multiply_integer");
  Ciphertext out = a;
  const auto r = residues(static_cast<double>(c), a.limbs());
  if (c > (std::int64_t{1} << 53) || c < -(std::int64_t{1} << 53)) {
    // Exact residues for integers a double cannot hold.
    std::vector<std::uint64_t> exact(a.limbs());
    for (std::size_t i = 0; i < a.limbs(); ++i) {
      const std::uint64_t q = params_->q_primes()[i];
      const std::uint64_t mag =
          c < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(c) : static_cast<std::uint64_t>(c);
      const std::uint64_t m = mag % q;
      exact[i] = c < 0 && m != 0 ? q - m : m;
    }
    for (RnsPoly& part : out.parts()) part.multiply_scalar(exact);
    return out;
  }
  for (RnsPoly& part : out.parts()) part.multiply_scalar(r);
  return out;
}

void Evaluator::check_rescalable(const Ciphertext& a) const {
  check_params(a, "rescale");
  if (a.level() == 0) {
    throw InvalidParameter(
        "rescale: the ciphertext is at level 0, there is no prime left to divide by; decrypt it, "
        "or choose a chain with more primes for this depth");
  }
}

void Evaluator::rescale_inplace(Ciphertext& a) const {
  check_rescalable(a);
  const std::size_t l = a.level();
  std::vector<RnsPoly*> parts;
  for (RnsPoly& part : a.parts()) parts.push_back(&part);
  rescale_by_last_prime_inplace(parts);
  a.set_scale(a.scale() / static_cast<double>(params_->q_primes()[l]));
}

Ciphertext Evaluator::rescale(const Ciphertext& a) const {
  check_rescalable(a);
  const std::size_t l = a.level();
  Ciphertext out(params_, l - 1, a.size(), a.scale() / static_cast<double>(params_->q_primes()[l]),
                 RnsPoly::kForOverwrite, a.device());
  std::vector<const RnsPoly*> in;
  std::vector<RnsPoly*> parts;
  for (std::size_t i = 0; i < a.size(); ++i) {
    in.push_back(&a[i]);
    parts.push_back(&out.parts()[i]);
  }
  rescale_by_last_prime(in, parts);
  return out;
}

Ciphertext Evaluator::drop_to_level(const Ciphertext& a, std::size_t level) const {
  check_params(a, "drop_to_level");
  if (level > a.level()) {
    throw InvalidParameter("drop_to_level: target level " + std::to_string(level) +
                           " is above the ciphertext's level " + std::to_string(a.level()) +
                           " (levels only go down)");
  }
  Ciphertext out = a;
  for (RnsPoly& part : out.parts()) {
    while (part.level() > level) part.drop_last_limb();
  }
  return out;
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, std::uint64_t k) const {
  check_params(a, "apply_galois");
  if (a.size() != 2) {
    throw InvalidParameter("apply_galois: relinearise the ciphertext first (size " +
                           std::to_string(a.size()) + ")");
  }
  if (galois_ == nullptr) {
    throw InvalidParameter(
        "rotation/conjugation: this evaluator has no Galois keys (pass those made by "
        "KeyGenerator::rotation_keys to the Evaluator)");
  }
  return rlwe::apply_galois(a, galois_->at(k));
}

std::uint64_t Evaluator::rotation_element(std::int64_t step, const char* op) const {
  const std::uint64_t k = rlwe::galois_element_for_rotation(params_->n(), step);
  if (k != 1 && (galois_ == nullptr || !galois_->contains(k))) {
    throw InvalidParameter(std::string(op) + ": no Galois key for rotation step " +
                           std::to_string(step) + " (element " + std::to_string(k) +
                           "); generate it with KeyGenerator::rotation_keys({" +
                           std::to_string(step) + "})");
  }
  return k;
}

bool Evaluator::can_rotate(std::int64_t step) const {
  const std::uint64_t k = rlwe::galois_element_for_rotation(params_->n(), step);
  return k == 1 || (galois_ != nullptr && galois_->contains(k));
}

Ciphertext Evaluator::rotate(const Ciphertext& a, std::int64_t step) const {
  const std::uint64_t k = rotation_element(step, "rotate");
  if (k == 1) return a;
  return apply_galois(a, k);
}

std::vector<Ciphertext> Evaluator::rotate_many(const Ciphertext& a,
                                               std::span<const std::int64_t> steps) const {
  check_params(a, "rotate_many");
  rlwe::check_list_length(steps.size(), params_->n() / 2, "rotate_many", "steps",
                          "one output ciphertext each; there are N/2 distinct rotations");
  std::vector<const rlwe::KeySwitchKey*> keys;  // null: a rotation by 0
  for (const std::int64_t step : steps) {
    const std::uint64_t k = rotation_element(step, "rotate_many");
    keys.push_back(k == 1 ? nullptr : &galois_->at(k));
  }
  return rlwe::apply_galois_hoisted(a, keys);
}

Ciphertext Evaluator::conjugate(const Ciphertext& a) const {
  const std::uint64_t k = rlwe::galois_element_for_conjugation(params_->n());
  if (galois_ == nullptr || !galois_->contains(k)) {
    throw InvalidParameter(
        "conjugate: no Galois key for conjugation; generate it with "
        "KeyGenerator::rotation_keys(steps, /*conjugation=*/true)");
  }
  return apply_galois(a, k);
}

}  // namespace polyhe::ckks
