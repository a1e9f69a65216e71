#include "polyhe/rns/base_converter.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/core/aligned.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/cpu/elementwise.hpp"

namespace polyhe {

namespace {

// Coefficients per task: the block's |B| inputs and its 128-bit accumulators stay in L1/L2.
constexpr std::size_t kBlock = 256;

std::uint64_t next_converter_id() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

BaseConverter::BaseConverter(RnsBasis from, RnsBasis to)
    : from_(std::move(from)), to_(std::move(to)), id_(next_converter_id()) {
  const std::size_t nb = from_.size();
  const std::size_t nc = to_.size();
  std::uint64_t q_max = 0;
  for (std::size_t i = 0; i < nb; ++i) {
    q_max = std::max(q_max, from_.prime(i));
    inv_q_.push_back(1.0 / static_cast<double>(from_.prime(i)));
  }
  identity_.resize(nc);
  std::iota(identity_.begin(), identity_.end(), std::size_t{0});
  for (std::size_t j = 0; j < nc; ++j) {
    const std::uint64_t c = to_.prime(j);
    for (std::size_t i = 0; i < nb; ++i) hat_mod_c_.push_back(from_.q_hat_mod(i, c));
    const std::uint64_t q_mod_c = from_.product_mod(c);
    q_mod_c_shoup_.push_back(make_shoup(q_mod_c, c));
    exact_w_.insert(exact_w_.end(), hat_mod_c_.end() - static_cast<std::ptrdiff_t>(nb),
                    hat_mod_c_.end());
    exact_w_.push_back(q_mod_c == 0 ? 0 : c - q_mod_c);
    std::uint64_t acc = 0;
    for (std::size_t v = 0; v <= nb; ++v) {
      q_mod_c_.push_back(acc);
      acc = add_mod(acc, q_mod_c, c);
    }
    reduce_.push_back(make_wide_barrett(c));
    // After a reduction the accumulator is below c; each product is at most (q_max − 1)(c − 1).
    const u128 max_product = mul_wide(q_max - 1, c - 1);
    const u128 room = ~u128{0} - c;
    const u128 chunk = max_product == 0 ? u128{nb} : room / max_product;
    chunk_.push_back(static_cast<std::size_t>(std::min<u128>(std::max<u128>(chunk, 1), nb)));
    // Every input word is below its q_i ≤ q_max; v is at most |B|.
    sums_.emplace_back(c, nb + 1, std::max<std::uint64_t>(q_max, nb + 1));
  }
}

double BaseConverter::exact_error_bound() const {
  const auto nb = static_cast<double>(from_.size());
  return nb * (nb + 3.0) * std::ldexp(1.0, -53);
}

void BaseConverter::convert_approx(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                   unsigned threads) const {
  convert(in, out, identity_, false, threads);
}

void BaseConverter::convert_exact(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                  unsigned threads) const {
  convert(in, out, identity_, true, threads);
}

void BaseConverter::convert_approx(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                   std::span<const std::size_t> out_limbs, unsigned threads) const {
  convert(in, out, out_limbs, false, threads);
}

void BaseConverter::convert_exact(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                  std::span<const std::size_t> out_limbs, unsigned threads) const {
  convert(in, out, out_limbs, true, threads);
}

void BaseConverter::convert(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                            std::span<const std::size_t> out_limbs, bool exact,
                            unsigned threads) const {
  const std::size_t nb = from_.size();
  const std::size_t nc = to_.size();
  if (in.empty() || in.size() % nb != 0) {
    throw InvalidParameter("BaseConverter: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for " +
                           std::to_string(nb) + " primes");
  }
  const std::size_t n = in.size() / nb;
  if (out_limbs.size() != nc) {
    throw InvalidParameter("BaseConverter: " + std::to_string(out_limbs.size()) +
                           " output positions given for " + std::to_string(nc) + " target primes");
  }
  if (out.size() % n != 0 || out.size() / n < nc) {
    throw InvalidParameter("BaseConverter: output of " + std::to_string(out.size()) +
                           " words cannot hold " + std::to_string(nc) +
                           " limbs of N = " + std::to_string(n));
  }
  const std::size_t out_count = out.size() / n;
  std::vector<bool> used(out_count, false);
  for (std::size_t j = 0; j < nc; ++j) {
    if (out_limbs[j] >= out_count || used[out_limbs[j]]) {
      throw InvalidParameter("BaseConverter: output limb position " + std::to_string(out_limbs[j]) +
                             " (target " + std::to_string(j) + ") is out of range [0, " +
                             std::to_string(out_count) + ") or repeated");
    }
    used[out_limbs[j]] = true;
  }
  if (overlaps(in, out)) throw InvalidParameter("BaseConverter: input and output overlap");

  // Step 1, vectorised over whole limbs: t_i = [x_i·q̂_i^−1]_{q_i}, into a per-thread scratch
  // (no allocation, zeroing or page faults per call; the workers of step 2 only read it).
  thread_local AlignedVector<std::uint64_t> scratch;
  if (scratch.size() < in.size()) scratch.resize(in.size());
  const std::span<std::uint64_t> t(scratch.data(), in.size());
  vec::multiply_scalar(in, from_.q_hat_inverses(), t, from_.moduli(), threads);

  // Step 2, blocked over coefficients: the lazy sums and their one reduction per target.
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  auto body = [&](std::size_t b) {
    const std::size_t k0 = b * kBlock;
    convert_block(t.data(), n, k0, std::min(n, k0 + kBlock), out.data(), out_limbs, exact);
  };
  if (threads == 1 || in.size() + nc * n < vec::kParallelMinWords) {
    for (std::size_t b = 0; b < blocks; ++b) body(b);
  } else {
    parallel_for(blocks, body, threads);
  }
  // In a SecretScope (public-key encryption's ModDown with several special primes) t is derived
  // from the secret v and the errors: wiped before it is freed (core/wipe.hpp).
  if (detail::in_secret_scope()) secure_zero(t);
}

void BaseConverter::convert_block(const std::uint64_t* t, std::size_t n, std::size_t k0,
                                  std::size_t k1, std::uint64_t* out,
                                  std::span<const std::size_t> out_limbs, bool exact) const {
  const std::size_t nb = from_.size();
  const std::size_t nc = to_.size();
  const std::size_t len = k1 - k0;
  u128 acc[kBlock];
  std::uint64_t v[kBlock];
  // The term pointers: the limbs of the block, and for the exact conversion one more, v, whose
  // weight on the vector sums is −Q mod c_j (they reduce to [0, c_j): the scalar loop's words).
  // Per thread, so that a block allocates nothing once the thread has seen the largest basis.
  thread_local std::vector<const std::uint64_t*> limbs;
  limbs.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) limbs[i] = t + i * n + k0;
  if (exact) {
    // v = round(Σ_i t_i/q_i) (HPS) on the path's vector kernel; the sum is in [0, |B|), so
    // v ≤ |B| indexes q_mod_c_.
    double s[kBlock];
    vec::fraction_round(limbs, inv_q_, nb, std::span<double>(s, len),
                        std::span<std::uint64_t>(v, len));
    limbs.push_back(v);
  }
  const bool vector_sums = std::any_of(sums_.begin(), sums_.end(), [](const vec::WeightedSum& s) {
    return s.path() != vec::WeightedSumPath::none;
  });
  for (std::size_t j = 0; j < nc; ++j) {
    const std::uint64_t c = to_.prime(j);
    const std::uint64_t* hat = hat_mod_c_.data() + j * nb;
    std::uint64_t* y = out + out_limbs[j] * n + k0;
    const std::span<const std::uint64_t> weights =
        exact ? std::span<const std::uint64_t>(exact_w_).subspan(j * (nb + 1), nb + 1)
              : std::span<const std::uint64_t>(hat, nb);
    if (vector_sums && sums_[j](limbs, weights, std::span<std::uint64_t>(y, len))) continue;
    const WideBarrett& red = reduce_[j];
    const std::size_t chunk = chunk_[j];
    std::fill(acc, acc + len, u128{0});
    for (std::size_t i0 = 0; i0 < nb; i0 += chunk) {
      const std::size_t i1 = std::min(nb, i0 + chunk);
      for (std::size_t i = i0; i < i1; ++i) {
        const std::uint64_t* ti = t + i * n + k0;
        const std::uint64_t m = hat[i];
        for (std::size_t k = 0; k < len; ++k) acc[k] += mul_wide(ti[k], m);
      }
      if (i1 < nb) {
        for (std::size_t k = 0; k < len; ++k) acc[k] = wide_reduce(acc[k], red);
      }
    }
    if (exact) {
      // v·Q mod c_j as a Shoup product, not q_mod_c_[v]: v is derived from the words, which may be
      // secret (public-key encryption's ModDown), and no table index may depend on a secret.
      const ShoupOperand<std::uint64_t> qc = q_mod_c_shoup_[j];
      for (std::size_t k = 0; k < len; ++k) {
        y[k] = sub_mod(wide_reduce(acc[k], red), mul_shoup(v[k], qc, c), c);
      }
    } else {
      for (std::size_t k = 0; k < len; ++k) y[k] = wide_reduce(acc[k], red);
    }
  }
}

}  // namespace polyhe
