// Products modulo q < 2^50 in double precision over a vector of doubles holding integers (the
// lanes of cpu/fma_ntt.hpp), for the element-wise kernels written once over a lane width (base
// conversion's weighted sums, cpu/fma_weighted_sum.hpp; both widths' element-wise products and
// key inner products).
// Internal linkage, as avx2/lanes.hpp: each kernel file compiles its own copy with its own flags.
//
// mul(a, b) for 0 ≤ a < 2^50 and 0 ≤ b < q: h = fl(a·b), l = a·b − h exactly (one FMA),
// Q = round(fl(h·fl(1/q))) (h/q < a < 2^50, so round_small serves), r = fl(h − Q·q) + l: exact,
// in [−0.875q, 0.875q]. centre(x) = x − round(x/q)·q, |·| < q/2 + 1, for |x| < 2^53 with
// |x/q| ≤ 2^51. canonical(x): centred, then q added where negative, in [0, q) (an integer below
// q/2 + 1 is below q for q ≥ 2). from_signed(x): q added where negative, for x already in
// (−q, q) (a product's, or a centred value): [0, q) without centring again; from_near(x) for x
// in (−q, 2q) (a product plus a residue): q added where negative, then subtracted where ≥ q.
#pragma once

#include <cstdint>

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

template <class L>
class FmaModLanes {
 public:
  using D = typename L::D;

  explicit FmaModLanes(std::uint64_t q)
      : q_(L::set1(static_cast<double>(q))), q_inv_(L::set1(1.0 / static_cast<double>(q))) {}

  [[gnu::always_inline]] D mul(D a, D b) const {
    const D h = L::mul(a, b);
    const D l = L::fmsub(a, b, h);
    return L::add(L::fnmadd(L::round_small(L::mul(h, q_inv_)), q_, h), l);
  }
  [[gnu::always_inline]] D centre(D x) const {
    return L::fnmadd(L::round_small(L::mul(x, q_inv_)), q_, x);
  }
  [[gnu::always_inline]] D canonical(D x) const { return from_signed(centre(x)); }
  [[gnu::always_inline]] D from_signed(D x) const { return L::add_where_negative(x, q_); }
  [[gnu::always_inline]] D from_near(D x) const {
    return L::sub_where_at_least(from_signed(x), q_);
  }

 private:
  D q_, q_inv_;
};

}  // namespace
}  // namespace polyhe::cpu
