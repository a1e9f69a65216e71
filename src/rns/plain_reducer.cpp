#include "polyhe/rns/plain_reducer.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/weighted_sum.hpp"

namespace polyhe {

namespace {
using u64 = std::uint64_t;
}  // namespace

PlainReducer::PlainReducer(RnsBasis q, std::uint64_t t) : q_(std::move(q)), t_(t) {
  if (t_ < 2 || t_ >= (u64{1} << 60)) {
    throw InvalidParameter("PlainReducer: t = " + std::to_string(t_) + " is outside [2, 2^60)");
  }
  // Every constant multiplication mod t is a Shoup product (valid for any 64-bit operand, as
  // len(t) ≤ 60): no division in the loop.
  for (std::size_t i = 0; i < q_.size(); ++i) {
    hat_mod_t_.push_back(make_shoup(q_.q_hat_mod(i, t_), t_));
    hat_raw_.push_back(hat_mod_t_.back().w);
    inv_q_.push_back(1.0 / static_cast<double>(q_.prime(i)));
  }
  q_mod_t_ = make_shoup(q_.product_mod(t_), t_);
}

void PlainReducer::reduce(std::span<const std::uint64_t> x, std::uint64_t f,
                          std::span<std::uint64_t> out) const {
  const std::size_t limbs = q_.size();
  const std::size_t n = out.size();
  const u64 t = t_;
  if (x.size() != limbs * n) {
    throw InvalidParameter("PlainReducer: " + std::to_string(x.size()) + " input words for " +
                           std::to_string(limbs) + " limbs of N = " + std::to_string(n));
  }
  if (f >= t || std::gcd(f, t) != 1) {
    throw InvalidParameter("PlainReducer: the factor " + std::to_string(f) +
                           " is not a unit modulo t = " + std::to_string(t));
  }
  const ShoupOperand<u64> f_shoup = make_shoup(f, t);
  // The vector weighted sum (IFMA52 or AVX2 + FMA) where it serves on the active path: every
  // y_i is below its q_i; the same words as the scalar sum.
  u64 q_max = 0;
  for (std::size_t i = 0; i < limbs; ++i) q_max = std::max(q_max, q_.prime(i));
  const vec::WeightedSum sum(t, limbs, q_max);
  const std::span<const u64> weights = std::span<const u64>(hat_raw_).first(limbs);
  constexpr std::size_t kBlock = 256;
  parallel_for((n + kBlock - 1) / kBlock, [&](std::size_t b) {
    const std::size_t k0 = b * kBlock;
    const std::size_t len = std::min(n, k0 + kBlock) - k0;
    std::vector<u64> y(limbs * len);
    std::vector<const u64*> terms(limbs);
    for (std::size_t i = 0; i < limbs; ++i) {
      vec::multiply_scalar(x.subspan(i * n + k0, len), q_.q_hat_inverse(i),
                           std::span<u64>(y.data() + i * len, len), q_.modulus(i));
      terms[i] = y.data() + i * len;
    }
    u64 acc[kBlock];
    double frac[kBlock] = {};
    for (std::size_t i = 0; i < limbs; ++i) {
      // y_i < q_i < 2^62: the signed conversion, one instruction, where the unsigned one branches
      // on the top bit (the words hold the message: constant time, core/constant_time.hpp).
      for (std::size_t k = 0; k < len; ++k) {
        frac[k] += static_cast<double>(static_cast<std::int64_t>(terms[i][k])) * inv_q_[i];
      }
    }
    if (!sum(terms, weights, std::span<u64>(acc, len))) {
      for (std::size_t k = 0; k < len; ++k) {
        u64 total = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
          total = add_mod(total, mul_shoup(terms[i][k], hat_mod_t_[i], t), t);
        }
        acc[k] = total;
      }
    }
    for (std::size_t k = 0; k < len; ++k) {
      // round(Σ y_i/q_i) ∈ [0, limbs]: the sum is ≥ 0, so truncation after + ½ rounds (by the
      // signed conversion: the unsigned one branches on the value).
      const auto v = static_cast<u64>(
          static_cast<std::int64_t>(frac[k] + 0.5));  // NOLINT(bugprone-incorrect-roundings)
      const u64 sub = mul_shoup(v, q_mod_t_, t);
      const u64 r = sub_mod(acc[k], sub, t);  // masked: acc holds the message (constant time)
      out[k0 + k] = mul_shoup(r, f_shoup, t);
    }
  });
}

}  // namespace polyhe
