// Modulus: one modulus q and every constant its reductions need, validated once.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/montgomery.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe {

/// The reduction catalogue (docs/design.md, "Layers": arith). Citations name the paper with its
/// own algorithm number; keys in docs/references.md.
enum class Reduction {
  barrett_classical,  // [GPU-Polymul, Alg. 2], len(q) ≤ β−2, up to two corrections
  barrett_dq,         // [GPU-Polymul, Alg. 3], len(q) ≤ β−4, one correction
  barrett_alg4,       // [GPU-Polymul, Alg. 4], len(q) ≤ β−2, one correction
  montgomery,         // [FPGA-FV, Alg. 4], q odd
  montgomery_ntt,     // [FPGA-FV, Alg. 5], q = qH·2^k + 1
  shoup,              // by a precomputed operand, len(q) ≤ β−1
};

inline constexpr std::array<Reduction, 6> kAllReductions = {
    Reduction::barrett_classical, Reduction::barrett_dq,     Reduction::barrett_alg4,
    Reduction::montgomery,        Reduction::montgomery_ntt, Reduction::shoup};

std::string_view to_string(Reduction r);

/// A modulus 2 ≤ q < 2^(β−1) with the constants of every reduction that can serve it. An accessor
/// for a reduction that cannot serve q throws InvalidParameter naming q and the rule.
template <Word W>
class Modulus {
 public:
  /// Throws InvalidParameter unless 2 ≤ q and len(q) ≤ β−1.
  explicit Modulus(W q);

  [[nodiscard]] W value() const { return q_; }
  /// len(q).
  [[nodiscard]] int bits() const { return bits_; }

  /// Whether the reduction can serve q, and why not when it cannot.
  [[nodiscard]] bool supports(Reduction r) const { return !unsupported_reason(r).has_value(); }
  [[nodiscard]] std::optional<std::string> unsupported_reason(Reduction r) const;

  [[nodiscard]] const BarrettClassical<W>& barrett_classical() const;
  [[nodiscard]] const BarrettDQ<W>& barrett_dq() const;
  [[nodiscard]] const BarrettAlg4<W>& barrett_alg4() const;
  [[nodiscard]] const Montgomery<W>& montgomery() const;
  [[nodiscard]] const MontgomeryNtt<W>& montgomery_ntt() const;
  /// w with its Shoup companion. Requires (and checks) w < q.
  [[nodiscard]] ShoupOperand<W> shoup(W w) const;

  /// a·b mod q for a, b < q by the fastest general reduction that serves q.
  [[nodiscard]] W mul(W a, W b) const {
    if (alg4_) return barrett_alg4_reduce(mul_wide(a, b), *alg4_);
    return static_cast<W>(mul_wide(a, b) % q_);
  }

  friend bool operator==(const Modulus& x, const Modulus& y) { return x.q_ == y.q_; }

 private:
  void require(Reduction r) const;

  W q_;
  int bits_;
  std::optional<BarrettClassical<W>> classical_;
  std::optional<BarrettDQ<W>> dq_;
  std::optional<BarrettAlg4<W>> alg4_;
  std::optional<Montgomery<W>> montgomery_;
  std::optional<MontgomeryNtt<W>> montgomery_ntt_;
};

extern template class Modulus<std::uint32_t>;
extern template class Modulus<std::uint64_t>;

}  // namespace polyhe
