#include "polyhe/rns/decrypt_rounder.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/rns/bigint.hpp"

// Exactness of the γ correction (BEHZ §4), the derivation behind the header's statement.
//
// Let y = [γ·t·x]_Q and S = Σ_i τ_i·q̂_i, τ_i = [y_i·q̂_i^−1]_{q_i}: S ≡ y (mod Q) and
// 0 ≤ S ≤ Σ_i (q_i − 1)·q̂_i < L·Q. W = (γ·t·x − S)/Q is an integer (γ·t·x − S ≡ γ·t·x − y ≡ 0),
// and W·Q ≡ −S (mod m) for m ∈ {t, γ} since m divides γ·t·x: the folded FastBConv gives
// s_m = −S·Q^−1 mod m = W mod m. Let e ∈ (−γ/2, γ/2) be s_γ centred (γ odd) and A = (W − e)/γ;
// the output (s_t − e)·γ^−1 mod t is A mod t (gcd(γ, t) = 1). Now
//   A = W/γ − e/γ = t·x/Q − σ − e/γ,   σ = S/(γ·Q) ∈ [0, L/γ).
// With t·x/Q = R + δ, R = round(t·x/Q) = ⌊t·x/Q + 1/2⌋, δ ∈ [−1/2, 1/2): A − R = δ − σ − e/γ is
// an integer and |e/γ| < 1/2. δ − σ < 1/2 always; if δ − σ > −1/2 then A − R ∈ (−1, 1), so A = R;
// if δ − σ ≤ −1/2 (possible only for δ < −1/2 + L/γ) then A − R ∈ (−1 − L/γ, 0), so A = R − 1.
//
// For x ≡ Δ·m + v (mod Q), Δ = ⌊Q/t⌋, t·Δ = Q − r: t·x/Q ≡ m + (t·v − r·m)/Q modulo t, so with
// −Q/2 + L·Q/γ ≤ t·v − r·m < Q/2 the output is m. Over |v| ≤ V, 0 ≤ m ≤ t − 1 the extremes are
// t·V (v = V, m = 0) and −t·V − r·(t − 1): both hold when t·V ≤ Q/2 − L·Q/γ − r·(t − 1), i.e.
// V ≤ (γ·Q − 2·L·Q − 2·γ·r·(t − 1)) / (2·γ·t) (and then t·V < Q/2 too).

namespace polyhe {

namespace {

// Coefficients per task: the block's 128-bit accumulators (2 × 4 KiB) stay in L1.
constexpr std::size_t kBlock = 256;

std::uint64_t check_plain_modulus(const RnsBasis& q, std::uint64_t t) {
  if (t < 2 || t > BfvDecryptRounder::kMaxPlainModulus) {
    throw InvalidParameter("BfvDecryptRounder: t = " + std::to_string(t) + " is outside [2, 2^60)");
  }
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (t % q.prime(i) == 0) {
      throw InvalidParameter("BfvDecryptRounder: t = " + std::to_string(t) +
                             " is not coprime to the prime q_" + std::to_string(i) + " = " +
                             std::to_string(q.prime(i)) + " of Q; the rounding needs Q^−1 mod t");
    }
  }
  return t;
}

// Whether every prime of Q is below 2^52: then γ is taken below 2^50, so that the IFMA52
// weighted sums (cpu/convert_kernel.hpp) serve the conversion to γ.
bool narrow_basis(const RnsBasis& q) {
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (q.prime(i) >= (std::uint64_t{1} << 52)) return false;
  }
  return true;
}

// The largest prime below 2^50 (for a basis of primes below 2^52) or below 2^61 (otherwise:
// 2^61 − 1, a Mersenne prime, almost always) that Q does not hold and that does not divide t.
std::uint64_t choose_gamma(const RnsBasis& q, std::uint64_t t) {
  std::uint64_t g = narrow_basis(q) ? (std::uint64_t{1} << 50) - 1 : (std::uint64_t{1} << 61) - 1;
  while (!is_prime(g) || q.find(g) != q.size() || t % g == 0) g -= 2;
  return g;
}

std::uint64_t mpz_mod_u64(const mpz_class& x, std::uint64_t m) {
  return mpz_fdiv_ui(x.get_mpz_t(), m);  // floor remainder: in [0, m) for either sign of x
}

}  // namespace

BfvDecryptRounder::BfvDecryptRounder(RnsBasis q, std::uint64_t t)
    : q_(std::move(q)), t_(check_plain_modulus(q_, t)), gamma_(choose_gamma(q_, t_)) {
  const std::size_t nq = q_.size();
  const mpz_class& big_q = big_product(q_);
  // −Q^−1 mod t and mod γ (Q is coprime to both: checked above, and γ is a prime outside Q).
  const std::uint64_t neg_q_inv_t = neg_mod(inverse_mod(mpz_mod_u64(big_q, t_), t_), t_);
  const std::uint64_t neg_q_inv_g =
      neg_mod(inverse_mod(mpz_mod_u64(big_q, gamma_), gamma_), gamma_);
  std::uint64_t q_max = 0;
  for (std::size_t i = 0; i < nq; ++i) {
    const std::uint64_t qi = q_.prime(i);
    q_max = std::max(q_max, qi);
    const auto& mod = q_.modulus(i);
    const std::uint64_t gt = mod.mul(gamma_ % qi, t_ % qi);
    scale_.push_back(make_shoup(mod.mul(gt, q_.q_hat_inverse(i).w), qi));
    // Host-side table build: a 128-bit remainder is fine here.
    const u128 to_t = mul_wide(q_.q_hat_mod(i, t_), neg_q_inv_t) % t_;
    const u128 to_g = mul_wide(q_.q_hat_mod(i, gamma_), neg_q_inv_g) % gamma_;
    to_t_.push_back(static_cast<std::uint64_t>(to_t));
    to_gamma_.push_back(static_cast<std::uint64_t>(to_g));
  }
  // Both accumulators start at (or are reduced to) values below γ > t; a product is at most
  // (q_max − 1)(γ − 1).
  const u128 max_product = mul_wide(q_max - 1, gamma_ - 1);
  const u128 room = ~u128{0} - gamma_;
  const u128 chunk = max_product == 0 ? u128{nq} : room / max_product;
  chunk_ = static_cast<std::size_t>(std::min<u128>(std::max<u128>(chunk, 1), nq));
  reduce_t_ = make_wide_barrett(t_);
  reduce_gamma_ = make_wide_barrett(gamma_);
  gamma_mod_t_ = gamma_ % t_;
  gamma_inv_t_ = make_shoup(inverse_mod(gamma_mod_t_, t_), t_);
  // Every τ_i is below its q_i ≤ q_max.
  sum_t_ = vec::WeightedSum(t_, nq, q_max);
  sum_gamma_ = vec::WeightedSum(gamma_, nq, q_max);
}

double BfvDecryptRounder::inexact_band() const {
  return static_cast<double>(q_.size()) / static_cast<double>(gamma_);
}

void BfvDecryptRounder::round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                              unsigned threads) const {
  const std::size_t nq = q_.size();
  if (in.empty() || in.size() % nq != 0) {
    throw InvalidParameter("BfvDecryptRounder: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for " +
                           std::to_string(nq) + " primes");
  }
  const std::size_t n = in.size() / nq;
  if (out.size() != n) {
    throw InvalidParameter("BfvDecryptRounder: output of " + std::to_string(out.size()) +
                           " words, expected N = " + std::to_string(n));
  }
  if (overlaps(in, out)) throw InvalidParameter("BfvDecryptRounder: input and output overlap");

  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  auto body = [&](std::size_t b) {
    const std::size_t k0 = b * kBlock;
    round_block(in.data(), n, k0, std::min(n, k0 + kBlock), out.data());
  };
  if (threads == 1 || in.size() < vec::kParallelMinWords) {
    for (std::size_t b = 0; b < blocks; ++b) body(b);
  } else {
    parallel_for(blocks, body, threads);
  }
}

void BfvDecryptRounder::round_block(const std::uint64_t* x, std::size_t n, std::size_t k0,
                                    std::size_t k1, std::uint64_t* out) const {
  const std::size_t nq = q_.size();
  const std::size_t len = k1 - k0;
  if (sum_t_.path() != vec::WeightedSumPath::none &&
      sum_gamma_.path() != vec::WeightedSumPath::none) {
    // τ_i by the vector Shoup kernels, then both folded sums by the vector weighted sum: the
    // same residues s_t, s_γ as the 128-bit loop below.
    std::vector<std::uint64_t> tau(nq * len);
    std::vector<const std::uint64_t*> terms(nq);
    for (std::size_t i = 0; i < nq; ++i) {
      vec::multiply_scalar(std::span<const std::uint64_t>(x + i * n + k0, len), scale_[i],
                           std::span<std::uint64_t>(tau.data() + i * len, len), q_.modulus(i));
      terms[i] = tau.data() + i * len;
    }
    std::uint64_t s_t[kBlock], s_g[kBlock];
    sum_t_(terms, to_t_, std::span<std::uint64_t>(s_t, len));
    sum_gamma_(terms, to_gamma_, std::span<std::uint64_t>(s_g, len));
    finish(s_t, s_g, len, out + k0);
    return;
  }
  u128 acc_t[kBlock] = {};
  u128 acc_g[kBlock] = {};
  for (std::size_t i0 = 0; i0 < nq; i0 += chunk_) {
    const std::size_t i1 = std::min(nq, i0 + chunk_);
    for (std::size_t i = i0; i < i1; ++i) {
      const std::uint64_t* xi = x + i * n + k0;
      const std::uint64_t qi = q_.prime(i);
      const ShoupOperand<std::uint64_t> scale = scale_[i];
      const std::uint64_t to_t = to_t_[i];
      const std::uint64_t to_g = to_gamma_[i];
      for (std::size_t k = 0; k < len; ++k) {
        POLYHE_DEBUG_ASSERT(xi[k] < qi);
        const std::uint64_t tau = mul_shoup(xi[k], scale, qi);  // [γ·t·x_i·q̂_i^−1]_{q_i}
        acc_t[k] += mul_wide(tau, to_t);
        acc_g[k] += mul_wide(tau, to_g);
      }
    }
    if (i1 < nq) {
      for (std::size_t k = 0; k < len; ++k) {
        acc_t[k] = wide_reduce(acc_t[k], reduce_t_);
        acc_g[k] = wide_reduce(acc_g[k], reduce_gamma_);
      }
    }
  }
  std::uint64_t s_t[kBlock], s_g[kBlock];
  for (std::size_t k = 0; k < len; ++k) {
    s_t[k] = wide_reduce(acc_t[k], reduce_t_);
    s_g[k] = wide_reduce(acc_g[k], reduce_gamma_);
  }
  finish(s_t, s_g, len, out + k0);
}

void BfvDecryptRounder::finish(const std::uint64_t* s_t, const std::uint64_t* s_g, std::size_t len,
                               std::uint64_t* y) const {
  const std::uint64_t t = t_;
  const std::uint64_t half_gamma = gamma_ >> 1;  // (γ − 1)/2: s_γ above it is negative
  for (std::size_t k = 0; k < len; ++k) {
    // e = s_γ − γ·[s_γ > (γ−1)/2]; s_t − e mod t = s_t − [s_γ]_t + [γ]_t·[negative].
    const std::uint64_t negative =
        std::uint64_t{0} - static_cast<std::uint64_t>(s_g[k] > half_gamma);
    const std::uint64_t s_g_t = wide_reduce(u128{s_g[k]}, reduce_t_);
    const std::uint64_t d = add_mod(sub_mod(s_t[k], s_g_t, t), gamma_mod_t_ & negative, t);
    y[k] = mul_shoup(d, gamma_inv_t_, t);
  }
}

}  // namespace polyhe
