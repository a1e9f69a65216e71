// The prime-factor (Good–Thomas) NTT: n = n1·n2 with gcd(n1, n2) = 1, index maps only.
//
// Index j ↔ (j1, j2) = (j mod n1, j mod n2) by the CRT, for input and output alike. With
// u2 = n2⁻¹ mod n1 and u1 = n1⁻¹ mod n2, j = j1·n2·u2 + j2·n1·u1 mod n, and jk mod n is the CRT
// image of (j1·k1 mod n1, j2·k2 mod n2), so
//   ω^(jk) = (ω^(n2·u2))^(j1·k1) · (ω^(n1·u1))^(j2·k2):
// an n1 × n2 two-dimensional transform with no twiddle factors. Using the CRT map on both sides
// (rather than the CRT map on one and the Ruritanian map j1·n2 + j2·n1 on the other) makes one
// permutation table serve input and output ([PFA-Rader], "Prime-factor FFT
// algorithm" and "Combining Permutations").
#include <numeric>
#include <string>
#include <vector>

#include "fused.hpp"
#include "nodes.hpp"
#include "polyhe/core/error.hpp"
#include "shared_tables.hpp"

namespace polyhe::cyclic {
namespace {

class PfaPlan final : public CyclicNttPlan {
 public:
  PfaPlan(std::size_t n, u64 q, u64 omega, PlanPtr p1, PlanPtr p2,
          std::shared_ptr<const std::vector<std::uint32_t>> perm, bool flattened)
      : CyclicNttPlan(n, q, omega, Decomposition::pfa,
                      flattened ? fused_scratch_words(n)
                                : 2 * n + std::max(p1->scratch_size(), p2->scratch_size())),
        p1_(std::move(p1)),
        p2_(std::move(p2)),
        perm_(std::move(perm)),
        flattened_(flattened) {}

  [[nodiscard]] std::string decomposition() const override {
    return "pfa(" + p1_->decomposition() + ", " + p2_->decomposition() + ")";
  }

  void forward_with(std::span<u64> a, std::span<u64> scratch) const override {
    if (flattened_) {
      run_fused(fused(), a, scratch, false);
      return;
    }
    const std::size_t len = n();
    const std::size_t n1 = p1_->n();
    const std::size_t n2 = p2_->n();
    const std::span<u64> rows = scratch.subspan(0, len);    // [j1][j2], n1 rows of n2
    const std::span<u64> cols = scratch.subspan(len, len);  // [k2][j1], n2 rows of n1
    const std::span<u64> rest = scratch.subspan(2 * len);
    for (std::size_t r = 0; r < len; ++r) rows[r] = a[perm_[r]];
    for (std::size_t j1 = 0; j1 < n1; ++j1) p2_->forward_with(rows.subspan(j1 * n2, n2), rest);
    for (std::size_t j1 = 0; j1 < n1; ++j1) {
      for (std::size_t k2 = 0; k2 < n2; ++k2) cols[k2 * n1 + j1] = rows[j1 * n2 + k2];
    }
    for (std::size_t k2 = 0; k2 < n2; ++k2) p1_->forward_with(cols.subspan(k2 * n1, n1), rest);
    for (std::size_t k1 = 0; k1 < n1; ++k1) {
      for (std::size_t k2 = 0; k2 < n2; ++k2) a[perm_[k1 * n2 + k2]] = cols[k2 * n1 + k1];
    }
  }

  void inverse_with(std::span<u64> a, std::span<u64> scratch) const override {
    if (flattened_) {
      run_fused(fused(), a, scratch, true);
    } else {
      CyclicNttPlan::inverse_with(a, scratch);
    }
  }

  [[nodiscard]] bool flattened() const override { return flattened_; }

 private:
  // The whole subtree flattened (fused.hpp), built on the first transform (LazyTable): planning
  // decided by fused_applies, the same rule make_fused_tables follows.
  [[nodiscard]] const FusedTables& fused() const {
    return *fused_.get([this] {
      auto tables = make_fused_tables(n(), q(), omega());
      if (!tables) {
        throw Error("pfa: no flattened tables for n = " + std::to_string(n()) + ", q = " +
                    std::to_string(q()) + " although fused_applies said so (internal error)");
      }
      return tables;
    });
  }

  PlanPtr p1_, p2_;  // the tree; run node by node unless flattened_
  SharedTable<std::uint32_t> perm_;  // [j1·n2 + j2] = CRT(j1, j2), every q (none if flattened)
  bool flattened_;
  LazyTable<std::shared_ptr<const FusedTables>> fused_;
};

}  // namespace

PlanPtr make_pfa(std::size_t n, u64 q, u64 omega, std::size_t n1, bool flatten) {
  if (n1 <= 1 || n % n1 != 0 || n1 == n || std::gcd(n1, n / n1) != 1) {
    throw InvalidParameter("pfa needs n = n1·n2 with coprime n1, n2 > 1; n = " + std::to_string(n) +
                           ", n1 = " + std::to_string(n1));
  }
  const std::size_t n2 = n / n1;
  const u64 u2 = inverse_mod(n2 % n1, n1);
  const u64 u1 = inverse_mod(n1 % n2, n2);
  const std::size_t e1 = (n2 * u2) % n;  // CRT basis vector for (1, 0)
  const std::size_t e2 = (n1 * u1) % n;  // and for (0, 1)
  const bool flattened = flatten && fused_applies(n, q);
  // The node-by-node route's map (none when flattened: the tables map in one step).
  auto perm =
      flattened ? nullptr : shared_table<std::uint32_t>(SharedTableKind::pfa_map, n, n1, [&] {
        std::vector<std::uint32_t> out(n);
        for (std::size_t j1 = 0; j1 < n1; ++j1) {
          std::size_t j = j1 * e1 % n;  // CRT(j1, j2), stepped by e2 along the row
          for (std::size_t j2 = 0; j2 < n2; ++j2) {
            out[j1 * n2 + j2] = static_cast<std::uint32_t>(j);
            j += e2;
            if (j >= n) j -= n;
          }
        }
        return out;
      });
  // Under a flattened node the children only name the tree: not flattened again.
  PlanPtr p1 = plan_automatic(n1, q, pow_mod(omega, e1, q), !flattened);
  PlanPtr p2 = plan_automatic(n2, q, pow_mod(omega, e2, q), !flattened);
  return std::make_shared<const PfaPlan>(n, q, omega, std::move(p1), std::move(p2), std::move(perm),
                                         flattened);
}

}  // namespace polyhe::cyclic
