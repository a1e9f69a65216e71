// RingContext: the ring Z_Q[x]/(x^N + 1) for N a power of two, as an RNS basis of NTT primes with
// one negacyclic NTT plan per prime, built once and shared by every level and every polynomial.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/rns/basis.hpp"

namespace polyhe {

class RingContext;

/// Level l of a context: its first l + 1 primes. A cheap view; the plans stay in the context.
struct RingLevel {
  std::shared_ptr<const RingContext> context;
  std::size_t limbs;
  RnsBasis basis;  // the context's basis, prefix(limbs)
};

/// Z_Q[x]/(x^N + 1), Q = q_0·…·q_{k−1}, every q_i ≡ 1 mod 2N (so x^N + 1 splits mod q_i and the
/// negacyclic NTT of ntt/plan.hpp applies). Immutable; held through std::shared_ptr<const …>.
class RingContext : public std::enable_shared_from_this<RingContext> {
 public:
  static constexpr std::size_t kMinN = 2;
  static constexpr std::size_t kMaxN = std::size_t{1} << NttPlan<std::uint64_t>::kMaxLogN;

  /// Validates (InvalidParameter naming the value and the rule): N a power of two in
  /// [kMinN, kMaxN]; at least one prime; each prime ≡ 1 mod 2N and as RnsBasis requires
  /// (prime, ≤ 62 bits, distinct). Builds the NTT plan of every prime.
  static std::shared_ptr<const RingContext> create(std::size_t n,
                                                   std::span<const std::uint64_t> primes);
  static std::shared_ptr<const RingContext> create(std::size_t n,
                                                   const std::vector<std::uint64_t>& primes) {
    return create(n, std::span<const std::uint64_t>(primes));
  }

  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] int log_n() const { return log_n_; }
  /// The number of primes of the full basis (the top level has max_limbs() limbs).
  [[nodiscard]] std::size_t max_limbs() const { return basis_.size(); }
  [[nodiscard]] std::size_t max_level() const { return basis_.size() - 1; }
  [[nodiscard]] const RnsBasis& basis() const { return basis_; }

  /// The first `limbs` moduli / plans (no checks: 1 ≤ limbs ≤ max_limbs() is a precondition).
  [[nodiscard]] std::span<const Modulus<std::uint64_t>> moduli(std::size_t limbs) const {
    return basis_.moduli().first(limbs);
  }
  [[nodiscard]] std::span<const NttPlan<std::uint64_t>* const> plans(std::size_t limbs) const {
    return std::span<const NttPlan<std::uint64_t>* const>(plan_ptrs_).first(limbs);
  }
  [[nodiscard]] const NttPlan<std::uint64_t>& plan(std::size_t i) const { return *plan_ptrs_[i]; }

  /// Level l (0 ≤ l ≤ max_level(), checked): the first l + 1 primes, sharing this context.
  [[nodiscard]] RingLevel level(std::size_t l) const;

  /// The slot permutation of the automorphism σ_k (x → x^k, k odd in [1, 2N), checked) in
  /// evaluation form: slot t of σ_k(a) is slot table[t] of a, for every limb. Computed on first
  /// use and kept for the context's lifetime (N words of 32 bits per distinct k; thread-safe).
  [[nodiscard]] std::span<const std::uint32_t> automorphism_table(std::uint64_t k) const;

 private:
  RingContext(std::size_t n, RnsBasis basis);

  std::size_t n_;
  int log_n_;
  RnsBasis basis_;
  std::vector<std::shared_ptr<const NttPlan<std::uint64_t>>> plans_;
  std::vector<const NttPlan<std::uint64_t>*> plan_ptrs_;
  // The cache of automorphism_table: entries are never removed, so spans stay valid.
  mutable std::mutex automorphism_mutex_;
  mutable std::map<std::uint64_t, std::unique_ptr<const std::vector<std::uint32_t>>>
      automorphism_tables_;
};

}  // namespace polyhe
