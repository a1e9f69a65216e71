// RNS-CKKS (Cheon–Han–Kim–Kim–Song, full-RNS variant): plaintexts, encryption, decryption with
// optional noise flooding, and the evaluator. Keys, encryption and key switching are rlwe's; the
// encoder (special FFT of the canonical embedding) is ckks/encoder.hpp.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "polyhe/ckks/encoder.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/encryption.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"

namespace polyhe::ckks {

using rlwe::Ciphertext;
using rlwe::ParametersPtr;

/// An encoded message: a polynomial over Q_l in evaluation form and its scale Δ. A value (as
/// RnsPoly, for threads); not treated as a secret (not wiped).
/// Encoding and decoding run on the host; to_device() moves a plaintext where the ciphertexts it
/// meets live (multiply_plain and add_plain need both in one place).
struct Plaintext {
  ParametersPtr params;
  RnsPoly poly;
  double scale;
  [[nodiscard]] std::size_t level() const { return poly.level(); }
  [[nodiscard]] Plaintext to_device(const std::shared_ptr<Device>& device) const {
    return Plaintext{params, poly.to_device(device), scale};
  }
};

/// Deprecated: ckks::Context::encode (`ctx->encode(values, level, scale)`), the same words,
/// checks and messages. Encodes with `encoder` (built on params->ring()) at `level` (≤ L,
/// checked) and scale Δ.
[[nodiscard, deprecated("use ckks::Context::encode: ctx->encode(values, level, scale)")]] Plaintext
encode(const Encoder& encoder, const ParametersPtr& params,
       std::span<const std::complex<double>> values, double scale, std::size_t level);
[[nodiscard, deprecated("use ckks::Context::encode: ctx->encode(values, level, scale)")]] Plaintext
encode(const Encoder& encoder, const ParametersPtr& params, std::span<const double> values,
       double scale, std::size_t level);
/// Deprecated: ckks::Context::decode (`ctx->decode(pt)`).
[[nodiscard,
  deprecated("use ckks::Context::decode: ctx->decode(pt)")]] std::vector<std::complex<double>>
decode(const Encoder& encoder, const Plaintext& pt);

/// Deprecated: ckks::Encryptor (`ctx->encryptor(pk).encrypt(pt)`), the same words. Encrypts a
/// plaintext (its level and scale carry over).
[[nodiscard, deprecated("use ckks::Encryptor: ctx->encryptor(pk).encrypt(pt)")]] Ciphertext encrypt(
    const rlwe::Encryptor& encryptor, const Plaintext& pt);

/// Decryption options. Noise flooding (Li–Micciancio, "On the security of homomorphic encryption
/// on approximate numbers", 2021): a CKKS decryption reveals m + e, and e can leak the secret
/// key to whoever sees decrypted results (IND-CPA^D). When results are shared, set
/// flooding_bits = b > 0: the decryptor adds fresh noise uniform in [−2^b, 2^b] to every
/// coefficient before decoding, which hides an error of e bits with statistical distance at
/// most N·2^(e − b) (choose b ≥ e + log2 N + s for s bits of statistical security; e is about
/// log2 of the ciphertext's error, ≈ 20 bits after a few operations at N = 2^14). The cost is
/// b − (scale bits) fewer bits of precision, so raise the scale accordingly. Off by default.
struct DecryptOptions {
  int flooding_bits = 0;
};

/// Deprecated: ckks::Decryptor (`ctx->decryptor(sk, options).decrypt(ct)`), the same words.
[[nodiscard, deprecated("use ckks::Decryptor: ctx->decryptor(sk, options).decrypt(ct)")]] Plaintext
decrypt(const Ciphertext& ct, const rlwe::SecretKey& sk, const DecryptOptions& options = {});

class Context;  // ckks/context.hpp

/// Homomorphic operations. Every binary operation checks that its operands share the Parameters
/// object (MismatchedContext), the level and the scale (InvalidParameter saying what to call);
/// ciphertexts stay in evaluation form throughout.
///
/// Threads: immutable after construction (every operation is const and only reads the keys); one
/// evaluator may be shared by any number of threads. The scratch of an operation is the calling
/// thread's (per-thread buffers) and the default pool's; a call made while another thread's job
/// holds the pool runs on its own thread (ThreadPool::parallel_for), with the same words.
/// Ciphertexts and plaintexts are values: share them const, never while one thread writes.
class Evaluator {
 public:
  /// The keys are optional: relinearisation needs `relin`, rotation and conjugation `galois`.
  /// The evaluator shares ownership of both (rlwe::share makes a shared key from one returned by
  /// KeyGenerator), so they live as long as it does; nothing is copied. Context::evaluator makes
  /// one from keys given by value.
  explicit Evaluator(ParametersPtr params,
                     std::shared_ptr<const rlwe::KeySwitchKey> relin = nullptr,
                     std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr);

  /// The same over a Context's parameters (ckks/context.hpp; InvalidParameter for null).
  explicit Evaluator(const std::shared_ptr<const Context>& ctx,
                     std::shared_ptr<const rlwe::KeySwitchKey> relin = nullptr,
                     std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr);

  [[nodiscard]] const ParametersPtr& params() const { return params_; }

  [[nodiscard]] Ciphertext add(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext sub(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext negate(const Ciphertext& a) const;
  void add_inplace(Ciphertext& a, const Ciphertext& b) const;
  void sub_inplace(Ciphertext& a, const Ciphertext& b) const;

  [[nodiscard]] Ciphertext add_plain(const Ciphertext& a, const Plaintext& p) const;
  [[nodiscard]] Ciphertext sub_plain(const Ciphertext& a, const Plaintext& p) const;
  /// Adds c to every slot (encoded at the ciphertext's scale: its scale and level stay).
  [[nodiscard]] Ciphertext add_const(const Ciphertext& a, std::complex<double> c) const;

  /// The tensor product (size 3, scale Δ_a·Δ_b); relinearize next.
  [[nodiscard]] Ciphertext multiply(const Ciphertext& a, const Ciphertext& b) const;
  /// multiply then relinearize.
  [[nodiscard]] Ciphertext multiply_relin(const Ciphertext& a, const Ciphertext& b) const;
  [[nodiscard]] Ciphertext relinearize(const Ciphertext& a) const;
  [[nodiscard]] Ciphertext multiply_plain(const Ciphertext& a, const Plaintext& p) const;
  /// Multiplies every slot by c, encoded at `const_scale` (0 = the ciphertext's last prime q_l,
  /// so that the following rescale restores the scale exactly). Scale becomes Δ·const_scale.
  [[nodiscard]] Ciphertext multiply_const(const Ciphertext& a, std::complex<double> c,
                                          double const_scale = 0) const;
  /// Multiplies by an integer (exact; scale unchanged).
  [[nodiscard]] Ciphertext multiply_integer(const Ciphertext& a, std::int64_t c) const;

  /// Divides by the last prime q_l: level l → l − 1, scale Δ → Δ/q_l (rounded division).
  [[nodiscard]] Ciphertext rescale(const Ciphertext& a) const;
  void rescale_inplace(Ciphertext& a) const;
  /// Drops primes down to `level` (≤ the current level, checked) without dividing: scale kept.
  [[nodiscard]] Ciphertext drop_to_level(const Ciphertext& a, std::size_t level) const;

  /// Slot rotation to the left by `step` (negative: right), with the Galois key for
  /// 5^step mod 2N (InvalidParameter naming the step when it is missing).
  [[nodiscard]] Ciphertext rotate(const Ciphertext& a, std::int64_t step) const;
  /// The slots rotated left by each of `steps`, hoisted: c_1's ModUp is made once for all of them
  /// (rlwe::apply_galois_hoisted), so k rotations cost less than k calls of rotate; result r is
  /// the ciphertext rotate(a, steps[r]) gives, word for word (a step of 0 mod N/2: a copy of a).
  /// Every key is checked (InvalidParameter naming the first missing step) before any work.
  [[nodiscard]] std::vector<Ciphertext> rotate_many(const Ciphertext& a,
                                                    std::span<const std::int64_t> steps) const;
  /// Whether rotate(·, step) can run: a step of 0 mod N/2, or the Galois key of 5^step is held.
  [[nodiscard]] bool can_rotate(std::int64_t step) const;
  /// Complex conjugation of every slot (Galois element 2N − 1).
  [[nodiscard]] Ciphertext conjugate(const Ciphertext& a) const;
  /// x → x^k followed by key switching back to s.
  [[nodiscard]] Ciphertext apply_galois(const Ciphertext& a, std::uint64_t k) const;

 private:
  void check_params(const Ciphertext& a, const char* op) const;
  void check_pair(const Ciphertext& a, const Ciphertext& b, const char* op) const;
  void check_plain(const Ciphertext& a, const Plaintext& p, const char* op) const;
  /// Same parameters and a prime left to divide by (level ≥ 1).
  void check_rescalable(const Ciphertext& a) const;
  /// Same parameters and level, size 2, and room for the product's scale.
  void check_product(const Ciphertext& a, const Ciphertext& b, const char* op) const;
  /// The Galois element of a rotation by `step` (1 for a step of 0 mod N/2), its key checked
  /// present: InvalidParameter naming `op`, the step and the element otherwise.
  [[nodiscard]] std::uint64_t rotation_element(std::int64_t step, const char* op) const;
  /// The residues of round(v) mod q_0..q_{limbs−1}, exactly for any finite double.
  [[nodiscard]] std::vector<std::uint64_t> residues(double v, std::size_t limbs) const;
  /// The two slot values of a + b·X^{N/2} under q_i (a, b residues): slots j < N/2 and the rest.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> constant_slots(std::uint64_t re,
                                                                       std::uint64_t im,
                                                                       std::size_t i) const;
  /// Adds c·scale, encoded as a + b·X^{N/2}, to every slot of c_0.
  void add_scaled_const(Ciphertext& ct, std::complex<double> c, double scale) const;

  ParametersPtr params_;
  std::shared_ptr<const rlwe::KeySwitchKey> relin_;
  std::shared_ptr<const rlwe::GaloisKeys> galois_;
};

}  // namespace polyhe::ckks
