// Negacyclic polynomial multiplication in Z_q[x]/(x^n + 1).
#pragma once

#include <span>

#include "polyhe/ntt/plan.hpp"

namespace polyhe {

/// c = a·b mod (x^n + 1, q) as INTT(NTT(a) ⊙ NTT(b)) (paper eq. (2)). Requires a, b, c of size
/// n (checked) with coefficients in [0, q) (a precondition); c may alias a or b. Output in [0, q).
template <Word W>
void polymul(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan,
             NttVariant v = kDefaultNttVariant);

/// The same product by the fused multiplication of [GPU-Polymul, Alg. 8]: truncated transforms,
/// with the last CT stage, the Hadamard product and the first GS stage fused by Karatsuba
/// ([GPU-Polymul, Alg. 7]); it reads only the first half of each twiddle table.
template <Word W>
void polymul_fused(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan,
                   NttVariant v = kDefaultNttVariant);

/// In evaluation form: c = a ⊙ b (bit-reversed order is irrelevant). Sizes checked.
template <Word W>
void hadamard(Span<const W> a, Span<const W> b, Span<W> c, const NttPlan<W>& plan);

}  // namespace polyhe
