// `polyhe bench cyclic`: the cyclic (non-power-of-two) NTT plans, e.g. HElib's m = 21845 by the
// planner's PFA+Rader tree against Bluestein, next to the power-of-two lengths.
#include <algorithm>
#include <bit>
#include <nlohmann/json.hpp>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "commands.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/plan.hpp"
#include "polyhe/ntt/cyclic/powerful.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "polyhe/ring/context.hpp"
#include "random.hpp"
#include "sysinfo.hpp"
#include "text.hpp"
#include "timing.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

using u64 = std::uint64_t;

constexpr Decomposition kAllDecompositions[] = {
    Decomposition::automatic,    Decomposition::radix2, Decomposition::pfa,
    Decomposition::cooley_tukey, Decomposition::rader,  Decomposition::rader_padded,
    Decomposition::bluestein,    Decomposition::direct};

std::vector<Decomposition> parse_decompositions(const std::string& spec) {
  if (spec == "all") return {std::begin(kAllDecompositions), std::end(kAllDecompositions)};
  std::vector<Decomposition> out;
  for (const std::string& name : split_list(spec, "--decomposition")) {
    bool found = false;
    for (Decomposition d : kAllDecompositions) {
      if (to_string(d) == name) {
        out.push_back(d);
        found = true;
      }
    }
    if (!found) {
      throw UsageError("--decomposition: unknown decomposition '" + name +
                       "'; use automatic, radix2, pfa, cooley_tukey, rader, rader_padded, "
                       "bluestein, direct, or all");
    }
  }
  return out;
}

std::string direct_limit_text() {
  return "the O(n^2) direct DFT is timed up to n = " + std::to_string(kMaxDirectCyclicLength) +
         " (one call at n = 8192 takes about 0.2 s, at 2^20 most of an hour)";
}

/// A prime of `bits` bits with every root any decomposition of n may need: n-th roots, (p−1)-th
/// for Rader at each prime p | n, and the power-of-two lengths of padded convolutions (≥ 2n − 1).
u64 bench_prime(std::size_t n, int bits) {
  u64 L = std::lcm(static_cast<u64>(n), std::bit_ceil(2 * static_cast<u64>(n)));
  for (u64 p : prime_factors(n)) L = std::lcm(L, std::bit_ceil(2 * p));
  for (u64 p : prime_factors(n)) L = std::lcm(L, p - 1);
  return cyclic_prime(bits, L);
}

/// The device rows: for each n and limb count, powerful_forward/_inverse of a ring over Φ_n on the
/// device and negacyclic_forward/_inverse of as many limbs at N = 2^⌈log2 φ(n)⌉ beside them,
/// each call timed to its completion (the device's work waited for).
int bench_cyclic_device(const BenchCyclicArgs& args, const std::vector<int>& lengths, bool forward,
                        bool inverse, const TimingOptions& timing, std::ostream& out,
                        std::ostream& err) {
  const std::vector<int> limb_counts = parse_int_list(args.limbs, "--limbs", 1, 64);
  int log_max = 1;
  for (const int n : lengths) {
    if (n % 2 == 1 && n >= 3) {
      log_max =
          std::max(log_max, static_cast<int>(std::bit_width(euler_phi(static_cast<u64>(n)) - 1)));
    }
  }
  const BenchBackend backend = make_bench_backend(args.backend, log_max);
  Device& device = *backend.device;
  InputRng rng(os_seed());
  if (!args.json) {
    out << "Φ_m transforms on " << device.name() << ", each call to its completion\n\n"
        << "| op | n | words | bits | limbs | median µs | per limb µs | p10 µs | p90 µs | reps |\n"
        << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  }
  const auto time_ring = [&](const std::string& name, std::size_t n, const RingContext& ring,
                             std::size_t limbs) {
    const std::size_t words = limbs * ring.n();
    std::vector<u64> host(words);
    for (std::size_t j = 0; j < limbs; ++j) {
      const u64 q = ring.basis().prime(j);
      for (std::size_t i = 0; i < ring.n(); ++i) host[j * ring.n() + i] = rng.uniform(0, q - 1);
    }
    const DeviceWords buffer(backend.device, words);
    u64* const p = buffer.data();
    device.upload(host, p);
    for (const bool inv : {false, true}) {
      if (inv ? !inverse : !forward) continue;
      const auto call = [&] {
        device.ntt(ring, LimbRange{0, limbs}, p, p, inv);
        device.synchronize();
      };
      const TimingStats s = measure(call, timing);
      const std::string op = name + (inv ? "_inverse" : "_forward");
      const double per_limb = s.median_ns / static_cast<double>(limbs);
      if (args.json) {
        const nlohmann::ordered_json j = {{"op", op},
                                          {"backend", backend.name},
                                          {"device", device.name()},
                                          {"n", n},
                                          {"words", ring.n()},
                                          {"bits", args.bits},
                                          {"limbs", limbs},
                                          {"median_ns", s.median_ns},
                                          {"per_limb_ns", per_limb},
                                          {"p10_ns", s.p10_ns},
                                          {"p90_ns", s.p90_ns},
                                          {"reps", s.reps},
                                          {"unit", "ns"}};
        out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
            << std::endl;
      } else {
        out << "| " << op << " | " << n << " | " << ring.n() << " | " << args.bits << " | " << limbs
            << " | " << fixed(s.median_ns / 1000, 3) << " | " << fixed(per_limb / 1000, 3) << " | "
            << fixed(s.p10_ns / 1000, 3) << " | " << fixed(s.p90_ns / 1000, 3) << " | " << s.reps
            << " |" << std::endl;
      }
    }
  };
  for (const int n_int : lengths) {
    const auto n = static_cast<std::size_t>(n_int);
    if (n % 2 == 0 || n < 3 || n > PowerfulNtt::kMaxM) {
      err << "polyhe bench: skipping n = " << n << ": on a device, n is an odd m in [3, "
          << PowerfulNtt::kMaxM << "] (the ring over Φ_n)\n";
      continue;
    }
    for (const int limb_count : limb_counts) {
      const auto limbs = static_cast<std::size_t>(limb_count);
      std::shared_ptr<const RingContext> ring;
      try {
        ring = RingContext::create_cyclotomic(n, powerful_ntt_primes(n, args.bits, limbs));
      } catch (const Error& e) {
        throw UsageError("--n " + std::to_string(n) + " with --bits " + std::to_string(args.bits) +
                         " and --limbs " + std::to_string(limbs) + ": " + one_line(e.what()));
      }
      try {
        time_ring("powerful", n, *ring, limbs);
      } catch (const InvalidParameter& e) {
        err << "polyhe bench: skipping m = " << n << ": " << one_line(e.what()) << '\n';
        continue;
      }
      const std::size_t big_n = std::bit_ceil(ring->n());
      const auto negacyclic = RingContext::create(big_n, ntt_primes(args.bits, big_n, limbs));
      time_ring("negacyclic", 2 * big_n, *negacyclic, limbs);
    }
  }
  return 0;
}

}  // namespace

int cmd_bench_cyclic(const BenchCyclicArgs& args, std::ostream& out, std::ostream& err) {
  const std::vector<int> lengths = parse_int_list(args.n, "--n", 2, 1 << 20);
  const std::vector<Decomposition> decompositions = parse_decompositions(args.decomposition);
  bool run_forward = false;
  bool run_inverse = false;
  bool run_powerful_forward = false;
  bool run_powerful_inverse = false;
  for (const std::string& op : split_list(args.ops, "--ops")) {
    if (op == "forward") {
      run_forward = true;
    } else if (op == "inverse") {
      run_inverse = true;
    } else if (op == "powerful_forward") {
      run_powerful_forward = true;
    } else if (op == "powerful_inverse") {
      run_powerful_inverse = true;
    } else {
      throw UsageError("--ops: unknown op '" + op +
                       "'; use forward, inverse, powerful_forward, powerful_inverse (a list)");
    }
  }
  const bool direct_named =
      args.decomposition != "all" && std::find(decompositions.begin(), decompositions.end(),
                                               Decomposition::direct) != decompositions.end();
  if (direct_named && (run_forward || run_inverse)) {
    for (const int n : lengths) {
      if (static_cast<std::size_t>(n) > kMaxDirectCyclicLength) {
        throw UsageError("--decomposition direct with --n " + std::to_string(n) + ": " +
                         direct_limit_text());
      }
    }
  }
  if (args.bits < 30 || args.bits > 62) {
    throw UsageError("--bits: " + std::to_string(args.bits) + " is outside [30, 62]");
  }
  if (!(args.min_time_s > 0 && args.min_time_s <= 600)) {
    throw UsageError("--min-time: " + fixed(args.min_time_s, 3) + " s is outside (0, 600]");
  }
  TimingOptions timing;
  timing.min_time_s = args.min_time_s;
  timing.warmup_s = std::min(timing.warmup_s, args.min_time_s / 4);
  if (args.backend != "cpu") {
    if (run_forward || run_inverse) {
      throw UsageError("--backend " + args.backend +
                       " times powerful_forward and powerful_inverse (with the negacyclic NTT "
                       "beside them); forward and inverse are the CPU's cyclic plans");
    }
    return bench_cyclic_device(args, lengths, run_powerful_forward, run_powerful_inverse, timing,
                               out, err);
  }
  const std::string device = cpu_model();
  InputRng rng(os_seed());
  if (!args.json) {
    out << "Cyclic NTT benchmark on " << device << ": 1 thread, CPU path " << to_string(cpu_path())
        << ", per call\n\n"
        << "| op | n | bits | decomposition | median µs | p10 µs | p90 µs | reps |\n"
        << "|---|---:|---:|---|---:|---:|---:|---:|\n";
  }
  const auto report = [&](const std::string& op, std::size_t n, std::size_t words,
                          const std::string& variant, const TimingStats& s) {
    if (args.json) {
      // JSON names the plans' ops cyclic_forward and cyclic_inverse (as before the powerful ones).
      const std::string json_op = op.starts_with("powerful") ? op : "cyclic_" + op;
      const nlohmann::ordered_json j = {{"op", json_op},
                                        {"backend", "cpu"},
                                        {"cpu_path", to_string(cpu_path())},
                                        {"device", device},
                                        {"n", n},
                                        {"log_n", std::bit_width(words) - 1},
                                        {"bits", args.bits},
                                        {"limbs", 1},
                                        {"variant", variant},
                                        {"median_ns", s.median_ns},
                                        {"p10_ns", s.p10_ns},
                                        {"p90_ns", s.p90_ns},
                                        {"reps", s.reps},
                                        {"threads", 1},
                                        {"unit", "ns"}};
      out << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << std::endl;
    } else {
      out << "| " << op << " | " << n << " | " << args.bits << " | " << variant << " | "
          << fixed(s.median_ns / 1000, 3) << " | " << fixed(s.p10_ns / 1000, 3) << " | "
          << fixed(s.p90_ns / 1000, 3) << " | " << s.reps << " |" << std::endl;
    }
  };
  for (int n_int : lengths) {
    const auto n = static_cast<std::size_t>(n_int);
    if (run_forward || run_inverse) {
      u64 q = 0;
      try {
        q = bench_prime(n, args.bits);
      } catch (const Error& e) {
        throw UsageError("--n " + std::to_string(n) + " with --bits " + std::to_string(args.bits) +
                         ": " + e.what());
      }
      for (Decomposition d : decompositions) {
        if (d == Decomposition::direct && n > kMaxDirectCyclicLength) {  // only with "all"
          err << "polyhe bench: skipping direct at n = " << n << ": " << direct_limit_text()
              << '\n';
          continue;
        }
        std::shared_ptr<const CyclicNttPlan> plan;
        try {
          plan = CyclicNttPlan::create(n, q, d);
        } catch (const Error& e) {
          err << "polyhe bench: skipping " << to_string(d) << " at n = " << n << ": "
              << one_line(e.what()) << '\n';
          continue;
        }
        std::vector<u64> a(n);
        for (auto& x : a) x = rng.uniform(1, q - 1);
        for (const bool inverse : {false, true}) {
          if (inverse ? !run_inverse : !run_forward) continue;
          const TimingStats s = inverse ? measure([&] { plan->inverse(a); }, timing)
                                        : measure([&] { plan->forward(a); }, timing);
          report(inverse ? "inverse" : "forward", n, n, plan->decomposition(), s);
        }
      }
    }
    if (!(run_powerful_forward || run_powerful_inverse)) continue;
    if (n % 2 == 0 || n < 3 || n > PowerfulNtt::kMaxM) {
      err << "polyhe bench: skipping powerful transforms at n = " << n << ": m must be odd in [3, "
          << PowerfulNtt::kMaxM << "]\n";
      continue;
    }
    u64 q = 0;
    try {
      q = powerful_ntt_primes(n, args.bits, 1).front();
    } catch (const Error& e) {
      throw UsageError("--n " + std::to_string(n) + " with --bits " + std::to_string(args.bits) +
                       ": " + e.what());
    }
    constexpr std::pair<PowerfulNtt::Route, const char*> kRoutes[] = {
        {PowerfulNtt::Route::fused, "fused"},
        {PowerfulNtt::Route::length_m, "length_m"},
        {PowerfulNtt::Route::per_factor, "per_factor"}};
    for (const auto& [route, name] : kRoutes) {
      std::shared_ptr<const PowerfulNtt> t;
      try {
        t = PowerfulNtt::create(n, q, Decomposition::automatic, route);
      } catch (const Error& e) {
        err << "polyhe bench: skipping the " << name << " route at m = " << n << ": "
            << one_line(e.what()) << '\n';
        continue;
      }
      std::vector<u64> a(t->degree());
      for (auto& x : a) x = rng.uniform(1, q - 1);
      const std::string variant = std::string(name) + ": " + t->decomposition();
      for (const bool inverse : {false, true}) {
        if (inverse ? !run_powerful_inverse : !run_powerful_forward) continue;
        const TimingStats s = inverse ? measure([&] { t->inverse(a); }, timing)
                                      : measure([&] { t->forward(a); }, timing);
        report(inverse ? "powerful_inverse" : "powerful_forward", n, t->degree(), variant, s);
      }
    }
  }
  return 0;
}

}  // namespace polyhe::cli
