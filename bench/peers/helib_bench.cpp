// Peer benchmark: HElib BGV over the cyclotomic ring m = 21845 = 5*17*257 (phi(m) = 16384).
// Standalone (not part of polyhe's CMake build); scripts/peer-helib.sh builds and runs it.
// Usage: helib_bench [bits=400] [c=3] [reps=31] [p=65537] [r=1] (plaintext modulus p^r)
// Times (µs, single thread, warm): wall-clock median and minimum and thread-CPU-time median over
// `reps` runs.
#include <helib/helib.h>
#include <helib/version.h>

#include <NTL/BasicThreadPool.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#ifndef HELIB_PEER_SOURCE
#define HELIB_PEER_SOURCE "unknown"  // scripts/peer-helib.sh passes the tag and commit
#endif

namespace {

int g_reps = 31;

struct Stat {
  double med, min, cpu;  // wall-clock median and minimum, thread-CPU-time median (µs)
};

double cpu_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

// Times `op` over g_reps runs after 3 warm-up runs; `setup` runs untimed before each. The thread
// CPU time is robust to other processes sharing the core; the wall-clock time is not.
Stat measure(const std::function<void()>& setup, const std::function<void()>& op) {
  std::vector<double> t, c;
  for (int i = 0; i < g_reps + 3; ++i) {
    setup();
    const double c0 = cpu_us();
    const auto t0 = std::chrono::steady_clock::now();
    op();
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_us();
    if (i < 3) continue;
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    c.push_back(c1 - c0);
  }
  std::sort(t.begin(), t.end());
  std::sort(c.begin(), c.end());
  return {t[t.size() / 2], t.front(), c[c.size() / 2]};
}
Stat measure(const std::function<void()>& op) {
  return measure([] {}, op);
}

std::string cpu_model() {  // "model name (family F, model M)" from /proc/cpuinfo
  std::ifstream f("/proc/cpuinfo");
  std::string name = "unknown", fam, mod;
  auto value = [](const std::string& l) { return l.substr(l.find(':') + 2); };
  for (std::string l; std::getline(f, l) && !l.empty();) {
    if (l.rfind("model name", 0) == 0) name = value(l);
    if (l.rfind("cpu family", 0) == 0) fam = value(l);
    if (l.rfind("model\t", 0) == 0) mod = value(l);
  }
  return name + " (family " + fam + ", model " + mod + ")";
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

std::string prime_bits(const helib::Context& ctx, const helib::IndexSet& s) {
  std::string out;
  for (long i : s)
    out +=
        (out.empty() ? "" : ",") + std::to_string(ctx.logOfPrime(i) / std::log(2.0)).substr(0, 5);
  return "[" + out + "]";
}

void row(const char* what, Stat us, long nprimes = 0) {
  std::printf("| %s | %.1f | %.1f | %.1f |", what, us.med, us.min, us.cpu);
  if (nprimes > 0)
    std::printf(" %.1f |\n", us.cpu / nprimes);
  else
    std::printf(" – |\n");
}

}  // namespace

int main(int argc, char** argv) {
  const long m = 21845;
  const long bits = argc > 1 ? std::atol(argv[1]) : 400;
  const long c = argc > 2 ? std::atol(argv[2]) : 3;
  if (argc > 3) g_reps = std::max(20, std::atoi(argv[3]));
  const long p = argc > 4 ? std::atol(argv[4]) : 65537;
  const long r = argc > 5 ? std::atol(argv[5]) : 1;
  long pr = 1;  // the plaintext modulus p^r
  for (long i = 0; i < r; ++i) pr *= p;
  NTL::SetNumThreads(1);

  helib::Context ctx = helib::ContextBuilder<helib::BGV>().m(m).p(p).r(r).bits(bits).c(c).build();
  const helib::IndexSet& Q = ctx.getCtxtPrimes();
  const long L = Q.card(), phim = ctx.getPhiM();

  std::printf("## HElib BGV peer benchmark\n\n");
  std::printf("- machine: %s (single thread, NTL threads = %ld)\n", cpu_model().c_str(),
              NTL::AvailableThreads());
  std::printf("- HElib source %s; version.h says %s, library %s; NTL %s\n", HELIB_PEER_SOURCE,
              helib::version::asString, helib::version::libString(), NTL_VERSION);
  std::printf(
      "- m = %ld, phi(m) = %ld, p = %ld, r = %ld, slots = %ld x %s(p^%s%ld), bits = %ld, c = %ld\n",
      m, phim, p, r, ctx.getNSlots(), r == 1 ? "GF" : "GR", r == 1 ? "" : "r, d = ", ctx.getOrdP(),
      bits, c);
  std::printf("- ctxt primes: %ld, %ld bits total, sizes %s\n", L,
              long(std::ceil(ctx.logOfProduct(Q) / std::log(2.0))), prime_bits(ctx, Q).c_str());
  std::printf("- small primes: %ld (%ld of them among the ctxt primes), sizes %s\n",
              ctx.getSmallPrimes().card(), (ctx.getSmallPrimes() & Q).card(),
              prime_bits(ctx, ctx.getSmallPrimes()).c_str());
  std::printf("- special primes: %ld, sizes %s\n", ctx.getSpecialPrimes().card(),
              prime_bits(ctx, ctx.getSpecialPrimes()).c_str());
  std::printf("- log2(Q*P) = %ld, secret-key Hamming weight = %ld (0 = dense), stdev = %.1f\n",
              ctx.bitSizeOfQ(), ctx.getHwt(), NTL::conv<double>(ctx.getStdev()));
  std::printf("- HElib security estimate: %.1f bits\n- repetitions: %d, load average: %s\n\n",
              ctx.securityLevel(), g_reps, loadavg().c_str());

  // (a) Coefficient <-> evaluation (DoubleCRT) conversions over all ciphertext primes.
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<long> small(-(1L << 15), (1L << 15) - 1);
  helib::zzX zpoly(NTL::INIT_SIZE, phim);
  NTL::ZZX poly;
  for (long i = 0; i < phim; ++i) {
    zpoly[i] = small(rng);
    NTL::SetCoeff(poly, i, zpoly[i]);
  }
  std::printf(
      "| operation | wall median µs | wall min µs | CPU median µs | CPU µs / prime |\n"
      "|---|---:|---:|---:|---:|\n");
  {
    std::vector<NTL::vec_long> y(ctx.numPrimes());
    std::vector<NTL::zz_pX> x(ctx.numPrimes());
    row("per-prime FFT, zzX -> vec_long (Cmodulus::FFT), all ctxt primes", measure([&] {
          for (long i : Q) ctx.ithModulus(i).FFT(y[i], zpoly);
        }),
        L);
    row("per-prime inverse FFT, vec_long -> zz_pX (Cmodulus::iFFT), all ctxt primes", measure([&] {
          for (long i : Q) ctx.ithModulus(i).iFFT(x[i], y[i]);
        }),
        L);
  }
  helib::DoubleCRT d(ctx, Q);
  row("DoubleCRT(zzX, ctxt primes) (forward)",
      measure([&] { d = helib::DoubleCRT(zpoly, ctx, Q); }), L);
  row("DoubleCRT(ZZX, ctxt primes) (forward)", measure([&] { d = helib::DoubleCRT(poly, ctx, Q); }),
      L);
  NTL::ZZX back;
  row("DoubleCRT::toPoly -> ZZX (inverse + CRT)", measure([&] { d.toPoly(back, Q); }), L);
  if (back != poly) std::printf("**ERROR: DoubleCRT round trip mismatch**\n");

  // (b), (c) BGV: keys, encryption, multiplication, modulus switching, decryption.
  helib::SecKey sk(ctx);
  sk.GenSecKey();
  const helib::PubKey& pk = sk;
  std::uniform_int_distribution<long> coef(0, pr - 1);
  NTL::ZZX ma, mb;
  for (long i = 0; i < phim; ++i) {
    NTL::SetCoeff(ma, i, coef(rng));
    NTL::SetCoeff(mb, i, coef(rng));
  }
  helib::Ctxt ca(pk), cb(pk), t(pk);
  row("encrypt (public key, ZZX plaintext)", measure([&] { pk.Encrypt(ca, ma, pr); }));
  pk.Encrypt(cb, mb, pr);
  NTL::ZZX dec;
  row("decrypt (-> ZZX)", measure([&] { sk.Decrypt(dec, ca); }));

  const long fresh = ca.getPrimeSet().card();
  t = ca;
  t.multLowLvl(cb);
  const helib::IndexSet mulSet = t.getPrimeSet();  // after HElib's automatic modulus switching
  t.reLinearize();
  const long afterRelin = t.getPrimeSet().card();  // special primes are dropped lazily
  t.dropSmallAndSpecialPrimes();
  const long capAfterMul = t.bitCapacity();
  sk.Decrypt(dec, t);
  NTL::ZZX want = NTL::MulMod(ma, mb, ctx.getZMStar().getPhimX());
  for (long i = 0; i < phim; ++i) {
    if (NTL::rem(NTL::coeff(dec, i) - NTL::coeff(want, i), pr) != 0) {
      std::printf("**ERROR: decrypted product mismatch at coefficient %ld**\n", i);
      break;
    }
  }

  row("multiplyBy (= multLowLvl + reLinearize)",
      measure([&] { t = ca; }, [&] { t.multiplyBy(cb); }));
  row("  multLowLvl (level alignment + tensor product)",
      measure([&] { t = ca; }, [&] { t.multLowLvl(cb); }));
  row("  reLinearize (key switching, result kept mod Q*P)",
      measure([&] { t = ca, t.multLowLvl(cb); }, [&] { t.reLinearize(); }));
  row("  bringToSet: fresh -> multiplication level (one input)",
      measure([&] { t = ca; }, [&] { t.bringToSet(mulSet); }));
  {  // Ctxt::tensorProduct is private: time its arithmetic (4 DoubleCRT products, 1 sum).
    std::vector<helib::DoubleCRT> x(4, helib::DoubleCRT(ctx, mulSet)), y(3, x[0]);
    for (auto& v : x) v.randomize();
    row("  tensor-product arithmetic only (4 DoubleCRT mul + 1 add, proxy)", measure([&] {
          y[0] = x[0], y[0] *= x[2];
          y[1] = x[0], y[1] *= x[3];
          y[2] = x[1], y[2] *= x[2];
          y[1] += y[2];
          y[2] = x[1], y[2] *= x[3];
        }),
        mulSet.card());
  }
  row("dropSmallAndSpecialPrimes after multiplyBy (mod-down by P)",
      measure([&] { t = ca, t.multiplyBy(cb); }, [&] { t.dropSmallAndSpecialPrimes(); }));
  row("multiplyBy + dropSmallAndSpecialPrimes (complete mult + relin)",
      measure([&] { t = ca; }, [&] { t.multiplyBy(cb), t.dropSmallAndSpecialPrimes(); }));
  helib::IndexSet drop1 = ca.getPrimeSet();
  drop1.remove(drop1.last());
  row("modDownToSet: fresh ciphertext, drop one ctxt prime",
      measure([&] { t = ca; }, [&] { t.modDownToSet(drop1); }));

  // (d) Slot movement over the hypercube (EncryptedArray), with the rotation keys HElib's own
  // programs generate (addSome1DMatrices: baby-step/giant-step powers of each generator; a
  // rotation by an amount without its key is composed from those it has). Each on a fresh
  // ciphertext.
  helib::addSome1DMatrices(sk);
  const helib::EncryptedArray& ea = ctx.getEA();
  {  // Slot encoding and decoding: every slot a random element of degree < d (coefficients < p^r).
    std::vector<NTL::ZZX> slots(ea.size()), back_slots;
    for (auto& v : slots) {
      for (long j = 0; j < ea.getDegree(); ++j) NTL::SetCoeff(v, j, coef(rng));
    }
    NTL::ZZX encoded;
    row("EncryptedArray::encode (every slot an element of degree < d)",
        measure([&] { ea.encode(encoded, slots); }));
    row("EncryptedArray::decode", measure([&] { ea.decode(back_slots, encoded); }));
    if (back_slots != slots) std::printf("**ERROR: slot encode/decode round trip mismatch**\n");
  }
  row("EncryptedArray::rotate by 1 (whole array)",
      measure([&] { t = ca; }, [&] { ea.rotate(t, 1); }));
  std::string dims;
  for (long i = 0; i < ea.dimension(); ++i) {
    dims += (dims.empty() ? "" : " x ") + std::to_string(ea.sizeOfDimension(i)) +
            (ea.nativeDimension(i) ? " (good)" : " (bad)");
    const std::string what = "EncryptedArray::rotate1D(dimension " + std::to_string(i) + ", 1)";
    row(what.c_str(), measure([&] { t = ca; }, [&] { ea.rotate1D(t, i, 1); }));
  }
  row("totalSums (every slot the sum of all)",
      measure([&] { t = ca; }, [&] { helib::totalSums(ea, t); }));
  std::printf("\nHypercube: %s.\n", dims.c_str());

  std::printf(
      "\nFresh ciphertext: %ld primes (%.0f bits). Tensor product runs at %ld primes (%.0f bits) "
      "(%ld of them small primes) after HElib's automatic modulus switching; after reLinearize %ld "
      "primes (special primes "
      "dropped lazily). Capacity after one multiply: %ld bits. Product decrypts correctly.\n",
      fresh, ctx.logOfProduct(ca.getPrimeSet()) / std::log(2.0), mulSet.card(),
      ctx.logOfProduct(mulSet) / std::log(2.0), (mulSet & ctx.getSmallPrimes()).card(), afterRelin,
      capAfterMul);
  return 0;
}
