// RingContext: the ring Z_Q[x]/Φ_m(x) as an RNS basis of NTT primes with one transform per prime,
// built once and shared by every level and every polynomial: the negacyclic NTT for
// Φ_2N = x^N + 1 (N a power of two), or the powerful-basis transform for odd m.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
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

/// Z_Q[x]/Φ_m(x), Q = q_0·…·q_{k−1}, in one of two shapes. Immutable; held through
/// `std::shared_ptr<const …>`. Threads: one context may be shared by any number of threads — its
/// transforms work in per-thread scratch (core/wipe.hpp's ThreadScratch) and the one cache it
/// fills after construction, automorphism_table's, is guarded by a mutex.
///
/// - Power-of-two (create): m = 2N, Φ_m = x^N + 1, every q_i ≡ 1 mod 2N; coefficient form is the
///   power basis x^j, evaluation form the negacyclic NTT of ntt/plan.hpp (bit-reversed).
/// - Odd m (create_cyclotomic): N = φ(m) words per limb, every q_i ≡ 1 mod m; coefficient form is
///   the powerful basis and evaluation form PowerfulNtt's slots (ntt/cyclic/powerful.hpp). The
///   powerful basis is an integer basis of the same ring, so everything coefficient-wise (base
///   conversion, ModUp/ModDown, rescaling, centred lifts, sampling small coordinates) is the same
///   arithmetic as in the power basis; only the transforms and automorphisms differ.
///
/// Every operation of the ring layer serves both through forward/inverse/forward_lifted below;
/// plan()/plans() exist for power-of-two rings only. Device placement serves power-of-two rings
/// and the odd m of device_serves() (RnsPoly refuses the others).
class RingContext : public std::enable_shared_from_this<RingContext> {
 public:
  using u64 = std::uint64_t;

  static constexpr std::size_t kMinN = 2;
  static constexpr std::size_t kMaxN = std::size_t{1} << NttPlan<std::uint64_t>::kMaxLogN;
  /// The largest odd cyclotomic index create_cyclotomic takes (its transform's bound).
  static constexpr std::size_t kMaxM = PowerfulNtt::kMaxM;

  /// Validates (InvalidParameter naming the value and the rule): N a power of two in
  /// [kMinN, kMaxN]; at least one prime; each prime ≡ 1 mod 2N and as RnsBasis requires
  /// (prime, ≤ 62 bits, distinct). Builds the NTT plan of every prime.
  static std::shared_ptr<const RingContext> create(std::size_t n,
                                                   std::span<const std::uint64_t> primes);
  static std::shared_ptr<const RingContext> create(std::size_t n,
                                                   const std::vector<std::uint64_t>& primes) {
    return create(n, std::span<const std::uint64_t>(primes));
  }

  /// Odd m in [3, kMaxM] (InvalidParameter otherwise); every prime ≡ 1 mod m, as
  /// RnsBasis requires, and with a transform of each of m's prime-power lengths mod it (the
  /// planner's message otherwise). Plans the PowerfulNtt of every prime (each builds its tables
  /// on its first transform: PowerfulNtt, CyclicNttPlan); `force` forces the decomposition of
  /// every prime factor of m above 5 (PowerfulNtt::create: testing and benchmarks, every choice
  /// gives the same words; automatic otherwise).
  static std::shared_ptr<const RingContext> create_cyclotomic(
      std::size_t m, std::span<const std::uint64_t> primes,
      Decomposition force = Decomposition::automatic);

  /// The words of a limb: N for x^N + 1, φ(m) for odd m.
  [[nodiscard]] std::size_t n() const { return n_; }
  /// log2(N) for power-of-two rings; 0 for odd m.
  [[nodiscard]] int log_n() const { return log_n_; }
  /// The cyclotomic index: 2N for x^N + 1, else the odd m.
  [[nodiscard]] std::size_t m() const { return m_; }
  /// Whether this is x^N + 1 (true) or Φ_m for odd m (false).
  [[nodiscard]] bool power_of_two() const { return powerful_.empty(); }
  /// Whether polynomials of this ring may live on a device (RnsPoly refuses the others): every
  /// x^N + 1 ring; odd m when φ(m) is a power of two and every prime's transform takes the fused
  /// route (PowerfulNtt::Route::fused), the one the device runs: m a product of at least two
  /// Fermat primes (3, 5, 17, 257) with φ(m) over the largest one's φ a multiple of 8, as 255,
  /// 3855, 4369, 13107, 21845 and 65535.
  [[nodiscard]] bool device_serves() const;
  /// The transform of prime i of an odd-m ring (unchecked; null for power-of-two rings).
  [[nodiscard]] const PowerfulNtt* powerful(std::size_t i) const {
    return powerful_.empty() ? nullptr : powerful_[i].get();
  }
  /// Whether x → x^k is an automorphism this ring names by k: odd k in [1, 2N) for x^N + 1,
  /// k in [1, m) coprime to m for odd m. automorphism_table and RnsPoly refuse the others.
  [[nodiscard]] bool is_galois_element(std::uint64_t k) const;
  /// The rule of is_galois_element, for messages ("odd and in [1, 2N) = [1, 8192)").
  [[nodiscard]] std::string galois_rule() const;

  /// Limb i's transform, coefficient ↔ evaluation form, in place or out of place (out disjoint
  /// from a), for either shape. Checked: limb i exists, spans of n() words.
  void forward(std::size_t i, std::span<u64> a) const;
  void inverse(std::size_t i, std::span<u64> a) const;
  void inverse(std::size_t i, std::span<const u64> a, std::span<u64> out) const;
  /// out = forward_i(lift(x)), lift the centred representative of x mod p reduced mod q_i;
  /// with c and s, out = (c − forward_i(lift(x)))·s mod q_i, work a scratch of n() words (it may
  /// be out). NttPlan::forward_lifted for power-of-two rings (one fused pass where the kernel
  /// has it), the separate steps otherwise; the same words either way.
  void forward_lifted(std::size_t i, std::span<const u64> x, u64 p, std::span<u64> out) const;
  void forward_lifted(std::size_t i, std::span<const u64> x, u64 p, std::span<const u64> c, u64 s,
                      std::span<u64> out, std::span<u64> work) const;
  /// Limb j of `data` (n() words each) is the ring's limb limbs[j]; spread over the default pool.
  void forward(std::span<u64> data, std::span<const std::size_t> limbs) const;
  void inverse(std::span<u64> data, std::span<const std::size_t> limbs) const;
  /// The same for the consecutive limbs first, first + 1, … that `data` holds.
  void forward_from(std::size_t first, std::span<u64> data) const;
  void inverse_from(std::size_t first, std::span<u64> data) const;
  /// The number of primes of the full basis (the top level has max_limbs() limbs).
  [[nodiscard]] std::size_t max_limbs() const { return basis_.size(); }
  [[nodiscard]] std::size_t max_level() const { return basis_.size() - 1; }
  [[nodiscard]] const RnsBasis& basis() const { return basis_; }

  /// The first `limbs` moduli / plans (no checks: 1 ≤ limbs ≤ max_limbs() is a precondition;
  /// plans of power-of-two rings only — empty for odd m).
  [[nodiscard]] std::span<const Modulus<std::uint64_t>> moduli(std::size_t limbs) const {
    return basis_.moduli().first(limbs);
  }
  [[nodiscard]] std::span<const NttPlan<std::uint64_t>* const> plans(std::size_t limbs) const {
    if (plan_ptrs_.empty()) return {};
    return std::span<const NttPlan<std::uint64_t>* const>(plan_ptrs_).first(limbs);
  }
  [[nodiscard]] const NttPlan<std::uint64_t>& plan(std::size_t i) const { return *plan_ptrs_[i]; }

  /// Level l (0 ≤ l ≤ max_level(), checked): the first l + 1 primes, sharing this context.
  [[nodiscard]] RingLevel level(std::size_t l) const;

  /// The slot permutation of the automorphism σ_k (x → x^k, is_galois_element(k), checked) in
  /// evaluation form: slot t of σ_k(a) is slot table[t] of a, for every limb. Computed on first
  /// use and kept for the context's lifetime (N words of 32 bits per distinct k; thread-safe).
  [[nodiscard]] std::span<const std::uint32_t> automorphism_table(std::uint64_t k) const;

 private:
  RingContext(std::size_t n, RnsBasis basis);
  RingContext(std::size_t m, RnsBasis basis, Decomposition force);
  void check_limb(std::size_t i, std::size_t words, const char* op) const;

  std::size_t n_;
  int log_n_;
  std::size_t m_;
  RnsBasis basis_;
  std::vector<std::shared_ptr<const PowerfulNtt>> powerful_;  // odd m
  std::vector<std::shared_ptr<const NttPlan<std::uint64_t>>> plans_;
  std::vector<const NttPlan<std::uint64_t>*> plan_ptrs_;
  // The cache of automorphism_table: entries are never removed, so spans stay valid.
  mutable std::mutex automorphism_mutex_;
  mutable std::map<std::uint64_t, std::unique_ptr<const std::vector<std::uint32_t>>>
      automorphism_tables_;
};

}  // namespace polyhe
