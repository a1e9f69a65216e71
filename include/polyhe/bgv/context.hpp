// The context of the integer schemes: rlwe parameters, a plaintext modulus t and the scheme — BGV,
// or BFV as BGV's scale-invariant mode (as Lattigo does: one context, one evaluator,
// bgv/bgv.hpp). The plaintext m ∈ Z_t[x]/(x^N + 1) (or Z_t[X]/Φ_m for odd m, BGV only) is what the
// encoders of bgv/encoder.hpp and bgv/slots.hpp produce and read.
//
// BFV (Scheme::bfv, Brakerski / Fan–Vercauteren) keeps m in the top bits of the ciphertext,
// [c_0 + c_1·s]_{Q_l} = round(Q_l·m/t) + v, and decryption rounds t·x/Q_l (BEHZ with the
// redundant prime γ, as SEAL: rns/decrypt_rounder.hpp). Its multiplication is the HPS tensoring
// (Halevi–Polyakov–Shoup 2018): both ciphertexts are lifted exactly from Q_l to Q_l ∪ R (R an
// auxiliary basis with R > 4·t·N·Q_l), multiplied there, scaled by t/Q_l and rounded into R
// (rns/scale_rounder.hpp), and lifted back exactly from R to Q_l. HPS rather than BEHZ because its
// only approximation is one double-precision sum with a proved bound, where BEHZ needs the
// Shenoy–Kumaresan correction with an extra modulus and a second approximate conversion (BEHZ
// §4.3), and HPS's exact conversions are the ones the rlwe layer already has. These per-level
// tables (Level, aux_ring) are built for Scheme::bfv only: a BGV context has none.
//
// BGV (Scheme::bgv) keeps m in the low bits with noise a multiple of t (bgv/bgv.hpp describes its
// invariant); it needs no tables beyond the encoders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "polyhe/bgv/encoder.hpp"
#include "polyhe/bgv/slots.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/rlwe/ciphertext.hpp"
#include "polyhe/rlwe/keys.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/decrypt_rounder.hpp"
#include "polyhe/rns/scale_rounder.hpp"

namespace polyhe::bgv {

using rlwe::Ciphertext;

/// The integer scheme of a context: BGV (m in the low bits, noise a multiple of t, modulus
/// switching) or BFV, BGV's scale-invariant mode (m scaled by Q/t into the top bits, HPS
/// multiplication, x^N + 1 only).
enum class Scheme { bgv, bfv };

/// "bgv", "bfv".
[[nodiscard]] std::string_view to_string(Scheme scheme);

/// A plaintext of BFV/BGV: the N coefficients of m ∈ Z_t[x]/(x^N + 1) (or the φ(m) powerful-basis
/// coordinates over Φ_m), each in [0, t) (what the encoders of bgv/encoder.hpp produce and read).
struct Plaintext {
  std::vector<std::uint64_t> coeffs;
};

class Encryptor;  // bgv/bgv.hpp, with the decryptor and the evaluator
class Decryptor;
class Evaluator;

/// The rlwe parameters with a plaintext modulus t and a scheme, and (BFV) everything BFV
/// precomputes per level; and the factory of everything that works under them, in the same
/// shape as ckks::Context's:
///
///     auto ctx = bgv::Context::create(rlwe::Parameters::create(lit), t);  // or Scheme::bfv
///     rlwe::KeyGenerator keygen = ctx->key_generator();
///     const rlwe::SecretKey sk = keygen.secret_key();
///     const bgv::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk));
///     const bgv::Decryptor decryptor = ctx->decryptor(sk);
///     const bgv::Evaluator eval = ctx->evaluator(keygen.relinearization_key(sk));
///
/// (the objects are bgv/bgv.hpp's: include it, or polyhe/bgv.hpp, to call the factories).
/// Immutable; held through std::shared_ptr<const Context>. Threads: may be shared by any number
/// of threads (the one lazily built member, slot_encoder(), is built under std::call_once).
class Context : public std::enable_shared_from_this<Context> {
 public:
  /// Validates (InvalidParameter naming the value): t as PlaintextModulus (2 ≤ t < 2^60); no
  /// prime of Q divides t (decryption needs Q^−1 mod t); over Φ_m, t coprime to m. Scheme::bfv
  /// over Φ_m (odd m) is refused (BFV's HPS multiplication serves x^N + 1 only: use BGV). BFV
  /// only: generates the auxiliary NTT primes of R (≡ 1 mod 2N, none of Q ∪ P; 50 bits when Q's
  /// primes have at most 50, so that the IFMA52 conversion kernels serve every conversion, else
  /// 60) and the tables of every level.
  static std::shared_ptr<const Context> create(rlwe::ParametersPtr params, std::uint64_t t,
                                               Scheme scheme = Scheme::bgv);

  [[nodiscard]] Scheme scheme() const { return scheme_; }
  [[nodiscard]] const rlwe::ParametersPtr& params() const { return params_; }
  [[nodiscard]] std::size_t n() const;
  [[nodiscard]] const PlaintextModulus& t() const { return t_; }
  /// Batching: slots of x^N + 1 with t ≡ 1 mod 2N. Never for odd m: Φ_m's slots (GF(p^d), GR(p^r,
  /// d)) are slot_encoder()'s, and plaintexts are powerful-basis coordinates.
  [[nodiscard]] bool batching() const { return batch_.has_value(); }
  /// InvalidParameter naming t and 2N when t does not support batching (or the ring is Φ_m).
  [[nodiscard]] const BatchEncoder& batch_encoder() const;
  [[nodiscard]] const CoefficientEncoder& coefficient_encoder() const { return coeff_; }
  /// Odd m: the slots of Z_t[X]/Φ_m (bgv/slots.hpp), built on first use (once, thread-safe).
  /// InvalidParameter for x^N + 1 (its slots are batch_encoder()'s) or a t that SlotEncoder
  /// refuses (not a prime power, order above its limit), naming the rule.
  [[nodiscard]] const SlotEncoder& slot_encoder() const;

  /// Slots in and out, shaped as ckks::Context: over x^N + 1 the batch encoder's N slots (t ≡ 1
  /// mod 2N; InvalidParameter naming t and 2N otherwise), over Φ_m the slot encoder's (each slot
  /// d coordinates of E = GF(p^d) or GR(p^r, d)). Values in [0, t), or signed in [−t/2, t/2) — the
  /// encoders' checks and messages. For coefficients rather than slots, use coefficient_encoder().
  [[nodiscard]] Plaintext encode(std::span<const std::uint64_t> values) const;
  [[nodiscard]] Plaintext encode(std::span<const std::int64_t> values) const;
  [[nodiscard]] std::vector<std::uint64_t> decode(const Plaintext& pt) const;
  /// The same as signed values in [−t/2, t/2).
  [[nodiscard]] std::vector<std::int64_t> decode_signed(const Plaintext& pt) const;

  /// BFV's tables at level l (0 ≤ l ≤ L): Δ_l = ⌊Q_l/t⌋ mod q_i, r_l = Q_l mod t, decryption
  /// rounding, and the HPS multiplication machinery over the first `aux` primes of R.
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
  /// BFV only: InvalidParameter for a BGV context (it builds no BFV tables) and std::out_of_range
  /// above L.
  [[nodiscard]] const Level& level(std::size_t l) const;
  /// BFV only (InvalidParameter for BGV): the ring of R's primes (their NTT plans); level l uses
  /// its first level(l).aux limbs.
  [[nodiscard]] const std::shared_ptr<const RingContext>& aux_ring() const;

  /// A key generator of these parameters: fresh operating-system seeds, or with `master_seed`
  /// reproducible (whoever knows that seed knows every key).
  [[nodiscard]] rlwe::KeyGenerator key_generator() const;
  [[nodiscard]] rlwe::KeyGenerator key_generator(const Seed& master_seed) const;

  /// An encryptor of the public key (or, given the secret key, a symmetric one), which it keeps:
  /// a key passed by value is moved in (pass std::move(key), or a temporary, to avoid a copy);
  /// a shared key is shared. `seed` as rlwe::Encryptor's. MismatchedContext for a key of other
  /// parameters; InvalidParameter for a null one.
  [[nodiscard]] Encryptor encryptor(rlwe::PublicKey pk, std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(std::shared_ptr<const rlwe::PublicKey> pk,
                                    std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(rlwe::SecretKey sk, std::optional<Seed> seed = {}) const;
  [[nodiscard]] Encryptor encryptor(std::shared_ptr<const rlwe::SecretKey> sk,
                                    std::optional<Seed> seed = {}) const;

  /// A decryptor keeping the secret key (a copy given by value is wiped with it, as every
  /// SecretKey is; a shared key is shared). MismatchedContext for a key of other parameters;
  /// InvalidParameter for a null one.
  [[nodiscard]] Decryptor decryptor(rlwe::SecretKey sk) const;
  [[nodiscard]] Decryptor decryptor(std::shared_ptr<const rlwe::SecretKey> sk) const;

  /// An evaluator keeping the relinearisation key and the Galois keys (moved in when given by
  /// value, shared when shared; either may be absent: multiply_relin needs the first, rotations
  /// the second). MismatchedContext for keys of other parameters.
  [[nodiscard]] Evaluator evaluator() const;
  [[nodiscard]] Evaluator evaluator(rlwe::KeySwitchKey relin) const;
  [[nodiscard]] Evaluator evaluator(rlwe::KeySwitchKey relin, rlwe::GaloisKeys galois) const;
  [[nodiscard]] Evaluator evaluator(std::shared_ptr<const rlwe::KeySwitchKey> relin,
                                    std::shared_ptr<const rlwe::GaloisKeys> galois = nullptr) const;

 private:
  Context(rlwe::ParametersPtr params, std::uint64_t t, Scheme scheme);
  void build_bfv_tables();
  void require_bfv(const char* what) const;

  rlwe::ParametersPtr params_;
  PlaintextModulus t_;
  Scheme scheme_;
  CoefficientEncoder coeff_;
  std::optional<BatchEncoder> batch_;
  mutable std::once_flag slots_once_;
  mutable std::shared_ptr<const SlotEncoder> slots_;
  std::shared_ptr<const RingContext> aux_ring_;  // BFV only
  std::vector<Level> levels_;                    // BFV only
};

using ContextPtr = std::shared_ptr<const Context>;

}  // namespace polyhe::bgv
