// The automorphisms σ_k: a(x) → a(x^k) of Z_q[x]/(x^N + 1), k odd in [1, 2N).
//
// Coefficient form: x^i → x^(i·k mod 2N), and x^N = −1, so coefficient i moves to
// j = i·k mod 2N when j < N and to j − N with its sign flipped otherwise.
//
// Evaluation form (bit-reversed, â[s] = a(ψ^(e_s)), e_s = 2·br(s) + 1): σ_k(a) evaluated at
// ψ^(e_t) is a(ψ^(e_t·k)), so slot t of the image takes the slot s with e_s ≡ e_t·k (mod 2N),
// i.e. s = br((e_t·k mod 2N − 1) / 2). Equivalently the value at ψ^(e_s) moves to the slot at
// ψ^(e_s·k^−1). A pure permutation: no arithmetic, and the same for every limb (it depends on
// exponents of ψ only, not on q).
#include <string>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ring/poly.hpp"

namespace polyhe {

namespace {

std::size_t bit_reverse(std::size_t x, int bits) {
  std::size_t r = 0;
  for (int b = 0; b < bits; ++b) r |= ((x >> b) & 1U) << (bits - 1 - b);
  return r;
}

// Slot t of σ_k(a) in evaluation form is slot source[t] of a.
std::vector<std::size_t> evaluation_sources(std::size_t n, int log_n, std::uint64_t k) {
  const std::uint64_t mask = 2 * static_cast<std::uint64_t>(n) - 1;  // mod 2N
  std::vector<std::size_t> source(n);
  for (std::size_t t = 0; t < n; ++t) {
    const std::uint64_t e = ((2 * bit_reverse(t, log_n) + 1) * k) & mask;  // odd
    source[t] = bit_reverse(static_cast<std::size_t>((e - 1) / 2), log_n);
  }
  return source;
}

// Coefficient form on one limb (out disjoint from in).
void permute_coefficients(std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                          std::uint64_t k, std::uint64_t q) {
  const std::size_t n = in.size();
  const std::uint64_t mask = 2 * static_cast<std::uint64_t>(n) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t j = (i * k) & mask;
    if (j < n) {
      out[j] = in[i];
    } else {
      out[j - n] = in[i] == 0 ? 0 : q - in[i];
    }
  }
}

}  // namespace

RnsPoly RnsPoly::automorphism(std::uint64_t k) const {
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n());
  if (k % 2 == 0 || k >= two_n) {
    throw InvalidParameter("RnsPoly::automorphism: k = " + std::to_string(k) +
                           " must be odd and in [1, 2N) = [1, " + std::to_string(two_n) +
                           ") (x -> x^k is a ring automorphism of x^N + 1 only for odd k)");
  }
  RnsPoly out(context_, limbs_, form_);
  // Limbs are independent: spread them over the default pool when the work is worth it (the
  // threshold of the element-wise kernels).
  const unsigned threads = data_.size() >= vec::kParallelMinWords ? 0 : 1;
  if (form_ == PolyForm::kCoefficient) {
    default_thread_pool()->parallel_for(
        limbs_,
        [&](std::size_t i) {
          permute_coefficients(limb(i), out.limb(i), k, context_->basis().prime(i));
        },
        threads);
  } else {
    const std::vector<std::size_t> source = evaluation_sources(n(), context_->log_n(), k);
    default_thread_pool()->parallel_for(
        limbs_,
        [&](std::size_t i) {
          const std::span<const std::uint64_t> in = limb(i);
          const std::span<std::uint64_t> dst = out.limb(i);
          for (std::size_t t = 0; t < source.size(); ++t) dst[t] = in[source[t]];
        },
        threads);
  }
  return out;
}

}  // namespace polyhe
