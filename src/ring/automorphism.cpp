// The automorphisms σ_k: a(x) → a(x^k) of Z_q[x]/(x^N + 1), k odd in [1, 2N), and of Z_q[x]/Φ_m
// for odd m, k a unit mod m (evaluation form: PowerfulNtt's slot permutation; coefficient form
// through the slots).
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

void check_galois_element(std::uint64_t k, const RingContext& ring, const char* where) {
  if (!ring.is_galois_element(k)) {
    throw InvalidParameter(std::string(where) + ": k = " + std::to_string(k) + " must be " +
                           ring.galois_rule());
  }
}

}  // namespace

std::span<const std::uint32_t> RingContext::automorphism_table(std::uint64_t k) const {
  check_galois_element(k, *this, "RingContext::automorphism_table");
  const std::lock_guard<std::mutex> lock(automorphism_mutex_);
  auto& slot = automorphism_tables_[k];
  if (!slot && !power_of_two()) {
    // The slot order depends on m only (not on q): every prime's transform shares it.
    slot = std::make_unique<std::vector<std::uint32_t>>(powerful_[0]->automorphism_table(k));
  }
  if (!slot) {
    // Slot t of σ_k(a) is the slot s with e_s ≡ e_t·k (mod 2N), e = 2·br(·) + 1.
    const std::uint64_t mask = 2 * static_cast<std::uint64_t>(n_) - 1;  // mod 2N
    auto table = std::make_unique<std::vector<std::uint32_t>>(n_);
    for (std::size_t t = 0; t < n_; ++t) {
      const std::uint64_t e = ((2 * bit_reverse(t, log_n_) + 1) * k) & mask;  // odd
      (*table)[t] =
          static_cast<std::uint32_t>(bit_reverse(static_cast<std::size_t>((e - 1) / 2), log_n_));
    }
    slot = std::move(table);
  }
  return *slot;
}

RnsPoly RnsPoly::automorphism(std::uint64_t k) const {
  check_galois_element(k, *context_, "RnsPoly::automorphism");
  if (form_ == PolyForm::kCoefficient && !context_->power_of_two()) {
    // Odd m: the powerful basis has no signed-permutation form of σ_k; through the slots.
    RnsPoly x = *this;
    x.to_evaluation();
    RnsPoly y = x.automorphism(k);
    y.to_coefficient();
    return y;
  }
  if (device_) {
    RnsPoly out(context_, limbs_, form_, kForOverwrite, device_);
    device_->automorphism(*context_, range(), device_words(), out.device_words(), k,
                          form_ == PolyForm::kEvaluation, false);
    return out;
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
    const std::span<const std::uint32_t> source = context_->automorphism_table(k);
    default_thread_pool()->parallel_for(
        limbs_, [&](std::size_t i) { vec::gather(limb(i), source, out.limb(i)); }, threads);
  }
  return out;
}

void RnsPoly::add_automorphism(const RnsPoly& a, std::uint64_t k) {
  check_compatible(a, "add_automorphism");
  check_galois_element(k, *context_, "RnsPoly::add_automorphism");
  if (&a == this) {
    add(a.automorphism(k));  // the permutation cannot run in place
    return;
  }
  if (form_ == PolyForm::kCoefficient && !context_->power_of_two()) {
    add(a.automorphism(k));  // through the slots (automorphism)
    return;
  }
  if (device_) {
    device_->automorphism(*context_, range(), a.device_words(), device_words(), k,
                          form_ == PolyForm::kEvaluation, true);
    return;
  }
  if (form_ == PolyForm::kCoefficient) {
    add(a.automorphism(k));
    return;
  }
  const std::span<const std::uint32_t> source = context_->automorphism_table(k);
  const unsigned threads = data_.size() >= vec::kParallelMinWords ? 0 : 1;
  default_thread_pool()->parallel_for(
      limbs_,
      [&](std::size_t i) {
        vec::gather_add(a.limb(i), source, limb(i), context_->basis().modulus(i));
      },
      threads);
}

}  // namespace polyhe
