// BFV (Brakerski / Fan–Vercauteren) in full RNS over the shared rlwe layer: the plaintext
// m ∈ Z_t[x]/(x^N + 1) sits in the top bits of the ciphertext, [c_0 + c_1·s]_Q = round(Q·m/t) + v,
// and decryption rounds t·x/Q (BEHZ with the redundant prime γ, as SEAL: rns/decrypt_rounder.hpp).
// Multiplication is the HPS tensoring (Halevi–Polyakov–Shoup 2018): both ciphertexts are lifted
// exactly from Q to Q ∪ R (R an auxiliary basis with R > 4·t·N·Q), multiplied there, scaled by
// t/Q and rounded into R (rns/scale_rounder.hpp), and lifted back exactly from R to Q. HPS rather
// than BEHZ because its only approximation is one double-precision sum with a proved bound, where
// BEHZ needs the Shenoy–Kumaresan correction with an extra modulus and a second approximate
// conversion (BEHZ §4.3), and HPS's exact conversions are the ones the rlwe layer already has.
//
// Keys, encryption of zero, key switching, relinearisation and Galois automorphisms are rlwe's,
// shared with CKKS (rlwe/operations.hpp); this file adds the scaling by Q/t and the rounding by
// t/Q.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "polyhe/bgv/encoder.hpp"
#include "polyhe/bgv/slots.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/decrypt_rounder.hpp"
#include "polyhe/rns/scale_rounder.hpp"

namespace polyhe::bgv {

using rlwe::Ciphertext;

/// A plaintext of BFV/BGV: the N coefficients of m ∈ Z_t[x]/(x^N + 1), each in [0, t) (what the
/// encoders of bgv/encoder.hpp produce and read).
struct Plaintext {
  std::vector<std::uint64_t> coeffs;
};

/// The rlwe parameters with a plaintext modulus t, and everything BFV precomputes per level.
/// Immutable; held through std::shared_ptr<const Context>.
class Context {
 public:
  /// Validates (InvalidParameter naming the value): t as PlaintextModulus (2 ≤ t < 2^60); no
  /// prime of Q divides t (decryption needs Q^−1 mod t). Generates the auxiliary NTT primes of R
  /// (≡ 1 mod 2N, none of Q ∪ P; 50 bits when Q's primes have at most 50, so that the IFMA52
  /// conversion kernels serve every conversion, else 60) and the tables of every level.
  static std::shared_ptr<const Context> create(rlwe::ParametersPtr params, std::uint64_t t);

  [[nodiscard]] const rlwe::ParametersPtr& params() const { return params_; }
  [[nodiscard]] std::size_t n() const;
  [[nodiscard]] const PlaintextModulus& t() const { return t_; }
  /// Batching: slots of x^N + 1 with t ≡ 1 mod 2N. Never for odd m: Φ_m's slots in GF(t^d) are
  /// slot_encoder()'s, and plaintexts are powerful-basis coordinates.
  [[nodiscard]] bool batching() const { return batch_.has_value(); }
  /// InvalidParameter naming t and 2N when t does not support batching (or the ring is Φ_m).
  [[nodiscard]] const BatchEncoder& batch_encoder() const;
  [[nodiscard]] const CoefficientEncoder& coefficient_encoder() const { return coeff_; }
  /// Odd m: the slots of Z_t[X]/Φ_m in GF(t^d) (bgv/slots.hpp), built on first use (once,
  /// thread-safe). InvalidParameter for x^N + 1 (its slots are batch_encoder()'s) or a t that
  /// SlotEncoder refuses (not prime, order above its limit), naming the rule.
  [[nodiscard]] const SlotEncoder& slot_encoder() const;

  /// BFV's tables at level l (0 ≤ l ≤ L): Δ_l = ⌊Q_l/t⌋ mod q_i, r_l = Q_l mod t, decryption
  /// rounding, and the HPS multiplication machinery over the first `aux` primes of R (x^N + 1
  /// only: over Φ_m for odd m BFV's multiplication is not provided and these are empty).
  struct Level {
    std::vector<std::uint64_t> delta;  // ⌊Q_l/t⌋ mod q_i, i ≤ l
    std::uint64_t r;                   // Q_l mod t
    double log2_q;                     // log2(Q_l)
    BfvDecryptRounder rounder;
    std::size_t aux;  // |R_l|: bits(R_l) ≥ bits(Q_l) + bits(t) + log2(N) + 3
    std::optional<BaseConverter> q_to_r;
    std::optional<BaseConverter> r_to_q;
    std::optional<ScaleRounder> scale;
  };
  [[nodiscard]] const Level& level(std::size_t l) const { return levels_.at(l); }
  /// The ring of R's primes (their NTT plans): level l uses its first level(l).aux limbs. Null
  /// for odd m.
  [[nodiscard]] const std::shared_ptr<const RingContext>& aux_ring() const { return aux_ring_; }

 private:
  Context(rlwe::ParametersPtr params, std::uint64_t t);

  rlwe::ParametersPtr params_;
  PlaintextModulus t_;
  CoefficientEncoder coeff_;
  std::optional<BatchEncoder> batch_;
  mutable std::once_flag slots_once_;
  mutable std::shared_ptr<const SlotEncoder> slots_;
  std::shared_ptr<const RingContext> aux_ring_;
  std::vector<Level> levels_;
};

using ContextPtr = std::shared_ptr<const Context>;

/// Encrypts m at the top level: an rlwe encryption of zero (public-key or symmetric, as the
/// encryptor was made) plus round(Q·m/t). The plaintext is checked: N coefficients, each < t.
[[nodiscard]] Ciphertext bfv_encrypt(const Context& ctx, rlwe::Encryptor& encryptor,
                                     const Plaintext& m);

/// round(t·[c_0 + c_1·s (+ c_2·s²)]_Q / Q) mod t. Correct while the invariant noise budget is
/// positive; past it the result is a wrong plaintext, which the budget detects.
[[nodiscard]] Plaintext bfv_decrypt(const Context& ctx, const Ciphertext& ct,
                                    const rlwe::SecretKey& sk);

/// SEAL's invariant noise budget in bits: log2(Q_l) − 1 − log2 ‖[t·(c_0 + c_1·s)]_{Q_l}‖_∞
/// (centred), floored at 0. Decryption is correct while it is positive. Needs the secret key,
/// and the value itself leaks information about the noise and hence the key: keep it private
/// (for parameter tuning and tests, never published alongside ciphertexts). Exact (GMP).
[[nodiscard]] int invariant_noise_budget(const Context& ctx, const Ciphertext& ct,
                                         const rlwe::SecretKey& sk);

/// The homomorphic operations of BFV. Mismatched contexts give MismatchedContext, other
/// mismatches InvalidParameter naming the problem and what to do.
class BfvEvaluator {
 public:
  /// relin and galois may be null (multiply then returns size 3; rotations need galois). The
  /// evaluator shares ownership of the keys (rlwe::share). InvalidParameter for a ring Φ_m with odd
  /// m (BFV's HPS multiplication serves x^N + 1 only; use BGV there).
  explicit BfvEvaluator(ContextPtr ctx, std::shared_ptr<const rlwe::KeySwitchKey> relin = nullptr,
                        std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr);

  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const Plaintext& m) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const Plaintext& m) const;
  /// Noise grows by about N·t/2 (the plaintext is lifted centred).
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a, const Plaintext& m) const;
  /// The HPS tensor product: size 3 (sizes 2 × 2 only).
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext multiply_relin(const Ciphertext& a, const Ciphertext& b) const;
  /// Both rows rotated left by `step` columns (negative: right): Galois element 5^step mod 2N.
  [[nodiscard]] Ciphertext rotate_rows(const Ciphertext& a, std::int64_t step) const;
  /// The two rows swapped: Galois element 2N − 1.
  [[nodiscard]] Ciphertext rotate_columns(const Ciphertext& a) const;
  /// x → x^k with the Galois key for k.
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, std::uint64_t k) const;

  [[nodiscard]] const ContextPtr& context() const { return ctx_; }

 private:
  void check(const Ciphertext& a, const char* op) const;
  ContextPtr ctx_;
  std::shared_ptr<const rlwe::KeySwitchKey> relin_;
  std::shared_ptr<const rlwe::GaloisKeys> galois_;
};

}  // namespace polyhe::bgv
