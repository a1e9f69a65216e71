// CyclotomicRing: Z_q[x]/Φ_m(x) through length-m cyclic transforms and reduction by Φ_m.
#include "polyhe/ntt/cyclic/cyclotomic.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ntt/polymul.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

void validate(std::size_t m, u64 q) {
  const bool odd = m % 2 == 1 && m >= 3 && m <= CyclicNttPlan::kMaxN;
  const bool pow2 = is_power_of_two(m) && m >= 4 && m <= CyclotomicRing::kMaxPowerOfTwoM;
  if (!odd && !pow2) {
    throw InvalidParameter("cyclotomic ring index m = " + std::to_string(m) +
                           " is neither odd in [3, " + std::to_string(CyclicNttPlan::kMaxN) +
                           "] nor a power of two in [4, " +
                           std::to_string(CyclotomicRing::kMaxPowerOfTwoM) + "]");
  }
  if (bit_length(q) > 62) {
    throw InvalidParameter("q = " + std::to_string(q) + " has more than 62 bits");
  }
  if (!is_prime(q)) throw InvalidParameter("q = " + std::to_string(q) + " is not a prime");
  if ((q - 1) % m != 0) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not 1 mod m = " + std::to_string(m) +
                           ": no primitive m-th root of unity");
  }
}

/// The bit reversal of i < 2^bits.
std::size_t bit_reverse(std::size_t i, int bits) {
  std::size_t r = 0;
  for (int b = 0; b < bits; ++b, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

}  // namespace

std::shared_ptr<const CyclotomicRing> CyclotomicRing::create(std::size_t m, u64 q) {
  validate(m, q);
  return std::shared_ptr<const CyclotomicRing>(new CyclotomicRing(m, q));
}

CyclotomicRing::CyclotomicRing(std::size_t m, u64 q) : m_(m), degree_(0), mod_(q) {
  const auto phi = cyclotomic_polynomial(m);
  degree_ = phi.size() - 1;
  phi_.resize(phi.size());
  for (std::size_t i = 0; i < phi.size(); ++i) {
    // f mod q in [0, q) for a signed f.
    const u64 r = static_cast<u64>(phi[i] < 0 ? -(phi[i] + 1) : phi[i]) % q;
    phi_[i] = phi[i] < 0 ? q - 1 - r : r;
  }
  for (std::size_t i = 0; i < degree_; ++i) {
    if (phi_[i] != 0) phi_terms_.push_back({i, make_shoup<u64>((q - phi_[i]) % q, q)});
  }
  for (std::size_t k = 1; k < m; ++k) {
    if (std::gcd(k, m) == 1) slot_k_.push_back(k);
  }
  if (is_power_of_two(m)) {
    negacyclic_ = NttPlan<u64>::create(m / 2, q);
    omega_ = negacyclic_->psi();
  } else {
    cyclic_ = CyclicNttPlan::create(m, q);
    omega_ = cyclic_->omega();
  }
}

void CyclotomicRing::check_size(std::span<const u64> a, const char* what) const {
  if (a.size() != degree_) {
    throw InvalidParameter(std::string(what) + " has " + std::to_string(a.size()) +
                           " coefficients; the ring mod Phi_" + std::to_string(m_) + " needs " +
                           std::to_string(degree_));
  }
}

// Long division by the monic Φ_m = x^φ + Σ_{i<φ} f_i x^i from the top: for k = len−1 down to φ,
// x^k ≡ −Σ f_i x^(k−φ+i), so c[k−φ+i] += c[k]·(−f_i). Only the nonzero f_i are visited.
void CyclotomicRing::reduce_mod_phi(std::span<u64> c) const {
  const u64 q = mod_.value();
  for (std::size_t k = c.size(); k-- > degree_;) {
    const u64 t = c[k];
    if (t == 0) continue;
    u64* base = c.data() + (k - degree_);
    for (const PhiTerm& term : phi_terms_) {
      u64 x = base[term.index] + mul_shoup(t, term.neg_coeff, q);  // < 2q
      x -= q & (u64{0} - static_cast<u64>(x >= q));
      base[term.index] = x;
    }
  }
}

void CyclotomicRing::multiply(std::span<const u64> a, std::span<const u64> b,
                              std::span<u64> c) const {
  check_size(a, "multiply: a");
  check_size(b, "multiply: b");
  check_size(c, "multiply: c");
  if (negacyclic_) {
    polymul<u64>(a, b, c, *negacyclic_);
    return;
  }
  std::vector<u64> x(m_, 0), y(m_, 0);
  std::copy(a.begin(), a.end(), x.begin());
  std::copy(b.begin(), b.end(), y.begin());
  cyclic_->forward(x);
  cyclic_->forward(y);
  for (std::size_t i = 0; i < m_; ++i) x[i] = mod_.mul(x[i], y[i]);
  cyclic_->inverse(x);  // a·b mod x^m − 1, degree < m
  reduce_mod_phi(x);
  std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(degree_), c.begin());
}

std::vector<u64> CyclotomicRing::to_slots(std::span<const u64> a) const {
  check_size(a, "to_slots: a");
  std::vector<u64> out(degree_);
  if (negacyclic_) {
    // forward gives â[i] = a(ψ^(2·br(i)+1)); exponent k = 2·br(i)+1 is slot (k−1)/2 = br(i).
    std::vector<u64> x(a.begin(), a.end());
    negacyclic_->forward(x);
    const int bits = negacyclic_->log_n();
    for (std::size_t i = 0; i < degree_; ++i) out[bit_reverse(i, bits)] = x[i];
    return out;
  }
  std::vector<u64> x(m_, 0);
  std::copy(a.begin(), a.end(), x.begin());
  cyclic_->forward(x);  // x[k] = a(ω^k)
  for (std::size_t s = 0; s < degree_; ++s) out[s] = x[slot_k_[s]];
  return out;
}

// Odd m: the degree-< m polynomial C with C(ω^k) = v at the slot exponents and 0 elsewhere is the
// inverse transform; C mod Φ_m keeps the values at the roots of Φ_m, the primitive ω^k.
std::vector<u64> CyclotomicRing::from_slots(std::span<const u64> v) const {
  check_size(v, "from_slots: v");
  if (negacyclic_) {
    std::vector<u64> x(degree_);
    const int bits = negacyclic_->log_n();
    for (std::size_t i = 0; i < degree_; ++i) x[i] = v[bit_reverse(i, bits)];
    negacyclic_->inverse(x);
    return x;
  }
  std::vector<u64> x(m_, 0);
  for (std::size_t s = 0; s < degree_; ++s) x[slot_k_[s]] = v[s];
  cyclic_->inverse(x);
  reduce_mod_phi(x);
  x.resize(degree_);
  return x;
}

}  // namespace polyhe
