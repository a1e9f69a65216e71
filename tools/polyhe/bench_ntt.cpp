#include "bench_ntt.hpp"

#include <algorithm>
#include <span>
#include <sstream>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "random.hpp"
#include "sysinfo.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

using u64 = std::uint64_t;
using Plan = NttPlan<u64>;

constexpr int kMinBits = 20;
constexpr int kMaxBits = 62;
constexpr unsigned kMaxThreads = 256;  // 2·256 limbs of N = 2^17 are 512 MiB per buffer

std::string all_variant_names() {
  std::string names;
  for (NttVariant v : kAllNttVariants)
    names += (names.empty() ? "" : ", ") + std::string(to_string(v));
  return names;
}

std::vector<NttVariant> parse_variants(const std::string& spec) {
  if (spec.empty()) return {kDefaultNttVariant};
  if (spec == "all") return {kAllNttVariants.begin(), kAllNttVariants.end()};
  if (auto v = parse_ntt_variant(spec)) return {*v};
  throw UsageError("--variant: unknown NTT variant '" + spec + "'; the variants are " +
                   all_variant_names() + ", or all");
}

/// The CPU paths named in `spec`: empty → the active one; "all" → every path this CPU has.
std::vector<CpuPath> parse_paths(const std::string& spec) {
  if (spec.empty()) return {cpu_path()};
  std::vector<CpuPath> paths;
  for (CpuPath p : kAllCpuPaths) {
    if (spec == "all") {
      if (!cpu_path_unavailable_reason(p)) paths.push_back(p);
    } else if (spec == to_string(p)) {
      if (auto why = cpu_path_unavailable_reason(p)) {
        throw UsageError("--cpu " + spec + ": " + *why);
      }
      paths.push_back(p);
    }
  }
  if (paths.empty()) {
    throw UsageError("--cpu: unknown CPU path '" + spec +
                     "'; use scalar, avx2, avx512, ifma or all");
  }
  return paths;
}

/// Restores the active CPU path when a benchmark that switches it ends, however it ends.
class CpuPathGuard {
 public:
  CpuPathGuard() : saved_(cpu_path()) {}
  ~CpuPathGuard() { set_cpu_path(saved_); }
  CpuPathGuard(const CpuPathGuard&) = delete;
  CpuPathGuard& operator=(const CpuPathGuard&) = delete;

 private:
  CpuPath saved_;
};

/// The ops named in `spec`, in the order of kAllBenchOps.
std::vector<BenchOp> parse_ops(const std::string& spec) {
  if (spec.empty()) return {kAllBenchOps.begin(), kAllBenchOps.end()};
  const std::vector<std::string> names = split_list(spec, "--ops");
  for (const std::string& name : names) {
    if (std::none_of(kAllBenchOps.begin(), kAllBenchOps.end(),
                     [&](BenchOp op) { return to_string(op) == name; })) {
      throw UsageError("--ops: unknown op '" + name +
                       "'; the ops are ntt_forward, ntt_inverse, polymul, polymul_fused");
    }
  }
  std::vector<BenchOp> ops;
  for (BenchOp op : kAllBenchOps) {
    if (std::find(names.begin(), names.end(), to_string(op)) != names.end()) ops.push_back(op);
  }
  return ops;
}

/// Uniform non-zero coefficients below q, in a 64-byte-aligned buffer (as the library's own
/// tables and as other libraries' benchmarks use: a vector straddling cache lines costs 4–10 %).
AlignedVector<u64> random_poly(std::size_t words, u64 q, InputRng& rng) {
  AlignedVector<u64> p(words);
  for (auto& x : p) x = rng.uniform(1, q - 1);
  return p;
}

/// Times every op of one (case, variant) on buffers of `limbs` limbs.
class CaseRunner {
 public:
  CaseRunner(const BenchNttConfig& config, const BenchCase& c, InputRng& rng)
      : config_(config), plan_(Plan::create(std::size_t{1} << c.log_n, c.q)) {
    limbs_ = config.threads > 1 ? 2 * std::size_t{config.threads} : 1;
    const std::size_t words = limbs_ * plan_->n();
    a_ = random_poly(words, c.q, rng);
    b_ = random_poly(words, c.q, rng);
    data_ = a_;
    c_.assign(words, 0);
    plans_.assign(limbs_, plan_.get());
  }

  [[nodiscard]] const Plan& plan() const { return *plan_; }
  [[nodiscard]] std::size_t limbs() const { return limbs_; }

  TimingStats time(BenchOp op, NttVariant v) {
    const unsigned t = config_.threads;
    const std::span<const Plan* const> plans(plans_);
    const std::span<u64> data(data_);
    const std::span<const u64> a(a_), b(b_);
    const std::span<u64> c(c_);
    const Plan& p = *plan_;
    if (t == 1) {
      switch (op) {
        case BenchOp::ntt_forward: return measure([&] { p.forward(data, v); }, config_.timing);
        case BenchOp::ntt_inverse: return measure([&] { p.inverse(data, v); }, config_.timing);
        case BenchOp::polymul: return measure([&] { polymul<u64>(a, b, c, p, v); }, config_.timing);
        case BenchOp::polymul_fused:
          return measure([&] { polymul_fused<u64>(a, b, c, p, v); }, config_.timing);
      }
    }
    switch (op) {
      case BenchOp::ntt_forward:
        return measure([&] { forward_batch<u64>(data, plans, v, t); }, config_.timing);
      case BenchOp::ntt_inverse:
        return measure([&] { inverse_batch<u64>(data, plans, v, t); }, config_.timing);
      case BenchOp::polymul:
        return measure([&] { polymul_batch<u64>(a, b, c, plans, false, v, t); }, config_.timing);
      case BenchOp::polymul_fused:
        return measure([&] { polymul_batch<u64>(a, b, c, plans, true, v, t); }, config_.timing);
    }
    return {};
  }

 private:
  const BenchNttConfig& config_;
  std::shared_ptr<const Plan> plan_;
  std::size_t limbs_ = 1;
  AlignedVector<u64> a_, b_, c_, data_;
  std::vector<const Plan*> plans_;
};

}  // namespace

std::string_view to_string(BenchOp op) {
  switch (op) {
    case BenchOp::ntt_forward: return "ntt_forward";
    case BenchOp::ntt_inverse: return "ntt_inverse";
    case BenchOp::polymul: return "polymul";
    case BenchOp::polymul_fused: return "polymul_fused";
  }
  return "unknown";
}

BenchNttConfig make_bench_ntt_config(const BenchNttArgs& args) {
  BenchNttConfig config;
  const auto log_ns = parse_int_list(args.log_n, "--log-n", 1, static_cast<int>(Plan::kMaxLogN));
  const auto bits = parse_int_list(args.bits, "--bits", kMinBits, kMaxBits);
  for (int log_n : log_ns) {
    for (int b : bits) {
      try {
        config.cases.push_back({log_n, b, ntt_primes(b, std::size_t{1} << log_n, 1).at(0)});
      } catch (const Error& e) {
        throw UsageError("--bits " + std::to_string(b) + " with --log-n " + std::to_string(log_n) +
                         ": " + e.what());
      }
    }
  }
  config.variants = parse_variants(args.variant);
  config.ops = parse_ops(args.ops);
  config.paths = parse_paths(args.cpu);
  if (args.threads < 1 || args.threads > kMaxThreads) {
    throw UsageError("--threads: " + std::to_string(args.threads) + " is outside [1, " +
                     std::to_string(kMaxThreads) + "]");
  }
  config.threads = args.threads;
  if (!(args.min_time_s > 0 && args.min_time_s <= 600)) {
    std::ostringstream msg;
    msg << "--min-time: " << args.min_time_s << " seconds is outside (0, 600]";
    throw UsageError(msg.str());
  }
  config.timing.min_time_s = args.min_time_s;
  config.timing.warmup_s = std::min(config.timing.warmup_s, args.min_time_s / 4);
  return config;
}

void run_bench_ntt(const BenchNttConfig& config,
                   const std::function<void(const Measurement&)>& sink,
                   const std::function<void(const std::string&)>& note) {
  InputRng rng(os_seed());
  const std::string device = cpu_model();
  const CpuPathGuard guard;
  // The batched API uses at most the default pool's threads: grow it to what was asked for.
  if (config.threads > thread_count()) set_thread_count(config.threads);
  for (const BenchCase& c : config.cases) {
    CaseRunner runner(config, c, rng);
    std::vector<CpuPath> kernels_timed;  // a path asked for may run a lower path's kernel
    for (std::size_t pi = 0; pi < config.paths.size(); ++pi) {
      set_cpu_path(config.paths[pi]);
      const CpuPath kernel_path = runner.plan().cpu_kernel()->path();
      const bool kernel_seen =
          std::find(kernels_timed.begin(), kernels_timed.end(), kernel_path) != kernels_timed.end();
      kernels_timed.push_back(kernel_path);
      for (NttVariant v : config.variants) {
        const bool has_kernels = v == kDefaultNttVariant;
        if (!has_kernels && pi > 0) continue;      // path-independent: timed once
        if (has_kernels && kernel_seen) continue;  // that kernel was timed for this case already
        try {
          runner.plan().require(v);
        } catch (const Error& e) {
          if (pi == 0) {
            note("skipping " + std::string(to_string(v)) + " at log N " + std::to_string(c.log_n) +
                 ", " + std::to_string(c.bits) + " bits: " + e.what());
          }
          continue;
        }
        for (BenchOp op : config.ops) {
          Measurement m;
          m.op = to_string(op);
          m.device = device;
          m.log_n = c.log_n;
          m.bits = c.bits;
          m.limbs = runner.limbs();
          m.variant = to_string(v);
          m.path = has_kernels ? std::string(to_string(runner.plan().cpu_kernel()->path()))
                               : std::string("scalar");
          m.threads = config.threads;
          m.stats = runner.time(op, v);
          sink(m);
        }
      }
    }
  }
}

}  // namespace polyhe::cli
