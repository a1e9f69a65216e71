// The cyclic radix-2 NTT: bit-reversal permutation, then decimation-in-time butterflies; or,
// when q ≡ 1 mod 2n, through the negacyclic NttPlan and its SIMD kernels: with ψ² = ω a
// primitive 2n-th root, NttPlan::forward(a)[i] = Σ_j a_j·ψ^(j(2·br(i)+1)) = Σ_j
// (a_j·ψ^j)·ω^(j·br(i)), so X = F_ω(x) is forward(x ⊙ ψ^−j) read in bit-reversed order, and the
// inverse is NttPlan::inverse of X read bit-reversed, times ψ^j.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nodes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "polyhe/ntt/plan.hpp"

namespace polyhe::cyclic {
namespace {

class Radix2Plan final : public CyclicNttPlan {
 public:
  Radix2Plan(std::size_t n, u64 q, u64 omega)
      : CyclicNttPlan(n, q, omega, Decomposition::radix2, 0),
        rev_(n),
        twiddles_(n > 1 ? n - 1 : 0) {
    int log_n = 0;
    while ((std::size_t{1} << log_n) < n) ++log_n;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t r = 0;
      for (int b = 0; b < log_n; ++b) r |= ((i >> b) & 1) << (log_n - 1 - b);
      rev_[i] = static_cast<std::uint32_t>(r);
    }
    // Stage with half-length h uses the powers of ω_{2h} = ω^(n/2h), stored at [h−1, 2h−1).
    for (std::size_t h = 1; h < n; h <<= 1) {
      const u64 w = pow_mod(omega, n / (2 * h), q);
      const auto powers = shoup_powers(w, q, h);
      std::copy(powers.begin(), powers.end(),
                twiddles_.begin() + static_cast<std::ptrdiff_t>(h - 1));
    }
    constexpr std::size_t kMaxNegacyclic = std::size_t{1} << 17;  // NttPlan's limit
    // Below this the two extra passes and the dispatch cost more than the scalar butterflies
    // save (measured: see docs/perf.md section 6).
    constexpr std::size_t kMinNegacyclic = 64;
    if (n >= kMinNegacyclic && n <= kMaxNegacyclic && (q - 1) % (2 * n) == 0) {
      // ψ: the odd power of a primitive 2n-th root whose square is ω (one exists: ω is a
      // primitive n-th root, n a power of two).
      const u64 root = primitive_nth_root(q, 2 * n);
      const u64 root2 = mul_mod_slow(root, root, q);
      u64 psi = root;
      while (mul_mod_slow(psi, psi, q) != omega) psi = mul_mod_slow(psi, root2, q);
      negacyclic_ = NttPlan<u64>::create(n, q, psi);
      mod_ = std::make_unique<const Modulus<u64>>(q);
      psi_powers_.resize(n);
      psi_inv_powers_.resize(n);
      const u64 psi_inv = inverse_mod(psi, q);
      u64 w = 1;
      u64 w_inv = 1;
      for (std::size_t j = 0; j < n; ++j) {
        psi_powers_[j] = w;
        psi_inv_powers_[j] = w_inv;
        w = mul_mod_slow(w, psi, q);
        w_inv = mul_mod_slow(w_inv, psi_inv, q);
      }
    }
  }

  [[nodiscard]] std::string decomposition() const override {
    return "radix2(" + std::to_string(n()) + ")";
  }

  // After the bit-reversal, each stage merges pairs of length-h transforms: for block s and
  // i < h, (u, v) ← (u + ω_{2h}^i·v, u − ω_{2h}^i·v). In [0, q) → out [0, q).
  void forward_with(std::span<u64> a, std::span<u64> /*scratch*/) const override {
    if (negacyclic_) {
      vec::multiply(a, psi_inv_powers_, a, *mod_);
      negacyclic_->forward(a);
      bit_reverse(a);
      return;
    }
    const std::size_t len = n();
    const u64 mod = q();
    bit_reverse(a);
    for (std::size_t h = 1; h < len; h <<= 1) {
      const ShoupOperand<u64>* tw = &twiddles_[h - 1];
      for (std::size_t s = 0; s < len; s += 2 * h) {
        u64* x = &a[s];
        u64* y = &a[s + h];
        for (std::size_t i = 0; i < h; ++i) {
          const u64 u = x[i];
          const u64 v = mul_shoup(y[i], tw[i], mod);
          x[i] = add_mod(u, v, mod);
          y[i] = sub_mod(u, v, mod);
        }
      }
    }
  }

  void inverse_with(std::span<u64> a, std::span<u64> scratch) const override {
    if (!negacyclic_) {
      CyclicNttPlan::inverse_with(a, scratch);
      return;
    }
    bit_reverse(a);
    negacyclic_->inverse(a);
    vec::multiply(a, psi_powers_, a, *mod_);
  }

 private:
  void bit_reverse(std::span<u64> a) const {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t j = rev_[i];
      if (i < j) std::swap(a[i], a[j]);
    }
  }

  std::vector<std::uint32_t> rev_;
  std::vector<ShoupOperand<u64>> twiddles_;
  // The negacyclic route, when q ≡ 1 mod 2n.
  std::shared_ptr<const NttPlan<u64>> negacyclic_;
  std::unique_ptr<const Modulus<u64>> mod_;
  std::vector<u64> psi_powers_;      // ψ^j
  std::vector<u64> psi_inv_powers_;  // ψ^−j
};

}  // namespace

PlanPtr make_radix2(std::size_t n, u64 q, u64 omega) {
  if (!is_power_of_two(n)) {
    throw InvalidParameter("radix2 needs a power-of-two length; n = " + std::to_string(n) +
                           " is not");
  }
  return std::make_shared<const Radix2Plan>(n, q, omega);
}

}  // namespace polyhe::cyclic
