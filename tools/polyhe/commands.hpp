// The subcommands of `polyhe`, each a function of its options and streams. They throw UsageError,
// polyhe::Error or std::exception for bad usage or input (cli.cpp turns those into one line on
// stderr and exit status 2) and return the exit status otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace polyhe::cli {

struct InfoOptions {
  bool json = false;
};
int cmd_info(const InfoOptions& opt, std::ostream& out);

struct SelftestOptions {
  bool json = false;
  std::optional<std::uint64_t> seed;  // from the OS when absent
};
/// 0 when every check passed, 1 otherwise.
int cmd_selftest(const SelftestOptions& opt, std::ostream& out);

struct PolymulOptions {
  bool fused = false;
  std::string variant;  // empty: the library's default
};
int cmd_polymul(const PolymulOptions& opt, std::istream& in, std::ostream& out);

struct BenchNttArgs {
  std::string log_n = "10-17";
  std::string bits = "30,50,60";
  std::string variant;  // empty: the default variant; "all": every variant
  std::string ops;      // empty: all four
  std::string cpu;      // empty: the active CPU path; a path name; or "all" (those this CPU has)
  unsigned threads = 1;
  double min_time_s = 0.3;
  bool json = false;
};
int cmd_bench_ntt(const BenchNttArgs& args, std::ostream& out, std::ostream& err);

/// `polyhe bench --backend cuda` (and `polyhe bench ntt --backend cuda`): the CUDA suite on
/// device 0. Sections at N = 2^16 (radix, variant and batch comparisons) run when 16 is in
/// log_n, the throughput section when 10 is.
struct BenchCudaArgs {
  std::string log_n = "10-17";
  double min_time_s = 0.3;
  bool json = false;
};
/// Throws polyhe::Error naming the reason when the build has no CUDA or no device is usable.
int cmd_bench_cuda(const BenchCudaArgs& args, std::ostream& out, std::ostream& err);

struct BenchCyclicArgs {
  std::string n = "21845,16384,32768";                // lengths
  std::string decomposition = "automatic,bluestein";  // or "all", or a list of names
  std::string ops = "forward";  // forward, inverse, powerful_forward, powerful_inverse (a list)
  int bits = 62;
  double min_time_s = 0.3;
  bool json = false;
  /// cpu, or cuda / cuda-emulated: the powerful ops of a Φ_n ring on the device, `limbs` limbs
  /// per call, beside the negacyclic NTT of the same limbs at N = 2^⌈log2 φ(n)⌉.
  std::string backend = "cpu";
  std::string limbs = "8";  // a list: each batch size timed
};
/// The longest length `bench cyclic` times the direct DFT at (named: refused above; in "all":
/// left out above, with a note). It is O(n^2): one call takes about 40 ms at n = 4096 and 0.16 s
/// at 8192 (one core of a 2024 Xeon), and would take most of an hour at 2^20, the longest --n.
inline constexpr std::size_t kMaxDirectCyclicLength = 4096;
int cmd_bench_cyclic(const BenchCyclicArgs& args, std::ostream& out, std::ostream& err);

struct BenchCkksArgs {
  /// The anchor set: N = 2^14, nine ciphertext primes (log Q ≈ 370) and one 50-bit special prime.
  int log_n = 14;
  std::string primes = "50,40,40,40,40,40,40,40,40,50";  // bit sizes
  std::string special;  // bit sizes of P; empty: the last of `primes` is the special prime
  int scale_bits = 40;
  int dnum = 0;                  // 0: the library's default ⌈(L+1)/k⌉
  std::string security = "128";  // 128, 192, 256 or none
  std::string ops;               // empty: all eight
  std::int64_t rotate_step = 1;
  unsigned threads = 1;
  double min_time_s = 0.3;
  bool json = false;
  std::string backend = "cpu";  // cpu, cuda or cuda-emulated
  /// The secret's Hamming weight (0: dense); bootstrap needs a sparse one or encapsulation.
  std::size_t hamming_weight = 0;
  /// bootstrap: the CoeffToSlot and SlotToCoeff levels, and EvalMod (chebyshev, double_angle).
  std::string bootstrap_levels = "3,3";
  std::string eval_mod = "chebyshev";
  std::size_t eval_mod_baby_steps = 0;   // EvalMod's series: 0 (2) for its optimal depth
  std::size_t encapsulation_weight = 0;  // sparse-secret encapsulation's h' (0: none)
  double message_ratio_bits = 0;         // ModRaise's message ratio ρ in bits (0: no scaling)
  std::size_t arcsine_degree = 0;        // arcsin's series after EvalMod (0: none; odd 3 … 15)
  int double_angles = 4;                 // r, with --eval-mod double_angle (1 … 10)
  std::size_t sine_degree = 0;           // EvalMod's series degree (0: chosen for K and r)
  std::size_t bootstrap_iterations = 1;  // 2: iterative bootstrapping (BootstrapConfig)
  int iteration_precision_bits = 0;      // the second iteration's p (0: estimated)
};
int cmd_bench_ckks(const BenchCkksArgs& args, std::ostream& out, std::ostream& err);

/// The options of `polyhe bench bfv` and `polyhe bench bgv` (whose --ops also knows mod_switch):
/// they belong to both integer schemes.
struct BenchIntegerArgs {
  /// The anchor set, SEAL's default at N = 2^14 and 128 bits: Q = 48,48,48,49,49,49,49,49 bits
  /// (log Q = 389), one 49-bit special prime (log QP = 438), t = 65537 (batching).
  int log_n = 14;
  /// Odd m (BGV only): the ring Z[x]/Φ_m in the powerful basis instead of x^N + 1; log_n is then
  /// ignored (cli.cpp refuses both given).
  std::size_t m = 0;
  std::string primes = "48,48,48,49,49,49,49,49,49";  // bit sizes
  std::string special;  // bit sizes of P; empty: the last of `primes` is the special prime
  std::uint64_t plain_modulus = 65537;
  int dnum = 0;                  // 0: the library's default ⌈(L+1)/k⌉
  std::string security = "128";  // 128, 192, 256 or none
  std::string ops;               // empty: every op the parameters allow
  /// Absent: 1. Given: rotations must be possible (t batches).
  std::optional<std::int64_t> rotate_step;
  unsigned threads = 1;
  double min_time_s = 0.3;
  bool json = false;
  std::string backend = "cpu";  // cpu, cuda or cuda-emulated
};
int cmd_bench_bfv(const BenchIntegerArgs& args, std::ostream& out, std::ostream& err);
int cmd_bench_bgv(const BenchIntegerArgs& args, std::ostream& out, std::ostream& err);

struct ReportOptions {
  bool quick = false;
  std::optional<double> min_time_s;  // per measurement; default 0.3 s, 0.02 s with quick
  std::string output;                // also write the report here when not empty
  std::string data;  // also write every measurement here as JSON lines when not empty
  std::optional<std::uint64_t> seed;
};
/// 0 when the self-test passed, 1 otherwise (the report is written either way).
int cmd_report(const ReportOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace polyhe::cli
