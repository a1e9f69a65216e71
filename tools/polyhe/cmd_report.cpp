// `polyhe report`: the self-test, the NTT benchmark and the CKKS (with a bootstrap), BFV and BGV
// benchmarks on this machine, as one markdown document, and with --data every measurement as a JSON
// line (what the bench commands print with --json; scripts/plot_report.py draws the report's plots
// from it).
#include <ostream>
#include <sstream>

#include "bench_ckks.hpp"
#include "bench_integer.hpp"
#include "bench_ntt.hpp"
#include "commands.hpp"
#include "measurement.hpp"
#include "output_file.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/version.hpp"
#include "random.hpp"
#include "scheme_bench.hpp"
#include "selftest.hpp"
#include "sysinfo.hpp"
#include "text.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

constexpr double kDefaultMinTime = 0.3;
constexpr double kQuickMinTime = 0.02;

void write_machine(std::ostream& md) {
  md << "- Machine: " << cpu_model() << ", " << logical_cores() << " logical cores\n";
  md << "- CPU features:";
  const auto features = cpu_feature_list();
  if (features.empty()) md << " (none checked on this architecture)";
  for (std::size_t i = 0; i < features.size(); ++i) {
    md << (i ? ", " : " ") << features[i].name << (features[i].present ? " yes" : " no");
  }
  md << '\n';
  md << "- CPU kernels: " << cpu_path_line() << '\n';
  const GpuReport gpu = gpu_report();
  md << "- GPUs: ";
  if (gpu.gpus.empty()) md << "none (" << gpu.why_none << ")";
  for (std::size_t i = 0; i < gpu.gpus.size(); ++i) md << (i ? ", " : "") << gpu.gpus[i].name;
  md << '\n';
  md << "- polyhe " << kVersion << ", " << build_type() << " build, " << compiler() << '\n';
}

/// polymul_fused / polymul per (log N, bits, variant), from the measurements that have both.
void write_ratios(std::ostream& md, const std::vector<Measurement>& ms) {
  md << "| log N | bits | variant | path | polymul µs | polymul_fused µs | fused / unfused |\n"
     << "|---:|---:|---|---|---:|---:|---:|\n";
  for (const Measurement& plain : ms) {
    if (plain.op != "polymul") continue;
    for (const Measurement& fused : ms) {
      if (fused.op != "polymul_fused" || fused.log_n != plain.log_n || fused.bits != plain.bits ||
          fused.variant != plain.variant || fused.path != plain.path) {
        continue;
      }
      md << "| " << plain.log_n << " | " << plain.bits << " | " << plain.variant << " | "
         << plain.path << " | " << micros(plain.stats.median_ns) << " | "
         << micros(fused.stats.median_ns) << " | "
         << fixed(fused.stats.median_ns / plain.stats.median_ns, 3) << " |\n";
    }
  }
}

/// The CKKS parameter set of the report: the anchor set (N = 2^14, nine ciphertext primes, one
/// 50-bit special prime), or with --quick N = 2^12 with q = 36, 30 and P = 36 bits (log QP = 102,
/// within the 109 bits the 128-bit table allows at N = 2^12).
BenchCkksArgs report_ckks_args(const ReportOptions& opt, double min_time_s) {
  BenchCkksArgs args;  // the anchor set, 1 thread, every op
  if (opt.quick) {
    args.log_n = 12;
    args.primes = "36,30,36";
    args.scale_bits = 30;
  }
  args.min_time_s = min_time_s;
  return args;
}

/// The bootstrapping section's set, a toy ring below any security level: a 128-bit
/// bootstrappable set needs N = 2^16, whose keys (gigabytes) and bootstraps (a minute or more on
/// one core) do not suit a report (docs/perf.md has that cost). N = 2^11 (--quick:
/// 2^10); q_0 of 60 bits, three 40-bit user levels and 14 levels of 58 bits for the bootstrap
/// (CoeffToSlot 3, EvalMod's sine series at 16 baby steps 8, SlotToCoeff 3); P = 3 × 60 bits;
/// h = 64; Δ = 2^40. Each bootstrap costs 0.2–1 s, so 5 samples (--quick: 3) whatever
/// --min-time says.
BenchCkksConfig report_bootstrap_config(const ReportOptions& opt, double min_time_s) {
  BenchCkksArgs args;
  args.log_n = opt.quick ? 10 : 11;
  args.primes = "60,40,40,40";
  for (int i = 0; i < 14; ++i) args.primes += ",58";
  args.special = "60,60,60";
  args.security = "none";
  args.hamming_weight = 64;
  args.ops = "bootstrap";
  args.bootstrap_levels = "3,3";
  args.eval_mod_baby_steps = 16;
  args.min_time_s = min_time_s;
  BenchCkksConfig config = make_bench_ckks_config(args);
  config.timing.min_samples = opt.quick ? 3 : 5;
  return config;
}

/// "CPU, 1 thread, path ifma" or the device's name.
std::string where(const Measurement& m) {
  if (m.backend != "cpu") return m.device + " (backend " + m.backend + "), host work on 1 thread";
  return "CPU, 1 thread, path " + m.path;
}

void write_ckks(std::ostream& md, const rlwe::Parameters& params, int scale_bits,
                const std::vector<CkksMeasurement>& ms) {
  md << (ms.empty() ? std::string("?") : where(ms.front().m)) << ": "
     << ckks_parameters_line(params, scale_bits) << ".\n\n";
  md << scheme_table_header();
  for (const CkksMeasurement& cm : ms) md << scheme_table_row(cm.m, cm.level);
  md << '\n' << ckks_table_notes(ms);
}

void write_bootstrap(std::ostream& md, const BenchCkksConfig& config,
                     const rlwe::Parameters& params, const std::vector<CkksMeasurement>& ms) {
  md << (ms.empty() ? std::string("?") : where(ms.front().m)) << ": "
     << ckks_parameters_line(params, config.scale_bits) << ", a secret of Hamming weight "
     << config.literal.hamming_weight << "; CoeffToSlot in " << config.coeff_to_slot_levels
     << " levels, EvalMod by the sine's Chebyshev series at " << config.eval_mod_baby_steps
     << " baby steps, SlotToCoeff in " << config.slot_to_coeff_levels << " levels.\n\n";
  md << scheme_table_header();
  for (const CkksMeasurement& cm : ms) md << scheme_table_row(cm.m, cm.level);
  md << '\n';
  for (const CkksMeasurement& cm : ms) {
    if (!cm.levels_after || !cm.precision_bits) continue;
    md << "A level-0 ciphertext of random slots in the complex unit disc (all N/2 = "
       << params.n() / 2 << ") refreshed to level " << *cm.levels_after
       << " of L = " << params.max_level() << ", key generation excluded; precision "
       << fixed(*cm.precision_bits, 2)
       << " bits (−log2 of the largest slot error against the input). The ring is a toy one, "
          "below any security level, so that the section takes seconds; bootstraps at N = 2^16 "
          "are measured in docs/perf.md (`polyhe bench ckks --ops bootstrap` runs them).\n";
  }
}

/// The BFV and BGV parameter set of the report: the anchor set (SEAL's default at N = 2^14: Q =
/// 48·3 + 49·5 bits, P = 49 bits, t = 65537), or with --quick SEAL's default at N = 2^12 (Q =
/// 36,36 and P = 37 bits, log QP = 109), where one multiplication leaves about 20 bits of noise
/// budget.
BenchIntegerArgs report_integer_args(const ReportOptions& opt, double min_time_s) {
  BenchIntegerArgs args;  // the anchor set, 1 thread, every op
  if (opt.quick) {
    args.log_n = 12;
    args.primes = "36,36,37";
  }
  args.min_time_s = min_time_s;
  return args;
}

/// One integer scheme's section: its configuration, context and measurements.
struct IntegerSection {
  BenchIntegerConfig config;
  bgv::ContextPtr ctx;
  std::vector<IntegerMeasurement> ms;
};

BenchIntegerConfig report_integer_config(const ReportOptions& opt, double min_time_s,
                                         IntegerScheme scheme, const std::string& backend = "cpu") {
  BenchIntegerArgs args = report_integer_args(opt, min_time_s);
  args.backend = backend;
  return make_bench_integer_config(args, scheme);
}

IntegerSection run_integer(const BenchIntegerConfig& config, std::ostream& err) {
  IntegerSection s;
  s.config = config;
  err << "polyhe report: " << scheme_title(s.config.scheme) << " benchmark (N = 2^"
      << s.config.literal.log_n << ", " << s.config.ops.size() << " ops)...\n";
  s.ctx = make_integer_context(s.config);
  run_bench_integer(
      s.config, s.ctx, [&](const IntegerMeasurement& im) { s.ms.push_back(im); },
      [&](const std::string& line) { err << "polyhe report: " << one_line(line) << '\n'; });
  return s;
}

/// The section's measurements as JSON lines, as `polyhe bench bfv|bgv --json` prints them.
void write_integer_data(std::ostream& data, const IntegerSection& s) {
  for (const IntegerMeasurement& im : s.ms) {
    data << integer_json(s.config, *s.ctx->params(), im) << '\n';
  }
}

void write_integer(std::ostream& md, const IntegerSection& s) {
  md << "\n## " << scheme_title(s.config.scheme) << (s.config.backend.device ? " on the GPU" : "")
     << "\n\n";
  md << (s.ms.empty() ? std::string("?") : where(s.ms.front().m)) << ": "
     << integer_parameters_line(s.config, *s.ctx->params()) << ".\n\n";
  md << scheme_table_header();
  for (const IntegerMeasurement& im : s.ms) md << scheme_table_row(im.m, im.level);
  md << '\n' << integer_table_notes(s.config, s.ms);
}

}  // namespace

int cmd_report(const ReportOptions& opt, std::ostream& out, std::ostream& err) {
  // Every option is checked before a file is touched, and the files are only replaced at the end
  // (OutputFile): a bad option or a failed run leaves what --output and --data named as it was.
  if (!opt.output.empty() && opt.output == opt.data) {
    throw UsageError("--output and --data both name '" + opt.output + "'; give two files");
  }
  BenchNttArgs args;  // log N 10-17, 30/50/60 bits, default variant, 1 thread, every CPU path
  args.cpu = "all";
  args.min_time_s = opt.min_time_s ? *opt.min_time_s : opt.quick ? kQuickMinTime : kDefaultMinTime;
  const BenchNttConfig config = make_bench_ntt_config(args);
  const BenchCkksConfig ckks = make_bench_ckks_config(report_ckks_args(opt, args.min_time_s));
  const BenchCkksConfig boot_config = report_bootstrap_config(opt, args.min_time_s);
  const BenchIntegerConfig bfv_config =
      report_integer_config(opt, args.min_time_s, IntegerScheme::bfv);
  const BenchIntegerConfig bgv_config =
      report_integer_config(opt, args.min_time_s, IntegerScheme::bgv);
  OutputFile file(opt.output, "--output");
  OutputFile data_file(opt.data, "--data");

  err << "polyhe report: self-test...\n";
  const SelftestResult st = run_selftest(opt.seed ? *opt.seed : os_seed());
  const std::size_t count = config.cases.size() * config.ops.size() * config.paths.size();
  err << "polyhe report: NTT benchmark (" << count << " measurements, about "
      << fixed(static_cast<double>(count) * config.timing.min_time_s, 0) << " s)...\n";
  std::vector<Measurement> ms;
  run_bench_ntt(
      config, [&](const Measurement& m) { ms.push_back(m); },
      [&](const std::string& line) { err << "polyhe report: " << one_line(line) << '\n'; });

  err << "polyhe report: CKKS benchmark (N = 2^" << ckks.literal.log_n << ", " << ckks.ops.size()
      << " ops)...\n";
  const rlwe::ParametersPtr ckks_params = make_ckks_parameters(ckks);
  std::vector<CkksMeasurement> ckks_ms;
  run_bench_ckks(
      ckks, ckks_params, [&](const CkksMeasurement& cm) { ckks_ms.push_back(cm); },
      [&](const std::string& line) { err << "polyhe report: " << one_line(line) << '\n'; });

  err << "polyhe report: CKKS bootstrapping (N = 2^" << boot_config.literal.log_n << ", "
      << boot_config.timing.min_samples << " samples)...\n";
  const rlwe::ParametersPtr boot_params = make_ckks_parameters(boot_config);
  std::vector<CkksMeasurement> boot_ms;
  run_bench_ckks(
      boot_config, boot_params, [&](const CkksMeasurement& cm) { boot_ms.push_back(cm); },
      [&](const std::string& line) { err << "polyhe report: " << one_line(line) << '\n'; });

  const IntegerSection bfv_section = run_integer(bfv_config, err);
  const IntegerSection bgv_section = run_integer(bgv_config, err);

  // --data: the measurements in the report's order, each as its bench command's --json line.
  std::ostringstream data;
  for (const Measurement& m : ms) data << measurement_json(m) << '\n';
  for (const CkksMeasurement& cm : ckks_ms) {
    data << ckks_json(*ckks_params, ckks.scale_bits, cm) << '\n';
  }
  for (const CkksMeasurement& cm : boot_ms) {
    data << ckks_json(*boot_params, boot_config.scale_bits, cm) << '\n';
  }
  write_integer_data(data, bfv_section);
  write_integer_data(data, bgv_section);

  // The same schemes on the GPU when one is usable (keys and ciphertexts on device 0).
  std::ostringstream gpu_md;
  bool gpu_failed = false;
  if (!gpu_report().gpus.empty()) {
    try {
      BenchCkksArgs gpu_args = report_ckks_args(opt, args.min_time_s);
      gpu_args.backend = "cuda";
      const BenchCkksConfig gpu_ckks = make_bench_ckks_config(gpu_args);
      err << "polyhe report: CKKS on the GPU...\n";
      std::vector<CkksMeasurement> gpu_ms;
      run_bench_ckks(
          gpu_ckks, ckks_params, [&](const CkksMeasurement& cm) { gpu_ms.push_back(cm); },
          [&](const std::string& line) { err << "polyhe report: " << one_line(line) << '\n'; });
      for (const CkksMeasurement& cm : gpu_ms) {
        data << ckks_json(*ckks_params, gpu_ckks.scale_bits, cm) << '\n';
      }
      gpu_md << "\n## CKKS on the GPU\n\n";
      write_ckks(gpu_md, *ckks_params, gpu_ckks.scale_bits, gpu_ms);
      for (const IntegerScheme scheme : {IntegerScheme::bfv, IntegerScheme::bgv}) {
        const IntegerSection s =
            run_integer(report_integer_config(opt, args.min_time_s, scheme, "cuda"), err);
        write_integer_data(data, s);
        write_integer(gpu_md, s);
      }
    } catch (const Error& e) {
      gpu_failed = true;
      gpu_md << "\n## Schemes on the GPU\n\n**FAILED**: " << one_line(e.what()) << "\n";
    }
  }

  std::ostringstream md;
  md << "# polyhe report\n\n";
  md << "- Date: " << utc_timestamp() << '\n';
  write_machine(md);
  md << "\n## Self-test\n\n"
     << (st.ok() ? "Passed" : "**FAILED**") << ": " << st.passed() << " checks passed, "
     << st.failed() << " failed, in " << fixed(st.seconds, 2) << " s (seed " << st.seed
     << ").\n\n```\n";
  write_selftest_text(st, md);
  md << "```\n\n## NTT and polynomial multiplication\n\n";
  md << "CPU, 1 thread, variant " << to_string(kDefaultNttVariant)
     << " on every kernel path this CPU has (`path`: the kernel that ran; IFMA serves primes "
        "below 2^50, wider ones fall back to AVX-512), the largest NTT prime of each size; median, "
        "10th and 90th percentile per call over "
        "`reps` samples (at least "
     << fixed(config.timing.min_time_s, 2) << " s per measurement).\n\n";
  md << markdown_table_header();
  for (const Measurement& m : ms) md << markdown_table_row(m);
  md << "\n## Fused multiplication ([GPU-Polymul, Alg. 8]) against INTT(NTT(a) ⊙ NTT(b))\n\n";
  write_ratios(md, ms);
  md << "\n## CKKS\n\n";
  write_ckks(md, *ckks_params, ckks.scale_bits, ckks_ms);
  md << "\n## CKKS bootstrapping\n\n";
  write_bootstrap(md, boot_config, *boot_params, boot_ms);
  write_integer(md, bfv_section);
  write_integer(md, bgv_section);
  md << gpu_md.str();

  out << md.str() << std::flush;
  file.commit(md.str());
  data_file.commit(data.str());
  return st.ok() && !gpu_failed ? 0 : 1;
}

}  // namespace polyhe::cli
