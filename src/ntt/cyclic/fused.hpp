// The flattened prime-factor NTT (internal): a PFA tree whose leaves are small direct DFTs,
// radix-2 transforms and Rader transforms over a power-of-two convolution, run as one
// d-dimensional transform with eight columns per step ([PFA-Rader],
// "Combining Permutations": one CRT map per direction instead of one permutation per node).
//
// n = n_0·…·n_(d−1), pairwise coprime. Index j ↔ (j_0, …, j_(d−1)) = (j mod n_i)_i on both sides;
// with e_i the CRT idempotent (e_i ≡ 1 mod n_i, ≡ 0 mod n/n_i), ω^(jk) = Π_i (ω^(e_i))^(j_i·k_i),
// so the transform is the product of the one-dimensional transforms of length n_i by ω_i = ω^(e_i)
// along each axis, with no twiddle factors between them.
//
// Layout. The last axis R (the largest factor) is the row: with
// M = n/n_R, natural j ↔ (μ, ρ) = (j mod M, j mod n_R), and the input map writes row μ at
// buf[μ·P, μ·P + n_R), P a multiple of 8 words (≥ n_R + 7 when n_R ≥ 64). The other axes are
// transformed in place, eight consecutive words of a row per step (their columns lie side by side);
// axis i's digit is μ mod n_i, so its columns are row sets listed in FusedAxis::rows. The last axis
// is then transformed eight rows at a time: the rows are read transposed (lane l from row 8b + l)
// and the results written lane-interleaved in place, out[(8b)·n_R + 8·k + l], which never overtakes
// a row still to be read. The output map reads the natural order from there. Padding words and rows
// (up to a multiple of 8) are zeroed and carried along; no output reads them.
//
// Because μ is j mod M, eight consecutive natural indices j + m are (μ + m, ρ + m): a diagonal.
// The AVX-512 maps move whole lines of the natural array that way (8×8 transposes and masked
// blends, line_start), instead of one scattered word per cache line.
//
// Ranges follow Harvey's lazy butterflies: every pass takes [0, q) and returns [0, q).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "polyhe/arith/shoup.hpp"

namespace polyhe::cyclic {

/// A constant ω < q with ω' = ⌊ω·2^64/q⌋, ω' >> 32 (the AVX-512 products read both halves),
/// ⌊ω·2^52/q⌋ = ω' >> 12 (the IFMA products; meaningful for q < 2^52), and for the AVX2
/// double-precision products (q < 2^50) ω centred, ω or ω − q with |·| < q/2 (exact as a
/// double), and fl(centred/q).
struct FusedTwiddle {
  std::uint64_t w;
  std::uint64_t shoup;
  std::uint64_t shoup_hi;
  std::uint64_t shoup52;
  double centred;
  double centred_q;
};

FusedTwiddle make_fused_twiddle(std::uint64_t w, std::uint64_t q);
/// The same with the Shoup companion from `quotient` (of q): no division, for tables of many.
FusedTwiddle make_fused_twiddle(std::uint64_t w, const ShoupQuotient<std::uint64_t>& quotient,
                                std::uint64_t q);

struct FusedAxis {
  enum class Kind { direct, radix2, rader };
  Kind kind = Kind::direct;
  std::size_t n = 0;                 // the axis length n_i
  std::size_t len = 0;               // radix-2 length: n (radix2) or n − 1 (rader); 0 for direct
  std::vector<std::uint32_t> rows;   // other axes: column sets of n rows, by digit
  std::vector<FusedTwiddle> powers;  // direct: ω_i^e, e < n
  std::vector<std::uint32_t> order;  // rader: g^i mod n; radix2: bit-reverse of i
  std::vector<FusedTwiddle> twiddles;       // radix-2 stage tables, [h − 1 + i] = ω_(2h)^i
  std::vector<FusedTwiddle> kernel;         // rader: F(b)/len in bit-reversed order
  std::vector<FusedTwiddle> kernel_scaled;  // the same times 1/n (last axis of the inverse)
};

struct FusedTables {
  static constexpr std::size_t kLanes = 8;
  std::size_t n = 0;
  std::uint64_t q = 0;
  std::size_t rows = 0;         // M = n / n_R
  std::size_t padded_rows = 0;  // M rounded up to kLanes
  std::size_t pitch = 0;        // P = n_R rounded up to kLanes
  std::size_t work = 0;         // words of work space: transposed rows, column work
  bool line_maps = false;       // P ≥ n_R + 7: the AVX-512 maps may move whole lines
  std::vector<FusedAxis> others;
  FusedAxis last;
  FusedTwiddle n_inv{};
  std::vector<std::uint32_t> in_map;      // [μ·n_R + ρ] → natural index
  std::vector<std::uint32_t> out_map;     // natural index → position in the interleaved output
  std::vector<std::uint32_t> line_start;  // [b·n_R + ρ] → natural index of (μ, ρ) = (8b, ρ)

  /// Words of scratch, the 64-byte alignment slack included.
  [[nodiscard]] std::size_t scratch_words() const { return padded_rows * pitch + work + kLanes; }
};

/// One axis of length `len` (an odd prime power, or a power of two) by ω_i: radix-2 for powers of
/// two, Rader over a power-of-two convolution for primes p > 5 with p − 1 a power of two and
/// q ≡ 1 mod p − 1, a symmetric direct DFT for other odd lengths ≤ 31; kernel_scaled carries
/// `scale` (the inverse's 1/n). False (ax unspecified) when the length is none of those.
bool make_fused_axis(FusedAxis& ax, std::size_t len, std::uint64_t q, std::uint64_t omega,
                     std::uint64_t scale);

/// The tables when n has at least two prime-power factors and each is a power of two (radix-2), a
/// prime p > 5 with p − 1 a power of two and q ≡ 1 mod p − 1 (Rader), or another odd length ≤ 31
/// (a direct DFT in symmetric form, whatever the planner's subtree for it: cooley_tukey(3, 3)
/// and rader(7 -> ...) alike); nullptr otherwise (the PFA tree then runs node by node).
std::shared_ptr<const FusedTables> make_fused_tables(std::size_t n, std::uint64_t q,
                                                     std::uint64_t omega);

/// Whether make_fused_tables(n, q, ω) gives tables (for any primitive n-th root ω), by the same
/// rule and without building them: planning decides with it, and builds the tables on the first
/// transform.
bool fused_applies(std::size_t n, std::uint64_t q);
/// scratch_words() of the tables of length n (when fused_applies), without building them.
std::size_t fused_scratch_words(std::size_t n);

/// Forward (inverse = false) or inverse transform of a (length n, values in [0, q)) in place,
/// with scratch of at least tables.scratch_words() words. Dispatches on cpu_path(): ifma for
/// q < 2^50 (else avx512), avx512, avx2, scalar.
void run_fused(const FusedTables& tables, std::span<std::uint64_t> a,
               std::span<std::uint64_t> scratch, bool inverse);

/// The kernels behind run_fused, one per path. The AVX2, AVX-512 and IFMA ones are nullptr when
/// this build did not compile them.
using FusedKernel = void (*)(const FusedTables&, std::uint64_t* a, std::uint64_t* buf,
                             bool inverse);
FusedKernel fused_kernel_scalar();
FusedKernel fused_kernel_avx2();
FusedKernel fused_kernel_avx512();
FusedKernel fused_kernel_ifma();  // q < 2^50 only

}  // namespace polyhe::cyclic
