// The algorithms behind CyclicNttPlan (internal). Each factory validates that its algorithm
// applies to (n, q, ω) and throws InvalidParameter naming the rule otherwise; ω is a primitive
// n-th root of unity mod the prime q, already validated by the caller.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"

namespace polyhe::cyclic {

using u64 = std::uint64_t;
using PlanPtr = std::shared_ptr<const CyclicNttPlan>;

PlanPtr make_direct(std::size_t n, u64 q, u64 omega);
PlanPtr make_radix2(std::size_t n, u64 q, u64 omega);
/// n = n1·(n/n1) with gcd(n1, n/n1) = 1.
/// Runs as one flattened transform (fused.hpp) when flatten and the factors allow it.
PlanPtr make_pfa(std::size_t n, u64 q, u64 omega, std::size_t n1, bool flatten = true);
/// n = n1·(n/n1), any factors.
PlanPtr make_cooley_tukey(std::size_t n, u64 q, u64 omega, std::size_t n1);
/// n prime; padded: the (n−1)-point convolution through a power of two ≥ 2(n−1)−1.
PlanPtr make_rader(std::size_t n, u64 q, u64 omega, bool padded);
PlanPtr make_bluestein(std::size_t n, u64 q, u64 omega);

/// The planner's choice for (n, q, ω): radix-2 for powers of two, PFA over the smallest
/// prime-power factor and the rest, Cooley–Tukey p·p^(k−1) for prime powers, the direct DFT for
/// primes ≤ 5, Rader for larger primes (padded, then Bluestein, when q lacks the root the
/// convolution needs).
/// flatten_pfa = false leaves a PFA node unflattened (fused.hpp): for the children of a flattened
/// node, which only name the tree.
PlanPtr plan_automatic(std::size_t n, u64 q, u64 omega, bool flatten_pfa = true);

/// A plan for a cyclic convolution of length L mod q: any primitive L-th root will do. Throws
/// InvalidParameter naming `who` when q ≢ 1 mod L.
PlanPtr plan_convolution(std::size_t L, u64 q, const char* who);

inline u64 mul_mod_slow(u64 a, u64 b, u64 q) {
  return static_cast<u64>(static_cast<u128>(a) * b % q);
}

/// [ω^e for e < count] (construction only): a Shoup product per power, no division.
std::vector<u64> powers_of(u64 omega, u64 q, std::size_t count);

/// [ω^e for e < count], each with its Shoup companion (construction only; ShoupQuotient, so
/// no double-word division per power for len(q) ≤ 62).
std::vector<ShoupOperand<u64>> shoup_powers(u64 omega, u64 q, std::size_t count);
/// The same written to out (out.size() powers), with the caller's quotient of q.
void shoup_powers_into(std::span<ShoupOperand<u64>> out, u64 omega,
                       const ShoupQuotient<u64>& quotient, u64 q);

/// i → the bit-reverse of i over log2(len) bits, len a power of two.
std::vector<std::uint32_t> bit_reversal(std::size_t len);

/// The smallest power of two ≥ x.
inline std::size_t next_power_of_two(std::size_t x) {
  std::size_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

/// Pointwise a[i] ← a[i]·w[i] mod q. Output in [0, q).
inline void mul_pointwise(std::span<u64> a, std::span<const ShoupOperand<u64>> w, u64 q) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = mul_shoup(a[i], w[i], q);
}

/// The transform of h (length L = conv->n()) divided by L, for convolving with h:
/// a ⊛ h = rev(F(F(a) ⊙ H)) where rev maps index i to (L − i) mod L. Runs conv in scratch of its
/// own, so it may be called from inside another plan's forward_with on the same thread (the
/// kernels that Rader and Bluestein build on first use).
std::vector<ShoupOperand<u64>> convolution_kernel(const CyclicNttPlan& conv, std::vector<u64> h);

/// A table built on its first use, once, by the first thread that needs it (others wait on the
/// lock), then read without the lock (release/acquire) — as NttPlan's CPU kernels. The Rader and
/// Bluestein convolution kernels are such tables: each costs a transform of the convolution's
/// length, so planning (which validates, and runs when parameters are created or loaded) leaves
/// them to the first transform that needs them. A build that throws (std::bad_alloc) leaves the
/// table unbuilt, to be tried again.
template <class T>
class LazyTable {
 public:
  template <class Build>
  const T& get(Build&& build) const {
    if (built_.load(std::memory_order_acquire)) [[likely]] {
      return value_;
    }
    return build_once(build);
  }

 private:
  template <class Build>
  [[gnu::noinline]] const T& build_once(Build& build) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!built_.load(std::memory_order_relaxed)) {
      value_ = build();
      built_.store(true, std::memory_order_release);
    }
    return value_;
  }

  mutable std::mutex mutex_;
  mutable std::atomic<bool> built_{false};
  mutable T value_{};
};

}  // namespace polyhe::cyclic
