// Bluestein's (chirp-z) NTT for any length n through a power-of-two convolution.
//
// jk = T(j + k) − T(j) − T(k) with T(m) = m(m − 1)/2, so with a[j] = x[j]·ω^−T(j) and
// h[m] = ω^T(m), 0 ≤ m ≤ 2n − 2,
//   X[k] = ω^−T(k) · Σ_j a[j]·h[j + k] = ω^−T(k) · (a' * h)[n − 1 + k],   a'[i] = a[n − 1 − i].
// The linear convolution runs cyclically over M ≥ 2n − 1 (a power of two): the wrapped terms
// land below index n − 1. Unlike the square-root form jk = (j² + k² − (k − j)²)/2 this needs no
// 2n-th root, only the M-th root of the convolution.
#include <string>
#include <vector>

#include "nodes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cyclic {
namespace {

class BluesteinPlan final : public CyclicNttPlan {
 public:
  BluesteinPlan(std::size_t n, u64 q, u64 omega, PlanPtr conv)
      : CyclicNttPlan(n, q, omega, Decomposition::bluestein, conv->n() + conv->scratch_size()),
        conv_(std::move(conv)) {}

  [[nodiscard]] std::string decomposition() const override {
    return "bluestein(" + std::to_string(n()) + " -> " + conv_->decomposition() + ")";
  }

  void forward_with(std::span<u64> a, std::span<u64> scratch) const override {
    const std::size_t len = n();
    const std::size_t m_len = conv_->n();
    const u64 mod = q();
    const Tables& t = tables();
    const std::span<u64> c = scratch.subspan(0, m_len);
    const std::span<u64> rest = scratch.subspan(m_len);
    for (std::size_t i = 0; i < len; ++i) {
      c[i] = mul_shoup(a[len - 1 - i], t.chirp[len - 1 - i], mod);
    }
    std::fill(c.begin() + static_cast<std::ptrdiff_t>(len), c.end(), 0);
    conv_->forward_with(c, rest);
    mul_pointwise(c, t.kernel, mod);
    conv_->forward_with(c, rest);
    // (a' * h)[i] = F(C)[(M − i) mod M]; M is a power of two.
    for (std::size_t k = 0; k < len; ++k) {
      a[k] = mul_shoup(c[(m_len - (len - 1 + k)) & (m_len - 1)], t.chirp[k], mod);
    }
  }

 private:
  struct Tables {
    std::vector<ShoupOperand<u64>> chirp;   // ω^−T(j), j < n
    std::vector<ShoupOperand<u64>> kernel;  // F(h)/M
  };

  // Built on the first transform (LazyTable): the kernel costs one transform of length M.
  [[nodiscard]] const Tables& tables() const {
    return tables_.get([this] {
      const std::size_t len = n();
      const u64 mod = q();
      const std::vector<u64> w = powers_of(omega(), mod, len);  // ω^e, e < n
      const ShoupQuotient<u64> quotient(mod);
      Tables t;
      t.chirp.resize(len);
      std::vector<u64> h(conv_->n(), 0);
      std::size_t e = 0;  // T(m) mod n
      for (std::size_t m = 0; m + 1 < 2 * len; ++m) {
        h[m] = w[e];
        if (m < len) t.chirp[m] = quotient.operand(w[(len - e) % len]);  // ω^−T(m)
        e = (e + m) % len;
      }
      t.kernel = convolution_kernel(*conv_, std::move(h));
      return t;
    });
  }

  PlanPtr conv_;
  LazyTable<Tables> tables_;
};

}  // namespace

PlanPtr make_bluestein(std::size_t n, u64 q, u64 omega) {
  const std::size_t m_len = next_power_of_two(2 * n - 1);
  PlanPtr conv = plan_convolution(m_len, q, "bluestein");
  return std::make_shared<const BluesteinPlan>(n, q, omega, std::move(conv));
}

}  // namespace polyhe::cyclic
