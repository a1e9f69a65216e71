// The plaintext modulus t of BFV/BGV and the two integer encoders: CoefficientEncoder (values are
// the coefficients of m ∈ Z_t[x]/(x^N + 1)) and BatchEncoder (values are the evaluations of m at
// the N primitive 2N-th roots of unity mod t, arranged as a 2 × N/2 matrix of slots).
//
// Both produce and read plain coefficient vectors: N words, each fully reduced in [0, t). Lifting
// them to Z_Q (BFV's ⌊Q/t⌉ scaling, BGV's plain lift) is the scheme's business, not theirs.
//
// Signed values. Every t has the centred range
//     [signed_min, signed_max] = [−⌊t/2⌋, ⌈t/2⌉ − 1],
// i.e. |v| ≤ (t − 1)/2 for odd t and [−t/2, t/2) for even t: exactly one representative of each
// residue. Encoding maps v to v mod t; decoding maps x ∈ [0, t) to x − t when x ≥ ⌈t/2⌉ and to x
// otherwise, so signed decode(encode(v)) = v on the whole range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/ring/context.hpp"

namespace polyhe::bgv {

/// The plaintext modulus t, validated: 2 ≤ t < 2^60 (InvalidParameter naming t and the rule
/// otherwise). 60 bits keeps t two bits inside what the arithmetic layer serves (Modulus and
/// NttPlan take up to 62 bits), so a sum of two residues never leaves the lazy ranges.
/// Any t in range is a valid coefficient modulus; batching needs more (supports_batching).
class PlaintextModulus {
 public:
  static constexpr int kMaxBits = 60;  // t < 2^kMaxBits

  explicit PlaintextModulus(std::uint64_t t);

  [[nodiscard]] std::uint64_t value() const { return t_; }
  /// len(t).
  [[nodiscard]] int bits() const { return bits_; }
  /// −⌊t/2⌋ and ⌈t/2⌉ − 1: the centred range of signed values (see the top of this file).
  [[nodiscard]] std::int64_t signed_min() const { return -static_cast<std::int64_t>(t_ / 2); }
  [[nodiscard]] std::int64_t signed_max() const {
    return static_cast<std::int64_t>(t_ - t_ / 2) - 1;
  }
  [[nodiscard]] bool in_signed_range(std::int64_t v) const {
    return v >= signed_min() && v <= signed_max();
  }
  /// v mod t in [0, t). Precondition: in_signed_range(v) (unchecked; the encoders check).
  [[nodiscard]] std::uint64_t from_signed(std::int64_t v) const {
    return static_cast<std::uint64_t>(v) + (v < 0 ? t_ : 0);  // wraps mod 2^64 to t + v
  }
  /// The centred representative of x: x − t when x ≥ ⌈t/2⌉, else x. Precondition: x < t.
  [[nodiscard]] std::int64_t to_signed(std::uint64_t x) const {
    return static_cast<std::int64_t>(x) - (x >= t_ - t_ / 2 ? static_cast<std::int64_t>(t_) : 0);
  }
  /// supports_batching(value(), n).
  [[nodiscard]] bool supports_batching(std::size_t n) const;

  friend bool operator==(const PlaintextModulus&, const PlaintextModulus&) = default;

 private:
  std::uint64_t t_;
  int bits_;
};

/// Throws InvalidParameter naming t unless 2 ≤ t < 2^60.
void check_plaintext_modulus(std::uint64_t t);

/// Whether the BatchEncoder serves (n, t): n a power of two in [2, 2^17] (the ring degrees of
/// RingContext), 2 ≤ t < 2^60, t prime and t ≡ 1 mod 2n (then x^N + 1 splits into N distinct
/// linear factors mod t). Never throws.
[[nodiscard]] bool supports_batching(std::uint64_t t, std::size_t n);

/// Throws InvalidParameter unless supports_batching(t, n); the message names n or t, 2N and the
/// broken rule, and points to CoefficientEncoder.
void check_batching(std::uint64_t t, std::size_t n);

/// Values ↔ coefficients: value i is the coefficient of x^i (for Φ_m with odd m, the i-th
/// powerful-basis coordinate: RingContext). Immutable, thread-safe.
///
/// Errors (InvalidParameter, naming the offending value): N outside [2, 2^17] (2^k, or φ(m)) or t
/// invalid (constructor); more than N values; an unsigned value ≥ t or a signed value outside
/// [signed_min, signed_max] (the message names its index and value); an output span whose size is
/// not N; a coefficient to decode ≥ t (index and value) or a coefficient vector whose size is not
/// N. On an error the output is left untouched.
class CoefficientEncoder {
 public:
  CoefficientEncoder(std::size_t n, std::uint64_t t);

  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] std::uint64_t t() const { return t_.value(); }
  [[nodiscard]] const PlaintextModulus& plaintext_modulus() const { return t_; }

  /// out[i] = values[i] for i < values.size(), 0 beyond. values.size() ≤ N, each < t;
  /// out.size() == N. out may alias values.
  void encode(std::span<const std::uint64_t> values, std::span<std::uint64_t> out) const;
  /// out[i] = values[i] mod t; each value in the signed range.
  void encode(std::span<const std::int64_t> values, std::span<std::uint64_t> out) const;
  [[nodiscard]] std::vector<std::uint64_t> encode(std::span<const std::uint64_t> values) const;
  [[nodiscard]] std::vector<std::uint64_t> encode(std::span<const std::int64_t> values) const;

  /// The N coefficients, in [0, t) (a copy, after checking them).
  void decode(std::span<const std::uint64_t> coeffs, std::span<std::uint64_t> out) const;
  /// The N coefficients, centred (to_signed).
  void decode_signed(std::span<const std::uint64_t> coeffs, std::span<std::int64_t> out) const;
  [[nodiscard]] std::vector<std::uint64_t> decode(std::span<const std::uint64_t> coeffs) const;
  [[nodiscard]] std::vector<std::int64_t> decode_signed(
      std::span<const std::uint64_t> coeffs) const;

 private:
  std::size_t n_;
  PlaintextModulus t_;
};

/// Values ↔ coefficients through the CRT isomorphism Z_t[x]/(x^N + 1) ≅ Z_t^N (t prime,
/// t ≡ 1 mod 2N): slot-wise addition and multiplication of the values are addition and
/// multiplication of the polynomials.
///
/// Slot layout: the N slots form a 2 × N/2 matrix; slot index i = r·N/2 + c (row r ∈ {0, 1},
/// column c < N/2) holds m(ζ^{e(r,c)}) with
///     e(0, c) = 5^c mod 2N,    e(1, c) = 2N − (5^c mod 2N),
/// ζ = zeta() the smallest primitive 2N-th root of unity mod t (minimal_primitive_root(t, N), the
/// ψ of the ring's transform mod t). The e(r, c) are all the odd residues mod 2N, each once (5 has
/// order N/2 mod 2N and −1 is not a power of 5), so the slots are all N roots of x^N + 1.
///
/// Rotations (the same convention as ckks::Encoder and rlwe::galois_element_for_rotation):
///   σ_g: m(x) → m(x^g) with g = galois_element_for_rotation(N, s) = 5^s mod 2N rotates both
///   rows LEFT by s: slot (r, c) of σ_g(m) = slot (r, (c + s) mod N/2) of m. s may be negative
///   (a right rotation). Why: σ_g(m)(ζ^{±5^c}) = m(ζ^{±5^{c+s}}).
///   σ_{2N−1} (galois_element_for_conjugation(N)) swaps the rows: slot (r, c) of the result =
///   slot (1 − r, c) of m, since σ_{2N−1}(m)(ζ^e) = m(ζ^{−e}).
///
/// Computation: decode is the forward negacyclic NTT of Z_t[x]/(x^N + 1) (the RingContext of the
/// one prime t, which serves every t here: primes up to 62 bits, N up to 2^17) followed by a
/// gather, encode a scatter
/// followed by the inverse NTT; the NTT output index of slot i is precomputed in the constructor
/// (the NTT holds m(ψ^{2·br(j)+1}) at index j, so slot i sits at j = br((e(i) − 1)/2)).
///
/// Errors: as CoefficientEncoder (same messages, prefixed by BatchEncoder), plus the constructor's
/// InvalidParameter when !supports_batching(t, N) (check_batching's message). Immutable after
/// construction; thread-safe.
class BatchEncoder {
 public:
  BatchEncoder(std::size_t n, std::uint64_t t);

  [[nodiscard]] std::size_t n() const { return n_; }
  [[nodiscard]] std::uint64_t t() const { return t_.value(); }
  [[nodiscard]] const PlaintextModulus& plaintext_modulus() const { return t_; }
  /// N (2 rows of N/2).
  [[nodiscard]] std::size_t slot_count() const { return n_; }
  /// N/2, the length of a row (and the order of the rotation group).
  [[nodiscard]] std::size_t row_size() const { return n_ / 2; }
  /// ζ, the primitive 2N-th root of unity mod t that defines the slots.
  [[nodiscard]] std::uint64_t zeta() const { return zeta_; }
  /// The ring Z_t[x]/(x^N + 1) whose negacyclic transform the encoder runs (its ψ is zeta());
  /// shared, immutable.
  [[nodiscard]] const std::shared_ptr<const RingContext>& ring() const { return ring_; }

  /// Slot i = values[i] for i < values.size(), 0 beyond; each value < t; values.size() ≤ N;
  /// out.size() == N receives the coefficients in [0, t). out may alias values.
  void encode(std::span<const std::uint64_t> values, std::span<std::uint64_t> out) const;
  /// The same for signed values (each in the signed range, taken mod t).
  void encode(std::span<const std::int64_t> values, std::span<std::uint64_t> out) const;
  [[nodiscard]] std::vector<std::uint64_t> encode(std::span<const std::uint64_t> values) const;
  [[nodiscard]] std::vector<std::uint64_t> encode(std::span<const std::int64_t> values) const;

  /// The N slots of the polynomial with these N coefficients (each < t), in [0, t).
  void decode(std::span<const std::uint64_t> coeffs, std::span<std::uint64_t> out) const;
  /// The N slots, centred (to_signed).
  void decode_signed(std::span<const std::uint64_t> coeffs, std::span<std::int64_t> out) const;
  [[nodiscard]] std::vector<std::uint64_t> decode(std::span<const std::uint64_t> coeffs) const;
  [[nodiscard]] std::vector<std::int64_t> decode_signed(
      std::span<const std::uint64_t> coeffs) const;

 private:
  std::size_t n_;
  PlaintextModulus t_;
  std::shared_ptr<const RingContext> ring_;  // the one prime t
  std::uint64_t zeta_ = 0;
  std::vector<std::uint32_t> ntt_index_;  // slot i ↔ NTT index ntt_index_[i]
};

}  // namespace polyhe::bgv
