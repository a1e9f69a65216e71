// The CKKS encoder: the canonical embedding by the special FFT (Cheon–Kim–Kim–Song 2017, HEAAN's
// fftSpecial / fftSpecialInv; SEAL's CKKSEncoder), rounding into RNS limbs, and exact centred
// reconstruction for decoding.
//
// Notation: N the ring degree, n = N/2 slots, M = 2N, ζ = exp(2πi/M), g_j = 5^j mod M.
//
// The size-n transform. For m ∈ Z[x]/(x^N + 1) write m(x) = Σ_{k<n} (m_k + m_{k+n}·x^n)·x^k.
// Every g_j ≡ 1 (mod 4) because 5 ≡ 1 (mod 4), so ζ^{g_j·n} = exp(iπ·g_j/2) = i, and
//     z_j = m(ζ^{g_j}) = Σ_{k<n} w_k·ζ^{g_j·k},   w_k = m_k + i·m_{k+n}.
// So decoding is the n×n map F: w → z, F_{jk} = ζ^{g_j·k} (the special FFT), and encoding its
// inverse followed by m_k = Re w_k, m_{k+n} = Im w_k. Why the slot order is the one the evaluator
// needs (σ_5 rotates, σ_{M−1} conjugates) is stated in encoder.hpp.
//
// F factors as a radix-2 decimation in time. Split w into even and odd indices: for j < len,
//     Σ_{k<len} x_k·ζ_{4len}^{g_j·k} = E_j + ζ_{4len}^{g_j}·O_j,
// with E, O the same sums of half length over ζ_{2len} (ζ_L = exp(2πi/L)); they depend on j only
// through g_j mod 2len, i.e. on j mod len/2, since 5 has order len/2 mod 2len. And
// 5^{len/2} ≡ 1 + 2len (mod 4len), so ζ_{4len}^{g_{j+len/2}} = −ζ_{4len}^{g_j} (g_j odd): outputs
// j and j + len/2 form one butterfly (u + t·v, u − t·v) with t = ζ_{4len}^{g_j mod 4len}. Inputs
// in bit-reversed order, stages len = 2, 4, …, n, outputs in natural slot order.
//
// The inverse: F = P·DFT_n·diag(ζ^k) (P a row permutation), so F·F^H = n·I and F^{−1} = F^H / n,
// the transposed network with conjugate twiddles: stages len = n, …, 2 with the butterfly
// (u + v, conj(t)·(u − v)), then the bit reversal, then 1/n.
#include "polyhe/ckks/encoder.hpp"

#include <gmpxx.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "polyhe/arith/add.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/rns/bigint.hpp"
#include "polyhe/rns/wide_reduce.hpp"

namespace polyhe::ckks {

namespace {

using Complex = std::complex<double>;

// Levels whose Q_l has at most this many bits decode through double Horner: |x| < Q_l/2 never
// overflows a double. Wider ones go through GMP.
constexpr int kMaxHornerBits = 1000;

// Coefficients per block of the mixed-radix reconstruction (rns/mixed_radix.hpp).
constexpr std::size_t kGarnerBlock = MixedRadix::kBlock;

// Levels whose Q_l has at most this many bits compose their digits exactly in 128-bit integers:
// every partial value is below Q_l/2 < 2^125.
constexpr int kMaxExactBits = 126;

// exp(2πi·e/m), computed in long double so the double result is within ~0.5 ulp.
Complex unit_root(std::uint64_t e, std::uint64_t m) {
  const long double angle = 2.0L * std::numbers::pi_v<long double> *
                            static_cast<long double>(e % m) / static_cast<long double>(m);
  return {static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
}

// Plain complex products: std::complex's operator* takes the NaN-recovering slow path (__muldc3).
inline Complex mul(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
inline Complex mul_conj(Complex a, Complex b) {  // a·conj(b)
  return {a.real() * b.real() + a.imag() * b.imag(), a.imag() * b.real() - a.real() * b.imag()};
}

std::string format_pow2(double x) {
  std::ostringstream s;
  s.precision(4);
  s << "2^" << std::log2(x);
  return s.str();
}

// a mod q for a signed 64-bit a, with one = make_shoup(1, q): Shoup's product by 1 reduces any
// word (shoup.hpp). Output in [0, q).
inline std::uint64_t reduce_signed(std::int64_t a, ShoupOperand<std::uint64_t> one,
                                   std::uint64_t q) {
  const std::uint64_t mag =
      a < 0 ? 0 - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
  const std::uint64_t r = mul_shoup(mag, one, q);
  return a < 0 ? neg_mod(r, q) : r;
}

std::shared_ptr<const RingContext> non_null(std::shared_ptr<const RingContext> context) {
  if (!context) throw InvalidParameter("ckks::Encoder: the RingContext is null");
  if (!context->power_of_two()) {
    throw InvalidParameter("ckks::Encoder: the ring is Phi_" + std::to_string(context->m()) +
                           " (odd m); CKKS here serves x^N + 1 only (its slots are the complex "
                           "roots of x^N + 1)");
  }
  return context;
}

}  // namespace

Encoder::Encoder(std::shared_ptr<const RingContext> context)
    : context_(non_null(std::move(context))),
      slots_(context_->n() / 2),
      mixed_radix_(context_->basis()) {
  const std::size_t n = slots_;
  const std::uint64_t m = 2 * static_cast<std::uint64_t>(context_->n());
  const int log_slots = context_->log_n() - 1;

  // g_j = 5^j mod M for j < n/2: the stages use j < h ≤ n/2.
  std::vector<std::uint64_t> g(std::max<std::size_t>(n / 2, 1));
  g[0] = 1;
  for (std::size_t j = 1; j < g.size(); ++j) g[j] = (g[j - 1] * 5) % m;
  twiddles_.assign(n, Complex(1.0, 0.0));
  for (std::size_t h = 1; h < n; h <<= 1) {
    const std::uint64_t lenq = 8 * static_cast<std::uint64_t>(h);  // 4·len, len = 2h
    for (std::size_t j = 0; j < h; ++j) twiddles_[h + j] = unit_root((g[j] % lenq) * (m / lenq), m);
  }

  bit_reverse_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t r = 0;
    for (int b = 0; b < log_slots; ++b)
      r |= static_cast<std::uint32_t>((i >> b) & 1U) << (log_slots - 1 - b);
    bit_reverse_[i] = r;
  }

  const RnsBasis& basis = context_->basis();
  mpz_class q_l = 1;
  for (std::size_t i = 0; i < basis.size(); ++i) {
    q_l *= basis.prime(i);
    const int bits = static_cast<int>(mpz_sizeinbase(q_l.get_mpz_t(), 2));
    const mpz_class half = (q_l - 1) / 2;
    // mpz_get_d truncates: the largest double ≤ (Q_l − 1)/2 while that is below 2^1024.
    const double max_coeff = bits <= 1024 ? half.get_d() : std::numeric_limits<double>::max();
    levels_.push_back({bits, max_coeff});
    if (bits <= kMaxExactBits) prefix_limbs_ = i + 1;
    const std::uint64_t q = basis.prime(i);
    one_.push_back(make_shoup<std::uint64_t>(1, q));
    wide_.push_back(make_wide_barrett(q));
  }
}

void Encoder::check_context(const RnsPoly& p, const char* op) const {
  if (p.context() != context_) {
    throw MismatchedContext(std::string("ckks::Encoder::") + op +
                            ": the polynomial belongs to another RingContext than the encoder's");
  }
}

namespace {

void check_scale(double scale, const char* op) {
  if (!(scale > 0.0) || !std::isfinite(scale)) {
    std::ostringstream s;
    s << "ckks::Encoder::" << op << ": scale = " << scale << " must be positive and finite";
    throw InvalidParameter(s.str());
  }
}

void check_count(std::size_t count, std::size_t slots) {
  if (count > slots) {
    throw InvalidParameter("ckks::Encoder::encode: " + std::to_string(count) +
                           " values but only N/2 = " + std::to_string(slots) +
                           " slots (at most one value per slot)");
  }
}

[[noreturn]] void throw_not_finite(std::size_t index, Complex v) {
  std::ostringstream s;
  s << "ckks::Encoder::encode: values[" << index << "] = (" << v.real() << ", " << v.imag()
    << ") is not finite; every slot value must be a finite number";
  throw InvalidParameter(s.str());
}

}  // namespace

// One stage of half-length h; the forward direction is the DIT butterfly, the inverse its
// transpose with conjugate twiddles (see the top of this file).
template <bool kInverse>
void Encoder::transform(std::span<Complex> values) const {
  Complex* a = values.data();
  const std::size_t n = slots_;
  const auto reverse = [&] {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t r = bit_reverse_[i];
      if (i < r) std::swap(a[i], a[r]);
    }
  };
  const auto stage = [&](std::size_t h) {
    const Complex* tw = twiddles_.data() + h;
    for (std::size_t i = 0; i < n; i += 2 * h) {
      Complex* lo = a + i;
      Complex* hi = a + i + h;
      for (std::size_t j = 0; j < h; ++j) {
        if constexpr (kInverse) {
          const Complex u = lo[j];
          const Complex v = hi[j];
          lo[j] = u + v;
          hi[j] = mul_conj(u - v, tw[j]);
        } else {
          const Complex u = lo[j];
          const Complex v = mul(hi[j], tw[j]);
          lo[j] = u + v;
          hi[j] = u - v;
        }
      }
    }
  };
  if constexpr (kInverse) {
    for (std::size_t h = n / 2; h >= 1; h >>= 1) stage(h);
    reverse();
  } else {
    reverse();
    for (std::size_t h = 1; h < n; h <<= 1) stage(h);
  }
}

void Encoder::special_fft(std::span<Complex> values) const {
  if (values.size() != slots_) {
    throw InvalidParameter("ckks::Encoder::special_fft: " + std::to_string(values.size()) +
                           " values, expected slots() = N/2 = " + std::to_string(slots_));
  }
  transform<false>(values);
}

void Encoder::special_ifft(std::span<Complex> values) const {
  if (values.size() != slots_) {
    throw InvalidParameter("ckks::Encoder::special_ifft: " + std::to_string(values.size()) +
                           " values, expected slots() = N/2 = " + std::to_string(slots_));
  }
  transform<true>(values);
  const double inv_n = 1.0 / static_cast<double>(slots_);  // exact: n is a power of two
  for (Complex& v : values) v = {v.real() * inv_n, v.imag() * inv_n};
}

void Encoder::encode(std::span<const Complex> values, double scale, RnsPoly& out) const {
  check_context(out, "encode");
  check_count(values.size(), slots_);
  check_scale(scale, "encode");
  std::vector<Complex> buf(slots_);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i].real()) || !std::isfinite(values[i].imag())) {
      throw_not_finite(i, values[i]);
    }
    buf[i] = values[i];
  }
  encode_buffer(buf, scale, out);
}

void Encoder::encode(std::span<const double> values, double scale, RnsPoly& out) const {
  check_context(out, "encode");
  check_count(values.size(), slots_);
  check_scale(scale, "encode");
  std::vector<Complex> buf(slots_);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) throw_not_finite(i, values[i]);
    buf[i] = values[i];
  }
  encode_buffer(buf, scale, out);
}

namespace {

// Rounds every component of buf·factor to the nearest integer, in place; returns the largest
// magnitude (NaN when some component is not finite).
double round_scaled(std::span<Complex> buf, double factor) {
  double* x = reinterpret_cast<double*>(buf.data());  // [re, im] pairs, as std::complex allows
  const std::size_t count = 2 * buf.size();
  double max = 0.0;
  bool finite = true;
  for (std::size_t i = 0; i < count; ++i) {
    x[i] *= factor;
    const double mag = std::abs(x[i]);
    max = mag > max ? mag : max;
    finite &= mag <= std::numeric_limits<double>::max();
  }
  if (!finite) return std::numeric_limits<double>::quiet_NaN();
  if (max < 0x1p51) {
    // x + 1.5·2^52 − 1.5·2^52 rounds to nearest (ties to even) for |x| < 2^51, branch-free.
    constexpr double kMagic = 0x1.8p52;
    for (std::size_t i = 0; i < count; ++i) x[i] = (x[i] + kMagic) - kMagic;
  } else {
    for (std::size_t i = 0; i < count; ++i) x[i] = std::nearbyint(x[i]);
  }
  return std::nearbyint(max);  // |round(x)| = round(|x|), and rounding is monotone
}

// Residues of coefficients too large for int64: c = M·2^t with M < 2^53 an integer, t ≥ 0 (frexp),
// so c mod q = (M mod q)·(2^t mod q) mod q, exact. pow2[t] = 2^t mod q.
std::uint64_t reduce_large(double c, const Modulus<std::uint64_t>& mod,
                           ShoupOperand<std::uint64_t> one, std::span<const std::uint64_t> pow2) {
  const std::uint64_t q = mod.value();
  int e = 0;
  const double frac = std::frexp(std::abs(c), &e);  // |c| = frac·2^e, frac ∈ [0.5, 1), e ≥ 64
  const auto mant = static_cast<std::uint64_t>(std::ldexp(frac, 53));
  const std::uint64_t r = mod.mul(mul_shoup(mant, one, q), pow2[static_cast<std::size_t>(e - 53)]);
  return c < 0 ? neg_mod(r, q) : r;
}

// The rounded coefficients (Re buf[k] at k, Im buf[k] at k + n, integral doubles below 2^63 in
// magnitude) as int64.
void rounded_coefficients(std::span<const Complex> buf, std::span<std::int64_t> out) {
  const double* x = reinterpret_cast<const double*>(buf.data());
  const std::size_t n = buf.size();
  for (std::size_t k = 0; k < n; ++k) {
    out[k] = static_cast<std::int64_t>(x[2 * k]);
    out[k + n] = static_cast<std::int64_t>(x[2 * k + 1]);
  }
}

// out's limbs = the rounded coefficients (Re buf[k] at k, Im buf[k] at k + n, integers of
// magnitude ≤ max < Q_l/2) mod each prime, exactly. out is only written to.
void write_residues(std::span<const Complex> buf, double max,
                    std::span<const Modulus<std::uint64_t>> moduli, RnsPoly& out) {
  const double* x = reinterpret_cast<const double*>(buf.data());
  const std::size_t n = buf.size();
  const std::size_t limbs = moduli.size();
  const auto coeff = [&](std::size_t c) { return c < n ? x[2 * c] : x[2 * (c - n) + 1]; };
  if (max < 0x1p63) {
    // Fast path: the rounded coefficients as int64 in limb 0, then every limb from them (limb 0
    // last, in place).
    const auto max_word = static_cast<std::uint64_t>(max);
    std::span<std::uint64_t> stage = out.limb(0);
    rounded_coefficients(
        buf, std::span<std::int64_t>(reinterpret_cast<std::int64_t*>(stage.data()), stage.size()));
    for (std::size_t i = limbs; i-- > 0;) {
      const std::uint64_t q = moduli[i].value();
      std::span<std::uint64_t> dst = out.limb(i);
      if (max_word < q) {  // every |c| < q: add q to the negative ones
        for (std::size_t c = 0; c < 2 * n; ++c) {
          const std::uint64_t w = stage[c];
          dst[c] = w + (q & (0 - (w >> 63)));
        }
      } else {
        const ShoupOperand<std::uint64_t> one = make_shoup<std::uint64_t>(1, q);
        for (std::size_t c = 0; c < 2 * n; ++c) {
          dst[c] = reduce_signed(static_cast<std::int64_t>(stage[c]), one, q);
        }
      }
    }
  } else {
    int max_exp = 0;
    (void)std::frexp(max, &max_exp);
    std::vector<std::uint64_t> pow2(static_cast<std::size_t>(max_exp - 53 + 1));
    for (std::size_t i = 0; i < limbs; ++i) {
      const std::uint64_t q = moduli[i].value();
      const ShoupOperand<std::uint64_t> one = make_shoup<std::uint64_t>(1, q);
      pow2[0] = 1 % q;
      for (std::size_t t = 1; t < pow2.size(); ++t) pow2[t] = add_mod(pow2[t - 1], pow2[t - 1], q);
      std::span<std::uint64_t> dst = out.limb(i);
      for (std::size_t c = 0; c < 2 * n; ++c) {
        const double v = coeff(c);
        dst[c] = std::abs(v) < 0x1p63 ? reduce_signed(static_cast<std::int64_t>(v), one, q)
                                      : reduce_large(v, moduli[i], one, pow2);
      }
    }
  }
}

}  // namespace

void Encoder::encode_buffer(std::vector<Complex>& buf, double scale, RnsPoly& out) const {
  const std::size_t n = slots_;
  const std::size_t limbs = out.limbs();
  transform<true>(buf);
  // Coefficient k is Re(buf[k]), coefficient k + n is Im(buf[k]) (w = F^{−1} z needs 1/n).
  const double max = round_scaled(buf, scale / static_cast<double>(n));
  const Level& level = levels_[limbs - 1];
  if (!(max <= level.max_coeff)) {
    std::ostringstream s;
    s << "ckks::Encoder::encode: a coefficient of scale * special_ifft(values) has magnitude "
      << (std::isfinite(max) ? format_pow2(max) : std::string("beyond double range"))
      << " >= Q/2 = 2^" << level.product_bits - 1 << " at level " << limbs - 1 << " (" << limbs
      << " limbs), scale = " << format_pow2(scale)
      << ": the values times the scale exceed the modulus at this level; use a smaller scale, "
         "smaller values, or encode at a higher level (more limbs)";
    throw InvalidParameter(s.str());
  }
  if (out.on_device()) {
    // The special FFT and the rounding run on the host; with coefficients below 2^63 the device
    // takes one limb of them as int64 and makes every residue and transform itself, so neither
    // the L limbs of residues nor their NTTs are made on the host (nor copied across).
    const std::shared_ptr<Device>& device = out.device();
    RnsPoly coef(out.context(), limbs, PolyForm::kCoefficient, RnsPoly::kForOverwrite, device);
    if (max < 0x1p63) {
      std::vector<std::int64_t> rounded(2 * n);
      rounded_coefficients(buf, rounded);
      device->lift_signed(*out.context(), LimbRange{0, limbs}, rounded, coef.device_words());
    } else {
      RnsPoly host(out.context(), limbs, PolyForm::kCoefficient, RnsPoly::kForOverwrite);
      write_residues(buf, max, context_->moduli(limbs), host);
      coef = host.to_device(device);
    }
    coef.to_evaluation();
    out = std::move(coef);
    return;
  }
  // The residues are coefficients: written into a polynomial in coefficient form (out itself when
  // it is in that form, as encode() makes it), then transformed.
  if (out.form() == PolyForm::kEvaluation) {
    out = RnsPoly(out.context(), limbs, PolyForm::kCoefficient, RnsPoly::kForOverwrite);
  }
  write_residues(buf, max, context_->moduli(limbs), out);
  out.to_evaluation();
}

void Encoder::reconstruct(const RnsPoly& p, double scale, std::span<double> coeffs) const {
  const std::size_t limbs = p.limbs();
  const std::size_t big_n = p.n();
  const auto moduli = context_->moduli(limbs);
  const int bits = levels_[limbs - 1].product_bits;
  if (limbs == 1) {
    const std::uint64_t q = moduli[0].value();
    const std::span<const std::uint64_t> x = p.limb(0);
    for (std::size_t c = 0; c < big_n; ++c) {
      // Centred by a mask, not a select GCC may make a jump: the words are a decryption's.
      const std::uint64_t upper = std::uint64_t{0} - static_cast<std::uint64_t>(x[c] > q / 2);
      const auto v = static_cast<std::int64_t>(x[c] - (q & upper));
      coeffs[c] = static_cast<double>(v) / scale;
    }
    return;
  }
  // First every block through the first `prefix` primes (balanced mixed radix, Garner, in
  // blocks of coefficients so the limb steps of different coefficients overlap instead of
  // forming one long dependency chain): the candidate x' is the centred value mod
  // Q' = q_0⋯q_{prefix−1} < 2^126, exact in 128 bits. With every prime in the prefix x' is x.
  // Otherwise x' is x exactly when x' ≡ x_i (mod q_i) for every other prime: then x' ≡ x mod
  // Q_l, and both lie in (−Q_l/2, Q_l/2] (|x'| ≤ Q'/2 ≤ Q_l/2), where the representative is
  // unique. That check costs one or two word products per prime, against i for prime i in
  // Garner's steps. A block with a coefficient that fails (|x| > Q'/2) takes every prime below.
  const std::size_t prefix = std::min(prefix_limbs_, limbs);
  const std::uint64_t* words = p.data().data();
  // The blocks in contiguous ranges on the pool (each coefficient's work is its own); each range
  // lists its blocks that need every prime, and those lists are joined in order below.
  const std::size_t blocks = (big_n + kGarnerBlock - 1) / kGarnerBlock;
  const std::size_t threads = thread_count();
  const std::size_t ranges = threads == 1 ? 1 : std::min(blocks, 4 * threads);
  std::vector<std::vector<std::size_t>> failed(ranges);
  const auto run_range = [&](std::size_t r) {
    std::vector<std::int64_t> digits(limbs * kGarnerBlock);
    const std::size_t b_end = blocks * (r + 1) / ranges;
    for (std::size_t b = blocks * r / ranges; b < b_end; ++b) {
      const std::size_t c0 = b * kGarnerBlock;
      const std::size_t count = std::min(kGarnerBlock, big_n - c0);
      mixed_radix_.digits(words + c0, big_n, count, prefix, digits.data());
      __extension__ __int128 x[kGarnerBlock];
      for (std::size_t c = 0; c < count; ++c) {
        __extension__ __int128 acc = digits[(prefix - 1) * kGarnerBlock + c];
        for (std::size_t j = prefix - 1; j-- > 0;) {
          acc = acc * moduli[j].value() + digits[j * kGarnerBlock + c];
        }
        x[c] = acc;
      }
      // x' mod q_i: where every x' of the block fits in 64 bits, by one Shoup product
      // (reduce_signed); otherwise |x'| < 2^125 by the 128-bit Barrett reduction, the sign after.
      bool narrow = true;
      for (std::size_t c = 0; c < count; ++c) {
        narrow &= static_cast<std::int64_t>(x[c] >> 64) ==
                  (static_cast<std::int64_t>(static_cast<std::uint64_t>(x[c])) >> 63);
      }
      bool same = true;
      for (std::size_t i = prefix; i < limbs && same; ++i) {
        const std::uint64_t q = moduli[i].value();
        const std::uint64_t* xi = words + i * big_n + c0;
        if (narrow) {
          for (std::size_t c = 0; c < count; ++c) {
            same &= reduce_signed(static_cast<std::int64_t>(x[c]), one_[i], q) == xi[c];
          }
        } else {
          for (std::size_t c = 0; c < count; ++c) {
            const bool negative = x[c] < 0;
            const u128 mag = negative ? 0 - static_cast<u128>(x[c]) : static_cast<u128>(x[c]);
            const std::uint64_t r128 = wide_reduce(mag, wide_[i]);
            same &= (negative ? neg_mod(r128, q) : r128) == xi[c];
          }
        }
      }
      if (!same) {
        failed[r].push_back(c0);
        continue;
      }
      for (std::size_t c = 0; c < count; ++c) coeffs[c0 + c] = static_cast<double>(x[c]) / scale;
    }
  };
  if (ranges == 1) {
    run_range(0);  // inlined: one thread's decode as before the ranges
  } else {
    parallel_for(ranges, run_range);
  }
  // The first coefficient of each block that needs every prime, in order.
  std::vector<std::size_t> full = std::move(failed[0]);
  for (std::size_t r = 1; r < ranges; ++r) {
    full.insert(full.end(), failed[r].begin(), failed[r].end());
  }
  if (full.empty()) return;
  if (bits > kMaxHornerBits) {
    // GMP: the centred value as d·2^e, then d·2^e / scale without overflowing on the way.
    const RnsBasis basis = context_->basis().prefix(limbs);
    const mpz_class& big_q = big_product(basis);
    int scale_exp = 0;
    const double scale_frac = std::frexp(scale, &scale_exp);
    for (const std::size_t c0 : full) {
      for (std::size_t c = c0; c < std::min(c0 + kGarnerBlock, big_n); ++c) {
        const mpz_class v = centre(to_bigint(p.data(), basis, c), big_q);
        long e = 0;
        const double d = mpz_get_d_2exp(&e, v.get_mpz_t());
        coeffs[c] = std::ldexp(d / scale_frac, static_cast<int>(e) - scale_exp);
      }
    }
    return;
  }
  // Double Horner over every prime's digit (here Q_l has more than 126 bits, since a block
  // fails only with primes beyond the prefix). Exact while |acc| < 2^53; beyond, each step adds
  // ~3 ulp relative (no cancellation: the lower digit is at most half of q_j·|acc|), so
  // ≤ ~3·limbs ulp in all.
  std::vector<std::int64_t> digits(limbs * kGarnerBlock);
  for (const std::size_t c0 : full) {
    const std::size_t count = std::min(kGarnerBlock, big_n - c0);
    mixed_radix_.digits(words + c0, big_n, count, moduli.size(), digits.data());
    for (std::size_t c = 0; c < count; ++c) {
      const auto v = [&](std::size_t i) { return digits[i * kGarnerBlock + c]; };
      double acc = static_cast<double>(v(limbs - 1));
      for (std::size_t j = limbs - 1; j-- > 0;) {
        acc = acc * static_cast<double>(moduli[j].value()) + static_cast<double>(v(j));
      }
      coeffs[c0 + c] = acc / scale;
    }
  }
}

std::vector<Complex> Encoder::decode(const RnsPoly& p, double scale) const {
  check_context(p, "decode");
  check_scale(scale, "decode");
  if (p.on_device()) {
    // Decoding runs on the host: the coefficients come back after the device's inverse NTT.
    RnsPoly coefficients = p;
    if (coefficients.form() == PolyForm::kEvaluation) coefficients.to_coefficient();
    return decode(coefficients.to_host(), scale);
  }
  std::optional<RnsPoly> coefficients;
  const RnsPoly* src = &p;
  if (p.form() == PolyForm::kEvaluation) {
    // The inverse transforms read p's limbs and write the coefficients: no pass copying p first.
    coefficients.emplace(p.context(), p.limbs(), PolyForm::kCoefficient, RnsPoly::kForOverwrite);
    const RingContext& ring = *p.context();
    parallel_for(p.limbs(),
                 [&](std::size_t i) { ring.inverse(i, p.limb(i), coefficients->limb(i)); });
    src = &*coefficients;
  }
  const std::size_t n = slots_;
  std::vector<double> coeffs(2 * n);
  reconstruct(*src, scale, coeffs);
  std::vector<Complex> z(n);
  for (std::size_t k = 0; k < n; ++k) z[k] = {coeffs[k], coeffs[k + n]};
  transform<false>(z);
  return z;
}

std::vector<double> Encoder::decode_real(const RnsPoly& p, double scale) const {
  const std::vector<Complex> z = decode(p, scale);
  std::vector<double> re(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) re[i] = z[i].real();
  return re;
}

}  // namespace polyhe::ckks
