// RnsBasis: an ordered set of distinct primes q_0..q_{k−1} with the CRT constants of
// Q = q_0·…·q_{k−1}, validated once and shared by every view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/shoup.hpp"

namespace polyhe {

namespace detail {
struct BigCrt;  // Q and q̂_i as big integers: rns/bigint.hpp reads them
}  // namespace detail

/// An RNS basis: distinct primes of at most kMaxBits bits, in the caller's order (limb i of an
/// RNS polynomial over this basis is the residue mod q_i). A cheap value: copies, prefixes and
/// ranges share the prime table through `std::shared_ptr<const …>`; a prefix or range carries its
/// own CRT constants (they depend on the set: q̂_i = Q/q_i), computed once when it is made.
///
/// CRT: x ≡ Σ_i [x_i·q̂_i^−1]_{q_i}·q̂_i (mod Q), with q̂_i = Q/q_i and q̂_i^−1 its inverse mod q_i.
class RnsBasis {
 public:
  /// Primes wider than this are refused: the Shoup products and the 128-bit lazy accumulation
  /// of base conversion (rns/base_converter.hpp) and the element-wise kernels need len(q) ≤ 62.
  static constexpr int kMaxBits = 62;
  /// The most primes a basis holds, checked before anything is computed: the CRT constants take
  /// O(size²) words (q̂_i has size − 1 words), 4 MB at this limit. Twice rlwe::kMaxPrimes and
  /// more, so that BFV's auxiliary basis (Q, B, m_sk: 2(L+1) + 1 primes) always fits.
  static constexpr std::size_t kMaxPrimes = 256;

  /// Validates (InvalidParameter naming the offending value): 1 to kMaxPrimes primes; each one
  /// prime and at most kMaxBits bits; no prime twice.
  explicit RnsBasis(std::span<const std::uint64_t> primes);
  explicit RnsBasis(const std::vector<std::uint64_t>& primes)
      : RnsBasis(std::span<const std::uint64_t>(primes)) {}

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::uint64_t prime(std::size_t i) const { return modulus(i).value(); }
  [[nodiscard]] const Modulus<std::uint64_t>& modulus(std::size_t i) const {
    return (*table_)[offset_ + i];
  }
  /// The moduli in basis order (the form vec:: limb operations take).
  [[nodiscard]] std::span<const Modulus<std::uint64_t>> moduli() const {
    return std::span<const Modulus<std::uint64_t>>(*table_).subspan(offset_, size_);
  }
  [[nodiscard]] std::vector<std::uint64_t> primes() const;

  /// len(Q), Q = Π q_i. Q itself and q̂_i = Q/q_i as big integers: big_product and big_q_hat
  /// (rns/bigint.hpp, GMP).
  [[nodiscard]] int product_bits() const { return crt_->product_bits; }
  /// q̂_i^−1 mod q_i with its Shoup companion.
  [[nodiscard]] ShoupOperand<std::uint64_t> q_hat_inverse(std::size_t i) const {
    return crt_->q_hat_inv[i];
  }
  /// q̂_i^−1 mod q_i for every i (one RNS constant: the scalars of vec::multiply_scalar).
  [[nodiscard]] std::span<const std::uint64_t> q_hat_inverses() const {
    return crt_->q_hat_inv_words;
  }
  /// q̂_i mod m for any modulus m ≥ 1 (host-side, for building tables; not for inner loops).
  [[nodiscard]] std::uint64_t q_hat_mod(std::size_t i, std::uint64_t m) const;
  /// Q mod m for any m ≥ 1.
  [[nodiscard]] std::uint64_t product_mod(std::uint64_t m) const;

  /// The first `count` primes (a level: Q_l = prefix(l + 1)). Requires 1 ≤ count ≤ size().
  [[nodiscard]] RnsBasis prefix(std::size_t count) const { return range(0, count); }
  /// Primes [begin, begin + count) (a digit). Requires count ≥ 1 and the range inside the basis.
  [[nodiscard]] RnsBasis range(std::size_t begin, std::size_t count) const;
  /// The primes of a followed by those of b; InvalidParameter if a prime is in both.
  [[nodiscard]] static RnsBasis concat(const RnsBasis& a, const RnsBasis& b);
  /// Index of prime q in this basis, or size() when absent.
  [[nodiscard]] std::size_t find(std::uint64_t q) const;

  friend bool operator==(const RnsBasis& a, const RnsBasis& b);

  /// The big-integer constants (opaque here; rns/bigint.hpp's big_product and big_q_hat).
  [[nodiscard]] const detail::BigCrt& big_crt() const { return *crt_->big; }

 private:
  struct Crt {
    std::shared_ptr<const detail::BigCrt> big;
    int product_bits = 0;
    std::vector<ShoupOperand<std::uint64_t>> q_hat_inv;
    std::vector<std::uint64_t> q_hat_inv_words;
  };
  using Table = std::vector<Modulus<std::uint64_t>>;

  RnsBasis(std::shared_ptr<const Table> table, std::size_t offset, std::size_t size);
  static std::shared_ptr<const Crt> make_crt(std::span<const Modulus<std::uint64_t>> moduli);

  std::shared_ptr<const Table> table_;
  std::size_t offset_;
  std::size_t size_;
  std::shared_ptr<const Crt> crt_;
};

}  // namespace polyhe
