// Google Benchmark: the element-wise operations of polyhe::vec per CPU path, and the cost of the
// thread pool.
//
//   vec/<op>/<path>/bits:B/n:N        one modulus, one thread; counter ns_per_word
//   pool/parallel_for/threads:T/...   one parallel_for of T near-empty tasks (the pool's overhead)
//   ntt_batch/logn:12/limbs:L/threads:T   forward_batch through the pool
//   rns/<convert_exact|convert_approx|scale_round>/<path>/n:N   BFV's HPS conversions at the
//       anchor's shape (|Q| = 8 primes of 49 bits, |R| = 9 of 50, t = 65537), one thread;
//       counter ns_per_word (per coefficient)
//   keyip/<path>/bits:B/n:N          the key inner products of one key switch at CKKS's default
//       shape (9 one-prime digits, ten target limbs of B bits, each with its own packed key,
//       17.7 MB in all at B = 50, so the keys stream from memory as in the op); counter
//       ns_per_word (per coefficient and target limb)
//   gather/<path>/n:N, gather_add/<path>/n:N   one limb's automorphism in evaluation form
//       (Galois element 5), plain and added onto a second limb; counter ns_per_word
//
// Inputs are uniform in [0, q) (never zeros); each benchmark warms up before it is timed.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/scale_rounder.hpp"

namespace {

using u64 = std::uint64_t;

enum class Op { add, sub, negate, multiply, multiply_scalar, multiply_accumulate };

std::vector<u64> uniform(std::size_t n, u64 q, u64 seed) {
  std::mt19937_64 g(seed);  // benchmark data only; tests use the seeded TestRng
  std::vector<u64> v(n);
  for (auto& x : v) x = g() % q;
  return v;
}

void bench_op(benchmark::State& state, Op op, polyhe::CpuPath path, int bits) {
  if (auto why = polyhe::cpu_path_unavailable_reason(path)) {
    state.SkipWithError(why->c_str());
    return;
  }
  polyhe::set_cpu_path(path);
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const u64 qv = polyhe::ntt_primes(bits, 1024, 1)[0];
  const polyhe::Modulus<u64> q(qv);
  auto a = uniform(n, qv, 1), b = uniform(n, qv, 2), c = uniform(n, qv, 3);
  const u64 s = qv / 3;
  const auto once = [&] {
    switch (op) {
      case Op::add: polyhe::vec::add(a, b, c, q); break;
      case Op::sub: polyhe::vec::sub(a, b, c, q); break;
      case Op::negate: polyhe::vec::negate(a, c, q); break;
      case Op::multiply: polyhe::vec::multiply(a, b, c, q); break;
      case Op::multiply_scalar: polyhe::vec::multiply_scalar(a, s, c, q); break;
      case Op::multiply_accumulate: polyhe::vec::multiply_accumulate(a, b, c, q); break;
    }
  };
  for (int i = 0; i < 100; ++i) once();
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_word"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
  polyhe::set_cpu_path(polyhe::best_cpu_path());
}

/// One parallel_for of `threads` tasks that each add to an atomic: the pool's fixed cost. With
/// pause_us > 0 the pool idles that long between calls (its workers park), as a pool that is
/// called now and then does.
void bench_pool(benchmark::State& state, unsigned threads, int pause_us) {
  polyhe::ThreadPool pool(threads);
  std::atomic<std::size_t> sink{0};
  const auto body = [&](std::size_t i) { sink.fetch_add(i, std::memory_order_relaxed); };
  for (int i = 0; i < 1000; ++i) pool.parallel_for(threads, body);
  for (auto _ : state) {
    if (pause_us > 0) {
      state.PauseTiming();
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(pause_us);
      while (std::chrono::steady_clock::now() < until) {
      }
      state.ResumeTiming();
    }
    pool.parallel_for(threads, body);
  }
  benchmark::DoNotOptimize(sink.load());
}

void bench_ntt_batch(benchmark::State& state, std::size_t limbs, unsigned threads) {
  const std::size_t n = 4096;
  const auto qs = polyhe::ntt_primes(60, n, limbs);
  std::vector<std::shared_ptr<const polyhe::NttPlan<u64>>> owned;
  std::vector<const polyhe::NttPlan<u64>*> plans;
  std::vector<u64> data;
  for (std::size_t i = 0; i < limbs; ++i) {
    owned.push_back(polyhe::NttPlan<u64>::create(n, qs[i]));
    plans.push_back(owned.back().get());
    const auto limb = uniform(n, qs[i], 10 + i);
    data.insert(data.end(), limb.begin(), limb.end());
  }
  const auto once = [&] {
    polyhe::forward_batch<u64>(data, plans, polyhe::kDefaultNttVariant, threads);
    polyhe::inverse_batch<u64>(data, plans, polyhe::kDefaultNttVariant, threads);
  };
  for (int i = 0; i < 20; ++i) once();
  for (auto _ : state) {
    once();
    benchmark::ClobberMemory();
  }
  state.counters["threads"] = threads;
}

enum class Conversion { convert_exact, convert_approx, scale_round };

/// One conversion of N coefficients at BFV's anchor shape (N = 2^14): Q → R exact or approximate
/// (8 → 9 limbs), or the scale-and-round from Q ∪ R to R (17 → 9); Q of `bits`-bit primes and R
/// one bit wider (49: the IFMA52 sums; 60: the wide ones, as CKKS chains' primes).
void bench_conversion(benchmark::State& state, Conversion kind, polyhe::CpuPath path, int bits) {
  if (auto why = polyhe::cpu_path_unavailable_reason(path)) {
    state.SkipWithError(why->c_str());
    return;
  }
  polyhe::set_cpu_path(path);
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto q = polyhe::ntt_primes(bits, n, 8);
  const auto r = polyhe::ntt_primes(bits + 1, n, 9);
  const polyhe::RnsBasis qb(q), rb(r);
  const polyhe::BaseConverter q_to_r(qb, rb);
  const polyhe::ScaleRounder scale(qb, rb, 65537);
  const bool from_both = kind == Conversion::scale_round;
  std::vector<u64> primes = q;
  if (from_both) primes.insert(primes.end(), r.begin(), r.end());
  std::vector<u64> in;
  for (std::size_t i = 0; i < primes.size(); ++i) {
    const auto v = uniform(n, primes[i], 20 + i);
    in.insert(in.end(), v.begin(), v.end());
  }
  std::vector<u64> out(r.size() * n);
  const auto once = [&] {
    switch (kind) {
      case Conversion::convert_exact: q_to_r.convert_exact(in, out, 1); break;
      case Conversion::convert_approx: q_to_r.convert_approx(in, out, 1); break;
      case Conversion::scale_round: scale.round(in, out, 1); break;
    }
  };
  for (int i = 0; i < 20; ++i) once();
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_word"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
  polyhe::set_cpu_path(polyhe::best_cpu_path());
}

void bench_key_inner_products(benchmark::State& state, polyhe::CpuPath path, int bits) {
  if (auto why = polyhe::cpu_path_unavailable_reason(path)) {
    state.SkipWithError(why->c_str());
    return;
  }
  polyhe::set_cpu_path(path);
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t kDigits = 9, kTargets = 10;
  const auto primes = polyhe::ntt_primes(bits, n, kTargets);
  const std::size_t width = (static_cast<std::size_t>(bits) + 7) / 8;
  std::vector<std::vector<u64>> digits(kTargets * kDigits);
  std::vector<std::vector<std::uint8_t>> keys(kTargets);
  for (std::size_t t = 0; t < kTargets; ++t) {
    for (std::size_t j = 0; j < kDigits; ++j) {
      digits[t * kDigits + j] = uniform(n, primes[t], 100 + t * kDigits + j);
    }
    // Residues uniform in [0, q), packed little-endian in `width` bytes (the layout is the
    // kernel's business; the timing needs only the bytes).
    const auto residues = uniform(2 * kDigits * n, primes[t], 500 + t);
    keys[t].resize(residues.size() * width);
    for (std::size_t i = 0; i < residues.size(); ++i) {
      for (std::size_t b = 0; b < width; ++b) {
        keys[t][i * width + b] = static_cast<std::uint8_t>(residues[i] >> (8 * b));
      }
    }
  }
  std::vector<polyhe::Modulus<u64>> moduli;
  moduli.reserve(primes.size());
  for (u64 q : primes) moduli.emplace_back(q);
  std::vector<u64> c0(n), c1(n);
  std::vector<const u64*> a(kDigits);
  const auto once = [&] {
    for (std::size_t t = 0; t < kTargets; ++t) {
      for (std::size_t j = 0; j < kDigits; ++j) a[j] = digits[t * kDigits + j].data();
      polyhe::vec::key_inner_products(a, keys[t], kDigits, width, c0, c1, moduli[t]);
    }
  };
  for (int i = 0; i < 3; ++i) once();
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(c0.data());
    benchmark::DoNotOptimize(c1.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_word"] = benchmark::Counter(
      static_cast<double>(n * kTargets),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  polyhe::set_cpu_path(polyhe::best_cpu_path());
}

/// One limb's automorphism in evaluation form (the rotation by 1 step, Galois element 5, of the
/// ring's bit-reversed slots): vec::gather, or vec::gather_add onto a second limb.
void bench_gather(benchmark::State& state, polyhe::CpuPath path, bool accumulate) {
  if (auto why = polyhe::cpu_path_unavailable_reason(path)) {
    state.SkipWithError(why->c_str());
    return;
  }
  polyhe::set_cpu_path(path);
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  const auto q = polyhe::ntt_primes(50, n, 1);
  const auto ring = polyhe::RingContext::create(n, q);
  const auto index = ring->automorphism_table(5);
  const auto a = uniform(n, q[0], 7);
  std::vector<u64> c = uniform(n, q[0], 8);
  const polyhe::Modulus<u64> mod(q[0]);
  for (auto _ : state) {
    if (accumulate) {
      polyhe::vec::gather_add(a, index, c, mod);
    } else {
      polyhe::vec::gather(a, index, c);
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_word"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
  polyhe::set_cpu_path(polyhe::best_cpu_path());
}

const char* op_name(Op op) {
  switch (op) {
    case Op::add: return "add";
    case Op::sub: return "sub";
    case Op::negate: return "negate";
    case Op::multiply: return "multiply";
    case Op::multiply_scalar: return "multiply_scalar";
    case Op::multiply_accumulate: return "multiply_accumulate";
  }
  return "?";
}

[[maybe_unused]] const bool kRegistered = [] {
  for (Op op :
       {Op::add, Op::sub, Op::negate, Op::multiply, Op::multiply_scalar, Op::multiply_accumulate}) {
    for (auto path : polyhe::kAllCpuPaths) {
      for (int bits : {49, 60}) {
        const std::string name = std::string("vec/") + op_name(op) + "/" +
                                 std::string(polyhe::to_string(path)) +
                                 "/bits:" + std::to_string(bits);
        benchmark::RegisterBenchmark(name.c_str(), bench_op, op, path, bits)
            ->Arg(1 << 14)
            ->ArgName("n");
      }
    }
  }
  for (unsigned t : {1U, 2U, 4U}) {
    for (int pause : {0, 1000}) {
      const std::string name =
          "pool/parallel_for/threads:" + std::to_string(t) + "/idle_us:" + std::to_string(pause);
      auto* b = benchmark::RegisterBenchmark(name.c_str(), bench_pool, t, pause)->UseRealTime();
      if (pause > 0) b->Iterations(1000);  // the idle time is not timed but still passes
    }
  }
  for (std::size_t limbs : {2, 8}) {
    for (unsigned t : {1U, 2U}) {
      const std::string name =
          "ntt_batch/logn:12/limbs:" + std::to_string(limbs) + "/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(name.c_str(), bench_ntt_batch, limbs, t)->UseRealTime();
    }
  }
  for (const auto& [kind, name] : {std::pair{Conversion::convert_exact, "convert_exact"},
                                   std::pair{Conversion::convert_approx, "convert_approx"},
                                   std::pair{Conversion::scale_round, "scale_round"}}) {
    for (auto path : polyhe::kAllCpuPaths) {
      for (int bits : {49, 60}) {
        if (bits == 60 && kind == Conversion::scale_round) continue;
        const std::string full = std::string("rns/") + name + "/" +
                                 std::string(polyhe::to_string(path)) +
                                 (bits == 49 ? std::string() : "/bits:" + std::to_string(bits));
        benchmark::RegisterBenchmark(full.c_str(), bench_conversion, kind, path, bits)
            ->Arg(1 << 14)
            ->ArgName("n");
      }
    }
  }
  for (auto path : polyhe::kAllCpuPaths) {
    for (const bool accumulate : {false, true}) {
      const std::string name = std::string(accumulate ? "gather_add/" : "gather/") +
                               std::string(polyhe::to_string(path));
      benchmark::RegisterBenchmark(name.c_str(), bench_gather, path, accumulate)
          ->Arg(1 << 14)
          ->ArgName("n");
    }
  }
  for (auto path : polyhe::kAllCpuPaths) {
    for (int bits : {50, 60}) {
      const std::string name = std::string("keyip/") + std::string(polyhe::to_string(path)) +
                               "/bits:" + std::to_string(bits);
      benchmark::RegisterBenchmark(name.c_str(), bench_key_inner_products, path, bits)
          ->Arg(1 << 14)
          ->ArgName("n");
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
