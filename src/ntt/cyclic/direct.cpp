// The direct O(n²) DFT: the leaf for small primes ([PFA-Rader], "ends with
// small prime or prime power").
#include <string>
#include <vector>

#include "nodes.hpp"

namespace polyhe::cyclic {
namespace {

class DirectPlan final : public CyclicNttPlan {
 public:
  DirectPlan(std::size_t n, u64 q, u64 omega)
      : CyclicNttPlan(n, q, omega, Decomposition::direct, n), powers_(shoup_powers(omega, q, n)) {}

  [[nodiscard]] std::string decomposition() const override {
    return "direct(" + std::to_string(n()) + ")";
  }

  // X[k] = Σ_j x[j]·ω^(jk mod n), the exponent stepped by k and wrapped by one subtraction.
  void forward_with(std::span<u64> a, std::span<u64> scratch) const override {
    const std::size_t len = n();
    const u64 mod = q();
    for (std::size_t k = 0; k < len; ++k) {
      u64 acc = 0;
      std::size_t e = 0;
      for (std::size_t j = 0; j < len; ++j) {
        acc = add_mod(acc, mul_shoup(a[j], powers_[e], mod), mod);
        e += k;
        if (e >= len) e -= len;
      }
      scratch[k] = acc;
    }
    std::copy(scratch.begin(), scratch.begin() + static_cast<std::ptrdiff_t>(len), a.begin());
  }

 private:
  std::vector<ShoupOperand<u64>> powers_;  // ω^e, e < n
};

}  // namespace

PlanPtr make_direct(std::size_t n, u64 q, u64 omega) {
  return std::make_shared<const DirectPlan>(n, q, omega);
}

}  // namespace polyhe::cyclic
