// The IFMA52 kernel of the default transform, for primes q < 2^50 and n ≥ 16. It computes the
// same residues as the scalar kernel (ntt_scalar.cpp; all outputs are fully reduced, so equal
// residues are equal words) with its own schedule:
//   * eight 64-bit lanes; twiddle products by Shoup's method with β = 52 (three IFMA
//     instructions per vector of butterflies, ntt_ifma_arith.hpp);
//   * forward: Harvey's lazy Cooley–Tukey butterflies, values in [0, 4q), corrected to [0, q)
//     once at the end; inverse: Gentleman–Sande butterflies without halving, values in [0, 2q),
//     with the scale folded into the last stage (twiddles 1/n and ψ^−br(1)/n);
//   * stages t ≥ 64 in radix-8/4/2 passes with broadcast twiddles (ntt_ifma_passes.hpp), the
//     stages t = 32 … 1 in 128-word chunks, t = 4, 2, 1 with per-lane twiddles and permutes
//     (ntt_ifma_chunks.hpp), and blocks of kL1Words words carried through all their remaining
//     stages while they are in L1 (depth first);
//   * for q < 2^46 the forward butterflies skip their corrections (values stay below 36q <
//     2^52; ifma::forward_lazy_ok) and the output is reduced once, by a Shoup quotient;
//   * forward_lifted, the step of rescaling, runs the lift in the first pass and
//     (c − ·)·s in the last (ntt_ifma_fused.hpp); forward_from_lifted, ModUp's, only the lift;
//     inverse_from reads its input in its first;
//   * products of two transforms by Barrett (hadamard) and Montgomery (the fused Karatsuba
//     step) with β = 52 (ntt_ifma_products.hpp).
// Tables, built here: the plan's ψ^br(i) and ψ^−br(i) (not halved) with 52-bit Shoup
// companions; for n ≥ kFactoredT1From the factors c_g of the stage t = 1; for fused_hadamard
// the per-pair α² = ±ψ^br(n/4 + ⌊i/2⌋) with the sign folded in.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <new>

#include "cpu/ntt_kernel.hpp"
#include "ntt_ifma_arith.hpp"
#include "ntt_ifma_chunks.hpp"
#include "ntt_ifma_fused.hpp"
#include "ntt_ifma_passes.hpp"
#include "ntt_ifma_products.hpp"
#include "polyhe/core/aligned.hpp"

namespace polyhe::cpu {

namespace {

using ifma::Barrett52;
using ifma::Mod;
using ifma::TwTable;
using ifma::u64;

/// The block carried through all its remaining stages at once (32 KiB: L1 holds it and the
/// twiddles streaming past).
constexpr std::size_t kL1Words = std::size_t{1} << 12;

/// From this n on, the tables (16n bytes per direction) no longer stay in L2 next to the data,
/// and the stage t = 1 uses factored twiddles (ntt_ifma_chunks.hpp, T1Factors).
constexpr std::size_t kFactoredT1From = std::size_t{1} << 15;

u64 mul_mod_host(u64 a, u64 b, u64 q) {
  return static_cast<u64>(static_cast<unsigned __int128>(a) * b % q);
}

/// The number of stages of the next pass, given `left` stages to go: radix 8 while it can, but
/// 4 stages as 2 + 2 rather than 3 + 1 (a radix-2 pass costs a memory pass for one stage).
int pass_stages(int left) {
  return left == 4 ? 2 : left >= 3 ? 3 : left;
}

template <bool kFresh, bool kLazy, class Pro = ifma::NoPrologue>
void forward_pass_k(int k, const u64* src, u64* a, std::size_t m, std::size_t t, std::size_t i0,
                    std::size_t i1, const TwTable& tw, const Mod& md, const Pro& pro = {}) {
  switch (k) {
    case 3: return ifma::forward_pass<3, kFresh, kLazy>(src, a, m, t, i0, i1, tw, md, pro);
    case 2: return ifma::forward_pass<2, kFresh, kLazy>(src, a, m, t, i0, i1, tw, md, pro);
    default: return ifma::forward_pass<1, kFresh, kLazy>(src, a, m, t, i0, i1, tw, md, pro);
  }
}

/// What a forward transform reads and writes around its stages: its first pass reads
/// pro(src[j]) (a plain transform: its own array, unchanged), its last pass hands each output
/// vector to epi (a plain transform: reduced and stored in place). kLazy: the butterflies skip
/// their corrections (ifma::forward_lazy_ok).
template <class Pro, class Epi, bool kLazy>
struct Ends {
  static constexpr bool lazy = kLazy;
  const u64* src;
  Pro pro;
  Epi epi;
};

template <bool kLast>
void inverse_pass_k(int k, u64* a, std::size_t n, std::size_t t, std::size_t i0, std::size_t i1,
                    const TwTable& tw, const ifma::LastStage& ls, const Mod& md) {
  switch (k) {
    case 3: return ifma::inverse_pass<3, kLast>(a, n, t, i0, i1, tw, ls, md);
    case 2: return ifma::inverse_pass<2, kLast>(a, n, t, i0, i1, tw, ls, md);
    default: return ifma::inverse_pass<1, kLast>(a, n, t, i0, i1, tw, ls, md);
  }
}

class IfmaNttKernel final : public NttKernel64 {
 public:
  explicit IfmaNttKernel(const NttTables64& t);

  [[nodiscard]] CpuPath path() const override { return CpuPath::ifma; }

  void forward(u64* a) const override { forward_plain(a, true); }
  void inverse(u64* a) const override { inverse_block(a, a, n_ / 2, 0, true); }
  bool inverse_from(const u64* in, u64* out) const override {
    inverse_block(in, out, n_ / 2, 0, true);
    return true;
  }
  void hadamard(const u64* a, const u64* b, u64* c) const override;
  void forward_truncated(u64* a) const override { forward_plain(a, false); }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override;
  void inverse_truncated(u64* a) const override { inverse_block(a, a, n_ / 2, 0, false); }
  bool forward_lifted(const LiftedForward& f) const override;
  bool forward_from_lifted(const u64* x, u64 p, u64* out) const override;

 private:
  void forward_plain(u64* a, bool whole) const {
    if (lazy_) {
      const Ends<ifma::NoPrologue, ifma::ReduceStore<true>, true> ends{a, {}, {a}};
      forward_block(a, n_ / 2, 0, true, whole, ends);
    } else {
      const Ends<ifma::NoPrologue, ifma::ReduceStore<false>, false> ends{a, {}, {a}};
      forward_block(a, n_ / 2, 0, true, whole, ends);
    }
  }
  template <bool kLazy, class Epi>
  void forward_lifted_with(const u64* x, u64 p, u64* a, const Epi& epi) const;
  template <class E>
  void forward_block(u64* a, std::size_t t, std::size_t i, bool fresh, bool whole,
                     const E& ends) const;
  template <class E>
  void forward_in_l1(u64* a, std::size_t t, std::size_t i, bool fresh, bool whole,
                     const E& ends) const;
  // The inverse functions read each word from src (which may be a) where they first touch it.
  void inverse_block(const u64* src, u64* a, std::size_t t, std::size_t i, bool whole) const;
  void inverse_in_l1(const u64* src, u64* a, std::size_t t, std::size_t i, bool whole) const;
  void forward_small(u64* a, bool whole) const;
  void inverse_small(const u64* src, u64* a, bool whole) const;
  /// The last stage's (scale, ψ^−br(1)·scale).
  [[nodiscard]] ifma::LastStage last_stage(u64 w, u64 scale) const;
  [[nodiscard]] ifma::T1Factors t1_factors(const u64* w, u64* out) const;
  [[nodiscard]] const ifma::LastStage& last(bool whole) const {
    return whole ? last_ : last_truncated_;
  }

  std::size_t n_;
  u64 q_;
  Mod mod_;
  Barrett52 barrett_;
  AlignedVector<u64> store_;  // fwd, fwd', inv, inv' (n words each), α², α²' (n/2), c_g (n/16 ×4)
  TwTable fwd_;
  TwTable inv_;
  ifma::T1Factors fwd_t1_;
  ifma::T1Factors inv_t1_;
  ifma::T1 t1_;  // how whole transforms do the stage t = 1
  bool lazy_;    // the forward butterflies skip their corrections (ifma::forward_lazy_ok)
  ifma::FusedConsts fused_;
  ifma::LastStage last_;            // 1/n: the whole inverse
  ifma::LastStage last_truncated_;  // 2/n: the fused product did the first stage's halving
};

IfmaNttKernel::IfmaNttKernel(const NttTables64& t)
    : n_(t.n),
      q_(t.q),
      mod_(t.q),
      barrett_(t.q),
      store_(5 * t.n + t.n / 4),
      fused_{{nullptr, nullptr}, {}, ifma::Montgomery52(t.q)} {
  u64* s = store_.data();
  u64* fw = s;
  u64* fwp = s + n_;
  u64* iv = s + 2 * n_;
  u64* ivp = s + 3 * n_;
  u64* al = s + 4 * n_;
  u64* alp = al + n_ / 2;
  for (std::size_t i = 0; i < n_; ++i) {
    fw[i] = t.fwd[i];
    fwp[i] = ifma::shoup52(fw[i], q_);
    iv[i] = t.inv[i];
    ivp[i] = ifma::shoup52(iv[i], q_);
  }
  // α_i² = ψ^br(n/4 + ⌊i/2⌋) for even i, its negative for odd i (schedule.hpp).
  for (std::size_t i = 0; i < n_ / 2; ++i) {
    const u64 w = fw[n_ / 4 + i / 2];
    al[i] = (i % 2 == 0) ? w : q_ - w;
    alp[i] = ifma::shoup52(al[i], q_);
  }
  fwd_ = {fw, fwp};
  inv_ = {iv, ivp};
  fwd_t1_ = t1_factors(fw, s + 5 * n_);
  inv_t1_ = t1_factors(iv, s + 5 * n_ + n_ / 8);
  t1_ = n_ >= kFactoredT1From ? ifma::T1::factored : ifma::T1::table;
  lazy_ = ifma::forward_lazy_ok(q_);
  fused_.alpha2 = {al, alp};
  const u64 r_mod_q = (u64{1} << 52) % q_;
  fused_.r_mod_q = {ifma::splat(r_mod_q), ifma::splat(ifma::shoup52(r_mod_q, q_))};
  // 1/n = (1/2)^log n, with 1/2 = (q + 1)/2.
  u64 n_inv = 1;
  for (std::size_t k = 1; k < n_; k <<= 1) n_inv = mul_mod_host(n_inv, (q_ + 1) / 2, q_);
  last_ = last_stage(iv[1], n_inv);
  last_truncated_ = last_stage(iv[1], mul_mod_host(n_inv, 2, q_));
}

/// c_g = w[n/2 + 8g] into out[0, n/16) with companions in out[n/16, n/8), and
/// ρ_l = w[4]^br_3(l) (w[4] = ψ^(±n/8)).
ifma::T1Factors IfmaNttKernel::t1_factors(const u64* w, u64* out) const {
  const std::size_t groups = n_ / 16;
  for (std::size_t g = 0; g < groups; ++g) {
    out[g] = w[n_ / 2 + 8 * g];
    out[groups + g] = ifma::shoup52(out[g], q_);
  }
  u64 pow[8];
  pow[0] = 1;
  for (int e = 1; e < 8; ++e) pow[e] = mul_mod_host(pow[e - 1], w[4], q_);
  constexpr int kBr3[8] = {0, 4, 2, 6, 1, 5, 3, 7};
  alignas(64) u64 rho[8];
  alignas(64) u64 rho_p[8];
  for (int l = 0; l < 8; ++l) {
    rho[l] = pow[kBr3[l]];
    rho_p[l] = ifma::shoup52(rho[l], q_);
  }
  return {{ifma::load(rho), ifma::load(rho_p)}, out, out + groups};
}

ifma::LastStage IfmaNttKernel::last_stage(u64 w, u64 scale) const {
  const u64 w_s = mul_mod_host(w, scale, q_);
  return {{ifma::splat(scale), ifma::splat(ifma::shoup52(scale, q_))},
          {ifma::splat(w_s), ifma::splat(ifma::shoup52(w_s, q_))}};
}

/// All forward stages from t down, on block i of stage t (2t words at a + 2t·i): a pass over
/// the block while it is larger than kL1Words, then each of its sub-blocks in turn. The first
/// pass (fresh) reads through ends.pro, the chunks end in ends.epi.
template <class E>
void IfmaNttKernel::forward_block(u64* a, std::size_t t, std::size_t i, bool fresh, bool whole,
                                  const E& ends) const {
  if (2 * t <= kL1Words) return forward_in_l1(a, t, i, fresh, whole, ends);
  const int k = pass_stages(std::countr_zero(2 * t / kL1Words));
  const std::size_t m = n_ / (2 * t);
  if (fresh) {
    forward_pass_k<true, E::lazy>(k, ends.src, a, m, t, i, i + 1, fwd_, mod_, ends.pro);
  } else {
    forward_pass_k<false, E::lazy>(k, a, a, m, t, i, i + 1, fwd_, mod_);
  }
  const std::size_t r = std::size_t{1} << k;
  for (std::size_t c = 0; c < r; ++c) forward_block(a, t >> k, i * r + c, false, whole, ends);
}

/// Block i of stage t, small enough for L1: passes down to t = 64, then 128-word chunks for
/// t = 32 … 1 (n ≤ 64: one chunk of n words, plain ends only).
template <class E>
void IfmaNttKernel::forward_in_l1(u64* a, std::size_t t, std::size_t i, bool fresh, bool whole,
                                  const E& ends) const {
  if (n_ <= 64) return forward_small(a, whole);
  const std::size_t c0 = i * (2 * t) / 128;
  const std::size_t c1 = c0 + (2 * t) / 128;
  std::size_t i0 = i;
  std::size_t i1 = i + 1;
  for (int left = std::countr_zero(t) - 5; left > 0;) {  // stages t … 64
    const int k = left % 3 != 0 ? left % 3 : 3;
    const std::size_t m = n_ / (2 * t);
    if (fresh) {
      forward_pass_k<true, E::lazy>(k, ends.src, a, m, t, i0, i1, fwd_, mod_, ends.pro);
    } else {
      forward_pass_k<false, E::lazy>(k, a, a, m, t, i0, i1, fwd_, mod_);
    }
    fresh = false;
    left -= k;
    t >>= k;
    i0 <<= k;
    i1 <<= k;
  }
  using ifma::forward_chunks;
  using ifma::T1;
  const auto& f = fwd_t1_;
  const auto& epi = ends.epi;
  constexpr bool kLazy = E::lazy;
  if (!whole) {
    return forward_chunks<3, 16, false, T1::none, kLazy>(a, n_, c0, c1, fwd_, f, mod_, epi);
  }
  if (t1_ == T1::factored) {
    return forward_chunks<3, 16, false, T1::factored, kLazy>(a, n_, c0, c1, fwd_, f, mod_, epi);
  }
  forward_chunks<3, 16, false, T1::table, kLazy>(a, n_, c0, c1, fwd_, f, mod_, epi);
}

/// n ≤ 64: the whole transform is one chunk.
void IfmaNttKernel::forward_small(u64* a, bool whole) const {
  using ifma::forward_chunks;
  using ifma::T1;
  const auto& f = fwd_t1_;
  const ifma::ReduceStore<false> st{a};
  switch (n_) {
    case 16:
      return whole ? forward_chunks<1, 2, true, T1::table, false>(a, n_, 0, 1, fwd_, f, mod_, st)
                   : forward_chunks<1, 2, true, T1::none, false>(a, n_, 0, 1, fwd_, f, mod_, st);
    case 32:
      return whole ? forward_chunks<2, 4, true, T1::table, false>(a, n_, 0, 1, fwd_, f, mod_, st)
                   : forward_chunks<2, 4, true, T1::none, false>(a, n_, 0, 1, fwd_, f, mod_, st);
    default:
      return whole ? forward_chunks<3, 8, true, T1::table, false>(a, n_, 0, 1, fwd_, f, mod_, st)
                   : forward_chunks<3, 8, true, T1::none, false>(a, n_, 0, 1, fwd_, f, mod_, st);
  }
}

/// All inverse stages up to t on block i of stage t: each sub-block of kL1Words words in turn,
/// then passes over the block.
void IfmaNttKernel::inverse_block(const u64* src, u64* a, std::size_t t, std::size_t i,
                                  bool whole) const {
  if (2 * t <= kL1Words) return inverse_in_l1(src, a, t, i, whole);
  const int k = pass_stages(std::countr_zero(2 * t / kL1Words));
  const std::size_t r = std::size_t{1} << k;
  for (std::size_t c = 0; c < r; ++c) inverse_block(src, a, t >> k, i * r + c, whole);
  // The pass covers stages t/2^(k−1) … t: super-blocks of 2t words, index i.
  const std::size_t t_lo = t >> (k - 1);
  if (2 * t == n_) {
    inverse_pass_k<true>(k, a, n_, t_lo, i, i + 1, inv_, last(whole), mod_);
  } else {
    inverse_pass_k<false>(k, a, n_, t_lo, i, i + 1, inv_, last(whole), mod_);
  }
}

/// Block i of stage t, small enough for L1: 128-word chunks for t = 1 … 32 (n ≤ 64: one chunk
/// of n words), then passes up to t.
void IfmaNttKernel::inverse_in_l1(const u64* src, u64* a, std::size_t t, std::size_t i,
                                  bool whole) const {
  if (n_ <= 64) return inverse_small(src, a, whole);
  const std::size_t words = 2 * t;
  const std::size_t c0 = i * words / 128;
  const std::size_t c1 = c0 + words / 128;
  using ifma::inverse_chunks;
  using ifma::T1;
  const auto& f = inv_t1_;
  const auto& ls = last(whole);
  if (!whole) {
    inverse_chunks<3, 16, T1::none, false>(src, a, n_, c0, c1, inv_, f, ls, mod_);
  } else if (t1_ == T1::factored) {
    inverse_chunks<3, 16, T1::factored, false>(src, a, n_, c0, c1, inv_, f, ls, mod_);
  } else {
    inverse_chunks<3, 16, T1::table, false>(src, a, n_, c0, c1, inv_, f, ls, mod_);
  }
  std::size_t t_lo = 64;  // stages 64 … t: passes with super-blocks of 2^k·t_lo words
  while (t_lo <= t) {
    const int k = pass_stages(std::countr_zero(t / t_lo) + 1);
    const std::size_t super = t_lo << k;
    const std::size_t s0 = i * words / super;
    const std::size_t s1 = s0 + words / super;
    if (super == n_) {
      inverse_pass_k<true>(k, a, n_, t_lo, s0, s1, inv_, last(whole), mod_);
    } else {
      inverse_pass_k<false>(k, a, n_, t_lo, s0, s1, inv_, last(whole), mod_);
    }
    t_lo <<= k;
  }
}

/// n ≤ 64: the whole transform is one chunk.
void IfmaNttKernel::inverse_small(const u64* src, u64* a, bool whole) const {
  using ifma::inverse_chunks;
  using ifma::T1;
  const auto& f = inv_t1_;
  const auto& ls = last(whole);
  switch (n_) {
    case 16:
      return whole ? inverse_chunks<1, 2, T1::table, true>(src, a, n_, 0, 1, inv_, f, ls, mod_)
                   : inverse_chunks<1, 2, T1::none, true>(src, a, n_, 0, 1, inv_, f, ls, mod_);
    case 32:
      return whole ? inverse_chunks<2, 4, T1::table, true>(src, a, n_, 0, 1, inv_, f, ls, mod_)
                   : inverse_chunks<2, 4, T1::none, true>(src, a, n_, 0, 1, inv_, f, ls, mod_);
    default:
      return whole ? inverse_chunks<3, 8, T1::table, true>(src, a, n_, 0, 1, inv_, f, ls, mod_)
                   : inverse_chunks<3, 8, T1::none, true>(src, a, n_, 0, 1, inv_, f, ls, mod_);
  }
}

/// The fused LiftedForward for n ≥ 128 (the first step is a pass and the last a chunk, so the
/// prologue and the epilogue each have one place) and p < 2^52 (the lift's operands fit IFMA's
/// 52 bits).
bool IfmaNttKernel::forward_lifted(const LiftedForward& f) const {
  if (n_ < 128 || f.p >= (u64{1} << 52)) return false;
  using ifma::splat;
  using ifma::SubScaleStore;
  const ifma::Tw s{splat(f.s), splat(ifma::shoup52(f.s, q_))};
  if (lazy_) {
    forward_lifted_with<true>(f.x, f.p, f.work,
                              SubScaleStore<false>{f.c, f.out, s, splat(ifma::kLazyBound * q_)});
  } else if (5 * q_ < (u64{1} << 52)) {
    forward_lifted_with<false>(f.x, f.p, f.work,
                               SubScaleStore<false>{f.c, f.out, s, splat(4 * q_)});
  } else {
    forward_lifted_with<false>(f.x, f.p, f.work, SubScaleStore<true>{f.c, f.out, s, splat(2 * q_)});
  }
  return true;
}

/// The same bounds (n ≥ 128, p < 2^52), the lift in the first pass and the plain transform's
/// reduction in the last: forward_plain with x read through the lift.
bool IfmaNttKernel::forward_from_lifted(const u64* x, u64 p, u64* out) const {
  if (n_ < 128 || p >= (u64{1} << 52)) return false;
  if (lazy_) {
    forward_lifted_with<true>(x, p, out, ifma::ReduceStore<true>{out});
  } else {
    forward_lifted_with<false>(x, p, out, ifma::ReduceStore<false>{out});
  }
  return true;
}

/// The transform of a with x (< p < 2^52, disjoint from a) read through the lift in its first
/// pass and epi in its last.
template <bool kLazy, class Epi>
void IfmaNttKernel::forward_lifted_with(const u64* x, u64 p, u64* a, const Epi& epi) const {
  const ifma::V half = ifma::splat(p / 2);
  if (p < 2 * q_) {
    const Ends<ifma::LiftNear, Epi, kLazy> ends{x, {half, ifma::splat(2 * q_ - p)}, epi};
    forward_block(a, n_ / 2, 0, true, true, ends);
  } else if (p <= (u64{1} << 52) - q_) {
    const Ends<ifma::LiftFar, Epi, kLazy> ends{x, {half, ifma::splat(q_ - p % q_), mod_}, epi};
    forward_block(a, n_ / 2, 0, true, true, ends);
  } else {
    const Ends<ifma::LiftTop, Epi, kLazy> ends{x, {half, ifma::splat(q_ - p % q_), mod_}, epi};
    forward_block(a, n_ / 2, 0, true, true, ends);
  }
}

void IfmaNttKernel::hadamard(const u64* a, const u64* b, u64* c) const {
  ifma::hadamard(a, b, c, n_, barrett_, mod_);
}

void IfmaNttKernel::fused_hadamard(const u64* a, const u64* b, u64* c) const {
  ifma::fused_hadamard(a, b, c, n_, fused_, mod_);
}

}  // namespace

std::unique_ptr<NttKernel64> make_ifma_ntt_kernel(const NttTables64& t) {
  if (t.q >= (u64{1} << 50) || t.n < 16) return nullptr;
  return std::make_unique<IfmaNttKernel>(t);
}

}  // namespace polyhe::cpu
