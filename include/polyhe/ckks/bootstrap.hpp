// CKKS bootstrapping (Cheon–Han–Kim–Kim–Song 2018; the full-RNS, full-slot form of
// Chen–Chillotti–Song 2019 and Bossuat–Mouchet–Troncoso-Pastoriza–Hubaux 2021): a ciphertext at
// the bottom of the modulus chain becomes one of the same message with levels to spend again.
//
//   ModRaise      c at level 0 (mod q_0), its coefficients lifted centred to Q_L: it decrypts
//                 to t = m + q_0·I, I a small integer polynomial (|I| ≲ K; K about 6σ of
//                 (c_0 + c_1·s)/q_0, σ ≈ √((h + 1)/12) for a secret of Hamming weight h).
//   CoeffToSlot   the encoding's inverse, homomorphically (the special FFT's inverse stages, in
//                 `coeff_to_slot_levels` merged linear transforms): slots hold the coefficients
//                 t_k/(2·q_0·K) as complex pairs; a conjugation splits them into two ciphertexts
//                 of real slots t_k/(q_0·K) ∈ [−1, 1] (bit-reversed order, which SlotToCoeff
//                 undoes).
//   EvalMod       t/q_0 mod 1 = m/q_0 (m ≪ q_0), as sin(2π·K·u)/(2π) of u = t/(q_0·K): a
//                 Chebyshev series on [−1, 1] (EvalMod::chebyshev), or cos(2π(K·u − 1/4)/2^r)
//                 followed by r double angles (EvalMod::double_angle); both slot by slot;
//                 optionally arcsin's series after it (`arcsine_degree`), so that a message
//                 large against q_0 (a small `message_ratio_bits`) loses little to the sine.
//   SlotToCoeff   the encoding itself (the special FFT's stages, `slot_to_coeff_levels` merged
//                 transforms) on the recombined m/q_0, folded with q_0/Δ': the message again.
//
// Sparse-secret encapsulation (Bossuat–Troncoso-Pastoriza–Hubaux 2022): with
// `encapsulation_weight` h' > 0 the ciphertext is switched, at level 0, from the user's secret s
// (dense: the secret the HE standard's table is for) to an ephemeral secret s' of exactly h'
// nonzero coefficients, raised under s', and switched back to s at the top level. K then bounds
// ModRaise's I for h' (σ ≈ 1.7 for h' = 32) whatever s is. The key s → s' lives only at the
// modulus q_0·P' (P' the fewest special primes at least as wide as q_0): an RLWE sample under the
// sparse s' at a modulus of a few hundred bits; the key s' → s is an ordinary key under s.
//
// Everything runs at one working scale Δ' (default: the top prime's size; every transform and the
// series land on it exactly); the ciphertext returned carries the input's scale and decrypts to
// the input's slots. The levels it consumes are depth(); the keys it needs, rotations() and the
// conjugation key. Written over the evaluator's operations, so it runs wherever the ciphertext
// lives (ModRaise's lift is made in host memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "polyhe/ckks/ckks.hpp"
#include "polyhe/ckks/context.hpp"
#include "polyhe/ckks/linear_transform.hpp"
#include "polyhe/ckks/polynomial.hpp"
#include "polyhe/rlwe/keys.hpp"

namespace polyhe::ckks {

/// c (any level: dropped to 0 first) with its level-0 coefficients lifted, centred, to every
/// prime of Q_L: a ciphertext at the top level decrypting to t = m + q_0·I. Scale and device
/// kept. InvalidParameter for a ciphertext of size 3.
[[nodiscard]] Ciphertext mod_raise(const Evaluator& ev, const Ciphertext& ct);

enum class EvalMod { chebyshev, double_angle };

struct BootstrapConfig {
  std::size_t coeff_to_slot_levels = 2;  ///< merged CoeffToSlot transforms (1 … log2(N/2))
  std::size_t slot_to_coeff_levels = 2;  ///< merged SlotToCoeff transforms (1 … log2(N/2))
  double k = 16;                         ///< the bound K on |I| (EvalMod's interval [−K, K])
  EvalMod eval_mod = EvalMod::chebyshev;
  std::size_t sine_degree = 0;  ///< EvalMod's Chebyshev degree (0: chosen for K and the method)
  int double_angles = 4;        ///< r, for EvalMod::double_angle
  /// The series' baby steps (ckks::PolynomialOptions): 0 for the fewest ciphertext products in
  /// its optimal depth (degree 27: 4 baby steps, 11 products instead of 17; 145: 16, 27 instead
  /// of 79), 2 for the plain split; a larger power of two may take one more level.
  std::size_t eval_mod_baby_steps = 0;
  double scale = 0;  ///< the working scale Δ' (0: 2^round(log2 q_L))
  /// ModRaise's message ratio ρ, in bits: the level-0 ciphertext is multiplied by the integer
  /// 2^b, b = max(0, ⌊log2(q_0/Δ) − ρ⌋) for the context's scale Δ, before ModRaise, and
  /// SlotToCoeff divides 2^b out again. The bootstrap's own noise (its key switches and rescales)
  /// then lies 2^b further below the message; EvalMod's sine misses x mod 1 by a relative
  /// (2π·|m|/q_0)²/6 for a coefficient m, about 2^−(2ρ−2.7) for one as large as q_0/2^ρ (a
  /// constant vector's), far less for the coefficients of spread-out slots (|m| about
  /// Δ/√N). 0: no multiplication (b = 0).
  double message_ratio_bits = 0;
  /// d: 0, or an odd degree in [3, 15]: arcsin's Taylor series of degree d after EvalMod, so
  /// that EvalMod gives 2π·m/q_0 itself rather than its sine: the sine's relative error
  /// (2π·m/q_0)²/6 falls to about c·(2π·m/q_0)^(d+1) (3/40·(2π·m/q_0)^4 for d = 3), for
  /// ⌈log2(d + 1)⌉ more levels. With it a small message ratio suits every input.
  std::size_t arcsine_degree = 0;
  /// h' > 0: sparse-secret encapsulation with an ephemeral secret of exactly h' nonzero
  /// coefficients (32 is the usual choice); 0: ModRaise under the user's secret.
  std::size_t encapsulation_weight = 0;
  /// 1, or 2 for iterative bootstrapping (Bae–Cheon–Cho–Kim–Kim, "META-BTS", 2022; OpenFHE's
  /// EvalBootstrap with two iterations): the first bootstrap's error against the input, taken at
  /// level 0 and multiplied by 2^p, is bootstrapped in turn and subtracted at 2^−p, so that what
  /// the first one missed is missed again only to its own relative precision. Twice the time and
  /// one more level (the 2^−p); the result approximates the input's decryption to about twice
  /// the bits, up to the rounding of the 2^−p's rescale at the input's scale Δ (about as large
  /// as a fresh encryption's noise at Δ: at N = 2^16, 23 bits at Δ = 2^40, 28 at 2^45 and 33 at
  /// 2^50, so a larger Δ is what makes the second iteration pay; every product at Δ pays the
  /// same).
  std::size_t iterations = 1;
  /// p, the second iteration's gain in bits: about the first bootstrap's precision, a bit or two
  /// under it (2^p times its error must stay a message like the others, |·| ≲ Δ). 0: an
  /// estimate from the error budget, 31 − 1.5·(log2 N − 14) − ρ' bits, less two (ρ' the
  /// message's distance below q_0 in bits: log2(q_0/(2^b·Δ))); in [0, 40].
  int iteration_precision_bits = 0;
};

/// The two keys of sparse-secret encapsulation: s → s' at q_0·P' (parameters
/// Bootstrapper::encapsulation_parameters(), used in host memory, where ModRaise is made) and
/// s' → s over the whole Q ∪ P of the context's parameters. Public; serialised as any
/// KeySwitchKey (rlwe/serial.hpp; load `to_sparse` against encapsulation_parameters()).
struct EncapsulationKeys {
  rlwe::KeySwitchKey to_sparse;
  rlwe::KeySwitchKey to_dense;
  /// A copy whose s' → s key lives on `device` (null: host memory); s → s' stays in host memory.
  [[nodiscard]] EncapsulationKeys to_device(const std::shared_ptr<Device>& device) const;
};

/// Every key a Bootstrapper needs beyond the relinearisation key: the Galois keys of its
/// rotations and the conjugation, and the encapsulation keys when it encapsulates.
struct BootstrapKeys {
  rlwe::GaloisKeys galois;
  std::optional<EncapsulationKeys> encapsulation;
};

class Bootstrapper {
 public:
  /// Prepares every transform and series for ctx's parameters (N ≥ 8). InvalidParameter: a
  /// level budget outside [1, log2(N/2)], K not in [1, 2^20], a bad degree or double-angle count,
  /// fewer levels than depth() + 1 (at least one level must be left for the user), an arcsine
  /// degree other than 0 or odd in [3, 15], iterations other than 1 or 2,
  /// iteration_precision_bits outside [0, 40], K below 6σ of
  /// ModRaise's I for the secret raised (σ = √((h + 1)/12), h the encapsulation weight, else the
  /// secret's weight, 2N/3 for a uniform ternary one), or an encapsulation weight above N.
  /// InsecureParameters: encapsulation under parameters that claim a security level where no
  /// estimate covers the sparse key at q_0·P' (128 bits only, h' ≥ 32, log2(q_0·P') at most
  /// 152 bits for N = 2^15 and 426 for N = 2^16: the largest of Bossuat et al.'s 128-bit sets).
  Bootstrapper(const Context& ctx, const BootstrapConfig& config = {});

  /// The slot rotations whose Galois keys bootstrap() needs (it also needs the conjugation key
  /// and the relinearisation key).
  [[nodiscard]] std::vector<std::int64_t> rotations() const;
  /// The levels a Bootstrapper of these parameters and configuration consumes, after every check
  /// the constructor makes (the same exceptions), without preparing its transforms (which at
  /// N = 2^16 take gigabytes).
  [[nodiscard]] static std::size_t depth_for(const ParametersPtr& params,
                                             const BootstrapConfig& config);
  /// The parameters of the encapsulation key s → s' (N, Q = {q_0}, P' and the weight h'; they
  /// claim no level themselves: see the constructor); null without encapsulation.
  [[nodiscard]] const ParametersPtr& encapsulation_parameters() const { return encap_params_; }
  /// Makes every key of BootstrapKeys from the secret key (host memory): the Galois keys of
  /// rotations() and the conjugation, and with encapsulation the two keys, the ephemeral secret
  /// drawn from keygen's stream (reproducible when keygen is seeded) and wiped after.
  [[nodiscard]] BootstrapKeys generate_keys(rlwe::KeyGenerator& keygen,
                                            const rlwe::SecretKey& sk) const;
  /// The encapsulation keys alone (generate_keys' second part). InvalidParameter without
  /// encapsulation.
  [[nodiscard]] EncapsulationKeys encapsulation_keys(rlwe::KeyGenerator& keygen,
                                                     const rlwe::SecretKey& sk) const;
  /// The levels bootstrap() consumes: the result is at L − depth().
  [[nodiscard]] std::size_t depth() const { return depth_; }
  [[nodiscard]] std::size_t levels_after() const { return params_->max_level() - depth_; }
  [[nodiscard]] const BootstrapConfig& config() const { return config_; }
  [[nodiscard]] double scale() const { return scale_; }
  /// The degree of EvalMod's series (config().sine_degree, or the one chosen for K and r).
  [[nodiscard]] std::size_t sine_degree() const { return series_.degree(); }
  /// b: the bits by which bootstrap() multiplies its input at level 0 (message_ratio_bits).
  [[nodiscard]] int input_scaling_bits() const { return input_bits_; }
  /// p: the second iteration's gain (config().iteration_precision_bits, or its estimate); 0 for
  /// one iteration.
  [[nodiscard]] int iteration_precision_bits() const { return iteration_bits_; }

  /// ct refreshed: the same slots (to the precision the parameters give) at level levels_after(),
  /// with ct's scale. ct at any level (dropped to 0), size 2; its message must be small against
  /// q_0 (|m| ≤ q_0/2^10 or so: the input scale and values well below q_0).
  /// InvalidParameter when this Bootstrapper encapsulates (use the overload with its keys), and
  /// when ct's scale times 2^input_scaling_bits() leaves a message ratio log2(q_0/(2^b·scale))
  /// more than one bit below message_ratio_bits.
  [[nodiscard]] Ciphertext bootstrap(const Evaluator& ev, const Ciphertext& ct) const;
  /// The same with sparse-secret encapsulation: `keys` from generate_keys (MismatchedContext for
  /// keys of other parameters; InvalidParameter when this Bootstrapper does not encapsulate).
  [[nodiscard]] Ciphertext bootstrap(const Evaluator& ev, const Ciphertext& ct,
                                     const EncapsulationKeys& keys) const;
  /// The same with the two encapsulation keys given apart (EncapsulationKeys' members).
  [[nodiscard]] Ciphertext bootstrap(const Evaluator& ev, const Ciphertext& ct,
                                     const rlwe::KeySwitchKey& to_sparse,
                                     const rlwe::KeySwitchKey& to_dense) const;

  /// A copy whose transforms live on `device` (null: host memory).
  [[nodiscard]] Bootstrapper to_device(const std::shared_ptr<Device>& device) const;

 private:
  Ciphertext eval_mod(const Evaluator& ev, const Ciphertext& u) const;
  Ciphertext sine(const Evaluator& ev, const Ciphertext& u) const;
  Ciphertext iterate(const Evaluator& ev, const Ciphertext& ct, const rlwe::KeySwitchKey* to_sparse,
                     const rlwe::KeySwitchKey* to_dense) const;
  Ciphertext refresh(const Evaluator& ev, const Ciphertext& ct, const rlwe::KeySwitchKey* to_sparse,
                     const rlwe::KeySwitchKey* to_dense) const;
  Ciphertext encapsulated_raise(const Evaluator& ev, const Ciphertext& ct,
                                const rlwe::KeySwitchKey& to_sparse,
                                const rlwe::KeySwitchKey& to_dense) const;

  ParametersPtr params_;
  ParametersPtr encap_params_;
  BootstrapConfig config_;
  double scale_ = 0;
  int input_bits_ = 0;
  int iteration_bits_ = 0;
  std::size_t depth_ = 0;
  std::vector<LinearTransform> coeff_to_slot_;
  std::vector<LinearTransform> slot_to_coeff_;
  ChebyshevSeries series_;
  PowerSeries arcsine_;  ///< empty without the arcsine correction
};

}  // namespace polyhe::ckks
