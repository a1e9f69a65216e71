// The BFV benchmark: encode, encrypt, add, multiply_relin, rotate, decrypt and decode at one
// parameter set, timed with the harness of timing.hpp, and the invariant noise budget of one
// multiplication. Shared by `polyhe bench bfv` and `polyhe report`.
//
// BFV and BGV take the same options (BenchIntegerArgs) and print the same fields, so everything
// but the timed loop is written for both integer schemes: the checks, the parameters, the JSON and
// the table take an IntegerScheme. `polyhe bench bgv` adds IntegerScheme::bgv, the op mod_switch
// to IntegerOp and scheme_ops, and a run_bench_bgv beside run_bench_bfv.
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

#include "commands.hpp"
#include "measurement.hpp"
#include "polyhe/bgv/bfv.hpp"
#include "polyhe/rlwe/parameters.hpp"
#include "timing.hpp"

namespace polyhe::cli {

enum class IntegerScheme { bfv };

/// "bfv": the scheme's name in JSON and on the command line.
std::string_view to_string(IntegerScheme scheme);

enum class IntegerOp { encode, encrypt, add, multiply_relin, rotate, decrypt, decode };

inline constexpr std::array<IntegerOp, 7> kBfvOps = {
    IntegerOp::encode, IntegerOp::encrypt, IntegerOp::add,   IntegerOp::multiply_relin,
    IntegerOp::rotate, IntegerOp::decrypt, IntegerOp::decode};

/// The ops a scheme measures, in the order they run and print.
std::span<const IntegerOp> scheme_ops(IntegerScheme scheme);

/// The op's name in tables and JSON: "encode", "multiply_relin", ...
std::string_view to_string(IntegerOp op);

struct BenchIntegerConfig {
  IntegerScheme scheme = IntegerScheme::bfv;
  rlwe::ParametersLiteral literal;  // bit sizes of Q and P, dnum, security; primes not yet made
  std::uint64_t plain_modulus = 65537;
  /// t prime and t ≡ 1 mod 2N: slots through the batch encoder; otherwise the coefficient
  /// encoder (values are the N coefficients) and no rotations.
  bool batching = true;
  std::vector<IntegerOp> ops;      // in the order of scheme_ops
  std::vector<IntegerOp> skipped;  // default ops these parameters cannot run (rotate unbatched)
  std::int64_t rotate_step = 1;
  unsigned threads = 1;
  TimingOptions timing;
};

/// Checks the command line: --log-n in [2, 17]; --primes and --special bit sizes in [2, 62];
/// without --special at least two primes (the last is P), with it at least one; 0 ≤ --dnum ≤
/// L + 1; --plain-modulus in [2, 2^60); --security 128|192|256|none; known ops of the scheme;
/// rotate (in --ops) and --rotate-step only with batching, 0 < |--rotate-step| < N/2; 1 ≤
/// --threads ≤ kMaxThreads; 0 < --min-time ≤ 600. Throws UsageError naming the option and the
/// value. Without --ops, every op of the scheme that the parameters allow (rotate goes to
/// `skipped` when t does not batch).
BenchIntegerConfig make_bench_integer_config(const BenchIntegerArgs& args, IntegerScheme scheme);

/// Parameters::create on the literal, then bgv::Context::create with t: InvalidParameter and
/// InsecureParameters propagate, the latter with a hint to --security none.
bgv::ContextPtr make_bfv_context(const BenchIntegerConfig& config);

struct IntegerMeasurement {
  Measurement m;          // bits = len(t), limbs = L + 1, variant = hybrid-dnum<d>
  std::size_t level = 0;  // the level the op ran at
  /// multiply_relin only, computed once, untimed, with the secret key: the invariant noise
  /// budget (bgv::invariant_noise_budget) of Enc(x) and of multiply_relin(Enc(x), Enc(y)).
  std::optional<int> noise_budget_fresh;
  std::optional<int> noise_budget_after;
};

/// Generates the keys (untimed), then times each op of config.ops on fresh random inputs (values
/// uniform in [0, t)) with the default thread pool set to config.threads (restored afterwards)
/// and hands each measurement to `sink`. Every op runs at the top level L. What one call
/// includes:
///   encode          encoder.encode of N values into a preallocated coefficient vector;
///   encrypt         bfv_encrypt with the public key of an encoded plaintext: the encryption of
///                   zero (fresh OS seed, sampling) plus round(Q·m/t);
///   add             rlwe::add_inplace into an accumulator (BfvEvaluator::add after its copy);
///   multiply_relin  the HPS tensor product and relinearisation (allocates the result);
///   rotate          rotate_rows by config.rotate_step: automorphism and key switch;
///   decrypt         bfv_decrypt: c_0 + c_1·s and the rounding t/Q into a new plaintext, no
///                   decoding;
///   decode          encoder.decode of a plaintext into a preallocated vector of N values.
/// `note` receives a warning when multiply_relin exhausts the noise budget or, with batching,
/// when its decryption is not the slot-wise product.
void run_bench_bfv(const BenchIntegerConfig& config, const bgv::ContextPtr& ctx,
                   const std::function<void(const IntegerMeasurement&)>& sink,
                   const std::function<void(const std::string&)>& note);

/// The measurement as one JSON line (no newline): DESIGN.md's fields, then "scheme",
/// "security", "primes", "special" (bit sizes), "dnum", "plain_modulus", "encoder" ("batch" or
/// "coefficient"), "log_qp", "level", for rotate "rotate_step", and for multiply_relin
/// "noise_budget_fresh" and "noise_budget_after".
std::string integer_json(const BenchIntegerConfig& config, const rlwe::Parameters& params,
                         const IntegerMeasurement& im);

/// "BFV: N = 2^14, Q = 48,48,48,49,49,49,49,49 bits (L = 7), P = 49 bits, log2(QP) = 438,
/// dnum = 8, t = 65537 (17 bits, batching: 2 × 8192 slots), security 128-bit"
std::string integer_parameters_line(const BenchIntegerConfig& config,
                                    const rlwe::Parameters& params);

/// "| op | level | median ms | p10 ms | p90 ms | reps |" and its rule line, newline-terminated.
std::string integer_table_header();
std::string integer_table_row(const IntegerMeasurement& im);
/// What each timed call includes, the ops skipped, and the noise budgets when multiply_relin was
/// measured.
std::string integer_table_notes(const BenchIntegerConfig& config,
                                const std::vector<IntegerMeasurement>& ms);

}  // namespace polyhe::cli
