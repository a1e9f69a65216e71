// The CKKS benchmark: encode, encrypt, add, multiply_relin, rescale, rotate, decrypt and decode of
// RNS-CKKS at one parameter set, timed with the harness of timing.hpp, and the precision of one
// multiplication. Shared by `polyhe bench ckks` and `polyhe report`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_device.hpp"
#include "commands.hpp"
#include "measurement.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "timing.hpp"

namespace polyhe::cli {

enum class CkksOp {
  encode,
  encrypt,
  add,
  multiply_relin,
  rescale,
  rotate,
  rotate_many,  // kHoistedRotations rotations in one hoisted call (Evaluator::rotate_many)
  decrypt,
  decode,
  batch_add,       // device backends: host ciphertexts through add (rlwe::map_on_device)
  batch_multiply,  // device backends: host ciphertexts through multiply_relin + rescale
  bootstrap,       // ckks::Bootstrapper::bootstrap of a level-0 ciphertext (named only)
};

inline constexpr std::array<CkksOp, 12> kAllCkksOps = {
    CkksOp::encode,         CkksOp::encrypt,        CkksOp::add,
    CkksOp::multiply_relin, CkksOp::rescale,        CkksOp::rotate,
    CkksOp::rotate_many,    CkksOp::decrypt,        CkksOp::decode,
    CkksOp::batch_add,      CkksOp::batch_multiply, CkksOp::bootstrap};

/// Whether op runs only on a device backend (the batch API).
inline bool is_batch_op(CkksOp op) {
  return op == CkksOp::batch_add || op == CkksOp::batch_multiply;
}

/// Whether op runs without --ops naming it: all but the batch ops (a device's, named),
/// rotate_many (named: it generates kHoistedRotations Galois keys) and bootstrap (named: it needs
/// a bootstrappable parameter set and a sparse secret).
inline bool is_default_op(CkksOp op, bool on_device) {
  return op != CkksOp::rotate_many && op != CkksOp::bootstrap && (on_device || !is_batch_op(op));
}

/// The rotations of one rotate_many call: steps 1, 2, …, kHoistedRotations.
inline constexpr std::int64_t kHoistedRotations = 8;

/// Ciphertexts per timed batch of the batch ops.
inline constexpr std::size_t kBatchItems = 16;

/// The op's name in tables and JSON: "encode", "multiply_relin", ...
std::string_view to_string(CkksOp op);

struct BenchCkksConfig {
  rlwe::ParametersLiteral literal;  // bit sizes of Q and P, dnum, security; primes not yet made
  int scale_bits = 40;              // Δ = 2^scale_bits
  std::vector<CkksOp> ops;          // in the order of kAllCkksOps
  std::int64_t rotate_step = 1;
  unsigned threads = 1;
  TimingOptions timing;
  BenchBackend backend;                  // where the ciphertexts live and the ops run
  std::size_t coeff_to_slot_levels = 3;  // bootstrap only
  std::size_t slot_to_coeff_levels = 3;
  bool double_angle = false;  // EvalMod by double angles instead of the Chebyshev sine
  std::size_t eval_mod_baby_steps = 0;
  std::size_t encapsulation_weight = 0;  // sparse-secret encapsulation's h' (0: none)
  double message_ratio_bits = 0;         // ModRaise's message ratio ρ (BootstrapConfig)
  std::size_t arcsine_degree = 0;        // arcsin's series after EvalMod (BootstrapConfig)
  int double_angles = 4;                 // r, with double_angle (BootstrapConfig)
  std::size_t sine_degree = 0;           // EvalMod's series degree (0: chosen; BootstrapConfig)
  std::size_t bootstrap_iterations = 1;  // 1, or 2 for iterative bootstrapping (BootstrapConfig)
  int iteration_precision_bits = 0;      // the second iteration's p (0: estimated)
};

/// Checks the command line: --log-n in [2, 17]; --primes and --special bit sizes in [2, 62];
/// without --special at least three primes (the last is P), with it at least two ciphertext
/// primes (rescale divides by q_L, so L ≥ 1); --scale-bits in [10, 60]; 0 ≤ --dnum ≤ L + 1;
/// --security 128|192|256|none; known ops; 0 < |--rotate-step| < N/2; 1 ≤ --threads ≤
/// kMaxThreads; 0 < --min-time ≤ 600. Throws UsageError naming the option and the value. The
/// security table is the library's (Parameters::create).
BenchCkksConfig make_bench_ckks_config(const BenchCkksArgs& args);

/// Parameters::create on the literal: InvalidParameter and InsecureParameters propagate, the
/// latter with a hint to --security none. UsageError when multiply_relin is asked for and
/// Δ² ≥ Q_L/2 (the evaluator would refuse the product).
rlwe::ParametersPtr make_ckks_parameters(const BenchCkksConfig& config);

struct CkksMeasurement {
  Measurement m;          // bits = scale bits, limbs = L + 1, variant = hybrid-dnum<d>
  std::size_t level = 0;  // the level the op ran at
  /// multiply_relin only: −log2 max_j |z_j − x_j·y_j| for z = decode(decrypt(rescale(
  /// multiply_relin(Enc(x), Enc(y))))), x and y uniform in the complex unit disc, all N/2 slots.
  std::optional<double> precision_bits;
  /// Batch ops (times per item of a batch of kBatchItems): the transfer floor per item, the
  /// larger of (input bytes over the host→device rate, output bytes over the device→host rate)
  /// measured in the same run, and those rates.
  std::optional<double> floor_ns;
  double h2d_bytes_per_s = 0;
  double d2h_bytes_per_s = 0;
  /// bootstrap only: the level the result is at, and the slots (all N/2).
  std::optional<std::size_t> levels_after;
  std::size_t encapsulation_weight = 0;  // bootstrap only: h' of sparse-secret encapsulation
  /// bootstrap only: −log2 of the largest slot error of the level-0 input itself (the
  /// encryption's noise, which no bootstrap removes), and the input scaling 2^b used.
  std::optional<double> input_precision_bits;
  int input_scaling_bits = 0;
  std::size_t arcsine_degree = 0;
  int double_angles = 0;        // bootstrap only: r (0: the Chebyshev sine)
  std::size_t sine_degree = 0;  // bootstrap only: EvalMod's series degree as used
  /// bootstrap only: −log2 of the largest slot error against the level-0 input's own decryption
  /// (the bootstrap's error alone, without the input's noise); the iterations and p used.
  std::optional<double> refresh_precision_bits;
  std::size_t iterations = 1;
  int iteration_precision_bits = 0;
  std::size_t rotation_keys = 0;  // bootstrap only: Bootstrapper::rotations().size()
};

/// Generates the keys (untimed), then times each op of config.ops on fresh random inputs with
/// the default thread pool set to config.threads (restored afterwards) and hands each
/// measurement to `sink`. Every op runs at the top level L. What one call includes:
///   encode          Encoder::encode of N/2 slots into a preallocated top-level polynomial;
///   encrypt         public-key encryption of a top-level plaintext (fresh OS seed, sampling);
///   add             add_inplace into an accumulator (no allocation);
///   multiply_relin  tensor product and relinearisation, no rescale (allocates the result);
///   rescale         Evaluator::rescale: a copy of the input ciphertext, then division by q_L;
///   rotate          automorphism and key switch (allocates the result);
///   rotate_many     rotations by 1, 2, …, kHoistedRotations in one hoisted call (only named);
///   decrypt         c_0 + c_1·s into a new plaintext;
///   decode          of a top-level plaintext into a new vector of N/2 slots.
/// `note` receives a warning when the multiplication's precision is below 4 bits.
void run_bench_ckks(const BenchCkksConfig& config, const rlwe::ParametersPtr& params,
                    const std::function<void(const CkksMeasurement&)>& sink,
                    const std::function<void(const std::string&)>& note);

/// The measurement as one JSON line (no newline): the benchmark JSON fields of docs/design.md, then
/// "scheme", "security", "primes", "special" (bit sizes), "dnum", "scale_bits", "log_qp", "level"
/// and, for multiply_relin, "precision_bits".
std::string ckks_json(const rlwe::Parameters& params, int scale_bits, const CkksMeasurement& cm);

/// "N = 2^14, Q = 50+40·8 bits (L = 8), P = 50 bits, log QP = 420, dnum = 9, Δ = 2^40, ..."
std::string ckks_parameters_line(const rlwe::Parameters& params, int scale_bits);

/// "| op | level | median ms | p10 ms | p90 ms | reps |" and its rule line, newline-terminated.
/// What each timed call includes, and the precision line when multiply_relin was measured.
std::string ckks_table_notes(const std::vector<CkksMeasurement>& ms);

}  // namespace polyhe::cli
