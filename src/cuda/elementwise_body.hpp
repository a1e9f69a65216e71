// The per-word arithmetic of the device element-wise operations (backend/cuda/elementwise.hpp),
// one functor per operation, applied to word i of the flattened limbs. Plain C++ with POLYHE_HD:
// elementwise.cu applies them in a grid-stride kernel, and tests/cuda_emu runs the very same
// functors on the host over host memory.
//
// Word i belongs to limb i >> log_n (n = 2^log_n words per limb). Preconditions, as the public
// functions state them: every input word of limb l in [0, q_l); c is an input exactly or
// disjoint from all. Outputs in [0, q_l). The functors validate nothing.
#pragma once

#include <cstddef>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/backend/cuda/elementwise.hpp"

namespace polyhe::cuda {

/// c[i] = (a[i] + b[i]) mod q.
template <Word W>
struct AddBody {
  const LimbModulus<W>* moduli;
  const W* a;
  const W* b;
  W* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    c[i] = add_mod(a[i], b[i], moduli[i >> log_n].q);
  }
};

/// c[i] = (a[i] − b[i]) mod q.
template <Word W>
struct SubBody {
  const LimbModulus<W>* moduli;
  const W* a;
  const W* b;
  W* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    c[i] = sub_mod(a[i], b[i], moduli[i >> log_n].q);
  }
};

/// c[i] = (−a[i]) mod q.
template <Word W>
struct NegateBody {
  const LimbModulus<W>* moduli;
  const W* a;
  W* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const { c[i] = neg_mod(a[i], moduli[i >> log_n].q); }
};

/// c[i] = a[i]·b[i] mod q (Barrett, [GPU-Polymul, Alg. 4]).
template <Word W>
struct MultiplyBody {
  const LimbModulus<W>* moduli;
  const W* a;
  const W* b;
  W* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    c[i] = mul_mod(a[i], b[i], moduli[i >> log_n].barrett);
  }
};

/// c[i] = (d[i] + a[i]·b[i]) mod q: a·b + d ≤ (q−1)² + (q−1) < q² < 2^(2m), within
/// [GPU-Polymul, Alg. 4]'s input range, so one reduction of the double word.
template <Word W>
struct MultiplyAddBody {
  const LimbModulus<W>* moduli;
  const W* a;
  const W* b;
  const W* d;
  W* c;
  int log_n;
  POLYHE_HD void operator()(std::size_t i) const {
    const Wide<W> x = mul_wide(a[i], b[i]) + d[i];
    c[i] = barrett_alg4_reduce(x, moduli[i >> log_n].barrett);
  }
};

/// Up to kInlineScalarLimbs Shoup operands by value (inside the kernel's parameters).
template <Word W>
struct InlineScalars {
  ShoupOperand<W> op[kInlineScalarLimbs];
  POLYHE_HD const ShoupOperand<W>& operator[](std::size_t limb) const { return op[limb]; }
};

/// c[i] = a[i]·s_l mod q_l by Shoup's method, s_l = scalars[l] with its companion
/// ⌊s_l·2^β / q_l⌋. Scalars is InlineScalars<W> or const ShoupOperand<W>* (device memory).
template <Word W, class Scalars>
struct MultiplyScalarBody {
  const LimbModulus<W>* moduli;
  const W* a;
  W* c;
  int log_n;
  Scalars scalars;
  POLYHE_HD void operator()(std::size_t i) const {
    const std::size_t limb = i >> log_n;
    c[i] = mul_shoup(a[i], scalars[limb], moduli[limb].q);
  }
};

}  // namespace polyhe::cuda
