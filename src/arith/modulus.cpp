#include "polyhe/arith/modulus.hpp"

#include <bit>
#include <string>

#include "polyhe/core/error.hpp"

namespace polyhe {

std::string_view to_string(Reduction r) {
  switch (r) {
    case Reduction::barrett_classical: return "barrett-classical";
    case Reduction::barrett_dq: return "barrett-dq";
    case Reduction::barrett_alg4: return "barrett-alg4";
    case Reduction::montgomery: return "montgomery";
    case Reduction::montgomery_ntt: return "montgomery-ntt";
    case Reduction::shoup: return "shoup";
  }
  return "unknown";
}

namespace {

template <Word W>
std::string bits_message(W q, int bits, std::string_view algorithm, std::string_view rule) {
  return "q = " + std::to_string(q) + " (" + std::to_string(bits) +
         " bits) is outside the range of " + std::string(algorithm) + ": it requires " +
         std::string(rule) + " on " + std::to_string(word_bits<W>) + "-bit words";
}

/// ⌊2^e / q⌋ if it fits a word.
template <Word W>
std::optional<W> barrett_mu(int e, W q) {
  const u128 mu = (u128{1} << e) / q;
  if (mu > static_cast<u128>(static_cast<W>(~W{0}))) return std::nullopt;
  return static_cast<W>(mu);
}

/// q^−1 mod 2^β for odd q, by Newton's iteration (each step doubles the correct low bits).
template <Word W>
W inverse_mod_word(W q) {
  W x = q;  // correct to 3 bits: q·q ≡ 1 mod 8 for odd q
  for (int i = 0; i < 6; ++i) x *= W{2} - q * x;
  return x;
}

template <Word W>
W pow2_mod(int e, W q) {
  u128 r = 1 % q;
  for (int i = 0; i < e; ++i) r = (r * 2) % q;
  return static_cast<W>(r);
}

}  // namespace

template <Word W>
Modulus<W>::Modulus(W q) : q_(q), bits_(bit_length(q)) {
  constexpr int beta = word_bits<W>;
  // The Barrett quotient ⌊c·µ / 2^s⌋ as ⌊hi((c << pre)·µ) / 2^post⌋ (see barrett_quotient).
  const auto pre_shift = [](int s) { return s < beta ? beta - s : 0; };
  const auto post_shift = [](int s) { return s > beta ? s - beta : 0; };
  if (q < 2 || bits_ > beta - 1) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not a valid modulus on " +
                           std::to_string(beta) + "-bit words: it must satisfy 2 <= q < 2^" +
                           std::to_string(beta - 1));
  }
  const int m = bits_;
  if (m <= beta - 2) {
    if (auto mu = barrett_mu<W>(2 * m, q)) {
      classical_ = BarrettClassical<W>{q, *mu, m, pre_shift(m + 1), post_shift(m + 1)};
    }
    if (m >= 2) {
      if (auto mu = barrett_mu<W>(2 * m + 1, q)) {
        alg4_ = BarrettAlg4<W>{q, *mu, m, pre_shift(m + 3), post_shift(m + 3)};
      }
    }
  }
  if (m >= 2 && m <= beta - 4) {
    if (auto mu = barrett_mu<W>(2 * m + 3, q)) {
      dq_ = BarrettDQ<W>{q, *mu, m, pre_shift(m + 5), post_shift(m + 5)};
    }
  }
  if (q % 2 == 1) {
    const W r_mod = pow2_mod<W>(beta, q);
    montgomery_ = Montgomery<W>{q, inverse_mod_word(q), static_cast<W>(u128{r_mod} * r_mod % q)};
    const int k = std::countr_zero(static_cast<W>(q - 1));
    const int rounds = (m + k - 1) / k;
    montgomery_ntt_ = MontgomeryNtt<W>{q, static_cast<W>((q - 1) >> k), k, rounds,
                                       pow2_mod<W>(2 * rounds * k, q)};
  }
}

template <Word W>
std::optional<std::string> Modulus<W>::unsupported_reason(Reduction r) const {
  constexpr int beta = word_bits<W>;
  switch (r) {
    case Reduction::barrett_classical:
      if (classical_) return std::nullopt;
      return bits_message(q_, bits_, "classical Barrett ([GPU-Polymul, Alg. 2])",
                          "len(q) <= beta-2 = " + std::to_string(beta - 2));
    case Reduction::barrett_dq:
      if (dq_) return std::nullopt;
      return bits_message(q_, bits_, "Dhem-Quisquater Barrett ([GPU-Polymul, Alg. 3])",
                          "2 <= len(q) <= beta-4 = " + std::to_string(beta - 4) +
                              " and mu = floor(2^(2m+3)/q) < 2^beta");
    case Reduction::barrett_alg4:
      if (alg4_) return std::nullopt;
      return bits_message(q_, bits_, "one-correction Barrett ([GPU-Polymul, Alg. 4])",
                          "2 <= len(q) <= beta-2 = " + std::to_string(beta - 2) +
                              " and mu = floor(2^(2m+1)/q) < 2^beta");
    case Reduction::montgomery:
      if (montgomery_) return std::nullopt;
      return "q = " + std::to_string(q_) + " is even: Montgomery reduction requires an odd q";
    case Reduction::montgomery_ntt:
      if (montgomery_ntt_) return std::nullopt;
      return "q = " + std::to_string(q_) +
             " is even: the NTT-friendly Montgomery variant requires q = qH*2^k + 1";
    case Reduction::shoup: return std::nullopt;  // every Modulus has len(q) <= beta-1
  }
  return "unknown reduction";
}

template <Word W>
void Modulus<W>::require(Reduction r) const {
  if (auto why = unsupported_reason(r)) throw InvalidParameter(*why);
}

template <Word W>
const BarrettClassical<W>& Modulus<W>::barrett_classical() const {
  require(Reduction::barrett_classical);
  return *classical_;
}
template <Word W>
const BarrettDQ<W>& Modulus<W>::barrett_dq() const {
  require(Reduction::barrett_dq);
  return *dq_;
}
template <Word W>
const BarrettAlg4<W>& Modulus<W>::barrett_alg4() const {
  require(Reduction::barrett_alg4);
  return *alg4_;
}
template <Word W>
const Montgomery<W>& Modulus<W>::montgomery() const {
  require(Reduction::montgomery);
  return *montgomery_;
}
template <Word W>
const MontgomeryNtt<W>& Modulus<W>::montgomery_ntt() const {
  require(Reduction::montgomery_ntt);
  return *montgomery_ntt_;
}

template <Word W>
ShoupOperand<W> Modulus<W>::shoup(W w) const {
  if (w >= q_) {
    throw InvalidParameter("Shoup operand w = " + std::to_string(w) +
                           " must be below q = " + std::to_string(q_));
  }
  return make_shoup(w, q_);
}

template class Modulus<std::uint32_t>;
template class Modulus<std::uint64_t>;

}  // namespace polyhe
