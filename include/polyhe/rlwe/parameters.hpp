// RLWE parameters in two phases (Lattigo's shape): a plain literal the caller fills in, then
// checked, immutable Parameters that generate the primes and build every table once (an odd m's
// transform tables on their first use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/rlwe/security.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/basis.hpp"
#include "polyhe/rns/key_switch_basis.hpp"
#include "polyhe/rns/rescale.hpp"

namespace polyhe::rlwe {

/// The most primes |Q| + |P| a parameter set may have (SEAL's limit too). Parameters::create
/// checks it, with every other count and the security level, before it searches for primes or
/// builds any table, so a request it refuses costs microseconds whatever it asks for. Every
/// secure set at N ≤ 2^17 whose primes have 55 bits or more fits (3523 bits / 55 = 64).
/// The tables of a valid set take about 75 bytes per coefficient per prime (N·(L+1+k)·75 B:
/// 0.65 GB at N = 2^17 with 64 primes, 16 MB at the bench defaults, N = 2^14 with 10 primes),
/// plus 12–48 for each CPU path's kernel once that path runs; docs/security.md has the
/// measured table.
inline constexpr std::size_t kMaxPrimes = 64;

/// What the caller asks for; nothing here is checked until Parameters::create.
struct ParametersLiteral {
  int log_n = 0;  ///< N = 2^log_n, 1 ≤ log_n ≤ 17: the ring Z[x]/(x^N + 1). 0 when m is set.
  /// Odd m in [3, 2^17]: the ring Z[x]/Φ_m(x) of N = φ(m) powerful-basis coordinates (HElib's
  /// rings, e.g. m = 21845 = 5·17·257, φ(m) = 16384); log_n must then be 0. 0: power of two.
  std::size_t m = 0;
  /// The ciphertext chain q_0..q_L: either bit sizes (primes generated, ≡ 1 mod 2N — for odd m,
  /// ≡ 1 mod powerful_ntt_modulus(m) — distinct,
  /// each size's primes largest first below 2^bits) or explicit primes. Exactly one non-empty.
  std::vector<int> q_bits;
  std::vector<std::uint64_t> q;
  /// The special primes P = p_0..p_{k−1} of hybrid key switching: bit sizes or explicit primes,
  /// exactly one non-empty (at least one special prime: key switching needs P).
  std::vector<int> p_bits;
  std::vector<std::uint64_t> p;
  /// Digits the ciphertext modulus is split into for key switching, 1 ≤ dnum ≤ L + 1.
  /// 0 = ⌈(L+1)/k⌉ (digits of k primes, so each digit is about as wide as P).
  std::size_t dnum = 0;
  /// 0: uniform ternary secret; h > 0: ternary with exactly h nonzero coefficients (h ≤ N). The
  /// security table covers uniform ternary secrets only: a sparse secret needs security =
  /// insecure_none (InsecureParameters otherwise).
  std::size_t hamming_weight = 0;
  /// Checked against the HomomorphicEncryption.org table; insecure_none opts out by name. For odd
  /// m the row of the largest power of two ≤ φ(m) bounds log2(QP) (docs/cyclotomic.md).
  SecurityLevel security = SecurityLevel::bits128;
  /// Odd m only (automatic for x^N + 1, InvalidParameter otherwise): force the transform of every
  /// prime factor of m above 5 — e.g. Decomposition::bluestein — for tests and benchmarks of the
  /// transforms inside a scheme. Every decomposition gives the same words, so ciphertexts, keys
  /// and serialised sets do not depend on it; it is not serialised (a loaded set plans
  /// automatically) and Parameters::literal() reports it.
  Decomposition transform = Decomposition::automatic;
};

/// Checked parameters: N, Q = q_0..q_L, P = p_0..p_{k−1}, dnum, the secret distribution and the
/// security level, with the ring of every prime (Q then P: limb i < L+1 is q_i, limb L+1+r is
/// p_r), the key-switching basis, the rescalers and the ModDown constants, all built once.
/// Immutable and shared through std::shared_ptr<const Parameters>; objects made under two
/// Parameters objects never mix (MismatchedContext), even when their values agree.
/// Threads: one Parameters object may be shared by any number of threads (its tables are built
/// in create(); the CPU kernels its transforms build on first use, and an odd m's transform
/// tables, are built under a lock).
/// Cost: create() and load_parameters() plan an odd m's transforms (every check runs) but leave
/// their O(φ(m)) tables per prime to the first transform, which then costs about one transform
/// more (measured on an AMD Zen 3 core: an m = 131023 set of 28 primes loads in 0.02 s, not
/// 1.4 s): loading any admitted odd-m set takes well under a second.
class Parameters {
 public:
  /// Validates the literal (InvalidParameter naming the value and the rule; InsecureParameters
  /// when log2(QP) exceeds the table for the chosen level, saying by how much and how to fix it).
  /// Every check (ring, counts against kMaxPrimes, primes, dnum against P, security) runs before
  /// any table is built. std::bad_alloc when memory runs out while building the tables.
  static std::shared_ptr<const Parameters> create(const ParametersLiteral& literal);

  /// The coefficients of a ring element: N = 2^log_n, or φ(m) for odd m.
  [[nodiscard]] std::size_t n() const { return n_; }
  /// log2(N) for x^N + 1; 0 for odd m.
  [[nodiscard]] int log_n() const { return log_n_; }
  /// The cyclotomic index: 2N for x^N + 1, else the odd m.
  [[nodiscard]] std::size_t m() const { return m_; }
  /// Whether the ring is x^N + 1 (CKKS, BFV and BGV) or Φ_m for odd m (BGV only).
  [[nodiscard]] bool power_of_two() const { return log_n_ != 0; }
  /// The N of the HomomorphicEncryption.org table's row that bounds log2(QP): N itself, or the
  /// largest power of two ≤ φ(m).
  [[nodiscard]] std::size_t security_n() const;
  /// L: the top level; a fresh ciphertext has L + 1 limbs.
  [[nodiscard]] std::size_t max_level() const { return q_.size() - 1; }
  [[nodiscard]] std::size_t q_count() const { return q_.size(); }
  [[nodiscard]] std::size_t p_count() const { return p_.size(); }
  [[nodiscard]] std::size_t dnum() const { return ks_.dnum(); }
  [[nodiscard]] std::size_t hamming_weight() const { return hamming_weight_; }
  [[nodiscard]] SecurityLevel security() const { return security_; }
  [[nodiscard]] const std::vector<std::uint64_t>& q_primes() const { return q_; }
  [[nodiscard]] const std::vector<std::uint64_t>& p_primes() const { return p_; }
  /// bit_length(Q·P), the quantity the security table bounds.
  [[nodiscard]] int log_qp() const { return log_qp_; }
  /// The literal that reproduces these parameters exactly (explicit primes).
  [[nodiscard]] ParametersLiteral literal() const;

  /// The ring of all L + 1 + k primes; level l views its first l + 1 (= Q_l).
  [[nodiscard]] const std::shared_ptr<const RingContext>& ring() const { return ring_; }
  [[nodiscard]] const RnsBasis& q_basis() const { return ks_.q(); }
  [[nodiscard]] const RnsBasis& p_basis() const { return ks_.p(); }
  [[nodiscard]] const KeySwitchBasis& key_switch_basis() const { return ks_; }
  /// Division by q_l, for 1 ≤ level ≤ L (unchecked).
  [[nodiscard]] const Rescaler& rescaler(std::size_t level) const { return rescalers_[level - 1]; }
  /// FastBConv P → Q_l, for ModDown in evaluation form (unchecked level).
  [[nodiscard]] const BaseConverter& p_to_q(std::size_t level) const { return p_to_q_[level]; }
  /// The tables of hybrid key switching (ring/key_switching.hpp), pointing into these parameters.
  [[nodiscard]] HybridKeySwitch key_switching() const {
    return HybridKeySwitch{ring_, &ks_, p_to_q_, p_inv_mod_q_, p_mod_q_};
  }
  /// P^−1 mod q_i (i ≤ L) with Shoup companions, and P mod q_i.
  [[nodiscard]] std::span<const std::uint64_t> p_inv_mod_q() const { return p_inv_mod_q_; }
  [[nodiscard]] std::span<const std::uint64_t> p_mod_q() const { return p_mod_q_; }
  /// ⌊P/2⌋ mod p_r and mod q_i: the rounding offset of ModDown.
  [[nodiscard]] std::span<const std::uint64_t> half_p_mod_p() const { return half_p_mod_p_; }
  [[nodiscard]] std::span<const std::uint64_t> half_p_mod_q() const { return half_p_mod_q_; }

  /// The first 8 bytes of BLAKE2b over the canonical encoding (N, Q, P, dnum, h, security):
  /// stamped into every serialised object and checked on load.
  [[nodiscard]] std::uint64_t hash() const { return hash_; }
  /// The canonical encoding (what serialise writes after the header).
  [[nodiscard]] std::vector<std::uint8_t> encode_fields() const;

  /// True when both describe the same values (the same primes, dnum, secret, security).
  [[nodiscard]] bool same_values(const Parameters& other) const { return hash_ == other.hash_; }

 private:
  Parameters(const ParametersLiteral& literal, std::vector<std::uint64_t> q,
             std::vector<std::uint64_t> p, std::size_t dnum);

  std::size_t n_;
  int log_n_;
  std::size_t m_;
  std::vector<std::uint64_t> q_;
  std::vector<std::uint64_t> p_;
  std::size_t hamming_weight_;
  SecurityLevel security_;
  Decomposition transform_ = Decomposition::automatic;  // odd m: ParametersLiteral::transform
  int log_qp_;
  std::shared_ptr<const RingContext> ring_;
  KeySwitchBasis ks_;
  std::vector<Rescaler> rescalers_;
  std::vector<BaseConverter> p_to_q_;
  std::vector<std::uint64_t> p_inv_mod_q_;
  std::vector<std::uint64_t> p_mod_q_;
  std::vector<std::uint64_t> half_p_mod_p_;
  std::vector<std::uint64_t> half_p_mod_q_;
  std::uint64_t hash_;
};

using ParametersPtr = std::shared_ptr<const Parameters>;

}  // namespace polyhe::rlwe
