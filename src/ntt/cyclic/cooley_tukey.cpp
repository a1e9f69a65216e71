// The mixed-radix Cooley–Tukey NTT, n = n1·n2 for any factors (the planner uses it for prime
// powers p·p^(k−1), where the prime-factor algorithm does not apply).
//
// With j = n2·j1 + j2 and k = k1 + n1·k2, ω^(jk) = (ω^n2)^(j1·k1) · ω^(j2·k1) · (ω^n1)^(j2·k2):
// n2 transforms of length n1, the twiddles ω^(j2·k1), then n1 transforms of length n2.
#include <string>
#include <vector>

#include "nodes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cyclic {
namespace {

class CooleyTukeyPlan final : public CyclicNttPlan {
 public:
  CooleyTukeyPlan(std::size_t n, u64 q, u64 omega, PlanPtr p1, PlanPtr p2)
      : CyclicNttPlan(n, q, omega, Decomposition::cooley_tukey,
                      2 * n + std::max(p1->scratch_size(), p2->scratch_size())),
        p1_(std::move(p1)),
        p2_(std::move(p2)) {}

  [[nodiscard]] std::string decomposition() const override {
    return "cooley_tukey(" + p1_->decomposition() + ", " + p2_->decomposition() + ")";
  }

  void forward_with(std::span<u64> a, std::span<u64> scratch) const override {
    const std::size_t len = n();
    const std::size_t n1 = p1_->n();
    const std::size_t n2 = p2_->n();
    const u64 mod = q();
    const std::vector<ShoupOperand<u64>>& twiddles = this->twiddles();
    const std::span<u64> by_j2 = scratch.subspan(0, len);    // [j2][j1], then [j2][k1]
    const std::span<u64> by_k1 = scratch.subspan(len, len);  // [k1][j2], then [k1][k2]
    const std::span<u64> rest = scratch.subspan(2 * len);
    for (std::size_t j1 = 0; j1 < n1; ++j1) {
      for (std::size_t j2 = 0; j2 < n2; ++j2) by_j2[j2 * n1 + j1] = a[n2 * j1 + j2];
    }
    for (std::size_t j2 = 0; j2 < n2; ++j2) p1_->forward_with(by_j2.subspan(j2 * n1, n1), rest);
    for (std::size_t j2 = 0; j2 < n2; ++j2) {
      for (std::size_t k1 = 0; k1 < n1; ++k1) {
        const std::size_t r = j2 * n1 + k1;
        by_k1[k1 * n2 + j2] = mul_shoup(by_j2[r], twiddles[r], mod);
      }
    }
    for (std::size_t k1 = 0; k1 < n1; ++k1) p2_->forward_with(by_k1.subspan(k1 * n2, n2), rest);
    for (std::size_t k1 = 0; k1 < n1; ++k1) {
      for (std::size_t k2 = 0; k2 < n2; ++k2) a[k1 + n1 * k2] = by_k1[k1 * n2 + k2];
    }
  }

 private:
  // [j2·n1 + k1] = ω^(j2·k1): built on the first transform (LazyTable: n words per q).
  [[nodiscard]] const std::vector<ShoupOperand<u64>>& twiddles() const {
    return twiddles_.get([this] {
      const std::size_t n1 = p1_->n();
      const std::size_t n2 = p2_->n();
      const u64 mod = q();
      std::vector<ShoupOperand<u64>> out(n());
      const ShoupQuotient<u64> quotient(mod);
      const std::vector<u64> row_roots = powers_of(omega(), mod, n2);  // ω^j2
      for (std::size_t j2 = 0; j2 < n2; ++j2) {
        shoup_powers_into(std::span(out).subspan(j2 * n1, n1), row_roots[j2], quotient, mod);
      }
      return out;
    });
  }

  PlanPtr p1_, p2_;
  LazyTable<std::vector<ShoupOperand<u64>>> twiddles_;
};

}  // namespace

PlanPtr make_cooley_tukey(std::size_t n, u64 q, u64 omega, std::size_t n1) {
  if (n1 <= 1 || n1 >= n || n % n1 != 0) {
    throw InvalidParameter("cooley_tukey needs n = n1·n2 with n1, n2 > 1; n = " +
                           std::to_string(n) + ", n1 = " + std::to_string(n1));
  }
  const std::size_t n2 = n / n1;
  PlanPtr p1 = plan_automatic(n1, q, pow_mod(omega, n2, q));
  PlanPtr p2 = plan_automatic(n2, q, pow_mod(omega, n1, q));
  return std::make_shared<const CooleyTukeyPlan>(n, q, omega, std::move(p1), std::move(p2));
}

}  // namespace polyhe::cyclic
