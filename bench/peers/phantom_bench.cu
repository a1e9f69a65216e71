// Peer comparison with Phantom (https://github.com/encryptorion-lab/phantom-fhe), the GPU library:
// our driver, calling Phantom's public headers only, built and packed by scripts/peer-phantom.sh.
// It times the rows `polyhe bench ckks|bfv --backend cuda` times, on the same card, and writes one
// JSON line per row to stdout (notes go to stderr):
//   CKKS, N = 2^14: L = 8;  N = 2^16: L = 8, 24, 35. Q = 50 + L×40 bits, special primes 50 bits,
//        Δ = 2^40. Per L two key-switching layouts: dnum = L+1 (one special prime) and dnum = 3
//        (⌈(L+1)/3⌉ special primes). Ops multiply_relin, rescale, rotate (1 step), ntt_forward
//        (the L+1 limbs of one polynomial).
//   BFV,  N = 2^14: polyhe's anchor set (Q = 48,48,48,49,49,49,49,49, P = 49, t = 65537);
//        op multiply_relin.
// Phantom builds dnum = (L+1)/k key digits but switches keys with ⌈(L+1)/k⌉ of them
// (secretkey.cu, eval_key_switch.cu): a set whose L+1 is not a multiple of k would read past
// the key. Such a set is skipped with a note, and the nearest dnum that divides L+1 is timed
// instead, its rows marked "substitute_for_dnum".
//
// Timing mirrors polyhe (tools/polyhe/timing.hpp, bench_ckks.cpp): a timed call is the op
// followed by cudaDeviceSynchronize() (its results exist), timed on the host's steady clock;
// back-to-back calls in a sample, doubled until a sample lasts 200 µs; 10 ms of warm-up; samples
// until both --min-samples and --min-time; the median, p10 and p90 per call. The ops are
// Phantom's out-of-place calls (each allocates its result, as polyhe's do; Phantom's copy the
// input first). ntt_forward is device time instead, as polyhe's `bench --backend cuda` NTT rows:
// back-to-back in-place calls between two CUDA events, over enough copies to exceed twice the
// L2 cache, at most 64 calls a sample.
#include <cuComplex.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "phantom.h"

#ifndef PHANTOM_PEER_COMMIT
#define PHANTOM_PEER_COMMIT "unknown"
#endif

namespace peer {

using Clock = std::chrono::steady_clock;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Timing {
  double min_time_s = 0.1;       // as scripts/gpu-pack.sh runs polyhe's scheme benchmarks
  double min_sample_s = 200e-6;  // polyhe's TimingOptions
  double warmup_s = 0.01;
  std::size_t min_samples = 21;
  std::size_t max_samples = 5000;
  std::size_t max_device_calls = 64;  // ntt_forward: calls per event-timed sample
};

struct Stats {
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
  std::size_t reps = 0, calls_per_sample = 0;
};

// The p-quantile of sorted values, interpolating between neighbours (polyhe's timing.cpp).
double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

Stats summarize(std::vector<double> ns, std::size_t calls) {
  std::sort(ns.begin(), ns.end());
  return {quantile(ns, 0.5), quantile(ns, 0.1), quantile(ns, 0.9), ns.size(), calls};
}

// polyhe's measure(): call() then cudaDeviceSynchronize(), host clock.
Stats measure(const std::function<void()>& call, const Timing& opt) {
  auto time_batch = [&](std::size_t calls) {
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) {
      call();
      cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const auto start = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::size_t calls = 1;
  while (time_batch(calls) < opt.min_sample_s && calls < (std::size_t{1} << 20)) calls *= 2;
  while (since_start() < opt.warmup_s) time_batch(calls);
  std::vector<double> samples;
  while (samples.size() < opt.max_samples) {
    samples.push_back(time_batch(calls) * 1e9 / static_cast<double>(calls));
    if (samples.size() >= opt.min_samples && since_start() >= opt.min_time_s) break;
  }
  return summarize(std::move(samples), calls);
}

// polyhe's time_device(): call(i) enqueued back to back between two events on `stream`.
Stats measure_device(const std::function<void(std::size_t)>& call, cudaStream_t stream,
                     const Timing& opt) {
  cudaEvent_t start, end;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&end), "cudaEventCreate");
  std::size_t next = 0;
  auto batch = [&](std::size_t calls) {
    cuda_ok(cudaEventRecord(start, stream), "cudaEventRecord");
    for (std::size_t i = 0; i < calls; ++i) call(next++);
    cuda_ok(cudaEventRecord(end, stream), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    cuda_ok(cudaEventElapsedTime(&ms, start, end), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  };
  const auto t0 = Clock::now();
  auto since_start = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  double one = batch(1);
  for (int i = 0; i < 3 || since_start() < opt.warmup_s; ++i) one = batch(1);
  std::size_t calls = opt.max_device_calls;
  if (one > 0) {
    calls = static_cast<std::size_t>(std::ceil(opt.min_sample_s / one));
    calls = std::clamp<std::size_t>(calls, 1, opt.max_device_calls);
  }
  std::vector<double> samples;
  while (samples.size() < opt.max_samples) {
    samples.push_back(batch(calls) * 1e9 / static_cast<double>(calls));
    if (samples.size() >= opt.min_samples && since_start() >= opt.min_time_s) break;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  return summarize(std::move(samples), calls);
}

// --- Output ------------------------------------------------------------------------------------

// The GPU's name, asked once.
const std::string& device_name() {
  static const std::string name = [] {
    int dev = 0;
    cudaDeviceProp prop{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
      return std::string("unknown");
    }
    return std::string(prop.name);
  }();
  return name;
}

std::string bits_list(const std::vector<int>& bits) {
  std::string s = "[";
  for (std::size_t i = 0; i < bits.size(); ++i) s += (i ? "," : "") + std::to_string(bits[i]);
  return s + "]";
}

std::string num(double x, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
  return buf;
}

// What every row of one parameter set shares.
struct SetInfo {
  std::string scheme;
  int log_n = 0;
  std::size_t level = 0;  // L: L+1 ciphertext primes
  std::size_t dnum = 0;
  std::vector<int> q_bits, p_bits;
  int log_qp = 0;
  bool secure128 = false;
  int scale_bits = 0;               // CKKS
  std::uint64_t plain_modulus = 0;  // BFV
  std::size_t substitute_for = 0;   // the dnum asked for, when this set stands in for it
};

void emit(const SetInfo& s, const std::string& op, const Stats& st, const std::string& timing,
          const std::string& extra) {
  std::string j = "{\"library\":\"phantom\",\"op\":\"" + op + "\",\"scheme\":\"" + s.scheme +
                  "\",\"backend\":\"cuda\",\"device\":\"" + device_name() +
                  "\",\"log_n\":" + std::to_string(s.log_n) + ",\"L\":" + std::to_string(s.level) +
                  ",\"limbs\":" + std::to_string(s.level + 1) +
                  ",\"dnum\":" + std::to_string(s.dnum) +
                  ",\"special_count\":" + std::to_string(s.p_bits.size()) +
                  ",\"primes\":" + bits_list(s.q_bits) + ",\"special\":" + bits_list(s.p_bits) +
                  ",\"log_qp\":" + std::to_string(s.log_qp) +
                  ",\"secure128\":" + (s.secure128 ? "true" : "false");
  if (s.scale_bits) j += ",\"scale_bits\":" + std::to_string(s.scale_bits);
  if (s.plain_modulus) j += ",\"plain_modulus\":" + std::to_string(s.plain_modulus);
  if (s.substitute_for) j += ",\"substitute_for_dnum\":" + std::to_string(s.substitute_for);
  j += ",\"median_ns\":" + num(st.median_ns, 1) + ",\"p10_ns\":" + num(st.p10_ns, 1) +
       ",\"p90_ns\":" + num(st.p90_ns, 1) + ",\"reps\":" + std::to_string(st.reps) +
       ",\"calls_per_sample\":" + std::to_string(st.calls_per_sample) + ",\"timing\":\"" + timing +
       "\",\"unit\":\"ns\",\"commit\":\"" PHANTOM_PEER_COMMIT "\"" + extra + "}";
  std::printf("%s\n", j.c_str());
  std::fflush(stdout);
}

const char* kHostTiming = "host clock, call + cudaDeviceSynchronize";
const char* kDeviceTiming = "cuda events, back-to-back calls";

// --- Parameters --------------------------------------------------------------------------------

std::vector<phantom::arith::Modulus> make_primes(std::size_t n, SetInfo& s) {
  std::vector<int> all = s.q_bits;
  all.insert(all.end(), s.p_bits.begin(), s.p_bits.end());
  auto primes = phantom::arith::CoeffModulus::Create(n, all);
  s.log_qp = 0;
  for (std::size_t i = 0; i < primes.size(); ++i) {
    // Record what Create made, not what was asked.
    const int b = primes[i].bit_count();
    s.log_qp += b;
    (i < s.q_bits.size() ? s.q_bits[i] : s.p_bits[i - s.q_bits.size()]) = b;
  }
  s.secure128 = s.log_qp <= phantom::arith::CoeffModulus::MaxBitCount(n);
  return primes;
}

// Frees what the pool of cudaMallocAsync keeps between parameter sets.
void release_pool() {
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  int dev = 0;
  cudaMemPool_t pool;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    cudaMemPoolTrimTo(pool, 0);
  }
}

// --- CKKS --------------------------------------------------------------------------------------

// ntt_forward over the L+1 limbs of one polynomial, in place, on Phantom's tables and stream.
void time_ntt(const PhantomContext& context, const PhantomCiphertext& ct, const SetInfo& s,
              const Timing& timing) {
  const std::size_t n = std::size_t{1} << s.log_n;
  const std::size_t words = (s.level + 1) * n;
  int dev = 0, l2 = 0;
  cuda_ok(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "cudaDeviceGetAttribute");
  const std::size_t bytes = words * sizeof(std::uint64_t);
  const std::size_t sets =
      std::clamp<std::size_t>((2 * static_cast<std::size_t>(l2) + bytes - 1) / bytes, 1, 64);
  std::uint64_t* data = nullptr;
  cuda_ok(cudaMalloc(&data, sets * bytes), "cudaMalloc");
  // Residues below each q_i: the first polynomial of a fresh ciphertext.
  for (std::size_t k = 0; k < sets; ++k) {
    cuda_ok(cudaMemcpy(data + k * words, ct.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
  }
  const cudaStream_t stream = cudaStreamPerThread;
  Stats st;
  try {
    st = measure_device(
        [&](std::size_t i) {
          nwt_2d_radix8_forward_inplace(data + (i % sets) * words, context.gpu_rns_tables(),
                                        s.level + 1, 0, stream);
        },
        stream, timing);
  } catch (...) {
    cudaFree(data);
    throw;
  }
  cuda_ok(cudaFree(data), "cudaFree");
  const double limbs = static_cast<double>(s.level + 1);
  emit(s, "ntt_forward", st, kDeviceTiming,
       ",\"per_limb_ns\":" + num(st.median_ns / limbs, 1) + ",\"copies\":" + std::to_string(sets) +
           ",\"kernel\":\"nwt_2d_radix8_forward_inplace\"");
}

void run_ckks(int log_n, std::size_t level, std::size_t special, std::size_t substitute_for,
              const Timing& timing) {
  const std::size_t n = std::size_t{1} << log_n;
  SetInfo s;
  s.scheme = "ckks";
  s.log_n = log_n;
  s.level = level;
  s.q_bits.assign(level + 1, 40);
  s.q_bits[0] = 50;
  s.p_bits.assign(special, 50);
  s.dnum = (level + 1) / special;
  s.scale_bits = 40;
  s.substitute_for = substitute_for;

  phantom::EncryptionParameters parms(phantom::scheme_type::ckks);
  parms.set_poly_modulus_degree(n);
  parms.set_coeff_modulus(make_primes(n, s));
  parms.set_special_modulus_size(special);
  parms.set_galois_elts(phantom::util::get_elts_from_steps({1}, n));
  std::fprintf(stderr, "phantom: CKKS N = 2^%d, L = %zu, %zu special, dnum = %zu, log QP = %d%s\n",
               log_n, level, special, s.dnum, s.log_qp, s.secure128 ? "" : " (above 128-bit)");

  PhantomContext context(parms);
  PhantomSecretKey sk(context);
  PhantomPublicKey pk = sk.gen_publickey(context);
  PhantomRelinKey rlk = sk.gen_relinkey(context);
  PhantomGaloisKey glk = sk.create_galois_keys(context);
  PhantomCKKSEncoder encoder(context);
  const double scale = std::ldexp(1.0, s.scale_bits);

  // x and y uniform in the complex unit disc, from a fixed seed.
  std::mt19937_64 rng(20250102);
  std::uniform_real_distribution<double> r01(0.0, 1.0);
  auto unit_disc = [&] {
    std::vector<cuDoubleComplex> v(encoder.slot_count());
    for (auto& z : v) {
      const double r = std::sqrt(r01(rng)), a = 2 * M_PI * r01(rng);
      z = make_cuDoubleComplex(r * std::cos(a), r * std::sin(a));
    }
    return v;
  };
  const auto x = unit_disc(), y = unit_disc();
  PhantomPlaintext pt_x, pt_y;
  encoder.encode(context, x, scale, pt_x);
  encoder.encode(context, y, scale, pt_y);
  PhantomCiphertext ct_x, ct_y;
  pk.encrypt_asymmetric(context, pt_x, ct_x);
  pk.encrypt_asymmetric(context, pt_y, ct_y);
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  // The precision of one multiplication, as polyhe defines it: −log2 max |z − x·y| for
  // z = decode(decrypt(rescale(multiply_relin(Enc x, Enc y)))).
  double precision_bits = 0;
  {
    PhantomCiphertext prod = phantom::multiply_and_relin(context, ct_x, ct_y, rlk);
    phantom::rescale_to_next_inplace(context, prod);
    PhantomPlaintext pt = sk.decrypt(context, prod);
    const auto z = encoder.decode<cuDoubleComplex>(context, pt);
    double max_error = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      const cuDoubleComplex w = cuCmul(x[j], y[j]);
      max_error = std::max(max_error, std::hypot(z[j].x - w.x, z[j].y - w.y));
    }
    if (!(max_error >= 0x1p-64)) max_error = std::isnan(max_error) ? 1e300 : 0x1p-64;
    precision_bits = -std::log2(max_error);
    if (precision_bits < 4) {
      std::fprintf(stderr, "phantom: multiply_relin keeps only %.1f bits of precision here\n",
                   precision_bits);
    }
  }

  const std::string at_top = ",\"level\":" + std::to_string(level);
  emit(s, "multiply_relin",
       measure([&] { (void)phantom::multiply_and_relin(context, ct_x, ct_y, rlk); }, timing),
       kHostTiming,
       at_top + ",\"precision_bits\":" + num(precision_bits, 2) +
           ",\"call\":\"multiply_and_relin (copy, tensor, relinearize)\"");
  emit(s, "rescale", measure([&] { (void)phantom::rescale_to_next(context, ct_x); }, timing),
       kHostTiming, at_top + ",\"call\":\"rescale_to_next\"");
  emit(s, "rotate", measure([&] { (void)phantom::rotate(context, ct_x, 1, glk); }, timing),
       kHostTiming, at_top + ",\"steps\":1,\"call\":\"rotate (copy, rotate_inplace)\"");
  time_ntt(context, ct_x, s, timing);
}

// --- BFV ---------------------------------------------------------------------------------------

void run_bfv(const Timing& timing) {
  constexpr int kLogN = 14;
  const std::size_t n = std::size_t{1} << kLogN;
  SetInfo s;
  s.scheme = "bfv";
  s.log_n = kLogN;
  s.q_bits = {48, 48, 48, 49, 49, 49, 49, 49};
  s.p_bits = {49};
  s.level = s.q_bits.size() - 1;
  s.dnum = s.q_bits.size();
  s.plain_modulus = 65537;

  phantom::EncryptionParameters parms(phantom::scheme_type::bfv);
  parms.set_poly_modulus_degree(n);
  parms.set_coeff_modulus(make_primes(n, s));
  parms.set_special_modulus_size(s.p_bits.size());
  parms.set_plain_modulus(phantom::arith::Modulus(s.plain_modulus));
  std::fprintf(stderr, "phantom: BFV N = 2^%d, L = %zu, t = %llu, log QP = %d\n", kLogN, s.level,
               static_cast<unsigned long long>(s.plain_modulus), s.log_qp);

  PhantomContext context(parms);
  PhantomSecretKey sk(context);
  PhantomPublicKey pk = sk.gen_publickey(context);
  PhantomRelinKey rlk = sk.gen_relinkey(context);
  PhantomBatchEncoder encoder(context);

  std::mt19937_64 rng(20250102);
  std::vector<std::uint64_t> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = rng() % s.plain_modulus;
    y[i] = rng() % s.plain_modulus;
  }
  PhantomPlaintext pt_x = encoder.encode(context, x), pt_y = encoder.encode(context, y);
  PhantomCiphertext ct_x, ct_y;
  pk.encrypt_asymmetric(context, pt_x, ct_x);
  pk.encrypt_asymmetric(context, pt_y, ct_y);

  // One product decrypted and checked slot by slot.
  bool correct = true;
  {
    PhantomCiphertext prod = phantom::multiply_and_relin(context, ct_x, ct_y, rlk);
    PhantomPlaintext pt = sk.decrypt(context, prod);
    const auto z = encoder.decode(context, pt);
    for (std::size_t i = 0; i < n && correct; ++i) {
      correct = z[i] == x[i] * y[i] % s.plain_modulus;
    }
    if (!correct) std::fprintf(stderr, "phantom: BFV multiply_relin decrypts to a wrong product\n");
  }
  emit(s, "multiply_relin",
       measure([&] { (void)phantom::multiply_and_relin(context, ct_x, ct_y, rlk); }, timing),
       kHostTiming,
       std::string(",\"level\":") + std::to_string(s.level) +
           ",\"correct\":" + (correct ? "true" : "false") + ",\"mul_tech\":\"hps\"" +
           ",\"call\":\"multiply_and_relin (copy, fused HPS multiply + relinearize)\"");
}

// --- Main --------------------------------------------------------------------------------------

struct CkksSet {
  int log_n;
  std::size_t level;
  std::size_t dnum;  // as asked: L+1 (one special prime) or 3
};

// The special-prime count k for `dnum` digits of L+1 primes: ⌈(L+1)/dnum⌉ (polyhe's rule).
std::size_t special_for(std::size_t level, std::size_t dnum) {
  return (level + 1 + dnum - 1) / dnum;
}

int usage() {
  std::fprintf(stderr,
               "usage: phantom_bench [--min-time S] [--min-samples K] [--only ckks|bfv]\n"
               "  JSON lines on stdout, notes on stderr\n");
  return 2;
}

int run(int argc, char** argv) {
  Timing timing;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    if (a == "--min-time") {
      timing.min_time_s = std::atof(argv[++i]);
    } else if (a == "--min-samples") {
      timing.min_samples = std::strtoul(argv[++i], nullptr, 10);
    } else if (a == "--only") {
      only = argv[++i];
    } else {
      return usage();
    }
  }
  if (!(timing.min_time_s > 0 && timing.min_time_s <= 600) || timing.min_samples < 1 ||
      !(only.empty() || only == "ckks" || only == "bfv")) {
    return usage();
  }
  timing.warmup_s = std::min(timing.warmup_s, timing.min_time_s / 4);

  std::fprintf(stderr, "phantom: commit %s on %s\n", PHANTOM_PEER_COMMIT, device_name().c_str());
  int failures = 0;
  auto guarded = [&](const std::string& what, const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      ++failures;
      std::fprintf(stderr, "phantom: %s failed: %s\n", what.c_str(), e.what());
      // A sticky error (an illegal address) leaves the context unusable: stop there.
      if (cudaDeviceSynchronize() != cudaSuccess) {
        std::fprintf(stderr, "phantom: the CUDA context is lost; stopping\n");
        std::exit(1);
      }
    }
    release_pool();
  };

  if (only.empty() || only == "ckks") {
    const CkksSet sets[] = {{14, 8, 9},   {14, 8, 3},  {16, 8, 9},   {16, 8, 3},
                            {16, 24, 25}, {16, 24, 3}, {16, 35, 36}, {16, 35, 3}};
    for (const CkksSet& c : sets) {
      const std::string what = "CKKS N = 2^" + std::to_string(c.log_n) +
                               " L = " + std::to_string(c.level) +
                               " dnum = " + std::to_string(c.dnum);
      const std::size_t q = c.level + 1;
      const std::size_t k = special_for(c.level, c.dnum);
      if (q % k == 0) {
        guarded(what, [&] { run_ckks(c.log_n, c.level, k, 0, timing); });
        continue;
      }
      // Phantom would make q / k key digits and use ⌈q / k⌉: the nearest dnum dividing q (on a
      // tie the larger, which needs fewer special primes).
      std::size_t best = 0;
      const auto distance = [&](std::size_t d) { return d > c.dnum ? d - c.dnum : c.dnum - d; };
      for (std::size_t d = 1; d <= q; ++d) {
        if (q % d == 0 && (best == 0 || distance(d) <= distance(best))) best = d;
      }
      std::fprintf(stderr,
                   "phantom: skipped %s: %zu special primes do not divide the %zu ciphertext "
                   "primes (Phantom generates %zu key digits but key-switches with %zu); timing "
                   "dnum = %zu instead\n",
                   what.c_str(), k, q, q / k, (q + k - 1) / k, best);
      guarded(what + " (substitute dnum " + std::to_string(best) + ")",
              [&] { run_ckks(c.log_n, c.level, q / best, c.dnum, timing); });
    }
  }
  if (only.empty() || only == "bfv") guarded("BFV N = 2^14", [&] { run_bfv(timing); });
  return failures == 0 ? 0 : 1;
}

}  // namespace peer

int main(int argc, char** argv) {
  return peer::run(argc, argv);
}
