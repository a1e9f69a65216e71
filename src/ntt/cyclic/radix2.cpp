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
#include "shared_tables.hpp"

namespace polyhe::cyclic {
namespace {

class Radix2Plan final : public CyclicNttPlan {
 public:
  Radix2Plan(std::size_t n, u64 q, u64 omega)
      : CyclicNttPlan(n, q, omega, Decomposition::radix2, 0),
        rev_(shared_table<std::uint32_t>(SharedTableKind::bit_reversal, n, 0,
                                         [n] { return bit_reversal(n); })),
        negacyclic_route_(n >= kMinNegacyclic && n <= kMaxNegacyclic && (q - 1) % (2 * n) == 0) {}

  [[nodiscard]] std::string decomposition() const override {
    return "radix2(" + std::to_string(n()) + ")";
  }

  // After the bit-reversal, each stage merges pairs of length-h transforms: for block s and
  // i < h, (u, v) ← (u + ω_{2h}^i·v, u − ω_{2h}^i·v). In [0, q) → out [0, q).
  void forward_with(std::span<u64> a, std::span<u64> /*scratch*/) const override {
    const Tables& t = tables();
    if (negacyclic_route_) {
      vec::multiply(a, t.psi_inv_powers, a, *t.mod);
      t.negacyclic->forward(a);
      bit_reverse(a);
      return;
    }
    const std::size_t len = n();
    const u64 mod = q();
    bit_reverse(a);
    for (std::size_t h = 1; h < len; h <<= 1) {
      const ShoupOperand<u64>* tw = &t.twiddles[h - 1];
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
    if (!negacyclic_route_) {
      CyclicNttPlan::inverse_with(a, scratch);
      return;
    }
    const Tables& t = tables();
    bit_reverse(a);
    t.negacyclic->inverse(a);
    vec::multiply(a, t.psi_powers, a, *t.mod);
  }

 private:
  static constexpr std::size_t kMaxNegacyclic = std::size_t{1} << 17;  // NttPlan's limit
  // Below this the two extra passes and the dispatch cost more than the scalar butterflies
  // save (measured: m = 8191's tree, which calls radix2(2) 8190 times, ran 4× slower without it).
  static constexpr std::size_t kMinNegacyclic = 64;

  struct Tables {
    std::vector<ShoupOperand<u64>> twiddles;  // the butterflies' route
    // The negacyclic route, when q ≡ 1 mod 2n.
    std::shared_ptr<const NttPlan<u64>> negacyclic;
    std::unique_ptr<const Modulus<u64>> mod;
    std::vector<u64> psi_powers;      // ψ^j
    std::vector<u64> psi_inv_powers;  // ψ^−j
  };

  // The tables of the route taken, built on the first transform (LazyTable: O(n) words per q,
  // which planning — parameter creation and loading — does not pay).
  [[nodiscard]] const Tables& tables() const {
    return tables_.get([this] {
      const std::size_t len = n();
      const u64 mod = q();
      Tables t;
      if (!negacyclic_route_) {
        // Stage with half-length h uses the powers of ω_{2h} = ω^(n/2h), stored at [h−1, 2h−1).
        t.twiddles.resize(len > 1 ? len - 1 : 0);
        const ShoupQuotient<u64> quotient(mod);
        for (std::size_t h = 1; h < len; h <<= 1) {
          shoup_powers_into(std::span(t.twiddles).subspan(h - 1, h),
                            pow_mod(omega(), len / (2 * h), mod), quotient, mod);
        }
        return t;
      }
      // ψ: the odd power of a primitive 2n-th root whose square is ω (one exists: ω is a
      // primitive n-th root, n a power of two).
      const u64 root = primitive_nth_root(mod, 2 * len);
      const ShoupOperand<u64> root2 = make_shoup<u64>(mul_mod_slow(root, root, mod), mod);
      const ShoupOperand<u64> root4 = make_shoup<u64>(mul_mod_slow(root2.w, root2.w, mod), mod);
      u64 psi = root;
      for (u64 square = root2.w; square != omega(); square = mul_shoup(square, root4, mod)) {
        psi = mul_shoup(psi, root2, mod);  // ψ = root^(2k+1), ψ² = root^(4k+2)
      }
      t.negacyclic = NttPlan<u64>::create(len, mod, psi);
      t.mod = std::make_unique<const Modulus<u64>>(mod);
      t.psi_powers = powers_of(psi, mod, len);
      t.psi_inv_powers = powers_of(inverse_mod(psi, mod), mod, len);
      return t;
    });
  }

  void bit_reverse(std::span<u64> a) const {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t j = rev_[i];
      if (i < j) std::swap(a[i], a[j]);
    }
  }

  SharedTable<std::uint32_t> rev_;  // shared by every q
  bool negacyclic_route_;
  LazyTable<Tables> tables_;
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
