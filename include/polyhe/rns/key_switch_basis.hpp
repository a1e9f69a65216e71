// Hybrid key switching's RNS side: the digit decomposition of Q = q_0..q_L into dnum digits,
// ModUp of one digit to Q_l ∪ P and ModDown from Q_l ∪ P back to Q_l ([RNS-CKKS-GPU, Alg. 7/17]
// and [RNS-CKKS-GPU, Alg. 8/18]; Han–Ki hybrid key switching, [HK20]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/basis.hpp"

namespace polyhe {

/// How ModDown divides by P (x ∈ [0, Q_l·P), k = |P| special primes).
enum class ModDownMode {
  /// [RNS-CKKS-GPU, Alg. 8] as written: (x_Q − FastBConv(x_P → Q_l))·P^−1 = ⌊x/P⌋ − u with 0 ≤ u <
  /// k (the approximate conversion's overshoot; for k = 1 it is exact).
  floor,
  /// ⌊P/2⌋ added first (to the P limbs before the conversion; its share ⌊P/2⌋·P^−1 mod q_i added
  /// after): ⌊(x + ⌊P/2⌋)/P⌋ − u = round(x/P) − u, 0 ≤ u < k.
  round,
  /// x_P converted exactly, centred (BaseConverter::convert_exact):
  /// (x − [x]_P^centred)/P = round(x/P), exact unless x mod P lies within
  /// P·exact_error_bound() of P/2, where it may be off by one.
  round_exact,
};

/// Q = q_0..q_L (the ciphertext primes, level l using Q_l = q_0..q_l), special primes
/// P = p_0..p_{k−1} and dnum: digit j covers the α = ⌈(L+1)/dnum⌉ consecutive primes
/// q_{jα}..q_{min((j+1)α, L+1)−1}; at level l the digits are those of Q_l (the last one maybe
/// shorter, ⌈(l+1)/α⌉ of them). Every converter is built once here and shared by copies.
///
/// Layout: a polynomial over Q_l ∪ P holds l + 1 + k limbs, Q_l's first (limb i under q_i),
/// then P's (limb l + 1 + r under p_r); limb-major, N words each, coefficient form.
///
/// Noise/security is the caller's business: no rule P ≥ max digit modulus is enforced, but
/// digit_modulus_bits and special_modulus_bits report both sides.
class KeySwitchBasis {
 public:
  /// Throws InvalidParameter unless 1 ≤ dnum ≤ L + 1 and Q, P share no prime.
  KeySwitchBasis(RnsBasis q, RnsBasis p, std::size_t dnum);

  [[nodiscard]] const RnsBasis& q() const { return impl_->q; }
  [[nodiscard]] const RnsBasis& p() const { return impl_->p; }
  [[nodiscard]] std::size_t max_level() const { return impl_->q.size() - 1; }  // L
  [[nodiscard]] std::size_t dnum() const { return impl_->dnum; }
  [[nodiscard]] std::size_t alpha() const { return impl_->alpha; }
  /// ⌈(l+1)/α⌉, the digits at level l.
  [[nodiscard]] std::size_t digit_count(std::size_t level) const;
  /// The primes of digit j at level l (a range of Q).
  [[nodiscard]] const RnsBasis& digit(std::size_t level, std::size_t j) const;
  /// len(Π digit j's primes) at the top level L.
  [[nodiscard]] int digit_modulus_bits(std::size_t j) const;
  /// The largest of those: P must exceed it (in bits, plus the noise budget) for key switching
  /// to add little noise — the caller's check.
  [[nodiscard]] int max_digit_modulus_bits() const;
  /// len(P).
  [[nodiscard]] int special_modulus_bits() const { return impl_->p.product_bits(); }

  /// ModUp ([RNS-CKKS-GPU, Alg. 7]): in holds digit j's limbs at level l (|digit|·N words); out
  /// receives (l + 1 + k)·N words over Q_l ∪ P: the digit's limbs copied, every other limb the
  /// approximate FastBConv of the digit, so out ≡ x + u·D_j (0 ≤ u < |digit|, D_j the digit's
  /// modulus) on every limb. in and out must not overlap. Threads as in BaseConverter.
  void mod_up(std::size_t level, std::size_t j, std::span<const std::uint64_t> in,
              std::span<std::uint64_t> out, unsigned threads = 0) const;

  /// ModUp of the centred representative: the other limbs receive x_c mod c, x_c ∈ (−D_j/2, D_j/2]
  /// the centred residue of the digit (BaseConverter::convert_exact, exact but for inputs within
  /// D_j·exact_error_bound() of ±D_j/2, which may land on x_c ∓ D_j). Key switching uses this: an
  /// uncentred lift has mean ≈ D_j/2 on every coefficient, i.e. (D_j/2)·(1 + x + … + x^{N−1}),
  /// whose product with the key's error concentrates on the CKKS slots near ζ = 1.
  void mod_up_centred(std::size_t level, std::size_t j, std::span<const std::uint64_t> in,
                      std::span<std::uint64_t> out, unsigned threads = 0) const;

  /// ModDown ([RNS-CKKS-GPU, Alg. 8]): in holds (l + 1 + k)·N words over Q_l ∪ P; out receives (l +
  /// 1)·N words over Q_l, x/P rounded as `mode` says. out may not overlap in.
  void mod_down(std::size_t level, std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                ModDownMode mode = ModDownMode::floor, unsigned threads = 0) const;
  /// The converter mod_up_centred uses for digit j at level l (digit j's primes → the other
  /// primes of Q_l and P) and the positions of its targets in the Q_l ∪ P layout; the device
  /// backends upload its tables and run the same conversion. Checked as digit().
  [[nodiscard]] const BaseConverter& up_converter(std::size_t level, std::size_t j) const;
  [[nodiscard]] std::span<const std::size_t> up_limbs(std::size_t level, std::size_t j) const;

 private:
  struct Level {
    std::vector<RnsBasis> digits;
    std::vector<BaseConverter> up;                   // digit j → (Q_l minus digit j) ∪ P
    std::vector<std::vector<std::size_t>> up_limbs;  // their output positions in Q_l ∪ P
    BaseConverter down;                              // P → Q_l
  };
  struct Impl {
    RnsBasis q;
    RnsBasis p;
    std::size_t dnum;
    std::size_t alpha;
    std::vector<Level> levels;
    std::vector<ShoupOperand<std::uint64_t>> p_inv;  // P^−1 mod q_i, i ≤ L
    std::vector<std::uint64_t> half_p_inv;           // ⌊P/2⌋·P^−1 mod q_i
    std::vector<std::uint64_t> half_p;               // ⌊P/2⌋ mod p_r
  };
  void check_level(std::size_t level, const char* what) const;
  void mod_up_impl(std::size_t level, std::size_t j, std::span<const std::uint64_t> in,
                   std::span<std::uint64_t> out, bool centred, unsigned threads) const;

  std::shared_ptr<const Impl> impl_;
};

}  // namespace polyhe
