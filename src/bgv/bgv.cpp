#include "polyhe/bgv/bgv.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>

#include "evaluator_common.hpp"
#include "plaintext_lift.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/rlwe/key_switch.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/plain_reducer.hpp"

namespace polyhe::bgv {

namespace {

using detail::check_plaintext;
using detail::lifted_plaintext;
using u64 = std::uint64_t;
using u128 = unsigned __int128;

u64 mulmod(u64 a, u64 b, u64 m) {
  return static_cast<u64>(u128{a} * b % m);
}

// min(k, t − k): the magnitude of k's centred representative.
u64 centred_magnitude(u64 k, u64 t) {
  return std::min(k, t - k);
}

// The residues mod q_0..q_{limbs−1} of k's centred representative in (−t/2, t/2].
std::vector<u64> centred_residues(u64 k, u64 t, const rlwe::Parameters& params, std::size_t limbs) {
  const bool negative = k > t / 2;
  const u64 magnitude = negative ? t - k : k;
  std::vector<u64> r(limbs);
  for (std::size_t i = 0; i < limbs; ++i) {
    const u64 q = params.q_primes()[i];
    const u64 x = magnitude % q;
    r[i] = negative && x != 0 ? q - x : x;
  }
  return r;
}

constexpr const char* kGaloisHint = "generate it with KeyGenerator::galois_keys or rotation_keys";

void check_factor(const Context& ctx, const Ciphertext& a, const char* op) {
  const u64 t = ctx.t().value();
  const u64 f = a.factor();
  if (f >= t || std::gcd(f, t) != 1) {
    throw InvalidParameter(std::string(op) + ": the ciphertext's plaintext factor f = " +
                           std::to_string(f) + " is not a unit modulo t = " + std::to_string(t) +
                           " (it must be below t and coprime to it; was the ciphertext made by "
                           "BGV under this context?)");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Encryption, decryption, noise budget.

Ciphertext bgv_encrypt(const Context& ctx, rlwe::Encryptor& encryptor, const Plaintext& m) {
  check_plaintext(ctx, m, "bgv_encrypt");
  const std::size_t top = ctx.params()->max_level();
  Ciphertext ct = encryptor.encrypt_zero(top);
  rlwe::check_same_params(ctx.params(), ct.params(), "bgv_encrypt");
  for (RnsPoly& part : ct.parts()) part.multiply_scalar(ctx.t().value());
  ct.parts()[0].add(lifted_plaintext(ctx, m, top, ct.device()));
  return ct;
}

Plaintext bgv_decrypt(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  rlwe::check_same_params(ctx.params(), ct.params(), "bgv_decrypt");
  check_factor(ctx, ct, "bgv_decrypt");
  RnsPoly x = rlwe::decrypt_poly(ct, sk);
  x.to_coefficient();
  // The conversion to Z_t is decoding: on the host (rns/plain_reducer.hpp).
  Plaintext out{std::vector<u64>(ctx.n())};
  const PlainReducer reducer(ctx.params()->q_basis().prefix(ct.limbs()), ctx.t().value());
  reducer.reduce(std::move(x).to_host().data(), inverse_mod(ct.factor(), ctx.t().value()),
                 out.coeffs);
  return out;
}

int bgv_noise_budget(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  rlwe::check_same_params(ctx.params(), ct.params(), "bgv_noise_budget");
  return detail::noise_budget_bits(ctx, ct, sk, 1);
}

// ---------------------------------------------------------------------------------------------
// Evaluator: construction, checks, level and factor alignment.

BgvEvaluator::BgvEvaluator(ContextPtr ctx, std::shared_ptr<const rlwe::KeySwitchKey> relin,
                           std::shared_ptr<const rlwe::GaloisKeys> galois)
    : ctx_(std::move(ctx)), relin_(std::move(relin)), galois_(std::move(galois)) {
  if (!ctx_) throw InvalidParameter("BgvEvaluator: null context");
  if (relin_ != nullptr) rlwe::check_same_params(ctx_->params(), relin_->params, "BgvEvaluator");
  if (galois_ != nullptr) {
    rlwe::check_same_params(ctx_->params(), galois_->params, "BgvEvaluator");
  }
  const auto& q = ctx_->params()->q_primes();
  const u64 t = ctx_->t().value();
  // Every q_i is a prime that does not divide t (Context checks), so t and q_l are units.
  for (std::size_t l = 1; l < q.size(); ++l) q_last_inv_t_.push_back(inverse_mod(q[l] % t, t));
}

void BgvEvaluator::check(const Ciphertext& a, const char* op) const {
  rlwe::check_same_params(ctx_->params(), a.params(), op);
  check_factor(*ctx_, a, op);
}

void BgvEvaluator::check_size2(const Ciphertext& a, const char* op) const {
  if (a.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(a.size()) + ")");
  }
}

void BgvEvaluator::align_levels(Ciphertext& a, Ciphertext& b) const {
  while (a.level() > b.level()) mod_switch_to_next_inplace(a);
  while (b.level() > a.level()) mod_switch_to_next_inplace(b);
}

void BgvEvaluator::retarget_factor(Ciphertext& a, std::uint64_t target) const {
  const u64 t = ctx_->t().value();
  const u64 k = mulmod(target, inverse_mod(a.factor(), t), t);
  const std::vector<u64> residues = centred_residues(k, t, *ctx_->params(), a.limbs());
  for (RnsPoly& part : a.parts()) part.multiply_scalar(residues);
  a.set_factor(target);
}

void BgvEvaluator::align_factors(Ciphertext& a, Ciphertext& b) const {
  if (a.factor() == b.factor()) return;
  const u64 t = ctx_->t().value();
  const u64 k_b = mulmod(a.factor(), inverse_mod(b.factor(), t), t);  // b·k_b has a's factor
  const u64 k_a = inverse_mod(k_b, t);                                // a·k_a has b's factor
  if (centred_magnitude(k_b, t) <= centred_magnitude(k_a, t)) {
    retarget_factor(b, a.factor());
  } else {
    retarget_factor(a, b.factor());
  }
}

// ---------------------------------------------------------------------------------------------
// Additive operations.

Ciphertext BgvEvaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "add");
  check(b, "add");
  if (a.level() == b.level() && a.factor() == b.factor()) return rlwe::add(a, b);
  Ciphertext out = a;
  Ciphertext other = b;
  align_levels(out, other);
  align_factors(out, other);
  rlwe::add_inplace(out, other);
  return out;
}

Ciphertext BgvEvaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "sub");
  check(b, "sub");
  if (a.level() == b.level() && a.factor() == b.factor()) return rlwe::sub(a, b);
  Ciphertext out = a;
  Ciphertext other = b;
  align_levels(out, other);
  align_factors(out, other);
  rlwe::sub_inplace(out, other);
  return out;
}

Ciphertext BgvEvaluator::negate(const Ciphertext& a) const {
  check(a, "negate");
  Ciphertext out = a;
  rlwe::negate_inplace(out);
  return out;
}

Ciphertext BgvEvaluator::add_or_sub_plain(const Ciphertext& a, const Plaintext& m, bool sub,
                                          const char* op) const {
  check(a, op);
  check_plaintext(*ctx_, m, op);
  // f·m + t·e ± f·m' = f·(m ± m') + t·e: the plaintext takes a's factor, exactly.
  const u64 f = a.factor();
  std::optional<Plaintext> scaled;
  if (f != 1) {
    const u64 t = ctx_->t().value();
    scaled.emplace(Plaintext{std::vector<u64>(m.coeffs.size())});
    for (std::size_t i = 0; i < m.coeffs.size(); ++i) scaled->coeffs[i] = mulmod(m.coeffs[i], f, t);
  }
  const RnsPoly p = lifted_plaintext(*ctx_, scaled ? *scaled : m, a.level(), a.device());
  Ciphertext out = a;
  if (sub) {
    out.parts()[0].sub(p);
  } else {
    out.parts()[0].add(p);
  }
  return out;
}

Ciphertext BgvEvaluator::add_plain(const Ciphertext& a, const Plaintext& m) const {
  return add_or_sub_plain(a, m, false, "add_plain");
}

Ciphertext BgvEvaluator::sub_plain(const Ciphertext& a, const Plaintext& m) const {
  return add_or_sub_plain(a, m, true, "sub_plain");
}

// ---------------------------------------------------------------------------------------------
// Multiplicative operations and key switching.

Ciphertext BgvEvaluator::multiply_plain(const Ciphertext& a, const Plaintext& m) const {
  check(a, "multiply_plain");
  check_plaintext(*ctx_, m, "multiply_plain");
  return detail::multiply_parts(a, lifted_plaintext(*ctx_, m, a.level(), a.device()));
}

Ciphertext BgvEvaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "multiply");
  check(b, "multiply");
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidParameter("multiply: operands must be relinearised (size 2), got sizes " +
                           std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  std::optional<Ciphertext> lowered;
  const Ciphertext* x = &a;
  const Ciphertext* y = &b;
  if (a.level() > b.level()) {
    lowered.emplace(mod_switch_to(a, b.level()));
    x = &*lowered;
  } else if (b.level() > a.level()) {
    lowered.emplace(mod_switch_to(b, a.level()));
    y = &*lowered;
  }
  rlwe::check_same_place(*x, *y, "multiply");
  TensorProduct tp = tensor((*x)[0], (*x)[1], (*y)[0], (*y)[1]);
  Ciphertext out(ctx_->params(), x->level(), 3, 1.0, RnsPoly::kForOverwrite, x->device());
  out[0] = std::move(tp.c0);
  out[1] = std::move(tp.c1);
  out[2] = std::move(tp.c2);
  out.set_factor(mulmod(x->factor(), y->factor(), ctx_->t().value()));
  return out;
}

Ciphertext BgvEvaluator::relinearize(const Ciphertext& a) const {
  check(a, "relinearize");
  if (a.size() == 2) return a;
  if (relin_ == nullptr) {
    throw InvalidParameter(
        "relinearize: this evaluator has no relinearization key (pass one made by "
        "KeyGenerator::relinearization_key to the BgvEvaluator)");
  }
  return rlwe::relinearize(a, *relin_, ctx_->t().value());
}

Ciphertext BgvEvaluator::multiply_relin(const Ciphertext& a, const Ciphertext& b) const {
  return relinearize(multiply(a, b));
}

Ciphertext BgvEvaluator::apply_galois(const Ciphertext& a, std::uint64_t k) const {
  check(a, "apply_galois");
  check_size2(a, "apply_galois");
  const rlwe::KeySwitchKey& key = detail::galois_key(galois_.get(), k, "apply_galois",
                                                     "element " + std::to_string(k), kGaloisHint);
  return rlwe::apply_galois(a, key, ctx_->t().value());
}

namespace {
// Rows and columns are the slot layout of x^N + 1 with t ≡ 1 mod 2N (Galois elements 5^j, −1).
void require_power_of_two(const Context& ctx, const char* op) {
  if (!ctx.params()->power_of_two()) {
    throw InvalidParameter(std::string(op) +
                           ": rows and columns are the slots of x^N + 1; the "
                           "ring is Phi_" +
                           std::to_string(ctx.params()->m()) +
                           " (odd m): apply an automorphism by its Galois element (apply_galois)");
  }
}
}  // namespace

Ciphertext BgvEvaluator::rotate_rows(const Ciphertext& a, std::int64_t step) const {
  check(a, "rotate_rows");
  check_size2(a, "rotate_rows");
  require_power_of_two(*ctx_, "rotate_rows");
  const std::uint64_t k = rlwe::galois_element_for_rotation(ctx_->n(), step);
  if (k == 1) return a;
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_.get(), k, "rotate_rows",
      "step " + std::to_string(step) + " (element " + std::to_string(k) + ")", kGaloisHint);
  return rlwe::apply_galois(a, key, ctx_->t().value());
}

Ciphertext BgvEvaluator::rotate_columns(const Ciphertext& a) const {
  check(a, "rotate_columns");
  check_size2(a, "rotate_columns");
  require_power_of_two(*ctx_, "rotate_columns");
  const std::uint64_t k = rlwe::galois_element_for_conjugation(ctx_->n());
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_.get(), k, "rotate_columns",
      "the row swap (element " + std::to_string(k) + ", conjugation=true)", kGaloisHint);
  return rlwe::apply_galois(a, key, ctx_->t().value());
}

// ---------------------------------------------------------------------------------------------
// Modulus switching.

void BgvEvaluator::mod_switch_to_next_inplace(Ciphertext& a) const {
  check(a, "mod_switch_to_next");
  const std::size_t l = a.level();
  if (l == 0) {
    throw InvalidParameter(
        "mod_switch_to_next: the ciphertext is at level 0, there is no prime left to drop; "
        "decrypt it, or choose a chain with more primes for this depth");
  }
  // c' = (c − δ)·q_l^−1 with δ = t·[c·t^−1]_centred ≡ c mod q_l and ≡ 0 mod t: the message
  // survives, times q_l^−1 mod t (ring/key_switching.hpp, error multiple t).
  std::vector<RnsPoly*> parts;
  for (RnsPoly& part : a.parts()) parts.push_back(&part);
  rescale_by_last_prime_inplace(parts, ctx_->t().value());
  a.set_factor(mulmod(a.factor(), q_last_inv_t_[l - 1], ctx_->t().value()));
}

Ciphertext BgvEvaluator::mod_switch_to_next(const Ciphertext& a) const {
  Ciphertext out = a;
  mod_switch_to_next_inplace(out);
  return out;
}

Ciphertext BgvEvaluator::mod_switch_to(const Ciphertext& a, std::size_t level) const {
  check(a, "mod_switch_to");
  if (level > a.level()) {
    throw InvalidParameter("mod_switch_to: target level " + std::to_string(level) +
                           " is above the ciphertext's level " + std::to_string(a.level()) +
                           " (levels only go down)");
  }
  Ciphertext out = a;
  while (out.level() > level) mod_switch_to_next_inplace(out);
  return out;
}

}  // namespace polyhe::bgv
