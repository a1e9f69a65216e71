// bgv::SlotArray at HElib's ring and parameters (the rows of docs/perf.md's HElib comparison):
// m = 21845, t = 65537 or 2^16 (1024 slots of GF(65537^16) or GR(2^16, 16) on one hypercube of two
// bad dimensions, 128 × 8: 65537 ≡ 2 mod m; the benchmarks' first argument is t),
// Q = 6 × 54 bits, P = 2 × 46, dnum 6 (log2 QP = 416, 128-bit). Each operation on a fresh
// ciphertext at the top level, with exactly the Galois keys it names; the masks are encoded on the
// first (untimed) call and kept. Compare with bench/peers/helib_bench.cpp's EncryptedArray rows
// (scripts/peer-helib.sh), on the same core in the same minutes:
//
//   taskset -c 1 build/.../bench/polyhe_bench_slot_array --benchmark_repetitions=5
//
// and scripts/peer-helib.sh's p = 2, r = 16 (its arguments 300 3 21 2 16) for t = 2^16.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "polyhe/bgv.hpp"

namespace {

using namespace polyhe;

struct Fixture {
  explicit Fixture(std::uint64_t t) {
    rlwe::ParametersLiteral lit;
    lit.m = 21845;
    lit.q_bits = {54, 54, 54, 54, 54, 54};
    lit.p_bits = {46, 46};
    lit.dnum = 6;
    ctx = bgv::Context::create(rlwe::Parameters::create(lit), t);
    slots = std::make_unique<bgv::SlotArray>(ctx);
    rlwe::KeyGenerator keygen = ctx->key_generator();
    sk = std::make_unique<rlwe::SecretKey>(keygen.secret_key());
    std::vector<std::uint64_t> elements = slots->rotate_elements(1);
    for (std::size_t r = 0; r < slots->dimensions(); ++r) {
      for (const auto g : slots->rotate_along_elements(r, 1)) elements.push_back(g);
    }
    for (const auto g : slots->total_sum_elements()) elements.push_back(g);
    ev = std::make_unique<bgv::Evaluator>(
        ctx->evaluator(keygen.relinearization_key(*sk), keygen.galois_keys(*sk, elements)));
    std::vector<std::uint64_t> values(ctx->n());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = (i * 7919 + 13) % t;
    ct = std::make_unique<bgv::Ciphertext>(
        ctx->encryptor(keygen.public_key(*sk)).encrypt(ctx->encode(values)));
  }
  bgv::ContextPtr ctx;
  std::unique_ptr<bgv::SlotArray> slots;
  std::unique_ptr<rlwe::SecretKey> sk;
  std::unique_ptr<bgv::Evaluator> ev;
  std::unique_ptr<bgv::Ciphertext> ct;
};

Fixture& fixture(const benchmark::State& state) {
  static std::map<std::uint64_t, std::unique_ptr<Fixture>> made;
  const auto t = static_cast<std::uint64_t>(state.range(0));
  auto& f = made[t];
  if (!f) f = std::make_unique<Fixture>(t);
  return *f;
}

void BM_Rotate(benchmark::State& state) {
  Fixture& f = fixture(state);
  (void)f.slots->rotate(*f.ev, *f.ct, 1);  // the masks, encoded once
  for (auto _ : state) benchmark::DoNotOptimize(f.slots->rotate(*f.ev, *f.ct, 1));
}
BENCHMARK(BM_Rotate)->Arg(65537)->Arg(65536)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_RotateAlong(benchmark::State& state) {
  Fixture& f = fixture(state);
  const auto r = static_cast<std::size_t>(state.range(1));
  (void)f.slots->rotate_along(*f.ev, *f.ct, r, 1);
  for (auto _ : state) benchmark::DoNotOptimize(f.slots->rotate_along(*f.ev, *f.ct, r, 1));
}
BENCHMARK(BM_RotateAlong)
    ->ArgsProduct({{65537, 65536}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

void BM_TotalSum(benchmark::State& state) {
  Fixture& f = fixture(state);
  (void)f.slots->total_sum(*f.ev, *f.ct);
  for (auto _ : state) benchmark::DoNotOptimize(f.slots->total_sum(*f.ev, *f.ct));
}
BENCHMARK(BM_TotalSum)->Arg(65537)->Arg(65536)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The slot encoder alone at m = 21845 for t = p^r given as (p, r): encoding k·d slot words and
// decoding φ(m) coordinates (random words below t).
std::uint64_t plaintext_modulus(const benchmark::State& state) {
  std::uint64_t t = 1;
  for (std::int64_t i = 0; i < state.range(1); ++i) t *= static_cast<std::uint64_t>(state.range(0));
  return t;
}

std::vector<std::uint64_t> words_below(std::size_t n, std::uint64_t t) {
  std::vector<std::uint64_t> v(n);
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (auto& w : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    w = (x >> 11) % t;
  }
  return v;
}

void BM_SlotEncode(benchmark::State& state) {
  const auto enc = bgv::SlotEncoder::create(21845, plaintext_modulus(state));
  const auto values = words_below(enc->slot_count() * enc->slot_degree(), enc->t());
  for (auto _ : state) benchmark::DoNotOptimize(enc->encode(values));
}
BENCHMARK(BM_SlotEncode)
    ->Args({65537, 1})
    ->Args({2, 16})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

void BM_SlotDecode(benchmark::State& state) {
  const auto enc = bgv::SlotEncoder::create(21845, plaintext_modulus(state));
  const auto coordinates = words_below(enc->degree(), enc->t());
  for (auto _ : state) benchmark::DoNotOptimize(enc->decode(coordinates));
}
BENCHMARK(BM_SlotDecode)
    ->Args({65537, 1})
    ->Args({2, 16})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
