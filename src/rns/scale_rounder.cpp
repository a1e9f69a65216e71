#include "polyhe/rns/scale_rounder.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <string>

#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe {

namespace {

// Coefficients per task: the block's exact part, double part and accumulators (10 KiB) stay in
// L1.
constexpr std::size_t kBlock = 256;

std::uint64_t next_rounder_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// x_i = a_i·2^kSplit + b_i: both halves below 2^31 for primes of up to 62 bits.
constexpr int kSplit = ScaleRounder::kSplit;
constexpr std::uint64_t kLowMask = (std::uint64_t{1} << kSplit) - 1;

std::uint64_t check_plain_modulus(std::uint64_t t) {
  if (t < 2 || t > ScaleRounder::kMaxPlainModulus) {
    throw InvalidParameter("ScaleRounder: t = " + std::to_string(t) + " is outside [2, 2^60)");
  }
  return t;
}

RnsBasis checked_union(const RnsBasis& q, const RnsBasis& p) {
  // A basis holds at most RnsBasis::kMaxPrimes primes, within the error bound's limit.
  static_assert(RnsBasis::kMaxPrimes <= ScaleRounder::kMaxQPrimes);
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (p.find(q.prime(i)) != p.size()) {
      throw InvalidParameter("ScaleRounder: the prime " + std::to_string(q.prime(i)) + " (q_" +
                             std::to_string(i) + ") is also in P; Q and P must be disjoint");
    }
  }
  return RnsBasis::concat(q, p);
}

std::uint64_t mpz_mod_u64(const mpz_class& x, std::uint64_t m) {
  return mpz_fdiv_ui(x.get_mpz_t(), m);  // floor remainder: in [0, m) for either sign of x
}

// The double nearest to num/q for 0 ≤ num < q < 2^62 (error ≤ 2^−54; 1.0 when it rounds up).
double nearest_fraction(std::uint64_t num, std::uint64_t q) {
  const u128 scaled = ((u128{num} << 53) + q / 2) / q;  // round(num·2^53/q) ≤ 2^53
  return std::ldexp(static_cast<double>(static_cast<std::uint64_t>(scaled)), -53);
}

}  // namespace

ScaleRounder::ScaleRounder(RnsBasis q, RnsBasis p, std::uint64_t t)
    : q_(std::move(q)),
      p_(std::move(p)),
      qp_(checked_union(q_, p_)),
      t_(check_plain_modulus(t)),
      id_(next_rounder_id()) {
  const std::size_t nq = q_.size();
  const std::size_t np = p_.size();
  const mpz_class& big_p = big_product(p_);
  std::vector<mpz_class> omega(nq);
  std::uint64_t q_max = 0;
  for (std::size_t i = 0; i < nq; ++i) {
    const std::uint64_t qi = q_.prime(i);
    q_max = std::max(q_max, qi);
    // t·θ_i·P = ω_i·q_i + num_i with λ_i = num_i/q_i.
    const mpz_class c =
        big_p * static_cast<unsigned long>(qp_.q_hat_inverse(i).w) * static_cast<unsigned long>(t_);
    const std::uint64_t num = mpz_mod_u64(c, qi);
    mpz_divexact_ui(omega[i].get_mpz_t(), mpz_class(c - num).get_mpz_t(), qi);
    lambda_.push_back(nearest_fraction(num, qi));
    const u128 shifted = u128{num} << kSplit;  // 2^31·λ_i = μ_i + ρ_i
    mu_.push_back(static_cast<std::uint64_t>(shifted / qi));
    rho_.push_back(nearest_fraction(static_cast<std::uint64_t>(shifted % qi), qi));
  }
  // The exact part Σ_i a_i·μ_i + ⌊G + 1/2⌋ that starts each accumulator: a_i, μ_i < 2^31, and
  // G + 1/2 ≤ 2L·2^31 + 1 (with δ to spare).
  const u128 start_max = u128{nq} * (u128{1} << 62) + u128{2 * nq + 1} * (u128{1} << 31);
  for (std::size_t k = 0; k < np; ++k) {
    const std::uint64_t pk = p_.prime(k);
    const auto& mod = p_.modulus(k);
    for (std::size_t i = 0; i < nq; ++i) omega_.push_back(mpz_mod_u64(omega[i], pk));
    // t·θ_{L+k}·P/p_k mod p_k, an integer.
    const std::uint64_t zeta =
        mod.mul(mod.mul(t_ % pk, qp_.q_hat_inverse(nq + k).w), p_.q_hat_mod(k, pk));
    omega_.push_back(zeta);
    reduce_.push_back(make_wide_barrett(pk));
    const u128 max_product = mul_wide(std::max(q_max, pk) - 1, pk - 1);
    const u128 room = ~u128{0} - std::max<u128>(start_max, pk);
    const u128 chunk = max_product == 0 ? u128{nq + 1} : room / max_product;
    chunk_.push_back(static_cast<std::size_t>(std::min<u128>(std::max<u128>(chunk, 1), nq + 1)));
  }
  // The vector weighted sums per p_k over L + 3 terms: x_0..x_{L−1}, y_k, then the integer
  // part Σ_i a_i·μ_i + ⌊G + 1/2⌋ as lo + hi·2^32 (vec::scale_round_parts): lo < L·2^33 + 1
  // (Σ_i (a_i·μ_i mod 2^32) and G + 1/2 ≤ 2L·2^31 + 1), hi < L·2^30.
  std::uint64_t x_bound = std::uint64_t{nq} * (std::uint64_t{1} << 33) + 2;  // nq ≤ 1000
  for (std::size_t i = 0; i < nq; ++i) x_bound = std::max(x_bound, q_.prime(i));
  for (std::size_t k = 0; k < np; ++k) x_bound = std::max(x_bound, p_.prime(k));
  for (std::size_t k = 0; k < np; ++k) {
    const std::uint64_t pk = p_.prime(k);
    const std::uint64_t* row = omega_.data() + k * (nq + 1);
    sums_.emplace_back(pk, nq + 3, x_bound);
    weights_.insert(weights_.end(), row, row + nq + 1);
    weights_.push_back(1 % pk);
    weights_.push_back(static_cast<std::uint64_t>((u128{1} << 32) % pk));
  }
}

double ScaleRounder::exact_error_bound() const {
  const auto l = static_cast<double>(q_.size());
  return (2.0 * l * l + 6.0 * l + 1.0) * std::ldexp(1.0, -22);
}

void ScaleRounder::round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                         unsigned threads) const {
  const std::size_t limbs = qp_.size();
  if (in.empty() || in.size() % limbs != 0) {
    throw InvalidParameter("ScaleRounder: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for " +
                           std::to_string(limbs) + " primes of Q ∪ P");
  }
  const std::size_t n = in.size() / limbs;
  if (out.size() != p_.size() * n) {
    throw InvalidParameter("ScaleRounder: output of " + std::to_string(out.size()) +
                           " words, expected " + std::to_string(p_.size()) +
                           " limbs of N = " + std::to_string(n));
  }
  if (overlaps(in, out)) throw InvalidParameter("ScaleRounder: input and output overlap");

  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  auto body = [&](std::size_t b) {
    const std::size_t k0 = b * kBlock;
    round_block(in.data(), n, k0, std::min(n, k0 + kBlock), out.data());
  };
  if (threads == 1 || in.size() + out.size() < vec::kParallelMinWords) {
    for (std::size_t b = 0; b < blocks; ++b) body(b);
  } else {
    parallel_for(blocks, body, threads);
  }
}

void ScaleRounder::round_block(const std::uint64_t* x, std::size_t n, std::size_t k0,
                               std::size_t k1, std::uint64_t* out) const {
  const std::size_t nq = q_.size();
  const std::size_t np = p_.size();
  const std::size_t len = k1 - k0;
  // round(Σ_i x_i·λ_i) = Σ_i a_i·μ_i + ⌊G + 1/2⌋, G = Σ_i (a_i·ρ_i + b_i·λ_i) in double, summed in
  // this order (the order exact_error_bound assumes).
  if (std::all_of(sums_.begin(), sums_.end(), [](const vec::WeightedSum& w) {
        return w.path() != vec::WeightedSumPath::none;
      })) {
    // On the vector kernels: that integer as lo + hi·2^32 (vec::scale_round_parts), then one
    // weighted sum per target: the same residues as the 128-bit loop below, as every step is
    // exact. The term pointers are per thread: a block allocates nothing once the thread has seen
    // the largest basis.
    thread_local std::vector<const std::uint64_t*> terms;
    terms.resize(nq + 3);
    for (std::size_t i = 0; i < nq; ++i) terms[i] = x + i * n + k0;
    double g[kBlock];
    std::uint64_t lo[kBlock], hi[kBlock];
    vec::scale_round_parts(std::span<const std::uint64_t* const>(terms.data(), nq), mu_, rho_,
                           lambda_, std::span<double>(g, len), std::span<std::uint64_t>(lo, len),
                           std::span<std::uint64_t>(hi, len));
    terms[nq + 1] = lo;
    terms[nq + 2] = hi;
    for (std::size_t j = 0; j < np; ++j) {
      terms[nq] = x + (nq + j) * n + k0;
      sums_[j](terms, std::span<const std::uint64_t>(weights_).subspan(j * (nq + 3), nq + 3),
               std::span<std::uint64_t>(out + j * n + k0, len));
    }
    return;
  }
  u128 start[kBlock] = {};
  double g[kBlock] = {};
  for (std::size_t i = 0; i < nq; ++i) {
    const std::uint64_t* xi = x + i * n + k0;
    const std::uint64_t mu = mu_[i];
    const double rho = rho_[i];
    const double lambda = lambda_[i];
    for (std::size_t k = 0; k < len; ++k) {
      POLYHE_DEBUG_ASSERT(xi[k] < q_.prime(i));
      const std::uint64_t a = xi[k] >> kSplit;
      const std::uint64_t b = xi[k] & kLowMask;
      start[k] += mul_wide(a, mu);
      // Both halves are below 2^31: the signed conversion is exact and cheaper than the unsigned.
      g[k] += static_cast<double>(static_cast<std::int64_t>(a)) * rho;
      g[k] += static_cast<double>(static_cast<std::int64_t>(b)) * lambda;
    }
  }
  for (std::size_t k = 0; k < len; ++k) {
    // G ≥ 0: truncation is ⌊G + 1/2⌋, the rounding exact_error_bound assumes.
    start[k] += static_cast<std::uint64_t>(g[k] + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  }
  // Per target p_j: start + Σ_i x_i·[ω_i]_{p_j} + y_j·[t·θ_j·P/p_j]_{p_j}, reduced once (or
  // once per chunk when the 128-bit sum could overflow).
  u128 acc[kBlock];
  for (std::size_t j = 0; j < np; ++j) {
    const std::uint64_t* row = omega_.data() + j * (nq + 1);
    const WideBarrett& red = reduce_[j];
    const std::size_t chunk = chunk_[j];
    std::copy(start, start + len, acc);
    for (std::size_t i0 = 0; i0 <= nq; i0 += chunk) {
      const std::size_t i1 = std::min(nq + 1, i0 + chunk);
      for (std::size_t i = i0; i < i1; ++i) {
        const std::size_t limb = i < nq ? i : nq + j;  // term L is y_j, P's own limb
        const std::uint64_t* xi = x + limb * n + k0;
        const std::uint64_t w = row[i];
        for (std::size_t k = 0; k < len; ++k) acc[k] += mul_wide(xi[k], w);
      }
      if (i1 <= nq) {
        for (std::size_t k = 0; k < len; ++k) acc[k] = wide_reduce(acc[k], red);
      }
    }
    std::uint64_t* y = out + j * n + k0;
    for (std::size_t k = 0; k < len; ++k) y[k] = wide_reduce(acc[k], red);
  }
}

}  // namespace polyhe
