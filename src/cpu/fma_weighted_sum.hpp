// The inner sum of base conversion in double-precision arithmetic (convert_kernel.hpp's
// WeightedSumFmaKernel), out[k] = Σ_i x_i[k]·w_i mod c for x_i[k] < 2^50 and w_i < c < 2^50,
// written once over a vector of doubles (the lanes of cpu/fma_ntt.hpp): four lanes on AVX2
// (avx2/elementwise_avx2.cpp), eight on AVX-512 (avx512/weighted_sum_avx512.cpp). Internal
// linkage, as avx2/lanes.hpp: each kernel file compiles its own copy with its own flags.
//
// Each product a·w (a < 2^50, w < c) is FmaModLanes::mul's, exact and in [−0.875c, 0.875c]
// (cpu/fma_mod.hpp). A centred sum (|·| < c/2 + 1) plus eight such products stays below
// 7.5c + 1 < 2^53 in magnitude, and the sum is centred every eight terms, so it never leaves the
// exact range; the last centred sum is brought to [0, c) by adding c where it is negative.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu/fma_mod.hpp"
#include "polyhe/arith/word.hpp"

namespace polyhe::cpu {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

template <class L>
void fma_weighted_sum(const std::uint64_t* const* x, std::size_t terms, const std::uint64_t* w,
                      std::uint64_t* out, std::size_t n, std::uint64_t c) {
  using D = typename L::D;
  constexpr std::size_t kLanes = L::kLanes;
  const FmaModLanes<L> fm(c);
  const auto finish = [&](std::uint64_t * o, D s) __attribute__((always_inline)) {
    L::to_words(o, fm.canonical(s));
  };
  // The weights as doubles once per call (exact: below 2^50), broadcast in the loop. Through a
  // local pointer: the thread-local itself, named in the loop, is looked up again on every k (a
  // __tls_get_addr call in position-independent code, the vectors spilled around it).
  thread_local std::vector<double> weights;
  weights.resize(terms);
  for (std::size_t i = 0; i < terms; ++i) weights[i] = static_cast<double>(w[i]);
  const double* wd = weights.data();
  std::size_t k = 0;
  // Two vectors at a time: two independent sums, so the additions' latency (4 cycles a term on
  // one sum) overlaps, and each weight is broadcast once for both.
  for (; k + 2 * kLanes <= n; k += 2 * kLanes) {
    D s0 = L::set1(0.0);
    D s1 = s0;
    for (std::size_t i = 0; i < terms; ++i) {
      const D wi = L::set1(wd[i]);
      s0 = L::add(s0, fm.mul(L::from_words(x[i] + k), wi));
      s1 = L::add(s1, fm.mul(L::from_words(x[i] + k + kLanes), wi));
      if (i % 8 == 7) {
        s0 = fm.centre(s0);
        s1 = fm.centre(s1);
      }
    }
    finish(out + k, s0);
    finish(out + k + kLanes, s1);
  }
  for (; k + kLanes <= n; k += kLanes) {
    D s = L::set1(0.0);
    for (std::size_t i = 0; i < terms; ++i) {
      s = L::add(s, fm.mul(L::from_words(x[i] + k), L::set1(wd[i])));
      if (i % 8 == 7) s = fm.centre(s);
    }
    finish(out + k, s);
  }
  for (; k < n; ++k) {
    unsigned __int128 s = 0;
    for (std::size_t i = 0; i < terms; ++i) s = (s + polyhe::mul_wide(x[i][k], w[i])) % c;
    out[k] = static_cast<std::uint64_t>(s);
  }
}

}  // namespace
}  // namespace polyhe::cpu
