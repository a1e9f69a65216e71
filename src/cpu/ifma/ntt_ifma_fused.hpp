// The steps that rescaling fuses around the IFMA forward transform (ntt_ifma.cpp,
// NttKernel64::forward_lifted): a prologue that the first pass applies to each vector it reads
// (the centred lift of residues modulo p to q) and an epilogue that the last pass applies to
// each output vector instead of storing it ((c − v)·s mod q). Both run on values that are in
// registers anyway, so the fused transform reads x and c once and writes out once, where the
// three separate steps take three more passes over memory.
#pragma once

#include <cstddef>

#include "ntt_ifma_arith.hpp"

namespace polyhe::cpu::ifma {
namespace {  // NOLINT(google-build-namespaces,cert-dcl59-cpp): see ntt_ifma_arith.hpp

/// The centred lift of x < p to q for p < 2q: x_c = x for x ≤ ⌊p/2⌋, else x − p, represented
/// by x + (2q − p) in (2q − p/2, 2q). Output in [0, 2q): a first stage's input (kFresh).
struct LiftNear {
  V half;  // ⌊p/2⌋
  V add;   // 2q − p
  V operator()(V x) const {
    return _mm512_mask_add_epi64(x, _mm512_cmpgt_epu64_mask(x, half), x, add);
  }
  V multiplicand(V x) const { return (*this)(x); }
};

/// The centred lift of x < p to q for 2q ≤ p ≤ 2^52 − q: where x > ⌊p/2⌋, x + (q − p mod q)
/// = x − p + ⌈p/q⌉·q, congruent to x − p and below p + q ≤ 2^52 (a first-stage multiplicand
/// as it is); then a lazy reduction (reduce_52_lazy). Output in [0, 2q).
struct LiftFar {
  V half;  // ⌊p/2⌋
  V add;   // q − (p mod q)
  Mod md;
  V operator()(V x) const { return reduce_52_lazy(multiplicand(x), md); }
  V multiplicand(V x) const {
    return _mm512_mask_add_epi64(x, _mm512_cmpgt_epu64_mask(x, half), x, add);
  }
};

/// The same for 2^52 − q < p < 2^52, where x + (q − p mod q) may pass 2^52: r = x mod q
/// (reduce_52), then where x > ⌊p/2⌋ the residue of x − p as r + (q − p mod q). Output in
/// [0, 2q).
struct LiftTop {
  V half;  // ⌊p/2⌋
  V add;   // q − (p mod q)
  Mod md;
  V operator()(V x) const {
    const V r = reduce_52(x, md);
    return _mm512_mask_add_epi64(r, _mm512_cmpgt_epu64_mask(x, half), r, add);
  }
  V multiplicand(V x) const { return (*this)(x); }
};

/// out = (c − v)·s mod q for the transform's output vectors v in [0, B·q): d = c + B·q − v in
/// (0, (B + 1)·q), a lazy Shoup product (in [0, 2q) for any d < 2^52) and one correction.
/// `offset` = B·q with (B + 1)·q < 2^52: B = 4 for q < 2^52/5, kLazyBound for the uncorrected
/// schedule; kReduceFirst for the other q < 2^50: v first to [0, 2q) and B = 2. out may be c.
template <bool kReduceFirst>
struct SubScaleStore {
  const u64* c;
  u64* out;
  Tw s;
  V offset;
  void operator()(std::size_t pos, V v, const Mod& md) const {
    const V d = sub(add(load(c + pos), offset), kReduceFirst ? reduce_below(v, md.two_q) : v);
    store(out + pos, reduce_below(mul_shoup_lazy(d, s, md), md.q));
  }
};

}  // namespace
}  // namespace polyhe::cpu::ifma
