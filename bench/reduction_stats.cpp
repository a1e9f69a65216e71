// How often each reduction needs its correcting subtraction(s), counted through the `_steps`
// forms on seeded random inputs, printed as markdown (docs/bench/reduction-corrections.md).
//
// Two input distributions per modulus:
//   products  x = a·b with a, b uniform in [0, q) — what a multiplication feeds the reduction;
//   uniform   x uniform in [0, 2^(2m)), m = len(q) — the Barrett precondition's whole range.
//             Montgomery-NTT is fed x uniform in [0, q²), its own precondition (2^(2m) exceeds
//             q·2^(r·k), the bound its single correction needs, when q is near 2^(m−1)).
// The GPU paper (§II-B) cites Barrett: a second classical correction in about 1% of cases.
//
// Usage: polyhe_reduction_stats [samples per row, default 10^7] [seed]
#include <array>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"

namespace polyhe {
namespace {

// Statistics only, not cryptography: a seeded Mersenne twister keeps every run reproducible.
using Engine = std::mt19937_64;

/// How many inputs needed 0, 1, 2 corrections, per reduction; DQ only where it serves q.
struct Counts {
  std::array<std::uint64_t, 3> classical{}, dq{}, alg4{}, montgomery{}, montgomery_ntt{};
  bool has_dq = false;
};

template <Word W>
Wide<W> uniform_bits(Engine& rng, int bits) {  // uniform in [0, 2^bits), bits ≤ 2β
  Wide<W> x = rng();
  if constexpr (word_bits<W> == 64) x = (x << 64) | rng();
  return bits == 2 * word_bits<W> ? x : x & ((Wide<W>{1} << bits) - 1);
}

template <Word W>
Wide<W> uniform_below(Engine& rng, Wide<W> bound) {
  const int bits = bit_length(bound - 1);
  for (;;) {
    const Wide<W> x = uniform_bits<W>(rng, bits);
    if (x < bound) return x;
  }
}

[[noreturn]] void mismatch(const char* what, std::uint64_t q) {
  std::fprintf(stderr, "reduction_stats: %s disagrees with x mod q for q = %" PRIu64 "\n", what, q);
  std::exit(1);
}

/// Feeds `samples` inputs from `draw` (returning the Barrett/Montgomery input and the
/// Montgomery-NTT input) to every reduction that serves q; checks each Barrett result against the
/// classical one, and every 4096th input against x mod q.
template <Word W, class Draw>
Counts count_corrections(const Modulus<W>& mod, std::uint64_t samples, Draw draw) {
  Counts n;
  const W q = mod.value();
  const auto& classical = mod.barrett_classical();
  const auto& alg4 = mod.barrett_alg4();
  const auto& montgomery = mod.montgomery();
  const auto& montgomery_ntt = mod.montgomery_ntt();
  n.has_dq = mod.supports(Reduction::barrett_dq);
  const BarrettDQ<W> dq = n.has_dq ? mod.barrett_dq() : BarrettDQ<W>{};
  for (std::uint64_t i = 0; i < samples; ++i) {
    const auto [x, x_ntt] = draw();
    const auto c = barrett_classical_steps(x, classical);
    const auto a4 = barrett_alg4_steps(x, alg4);
    ++n.classical[c.corrections];
    ++n.alg4[a4.corrections];
    if (a4.value != c.value) mismatch("[GPU-Polymul, Alg. 4]", q);
    if (n.has_dq) {
      const auto d = barrett_dq_steps(x, dq);
      ++n.dq[d.corrections];
      if (d.value != c.value) mismatch("DQ", q);
    }
    ++n.montgomery[montgomery_steps(x, montgomery).corrections];
    ++n.montgomery_ntt[montgomery_ntt_steps(x_ntt, montgomery_ntt).corrections];
    if (i % 4096 == 0 && c.value != x % q) mismatch("classical Barrett", q);
  }
  return n;
}

struct Row {
  int word;
  int bits;
  std::uint64_t q;
  std::string which;
  Counts products, uniform;
};

template <Word W>
Row measure(std::uint64_t q, std::string which, std::uint64_t samples, Engine& rng) {
  const Modulus<W> mod(static_cast<W>(q));
  const int m = mod.bits();
  const Wide<W> q_squared = mul_wide(mod.value(), mod.value());
  std::uniform_int_distribution<W> below_q(0, mod.value() - 1);
  Row row{word_bits<W>, m, q, std::move(which), {}, {}};
  row.products = count_corrections(mod, samples, [&] {
    const Wide<W> x = mul_wide(below_q(rng), below_q(rng));
    return std::pair{x, x};
  });
  row.uniform = count_corrections(mod, samples, [&] {
    return std::pair{uniform_bits<W>(rng, 2 * m), uniform_below<W>(rng, q_squared)};
  });
  return row;
}

std::string percent(std::uint64_t count, std::uint64_t samples) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f",
                100.0 * static_cast<double>(count) / static_cast<double>(samples));
  return buf;
}

void print_table(const std::vector<Row>& rows, bool products, std::uint64_t samples) {
  std::printf(
      "| word | bits | q | q is | classical 0 | classical 1 | classical 2 | DQ ([GPU-Polymul, Alg. 3]) 1 | "
      "[GPU-Polymul, Alg. 4] 1 | Montgomery 1 | Montgomery-NTT 1 (k, rounds) |\n"
      "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    const Counts& n = products ? r.products : r.uniform;
    const std::uint64_t k = static_cast<std::uint64_t>(__builtin_ctzll(r.q - 1));
    const std::uint64_t rounds = (static_cast<std::uint64_t>(r.bits) + k - 1) / k;
    std::printf("| %d | %d | %" PRIu64 " | %s | %s | %s | %s | %s | %s | %s | %s (%" PRIu64
                ", %" PRIu64 ") |\n",
                r.word, r.bits, r.q, r.which.c_str(), percent(n.classical[0], samples).c_str(),
                percent(n.classical[1], samples).c_str(), percent(n.classical[2], samples).c_str(),
                n.has_dq ? percent(n.dq[1], samples).c_str() : "n/a",
                percent(n.alg4[1], samples).c_str(), percent(n.montgomery[1], samples).c_str(),
                percent(n.montgomery_ntt[1], samples).c_str(), k, rounds);
  }
}

/// The smallest, a random and the largest prime q ≡ 1 mod 2^17 (NTT-friendly for N = 2^16)
/// of exactly `bits` bits, and the GPU paper's q = 994705409 at 30 bits.
std::vector<std::pair<std::uint64_t, std::string>> moduli(int bits, Engine& rng) {
  constexpr std::uint64_t kStep = std::uint64_t{1} << 17;
  const std::uint64_t lo = std::uint64_t{1} << (bits - 1);
  std::uint64_t smallest = lo + 1;
  while (!is_prime(smallest)) smallest += kStep;
  const std::uint64_t largest = ntt_primes(bits, kStep / 2, 1)[0];
  std::uniform_int_distribution<std::uint64_t> slot(0, (lo - 1) / kStep);
  std::uint64_t random = 0;
  while (random == 0) {
    const std::uint64_t q = lo + slot(rng) * kStep + 1;
    if (is_prime(q)) random = q;
  }
  std::vector<std::pair<std::uint64_t, std::string>> qs = {{smallest, "smallest NTT prime"},
                                                           {random, "random NTT prime"},
                                                           {largest, "largest NTT prime"}};
  if (bits == 30) qs.emplace_back(994705409, "the paper's q");
  return qs;
}

}  // namespace
}  // namespace polyhe

int main(int argc, char** argv) {
  using namespace polyhe;
  const std::uint64_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : 10'000'000;
  const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 20240601;
  // The moduli come from their own stream, so they do not depend on the sample count.
  Engine prime_rng(seed), rng(seed + 1);
  std::vector<Row> rows;
  for (int word : {32, 64}) {
    for (int bits : word == 32 ? std::vector{28, 30} : std::vector{30, 40, 50, 60, 62}) {
      for (const auto& [q, which] : moduli(bits, prime_rng)) {
        rows.push_back(word == 32 ? measure<std::uint32_t>(q, which, samples, rng)
                                  : measure<std::uint64_t>(q, which, samples, rng));
      }
    }
  }
  std::printf(
      "Corrections per reduction, in %% of %" PRIu64 " samples per row (seed %" PRIu64
      ").\n"
      "\"classical j\": classical Barrett ([GPU-Polymul, Alg. 2]) needed j subtractions. The other columns: how "
      "often the single correction fired. DQ ([GPU-Polymul, Alg. 3]) needs len(q) <= beta-4.\n"
      "Montgomery computes hi(T) - hi(m*q) in (-q, q) and adds q when it is negative: for "
      "T << q*2^beta (small q on a wide word) that is nearly always.\n"
      "Montgomery-NTT: r rounds of k bits leave (T + M*q)/2^(rk) with M < 2^(rk), below "
      "T/2^(rk) + q; the correction fires when it reaches q, so its rate grows with T/2^(rk).\n\n",
      samples, seed);
  std::printf("### x = a*b, a, b uniform in [0, q)\n\n");
  print_table(rows, true, samples);
  std::printf("\n### x uniform in [0, 2^(2m)) (Montgomery-NTT: x uniform in [0, q^2))\n\n");
  print_table(rows, false, samples);
  return 0;
}
