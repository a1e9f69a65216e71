// Element-wise modular arithmetic on 64-bit words: the coefficient-wise operations of the ring
// layer (add, sub, negate, multiply, multiply by a constant, multiply-accumulate), on one residue
// vector or on the flattened limbs of an RNS polynomial. Each call runs the kernels of the active
// CPU path (cpu_path(): scalar, AVX-512 F/DQ, or IFMA52 for q < 2^50); every path returns the
// same words.
#pragma once

#include <cstdint>
#include <span>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/shoup.hpp"

namespace polyhe::vec {

// --- One modulus -------------------------------------------------------------------------------
//
// Checked in every build (InvalidParameter naming the value): operands of equal length,
// len(q) ≤ 62, a scalar below q, and c either exactly a or b or disjoint from both (no partial
// overlap). Precondition, asserted in debug builds only: every input word in [0, q).
// Output: every word of c in [0, q). Runs on the calling thread.

/// c = (a + b) mod q.
void add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
         std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// c = (a − b) mod q.
void sub(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
         std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// c = (−a) mod q.
void negate(std::span<const std::uint64_t> a, std::span<std::uint64_t> c,
            const Modulus<std::uint64_t>& q);

/// c = a·b mod q (Barrett, [GPU-Polymul, Alg. 4]).
void multiply(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
              std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// c = a·s mod q for a constant 0 ≤ s < q (Shoup, with s' = ⌊s·2^64 / q⌋ computed once).
void multiply_scalar(std::span<const std::uint64_t> a, std::uint64_t s, std::span<std::uint64_t> c,
                     const Modulus<std::uint64_t>& q);

/// The same with s and its Shoup companion made once by the caller (make_shoup(s, q)); s < q
/// and the companion are checked.
void multiply_scalar(std::span<const std::uint64_t> a, ShoupOperand<std::uint64_t> s,
                     std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// c = (c + a·b) mod q.
void multiply_accumulate(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// c = (d + a·b) mod q in one pass (c may also be exactly d).
void multiply_add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                  std::span<const std::uint64_t> d, std::span<std::uint64_t> c,
                  const Modulus<std::uint64_t>& q);

/// c = (a − b)·s mod q for a constant 0 ≤ s < q (one pass where sub + multiply_scalar take two).
void sub_multiply_scalar(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::uint64_t s, std::span<std::uint64_t> c,
                         const Modulus<std::uint64_t>& q);

/// The centred lift of residues modulo p to q: c = x_c mod q with x_c = x − p where x > ⌊p/2⌋
/// and x_c = x elsewhere (exact: the integer in (−p/2, p/2] congruent to x mod p, reduced mod
/// q). Base conversion from one prime (ModUp of a one-prime digit, ModDown by one special prime,
/// the correction of rescale). Checked: 2 ≤ p < 2^62 and sizes; precondition (asserted in debug
/// builds) every x < p. c may be x itself or disjoint from it.
void lift_centred(std::span<const std::uint64_t> x, std::uint64_t p, std::span<std::uint64_t> c,
                  const Modulus<std::uint64_t>& q);

/// A permutation's gather: c[i] = a[index[i]], and its accumulating form c[i] = (c[i] +
/// a[index[i]]) mod q. Any map; the SIMD paths take a group of eight outputs whose indices fall in
/// one aligned group of eight inputs (every automorphism in evaluation form) in one or two loads
/// and a permute, and the other groups word by word (hardware gathers measured slower). Checked:
/// index and c of equal length, c disjoint from a. Preconditions (asserted in debug builds only: a
/// pass over the index costs as much as the gather): every index[i] < a.size(); for gather_add
/// every word below q.
void gather(std::span<const std::uint64_t> a, std::span<const std::uint32_t> index,
            std::span<std::uint64_t> c);
void gather_add(std::span<const std::uint64_t> a, std::span<const std::uint32_t> index,
                std::span<std::uint64_t> c, const Modulus<std::uint64_t>& q);

/// The inner products of hybrid key switching against an interleaved, packed key (the layout of
/// KeySwitchParts, ring/key_parts.hpp): the key holds `parts` pairs (b_j, a_j) of n residues
/// each, `width` bytes per residue (little-endian), side by side in groups of G = min(8, n)
/// residues — group g is b_0, a_0, b_1, a_1, …, b_{parts−1}, a_{parts−1}, G residues each — so that
/// the products read it as one sequential stream no longer than the residues need. For 0 ≤ i < n:
///   c0[i] = Σ_{j < a.size()} a[j][i]·b_j[i] mod q,  c1[i] = Σ_{j < a.size()} a[j][i]·a_j[i] mod q
/// (a: the digits of ModUp, each n words; the first a.size() parts are used, as at lower levels).
/// Checked: 1 ≤ a.size() ≤ parts, no null term, 1 ≤ width ≤ 8 with q − 1 < 2^(8·width), c0 and
/// c1 of equal size n ≥ 1, n a multiple of 8 when n ≥ 8, key.size() = 2·parts·n·width bytes, no
/// output overlapping an input or the other output. Inputs (and the key's residues) in [0, q).
/// On the IFMA path the sums are lazy (one reduction per word); the key is prefetched ahead of
/// the products (the hardware prefetcher alone runs too short a distance ahead).
void key_inner_products(std::span<const std::uint64_t* const> a, std::span<const std::uint8_t> key,
                        std::size_t parts, std::size_t width, std::span<std::uint64_t> c0,
                        std::span<std::uint64_t> c1, const Modulus<std::uint64_t>& q);

// --- Limbs of an RNS polynomial ----------------------------------------------------------------
//
// The flattened layout of docs/design.md ("Data layout"): L = moduli.size() limbs of n words each,
// limb i at words [i·n, (i+1)·n) under moduli[i]; every operand holds L·n words (checked: a whole
// number of limbs, equal sizes, L ≥ 1 unless the data are empty). Same checks and ranges as above.
// `threads` as in ntt/batch.hpp: 0 = the default pool's size, 1 = the calling thread only,
// k > 1 = at most k threads. Calls on fewer than kParallelMinWords words in all run inline.

/// The smallest total size (words) a limb-batched call spreads over the thread pool.
inline constexpr std::size_t kParallelMinWords = std::size_t{1} << 16;

void add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
         std::span<std::uint64_t> c, std::span<const Modulus<std::uint64_t>> moduli,
         unsigned threads = 0);

void sub(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
         std::span<std::uint64_t> c, std::span<const Modulus<std::uint64_t>> moduli,
         unsigned threads = 0);

void negate(std::span<const std::uint64_t> a, std::span<std::uint64_t> c,
            std::span<const Modulus<std::uint64_t>> moduli, unsigned threads = 0);

void multiply(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
              std::span<std::uint64_t> c, std::span<const Modulus<std::uint64_t>> moduli,
              unsigned threads = 0);

/// Limb i is multiplied by scalars[i] < moduli[i] (an RNS constant: one residue per limb).
void multiply_scalar(std::span<const std::uint64_t> a, std::span<const std::uint64_t> scalars,
                     std::span<std::uint64_t> c, std::span<const Modulus<std::uint64_t>> moduli,
                     unsigned threads = 0);

void multiply_accumulate(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::span<std::uint64_t> c, std::span<const Modulus<std::uint64_t>> moduli,
                         unsigned threads = 0);

void multiply_add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                  std::span<const std::uint64_t> d, std::span<std::uint64_t> c,
                  std::span<const Modulus<std::uint64_t>> moduli, unsigned threads = 0);

/// Limb i is (a − b)·scalars[i] mod moduli[i].
void sub_multiply_scalar(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::span<const std::uint64_t> scalars, std::span<std::uint64_t> c,
                         std::span<const Modulus<std::uint64_t>> moduli, unsigned threads = 0);

/// The degree-2 tensor product of (a0, a1) and (b0, b1) limb by limb:
///   c0 = a0·b0,  c1 = a0·b1 + a1·b0,  c2 = a1·b1  (mod moduli[i]),
/// in blocks that keep all seven operands in L2, so memory is crossed once (four separate calls
/// would read nine and write four polynomials). Checked: equal sizes, whole limbs, no output
/// overlapping an input or another output.
void tensor(std::span<const std::uint64_t> a0, std::span<const std::uint64_t> a1,
            std::span<const std::uint64_t> b0, std::span<const std::uint64_t> b1,
            std::span<std::uint64_t> c0, std::span<std::uint64_t> c1, std::span<std::uint64_t> c2,
            std::span<const Modulus<std::uint64_t>> moduli, unsigned threads = 0);

/// One residue vector x (n words modulo p) lifted centred to every limb: limb i of c (n words
/// each, c.size() = moduli.size()·n) is lift_centred(x, p) mod moduli[i]. c must not overlap x.
void lift_centred(std::span<const std::uint64_t> x, std::uint64_t p, std::span<std::uint64_t> c,
                  std::span<const Modulus<std::uint64_t>> moduli, unsigned threads = 0);

}  // namespace polyhe::vec
