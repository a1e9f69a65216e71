#include "selftest.hpp"

#include <chrono>
#include <exception>
#include <functional>
#include <span>

#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "random.hpp"

namespace polyhe::cli {

namespace {

/// Schoolbook a·b mod (x^n + 1, q), O(n²): x^i·x^j = x^(i+j), or −x^(i+j−n) when i + j ≥ n.
template <Word W>
std::vector<W> schoolbook_negacyclic(std::span<const W> a, std::span<const W> b, W q) {
  const std::size_t n = a.size();
  std::vector<u128> pos(n, 0), neg(n, 0);  // each sum < n·q < 2^80: no overflow
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const u128 p = static_cast<u128>(a[i]) * b[j] % q;
      (i + j < n ? pos[i + j] : neg[i + j - n]) += p;
    }
  }
  std::vector<W> c(n);
  for (std::size_t k = 0; k < n; ++k) c[k] = static_cast<W>((pos[k] % q + q - neg[k] % q) % q);
  return c;
}

/// a·s·x^k mod (x^n + 1, q), O(n): a negacyclic rotation scaled by s.
template <Word W>
std::vector<W> times_monomial(std::span<const W> a, W s, std::size_t k, W q) {
  const std::size_t n = a.size();
  std::vector<W> c(n);
  for (std::size_t i = 0; i < n; ++i) {
    const W v = static_cast<W>(static_cast<u128>(a[i]) * s % q);
    if (i + k < n) {
      c[i + k] = v;
    } else {
      c[i + k - n] = v == 0 ? 0 : q - v;
    }
  }
  return c;
}

/// Empty when equal, else the first difference.
template <Word W>
std::string difference(std::span<const W> got, std::span<const W> want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      return "c[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", expected " +
             std::to_string(want[i]);
    }
  }
  return {};
}

/// Runs one named check; a thrown exception is a failure too.
void check(SelftestGroup& g, const std::string& name, const std::function<std::string()>& body) {
  std::string diff;
  try {
    diff = body();
  } catch (const std::exception& e) {
    diff = std::string("threw: ") + e.what();
  }
  if (diff.empty()) {
    ++g.passed;
  } else {
    g.failures.push_back(name + ": " + diff);
  }
}

std::string log2_name(std::size_t n) {
  int log_n = 0;
  while ((std::size_t{1} << log_n) < n) ++log_n;
  return "N=2^" + std::to_string(log_n);
}

/// Largest N whose products are checked against the schoolbook reference; above it, against the
/// reference variant (itself checked through x^k products and round trips).
constexpr std::size_t kMaxSchoolbookN = 1024;

template <Word W>
void check_variants(SelftestGroup& g, const NttPlan<W>& plan, InputRng& rng) {
  const std::size_t n = plan.n();
  const W q = plan.q();
  std::vector<W> a(n), b(n), c(n), t(n);
  for (auto& x : a) x = static_cast<W>(rng.uniform(0, q - 1));
  for (auto& x : b) x = static_cast<W>(rng.uniform(0, q - 1));
  a[0] = q - 1;  // the largest coefficient, at both ends
  b[n - 1] = q - 1;
  const W s = static_cast<W>(rng.uniform(1, q - 1));
  const std::size_t k = rng.uniform(0, n - 1);
  std::vector<W> mono(n, 0);
  mono[k] = s;
  const std::vector<W> want_mono = times_monomial<W>(a, s, k, q);
  const bool schoolbook = n <= kMaxSchoolbookN;
  std::vector<W> want(n), want_ntt(a);
  if (schoolbook) {
    want = schoolbook_negacyclic<W>(a, b, q);
  } else {
    polymul<W>(a, b, want, plan, NttVariant::reference);
  }
  plan.forward(want_ntt, NttVariant::reference);

  for (NttVariant v : kAllNttVariants) {
    const std::string vn(to_string(v));
    if (!plan.supports(v)) {
      g.skipped.push_back(vn);
      continue;
    }
    const bool self = !schoolbook && v == NttVariant::reference;  // would compare with itself
    if (!self) {
      check(g, "polymul/" + vn, [&] {
        polymul<W>(a, b, c, plan, v);
        return difference<W>(c, want);
      });
    }
    check(g, "polymul_fused/" + vn, [&] {
      polymul_fused<W>(a, b, c, plan, v);
      return difference<W>(c, want);
    });
    check(g, "polymul by s*x^k/" + vn, [&] {
      polymul<W>(a, mono, c, plan, v);
      return difference<W>(c, want_mono);
    });
    check(g, "polymul_fused by s*x^k/" + vn, [&] {
      polymul_fused<W>(mono, a, c, plan, v);
      return difference<W>(c, want_mono);
    });
    if (v != NttVariant::reference) {
      check(g, "NTT/" + vn + " vs NTT/reference", [&] {
        t = a;
        plan.forward(t, v);
        return difference<W>(t, want_ntt);
      });
    }
    check(g, "INTT(NTT(a))/" + vn, [&] {
      t = a;
      plan.forward(t, v);
      plan.inverse(t, v);
      return difference<W>(t, a);
    });
  }
}

template <Word W>
SelftestGroup polymul_group(std::size_t n, int bits, InputRng& rng) {
  SelftestGroup g;
  g.name = "polymul " + log2_name(n) + ", " + std::to_string(bits) + "-bit q, " +
           std::to_string(word_bits<W>) + "-bit words";
  check(g, "plan", [&] {
    const W q = static_cast<W>(ntt_primes(bits, n, 1).at(0));
    g.name += " (q=" + std::to_string(q) + ")";
    check_variants<W>(g, *NttPlan<W>::create(n, q), rng);
    return std::string();
  });
  return g;
}

template <Word W>
W reduce_with(const Modulus<W>& m, Reduction r, W a, W b) {
  switch (r) {
    case Reduction::barrett_classical: return mul_mod(a, b, m.barrett_classical());
    case Reduction::barrett_dq: return mul_mod(a, b, m.barrett_dq());
    case Reduction::barrett_alg4: return mul_mod(a, b, m.barrett_alg4());
    case Reduction::montgomery: return mul_mod(a, b, m.montgomery());
    case Reduction::montgomery_ntt: return mul_mod(a, b, m.montgomery_ntt());
    case Reduction::shoup: return mul_shoup(a, m.shoup(b), m.value());
  }
  return m.mul(a, b);
}

/// a·b mod q through every reduction that serves q, both operand orders, against u128 `%`.
template <Word W>
SelftestGroup reduction_group(W a, W b, W q) {
  SelftestGroup g;
  g.name = "reductions a=" + std::to_string(a) + " b=" + std::to_string(b) +
           " q=" + std::to_string(q) + ", " + std::to_string(word_bits<W>) + "-bit words";
  check(g, "Modulus", [&] {
    const Modulus<W> m(q);
    for (const auto& operand_pair : {std::pair{a, b}, std::pair{b, a}}) {
      const W x = operand_pair.first;
      const W y = operand_pair.second;
      const W want = static_cast<W>(static_cast<u128>(x) * y % q);
      std::string operands = "(";  // appended: GCC 12 warns falsely (-Wrestrict) on "(" + ...
      operands += std::to_string(x) + "*" + std::to_string(y) + ")";
      auto diff = [&](W got) {
        return got == want ? std::string()
                           : "got " + std::to_string(got) + ", expected " + std::to_string(want);
      };
      for (Reduction r : kAllReductions) {
        if (!m.supports(r)) {
          if (x == a) g.skipped.emplace_back(to_string(r));
          continue;
        }
        check(g, std::string(to_string(r)) + operands,
              [&] { return diff(reduce_with(m, r, x, y)); });
      }
      check(g, "Modulus::mul" + operands, [&] { return diff(m.mul(x, y)); });
    }
    return std::string();
  });
  return g;
}

}  // namespace

std::size_t SelftestResult::passed() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.passed;
  return n;
}

std::size_t SelftestResult::failed() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.failures.size();
  return n;
}

SelftestResult run_selftest(std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  SelftestResult r;
  r.seed = seed;
  InputRng rng(seed);
  for (std::size_t log_n : {4, 10, 13}) {
    const std::size_t n = std::size_t{1} << log_n;
    for (int bits : {30, 50, 60, 62})
      r.groups.push_back(polymul_group<std::uint64_t>(n, bits, rng));
    r.groups.push_back(polymul_group<std::uint32_t>(n, 30, rng));
  }
  // A hard case for the quotient estimates: b = q − 1 and a close to q.
  constexpr std::uint32_t a = 994674970, b = 994705408, q = 994705409;
  r.groups.push_back(reduction_group<std::uint32_t>(a, b, q));
  r.groups.push_back(reduction_group<std::uint64_t>(a, b, q));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace polyhe::cli
