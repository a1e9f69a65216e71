// CyclicNttPlan: validation, the transforms' public entry points, and the planner.
#include "polyhe/ntt/cyclic/plan.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "nodes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"

namespace polyhe {

std::string_view to_string(Decomposition d) {
  switch (d) {
    case Decomposition::automatic: return "automatic";
    case Decomposition::direct: return "direct";
    case Decomposition::radix2: return "radix2";
    case Decomposition::pfa: return "pfa";
    case Decomposition::cooley_tukey: return "cooley_tukey";
    case Decomposition::rader: return "rader";
    case Decomposition::rader_padded: return "rader_padded";
    case Decomposition::bluestein: return "bluestein";
  }
  return "unknown";
}

CyclicNttPlan::CyclicNttPlan(std::size_t n, u64 q, u64 omega, Decomposition kind,
                             std::size_t scratch)
    : n_(n),
      q_(q),
      omega_(omega),
      kind_(kind),
      scratch_(scratch),
      n_inv_(make_shoup<u64>(inverse_mod(n % q, q), q)) {}

namespace {

/// The calling thread's scratch, grown on demand and kept: a plan's entry points allocate (and
/// zero) nothing per call. No entry point runs inside another on the same thread: composite
/// plans call their sub-plans' forward_with with their own scratch. Wiped after secret
/// transforms (core/wipe.hpp).
std::span<std::uint64_t> thread_scratch(std::size_t words) {
  thread_local detail::ThreadScratch scratch;
  return {static_cast<std::uint64_t*>(scratch.get(words * sizeof(std::uint64_t))), words};
}

}  // namespace

void CyclicNttPlan::forward(std::span<u64> a) const {
  if (a.size() != n_) {
    throw InvalidParameter("cyclic NTT of length " + std::to_string(n_) + " given " +
                           std::to_string(a.size()) + " coefficients");
  }
  forward_with(a, thread_scratch(scratch_));
}

void CyclicNttPlan::inverse(std::span<u64> a) const {
  if (a.size() != n_) {
    throw InvalidParameter("inverse cyclic NTT of length " + std::to_string(n_) + " given " +
                           std::to_string(a.size()) + " coefficients");
  }
  inverse_with(a, thread_scratch(scratch_));
}

// With F the forward transform by ω, F⁻¹(x)[k] = (1/n)·F(x)[(n − k) mod n]: the transform by
// ω⁻¹ is the transform by ω read backwards.
void CyclicNttPlan::inverse_with(std::span<u64> a, std::span<u64> scratch) const {
  forward_with(a, scratch);
  std::reverse(a.begin() + 1, a.end());
  for (u64& x : a) x = mul_shoup(x, n_inv_, q_);
}

namespace {

using cyclic::PlanPtr;

void validate(std::size_t n, std::uint64_t q) {
  if (n == 0 || n > CyclicNttPlan::kMaxN) {
    throw InvalidParameter("cyclic NTT length n = " + std::to_string(n) + " is outside [1, " +
                           std::to_string(CyclicNttPlan::kMaxN) + "]");
  }
  if (bit_length(q) > 62) {
    throw InvalidParameter("q = " + std::to_string(q) + " has more than 62 bits");
  }
  if (!is_prime(q)) throw InvalidParameter("q = " + std::to_string(q) + " is not a prime");
  if ((q - 1) % n != 0) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not 1 mod n = " + std::to_string(n) +
                           ": no n-th root of unity");
  }
}

/// n's smallest prime-power factor p^e (n itself when n is a prime power).
std::size_t smallest_prime_power(std::size_t n) {
  const auto p = static_cast<std::size_t>(prime_factors(n).front());
  std::size_t pe = 1;
  while (n % (pe * p) == 0) pe *= p;
  return pe;
}

PlanPtr plan_forced(std::size_t n, std::uint64_t q, std::uint64_t omega, Decomposition d) {
  switch (d) {
    case Decomposition::automatic: return cyclic::plan_automatic(n, q, omega);
    case Decomposition::direct: return cyclic::make_direct(n, q, omega);
    case Decomposition::radix2: return cyclic::make_radix2(n, q, omega);
    case Decomposition::pfa: {
      const std::size_t n1 = n > 1 ? smallest_prime_power(n) : 1;
      if (n1 == n) {
        throw InvalidParameter("pfa needs n = n1·n2 with coprime n1, n2 > 1; n = " +
                               std::to_string(n) + " is a prime power");
      }
      return cyclic::make_pfa(n, q, omega, n1);
    }
    case Decomposition::cooley_tukey: {
      const std::size_t p = n > 1 ? static_cast<std::size_t>(prime_factors(n).front()) : 1;
      if (p == n) {
        throw InvalidParameter("cooley_tukey needs a composite n; n = " + std::to_string(n) +
                               " is not");
      }
      return cyclic::make_cooley_tukey(n, q, omega, p);
    }
    case Decomposition::rader: return cyclic::make_rader(n, q, omega, false);
    case Decomposition::rader_padded: return cyclic::make_rader(n, q, omega, true);
    case Decomposition::bluestein: return cyclic::make_bluestein(n, q, omega);
  }
  throw InvalidParameter("unknown decomposition");
}

}  // namespace

std::shared_ptr<const CyclicNttPlan> CyclicNttPlan::create(std::size_t n, u64 q,
                                                           Decomposition force) {
  validate(n, q);
  return plan_forced(n, q, primitive_nth_root(q, n), force);
}

std::shared_ptr<const CyclicNttPlan> CyclicNttPlan::create(std::size_t n, u64 q, u64 omega,
                                                           Decomposition force) {
  validate(n, q);
  if (!is_primitive_nth_root(omega, q, n)) {
    throw InvalidParameter("omega = " + std::to_string(omega) + " is not a primitive " +
                           std::to_string(n) + "-th root of unity mod " + std::to_string(q));
  }
  return plan_forced(n, q, omega, force);
}

namespace cyclic {

PlanPtr plan_automatic(std::size_t n, u64 q, u64 omega, bool flatten_pfa) {
  if (is_power_of_two(n)) return make_radix2(n, q, omega);
  const std::size_t pe = smallest_prime_power(n);
  if (pe != n) return make_pfa(n, q, omega, pe, flatten_pfa);
  const auto p = static_cast<std::size_t>(prime_factors(n).front());
  if (p != n) return make_cooley_tukey(n, q, omega, p);
  constexpr std::size_t kDirectPrime = 5;      // small primes end the recursion (paper, §Rader)
  constexpr std::size_t kDirectFallback = 64;  // the O(n²) DFT when no convolution has a root
  if (n <= kDirectPrime) return make_direct(n, q, omega);
  std::string reasons;
  try {
    return make_rader(n, q, omega, false);
  } catch (const InvalidParameter& e) {
    reasons += std::string("rader: ") + e.what();
  }
  try {
    return make_rader(n, q, omega, true);
  } catch (const InvalidParameter& e) {
    reasons += std::string("; rader_padded: ") + e.what();
  }
  try {
    return make_bluestein(n, q, omega);
  } catch (const InvalidParameter& e) {
    reasons += std::string("; bluestein: ") + e.what();
  }
  if (n <= kDirectFallback) return make_direct(n, q, omega);
  throw InvalidParameter("no cyclic NTT of prime length " + std::to_string(n) +
                         " mod q = " + std::to_string(q) + " (" + reasons + ")");
}

PlanPtr plan_convolution(std::size_t L, u64 q, const char* who) {
  if ((q - 1) % L != 0) {
    throw InvalidParameter(std::string(who) + " needs a cyclic convolution of length " +
                           std::to_string(L) + ", but q = " + std::to_string(q) + " is not 1 mod " +
                           std::to_string(L));
  }
  return plan_automatic(L, q, primitive_nth_root(q, L));
}

std::vector<u64> powers_of(u64 omega, u64 q, std::size_t count) {
  std::vector<u64> out(count);
  const ShoupOperand<u64> step = make_shoup<u64>(omega, q);
  u64 w = 1 % q;
  for (u64& o : out) {
    o = w;
    w = mul_shoup(w, step, q);
  }
  return out;
}

void shoup_powers_into(std::span<ShoupOperand<u64>> out, u64 omega,
                       const ShoupQuotient<u64>& quotient, u64 q) {
  const ShoupOperand<u64> step = make_shoup<u64>(omega, q);
  u64 w = 1 % q;
  for (auto& o : out) {
    o = quotient.operand(w);
    w = mul_shoup(w, step, q);
  }
}

std::vector<ShoupOperand<u64>> shoup_powers(u64 omega, u64 q, std::size_t count) {
  std::vector<ShoupOperand<u64>> out(count);
  shoup_powers_into(out, omega, ShoupQuotient<u64>(q), q);
  return out;
}

std::vector<std::uint32_t> bit_reversal(std::size_t len) {
  int log_len = 0;
  while ((std::size_t{1} << log_len) < len) ++log_len;
  std::vector<std::uint32_t> rev(len, 0);
  // rev(i) = rev(i/2)/2 with i's low bit on top.
  for (std::size_t i = 1; i < len; ++i) {
    rev[i] = (rev[i >> 1] >> 1) | static_cast<std::uint32_t>((i & 1) << (log_len - 1));
  }
  return rev;
}

std::vector<ShoupOperand<u64>> convolution_kernel(const CyclicNttPlan& conv, std::vector<u64> h) {
  std::vector<u64> scratch(conv.scratch_size());
  conv.forward_with(h, scratch);
  const u64 q = conv.q();
  const ShoupQuotient<u64> quotient(q);
  const ShoupOperand<u64> l_inv = make_shoup<u64>(inverse_mod(conv.n() % q, q), q);
  std::vector<ShoupOperand<u64>> out(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) out[i] = quotient.operand(mul_shoup(h[i], l_inv, q));
  return out;
}

}  // namespace cyclic
}  // namespace polyhe
