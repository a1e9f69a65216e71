// The BFV and BGV benchmarks: encode, encrypt, add, multiply_relin, (BGV) mod_switch, rotate,
// decrypt and decode at one parameter set, timed with the harness of timing.hpp, and the noise
// budget of one multiplication. Shared by `polyhe bench bfv`, `polyhe bench bgv` and `polyhe
// report`.
//
// The two integer schemes take the same options (BenchIntegerArgs), share bgv::Context (its scheme
// chosen by the IntegerScheme), the keys, the encoders, the one bgv::Evaluator, bgv::Encryptor
// and bgv::Decryptor, and print the same fields, so everything is written once
// over an IntegerScheme; only BGV's modulus switch is chosen per scheme inside the runner.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_device.hpp"
#include "commands.hpp"
#include "measurement.hpp"
#include "polyhe/bgv/context.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "timing.hpp"

namespace polyhe::cli {

enum class IntegerScheme { bfv, bgv };

/// "bfv", "bgv": the scheme's name in JSON and on the command line.
std::string_view to_string(IntegerScheme scheme);
/// "BFV", "BGV": the name in titles and tables.
std::string scheme_title(IntegerScheme scheme);
/// The context's scheme: bgv::Scheme::bfv (BGV's scale-invariant mode) or bgv::Scheme::bgv.
bgv::Scheme integer_scheme(IntegerScheme scheme);

/// mod_switch is BGV's only.
enum class IntegerOp { encode, encrypt, add, multiply_relin, mod_switch, rotate, decrypt, decode };

inline constexpr std::array<IntegerOp, 7> kBfvOps = {
    IntegerOp::encode, IntegerOp::encrypt, IntegerOp::add,   IntegerOp::multiply_relin,
    IntegerOp::rotate, IntegerOp::decrypt, IntegerOp::decode};
inline constexpr std::array<IntegerOp, 8> kBgvOps = {
    IntegerOp::encode,     IntegerOp::encrypt, IntegerOp::add,     IntegerOp::multiply_relin,
    IntegerOp::mod_switch, IntegerOp::rotate,  IntegerOp::decrypt, IntegerOp::decode};

/// The ops a scheme measures, in the order they run and print.
std::span<const IntegerOp> scheme_ops(IntegerScheme scheme);

/// The op's name in tables and JSON: "encode", "multiply_relin", ...
std::string_view to_string(IntegerOp op);

/// A default op that the parameters cannot run, and why (printed as a note).
struct SkippedOp {
  IntegerOp op;
  std::string why;  // "t = 65536 does not batch: ..."
};

struct BenchIntegerConfig {
  IntegerScheme scheme = IntegerScheme::bfv;
  rlwe::ParametersLiteral literal;  // bit sizes of Q and P, dnum, security; primes not yet made
  std::uint64_t plain_modulus = 65537;
  /// t prime and t ≡ 1 mod 2N: slots through the batch encoder; otherwise the coefficient
  /// encoder (values are the N coefficients) and no rotations.
  bool batching = true;
  std::vector<IntegerOp> ops;      // in the order of scheme_ops
  std::vector<SkippedOp> skipped;  // default ops these parameters cannot run
  std::int64_t rotate_step = 1;
  /// Odd m without slots (t not a prime power): "rotate" is the key-switched automorphism X →
  /// X^galois_element (2: the first unit), no step. 0 for x^N + 1 and for odd m with slots, where
  /// "rotate" turns the k slots as one row by rotate_step (bgv::SlotArray::rotate).
  std::uint64_t galois_element = 0;
  /// Odd m: the slot structure of Φ_m mod t = p^r, d = ord_m(p) and φ(m)/d slots. 0 for
  /// x^N + 1.
  std::uint64_t slot_degree = 0;
  /// Odd m, t prime, d ≤ SlotEncoder::kMaxSlotDegree: values are encoded into the slots
  /// (φ(m)/d slots of d coefficients each); otherwise the coefficient encoder.
  bool slots = false;
  unsigned threads = 1;
  TimingOptions timing;
  BenchBackend backend;  // where the ciphertexts live and the ops run
};

/// Checks the command line: --log-n in [2, 17] or (BGV) --m odd in [3, 2^17] with t coprime to
/// m, on the CPU backend; --primes and --special bit sizes in [2, 62];
/// without --special at least two primes (the last is P), with it at least one; 0 ≤ --dnum ≤
/// L + 1; --plain-modulus in [2, 2^60); --security 128|192|256|none; known ops of the scheme;
/// rotate (in --ops) and --rotate-step only with batching, 0 < |--rotate-step| < N/2; 1 ≤
/// --threads ≤ kMaxThreads; 0 < --min-time ≤ 600. Throws UsageError naming the option and the
/// value. Without --ops, every op of the scheme that the parameters allow (rotate goes to
/// `skipped` when t does not batch). BGV: mod_switch needs L ≥ 1, an error in --ops, else skipped.
BenchIntegerConfig make_bench_integer_config(const BenchIntegerArgs& args, IntegerScheme scheme);

/// Parameters::create on the literal, then bgv::Context::create with t and the config's scheme:
/// InvalidParameter and InsecureParameters propagate, the latter with a hint to --security none.
bgv::ContextPtr make_integer_context(const BenchIntegerConfig& config);

struct IntegerMeasurement {
  Measurement m;          // bits = len(t), limbs = L + 1, variant = hybrid-dnum<d>
  std::size_t level = 0;  // the level the op ran at
  /// multiply_relin only, computed once, untimed, with the secret key: the noise budget of
  /// Enc(x), of multiply_relin(Enc(x), Enc(y)) and (BGV, L ≥ 1) of that product switched to
  /// L − 1. bgv::noise_budget: BFV's invariant noise budget, BGV's noise budget.
  std::optional<int> noise_budget_fresh;
  std::optional<int> noise_budget_after;
  std::optional<int> noise_budget_after_switch;
};

/// Generates the keys (untimed), then times each op of config.ops on fresh random inputs (values
/// uniform in [0, t)) with the default thread pool set to config.threads (restored afterwards)
/// and hands each measurement to `sink`. Every op runs at the top level L. What one call
/// includes:
///   encode          encoder.encode of N values into a preallocated coefficient vector;
///   encrypt         bgv::Encryptor::encrypt (public key) of an encoded plaintext: the
///                   encryption of zero (fresh OS seed, sampling) plus round(Q·m/t) (BFV), or
///                   t times it plus m (BGV);
///   add             rlwe::add_inplace into an accumulator (what the evaluators' add does after
///                   its copy: the operands share level and factor);
///   multiply_relin  BFV: the HPS tensor product and relinearisation; BGV: the tensor product and
///                   relinearisation with error multiple t, no modulus switch (allocates the
///                   result);
///   mod_switch      BGV: Evaluator::mod_switch_to_next_inplace of a fresh ciphertext from L
///                   to L − 1; the copies it consumes are made before each timed batch, untimed;
///   rotate          rotate_rows by config.rotate_step: automorphism and key switch (odd m:
///                   bgv::SlotArray::rotate of the slots by the step, or X → X^2 without slots);
///   decrypt         bgv::Decryptor::decrypt (BFV: c_0 + c_1·s, rounding t/Q; BGV:
///                   c_0 + c_1·s, exact conversion to Z_t) into a new plaintext, no decoding;
///   decode          encoder.decode of a plaintext into a preallocated vector of N values.
/// `note` receives a warning when multiply_relin (or, BGV, the switch after it) exhausts the
/// noise budget or, with batching, when the product's decryption is not the slot-wise product.
/// ctx must be of config.scheme (make_integer_context; std::logic_error otherwise).
void run_bench_integer(const BenchIntegerConfig& config, const bgv::ContextPtr& ctx,
                       const std::function<void(const IntegerMeasurement&)>& sink,
                       const std::function<void(const std::string&)>& note);

/// The measurement as one JSON line (no newline): the benchmark JSON fields of docs/design.md, then
/// "scheme", "security", "primes", "special" (bit sizes), "dnum", "plain_modulus", "encoder"
/// ("batch" or "coefficient"), "log_qp", "level", for rotate "rotate_step", and for multiply_relin
/// "noise_budget_fresh" and "noise_budget_after".
std::string integer_json(const BenchIntegerConfig& config, const rlwe::Parameters& params,
                         const IntegerMeasurement& im);

/// "BFV: N = 2^14, Q = 48,48,48,49,49,49,49,49 bits (L = 7), P = 49 bits, log2(QP) = 438,
/// dnum = 8, t = 65537 (17 bits, batching: 2 × 8192 slots), security 128-bit"
std::string integer_parameters_line(const BenchIntegerConfig& config,
                                    const rlwe::Parameters& params);

/// "| op | level | median ms | p10 ms | p90 ms | reps |" and its rule line, newline-terminated.
/// What each timed call includes, the ops skipped, and the noise budgets when multiply_relin was
/// measured.
std::string integer_table_notes(const BenchIntegerConfig& config,
                                const std::vector<IntegerMeasurement>& ms);

}  // namespace polyhe::cli
