// CyclicNttPlan: the length-n cyclic NTT over one prime, for any n with an n-th root of unity,
// through a recursive decomposition (radix-2, prime-factor, Cooley–Tukey, Rader, Bluestein).
//
// The combination of the prime-factor algorithm and Rader's algorithm is the one that
// [PFA-Rader] shows beating Bluestein for HElib's m = 21845 = 5·17·257.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "polyhe/arith/shoup.hpp"

namespace polyhe {

/// The algorithm at the root of a cyclic plan. `automatic` lets the planner choose the whole
/// tree; any other value forces the root (its sub-plans are still chosen automatically), for
/// benchmarking and for testing the algorithms against each other.
enum class Decomposition {
  automatic,
  direct,        // the O(n²) DFT with a table of the n powers of ω; leaves n ≤ 5
  radix2,        // iterative Cooley–Tukey, n a power of two
  pfa,           // Good–Thomas, n = n1·n2 with gcd(n1, n2) = 1: index maps only
  cooley_tukey,  // n = n1·n2 with twiddle multiplications (prime powers p^k)
  rader,         // n prime: an (n−1)-point cyclic convolution, planned recursively
  rader_padded,  // n prime: the convolution zero-padded to a power of two ≥ 2(n−1)−1
  bluestein,     // any n: chirp-z through a power-of-two convolution of length ≥ 2n−1
};

std::string_view to_string(Decomposition d);

/// The transform X[k] = Σ_j x[j]·ω^(jk) mod q, 0 ≤ j, k < n, for a primitive n-th root of unity
/// ω mod a prime q ≡ 1 mod n with len(q) ≤ 62. Natural order in and out; inverse is the exact
/// inverse, 1/n included. Immutable once created; share through `std::shared_ptr<const …>`;
/// forward/inverse may run on several threads at once (per-thread scratch).
///
/// create() validates and plans: it throws wherever the plan could ever fail, and builds no table
/// that grows with n per prime. Those (the Rader and Bluestein kernels, which cost a transform
/// each, the radix-2 and Cooley–Tukey twiddles, the flattened PFA's tables) are built by the
/// first transform that needs them, once, under a lock; the index tables that depend on the
/// lengths alone (permutations, Rader's generator powers) are shared by the plans of every q.
/// So a ring of many primes plans quickly, and pays for its tables when it first transforms.
///
/// The default ω is g^((q−1)/n) for the smallest g ≥ 2 that makes it primitive
/// (primitive_nth_root in ntt/cyclic/primes.hpp).
class CyclicNttPlan {
 public:
  using u64 = std::uint64_t;

  /// Throws InvalidParameter naming the value and the rule when q is not a prime of at most 62
  /// bits with q ≡ 1 mod n, when the forced decomposition does not apply to n, or when q lacks a
  /// root that every applicable decomposition needs (e.g. Bluestein's power-of-two root).
  static std::shared_ptr<const CyclicNttPlan> create(
      std::size_t n, u64 q, Decomposition force = Decomposition::automatic);
  /// With a caller-chosen ω, validated to be a primitive n-th root of unity mod q.
  static std::shared_ptr<const CyclicNttPlan> create(std::size_t n, u64 q, u64 omega,
                                                     Decomposition force);

  /// The largest n a plan accepts.
  static constexpr std::size_t kMaxN = std::size_t{1} << 22;

  virtual ~CyclicNttPlan() = default;
  CyclicNttPlan(const CyclicNttPlan&) = delete;
  CyclicNttPlan& operator=(const CyclicNttPlan&) = delete;

  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] u64 q() const { return q_; }
  [[nodiscard]] u64 omega() const { return omega_; }
  /// The algorithm at the root of this plan.
  [[nodiscard]] Decomposition kind() const { return kind_; }
  /// The whole tree, e.g. "pfa(5, pfa(17, rader(257 -> radix2(256))))": the planner's choice.
  /// How it runs may differ below a PFA node whose factors allow flattening (one CRT map per
  /// direction, SIMD over columns, small odd factors as direct DFTs; src/ntt/cyclic/fused.hpp)
  /// and for radix-2 nodes with q ≡ 1 mod 2n (the negacyclic kernels); the result is the same.
  [[nodiscard]] virtual std::string decomposition() const = 0;

  /// In place, natural order. Requires a.size() == n (checked) and every a[i] < q
  /// (a precondition). Output in [0, q).
  void forward(std::span<u64> a) const;
  /// In place: the exact inverse of forward, 1/n included. Same requirements.
  void inverse(std::span<u64> a) const;

  /// Whether the whole transform runs as one flattened multi-dimensional pass (a prime-factor
  /// tree the fast kernels serve) rather than node by node.
  [[nodiscard]] virtual bool flattened() const { return false; }

  /// Words of scratch that forward_with needs.
  [[nodiscard]] std::size_t scratch_size() const { return scratch_; }
  /// forward without the size check, with caller-provided scratch of at least scratch_size()
  /// words (internal: the composite plans run their sub-plans through it).
  virtual void forward_with(std::span<u64> a, std::span<u64> scratch) const = 0;
  /// inverse without the size check, with scratch as forward_with. The default runs
  /// forward_with, reverses a[1, n) and multiplies by 1/n; plans that fold those into their
  /// last pass override it.
  virtual void inverse_with(std::span<u64> a, std::span<u64> scratch) const;

 protected:
  CyclicNttPlan(std::size_t n, u64 q, u64 omega, Decomposition kind, std::size_t scratch);

 private:
  std::size_t n_;
  u64 q_;
  u64 omega_;
  Decomposition kind_;
  std::size_t scratch_;
  ShoupOperand<u64> n_inv_;
};

}  // namespace polyhe
