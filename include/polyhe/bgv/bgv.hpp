// BGV (Brakerski–Gentry–Vaikuntanathan) in full RNS over the shared rlwe layer, with BFV as its
// scale-invariant mode (as Lattigo does): one Evaluator, one encrypt/decrypt/noise_budget and one
// Decryptor, dispatching on the context's scheme (bgv/context.hpp, which also describes BFV's
// encoding, decryption rounding and HPS multiplication). Keys, encryption of zero, key switching,
// relinearisation and Galois automorphisms are rlwe's, shared with CKKS (rlwe/operations.hpp).
//
// BFV mode (Scheme::bfv). [c_0 + c_1·s (+ c_2·s²)]_{Q_l} = round(Q_l·m/t) + v; ciphertexts carry
// no plaintext factor (a ciphertext with f ≠ 1 is BGV's and is refused by name). Plaintext
// additions add round(Q_l·m/t), products are HPS's, key switching is plain (error multiple 1).
// Operands of binary operations must share their level (no automatic alignment). Modulus
// switching is the rounding division by q_l, c' = round(c/q_l) over Q_{l−1} (rlwe's rescale, error
// multiple 1): with t·x/Q_l = m + ν (mod t) for the invariant noise ν, the switched value has
// t·x'/Q_{l−1} = m + ν + t·e/Q_{l−1}, |e| ≤ (1 + ‖s‖_1)/2 (+ ‖s²‖_1/2 for size 3) — ν survives
// (the budget does not grow, unlike BGV's), plus a rounding term like a fresh encryption's at
// Q_{l−1}, while every later operation runs on fewer primes.
//
// BGV mode (Scheme::bgv): the plaintext sits in the low bits of the ciphertext and the noise is a
// multiple of t.
//
// Invariant. A ciphertext (c_0, c_1[, c_2]) at level l with plaintext factor f ∈ Z_t^*
// (rlwe::Ciphertext::factor(), 1 when fresh) satisfies, centred,
//     x = [c_0 + c_1·s (+ c_2·s²)]_{Q_l} = f·m + t·e,   e small,
// and decrypts to m = [x]_t · f^−1 mod t. Decryption is correct while ‖x‖_∞ < Q_l/2.
//
// Encryption: t·(rlwe encryption of zero) + m lifted centred to Q_L. t·c_1 stays uniform (t is a
// unit mod Q) and the encryption's error e becomes t·e.
//
// Key switching reuses rlwe's keys, whose error is not a multiple of t: relinearisation and Galois
// automorphisms switch t^−1·d instead of d and multiply the result by t (rlwe::relinearize /
// rlwe::apply_galois with error_multiple = t), so t·KS(t^−1·d) = d·s' + t·e_ks mod Q_l.
//
// Modulus switching (drop q_l; Brakerski–Gentry–Vaikuntanathan 2012 §4, in the RNS form of
// Gentry–Halevi–Smart 2012 / Kim–Polyakov–Zucca 2021):
//     c' = q_l^−1·(c − δ) over Q_{l−1},   δ = t·[c·t^−1]_{q_l} (centred),
// so δ ≡ c mod q_l (c − δ is divisible by q_l) and δ ≡ 0 mod t. The plaintext factor becomes
// f·q_l^−1 mod t, and with w = [c·t^−1]_{q_l} (|w| ≤ q_l/2) the decryption value becomes
//     x' = (x − t·(w_0 + w_1·s))/q_l,   ‖x'‖_∞ ≤ ‖x‖_∞/q_l + t·(1 + ‖s‖_1)/2,
// the second term a floor that switching never goes below (measured at N = 2^14, t = 2^16 + 1:
// about 2^23, i.e. t·2^6 — a few √N rather than the worst case). δ is computed on the last limb
// in coefficient form, lifted centred to the other limbs, transformed and subtracted, as CKKS's
// rescale does.
//
// Multiplication: the tensor (c_0·d_0, c_0·d_1 + c_1·d_0, c_1·d_1) over Q_l in evaluation form, no
// scaling; factors multiply (f_a·f_b mod t). Plaintext multiplication: the plaintext lifted
// centred, factor unchanged.
//
// Levels and factors in binary operations (automatic, documented per operation): operands at
// different levels — the higher one is modulus-switched down to the lower (its noise shrinks by
// about q_l per switch, down to the floor above). Additions and subtractions of ciphertexts with
// different factors f_a ≠ f_b: one operand is multiplied by the centred constant
// k = [f_a·f_b^−1]_t (or its inverse, whichever is smaller in magnitude), which multiplies its
// noise by |k| ≤ t/2 — a cost of up to log2(t) − 1 bits of budget; equal factors add plainly.
// Plaintext additions with a factor f ≠ 1 are free: the plaintext is multiplied by f mod t
// before it is lifted.
//
// Levels are managed explicitly otherwise: multiply_relin does not switch; call
// mod_switch_to_next after each product to keep the noise near its floor (the tests take
// depth 4 at N = 2^14 that way).
//
// Not provided: a key-free noise estimate. An honest tracked upper bound needs the worst-case
// bounds of every operation (key switching: Σ_j D_j·‖e_j‖·N/P, products: N·‖e_a‖·‖e_b‖), which
// overestimate by tens of bits; noise_budget measures it exactly, with the secret key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "polyhe/bgv/context.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::bgv {

/// Deprecated: bgv::Encryptor::encrypt (`ctx->encryptor(pk).encrypt(m)`), the same words, checks
/// and messages.
[[nodiscard, deprecated("use bgv::Encryptor: ctx->encryptor(pk).encrypt(m)")]] Ciphertext encrypt(
    const Context& ctx, const rlwe::Encryptor& encryptor, const Plaintext& m);

/// Deprecated: bgv::Decryptor::decrypt (`ctx->decryptor(sk).decrypt(ct)`), the same words.
[[nodiscard, deprecated("use bgv::Decryptor: ctx->decryptor(sk).decrypt(ct)")]] Plaintext decrypt(
    const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk);

/// Deprecated: bgv::Decryptor::noise_budget (`ctx->decryptor(sk).noise_budget(ct)`).
[[nodiscard,
  deprecated("use bgv::Decryptor::noise_budget: ctx->decryptor(sk).noise_budget(ct)")]] int
noise_budget(const Context& ctx, const Ciphertext& ct, const rlwe::SecretKey& sk);

/// Encrypts plaintexts of one context under a public key (or, made from a secret key,
/// symmetrically). Made by Context::encryptor; copies share one rlwe::Encryptor and so one stream
/// of seeds. Threads and wiping: rlwe::Encryptor's (one encryptor may serve several threads at
/// once).
class Encryptor {
 public:
  /// InvalidParameter for a null context or encryptor.
  Encryptor(ContextPtr ctx, std::shared_ptr<const rlwe::Encryptor> encryptor);

  /// m at the top level. The plaintext is checked (N coefficients, each < t; InvalidParameter
  /// naming the value); the rlwe encryptor must belong to the context's parameters
  /// (MismatchedContext). BGV: t·encrypt_zero(L) + m (lifted centred), factor 1; a symmetric
  /// encryption loses its seed (t·c_1 is no longer the seed's expansion): it serialises at full
  /// size. BFV: an rlwe encryption of zero (public-key or symmetric, as the encryptor was made)
  /// plus round(Q·m/t); a symmetric one keeps its seed.
  [[nodiscard]] Ciphertext encrypt(const Plaintext& m) const;
  /// Where the key lives, and so the ciphertexts (null: host memory).
  [[nodiscard]] const std::shared_ptr<Device>& device() const { return encryptor_->device(); }
  [[nodiscard]] const ContextPtr& context() const { return ctx_; }
  /// The rlwe encryptor underneath (encryptions of zero, the building blocks of rlwe/).
  [[nodiscard]] const rlwe::Encryptor& rlwe_encryptor() const { return *encryptor_; }

 private:
  ContextPtr ctx_;
  std::shared_ptr<const rlwe::Encryptor> encryptor_;
};

/// Decryption and the noise budget under one context's secret key. Threads: immutable
/// after construction; one decryptor may be shared by any number of threads. Wiping: the
/// decryption value x = c_0 + c_1·s (+ c_2·s²) (message and noise) is wiped once read; the
/// plaintext returned is the caller's (not wiped).
class Decryptor {
 public:
  /// Shares the key. InvalidParameter for a null context or key; MismatchedContext for a key of
  /// other parameters.
  explicit Decryptor(ContextPtr ctx, std::shared_ptr<const rlwe::SecretKey> sk);
  /// A copy of the key, owned by the decryptor.
  explicit Decryptor(ContextPtr ctx, const rlwe::SecretKey& sk);

  /// BGV: [x]_t · f^−1 mod t with x = [c_0 + c_1·s (+ c_2·s²)]_{Q_l} centred; [x]_t by the exact
  /// (HPS) conversion of the centred residue to Z_t, exact while
  /// ‖x‖_∞ ≤ Q_l·(1/2 − (l+1)(l+4)·2^−53) (rns/base_converter.hpp's bound; the budget is 0 long
  /// before). BFV: round(t·x/Q_l) mod t; a ciphertext with a plaintext factor f ≠ 1 is refused
  /// (InvalidParameter naming f: it is BGV's). Correct while the noise budget is positive; past
  /// it, a wrong plaintext that the budget detects. MismatchedContext for a ciphertext of other
  /// parameters.
  [[nodiscard]] Plaintext decrypt(const Ciphertext& ct) const;
  /// The noise budget in bits, floored at 0; decryption is correct while it is positive. BGV:
  /// log2(Q_l) − 1 − log2‖[c_0 + c_1·s (+ c_2·s²)]_{Q_l}‖_∞ (centred, bit lengths). BFV: SEAL's
  /// invariant noise budget, log2(Q_l) − 1 − log2‖[t·(c_0 + c_1·s (+ c_2·s²))]_{Q_l}‖_∞. The
  /// value leaks information about the noise and hence the key: keep it private (for parameter
  /// tuning and tests, never published alongside ciphertexts). Exact (GMP).
  [[nodiscard]] int noise_budget(const Ciphertext& ct) const;

  [[nodiscard]] const ContextPtr& context() const { return ctx_; }
  [[nodiscard]] const rlwe::SecretKey& key() const { return *sk_; }

 private:
  ContextPtr ctx_;
  std::shared_ptr<const rlwe::SecretKey> sk_;
};

/// The homomorphic operations of BGV and of BFV (its scale-invariant mode), chosen by the
/// context's scheme. Mismatched contexts give MismatchedContext, other problems InvalidParameter
/// naming the value and what to do. Every ciphertext taken is checked: BGV, a plaintext factor
/// f < t with gcd(f, t) = 1; BFV, factor 1.
///
/// Threads: immutable after construction (every operation is const and only reads the context
/// and the keys); one evaluator may be shared by any number of threads. Scratch is per thread
/// (BFV's tensor product, key switching) or the default pool's, whose parallel_for runs a second
/// caller's job on that caller alone while another holds the pool. Ciphertexts are values.
class Evaluator {
 public:
  /// relin and galois may be null (multiply then returns size 3; rotations need galois). The
  /// evaluator shares ownership of the keys (rlwe::share makes a shared key), so they live as
  /// long as it does. MismatchedContext for keys of other parameters. Context::evaluator makes
  /// one from keys given by value.
  explicit Evaluator(ContextPtr ctx, std::shared_ptr<const rlwe::KeySwitchKey> relin = nullptr,
                     std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr);

  /// BGV: levels aligned by modulus switching, factors by a constant (see the top of this file).
  /// BFV: same level (InvalidParameter naming both).
  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  /// a + m and a − m. BGV: m is multiplied by a's factor mod t (free), lifted centred, added to
  /// c_0. BFV: round(Q_l·m/t) added to c_0.
  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const Plaintext& m) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const Plaintext& m) const;
  /// Every part times m lifted centred: noise grows by about N·t/2; factor unchanged.
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a, const Plaintext& m) const;
  /// Size 3 (sizes 2 × 2 only). BGV: the tensor product over Q_l, factor f_a·f_b mod t; operands
  /// at different levels: the higher one is switched down first. BFV: the HPS tensor product;
  /// operands at one level (InvalidParameter naming both otherwise).
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  /// Size 3 → 2 with the relinearisation key (BGV: switching with error multiple t).
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a) const;
  /// relinearize(multiply(a, b)); no modulus switch (call mod_switch_to_next).
  [[nodiscard]] Ciphertext multiply_relin(const Ciphertext& a, const Ciphertext& b) const;
  /// Both rows rotated left by `step` columns (negative: right): Galois element 5^step mod 2N.
  /// x^N + 1 only.
  [[nodiscard]] Ciphertext rotate_rows(const Ciphertext& a, std::int64_t step) const;
  /// rotate_rows for each of `steps`, hoisted (c_1's ModUp made once for all of them,
  /// rlwe::apply_galois_hoisted): result r is the ciphertext rotate_rows(a, steps[r]) gives, word
  /// for word (a step of 0 mod N/2: a copy of a). Every key is checked before any work.
  [[nodiscard]] std::vector<Ciphertext> rotate_rows_many(const Ciphertext& a,
                                                         std::span<const std::int64_t> steps) const;
  /// The two rows swapped: Galois element 2N − 1. x^N + 1 only.
  [[nodiscard]] Ciphertext rotate_columns(const Ciphertext& a) const;
  /// x → x^k with the Galois key for k.
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, std::uint64_t k) const;

  /// Drops q_l (level l → l − 1, sizes 2 and 3). BGV: c' = q_l^−1·(c − δ), factor
  /// f·q_l^−1 mod t. BFV: c' = round(c/q_l), factor 1. InvalidParameter at level 0.
  [[nodiscard]] Ciphertext mod_switch_to_next(const Ciphertext& a) const;
  void mod_switch_to_next_inplace(Ciphertext& a) const;
  /// Switches down to `level` ≤ a.level() (InvalidParameter naming both otherwise); a copy when
  /// equal.
  [[nodiscard]] Ciphertext mod_switch_to(const Ciphertext& a, std::size_t level) const;

  [[nodiscard]] const ContextPtr& context() const { return ctx_; }
  [[nodiscard]] Scheme scheme() const { return ctx_->scheme(); }

 private:
  [[nodiscard]] bool bfv() const { return ctx_->scheme() == Scheme::bfv; }
  // The error multiple of key switching: t (BGV), 1 (BFV).
  [[nodiscard]] std::uint64_t error_multiple() const;
  void check(const Ciphertext& a, const char* op) const;
  void check_size2(const Ciphertext& a, const char* op) const;
  // Copies of a and b at the lower of their levels (BGV).
  void align_levels(Ciphertext& a, Ciphertext& b) const;
  // a and b brought to one factor (BGV; the operand with the smaller correction is multiplied).
  void align_factors(Ciphertext& a, Ciphertext& b) const;
  // a·k for the factor f·k ≡ target (mod t), k centred (BGV).
  void retarget_factor(Ciphertext& a, std::uint64_t target) const;
  [[nodiscard]] Ciphertext add_or_sub(const Ciphertext& a, const Ciphertext& b, bool sub,
                                      const char* op) const;
  [[nodiscard]] Ciphertext add_or_sub_plain(const Ciphertext& a, const Plaintext& m, bool sub,
                                            const char* op) const;

  ContextPtr ctx_;
  std::shared_ptr<const rlwe::KeySwitchKey> relin_;
  std::shared_ptr<const rlwe::GaloisKeys> galois_;
  std::vector<std::uint64_t> q_last_inv_t_;  // q_l^−1 mod t, at index l − 1 for level l ≥ 1
};

}  // namespace polyhe::bgv
