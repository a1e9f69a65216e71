// The merged transforms of [GPU-Polymul] as loops over a butterfly policy (arith/butterfly.hpp).
// Host code; the CUDA kernels schedule the same butterflies their own way. Here in arith, below
// both the NTT plans (ntt/) and the CPU kernels that run them (src/cpu/), so that neither of those
// layers includes the other's headers (layers.include_rules).
#pragma once

#include <cstddef>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::detail {

/// [GPU-Polymul, Alg. 5], merged Cooley–Tukey, natural → bit-reversed, over the stages m = 1, 2, …,
/// < m_end (m_end = n for the whole transform; n/2 truncates the last stage as
/// [GPU-Polymul, Alg. 8] needs). The last stage that runs also maps its outputs through P::fwd_out,
/// so the result is in [0, q). Requires inputs in [0, q).
///
/// The policy is copied into a local so that stores through `a` cannot alias its constants (the
/// compiler would otherwise reload q on every butterfly), and the stage with one butterfly per
/// block (t = 1) runs as one flat loop in registers.
template <class P, Word W>
void forward_ct(W* a, std::size_t n, const P& policy, std::size_t m_end) {
  const P p = policy;
  std::size_t t = n;
  for (std::size_t m = 1; m < m_end; m <<= 1) {
    t >>= 1;
    const bool last = (m << 1) >= m_end;
    if (t == 1) {  // the last stage of a whole transform
      for (std::size_t i = 0; i < m; ++i) {
        W x = a[2 * i];
        W y = a[2 * i + 1];
        p.ct(x, y, p.fwd_tw(m + i));
        a[2 * i] = p.fwd_out(x);
        a[2 * i + 1] = p.fwd_out(y);
      }
      continue;
    }
    for (std::size_t i = 0; i < m; ++i) {
      const auto w = p.fwd_tw(m + i);
      W* x = a + 2 * i * t;
      W* y = x + t;
      if (!last) {
        for (std::size_t j = 0; j < t; ++j) p.ct(x[j], y[j], w);
      } else {
        for (std::size_t j = 0; j < t; ++j) {
          W u = x[j];
          W v = y[j];
          p.ct(u, v, w);
          x[j] = p.fwd_out(u);
          y[j] = p.fwd_out(v);
        }
      }
    }
  }
}

/// [GPU-Polymul, Alg. 6], merged Gentleman–Sande with the halving of §III-A, bit-reversed →
/// natural, over the stages m = m_first, m_first/2, …, 1 (m_first = n/2 for the whole transform,
/// n/4 after the fused product of [GPU-Polymul, Alg. 8]). The last stage maps through P::inv_out.
/// Requires inputs in [0, q). Local policy copy and flat t = 1 stage as in forward_ct.
template <class P, Word W>
void inverse_gs(W* a, std::size_t n, const P& policy, std::size_t m_first) {
  if (m_first == 0) return;  // no stage (n = 2 after the fused product)
  const P p = policy;
  std::size_t t = n / (2 * m_first);
  for (std::size_t m = m_first; m >= 1; m >>= 1) {
    const bool last = m == 1;
    if (t == 1 && !last) {  // the first stage of a whole transform
      for (std::size_t i = 0; i < m; ++i) {
        W x = a[2 * i];
        W y = a[2 * i + 1];
        p.gs(x, y, p.inv_tw(m + i));
        a[2 * i] = x;
        a[2 * i + 1] = y;
      }
      t <<= 1;
      continue;
    }
    for (std::size_t i = 0; i < m; ++i) {
      const auto w = p.inv_tw(m + i);
      W* x = a + 2 * i * t;
      W* y = x + t;
      if (!last) {
        for (std::size_t j = 0; j < t; ++j) p.gs(x[j], y[j], w);
      } else {
        for (std::size_t j = 0; j < t; ++j) {
          W u = x[j];
          W v = y[j];
          p.gs(u, v, w);
          x[j] = p.inv_out(u);
          y[j] = p.inv_out(v);
        }
      }
    }
    t <<= 1;
  }
}

/// The middle of [GPU-Polymul, Alg. 8]: the Hadamard product with the last CT stage and the first
/// GS stage fused into it by Karatsuba ([GPU-Polymul, Alg. 7]). After the truncated forward
/// transform, (â[2i], â[2i+1]) is a residue modulo y² − α_i², where α_i = ψ^br(n/2+i) is the last
/// stage's twiddle and α_i² = ±ψ^br(n/4+⌊i/2⌋) (+ for even i, − for odd i); for n = 2, α² = ψ² =
/// −1. Per pair: u = a0·b0, v = a1·b1, c1 = (a0+a1)(b0+b1) − u − v, c0 = u + α²·v.
/// Requires inputs in [0, q); outputs in [0, q). c may alias a.
template <class P, Word W>
void fused_hadamard(const W* a, const W* b, W* c, std::size_t n, const P& policy, W q) {
  const P p = policy;
  for (std::size_t i = 0; i < n / 2; ++i) {
    const W a0 = a[2 * i], a1 = a[2 * i + 1];
    const W b0 = b[2 * i], b1 = b[2 * i + 1];
    const W u = p.mul(a0, b0);
    const W v = p.mul(a1, b1);
    const W s = p.mul(add_mod(a0, a1, q), add_mod(b0, b1, q));
    c[2 * i + 1] = sub_mod(sub_mod(s, u, q), v, q);
    if (n == 2) {
      c[0] = sub_mod(u, v, q);
    } else {
      const W z = p.mul_tw(v, p.fwd_tw(n / 4 + i / 2));
      c[2 * i] = (i % 2 == 0) ? add_mod(u, z, q) : sub_mod(u, z, q);
    }
  }
}

}  // namespace polyhe::detail
