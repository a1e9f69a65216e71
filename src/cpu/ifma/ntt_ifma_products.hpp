// The element-wise products of the IFMA NTT kernel (ntt_ifma.cpp): the Hadamard product of two
// transforms and the fused Karatsuba step of [GPU-Polymul, Alg. 8]. Several vectors go through each
// step together, as in the transform passes: one product is a chain of three dependent IFMA levels.
#pragma once

#include <cstddef>

#include "ntt_ifma_arith.hpp"
#include "ntt_ifma_chunks.hpp"

namespace polyhe::cpu::ifma {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see ntt_ifma_arith.hpp

/// c[i] = a[i]·b[i] mod q for i < n (n a multiple of 8), by Barrett52; c may alias a or b.
inline void hadamard(const u64* a, const u64* b, u64* c, std::size_t n, const Barrett52& barrett,
                     const Mod& mod) {
  constexpr std::size_t U = 4;
  const Mod md = mod;
  const Barrett52 br = barrett;
  std::size_t i = 0;
  for (; i + 8 * U <= n; i += 8 * U) {
    V x[U];
#pragma GCC unroll 16
    for (std::size_t u = 0; u < U; ++u)
      x[u] = mul_mod(load(a + i + 8 * u), load(b + i + 8 * u), br, md);
#pragma GCC unroll 16
    for (std::size_t u = 0; u < U; ++u) store(c + i + 8 * u, x[u]);
  }
  for (; i < n; i += 8) store(c + i, mul_mod(load(a + i), load(b + i), br, md));
}

/// The constants of the fused step: α_i² = ±ψ^br(n/4 + ⌊i/2⌋) per pair with its Shoup companion
/// (the table), and R = 2^52 mod q as a Shoup operand to undo the Montgomery factor.
struct FusedConsts {
  TwTable alpha2;
  Tw r_mod_q;
  Montgomery52 mont;
};

/// [GPU-Polymul, Alg. 8]'s middle step (schedule.hpp, detail::fused_hadamard) for 8·U pairs from
/// pair p0, the pairs split into even words (a0, b0) and odd words (a1, b1). With Montgomery
/// products, which accept operands up to 2q and so the unreduced sums:
///   u = a0·b0/R, v = a1·b1/R, s = (a0 + a1)(b0 + b1)/R, each in (0, 2q) (4q² < q·2^52),
///   c0 = (u + α²·v)·R,  c1 = (s + 2q − ((u + v) mod 2q))·R,  both factors in (0, 4q);
/// the factor R by a lazy Shoup product, then one correction.
template <std::size_t U>
inline void fused_round(const u64* a, const u64* b, u64* c, std::size_t p0, const FusedConsts& fc,
                        const Mod& md, const Shuffles& sh) {
  V a0[U], a1[U], b0[U], b1[U];
#pragma GCC unroll 16
  for (std::size_t u = 0; u < U; ++u) {
    const std::size_t w = 2 * p0 + 16 * u;
    a0[u] = load(a + w), a1[u] = load(a + w + 8);
    b0[u] = load(b + w), b1[u] = load(b + w + 8);
    permute_pair(a0[u], a1[u], sh.ilo, sh.ihi);  // even words, odd words
    permute_pair(b0[u], b1[u], sh.ilo, sh.ihi);
  }
#pragma GCC unroll 16
  for (std::size_t u = 0; u < U; ++u) {
    const V uu = redc_plus_q(a0[u], b0[u], fc.mont, md);  // (0, 2q): T < q²
    const V vv = redc_plus_q(a1[u], b1[u], fc.mont, md);  // (0, 2q)
    const V ss =
        redc_plus_q(add(a0[u], a1[u]), add(b0[u], b1[u]), fc.mont, md);  // (0, 2q): T < 4q²
    const Tw al{load(fc.alpha2.w + p0 + 8 * u), load(fc.alpha2.wp + p0 + 8 * u)};
    const V c0 = add(uu, mul_shoup_lazy(vv, al, md));                          // (0, 4q)
    const V c1 = sub(add(ss, md.two_q), reduce_below(add(uu, vv), md.two_q));  // (0, 4q)
    a0[u] = reduce_below(mul_shoup_lazy(c0, fc.r_mod_q, md), md.q);            // [0, q)
    a1[u] = reduce_below(mul_shoup_lazy(c1, fc.r_mod_q, md), md.q);            // [0, q)
  }
#pragma GCC unroll 16
  for (std::size_t u = 0; u < U; ++u) {
    permute_pair(a0[u], a1[u], sh.lo, sh.hi);
    store(c + 2 * p0 + 16 * u, a0[u]);
    store(c + 2 * p0 + 16 * u + 8, a1[u]);
  }
}

/// The fused step over all n/2 pairs; c may alias a or b.
inline void fused_hadamard(const u64* a, const u64* b, u64* c, std::size_t n,
                           const FusedConsts& consts, const Mod& mod) {
  constexpr std::size_t U = 2;
  const Mod md = mod;
  const FusedConsts fc = consts;
  const Shuffles sh;
  std::size_t p = 0;
  for (; p + 8 * U <= n / 2; p += 8 * U) fused_round<U>(a, b, c, p, fc, md, sh);
  for (; p < n / 2; p += 8) fused_round<1>(a, b, c, p, fc, md, sh);
}

}  // namespace
}  // namespace polyhe::cpu::ifma
