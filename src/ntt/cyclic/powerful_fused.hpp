// The powerful-basis transform of Z_q[X]/Φ_m as one pruned tensor transform (internal): the
// evaluation transform of PowerfulNtt (polyhe/ntt/cyclic/powerful.hpp) on the flattened PFA's
// kernels (fused_kernels.hpp), with no map at all.
//
// The coordinates are already a tensor: row-major over the factors m_0, …, m_(r−1) (ascending
// primes), axis i of length φ(m_i), and the transform is the product of one (φ(m_i) × φ(m_i))
// Vandermonde matrix per axis, V_i[κ][j] = ω_i^(k_κ·j) with k_κ the κ-th unit mod m_i. So each
// axis runs the length-m_i DFT of its column with the inputs j ≥ φ(m_i) read as zero and the
// outputs at non-units not stored: the pruned axes keep φ(m) words all along, where the length-m
// route transforms m words and then drops m − φ(m) of them (at m = 21845: 24.8 k vector products
// against 32.5 k, and neither the scatter, the two CRT maps nor the gather).
//
// Layout. The last factor R is the row: rows of W = φ(m_R) words, M = φ(m)/W rows, both
// multiples of 8. The other axes run in place on eight consecutive words of the rows (their
// strides are multiples of W). The row axis runs eight rows at a time: transposed into t
// (t[8·j + l] = row l, word j), transformed there, transposed back. So input and output are in
// the documented row-major orders, the coefficients' and the slots' alike.
//
// Inverse: along each axis, the DFT by ω_i^−1 of the values with zeros at the non-units gives
// y_j (j < m_i) with y ≡ a·m_i mod x^(m_i) − 1 (as polynomials in x_i) and y(1)-type
// components zero; reducing by Φ_(p^e)(x) = Σ_(c<p) x^(c·p^(e−1)) — y_(j·P + c) − y_((p−1)·P + c)
// for j < p − 1, c < P = p^(e−1) — gives the coordinates. The row axis goes first in the
// inverse, with 1/m folded into its Rader kernel (kernel_scaled) or its outputs (direct).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fused.hpp"

namespace polyhe::cyclic {

struct PowerfulAxis {
  std::size_t m = 0;       // m_i = p^e
  std::size_t p = 0;       // the prime
  std::size_t phi = 0;     // φ(m_i) = (p − 1)·p^(e−1)
  std::size_t stride = 0;  // words between consecutive digits of this axis (W·… for the others)
  FusedAxis forward;       // the length-m_i DFT by ω_i (direct or Rader)
  FusedAxis inverse;       // by ω_i^−1; for the row axis, kernel_scaled carries 1/m
  std::vector<std::int32_t> rank;  // [k], k < m_i: position of k among the units, −1 otherwise
};

struct PowerfulTables {
  static constexpr std::size_t kLanes = FusedTables::kLanes;
  std::size_t m = 0;
  std::size_t degree = 0;  // φ(m)
  std::uint64_t q = 0;
  std::size_t rows = 0;   // M = φ(m)/W
  std::size_t width = 0;  // W = φ(m_R)
  std::vector<PowerfulAxis> others;
  PowerfulAxis last;
  FusedTwiddle m_inv{};  // 1/m (the inverse's scale, on the row axis)
  std::size_t work = 0;  // words of work space: t, the Rader work, the inverse's column

  /// Words of scratch, the 64-byte alignment slack included.
  [[nodiscard]] std::size_t scratch_words() const { return work + kLanes; }
};

/// The tables for m (odd, at least two prime-power factors) and q (prime, q ≡ 1 mod m) with ω a
/// primitive m-th root, when every factor is an axis make_fused_axis serves (odd prime powers
/// ≤ 31 direct, Rader primes with p − 1 a power of two and q ≡ 1 mod p − 1) and the last
/// factor's φ and the row count φ(m)/φ(m_R) are multiples of 8; nullptr otherwise (PowerfulNtt
/// then takes another route).
std::shared_ptr<const PowerfulTables> make_powerful_tables(std::size_t m, std::uint64_t q,
                                                           std::uint64_t omega);

/// Coefficient → evaluation form (inverse = false) or back, in place on a (φ(m) words in
/// [0, q)), with scratch of at least tables.scratch_words() words. Dispatches as run_fused.
void run_powerful(const PowerfulTables& tables, std::span<std::uint64_t> a,
                  std::span<std::uint64_t> scratch, bool inverse);

using PowerfulKernel = void (*)(const PowerfulTables&, std::uint64_t* a, std::uint64_t* buf,
                                bool inverse);
PowerfulKernel powerful_kernel_scalar();
PowerfulKernel powerful_kernel_avx2();    // nullptr when not compiled
PowerfulKernel powerful_kernel_avx512();  // nullptr when not compiled
PowerfulKernel powerful_kernel_ifma();    // q < 2^50 only; nullptr when not compiled

}  // namespace polyhe::cyclic
