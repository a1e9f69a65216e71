// Internal (src/ckks): the encoder's special FFT as slot matrices in diagonal form, for the
// homomorphic encoding and decoding of bootstrapping (CoeffToSlot, SlotToCoeff).
//
// The encoder (encoder.cpp) computes F·w = S_{n/2}···S_2·S_1·BR·w and F⁻¹·z = BR·S'_1···S'_{n/2}
// ·z/n, BR the bit reversal and S_h the butterflies of half-length h: for a block start i and
// j < h, (lo, hi) = (a[i+j], a[i+j+h]) → (lo + t_j·hi, lo − t_j·hi), t_j = ζ^{(g_j mod 8h)·(M/8h)};
// S'_h maps (lo, hi) → (lo + hi, conj(t_j)·(lo − hi)). As matrices each has three diagonals
// (0, h and n − h). Bootstrapping leaves BR out on both sides: CoeffToSlot computes
// S'_1···S'_{n/2}·z = n·BR(F⁻¹z), the coefficients in bit-reversed slots; the slot-wise EvalMod
// does not care; SlotToCoeff's S_{n/2}···S_1 applied to them gives F·w again.
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

#include "polyhe/ckks/linear_transform.hpp"

namespace polyhe::ckks::detail {

/// The twiddles of the stage of half-length h (h < n, a power of two), j < h, for N = 2n.
[[nodiscard]] std::vector<std::complex<double>> stage_twiddles(std::size_t n, std::size_t h);

/// S_h (forward, decode direction) or S'_h (inverse) over n slots, in diagonal form.
[[nodiscard]] Diagonals fft_stage(std::size_t n, std::size_t h, bool inverse);

/// a·b in diagonal form (b applied first); diagonals that cancel to zero everywhere are dropped.
[[nodiscard]] Diagonals compose(const Diagonals& a, const Diagonals& b, std::size_t n);

/// Every value times c.
void scale_diagonals(Diagonals& d, std::complex<double> c);

/// The stages of one direction merged into `groups` matrices (1 ≤ groups ≤ log2 n), in the order
/// they are applied, the log2 n stages split as evenly as possible (the first groups take the
/// extra stage). Forward (SlotToCoeff): S_1 first. Inverse (CoeffToSlot): S'_{n/2} first.
[[nodiscard]] std::vector<Diagonals> fft_groups(std::size_t n, std::size_t groups, bool inverse);

}  // namespace polyhe::ckks::detail
