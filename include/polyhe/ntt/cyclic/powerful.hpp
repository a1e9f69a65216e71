// PowerfulNtt: the evaluation transform of Z_q[X]/Φ_m(X) for odd m in the powerful basis, the
// tensor product of one small cyclotomic transform per prime-power factor of m.
//
// With m = m_1·…·m_r (pairwise coprime prime powers, ascending) and x_i = X^(m/m_i) — a primitive
// m_i-th root of unity in the ring — Z[X]/Φ_m ≅ ⊗_i Z[x_i]/Φ_(m_i)(x_i). The powerful basis is
// {Π_i x_i^(j_i) : 0 ≤ j_i < φ(m_i)}: an integer basis of the same ring (the one of
// Lyubashevsky–Peikert–Regev's toolkit), not the power basis X^j. Evaluating at a primitive
// m-th root ω^k evaluates x_i at ω_i^k, ω_i = ω^(m/m_i), so the transform factorises: along each
// dimension i, the values of a length-φ(m_i) vector at the primitive m_i-th roots. Each of those
// is a length-m_i cyclic NTT of the zero-padded vector (CyclicNttPlan: prime-factor, Rader,
// Bluestein), and its inverse a length-m_i inverse NTT followed by the reduction mod
// Φ_(p^e)(x) = Σ_(c<p) x^(c·p^(e−1)), which is O(m_i) subtractions: no division by the dense
// Φ_m of length φ(m) is ever needed (the power basis needs one per inverse transform).
//
// The default route runs that tensor product at once on the flattened PFA kernels (fused): each
// axis's DFT on eight columns per vector, inputs past φ(m_i) read as zero, non-unit outputs not
// stored, no map at all (src/ntt/cyclic/powerful_fused.hpp; where it applies, see Route).
// Else, when the length-m cyclic plan runs flattened (CyclicNttPlan), the same maps run through
// it: forward scatters the coordinates to X^(e_j) (powerful_exponents) and keeps the values at
// the primitive roots; inverse fills the other roots with 0, transforms back to a polynomial C
// of degree < m with C ≡ a mod Φ_m, and reduces C's monomials X^k = Π_i x_i^(c_i) on the CRT
// grid of Π m_i = m cells by the Φ_(m_i) rule above, dimension by dimension. Every route gives
// the same words (tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"

namespace polyhe {

namespace cyclic {
struct PowerfulTables;
}  // namespace cyclic

/// The pairwise coprime prime powers whose product is m ≥ 1, ascending by prime (empty for 1).
std::vector<std::uint64_t> prime_power_factors(std::uint64_t m);

/// Euler's φ(m) for m ≥ 1.
std::uint64_t euler_phi(std::uint64_t m);

/// The exponent of X of the powerful-basis element with index `j` (row-major over the factors,
/// see PowerfulNtt): Σ_i j_i·(m/m_i) mod m. Distinct indices give distinct exponents (CRT).
/// Used to move between the powerful and the power basis (tests, plaintext maps).
std::vector<std::uint64_t> powerful_exponents(std::uint64_t m);

/// Power-basis coefficients of an element of Z_t[X]/Φ_m (φ(m) values, each < t, for any t ≥ 2)
/// → its powerful-basis coordinates mod t: X^k = Π_i x_i^(c_i) with c_i = k·(m/m_i)^−1 mod m_i,
/// and x_i^c for c ≥ φ(m_i) reduced by Φ_(m_i)(x_i) = Σ_(c<p) x_i^(c·p^(e−1)). The inverse of
/// "scatter to powerful_exponents, reduce mod Φ_m". Odd m ≥ 3; InvalidParameter on a wrong
/// length.
std::vector<std::uint64_t> power_to_powerful(std::uint64_t m, std::span<const std::uint64_t> power,
                                             std::uint64_t t);

/// The modulus L that makes every transform of PowerfulNtt exist without padding: m, and for
/// each prime p > 5 dividing m the length p − 1 of its Rader convolution, recursively for the
/// primes above 5 of p − 1 (lcm of all). Every prime q ≡ 1 mod L serves m.
std::uint64_t powerful_ntt_modulus(std::uint64_t m);

/// `count` distinct primes of exactly `bits` bits (in [2, 62]), largest first below 2^bits,
/// q ≡ 1 mod powerful_ntt_modulus(m), none in `exclude`. InvalidParameter (naming m, bits and how
/// many were found) when there are not enough.
std::vector<std::uint64_t> powerful_ntt_primes(std::uint64_t m, int bits, std::size_t count,
                                               std::span<const std::uint64_t> exclude = {});

/// Z_q[X]/Φ_m(X) for odd m in [3, kMaxM] and a prime q ≡ 1 mod m of at most 62 bits.
///
/// Coefficient form: φ(m) words, the powerful-basis coordinates in row-major order over the
/// factors (the first factor outermost): index Σ_i j_i·s_i with s_i = Π_(i'>i) φ(m_i').
/// Evaluation form: φ(m) words, slot (k_1, …, k_r) at the same row-major position with k_i
/// running over Z_(m_i)^* ascending; its value is a(ω^k) for the k ≡ k_i mod m_i
/// (slot_exponents()), ω = omega() a primitive m-th root of unity. Slot-wise products are ring
/// products; σ_g: X → X^g moves slot k to slot g^−1·k (automorphism_table).
///
/// Immutable once created; share through std::shared_ptr<const PowerfulNtt>. forward/inverse
/// are thread-safe (per-thread scratch). create() plans (CyclicNttPlan: tables on first use); the
/// tables that depend on m alone (slot exponents, the length-m route's maps) are shared by the
/// transforms of every q.
class PowerfulNtt {
 public:
  using u64 = std::uint64_t;

  static constexpr std::size_t kMaxM = std::size_t{1} << 17;

  /// Throws InvalidParameter naming the value and the rule when m is not odd in [3, kMaxM], q is
  /// not a prime of at most 62 bits with q ≡ 1 mod m, or the cyclic planner finds no transform
  /// of some factor's length mod q. `force` forces the root decomposition of every factor whose
  /// length is a prime above 5 (testing and benchmarks; automatic otherwise).
  static std::shared_ptr<const PowerfulNtt> create(std::size_t m, u64 q,
                                                   Decomposition force = Decomposition::automatic);

  /// How forward/inverse run: per factor along its dimension (any m, q); through one length-m
  /// cyclic transform; or as one pruned tensor transform on the flattened kernels (`fused`: the
  /// default where it applies — at least two factors, each an odd prime power ≤ 31 or a prime
  /// p with p − 1 a power of two dividing q − 1, and the last factor's φ and φ(m)/that φ
  /// multiples of 8, as for m = 21845, 4369, 65535; then length_m when the planner has a
  /// flattened plan for m mod q; per_factor otherwise). Every route gives the same words; tests
  /// force each (InvalidParameter when a forced `fused` does not apply).
  enum class Route { automatic, per_factor, length_m, fused };
  static std::shared_ptr<const PowerfulNtt> create(std::size_t m, u64 q, Decomposition force,
                                                   Route route);
  /// The route this transform takes.
  [[nodiscard]] Route route() const { return route_; }

  PowerfulNtt(const PowerfulNtt&) = delete;
  PowerfulNtt& operator=(const PowerfulNtt&) = delete;

  [[nodiscard]] std::size_t m() const { return m_; }
  /// φ(m): words of an element in either form.
  [[nodiscard]] std::size_t degree() const { return degree_; }
  [[nodiscard]] u64 q() const { return mod_.value(); }
  [[nodiscard]] u64 omega() const { return omega_; }
  /// The prime-power factors m_i, ascending.
  [[nodiscard]] std::span<const std::size_t> factors() const { return factors_; }
  /// The exponent k of every slot (evaluation-form position), a permutation of Z_m^*.
  [[nodiscard]] std::span<const std::size_t> slot_exponents() const { return *slot_k_; }
  /// The factors' transforms, e.g. "5: direct(5) ⊗ 17: rader(17 -> radix2(16)) ⊗ …".
  [[nodiscard]] std::string decomposition() const;

  /// Coefficient → evaluation form, in place. Requires a.size() == degree() (checked) and every
  /// a[i] < q (a precondition). Output in [0, q).
  void forward(std::span<u64> a) const;
  /// Evaluation → coefficient form, in place: the exact inverse of forward. Same requirements.
  void inverse(std::span<u64> a) const;

  /// For g in Z_m^* (checked, InvalidParameter otherwise): slot t of σ_g(a) is slot table[t] of
  /// a, in evaluation form (σ_g(a)(ω^k) = a(ω^(g·k))).
  [[nodiscard]] std::vector<std::uint32_t> automorphism_table(std::uint64_t g) const;

 private:
  struct Factor {
    std::size_t m;       // p^e
    std::size_t p;       // the prime
    std::size_t phi;     // φ(p^e) = (p − 1)·p^(e−1)
    std::size_t stride;  // s_i: distance between consecutive j_i in the row-major layout
    std::shared_ptr<const CyclicNttPlan> plan;  // length m, root ω^(M/m)
    // k in [1, m) with p ∤ k, ascending (shared by every q: src/ntt/cyclic/shared_tables.hpp)
    std::shared_ptr<const std::vector<std::size_t>> primitive;
    ShoupOperand<u64> m_inv;  // m^−1 mod q
  };

  PowerfulNtt(std::size_t m, u64 q, Decomposition force, Route route);
  void forward_length_m(std::span<u64> a) const;
  void inverse_length_m(std::span<u64> a) const;
  void check_size(std::span<const u64> a, const char* op) const;
  void forward_dimension(const Factor& f, std::span<u64> a, std::span<u64> buf,
                         std::span<u64> scratch) const;
  void inverse_dimension(const Factor& f, std::span<u64> a, std::span<u64> buf,
                         std::span<u64> scratch) const;

  std::size_t m_;
  std::size_t degree_;
  Modulus<u64> mod_;
  u64 omega_;
  std::vector<Factor> factor_data_;
  std::vector<std::size_t> factors_;
  // The tables that depend on m alone are shared by the transforms of every q
  // (src/ntt/cyclic/shared_tables.hpp): a ring's primes hold one copy.
  std::shared_ptr<const std::vector<std::size_t>> slot_k_;
  std::size_t buffer_words_ = 0;   // the largest m_i (m on the length-m route)
  std::size_t scratch_words_ = 0;  // the largest plan scratch
  Route route_ = Route::per_factor;
  // The length-m route: the plan, e_j = powerful_exponents(m), the grid cell of X^k (k < m), the
  // grid cell of coordinate j, and the grid's strides and factor primes.
  std::shared_ptr<const CyclicNttPlan> cyclic_;
  std::shared_ptr<const std::vector<std::uint32_t>> exponent_;
  std::shared_ptr<const std::vector<std::uint32_t>> cell_of_power_;
  std::shared_ptr<const std::vector<std::uint32_t>> cell_of_coordinate_;
  std::vector<std::size_t> grid_stride_;
  // The fused route's tables.
  std::shared_ptr<const cyclic::PowerfulTables> fused_;
};

}  // namespace polyhe
