// Hoisted rotations against one rotation at a time, paired in one process: K rotations of a CKKS
// ciphertext by the steps 1..K, each with its own Galois key (so K keys stream from memory as an
// application's would; one key timed K times may stay in the last-level cache), as K calls of
// Evaluator::rotate and as one call of Evaluator::rotate_many, alternated for several rounds.
// Both keep their K results alive to the end of the call. Prints the fastest round's time of each
// (the second-fastest of 7 calls in a round) and their ratio. The CPU path and threads as the
// library takes them (POLYHE_CPU, POLYHE_THREADS).
//
//   polyhe_bench_hoisted_rotations [log_n=14] [rotations=8] [dnum=0] [rounds=5]
//
// Q = 50 + 8 × 40 bits, P = one 50-bit prime (dnum 0, the default: one prime per digit) or
// three (dnum > 0), Δ = 2^40; insecure below N = 2^14 (a timing, not a deployment).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "polyhe/polyhe.hpp"

namespace {

using namespace polyhe;

int arg(int argc, char** argv, int i, int fallback) {
  return argc > i ? std::atoi(argv[i]) : fallback;
}

// The second-fastest of 7 calls, in ms.
double round_ms(const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < 7; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

}  // namespace

int main(int argc, char** argv) {
  const int log_n = arg(argc, argv, 1, 14);
  const int rotations = arg(argc, argv, 2, 8);
  const int dnum = arg(argc, argv, 3, 0);
  const int rounds = arg(argc, argv, 4, 5);
  if (log_n < 10 || log_n > 17 || rotations < 1 || rotations > 64 || dnum < 0 || rounds < 1) {
    std::fprintf(stderr,
                 "usage: polyhe_bench_hoisted_rotations [log_n 10..17] [rotations 1..64] "
                 "[dnum >= 0] [rounds >= 1]\n");
    return 2;
  }
  rlwe::ParametersLiteral lit;
  lit.log_n = log_n;
  lit.q_bits = {50, 40, 40, 40, 40, 40, 40, 40, 40};
  lit.p_bits = dnum == 0 ? std::vector<int>{50} : std::vector<int>{50, 50, 50};
  lit.dnum = static_cast<std::size_t>(dnum);
  lit.security = rlwe::SecurityLevel::insecure_none;
  const auto params = rlwe::Parameters::create(lit);
  rlwe::KeyGenerator keygen(params);
  const rlwe::SecretKey sk = keygen.secret_key();
  std::vector<std::int64_t> steps;
  for (int s = 1; s <= rotations; ++s) steps.push_back(s);
  const ckks::Evaluator ev(params, nullptr, rlwe::share(keygen.rotation_keys(sk, steps)));
  const rlwe::Encryptor enc(sk);
  const ckks::Ciphertext ct = enc.encrypt_zero(params->max_level());
  double separate = 1e300, hoisted = 1e300;
  for (int r = 0; r < rounds; ++r) {
    // Both keep all K results alive until the call ends, as rotate_many's vector does.
    separate = std::min(separate, round_ms([&] {
                          std::vector<ckks::Ciphertext> out;
                          out.reserve(steps.size());
                          for (const std::int64_t s : steps) out.push_back(ev.rotate(ct, s));
                        }));
    hoisted = std::min(hoisted, round_ms([&] { (void)ev.rotate_many(ct, steps); }));
  }
  std::printf(
      "N = 2^%d, dnum %zu, %d rotations, path %s, %u threads: separate %.3f ms, rotate_many "
      "%.3f ms, ratio %.2f\n",
      log_n, params->dnum(), rotations, std::string(to_string(cpu_path())).c_str(), thread_count(),
      separate, hoisted, separate / hoisted);
  return 0;
}
