#include "polyhe/rns/rescale.hpp"

#include <functional>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"

namespace polyhe {

namespace {

RnsBasis checked_prefix(const RnsBasis& basis) {
  if (basis.size() < 2) {
    throw InvalidParameter("Rescaler: a basis of " + std::to_string(basis.size()) +
                           " prime cannot drop its last one; it needs at least 2");
  }
  return basis.prefix(basis.size() - 1);
}

}  // namespace

Rescaler::Rescaler(RnsBasis basis) : from_(std::move(basis)), to_(checked_prefix(from_)) {
  const std::uint64_t q_last = from_.prime(from_.size() - 1);
  for (std::size_t i = 0; i < to_.size(); ++i) {
    const std::uint64_t qi = to_.prime(i);
    const std::uint64_t inv = inverse_mod(q_last % qi, qi);
    q_last_inv_.push_back(make_shoup(inv, qi));
    one_.push_back(make_shoup<std::uint64_t>(1, qi));
    half_inv_.push_back(to_.modulus(i).mul((q_last / 2) % qi, inv));
  }
}

void Rescaler::floor(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                     unsigned threads) const {
  run(in, out, false, threads);
}

void Rescaler::round(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                     unsigned threads) const {
  run(in, out, true, threads);
}

void Rescaler::run(std::span<const std::uint64_t> in, std::span<std::uint64_t> out, bool rounded,
                   unsigned threads) const {
  const std::size_t limbs = from_.size();
  if (in.empty() || in.size() % limbs != 0) {
    throw InvalidParameter("Rescaler: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for " +
                           std::to_string(limbs) + " primes");
  }
  const std::size_t n = in.size() / limbs;
  if (out.size() != (limbs - 1) * n) {
    throw InvalidParameter("Rescaler: output of " + std::to_string(out.size()) +
                           " words, expected " + std::to_string(limbs - 1) +
                           " limbs of N = " + std::to_string(n));
  }
  const bool in_place = out.data() == in.data();
  if (!in_place && overlaps(out, in)) {
    throw InvalidParameter("Rescaler: output overlaps the input without being in place");
  }
  const std::uint64_t q_last = from_.prime(limbs - 1);
  const std::uint64_t half = rounded ? q_last / 2 : 0;
  const std::uint64_t* x_last = in.data() + (limbs - 1) * n;
  auto body = [&](std::size_t i) {
    const std::uint64_t qi = to_.prime(i);
    const ShoupOperand<std::uint64_t> inv = q_last_inv_[i];
    const ShoupOperand<std::uint64_t> one = one_[i];
    const std::uint64_t add_after = rounded ? half_inv_[i] : 0;
    const std::uint64_t* x = in.data() + i * n;
    std::uint64_t* y = out.data() + i * n;
    for (std::size_t c = 0; c < n; ++c) {
      const std::uint64_t last = add_mod(x_last[c], half, q_last);  // [x_L + ⌊q_L/2⌋]_{q_L}
      const std::uint64_t r = mul_shoup(last, one, qi);             // reduced mod q_i
      // x_i + q_i − r < 2q_i < 2^63: Shoup serves any word-sized operand.
      y[c] = add_mod(mul_shoup(x[c] + qi - r, inv, qi), add_after, qi);
    }
  };
  if (threads == 1 || in.size() < vec::kParallelMinWords) {
    for (std::size_t i = 0; i + 1 < limbs; ++i) body(i);
  } else {
    parallel_for(limbs - 1, body, threads);
  }
}

}  // namespace polyhe
