// Google Benchmark of the cyclic NTT plans at HElib's m = 21845 = 5·17·257
// ([PFA-Rader]: 11.9 µs on an Alveo U250, 1.10 ms for HElib's software NTT):
//   cyclic_forward/<decomposition>/n:N    CyclicNttPlan::forward_with, forced root decomposition
//   cyclic_inverse/<decomposition>/n:N    CyclicNttPlan::inverse_with
// for n = 21845 and 4369 by the planner's PFA+Rader tree (flattened, on the active CPU path:
// POLYHE_CPU=scalar forces the portable one) and 21845 by Bluestein, and for comparison the
// power-of-two cyclic radix-2 plan at 16384 and 32768. One 62-bit prime per length, the largest
// ≡ 1 mod lcm(n, 2^16, p − 1 for p | n), so that every decomposition has its roots.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"

namespace {

using polyhe::CyclicNttPlan;
using polyhe::Decomposition;

std::uint64_t bench_prime(std::size_t n) {
  std::uint64_t L = std::lcm(static_cast<std::uint64_t>(n), std::uint64_t{1} << 16);
  for (std::uint64_t p : polyhe::prime_factors(n)) L = std::lcm(L, p - 1);
  return polyhe::cyclic_prime(62, L);
}

void bm_cyclic(benchmark::State& state, std::size_t n, Decomposition d, bool inverse) {
  const auto plan = CyclicNttPlan::create(n, bench_prime(n), d);
  std::vector<std::uint64_t> a(n);
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;  // splitmix64: benchmark inputs, not keys
  for (auto& x : a) {
    s += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (z ^ (z >> 31)) % plan->q();
  }
  std::vector<std::uint64_t> scratch(plan->scratch_size());
  for (auto _ : state) {
    if (inverse) {
      plan->inverse_with(a, scratch);
    } else {
      plan->forward_with(a, scratch);  // outputs stay in [0, q): a valid input again
    }
    benchmark::DoNotOptimize(a.data());
  }
  state.SetLabel(plan->decomposition());
  state.counters["points_per_second"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

int main(int argc, char** argv) {
  struct Case {
    std::size_t n;
    Decomposition d;
  };
  for (const Case c : {Case{21845, Decomposition::automatic}, Case{4369, Decomposition::automatic},
                       Case{21845, Decomposition::bluestein}, Case{16384, Decomposition::radix2},
                       Case{32768, Decomposition::radix2}}) {
    for (const bool inverse : {false, true}) {
      const std::string name =
          std::string(inverse ? "cyclic_inverse/" : "cyclic_forward/") +
          std::string(c.d == Decomposition::automatic ? "pfa_rader"
                                                      : std::string(polyhe::to_string(c.d))) +
          "/n:" + std::to_string(c.n);
      benchmark::RegisterBenchmark(name.c_str(), bm_cyclic, c.n, c.d, inverse)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
