#include "polyhe/bgv/bfv.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "evaluator_common.hpp"
#include "plaintext_lift.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/poly_ops.hpp"
#include "polyhe/ring/scale_invariant.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe::bgv {

namespace {

using detail::check_plaintext;
using detail::lifted_plaintext;
using u64 = std::uint64_t;
using u128 = unsigned __int128;

// The size of R's primes: 50 bits when Q's primes have at most 50 (so that every base conversion
// of the multiplication runs on the IFMA52 kernels: their inputs must be below 2^52), else 60.
int aux_bits(const rlwe::Parameters& params) {
  int widest = 0;
  for (u64 q : params.q_primes()) widest = std::max(widest, bit_length(q));
  return widest <= 50 ? 50 : 60;
}

// The auxiliary primes of R: NTT primes for N of aux_bits bits, none of Q ∪ P, as many as the top
// level needs, largest first (a level takes a prefix).
std::vector<u64> aux_primes(const rlwe::Parameters& params, std::size_t count) {
  std::vector<u64> taken(params.q_primes());
  taken.insert(taken.end(), params.p_primes().begin(), params.p_primes().end());
  const std::vector<u64> candidates =
      ntt_primes(aux_bits(params), params.n(), count + taken.size());
  std::vector<u64> out;
  for (u64 p : candidates) {
    if (std::find(taken.begin(), taken.end(), p) == taken.end()) out.push_back(p);
    if (out.size() == count) break;
  }
  return out;
}

// |R_l| for Q_l: bits(R_l) ≥ bits(Q_l) + bits(t) + log2(N) + 3, so that R_l > 8·t·N·Q_l: the
// tensor's coefficients (|x| ≤ N·Q_l²/2) fit Q_l·R_l, and round(t·x/Q_l) (≤ t·N·Q_l/2) is lifted
// back from R_l exactly.
std::size_t aux_count(double log2_q, int t_bits, int log_n, int prime_bits) {
  const double need = log2_q + t_bits + log_n + 3;
  return static_cast<std::size_t>(need / (prime_bits - 1)) + 1;  // each prime > 2^(bits − 1)
}

double log2_product(std::span<const u64> primes) {
  double s = 0;
  for (u64 p : primes) s += std::log2(static_cast<double>(p));
  return s;
}

// round(Q_l·m/t) over Q_l, coefficient form, as the centred lift of m_c + round(r·m_c/t), where
// m_c is m's centred representative: round(Q·(m − t)/t) = round(Q·m/t) − Q, so either
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
void check_bfv(const Context& ctx, const Ciphertext& ct, const char* op) {
  rlwe::check_same_params(ctx.params(), ct.params(), op);
  if (ct.factor() != 1) {
    throw InvalidParameter(
        std::string(op) +
        ": the ciphertext carries a BGV plaintext factor f = " + std::to_string(ct.factor()) +
        "; it is a BGV ciphertext (use bgv_decrypt and the BgvEvaluator)");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Context.

Context::Context(rlwe::ParametersPtr params, std::uint64_t t)
    : params_(std::move(params)), t_(t), coeff_(params_->n(), t) {
  const std::size_t n = params_->n();
  if (params_->power_of_two() && supports_batching(t, n)) batch_.emplace(n, t);
  const auto& q = params_->q_primes();
  for (u64 qi : q) {
    if (t % qi == 0) {
      throw InvalidParameter("bgv::Context: the prime q = " + std::to_string(qi) +
                             " of the chain divides t = " + std::to_string(t) +
                             "; choose t coprime to Q");
    }
  }
  if (!params_->power_of_two() && std::gcd(t, static_cast<u64>(params_->m())) != 1) {
    throw InvalidParameter("bgv::Context: t = " + std::to_string(t) +
                           " and m = " + std::to_string(params_->m()) +
                           " share a factor; t must be coprime to m (else Phi_m mod t is not "
                           "separable: no slots, and HElib's rings assume it)");
  }
  const std::size_t top = params_->max_level();
  const bool hps = params_->power_of_two();  // BFV's multiplication: x^N + 1 only
  const int r_bits = hps ? aux_bits(*params_) : 0;
  const std::size_t aux_top =
      hps ? aux_count(log2_product(q), t_.bits(), params_->log_n(), r_bits) : 0;
  std::optional<RnsBasis> r_all;
  if (hps) {
    const std::vector<u64> aux = aux_primes(*params_, aux_top);
    aux_ring_ = RingContext::create(n, aux);
    r_all.emplace(aux);
  }
  levels_.reserve(top + 1);
  for (std::size_t l = 0; l <= top; ++l) {
    const RnsBasis ql = params_->q_basis().prefix(l + 1);
    const mpz_class& big_q = ql.product();
    const mpz_class delta = big_q / mpz_class(std::to_string(t));
    const mpz_class r = big_q % mpz_class(std::to_string(t));
    std::vector<u64> delta_res(l + 1);
    for (std::size_t i = 0; i <= l; ++i) {
      const mpz_class d = delta % mpz_class(std::to_string(q[i]));
      delta_res[i] = std::stoull(d.get_str());
    }
    const double lq = log2_product(std::span<const u64>(q).first(l + 1));
    Level level{std::move(delta_res),
                std::stoull(r.get_str()),
                lq,
                BfvDecryptRounder(ql, t),
                0,
                std::nullopt,
                std::nullopt,
                std::nullopt};
    if (hps) {
      level.aux = aux_count(lq, t_.bits(), params_->log_n(), r_bits);
      const RnsBasis rl = r_all->prefix(level.aux);
      level.q_to_r.emplace(ql, rl);
      level.r_to_q.emplace(rl, ql);
      level.scale.emplace(ql, rl, t);
    }
    levels_.push_back(std::move(level));
  }
}

std::shared_ptr<const Context> Context::create(rlwe::ParametersPtr params, std::uint64_t t) {
  if (!params) throw InvalidParameter("bgv::Context: null parameters");
  return std::shared_ptr<const Context>(new Context(std::move(params), t));
}

std::size_t Context::n() const {
  return params_->n();
}

const SlotEncoder& Context::slot_encoder() const {
  if (params_->power_of_two()) {
    throw InvalidParameter("slot_encoder: the ring is x^N + 1; its slots are batch_encoder()'s");
  }
  std::call_once(slots_once_, [&] { slots_ = SlotEncoder::create(params_->m(), t_.value()); });
  return *slots_;
}

const BatchEncoder& Context::batch_encoder() const {
  if (!params_->power_of_two()) {
    throw InvalidParameter("batch_encoder: the ring is Phi_" + std::to_string(params_->m()) +
                           " (odd m); its slots of GF(t^d), d = ord_m(t), are slot_encoder()'s");
  }
  if (!batch_) check_batching(t_.value(), params_->n());  // throws, naming t and 2N
  return *batch_;
}

// ---------------------------------------------------------------------------------------------
// Encryption, decryption, noise budget.

Ciphertext bfv_encrypt(const Context& ctx, rlwe::Encryptor& encryptor, const Plaintext& m) {
  check_plaintext(ctx, m, "bfv_encrypt");
  return encryptor.encrypt(scaled_plaintext(ctx, m, ctx.params()->max_level(), encryptor.device()));
}

Plaintext bfv_decrypt(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  check_bfv(ctx, ct, "bfv_decrypt");
  RnsPoly x = rlwe::decrypt_poly(ct, sk);
  x.to_coefficient();
  Plaintext out{std::vector<u64>(ctx.n())};
  // The rounding to Z_t is decoding: on the host.
  ctx.level(ct.level()).rounder.round(std::move(x).to_host().data(), out.coeffs);
  return out;
}

int invariant_noise_budget(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  check_bfv(ctx, ct, "invariant_noise_budget");
  return detail::noise_budget_bits(ctx, ct, sk, ctx.t().value());
}

// ---------------------------------------------------------------------------------------------
// Evaluator.

BfvEvaluator::BfvEvaluator(ContextPtr ctx, std::shared_ptr<const rlwe::KeySwitchKey> relin,
                           std::shared_ptr<const rlwe::GaloisKeys> galois)
    : ctx_(std::move(ctx)), relin_(std::move(relin)), galois_(std::move(galois)) {
  if (!ctx_) throw InvalidParameter("BfvEvaluator: null context");
  if (!ctx_->params()->power_of_two()) {
    throw InvalidParameter("BfvEvaluator: the ring is Phi_" + std::to_string(ctx_->params()->m()) +
                           " (odd m); BFV's multiplication serves x^N + 1 only: use BgvEvaluator");
  }
  if (relin_ != nullptr) rlwe::check_same_params(ctx_->params(), relin_->params, "BfvEvaluator");
}

void BfvEvaluator::check(const Ciphertext& a, const char* op) const {
  check_bfv(*ctx_, a, op);
}

Ciphertext BfvEvaluator::add(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "add");
  return rlwe::add(a, b);
}

Ciphertext BfvEvaluator::sub(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "sub");
  return rlwe::sub(a, b);
}

Ciphertext BfvEvaluator::negate(const Ciphertext& a) const {
  check(a, "negate");
  Ciphertext out = a;
  rlwe::negate_inplace(out);
  return out;
}

Ciphertext BfvEvaluator::add_plain(const Ciphertext& a, const Plaintext& m) const {
  check(a, "add_plain");
  check_plaintext(*ctx_, m, "add_plain");
  RnsPoly s = scaled_plaintext(*ctx_, m, a.level(), a.device());
  s.to_evaluation();
  Ciphertext out = a;
  out.parts()[0].add(s);
  return out;
}

Ciphertext BfvEvaluator::sub_plain(const Ciphertext& a, const Plaintext& m) const {
  check(a, "sub_plain");
  check_plaintext(*ctx_, m, "sub_plain");
  RnsPoly s = scaled_plaintext(*ctx_, m, a.level(), a.device());
  s.to_evaluation();
  Ciphertext out = a;
  out.parts()[0].sub(s);
  return out;
}

Ciphertext BfvEvaluator::multiply_plain(const Ciphertext& a, const Plaintext& m) const {
  check(a, "multiply_plain");
  check_plaintext(*ctx_, m, "multiply_plain");
  return detail::multiply_parts(a, lifted_plaintext(*ctx_, m, a.level(), a.device()));
}

Ciphertext BfvEvaluator::multiply(const Ciphertext& a, const Ciphertext& b) const {
  check(a, "multiply");
  check(b, "multiply");
  if (a.level() != b.level()) {
    throw InvalidParameter("multiply: operands are at different levels (" +
                           std::to_string(a.level()) + " and " + std::to_string(b.level()) + ")");
  }
  if (a.size() != 2 || b.size() != 2) {
    throw InvalidParameter("multiply: operands must be relinearised (size 2), got sizes " +
                           std::to_string(a.size()) + " and " + std::to_string(b.size()));
  }
  rlwe::check_same_place(a, b, "multiply");
  const Context::Level& lv = ctx_->level(a.level());
  const ScaleInvariantTables tables{ctx_->aux_ring(), lv.aux, &*lv.q_to_r, &*lv.r_to_q, &*lv.scale};
  TensorProduct t = scale_invariant_tensor(tables, a[0], a[1], b[0], b[1]);
  Ciphertext out(ctx_->params(), a.level(), 3, 1.0, RnsPoly::kForOverwrite, a.device());
  out[0] = std::move(t.c0);
  out[1] = std::move(t.c1);
  out[2] = std::move(t.c2);
  return out;
}

Ciphertext BfvEvaluator::relinearize(const Ciphertext& a) const {
  check(a, "relinearize");
  if (a.size() == 2) return a;
  if (relin_ == nullptr) {
    throw InvalidParameter(
        "relinearize: this evaluator has no relinearization key (pass one made by "
        "KeyGenerator::relinearization_key to the BfvEvaluator)");
  }
  return rlwe::relinearize(a, *relin_);
}

Ciphertext BfvEvaluator::multiply_relin(const Ciphertext& a, const Ciphertext& b) const {
  return relinearize(multiply(a, b));
}

Ciphertext BfvEvaluator::apply_galois(const Ciphertext& a, std::uint64_t k) const {
  check(a, "apply_galois");
  return rlwe::apply_galois(
      a, detail::galois_key(galois_.get(), k, "apply_galois", "element " + std::to_string(k),
                            "generate it with KeyGenerator::galois_keys or rotation_keys"));
}

Ciphertext BfvEvaluator::rotate_rows(const Ciphertext& a, std::int64_t step) const {
  check(a, "rotate_rows");
  const std::uint64_t k = rlwe::galois_element_for_rotation(ctx_->n(), step);
  if (k == 1) return a;
  return rlwe::apply_galois(
      a, detail::galois_key(
             galois_.get(), k, "rotate_rows",
             "step " + std::to_string(step) + " (element " + std::to_string(k) + ")",
             "generate it with KeyGenerator::rotation_keys({" + std::to_string(step) + "})"));
}

Ciphertext BfvEvaluator::rotate_columns(const Ciphertext& a) const {
  check(a, "rotate_columns");
  const std::uint64_t k = rlwe::galois_element_for_conjugation(ctx_->n());
  return rlwe::apply_galois(
      a, detail::galois_key(galois_.get(), k, "rotate_columns",
                            "the row swap (element " + std::to_string(k) + ")",
                            "generate it with KeyGenerator::rotation_keys(steps, "
                            "/*conjugation=*/true)"));
}

}  // namespace polyhe::bgv
