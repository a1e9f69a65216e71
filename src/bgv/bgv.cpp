#include "polyhe/bgv/bgv.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>

#include "evaluator_common.hpp"
#include "plaintext_lift.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/constant_time.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/ring/rescale.hpp"
#include "polyhe/ring/scale_invariant.hpp"
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

// BFV mode: round(Q_l·m/t) over Q_l, coefficient form, as the centred lift of m_c + round(r·m_c/t),
// where m_c is m's centred representative: round(Q·(m − t)/t) = round(Q·m/t) − Q, so either
// representative gives the same residues, and the centred one keeps every product in range.
RnsPoly scaled_plaintext(const Context& ctx, const Plaintext& m, std::size_t l,
                         const std::shared_ptr<Device>& device) {
  const auto& params = *ctx.params();
  const std::size_t n = params.n();
  const u64 t = ctx.t().value();
  const Context::Level& lv = ctx.level(l);
  // fix_c = round(r·m/t) − r·[m > t/2], stored mod t; round(r·m/t) exactly by Shoup's quotient.
  const ShoupOperand<u64> r_over_t{lv.r, static_cast<u64>((u128{lv.r} << 64) / t)};
  std::vector<u64> fix(n);
  for (std::size_t j = 0; j < n; ++j) {
    const u64 x = m.coeffs[j];
    u64 quot = static_cast<u64>((u128{x} * r_over_t.w_shoup) >> 64);
    u64 rem = x * lv.r - quot * t;  // r·x − quot·t ∈ [0, 2t), exact mod 2^64
    if (rem >= t) {
      rem -= t;
      ++quot;
    }
    const u64 rounded = quot + (2 * rem >= t ? 1 : 0);  // ≤ r < t
    const bool high = x > t / 2;
    // rounded − r·[high] ∈ (−t, t): its residue mod t.
    fix[j] = high ? (rounded >= lv.r ? rounded - lv.r : rounded + t - lv.r) : rounded;
  }
  // Δ_l·m_c + fix_c over Q_l (both lifted centred from Z_t), where the plaintext is needed.
  return lift_from_plain_scaled(m.coeffs, fix, t, lv.delta, params.ring(), l + 1, device);
}

// BFV ciphertexts have no plaintext factor; a BGV ciphertext (factor ≠ 1) would decrypt to garbage.
void check_bfv_factor(const Ciphertext& ct, const char* op) {
  if (ct.factor() != 1) {
    throw InvalidParameter(
        std::string(op) +
        ": the ciphertext carries a BGV plaintext factor f = " + std::to_string(ct.factor()) +
        "; it is a BGV ciphertext, and this context is BFV's (Scheme::bfv): decrypt and evaluate "
        "it under a Scheme::bgv context");
  }
}

void check_bgv_factor(const Context& ctx, const Ciphertext& a, const char* op) {
  const u64 t = ctx.t().value();
  const u64 f = a.factor();
  if (f >= t || std::gcd(f, t) != 1) {
    throw InvalidParameter(std::string(op) + ": the ciphertext's plaintext factor f = " +
                           std::to_string(f) + " is not a unit modulo t = " + std::to_string(t) +
                           " (it must be below t and coprime to it; was the ciphertext made by "
                           "BGV under this context?)");
  }
}

// The parameters, then the factor the scheme requires.
void check_ciphertext(const Context& ctx, const Ciphertext& ct, const char* op) {
  rlwe::check_same_params(ctx.params(), ct.params(), op);
  if (ctx.scheme() == Scheme::bfv) {
    check_bfv_factor(ct, op);
  } else {
    check_bgv_factor(ctx, ct, op);
  }
}

// The words of encryption, decryption and the noise budget, shared by the classes and by
// bgv.hpp's deprecated free functions.

Ciphertext encrypt_with(const Context& ctx, const rlwe::Encryptor& encryptor, const Plaintext& m) {
  check_plaintext(ctx, m, "encrypt");
  const std::size_t top = ctx.params()->max_level();
  if (ctx.scheme() == Scheme::bfv) {
    return encryptor.encrypt(scaled_plaintext(ctx, m, top, encryptor.device()));
  }
  Ciphertext ct = encryptor.encrypt_zero(top);
  rlwe::check_same_params(ctx.params(), ct.params(), "encrypt");
  for (RnsPoly& part : ct.parts()) part.multiply_scalar(ctx.t().value());
  ct.parts()[0].add(lifted_plaintext(ctx, m, top, ct.device()));
  return ct;
}

Plaintext decrypt_with(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  check_ciphertext(ctx, ct, "decrypt");
  RnsPoly x = rlwe::decrypt_poly(ct, sk);
  {
    const polyhe::detail::SecretScope secret;  // x's transform: the kernels' scratch wiped
    x.to_coefficient();
  }
  Plaintext out{std::vector<u64>(ctx.n())};
  // The rounding (BFV) or conversion (BGV) to Z_t is decoding: on the host. x holds the noise
  // beside the message (key-dependent): wiped once read.
  detail::move_to_host_wiping(x);
  if (ctx.scheme() == Scheme::bfv) {
    ctx.level(ct.level()).rounder.round(x.data(), out.coeffs);
  } else {
    const PlainReducer reducer(ctx.params()->q_basis().prefix(ct.limbs()), ctx.t().value());
    reducer.reduce(x.data(), inverse_mod(ct.factor(), ctx.t().value()), out.coeffs);
  }
  x.wipe();
  polyhe::detail::ct_public(std::span<const u64>(out.coeffs));  // the message: public to its reader
  return out;
}

int noise_budget_with(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  rlwe::check_same_params(ctx.params(), ct.params(), "noise_budget");
  if (ctx.scheme() == Scheme::bfv) {
    check_bfv_factor(ct, "noise_budget");
    return detail::noise_budget_bits(ctx, ct, sk, ctx.t().value());
  }
  return detail::noise_budget_bits(ctx, ct, sk, 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The free functions of bgv.hpp (deprecated): forwards to the words above.

Ciphertext encrypt(const Context& ctx, const rlwe::Encryptor& encryptor, const Plaintext& m) {
  return encrypt_with(ctx, encryptor, m);
}

Plaintext decrypt(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  return decrypt_with(ctx, ct, sk);
}

int noise_budget(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  return noise_budget_with(ctx, ct, sk);
}

// ---------------------------------------------------------------------------------------------
// Encryption, decryption, noise budget.

// ---------------------------------------------------------------------------------------------
// Context, Encryptor, Decryptor.

rlwe::KeyGenerator Context::key_generator() const {
  return rlwe::KeyGenerator(params_);
}

rlwe::KeyGenerator Context::key_generator(const Seed& master_seed) const {
  return rlwe::KeyGenerator(params_, master_seed);
}

Encryptor Context::encryptor(rlwe::PublicKey pk, std::optional<Seed> seed) const {
  return encryptor(rlwe::share(std::move(pk)), seed);
}

Encryptor Context::encryptor(std::shared_ptr<const rlwe::PublicKey> pk,
                             std::optional<Seed> seed) const {
  return Encryptor(
      shared_from_this(),
      std::make_shared<const rlwe::Encryptor>(
          rlwe::checked_key(std::move(pk), params_, "bgv::Context::encryptor (public key)"), seed));
}

Encryptor Context::encryptor(rlwe::SecretKey sk, std::optional<Seed> seed) const {
  return encryptor(rlwe::share(std::move(sk)), seed);
}

Encryptor Context::encryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                             std::optional<Seed> seed) const {
  return Encryptor(
      shared_from_this(),
      std::make_shared<const rlwe::Encryptor>(
          rlwe::checked_key(std::move(sk), params_, "bgv::Context::encryptor (secret key)"), seed));
}

Decryptor Context::decryptor(rlwe::SecretKey sk) const {
  return decryptor(rlwe::share(std::move(sk)));
}

Decryptor Context::decryptor(std::shared_ptr<const rlwe::SecretKey> sk) const {
  return Decryptor(shared_from_this(), std::move(sk));
}

Evaluator Context::evaluator() const {
  return Evaluator(shared_from_this());
}

Evaluator Context::evaluator(rlwe::KeySwitchKey relin) const {
  return Evaluator(shared_from_this(), rlwe::share(std::move(relin)));
}

Evaluator Context::evaluator(rlwe::KeySwitchKey relin, rlwe::GaloisKeys galois) const {
  return Evaluator(shared_from_this(), rlwe::share(std::move(relin)),
                   rlwe::share(std::move(galois)));
}

Evaluator Context::evaluator(std::shared_ptr<const rlwe::KeySwitchKey> relin,
                             std::shared_ptr<const rlwe::GaloisKeys> galois) const {
  return Evaluator(shared_from_this(), std::move(relin), std::move(galois));
}

Encryptor::Encryptor(ContextPtr ctx, std::shared_ptr<const rlwe::Encryptor> encryptor)
    : ctx_(std::move(ctx)), encryptor_(std::move(encryptor)) {
  if (!ctx_) throw InvalidParameter("bgv::Encryptor: null context");
  if (!encryptor_) throw InvalidParameter("bgv::Encryptor: the rlwe encryptor is null");
}

Ciphertext Encryptor::encrypt(const Plaintext& m) const {
  return encrypt_with(*ctx_, *encryptor_, m);
}

Decryptor::Decryptor(ContextPtr ctx, std::shared_ptr<const rlwe::SecretKey> sk)
    : ctx_(std::move(ctx)), sk_(std::move(sk)) {
  if (!ctx_) throw InvalidParameter("bgv::Decryptor: null context");
  if (!sk_) throw InvalidParameter("bgv::Decryptor: null secret key");
  rlwe::check_same_params(ctx_->params(), sk_->params, "bgv::Decryptor");
}

Decryptor::Decryptor(ContextPtr ctx, const rlwe::SecretKey& sk)
    : Decryptor(std::move(ctx), std::make_shared<const rlwe::SecretKey>(sk)) {}

Plaintext Decryptor::decrypt(const Ciphertext& ct) const {
  return decrypt_with(*ctx_, ct, *sk_);
}

int Decryptor::noise_budget(const Ciphertext& ct) const {
  return noise_budget_with(*ctx_, ct, *sk_);
}

// ---------------------------------------------------------------------------------------------
// Evaluator: construction, checks, level and factor alignment.

Evaluator::Evaluator(ContextPtr ctx, std::shared_ptr<const rlwe::KeySwitchKey> relin,
                     std::shared_ptr<const rlwe::GaloisKeys> galois)
    : ctx_(std::move(ctx)), relin_(std::move(relin)), galois_(std::move(galois)) {
  if (!ctx_) throw InvalidParameter("bgv::Evaluator: null context");
  if (relin_ != nullptr) {
    rlwe::check_same_params(ctx_->params(), relin_->params, "bgv::Evaluator");
  }
  if (galois_ != nullptr) {
    rlwe::check_same_params(ctx_->params(), galois_->params, "bgv::Evaluator");
  }
  const auto& q = ctx_->params()->q_primes();
  const u64 t = ctx_->t().value();
  // Every q_i is a prime that does not divide t (Context checks), so t and q_l are units.
  for (std::size_t l = 1; l < q.size(); ++l) q_last_inv_t_.push_back(inverse_mod(q[l] % t, t));
}

std::uint64_t Evaluator::error_multiple() const {
  return bfv() ? 1 : ctx_->t().value();
}

void Evaluator::check(const Ciphertext& a, const char* op) const {
  check_ciphertext(*ctx_, a, op);
}

void Evaluator::check_size2(const Ciphertext& a, const char* op) const {
  if (a.size() != 2) {
    throw InvalidParameter(std::string(op) + ": relinearise the ciphertext first (size " +
                           std::to_string(a.size()) + ")");
  }
}

void Evaluator::align_levels(Ciphertext& a, Ciphertext& b) const {
  while (a.level() > b.level()) mod_switch_to_next_inplace(a);
  while (b.level() > a.level()) mod_switch_to_next_inplace(b);
}

void Evaluator::retarget_factor(Ciphertext& a, std::uint64_t target) const {
  const u64 t = ctx_->t().value();
  const u64 k = mulmod(target, inverse_mod(a.factor(), t), t);
  const std::vector<u64> residues = centred_residues(k, t, *ctx_->params(), a.limbs());
  for (RnsPoly& part : a.parts()) part.multiply_scalar(residues);
  a.set_factor(target);
}

void Evaluator::align_factors(Ciphertext& a, Ciphertext& b) const {
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

Ciphertext Evaluator::add_or_sub(const Ciphertext& a, const Ciphertext& b, bool sub,
                                 const char* op) const {
  check(a, op);
  check(b, op);
  // BFV: factors are 1 and levels must agree (rlwe refuses others, naming both).
  if (bfv() || (a.level() == b.level() && a.factor() == b.factor())) {
    return sub ? rlwe::sub(a, b) : rlwe::add(a, b);
  }
  Ciphertext out = a;
  Ciphertext other = b;
  align_levels(out, other);
  align_factors(out, other);
  if (sub) {
    rlwe::sub_inplace(out, other);
  } else {
    rlwe::add_inplace(out, other);
  }
  return out;
}

Ciphertext Evaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  return add_or_sub(a, b, false, "add");
}

Ciphertext Evaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  return add_or_sub(a, b, true, "sub");
}

Ciphertext Evaluator::negate(const Ciphertext& a) const {
  check(a, "negate");
  Ciphertext out = a;
  rlwe::negate_inplace(out);
  return out;
}

Ciphertext Evaluator::add_or_sub_plain(const Ciphertext& a, const Plaintext& m, bool sub,
                                       const char* op) const {
  check(a, op);
  check_plaintext(*ctx_, m, op);
  std::optional<RnsPoly> p;
  if (bfv()) {
    // round(Q_l·m/t): the plaintext at the ciphertext's scale.
    p.emplace(scaled_plaintext(*ctx_, m, a.level(), a.device()));
    p->to_evaluation();
  } else {
    // f·m + t·e ± f·m' = f·(m ± m') + t·e: the plaintext takes a's factor, exactly.
    const u64 f = a.factor();
    std::optional<Plaintext> scaled;
    if (f != 1) {
      const u64 t = ctx_->t().value();
      scaled.emplace(Plaintext{std::vector<u64>(m.coeffs.size())});
      for (std::size_t i = 0; i < m.coeffs.size(); ++i) {
        scaled->coeffs[i] = mulmod(m.coeffs[i], f, t);
      }
    }
    p.emplace(lifted_plaintext(*ctx_, scaled ? *scaled : m, a.level(), a.device()));
  }
  Ciphertext out = a;
  if (sub) {
    out.parts()[0].sub(*p);
  } else {
    out.parts()[0].add(*p);
  }
  return out;
}

Ciphertext Evaluator::add_plain(const Ciphertext& a, const Plaintext& m) const {
  return add_or_sub_plain(a, m, false, "add_plain");
}

Ciphertext Evaluator::sub_plain(const Ciphertext& a, const Plaintext& m) const {
  return add_or_sub_plain(a, m, true, "sub_plain");
}

// ---------------------------------------------------------------------------------------------
// Multiplicative operations and key switching.

Ciphertext Evaluator::multiply_plain(const Ciphertext& a, const Plaintext& m) const {
  check(a, "multiply_plain");
  check_plaintext(*ctx_, m, "multiply_plain");
  return detail::multiply_parts(a, lifted_plaintext(*ctx_, m, a.level(), a.device()));
}

Ciphertext Evaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "multiply");
  check(b, "multiply");
  if (bfv() && a.level() != b.level()) {
    throw InvalidParameter("multiply: operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) +
                           "); BFV does not align them: switch the higher one down first "
                           "(mod_switch_to)");
  }
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidParameter("multiply: operands must be relinearised (size 2), got sizes " +
                           std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  if (bfv()) {
    rlwe::check_same_place(a, b, "multiply");
    const Context::Level& lv = ctx_->level(a.level());
    const ScaleInvariantTables tables{ctx_->aux_ring(), lv.aux, &*lv.q_to_r, &*lv.r_to_q,
                                      &*lv.scale};
    TensorProduct tp = scale_invariant_tensor(tables, a[0], a[1], b[0], b[1]);
    Ciphertext out(ctx_->params(), a.level(), 3, 1.0, RnsPoly::kForOverwrite, a.device());
    out[0] = std::move(tp.c0);
    out[1] = std::move(tp.c1);
    out[2] = std::move(tp.c2);
    return out;
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

Ciphertext Evaluator::relinearize(const Ciphertext& a) const {
  check(a, "relinearize");
  if (a.size() == 2) return a;
  if (relin_ == nullptr) {
    throw InvalidParameter(
        "relinearize: this evaluator has no relinearization key (pass one made by "
        "KeyGenerator::relinearization_key to the bgv::Evaluator)");
  }
  return rlwe::relinearize(a, *relin_, error_multiple());
}

Ciphertext Evaluator::multiply_relin(const Ciphertext& a, const Ciphertext& b) const {
  return relinearize(multiply(a, b));
}

Ciphertext Evaluator::apply_galois(const Ciphertext& a, std::uint64_t k) const {
  check(a, "apply_galois");
  check_size2(a, "apply_galois");
  const rlwe::KeySwitchKey& key = detail::galois_key(galois_.get(), k, "apply_galois",
                                                     "element " + std::to_string(k), kGaloisHint);
  return rlwe::apply_galois(a, key, error_multiple());
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

Ciphertext Evaluator::rotate_rows(const Ciphertext& a, std::int64_t step) const {
  check(a, "rotate_rows");
  check_size2(a, "rotate_rows");
  require_power_of_two(*ctx_, "rotate_rows");
  const std::uint64_t k = rlwe::galois_element_for_rotation(ctx_->n(), step);
  if (k == 1) return a;
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_.get(), k, "rotate_rows",
      "step " + std::to_string(step) + " (element " + std::to_string(k) + ")",
      "generate it with KeyGenerator::rotation_keys({" + std::to_string(step) + "})");
  return rlwe::apply_galois(a, key, error_multiple());
}

std::vector<Ciphertext> Evaluator::rotate_rows_many(const Ciphertext& a,
                                                    std::span<const std::int64_t> steps) const {
  check(a, "rotate_rows_many");
  check_size2(a, "rotate_rows_many");
  require_power_of_two(*ctx_, "rotate_rows_many");
  rlwe::check_list_length(steps.size(), ctx_->n() / 2, "rotate_rows_many", "steps",
                          "one output ciphertext each; a row has N/2 distinct rotations");
  std::vector<const rlwe::KeySwitchKey*> keys;  // null: a rotation by 0
  for (const std::int64_t step : steps) {
    const std::uint64_t k = rlwe::galois_element_for_rotation(ctx_->n(), step);
    keys.push_back(k == 1 ? nullptr
                          : &detail::galois_key(galois_.get(), k, "rotate_rows_many",
                                                "step " + std::to_string(step) + " (element " +
                                                    std::to_string(k) + ")",
                                                "generate it with KeyGenerator::rotation_keys({" +
                                                    std::to_string(step) + "})"));
  }
  return rlwe::apply_galois_hoisted(a, keys, error_multiple());
}

Ciphertext Evaluator::rotate_columns(const Ciphertext& a) const {
  check(a, "rotate_columns");
  check_size2(a, "rotate_columns");
  require_power_of_two(*ctx_, "rotate_columns");
  const std::uint64_t k = rlwe::galois_element_for_conjugation(ctx_->n());
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_.get(), k, "rotate_columns",
      "the row swap (element " + std::to_string(k) + ", conjugation=true)",
      "generate it with KeyGenerator::rotation_keys(steps, /*conjugation=*/true)");
  return rlwe::apply_galois(a, key, error_multiple());
}

// ---------------------------------------------------------------------------------------------
// Modulus switching.

void Evaluator::mod_switch_to_next_inplace(Ciphertext& a) const {
  check(a, "mod_switch_to_next");
  const std::size_t l = a.level();
  if (l == 0) {
    throw InvalidParameter(
        "mod_switch_to_next: the ciphertext is at level 0, there is no prime left to drop; "
        "decrypt it, or choose a chain with more primes for this depth");
  }
  std::vector<RnsPoly*> parts;
  for (RnsPoly& part : a.parts()) parts.push_back(&part);
  if (bfv()) {
    // c' = round(c/q_l): Δ_l·m/q_l ≈ Δ_{l−1}·m, the invariant noise about unchanged (see the
    // top of bgv.hpp); factor 1.
    rescale_by_last_prime_inplace(parts, 1);
    return;
  }
  // c' = (c − δ)·q_l^−1 with δ = t·[c·t^−1]_centred ≡ c mod q_l and ≡ 0 mod t: the message
  // survives, times q_l^−1 mod t (ring/rescale.hpp, error multiple t).
  rescale_by_last_prime_inplace(parts, ctx_->t().value());
  a.set_factor(mulmod(a.factor(), q_last_inv_t_[l - 1], ctx_->t().value()));
}

Ciphertext Evaluator::mod_switch_to_next(const Ciphertext& a) const {
  Ciphertext out = a;
  mod_switch_to_next_inplace(out);
  return out;
}

Ciphertext Evaluator::mod_switch_to(const Ciphertext& a, std::size_t level) const {
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
