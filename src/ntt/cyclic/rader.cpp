// Rader's NTT for a prime length p: an (p−1)-point cyclic convolution
// ([PFA-Rader, Alg. 1] "Optimized Rader's Algorithm"; [Rader68]).
//
// With g a generator of (Z/p)^*, a[i] = x[g^i] and b[l] = ω^(g^−l) for i, l < p − 1,
//   X[0] = Σ_j x[j],   X[g^−m] = x[0] + (a ⊛ b)[m].
// The convolution runs as F(F(a) ⊙ B) read backwards, B = F(b)/L (convolution_kernel), and the
// paper's two additions fold x[0] in for free: A[0] = F(a)[0] = Σ_(j≥1) x[j] gives X[0] = A[0] +
// x[0], and adding x[0] to C[0] = A[0]·B[0] before the second transform adds x[0] to every
// output. The convolution has length L = p − 1 (planned recursively: PFA, Rader, ...), or,
// padded, a power of two ≥ 2L − 1 with b wrapped around its end so that the longer cyclic
// convolution agrees with the L-point one on its first L outputs.
#include <string>
#include <vector>

#include "nodes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "shared_tables.hpp"

namespace polyhe::cyclic {
namespace {

/// g^i mod p (or g^−i when `inverse`) for i < p − 1, g the smallest generator of (Z/p)^*.
std::vector<std::uint32_t> generator_powers(std::size_t p, bool inverse) {
  const u64 g = multiplicative_generator(p);
  const u64 step = inverse ? inverse_mod(g, p) : g;
  std::vector<std::uint32_t> out(p - 1);
  u64 x = 1;
  for (auto& o : out) {
    o = static_cast<std::uint32_t>(x);
    x = x * step % p;
  }
  return out;
}

class RaderPlan final : public CyclicNttPlan {
 public:
  RaderPlan(std::size_t p, u64 q, u64 omega, bool padded, PlanPtr conv)
      : CyclicNttPlan(p, q, omega, padded ? Decomposition::rader_padded : Decomposition::rader,
                      conv->n() + conv->scratch_size()),
        conv_(std::move(conv)),
        gather_(shared_table<std::uint32_t>(SharedTableKind::rader_gather, p, 0,
                                            [p] { return generator_powers(p, false); })),
        scatter_(shared_table<std::uint32_t>(SharedTableKind::rader_scatter, p, 0,
                                             [p] { return generator_powers(p, true); })) {}

  [[nodiscard]] std::string decomposition() const override {
    return std::string(kind() == Decomposition::rader ? "rader(" : "rader_padded(") +
           std::to_string(n()) + " -> " + conv_->decomposition() + ")";
  }

  void forward_with(std::span<u64> a, std::span<u64> scratch) const override {
    const std::size_t L = n() - 1;
    const std::size_t lc = conv_->n();
    const u64 mod = q();
    const std::span<u64> c = scratch.subspan(0, lc);
    const std::span<u64> rest = scratch.subspan(lc);
    const u64 x0 = a[0];
    for (std::size_t i = 0; i < L; ++i) c[i] = a[gather_[i]];
    std::fill(c.begin() + static_cast<std::ptrdiff_t>(L), c.end(), 0);
    conv_->forward_with(c, rest);
    a[0] = add_mod(c[0], x0, mod);
    mul_pointwise(c, kernel(), mod);
    c[0] = add_mod(c[0], x0, mod);
    conv_->forward_with(c, rest);
    a[scatter_[0]] = c[0];
    for (std::size_t m = 1; m < L; ++m) a[scatter_[m]] = c[lc - m];
  }

 private:
  // B = F(b)/L, b[l] = ω^(g^−l) (wrapped around the end when padded): built on the first
  // transform (LazyTable), as it costs one transform of the convolution's length.
  [[nodiscard]] const std::vector<ShoupOperand<u64>>& kernel() const {
    return kernel_.get([this] {
      const std::size_t L = n() - 1;
      const std::size_t lc = conv_->n();
      const std::vector<u64> w = powers_of(omega(), q(), n());  // ω^k, k < p
      std::vector<u64> h(lc, 0);
      for (std::size_t l = 0; l < L; ++l) h[l] = w[scatter_[l]];  // b[l]
      if (lc != L) {
        for (std::size_t l = 1; l < L; ++l) h[lc - L + l] = h[l];  // h[lc − t] = b[L − t]
      }
      return convolution_kernel(*conv_, std::move(h));
    });
  }

  PlanPtr conv_;
  // g^i and g^−i mod p for i < p − 1: shared by every q (shared_tables.hpp).
  SharedTable<std::uint32_t> gather_;
  SharedTable<std::uint32_t> scatter_;
  LazyTable<std::vector<ShoupOperand<u64>>> kernel_;
};

}  // namespace

PlanPtr make_rader(std::size_t n, u64 q, u64 omega, bool padded) {
  if (n < 3 || !is_prime(n)) {
    throw InvalidParameter("rader needs an odd prime length; n = " + std::to_string(n) + " is not");
  }
  const std::size_t L = n - 1;
  const std::size_t lc = padded ? next_power_of_two(2 * L - 1) : L;
  PlanPtr conv = plan_convolution(lc, q, padded ? "rader_padded" : "rader");
  return std::make_shared<const RaderPlan>(n, q, omega, padded, std::move(conv));
}

}  // namespace polyhe::cyclic
