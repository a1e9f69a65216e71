// The cyclic radix-2 NTT: bit-reversal permutation, then decimation-in-time butterflies.
#include <string>
#include <utility>
#include <vector>

#include "nodes.hpp"
#include "polyhe/core/error.hpp"

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
  }

  [[nodiscard]] std::string decomposition() const override {
    return "radix2(" + std::to_string(n()) + ")";
  }

  // After the bit-reversal, each stage merges pairs of length-h transforms: for block s and
  // i < h, (u, v) ← (u + ω_{2h}^i·v, u − ω_{2h}^i·v). In [0, q) → out [0, q).
  void forward_with(std::span<u64> a, std::span<u64> /*scratch*/) const override {
    const std::size_t len = n();
    const u64 mod = q();
    for (std::size_t i = 0; i < len; ++i) {
      const std::size_t j = rev_[i];
      if (i < j) std::swap(a[i], a[j]);
    }
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

 private:
  std::vector<std::uint32_t> rev_;
  std::vector<ShoupOperand<u64>> twiddles_;
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
