// Google Benchmark microbenchmarks of the NTT layer (docs/perf-floor.md reads their output).
//
// Every benchmark is registered programmatically in main():
//   ntt_forward/<variant>/logn:L/bits:B            NttPlan<uint64_t>::forward
//   ntt_inverse/<variant>/logn:L/bits:B            NttPlan<uint64_t>::inverse
//   polymul/<variant>/logn:L/bits:B                polyhe::polymul (2 forward + Hadamard + 1 inverse)
//   polymul_fused/<variant>/logn:L/bits:B          polyhe::polymul_fused [GPU-Polymul, Alg. 8]
//   .../bits:30/word:32                            the same on NttPlan<uint32_t> (shoup-lazy,
//                                                  barrett-alg4)
//   ntt_forward_batch/<variant>/logn:14/bits:60/limbs:8/threads:T   polyhe::forward_batch
//   calibrate/...                                  machine calibration (see below)
// for every variant of kAllNttVariants that the prime supports, log N = 10..17 and the largest
// NTT prime of 30, 50 and 60 bits (polyhe::ntt_primes(bits, N, 1)[0]).
//
// Counters: items_per_second = butterflies per second, N/2·log2 N per transform. polymul and
// polymul_fused both count the nominal 3·N/2·log2 N of the unfused product, so their rates
// compare as the inverse of their times. The batch counts limbs·N/2·log2 N.
//
// Inputs: uniform in [1, q) (non-zero), from a fixed-seed splitmix64 stream — benchmark inputs,
// not key material, so no CSPRNG is needed. Each benchmark function warms up (untimed calls for
// ≥ 2 ms) before its timed loop.
//
// The in-place transforms (forward, inverse, forward_batch) transform the SAME buffer again on
// every iteration: after the first forward call the buffer holds bit-reversed evaluation-form
// data that the next call treats as natural-order input. That is meaningless mathematically but
// fine for timing — every output is in [0, q), so each call meets the preconditions and does
// exactly the same work (the code paths are data-independent apart from the reference
// variant's `%`, whose cost does not depend much on the values).
//
// Calibration benchmarks (inline x86-64 assembly; absent on other ISAs):
//   calibrate/add_latency        1000 dependent `add` per iteration: 1 cycle each on every
//                                current x86 core, so ns/op = 1/clock.
//   calibrate/imul_latency       dependent `imul r64, r64` chain: 3 cycles each on Zen.
//   calibrate/mul_throughput     independent `mul r64` (64×64→128 into rdx:rax, as gcc emits
//                                for unsigned __int128 products without -mbmi2).
//   calibrate/mulx_throughput    independent `mulx` (BMI2 form of the same product; only where
//                                the CPU has BMI2).
//   calibrate/imul_throughput    independent `imul r64, r64` (low 64 bits only).
//   calibrate/shoup_mul_throughput  independent Shoup products a·w − hi(a·w')·q: one widening
//                                mul + two imul + sub, the multiply core of one lazy butterfly.
// items_per_second there is operations per second; s_per_op the time per operation.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "polyhe/ntt/variant.hpp"

namespace {

using polyhe::NttPlan;
using polyhe::NttVariant;

constexpr int kMinLogN = 10;
constexpr int kMaxLogN = 17;
constexpr double kWarmUpSeconds = 0.002;  // per call of a benchmark function, untimed

// ---- inputs -------------------------------------------------------------------------------

struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

/// n values uniform in [1, q) (modulo bias is irrelevant here), reproducible from `seed`.
template <class W>
polyhe::AlignedVector<W> random_nonzero(std::size_t n, std::uint64_t q, std::uint64_t seed) {
  SplitMix64 rng{seed};
  polyhe::AlignedVector<W> v(n);
  for (auto& x : v) x = static_cast<W>(1 + rng.next() % (q - 1));
  return v;
}

/// Untimed warm-up: f() at least once and until kWarmUpSeconds have passed (first-touch page
/// faults, caches, branch predictors, clock ramp). Done here rather than with MinWarmUpTime,
/// which would append "/min_warmup_time:..." to every benchmark name.
template <class F>
void warm_up(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  do {
    f();
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           kWarmUpSeconds);
}

// ---- plans, built once --------------------------------------------------------------------

template <class W>
std::shared_ptr<const NttPlan<W>> plan_for(std::size_t n, std::uint64_t q) {
  static std::map<std::pair<std::size_t, std::uint64_t>, std::shared_ptr<const NttPlan<W>>> cache;
  auto& p = cache[{n, q}];
  if (!p) p = NttPlan<W>::create(n, static_cast<W>(q));
  return p;
}

double butterflies(int log_n) {
  return static_cast<double>(std::size_t{1} << log_n) / 2.0 * log_n;
}

void set_rate(benchmark::State& state, double items_per_iteration) {
  state.counters["items_per_second"] = benchmark::Counter(
      items_per_iteration * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// ---- the benchmarks -----------------------------------------------------------------------

enum class Op { forward, inverse, polymul, polymul_fused };

const char* op_name(Op op) {
  switch (op) {
    case Op::forward: return "ntt_forward";
    case Op::inverse: return "ntt_inverse";
    case Op::polymul: return "polymul";
    case Op::polymul_fused: return "polymul_fused";
  }
  return "?";
}

template <class W>
void run_op(benchmark::State& state, Op op, NttVariant v, int log_n, std::uint64_t q) {
  const std::size_t n = std::size_t{1} << log_n;
  const auto plan = plan_for<W>(n, q);
  const std::uint64_t seed = (static_cast<std::uint64_t>(log_n) << 8) ^ q;
  auto a = random_nonzero<W>(n, q, seed);
  switch (op) {
    case Op::forward: {
      warm_up([&] { plan->forward(a, v); });
      for (auto _ : state) {
        plan->forward(a, v);  // same buffer each time: see the file comment
        benchmark::ClobberMemory();
      }
      set_rate(state, butterflies(log_n));
      break;
    }
    case Op::inverse: {
      warm_up([&] { plan->inverse(a, v); });
      for (auto _ : state) {
        plan->inverse(a, v);
        benchmark::ClobberMemory();
      }
      set_rate(state, butterflies(log_n));
      break;
    }
    case Op::polymul:
    case Op::polymul_fused: {
      const auto b = random_nonzero<W>(n, q, seed ^ 0xB0B);
      polyhe::AlignedVector<W> c(n);
      const std::span<const W> sa(a), sb(b);
      const std::span<W> sc(c);
      const bool fused = op == Op::polymul_fused;
      const auto once = [&] {
        if (fused) {
          polyhe::polymul_fused(sa, sb, sc, *plan, v);
        } else {
          polyhe::polymul(sa, sb, sc, *plan, v);
        }
      };
      warm_up(once);
      for (auto _ : state) {
        once();
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
      }
      set_rate(state, 3.0 * butterflies(log_n));
      break;
    }
  }
}

void run_forward_batch(benchmark::State& state, NttVariant v, int log_n, int bits,
                       std::size_t limbs, unsigned threads) {
  const std::size_t n = std::size_t{1} << log_n;
  const auto primes = polyhe::ntt_primes(bits, n, limbs);
  std::vector<std::shared_ptr<const NttPlan<std::uint64_t>>> owned;
  std::vector<const NttPlan<std::uint64_t>*> plans;
  polyhe::AlignedVector<std::uint64_t> data(limbs * n);
  for (std::size_t i = 0; i < limbs; ++i) {
    owned.push_back(plan_for<std::uint64_t>(n, primes[i]));
    plans.push_back(owned.back().get());
    const auto limb = random_nonzero<std::uint64_t>(n, primes[i], 0xBA7C4 + i);
    std::copy(limb.begin(), limb.end(), data.begin() + static_cast<std::ptrdiff_t>(i * n));
  }
  const std::span<const NttPlan<std::uint64_t>* const> sp(plans);
  warm_up([&] { polyhe::forward_batch<std::uint64_t>(data, sp, v, threads); });
  for (auto _ : state) {
    polyhe::forward_batch<std::uint64_t>(data, sp, v, threads);  // same buffer: file comment
    benchmark::ClobberMemory();
  }
  set_rate(state, static_cast<double>(limbs) * butterflies(log_n));
  state.counters["limbs"] = static_cast<double>(limbs);
  state.counters["threads"] = threads;
}

// ---- calibration --------------------------------------------------------------------------

#if defined(__x86_64__)
constexpr int kUnroll = 100;  // operations per asm block; each block is repeated 10 times

void set_op_counters(benchmark::State& state, double ops_per_iteration) {
  const double ops = ops_per_iteration * static_cast<double>(state.iterations());
  state.counters["items_per_second"] = benchmark::Counter(ops, benchmark::Counter::kIsRate);
  // Seconds per operation (printed with an SI prefix: "238p" = 0.238 ns).
  state.counters["s_per_op"] =
      benchmark::Counter(ops, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

#define POLYHE_REPT10(body) body body body body body body body body body body

void calibrate_add_latency(benchmark::State& state) {
  std::uint64_t x = 0;
  for (auto _ : state) {
    POLYHE_REPT10(asm volatile(".rept 100\n\taddq $1, %0\n\t.endr" : "+r"(x));)
  }
  benchmark::DoNotOptimize(x);
  set_op_counters(state, 10.0 * kUnroll);
}

void calibrate_imul_latency(benchmark::State& state) {
  std::uint64_t x = 3;
  const std::uint64_t m = 0x9E3779B97F4A7C15ULL;
  for (auto _ : state) {
    POLYHE_REPT10(asm volatile(".rept 100\n\timulq %1, %0\n\t.endr" : "+r"(x) : "r"(m));)
  }
  benchmark::DoNotOptimize(x);
  set_op_counters(state, 10.0 * kUnroll);
}

void calibrate_mul_throughput(benchmark::State& state) {
  std::uint64_t a = 0x123456789ABCDEFULL, b = 0xFEDCBA987654321ULL;
  for (auto _ : state) {
    // mov a → rax; mul b → rdx:rax. The mov renames rax, so the products are independent.
    POLYHE_REPT10(asm volatile(".rept 100\n\tmovq %0, %%rax\n\tmulq %1\n\t.endr"
                               :
                               : "r"(a), "r"(b)
                               : "rax", "rdx", "cc");)
  }
  set_op_counters(state, 10.0 * kUnroll);
}

void calibrate_mulx_throughput(benchmark::State& state) {
  std::uint64_t b = 0xFEDCBA987654321ULL, lo = 0, hi = 0;
  for (auto _ : state) {
    // mulx src, lo, hi: rdx·src → hi:lo; rdx and src never change, so the products are
    // independent (the destinations are renamed).
    POLYHE_REPT10(asm volatile(".rept 100\n\tmulxq %2, %0, %1\n\t.endr"
                               : "=&r"(lo), "=&r"(hi)
                               : "r"(b), "d"(0x123456789ABCDEFULL));)
  }
  benchmark::DoNotOptimize(lo);
  benchmark::DoNotOptimize(hi);
  set_op_counters(state, 10.0 * kUnroll);
}

void calibrate_imul_throughput(benchmark::State& state) {
  std::uint64_t a = 0x123456789ABCDEFULL, b = 0xFEDCBA987654321ULL, t = 0;
  for (auto _ : state) {
    POLYHE_REPT10(asm volatile(".rept 100\n\tmovq %1, %0\n\timulq %2, %0\n\t.endr"
                               : "=&r"(t)
                               : "r"(a), "r"(b));)
  }
  benchmark::DoNotOptimize(t);
  set_op_counters(state, 10.0 * kUnroll);
}

void calibrate_shoup_mul_throughput(benchmark::State& state) {
  // r = a·w − hi(a·w')·q, as mul_shoup_lazy; a, w, w', q fixed so the products are independent.
  const std::uint64_t a = 0x0123456789ABCDEULL, w = 0x0FEDCBA98765432ULL,
                      ws = 0xF00DF00DF00DF00DULL, q = 0x0FFFFFFFFFFC0001ULL;
  std::uint64_t r = 0;
  for (auto _ : state) {
    POLYHE_REPT10(asm volatile(
                      ".rept 100\n\t"
                      "movq %1, %%rax\n\t"
                      "mulq %3\n\t"        // rdx = hi(a·w')
                      "movq %1, %0\n\t"
                      "imulq %2, %0\n\t"   // a·w (low)
                      "imulq %4, %%rdx\n\t"  // quot·q (low)
                      "subq %%rdx, %0\n\t"
                      ".endr"
                      : "=&r"(r)
                      : "r"(a), "r"(w), "r"(ws), "r"(q)
                      : "rax", "rdx", "cc");)
  }
  benchmark::DoNotOptimize(r);
  set_op_counters(state, 10.0 * kUnroll);
}
#undef POLYHE_REPT10
#endif

// ---- registration -------------------------------------------------------------------------

std::string name_of(const char* op, NttVariant v, int log_n, int bits) {
  return std::string(op) + "/" + std::string(polyhe::to_string(v)) + "/logn:" +
         std::to_string(log_n) + "/bits:" + std::to_string(bits);
}

void register_all() {
  constexpr Op kOps[] = {Op::forward, Op::inverse, Op::polymul, Op::polymul_fused};

#if defined(__x86_64__)
  benchmark::RegisterBenchmark("calibrate/add_latency", calibrate_add_latency);
  benchmark::RegisterBenchmark("calibrate/imul_latency", calibrate_imul_latency);
  benchmark::RegisterBenchmark("calibrate/mul_throughput", calibrate_mul_throughput);
  if (__builtin_cpu_supports("bmi2")) {
    benchmark::RegisterBenchmark("calibrate/mulx_throughput", calibrate_mulx_throughput);
  }
  benchmark::RegisterBenchmark("calibrate/imul_throughput", calibrate_imul_throughput);
  benchmark::RegisterBenchmark("calibrate/shoup_mul_throughput", calibrate_shoup_mul_throughput);
#endif

  // 64-bit words: every variant, log N 10..17, 30/50/60-bit primes.
  for (const int bits : {60, 50, 30}) {
    for (const Op op : kOps) {
      for (const NttVariant v : polyhe::kAllNttVariants) {
        for (int log_n = kMinLogN; log_n <= kMaxLogN; ++log_n) {
          const std::size_t n = std::size_t{1} << log_n;
          const std::uint64_t q = polyhe::ntt_primes(bits, n, 1)[0];
          if (!plan_for<std::uint64_t>(n, q)->supports(v)) continue;
          benchmark::RegisterBenchmark(name_of(op_name(op), v, log_n, bits).c_str(),
                                       [=](benchmark::State& s) {
                                         run_op<std::uint64_t>(s, op, v, log_n, q);
                                       })
              ->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }

  // 32-bit words, 30-bit primes: the GPU fast path, on the CPU.
  for (const Op op : kOps) {
    for (const NttVariant v : {NttVariant::shoup_lazy, NttVariant::barrett_alg4}) {
      for (int log_n = kMinLogN; log_n <= kMaxLogN; ++log_n) {
        const std::size_t n = std::size_t{1} << log_n;
        const std::uint64_t q = polyhe::ntt_primes(30, n, 1)[0];
        benchmark::RegisterBenchmark((name_of(op_name(op), v, log_n, 30) + "/word:32").c_str(),
                                     [=](benchmark::State& s) {
                                       run_op<std::uint32_t>(s, op, v, log_n, q);
                                     })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }

  // Batched forward transforms: 8 limbs (8 distinct 60-bit primes) at N = 2^14, 1 and 2
  // threads. forward_batch runs on the default thread pool; real time is the measure.
  for (const unsigned threads : {1U, 2U}) {
    const NttVariant v = polyhe::kDefaultNttVariant;
    constexpr int kLogN = 14, kBits = 60;
    constexpr std::size_t kLimbs = 8;
    benchmark::RegisterBenchmark((name_of("ntt_forward_batch", v, kLogN, kBits) + "/limbs:" +
                                  std::to_string(kLimbs) + "/threads:" + std::to_string(threads))
                                     .c_str(),
                                 [=](benchmark::State& s) {
                                   run_forward_batch(s, v, kLogN, kBits, kLimbs, threads);
                                 })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
