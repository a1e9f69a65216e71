// The CKKS encoder: complex slot vectors <-> plaintext polynomials of Z_Q[x]/(x^N + 1) through the
// canonical embedding, computed with the "special FFT" (Cheon–Kim–Kim–Song, HEAAN; SEAL).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/shoup.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/rns/mixed_radix.hpp"
#include "polyhe/rns/wide_reduce.hpp"

namespace polyhe::ckks {

/// Encodes N/2 complex slots into Z[x]/(x^N+1) through the canonical embedding: slot j holds
/// m(ζ^{5^j mod 2N}), ζ = exp(iπ/N), j = 0..N/2−1. With this order the automorphism x → x^5
/// rotates the slots left by one (slot j of the result = slot j+1 of the input, cyclically) and
/// x → x^{2N−1} conjugates every slot — the evaluator relies on exactly this (rotation by r uses
/// k = 5^r mod 2N, r may be negative: k = 5^{r mod N/2}).
///
/// Why: σ_k(m)(x) = m(x^k), so slot j of σ_5(m) is m((ζ^{5^j})^5) = m(ζ^{5^{j+1}}), slot j + 1 of
/// m; 5 has order N/2 mod 2N, hence the rotation is cyclic. σ_{2N−1}(m)(ζ^g) = m(ζ^{−g}) =
/// conj(m(ζ^g)) because m has real coefficients. The exponents ±5^j mod 2N (j < N/2) are all the
/// odd residues mod 2N, so the N/2 slots and their conjugates are the whole canonical embedding.
///
/// Immutable after construction; every table (twiddles, bit reversal, CRT constants) is built once.
/// Thread-safe: encode/decode only read the tables.
class Encoder {
 public:
  /// Builds the tables for the context (any N ≥ 2 it serves; N/2 slots).
  explicit Encoder(std::shared_ptr<const RingContext> context);

  [[nodiscard]] const std::shared_ptr<const RingContext>& context() const { return context_; }
  /// N/2.
  [[nodiscard]] std::size_t slots() const { return slots_; }

  /// out: any RnsPoly of this context (MismatchedContext otherwise); its limb count is the level
  /// and its content is replaced. values.size() ≤ slots() (InvalidParameter otherwise); missing
  /// slots are zero; every value finite (InvalidParameter naming the index); scale > 0 and
  /// finite. The coefficients are round(scale · special_ifft(values)) (real parts in 0..N/2−1,
  /// imaginary parts in N/2..N−1); one whose magnitude reaches Q_l/2 (Q_l the product of out's
  /// primes) throws InvalidParameter and leaves out untouched. Exact for every coefficient that
  /// fits (also beyond 2^63). out ends in evaluation form.
  void encode(std::span<const std::complex<double>> values, double scale, RnsPoly& out) const;
  /// The same for real values (every slot's imaginary part zero).
  void encode(std::span<const double> values, double scale, RnsPoly& out) const;

  /// The slots of p / scale (p in either form, of this context; it is not modified). Each
  /// coefficient is reconstructed centred mod Q_l exactly, then rounded to double; scale > 0 and
  /// finite. A coefficient below 2^125 or so in magnitude (every coefficient of a
  /// decryption that has not overflowed, in practice) costs O(L) word products: it is
  /// reconstructed from the first primes and checked against every other one; larger ones take
  /// the full O(L²) reconstruction.
  [[nodiscard]] std::vector<std::complex<double>> decode(const RnsPoly& p, double scale) const;
  /// The real parts of decode(p, scale).
  [[nodiscard]] std::vector<double> decode_real(const RnsPoly& p, double scale) const;

  /// The special FFT, in place on slots() values (InvalidParameter for another size): w → z with
  /// z_j = Σ_{k<N/2} w_k ζ^{5^j·k}. With w_k = m_k + i·m_{k+N/2} this is the canonical embedding
  /// of m (decode direction). O(N log N).
  void special_fft(std::span<std::complex<double>> values) const;
  /// Its inverse, z → w (encode direction), in place on slots() values.
  void special_ifft(std::span<std::complex<double>> values) const;

 private:
  // Per level l (limbs = l + 1): how decode reconstructs and the encode bound.
  struct Level {
    int product_bits;  // len(Q_l)
    double max_coeff;  // the largest double ≤ (Q_l − 1)/2: |c| ≤ max_coeff ⇔ |c| < Q_l/2
  };

  void check_context(const RnsPoly& p, const char* op) const;
  // values (slots() of them, already validated) → coefficients → out; consumes values.
  void encode_buffer(std::vector<std::complex<double>>& values, double scale, RnsPoly& out) const;
  // The centred coefficients of p (coefficient form) divided by scale.
  void reconstruct(const RnsPoly& p, double scale, std::span<double> coeffs) const;
  template <bool kInverse>
  void transform(std::span<std::complex<double>> values) const;

  std::shared_ptr<const RingContext> context_;
  std::size_t slots_;
  MixedRadix mixed_radix_;  // the digits of a coefficient over the level's primes
  // Stage twiddles: twiddles_[h + j] = ζ^{(5^j mod 8h)·(N/4h)} for the stage of half-length h
  // (h = 1, 2, 4, …, N/4) and j < h; the inverse uses their conjugates.
  std::vector<std::complex<double>> twiddles_;
  std::vector<std::uint32_t> bit_reverse_;  // bit reversal on log2(N/2) bits
  std::vector<Level> levels_;
  // The short reconstruction: the first prefix_limbs_ primes (their product below 2^126), and
  // per prime 1 as a Shoup operand and the 128-bit Barrett constants (to reduce the candidate).
  std::size_t prefix_limbs_ = 1;
  std::vector<ShoupOperand<std::uint64_t>> one_;
  std::vector<WideBarrett> wide_;
};

}  // namespace polyhe::ckks
