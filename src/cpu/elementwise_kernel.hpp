// The interface between the element-wise operations of polyhe::vec (cpu/elementwise.hpp) and
// their per-instruction-set kernels (scalar, AVX2, AVX-512 F/DQ, IFMA52). Kernels validate nothing:
// the dispatcher (src/cpu/elementwise.cpp) checks sizes, moduli and scalars once per call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/cpu/features.hpp"

namespace polyhe::cpu {

/// The constants of ElementwiseKernels::lift_centred for a source modulus p and a target q.
struct CentredLift {
  std::uint64_t q;
  std::uint64_t one_shoup;  // ⌊2^64 / q⌋
  std::uint64_t half;       // ⌊p / 2⌋
  std::uint64_t shift;      // p mod q
};

/// One path's kernels over n words modulo q, for 2 ≤ q < 2^62 (IFMA: see ifma_serves).
/// Preconditions of every kernel: inputs in [0, q); c may alias a or b exactly (never a partial
/// overlap); pointers need no alignment; any n ≥ 0. Outputs in [0, q), hence unique: every path
/// returns the same words as the scalar path.
struct ElementwiseKernels {
  CpuPath path;
  /// c[i] = (a[i] + b[i]) mod q.
  void (*add)(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c, std::size_t n,
              std::uint64_t q);
  /// c[i] = (a[i] − b[i]) mod q.
  void (*sub)(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c, std::size_t n,
              std::uint64_t q);
  /// c[i] = (−a[i]) mod q.
  void (*negate)(const std::uint64_t* a, std::uint64_t* c, std::size_t n, std::uint64_t q);
  /// c[i] = a[i]·b[i] mod q, by the one-correction Barrett of [GPU-Polymul, Alg. 4] with r's
  /// constants.
  void (*multiply)(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* c, std::size_t n,
                   const BarrettAlg4<std::uint64_t>& r);
  /// c[i] = a[i]·w mod q by Shoup's method; w.w < q, w.w_shoup = ⌊w·2^64 / q⌋.
  void (*multiply_scalar)(const std::uint64_t* a, ShoupOperand<std::uint64_t> w, std::uint64_t* c,
                          std::size_t n, std::uint64_t q);
  /// c[i] = (d[i] + a[i]·b[i]) mod q: one [GPU-Polymul, Alg. 4] reduction of a·b + d < q² + q ≤
  /// 2^(2m). c may also alias d exactly (d = c: multiply-accumulate).
  void (*multiply_add)(const std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* d,
                       std::uint64_t* c, std::size_t n, const BarrettAlg4<std::uint64_t>& r);
  /// c[i] = (a[i] − b[i])·w mod q by Shoup's method on a[i] + q − b[i] < 2q; w as multiply_scalar.
  void (*sub_multiply_scalar)(const std::uint64_t* a, const std::uint64_t* b,
                              ShoupOperand<std::uint64_t> w, std::uint64_t* c, std::size_t n,
                              std::uint64_t q);
  /// The centred lift to q of residues modulo another modulus p: c[i] = x_c mod q, where
  /// x_c = x[i] − p if x[i] > l.half = ⌊p/2⌋ and x[i] otherwise. x[i] mod q by Shoup with w = 1
  /// (l.one_shoup = ⌊2^64/q⌋), then l.shift = p mod q subtracted where x[i] > l.half.
  /// Preconditions: x[i] < p < 2^62 (for the IFMA kernels p < 2^52); any q as above.
  void (*lift_centred)(const std::uint64_t* x, std::uint64_t* c, std::size_t n,
                       const CentredLift& l);
  /// The key-switching inner products over an interleaved key (vec::key_inner_products): with
  /// G = min(8, n), P = parts ≥ terms and w = width bytes per residue (little-endian), word
  /// (g, j, h, r) of the key is the w bytes at ((g·2P + 2j + h)·G + r)·w, and for i < n,
  /// g = ⌊i/G⌋, r = i mod G:
  ///   c0[i] = Σ_{j < terms} a_j[i]·key(g, j, 0, r) mod q,  c1[i] = Σ_j a_j[i]·key(g, j, 1, r) mod
  ///   q.
  /// Preconditions: 1 ≤ terms ≤ parts, 1 ≤ width ≤ 8, n a multiple of G (the SIMD kernels: of
  /// 8), every residue below q, c0 and c1 disjoint from the inputs and from each other. Reads no
  /// byte outside the 2·parts·n·width of the key.
  void (*key_inner_products)(const std::uint64_t* const* a, std::size_t terms,
                             const std::uint8_t* key, std::size_t parts, std::size_t width,
                             std::uint64_t* c0, std::uint64_t* c1, std::size_t n,
                             const BarrettAlg4<std::uint64_t>& r);
  /// c[i] = a[index[i]] for i < n (vec::gather). Preconditions: every index[i] < a_size; c
  /// disjoint from a. Reads no word of a at or past a_size.
  void (*gather)(const std::uint64_t* a, std::size_t a_size, const std::uint32_t* index,
                 std::uint64_t* c, std::size_t n);
  /// c[i] = (c[i] + a[index[i]]) mod q (vec::gather_add); as gather, every word below q.
  void (*gather_add)(const std::uint64_t* a, std::size_t a_size, const std::uint32_t* index,
                     std::uint64_t* c, std::size_t n, std::uint64_t q);
};

/// How far ahead (words) the gathers prefetch their sources: the automorphisms' maps send each
/// aligned group of 8 outputs to one group of 8 inputs (ring/automorphism.cpp), so one prefetch
/// a group keeps many source lines in flight.
inline constexpr std::size_t kGatherAhead = 512;

/// Words per group of the interleaved key layout of key_inner_products (n ≥ 8; min(8, n) below).
inline constexpr std::size_t kKeyGroup = 8;

/// Always available; the specification the other paths match bit for bit.
const ElementwiseKernels& scalar_elementwise_kernels();
/// nullptr when this build did not compile the kernels (the CPU is not asked: callers check
/// cpu_path() first).
const ElementwiseKernels* avx2_elementwise_kernels();
const ElementwiseKernels* avx512_elementwise_kernels();
const ElementwiseKernels* ifma_elementwise_kernels();

/// Whether the IFMA52 kernels serve q: len(q) ≤ 50 and [GPU-Polymul, Alg. 4]'s µ = ⌊2^(2m+1)/q⌋ <
/// 2^52 (which excludes only q = 2^49), so that every operand of vpmadd52{l,h}uq fits its 52 bits.
constexpr bool ifma_serves(std::uint64_t q) {
  return q < (std::uint64_t{1} << 50) && q != (std::uint64_t{1} << 49);
}

/// The kernels that serve q on path p: IFMA for the q it serves, else AVX-512; AVX2 on the avx2
/// path; scalar for p = scalar and wherever a SIMD path was not compiled.
const ElementwiseKernels& elementwise_kernels(CpuPath p, std::uint64_t q);

}  // namespace polyhe::cpu
