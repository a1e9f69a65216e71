// The command line: CLI11 declares the subcommands and their options; this file turns every
// outcome into an exit status, and every error into one line on stderr.
#include "cli.hpp"

#include <CLI/CLI.hpp>
#include <concepts>
#include <istream>
#include <limits>
#include <new>
#include <ostream>

#include "commands.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ntt/variant.hpp"
#include "polyhe/version.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

/// Error lines are cut here: input echoed into a message must not flood the terminal.
constexpr std::size_t kMaxErrorLength = 400;

int fail(std::ostream& err, std::string_view message) {
  std::string line = one_line(message);
  if (line.size() > kMaxErrorLength) line = line.substr(0, kMaxErrorLength) + "...";
  err << "polyhe: error: " << line << std::endl;
  return kExitBadInput;
}

bool is_command(const CLI::App& app, const std::string& name) {
  try {
    return app.get_subcommand(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

/// An integer option. CLI11 2.1 converts with strtoull/strtoll in base 0 ("012" is octal 10,
/// "0x10" is 16) and clamps what overflows ("-5" becomes 2^64 - 5 for an unsigned option), so the
/// text goes through parse_decimal instead: decimal only, in [lo, hi] (by default the type's range,
/// so a '-' only for a signed type), else one error naming the option, the text as typed and the
/// rule. The commands check their own ranges after this; the value they name is then the text as
/// typed.
template <std::integral T>
CLI::Option* add_integer_option(CLI::App* cmd, const std::string& name, T& target,
                                const std::string& description,
                                T lo = std::numeric_limits<T>::min(),
                                T hi = std::numeric_limits<T>::max()) {
  CLI::Option* opt = cmd->add_option_function<std::string>(
      name,
      [&target, name, lo, hi](const std::string& text) {
        if (std::is_signed_v<T> && lo < T{0}) {
          target = static_cast<T>(parse_signed_decimal(text, name, lo, hi));
        } else {
          target = static_cast<T>(parse_decimal(text, name, static_cast<std::uint64_t>(lo),
                                                static_cast<std::uint64_t>(hi)));
        }
      },
      description);
  opt->type_name(std::is_signed_v<T> && lo < T{0} ? "INT" : "UINT");
  opt->default_function([&target] { return std::to_string(target); });
  return opt;
}

/// Refuses an explicitly empty value (`--variant ""`), which the commands would otherwise read as
/// the option left out.
const CLI::Validator kNonEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string(
                                 "empty value; give one, or leave the option out for its "
                                 "default")
                           : std::string();
    },
    "", "NONEMPTY");

/// The options of every subcommand, filled in by CLI11.
struct Options {
  InfoOptions info;
  SelftestOptions selftest;
  std::uint64_t selftest_seed = 0;
  PolymulOptions polymul;
  std::string bench_backend = "cpu";
  BenchCudaArgs bench_cuda;  // `polyhe bench --backend cuda`'s own --log-n, --min-time, --json
  BenchNttArgs bench_ntt;
  std::string bench_ntt_backend = "cpu";
  BenchCyclicArgs bench_cyclic;
  BenchCkksArgs bench_ckks;
  BenchIntegerArgs bench_bfv;
  std::int64_t bench_bfv_rotate_step = 1;
  BenchIntegerArgs bench_bgv;
  std::int64_t bench_bgv_rotate_step = 1;
  ReportOptions report;
  std::uint64_t report_seed = 0;
  double report_min_time = 0;
};

struct Commands {
  CLI::App* info;
  CLI::App* selftest;
  CLI::App* polymul;
  CLI::App* bench;
  CLI::App* bench_ntt;
  CLI::App* bench_cyclic;
  CLI::App* bench_ckks;
  CLI::App* bench_bfv;
  CLI::App* bench_bgv;
  CLI::App* report;
};

/// --backend of the scheme benchmarks.
void add_backend_option(CLI::App* cmd, std::string& backend) {
  cmd->add_option("--backend", backend,
                  "cpu, cuda (device 0: keys and ciphertexts on the GPU, each call timed to its "
                  "completion) or cuda-emulated (the CUDA kernel bodies run on the host, for "
                  "correctness at N <= 2^14; its times are the emulation's)")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda-emulated"}))
      ->capture_default_str();
}

void declare_bench_ckks(Commands& c, Options& o) {
  c.bench_ckks = c.bench->add_subcommand(
      "ckks",
      "Time RNS-CKKS encode, encrypt, add, multiply_relin, rescale, rotate, decrypt, decode");
  auto& k = o.bench_ckks;
  add_integer_option(c.bench_ckks, "--log-n", k.log_n,
                     "log2 N, 2-17 (the security table starts at 10)")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--primes", k.primes,
                   "Bit sizes of the primes q_0..q_L; without --special the last one is the "
                   "special prime P (as SEAL and TenSEAL read such a list)")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--special", k.special,
                   "Bit sizes of the special primes (default: the last of --primes)")
      ->check(kNonEmpty);
  add_integer_option(c.bench_ckks, "--scale-bits", k.scale_bits, "log2 of the scale Δ, 10-60")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--dnum", k.dnum,
                     "Key-switching digits, 1..L+1 (0: the library default ⌈(L+1)/k⌉)")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--security", k.security,
                   "128, 192 or 256 (checked against the HomomorphicEncryption.org table), or "
                   "none to benchmark an insecure set by name")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--ops", k.ops,
                   "Comma list of encode, encrypt, add, multiply_relin, rescale, rotate, "
                   "rotate_many, decrypt, decode, bootstrap (default: all but rotate_many and "
                   "bootstrap)")
      ->check(kNonEmpty);
  add_integer_option(c.bench_ckks, "--hamming-weight", k.hamming_weight,
                     "Nonzero coefficients of the secret (0: dense); --ops bootstrap needs a "
                     "sparse one, e.g. 64, or --encapsulation-weight")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--bootstrap-levels", k.bootstrap_levels,
                   "With --ops bootstrap: the CoeffToSlot and SlotToCoeff levels, C,S")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--eval-mod", k.eval_mod,
                   "With --ops bootstrap: chebyshev (the scaled sine's series) or double_angle")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--eval-mod-baby-steps", k.eval_mod_baby_steps,
                     "With --ops bootstrap: EvalMod's baby steps (0: the fewest products in its "
                     "optimal depth; a larger power of two: may take one more level)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--encapsulation-weight", k.encapsulation_weight,
                     "With --ops bootstrap: sparse-secret encapsulation, an ephemeral secret of "
                     "this weight for ModRaise (32; 0: none), so that the secret may be dense")
      ->capture_default_str();
  c.bench_ckks
      ->add_option("--message-ratio", k.message_ratio_bits,
                   "With --ops bootstrap: ModRaise's message ratio log2(q_0/m) in bits; the "
                   "input is multiplied by 2^b to reach it (0: no scaling)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--arcsine-degree", k.arcsine_degree,
                     "With --ops bootstrap: arcsin's series of this odd degree (3 … 15) after "
                     "EvalMod, for a small --message-ratio (0: none)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--double-angles", k.double_angles,
                     "With --ops bootstrap --eval-mod double_angle: the double angles r after the "
                     "cosine (1 … 10)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--sine-degree", k.sine_degree,
                     "With --ops bootstrap: EvalMod's series degree (0: chosen for K and r, the "
                     "smallest within a bit of the first 2^j - 1 series that meets 2^-40)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--bootstrap-iterations", k.bootstrap_iterations,
                     "With --ops bootstrap: 1, or 2 for iterative bootstrapping (the first "
                     "bootstrap's error bootstrapped and subtracted: twice the time, one more "
                     "level, about twice the bits)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--iteration-precision", k.iteration_precision_bits,
                     "With --bootstrap-iterations 2: the second iteration's gain p in bits, a bit "
                     "or two under one bootstrap's precision (0: estimated)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--rotate-step", k.rotate_step,
                     "Slots to rotate by (left; < 0: right)")
      ->capture_default_str();
  add_integer_option(c.bench_ckks, "--threads", k.threads, "Threads of the library's default pool")
      ->capture_default_str();
  c.bench_ckks->add_option("--min-time", k.min_time_s, "Seconds per op")->capture_default_str();
  c.bench_ckks->add_flag("--json", k.json, "One JSON object per op, one per line");
  add_backend_option(c.bench_ckks, k.backend);
  c.bench_ckks->footer(
      "Times per call, key generation excluded, every op at the top level L on random slots "
      "uniform in the complex unit disc (all N/2): encode into a preallocated polynomial; "
      "encrypt with the public key; add in place; multiply_relin = tensor product + "
      "relinearisation, no rescale; rescale = Evaluator::rescale into a new ciphertext (the "
      "input is kept); rotate = automorphism + key switch; rotate_many = 8 rotations (steps "
      "1..8) in one hoisted call (Evaluator::rotate_many; only when named); decrypt and decode "
      "(of a top-level "
      "plaintext) allocate their results. multiply_relin also reports precision_bits = "
      "-log2(max_j |z_j - x_j*y_j|) for z = decode(decrypt(rescale(multiply_relin(Enc(x), "
      "Enc(y))))) against the product x*y computed in double. JSON: the benchmark fields plus "
      "scheme, security, primes and special (bit sizes), dnum, scale_bits, log_qp, level; bits "
      "= scale bits, limbs = L + 1, variant = hybrid-dnum<d>, path = the CPU kernel path.");
}

/// `polyhe bench --backend cuda [--log-n ...] [--min-time S] [--json]`: the CUDA suite without a
/// benchmark name. With --backend cpu (the default) a benchmark name is required.
void declare_bench_backend(Commands& c, Options& o) {
  c.bench
      ->add_option("--backend", o.bench_backend,
                   "cpu (the default: name a benchmark below) or cuda: the CUDA suite on device "
                   "0, no benchmark name needed")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  auto& k = o.bench_cuda;
  c.bench->add_option("--log-n", k.log_n, "With --backend cuda: log2 N, 10-17 or a list")
      ->capture_default_str();
  c.bench->add_option("--min-time", k.min_time_s, "With --backend cuda: seconds per measurement")
      ->capture_default_str();
  c.bench->add_flag("--json", k.json,
                    "With --backend cuda: one JSON object per measurement, one per line");
  c.bench->footer(
      "--backend cuda times, with CUDA events on the device: the floors (device copy bandwidth "
      "of 1 GiB, host-to-device, device-to-host and both at once from 256 MiB of pinned memory, "
      "64- and 32-bit multiply rates); forward and inverse NTTs (30-bit primes on 32-bit "
      "words, 62-bit on 64-bit words) for each N; at N = 2^16 radix 2/4/8/16 for shoup-lazy and "
      "barrett-alg4, every other device variant at radix 8, and batches of 1-64 limbs (per-limb "
      "times) on two passes and on one pass (cluster); one_block, two_pass and cluster where "
      "each applies; polymul and polymul_fused for each N, default and cluster; at N = 2^10 "
      "products per second with b resident, without and with host transfers "
      "(StreamedPolymul). Every row carries floor_ns (bytes over the measured bandwidth or "
      "products over the measured multiply rate, whichever is larger) and ratio = "
      "median/floor. Without a usable device it prints one error line and exits with status 2. "
      "`polyhe bench ntt --backend cuda` runs the same suite.");
}

/// The options BFV and BGV share (BenchIntegerArgs): `polyhe bench bgv` declares the same ones.
/// --rotate-step goes to `rotate_step`, copied into the arguments only when given (dispatch).
void add_integer_bench_options(CLI::App* cmd, BenchIntegerArgs& a, std::int64_t& rotate_step,
                               const std::string& op_list) {
  add_integer_option(cmd, "--log-n", a.log_n, "log2 N, 2-17 (the security table starts at 10)")
      ->capture_default_str();
  cmd->add_option("--primes", a.primes,
                  "Bit sizes of the primes q_0..q_L; without --special the last one is the "
                  "special prime P (as SEAL and TenSEAL read such a list)")
      ->capture_default_str();
  cmd->add_option("--special", a.special,
                  "Bit sizes of the special primes (default: the last of --primes)")
      ->check(kNonEmpty);
  add_integer_option(cmd, "--plain-modulus", a.plain_modulus,
                     "The plaintext modulus t, 2 <= t < 2^60; batching (slots, rotations) when t "
                     "is a prime = 1 mod 2N, else the coefficient encoder")
      ->capture_default_str();
  add_integer_option(cmd, "--dnum", a.dnum,
                     "Key-switching digits, 1..L+1 (0: the library default ⌈(L+1)/k⌉)")
      ->capture_default_str();
  cmd->add_option("--security", a.security,
                  "128, 192 or 256 (checked against the HomomorphicEncryption.org table), or "
                  "none to benchmark an insecure set by name")
      ->capture_default_str();
  cmd->add_option("--ops", a.ops,
                  "Comma list of " + op_list + " (default: all that the parameters allow)")
      ->check(kNonEmpty);
  add_integer_option(cmd, "--rotate-step", rotate_step,
                     "Columns to rotate both rows by (left; < 0: right); needs batching. With "
                     "--m: slots to turn the whole array by (towards higher indices, as HElib)")
      ->capture_default_str();
  add_integer_option(cmd, "--threads", a.threads, "Threads of the library's default pool")
      ->capture_default_str();
  cmd->add_option("--min-time", a.min_time_s, "Seconds per op")->capture_default_str();
  cmd->add_flag("--json", a.json, "One JSON object per op, one per line");
  add_backend_option(cmd, a.backend);
}

void declare_bench_bfv(Commands& c, Options& o) {
  c.bench_bfv = c.bench->add_subcommand(
      "bfv", "Time BFV encode, encrypt, add, multiply_relin, rotate, decrypt, decode");
  add_integer_bench_options(c.bench_bfv, o.bench_bfv, o.bench_bfv_rotate_step,
                            "encode, encrypt, add, multiply_relin, rotate, decrypt, decode");
  c.bench_bfv->footer(
      "Times per call, key generation excluded, every op at the top level L on N random values "
      "in [0, t): encode into a preallocated coefficient vector; encrypt = public-key "
      "encryption of an encoded plaintext (encryption of zero + round(Q*m/t)); add in place; "
      "multiply_relin = HPS tensor product + relinearisation; rotate = rotate_rows "
      "(automorphism + key switch); decrypt = c_0 + c_1*s rounded by t/Q into a new plaintext, "
      "without decode; decode into a preallocated vector. multiply_relin also reports the "
      "invariant noise budget (SEAL's) of a fresh ciphertext and of the product, computed once "
      "with the secret key, untimed. JSON: the benchmark fields plus scheme, security, primes "
      "and special (bit sizes), dnum, plain_modulus, encoder (batch or coefficient), log_qp, "
      "level, rotate_step (rotate), noise_budget_fresh and noise_budget_after (multiply_relin); "
      "bits = bits of t, limbs = L + 1, variant = hybrid-dnum<d>, path = the CPU kernel path.");
}

void declare_bench_bgv(Commands& c, Options& o) {
  c.bench_bgv = c.bench->add_subcommand(
      "bgv", "Time BGV encode, encrypt, add, multiply_relin, mod_switch, rotate, decrypt, decode");
  add_integer_bench_options(
      c.bench_bgv, o.bench_bgv, o.bench_bgv_rotate_step,
      "encode, encrypt, add, multiply_relin, mod_switch, rotate, decrypt, decode");
  add_integer_option(c.bench_bgv, "--m", o.bench_bgv.m,
                     "Odd m in [3, " + std::to_string(PowerfulNtt::kMaxM) +
                         "]: the ring Z[x]/Phi_m (powerful basis; e.g. 21845 = 5*17*257, "
                         "HElib's) instead of x^N + 1; replaces --log-n; rotate then turns the "
                         "slots (t = p^r) as one row by --rotate-step (bgv::SlotArray), or is the "
                         "automorphism X -> X^2 when t gives no slots",
                     std::size_t{3}, std::size_t{PowerfulNtt::kMaxM});
  c.bench_bgv->footer(
      "Times per call, key generation excluded, every op at the top level L on N random values "
      "in [0, t): encode into a preallocated coefficient vector; encrypt = public-key "
      "encryption of an encoded plaintext (t*(encryption of zero) + m); add in place; "
      "multiply_relin = tensor product + relinearisation (key switch with error multiple t), "
      "without modulus switch; mod_switch = mod_switch_to_next_inplace of a fresh ciphertext "
      "from L to L-1 (drop q_L, correct by a multiple of t), on copies made before each timed "
      "batch, untimed; rotate = rotate_rows (automorphism + key switch); decrypt = c_0 + c_1*s "
      "reduced exactly mod t into a new plaintext, without decode; decode into a preallocated "
      "vector. multiply_relin also reports the noise budget (bgv::noise_budget) of a fresh "
      "ciphertext, of the product and of the product switched to L-1, computed once with the "
      "secret key, untimed. JSON: the benchmark fields plus scheme, security, primes and special "
      "(bit sizes), dnum, plain_modulus, encoder (batch or coefficient), log_qp, level (of the "
      "input), rotate_step (rotate), noise_budget_fresh, noise_budget_after and "
      "noise_budget_after_switch (multiply_relin); bits = bits of t, limbs = L + 1, variant = "
      "hybrid-dnum<d>, path = the CPU kernel path.");
}

Commands declare(CLI::App& app, Options& o) {
  Commands c{};
  app.set_version_flag("--version", std::string(kVersion), "Print the version and exit");
  app.footer(
      "Exit status: 0 success, 1 a self-test check failed (or, in report, the GPU section), 2 bad "
      "usage, bad input (options, "
      "stdin, POLYHE_CPU, POLYHE_THREADS) or output that could not be written.");

  c.info = app.add_subcommand("info", "Build options, CPU features, GPUs and NTT parameters");
  c.info->add_flag("--json", o.info.json, "Print one JSON object");

  c.selftest = app.add_subcommand(
      "selftest", "A quick end-to-end check: products in every NTT variant against references");
  c.selftest->add_flag("--json", o.selftest.json, "Print the result as one JSON object");
  add_integer_option(c.selftest, "--seed", o.selftest_seed, "Replay the inputs of an earlier run");

  c.polymul = app.add_subcommand(
      "polymul",
      R"(Negacyclic product: reads {"q": Q, "a": [...], "b": [...]} on stdin, writes {"c": [...]})");
  c.polymul->footer(
      "Integers are JSON numbers or decimal strings. a and b have the same power-of-two length "
      "N in [2, 2^17]; q is a prime of at most 62 bits with q = 1 mod 2N; every coefficient is "
      "in [0, q). The output coefficients are decimal strings. Bad input: one line on stderr, "
      "exit status 2.");
  c.polymul->add_flag("--fused", o.polymul.fused,
                      "Use the fused multiplication ([GPU-Polymul, Alg. 8])");
  c.polymul->add_option("--variant", o.polymul.variant, "NTT variant (see polyhe info)")
      ->check(kNonEmpty);

  c.bench = app.add_subcommand("bench", "Benchmarks");
  declare_bench_backend(c, o);
  c.bench_ntt =
      c.bench->add_subcommand("ntt", "Time ntt_forward, ntt_inverse, polymul and polymul_fused");
  auto& b = o.bench_ntt;
  c.bench_ntt->add_option("--log-n", b.log_n, "log2 N: 12, 10-17 or 10,12,14")
      ->capture_default_str();
  c.bench_ntt->add_option("--bits", b.bits, "Prime sizes in bits (20-62), e.g. 30,50,60")
      ->capture_default_str();
  c.bench_ntt
      ->add_option("--variant", b.variant,
                   "NTT variant or 'all' (default: the library's default, " +
                       std::string(to_string(kDefaultNttVariant)) + ")")
      ->check(kNonEmpty);
  c.bench_ntt
      ->add_option("--ops", b.ops,
                   "Comma list of ntt_forward, ntt_inverse, polymul, polymul_fused (default: all)")
      ->check(kNonEmpty);
  c.bench_ntt
      ->add_option("--cpu", b.cpu,
                   "CPU kernel path: scalar, avx2, avx512, ifma, or all that this CPU has "
                   "(default: the active path, POLYHE_CPU or the best)")
      ->check(kNonEmpty);
  add_integer_option(c.bench_ntt, "--threads", b.threads,
                     "Threads; above 1, the batched API on 2*threads limbs per call")
      ->capture_default_str();
  c.bench_ntt->add_option("--min-time", b.min_time_s, "Seconds per measurement")
      ->capture_default_str();
  c.bench_ntt->add_flag("--json", b.json, "One JSON object per measurement, one per line");
  c.bench_ntt
      ->add_option("--backend", o.bench_ntt_backend,
                   "cpu, or cuda: the CUDA suite of `polyhe bench --backend cuda` (with this "
                   "command's --log-n, --min-time and --json)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();

  c.bench_cyclic = c.bench->add_subcommand(
      "cyclic", "Time cyclic NTTs of any length: PFA, Rader, Bluestein, radix-2 plans");
  auto& bc = o.bench_cyclic;
  c.bench_cyclic->add_option("--n", bc.n, "Lengths, e.g. 21845,16384,32768")->capture_default_str();
  c.bench_cyclic
      ->add_option("--decomposition", bc.decomposition,
                   "automatic, radix2, pfa, cooley_tukey, rader, rader_padded, bluestein, direct "
                   "(a list), or all; a decomposition that does not apply to n is skipped; the "
                   "O(n^2) direct only up to n = " +
                       std::to_string(kMaxDirectCyclicLength) + " (all leaves it out above)")
      ->capture_default_str();
  c.bench_cyclic
      ->add_option("--ops", bc.ops,
                   "forward, inverse (the cyclic plans, per --decomposition), powerful_forward, "
                   "powerful_inverse (Z_q[X]/Phi_n in the powerful basis, odd n, every route that "
                   "applies: fused, length_m, per_factor), a list")
      ->capture_default_str();
  add_integer_option(c.bench_cyclic, "--bits", bc.bits, "Prime size in bits (30-62)")
      ->capture_default_str();
  c.bench_cyclic->add_option("--min-time", bc.min_time_s, "Seconds per measurement")
      ->capture_default_str();
  c.bench_cyclic->add_flag("--json", bc.json, "One JSON object per measurement, one per line");
  c.bench_cyclic
      ->add_option("--backend", bc.backend,
                   "cpu, or cuda / cuda-emulated: powerful_forward and powerful_inverse of a "
                   "ring over Phi_n with --limbs primes on the device (the fused route), each "
                   "call timed to its completion, beside negacyclic_forward/_inverse: the NTT of "
                   "as many limbs at N = 2^ceil(log2 phi(n)) on the same device")
      ->check(CLI::IsMember({"cpu", "cuda", "cuda-emulated"}))
      ->capture_default_str();
  c.bench_cyclic
      ->add_option("--limbs", bc.limbs,
                   "With a device backend: limbs per call, a list (e.g. 1,8); per_limb = "
                   "median / limbs")
      ->capture_default_str();

  declare_bench_ckks(c, o);
  declare_bench_bfv(c, o);
  declare_bench_bgv(c, o);

  c.report = app.add_subcommand(
      "report", "Self-test, NTT, CKKS, BFV and BGV benchmarks, as a markdown report");
  c.report->add_flag("--quick", o.report.quick,
                     "Shorter measurements (0.02 s each); CKKS, BFV and BGV at N = 2^12");
  c.report->add_option("--min-time", o.report_min_time, "Seconds per measurement (default 0.3)");
  c.report
      ->add_option("--output", o.report.output,
                   "Also write the report to this file (replaced only when the report is done)")
      ->check(kNonEmpty);
  c.report
      ->add_option("--data", o.report.data,
                   "Also write every measurement to this file, one JSON object a line (the "
                   "bench commands' --json lines; replaced only when the report is done)")
      ->check(kNonEmpty);
  add_integer_option(c.report, "--seed", o.report_seed, "Seed of the self-test inputs");
  return c;
}

/// `polyhe bench [--backend B] [--log-n ...] [--min-time S] [--json] [name ...]`: the options
/// before a benchmark name are the CUDA suite's; with a name, only --backend may come first: ntt
/// then runs the CUDA suite, ckks, bfv and bgv take it as their own --backend (unless they were
/// given one), cyclic runs on the CPU only.
void check_bench_backend(const CLI::App& bench, Options& o) {
  const auto subs = bench.get_subcommands();
  if (subs.empty()) return;
  for (const char* opt : {"--log-n", "--min-time", "--json"}) {
    if (bench.count(opt) > 0) {
      throw UsageError(std::string("bench ") + opt +
                       ": before a benchmark name it belongs to `polyhe bench --backend cuda`; "
                       "put it after the name");
    }
  }
  const std::string name = subs[0]->get_name();
  if (o.bench_backend != "cuda" || name == "ntt") return;
  const CLI::Option* own = subs[0]->get_option_no_throw("--backend");
  const bool given = own != nullptr && own->count() > 0;
  if (name == "ckks") {
    if (!given) o.bench_ckks.backend = "cuda";
  } else if (name == "bfv") {
    if (!given) o.bench_bfv.backend = "cuda";
  } else if (name == "bgv") {
    if (!given) o.bench_bgv.backend = "cuda";
  } else {
    throw UsageError("bench --backend cuda " + name +
                     ": only the CUDA suite, ntt, ckks, bfv and bgv run on CUDA");
  }
}

/// The CUDA suite's arguments from `polyhe bench ntt --backend cuda ...`: --log-n, --min-time
/// and --json carry over; the CPU benchmark's other options are refused.
BenchCudaArgs bench_ntt_on_cuda(const CLI::App& ntt, const BenchNttArgs& b) {
  for (const char* opt : {"--bits", "--variant", "--ops", "--cpu", "--threads"}) {
    if (ntt.count(opt) > 0) {
      throw UsageError(std::string("bench ntt --backend cuda: ") + opt +
                       " applies to the CPU benchmark only; the CUDA suite runs its own set "
                       "(see polyhe bench --help)");
    }
  }
  BenchCudaArgs a;
  a.log_n = b.log_n;
  a.min_time_s = b.min_time_s;
  a.json = b.json;
  return a;
}

/// The environment the library reads lazily, read now: a bad POLYHE_CPU (every command but info,
/// which reports it) or POLYHE_THREADS (the commands that use the default thread pool) is bad
/// input, refused with its one message before anything is printed, not a failed self-test or a
/// table cut after its header.
void check_environment(const CLI::App& app, const Commands& c) {
  if (app.get_subcommands().empty() || c.info->parsed()) return;
  (void)cpu_path();  // throws InvalidParameter naming POLYHE_CPU's value and the paths
  if (c.bench->parsed() || c.report->parsed()) {
    (void)thread_count();  // throws InvalidParameter naming POLYHE_THREADS's value and the range
  }
}

/// After a successful parse: runs the chosen subcommand.
int dispatch(const CLI::App& app, const Commands& c, Options& o, std::istream& in,
             std::ostream& out, std::ostream& err) {
  check_environment(app, c);
  if (c.info->parsed()) return cmd_info(o.info, out);
  if (c.selftest->parsed()) {
    if (c.selftest->count("--seed") > 0) o.selftest.seed = o.selftest_seed;
    return cmd_selftest(o.selftest, out);
  }
  if (c.polymul->parsed()) return cmd_polymul(o.polymul, in, out);
  if (c.bench->parsed()) check_bench_backend(*c.bench, o);
  if (c.bench_ntt->parsed()) {
    const bool own = c.bench_ntt->count("--backend") > 0;
    if ((own ? o.bench_ntt_backend : o.bench_backend) == "cuda") {
      return cmd_bench_cuda(bench_ntt_on_cuda(*c.bench_ntt, o.bench_ntt), out, err);
    }
    return cmd_bench_ntt(o.bench_ntt, out, err);
  }
  if (c.bench_cyclic->parsed()) return cmd_bench_cyclic(o.bench_cyclic, out, err);
  if (c.bench_ckks->parsed()) return cmd_bench_ckks(o.bench_ckks, out, err);
  if (c.bench_bfv->parsed()) {
    if (c.bench_bfv->count("--rotate-step") > 0) o.bench_bfv.rotate_step = o.bench_bfv_rotate_step;
    return cmd_bench_bfv(o.bench_bfv, out, err);
  }
  if (c.bench_bgv->parsed()) {
    if (c.bench_bgv->count("--rotate-step") > 0) o.bench_bgv.rotate_step = o.bench_bgv_rotate_step;
    if (c.bench_bgv->count("--m") > 0 && c.bench_bgv->count("--log-n") > 0) {
      throw UsageError("bench bgv: --m " + std::to_string(o.bench_bgv.m) + " and --log-n " +
                       std::to_string(o.bench_bgv.log_n) +
                       " name two rings; give --m (Phi_m) or --log-n (x^N + 1), not both");
    }
    return cmd_bench_bgv(o.bench_bgv, out, err);
  }
  if (c.bench->parsed()) {
    if (o.bench_backend == "cuda") return cmd_bench_cuda(o.bench_cuda, out, err);
    err << c.bench->help("polyhe");
    return kExitBadInput;
  }
  if (c.report->parsed()) {
    if (c.report->count("--seed") > 0) o.report.seed = o.report_seed;
    if (c.report->count("--min-time") > 0) o.report.min_time_s = o.report_min_time;
    return cmd_report(o.report, out, err);
  }
  err << app.help();
  return kExitBadInput;
}

}  // namespace

int run(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
        std::ostream& err) {
  try {
    CLI::App app("polyhe " + std::string(kVersion) +
                     ": homomorphic-encryption arithmetic (modular reduction, NTT, polynomial "
                     "products)",
                 "polyhe");
    Options options;
    const Commands commands = declare(app, options);
    std::vector<const char*> argv = {"polyhe"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return kExitOk;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return kExitOk;
    } catch (const CLI::CallForVersion& e) {
      out << e.what() << '\n';
      return kExitOk;
    } catch (const CLI::ParseError& e) {
      if (!args.empty() && !args[0].empty() && args[0][0] != '-' && !is_command(app, args[0])) {
        return fail(err, "unknown command '" + args[0] +
                             "'; the commands are info, selftest, polymul, bench, report");
      }
      return fail(err, std::string(e.what()) + " (see --help)");
    }
    return dispatch(app, commands, options, in, out, err);
  } catch (const UsageError& e) {
    return fail(err, e.what());
  } catch (const Error& e) {
    return fail(err, e.what());
  } catch (const std::bad_alloc&) {
    return fail(err, "out of memory");
  } catch (const std::exception& e) {
    return fail(err, e.what());
  } catch (...) {
    return fail(err, "unknown error");
  }
}

}  // namespace polyhe::cli
