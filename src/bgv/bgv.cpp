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
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/convert_kernel.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/elementwise_kernel.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/rlwe/key_switch.hpp"
#include "polyhe/rlwe/operations.hpp"
#include "polyhe/rns/bigint.hpp"

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
  ct.parts()[0].add(lifted_plaintext(ctx, m, top));
  return ct;
}

Plaintext bgv_decrypt(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  rlwe::check_same_params(ctx.params(), ct.params(), "bgv_decrypt");
  check_factor(ctx, ct, "bgv_decrypt");
  RnsPoly x = rlwe::decrypt_poly(ct, sk);
  x.to_coefficient();
  const std::size_t n = ctx.n();
  const std::size_t limbs = ct.limbs();
  const u64 t = ctx.t().value();
  // The HPS conversion of the centred residue to Z_t (rns/base_converter.hpp, convert_exact; t
  // need not be prime here, so RnsBasis cannot hold it): with y_i = [x_i·q̂_i^−1]_{q_i},
  // v = round(Σ_i y_i/q_i), x_c ≡ Σ_i y_i·q̂_i − v·Q (mod t).
  const RnsBasis ql = ctx.params()->q_basis().prefix(limbs);
  // Every constant multiplication mod t is a Shoup product (valid for any 64-bit operand, as
  // len(t) ≤ 60): no division in the loop.
  std::vector<ShoupOperand<u64>> hat_inv(limbs);
  std::vector<ShoupOperand<u64>> hat_mod_t(limbs);
  std::vector<double> inv_q(limbs);
  for (std::size_t i = 0; i < limbs; ++i) {
    hat_inv[i] = ql.q_hat_inverse(i);
    hat_mod_t[i] = make_shoup(ql.q_hat_mod(i, t), t);
    inv_q[i] = 1.0 / static_cast<double>(ql.prime(i));
  }
  const ShoupOperand<u64> q_mod_t = make_shoup(ql.product_mod(t), t);
  const ShoupOperand<u64> f_inv = make_shoup(inverse_mod(ct.factor(), t), t);
  // The IFMA52 weighted sum (cpu/convert_kernel.hpp) where it serves: t below 2^50 and every
  // prime of Q_l below 2^52; the same words as the scalar sum.
  const CpuPath path = cpu_path();
  bool narrow = cpu::ifma_serves(t) && limbs <= cpu::kWeightedSumMaxTerms;
  for (std::size_t i = 0; i < limbs; ++i) narrow = narrow && ql.prime(i) < (u64{1} << 52);
  const cpu::WeightedSumKernel ifma =
      narrow && path == CpuPath::ifma ? cpu::ifma_weighted_sum_kernel() : nullptr;
  const cpu::WeightedSumModulus t_consts =
      ifma != nullptr ? cpu::make_weighted_sum_modulus(t) : cpu::WeightedSumModulus{};
  std::vector<u64> hat_raw(limbs);
  for (std::size_t i = 0; i < limbs; ++i) hat_raw[i] = hat_mod_t[i].w;
  Plaintext out{std::vector<u64>(n)};
  constexpr std::size_t kBlock = 256;
  parallel_for((n + kBlock - 1) / kBlock, [&](std::size_t b) {
    const std::size_t k0 = b * kBlock;
    const std::size_t len = std::min(n, k0 + kBlock) - k0;
    std::vector<u64> y(limbs * len);
    std::vector<const u64*> terms(limbs);
    for (std::size_t i = 0; i < limbs; ++i) {
      const u64 qi = ql.prime(i);
      cpu::elementwise_kernels(path, qi).multiply_scalar(x.limb(i).data() + k0, hat_inv[i],
                                                         y.data() + i * len, len, qi);
      terms[i] = y.data() + i * len;
    }
    u64 acc[kBlock];
    double frac[kBlock] = {};
    for (std::size_t i = 0; i < limbs; ++i) {
      for (std::size_t k = 0; k < len; ++k) frac[k] += static_cast<double>(terms[i][k]) * inv_q[i];
    }
    if (ifma != nullptr) {
      ifma(terms.data(), limbs, hat_raw.data(), acc, len, t_consts);
    } else {
      for (std::size_t k = 0; k < len; ++k) {
        u64 sum = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
          sum += mul_shoup(terms[i][k], hat_mod_t[i], t);
          if (sum >= t) sum -= t;
        }
        acc[k] = sum;
      }
    }
    for (std::size_t k = 0; k < len; ++k) {
      const auto v = static_cast<u64>(frac[k] + 0.5);  // round(Σ y_i/q_i) ∈ [0, limbs]
      const u64 sub = mul_shoup(v, q_mod_t, t);
      const u64 r = acc[k] >= sub ? acc[k] - sub : acc[k] + t - sub;
      out.coeffs[k0 + k] = mul_shoup(r, f_inv, t);
    }
  });
  return out;
}

int bgv_noise_budget(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk) {
  rlwe::check_same_params(ctx.params(), ct.params(), "bgv_noise_budget");
  return detail::noise_budget_bits(ctx, ct, sk, 1);
}

// ---------------------------------------------------------------------------------------------
// Evaluator: construction, checks, level and factor alignment.

BgvEvaluator::BgvEvaluator(ContextPtr ctx, const rlwe::KeySwitchKey* relin,
                           const rlwe::GaloisKeys* galois)
    : ctx_(std::move(ctx)), relin_(relin), galois_(galois) {
  if (!ctx_) throw InvalidParameter("BgvEvaluator: null context");
  if (relin_ != nullptr) rlwe::check_same_params(ctx_->params(), relin_->params, "BgvEvaluator");
  if (galois_ != nullptr) {
    rlwe::check_same_params(ctx_->params(), galois_->params, "BgvEvaluator");
  }
  const auto& q = ctx_->params()->q_primes();
  const u64 t = ctx_->t().value();
  // Every q_i is a prime that does not divide t (Context checks), so t and q_l are units.
  for (std::size_t l = 1; l < q.size(); ++l) {
    Switch s;
    for (std::size_t i = 0; i < l; ++i) {
      s.q_last_inv.push_back(inverse_mod(q[l] % q[i], q[i]));
      s.t_mod.push_back(t % q[i]);
    }
    s.t_inv_last = inverse_mod(t % q[l], q[l]);
    s.q_last_inv_t = inverse_mod(q[l] % t, t);
    switch_.push_back(std::move(s));
  }
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
  const RnsPoly p = lifted_plaintext(*ctx_, scaled ? *scaled : m, a.level());
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
  return detail::multiply_parts(a, lifted_plaintext(*ctx_, m, a.level()));
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
  const auto& params = ctx_->params();
  const std::size_t l = x->level();
  const auto moduli = params->ring()->moduli(l + 1);
  Ciphertext out(params, l, 3, 1.0, RnsPoly::kForOverwrite);
  vec::tensor((*x)[0].data(), (*x)[1].data(), (*y)[0].data(), (*y)[1].data(), out[0].data(),
              out[1].data(), out[2].data(), moduli);
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
  const rlwe::KeySwitchKey& key =
      detail::galois_key(galois_, k, "apply_galois", "element " + std::to_string(k), kGaloisHint);
  return rlwe::apply_galois(a, key, ctx_->t().value());
}

Ciphertext BgvEvaluator::rotate_rows(const Ciphertext& a, std::int64_t step) const {
  check(a, "rotate_rows");
  check_size2(a, "rotate_rows");
  const std::uint64_t k = rlwe::galois_element_for_rotation(ctx_->n(), step);
  if (k == 1) return a;
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_, k, "rotate_rows",
      "step " + std::to_string(step) + " (element " + std::to_string(k) + ")", kGaloisHint);
  return rlwe::apply_galois(a, key, ctx_->t().value());
}

Ciphertext BgvEvaluator::rotate_columns(const Ciphertext& a) const {
  check(a, "rotate_columns");
  check_size2(a, "rotate_columns");
  const std::uint64_t k = rlwe::galois_element_for_conjugation(ctx_->n());
  const rlwe::KeySwitchKey& key = detail::galois_key(
      galois_, k, "rotate_columns",
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
  const Switch& sw = switch_[l - 1];
  const auto& params = *ctx_->params();
  const auto& ring = params.ring();
  const std::size_t n = params.n();
  const u64 q_last = params.q_primes()[l];
  const Modulus<u64>& mod_last = ring->basis().modulus(l);
  const auto moduli = ring->moduli(l);
  const auto plans = ring->plans(l);
  for (RnsPoly& part : a.parts()) {
    const std::span<u64> x = part.data();
    // w = [c·t^−1]_{q_l} in coefficient form; δ = t·w (centred) ≡ c mod q_l, ≡ 0 mod t.
    const std::span<u64> w = rlwe::scratch(rlwe::kScratchCoef, n);
    std::memcpy(w.data(), x.data() + l * n, n * sizeof(u64));
    inverse_batch<u64>(w, ring->plans(l + 1).subspan(l, 1));
    vec::multiply_scalar(w, sw.t_inv_last, w, mod_last);
    // Limb by limb, so that the lifted limb stays in cache between its passes:
    // c'_i = (c_i − NTT(t·w mod q_i))·q_l^−1 mod q_i.
    parallel_for(l, [&](std::size_t i) {
      const std::span<u64> delta = rlwe::scratch(rlwe::kScratchConv, n);
      vec::lift_centred(w, q_last, delta, moduli[i]);
      vec::multiply_scalar(delta, sw.t_mod[i], delta, moduli[i]);
      forward_batch<u64>(delta, plans.subspan(i, 1), kDefaultNttVariant, 1);
      const std::span<u64> xi = x.subspan(i * n, n);
      vec::sub_multiply_scalar(xi, delta, sw.q_last_inv[i], xi, moduli[i]);
    });
    part.drop_last_limb();
  }
  a.set_factor(mulmod(a.factor(), sw.q_last_inv_t, ctx_->t().value()));
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
