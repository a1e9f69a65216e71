#include "polyhe/rlwe/parameters.hpp"

#include <sodium.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/serial.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe::rlwe {
namespace {

// Generates the primes of both chains at once so equal bit sizes in Q and P never collide: ≡ 1
// mod 2N for x^N + 1 (n a power of two, m = 0), ≡ 1 mod powerful_ntt_modulus(m) for odd m.
void generate_primes(std::size_t n, std::size_t m, const std::vector<int>& q_bits,
                     const std::vector<int>& p_bits, std::vector<std::uint64_t>& q,
                     std::vector<std::uint64_t>& p) {
  std::map<int, std::size_t> wanted;
  for (const int b : q_bits) ++wanted[b];
  for (const int b : p_bits) ++wanted[b];
  std::map<int, std::vector<std::uint64_t>> pool;
  for (const auto& [bits, count] : wanted) {
    if (bits < 2 || bits > RnsBasis::kMaxBits) {
      throw InvalidParameter("prime bit size " + std::to_string(bits) + " is outside [2, " +
                             std::to_string(RnsBasis::kMaxBits) + "]");
    }
    pool[bits] = m == 0 ? ntt_primes(bits, n, count) : powerful_ntt_primes(m, bits, count);
  }
  std::map<int, std::size_t> next;
  for (const int b : q_bits) q.push_back(pool[b][next[b]++]);
  for (const int b : p_bits) p.push_back(pool[b][next[b]++]);
}

// bit_length of the product of `primes` (exact; a basis of at most kMaxPrimes primes is cheap).
int product_bits(std::span<const std::uint64_t> primes) {
  return RnsBasis(primes).product_bits();
}

}  // namespace

std::shared_ptr<const Parameters> Parameters::create(const ParametersLiteral& lit) {
  if (lit.m != 0) {
    if (lit.log_n != 0) {
      throw InvalidParameter(
          "give the ring either as log_n (x^N + 1) or as an odd m (Phi_m), not "
          "both (log_n = " +
          std::to_string(lit.log_n) + ", m = " + std::to_string(lit.m) + ")");
    }
    if (lit.m % 2 == 0 || lit.m < 3 || lit.m > RingContext::kMaxM) {
      throw InvalidParameter("m = " + std::to_string(lit.m) + " must be odd in [3, " +
                             std::to_string(RingContext::kMaxM) +
                             "] (a power-of-two m = 2N is the ring x^N + 1: set log_n instead)");
    }
  } else if (lit.log_n < 1 || lit.log_n > 17) {
    throw InvalidParameter("log_n = " + std::to_string(lit.log_n) + " is outside [1, 17]");
  } else if (lit.transform != Decomposition::automatic) {
    throw InvalidParameter("transform = " + std::string(to_string(lit.transform)) +
                           " forces the cyclic transforms of an odd m; x^N + 1 (log_n = " +
                           std::to_string(lit.log_n) + ") has its negacyclic NTT only");
  }
  const std::size_t n =
      lit.m != 0 ? static_cast<std::size_t>(euler_phi(lit.m)) : std::size_t{1} << lit.log_n;
  if (lit.q_bits.empty() == lit.q.empty()) {
    throw InvalidParameter(
        "give the ciphertext chain either as prime bit sizes (q_bits) or as primes (q), exactly "
        "one of the two (got " +
        std::to_string(lit.q_bits.size()) + " sizes and " + std::to_string(lit.q.size()) +
        " primes)");
  }
  if (lit.p_bits.empty() == lit.p.empty()) {
    throw InvalidParameter(
        "give the special primes either as bit sizes (p_bits) or as primes (p), exactly one of "
        "the two (got " +
        std::to_string(lit.p_bits.size()) + " sizes and " + std::to_string(lit.p.size()) +
        " primes); key switching needs at least one special prime");
  }
  if (lit.hamming_weight > n) {
    throw InvalidParameter("hamming_weight = " + std::to_string(lit.hamming_weight) +
                           " exceeds N = " + std::to_string(n));
  }
  // The table bounds log2(QP) for uniform ternary secrets. A sparse secret falls to hybrid
  // (guessing + lattice) attacks at sizes the table allows, and no table covers it: claim no
  // security level for one unless the caller opts out by name.
  if (lit.hamming_weight != 0 && lit.security != SecurityLevel::insecure_none) {
    throw InsecureParameters(
        "hamming_weight = " + std::to_string(lit.hamming_weight) + " at " +
        to_string(lit.security) +
        " security: the HomomorphicEncryption.org table bounds log2(QP) for uniform ternary "
        "secrets only, and a sparse secret is weaker at the same sizes, so no security level is "
        "claimed for it; use hamming_weight = 0 (a uniform ternary secret), or set security = "
        "SecurityLevel::insecure_none to opt out by name");
  }
  // Cheap checks first: the counts bound everything built below (prime search, tables).
  const std::size_t q_count = lit.q_bits.empty() ? lit.q.size() : lit.q_bits.size();
  const std::size_t p_count = lit.p_bits.empty() ? lit.p.size() : lit.p_bits.size();
  if (q_count + p_count > kMaxPrimes) {
    throw InvalidParameter("|Q| + |P| = " + std::to_string(q_count) + " + " +
                           std::to_string(p_count) + " primes exceeds the limit of " +
                           std::to_string(kMaxPrimes) +
                           " (rlwe::kMaxPrimes, as SEAL's; every secure set at N <= 2^17 with "
                           "primes of 55 bits or more fits)");
  }
  std::vector<std::uint64_t> q = lit.q;
  std::vector<std::uint64_t> p = lit.p;
  if (!lit.q_bits.empty() || !lit.p_bits.empty()) {
    std::vector<std::uint64_t> gq;
    std::vector<std::uint64_t> gp;
    generate_primes(n, lit.m, lit.q_bits, lit.p_bits, gq, gp);
    if (!lit.q_bits.empty()) q = gq;
    if (!lit.p_bits.empty()) p = gp;
  }
  {
    std::unordered_set<std::uint64_t> seen(q.begin(), q.end());
    for (const std::uint64_t a : p) {
      if (seen.count(a) != 0) {
        throw InvalidParameter("prime " + std::to_string(a) +
                               " appears in both Q and P; the chains must be disjoint");
      }
    }
  }
  if (lit.m == 0) {
    for (const std::uint64_t a : q) check_ntt_prime(a, n);
    for (const std::uint64_t a : p) check_ntt_prime(a, n);
  }  // odd m: RingContext::create_cyclotomic checks q ≡ 1 mod m and the transforms
  const std::size_t levels = q.size();
  std::size_t dnum = lit.dnum;
  if (dnum == 0) dnum = (levels + p.size() - 1) / p.size();
  if (dnum > levels) {
    throw InvalidParameter("dnum = " + std::to_string(dnum) + " exceeds L + 1 = " +
                           std::to_string(levels) + " (the number of ciphertext primes)");
  }
  // Key switching multiplies each digit (up to D_j) by a fresh error and divides by P: with P
  // below the widest digit its noise grows by D_j/P, silently ruining every relinearisation and
  // rotation. Refuse that (a one-bit shortfall, as with equal-size primes, is harmless). Digits
  // are runs of ⌈(L+1)/dnum⌉ primes, as KeySwitchBasis makes them.
  const std::size_t alpha = (levels + dnum - 1) / dnum;
  int max_digit_bits = 0;
  for (std::size_t begin = 0; begin < levels; begin += alpha) {
    const std::size_t end = std::min(levels, begin + alpha);
    max_digit_bits =
        std::max(max_digit_bits,
                 product_bits(std::span<const std::uint64_t>(q).subspan(begin, end - begin)));
  }
  const int special_bits = product_bits(p);
  if (max_digit_bits > special_bits + 1) {
    throw InvalidParameter("the special modulus P (" + std::to_string(special_bits) +
                           " bits) is narrower than the widest key-switching digit (" +
                           std::to_string(max_digit_bits) +
                           " bits, dnum = " + std::to_string(dnum) +
                           "): key switching would amplify its noise by about 2^" +
                           std::to_string(max_digit_bits - special_bits) +
                           "; add special primes, widen them, or raise dnum");
  }
  // The security table, before any table is built: an insecure set costs no more than its
  // primes.
  if (lit.security != SecurityLevel::insecure_none) {
    std::size_t table_n = 1;
    while (table_n * 2 <= n) table_n *= 2;  // = security_n()
    std::vector<std::uint64_t> all = q;
    all.insert(all.end(), p.begin(), p.end());
    const int log_qp = product_bits(all);
    const std::string ring_note =
        lit.m == 0 ? std::string()
                   : " (for m = " + std::to_string(lit.m) + ", phi(m) = " + std::to_string(n) +
                         ": the row of the largest power of two <= phi(m), N = " +
                         std::to_string(table_n) + ")";
    const auto bound = max_log_qp(table_n, lit.security);
    if (!bound) {
      throw InsecureParameters(
          "the HomomorphicEncryption.org table has no " + std::string(to_string(lit.security)) +
          " entry for N = " + std::to_string(table_n) + ring_note +
          " (it covers N = 2^10..2^15, and 2^16, 2^17 at 128 bits); use a covered N or set "
          "security = SecurityLevel::insecure_none to opt out by name");
    }
    if (log_qp > *bound) {
      throw InsecureParameters(
          "log2(QP) = " + std::to_string(log_qp) + " bits exceeds the " + std::to_string(*bound) +
          " bits the HomomorphicEncryption.org table allows for N = " + std::to_string(table_n) +
          ring_note + " at " + to_string(lit.security) + " security (ternary secret); " +
          "remove " + std::to_string(log_qp - *bound) +
          " bits of primes, double N, or set security = SecurityLevel::insecure_none to opt out "
          "by name");
    }
  }
  return std::shared_ptr<Parameters>(new Parameters(lit, std::move(q), std::move(p), dnum));
}

Parameters::Parameters(const ParametersLiteral& lit, std::vector<std::uint64_t> q,
                       std::vector<std::uint64_t> p, std::size_t dnum)
    : n_(lit.m != 0 ? static_cast<std::size_t>(euler_phi(lit.m)) : std::size_t{1} << lit.log_n),
      log_n_(lit.m != 0 ? 0 : lit.log_n),
      m_(lit.m != 0 ? lit.m : 2 * n_),
      q_(std::move(q)),
      p_(std::move(p)),
      hamming_weight_(lit.hamming_weight),
      security_(lit.security),
      transform_(lit.transform),
      log_qp_(0),
      ring_([&] {
        std::vector<std::uint64_t> all = q_;
        all.insert(all.end(), p_.begin(), p_.end());
        return m_ % 2 == 1 ? RingContext::create_cyclotomic(m_, all, lit.transform)
                           : RingContext::create(n_, all);
      }()),
      ks_(ring_->basis().prefix(q_.size()), ring_->basis().range(q_.size(), p_.size()), dnum),
      hash_(0) {
  log_qp_ = ring_->basis().product_bits();
  const RnsBasis& qb = ks_.q();
  const RnsBasis& pb = ks_.p();
  for (std::size_t l = 1; l < q_.size(); ++l) rescalers_.emplace_back(qb.prefix(l + 1));
  for (std::size_t l = 0; l < q_.size(); ++l) p_to_q_.emplace_back(pb, qb.prefix(l + 1));
  const mpz_class half_p = big_product(pb) / 2;
  for (std::size_t i = 0; i < q_.size(); ++i) {
    const std::uint64_t qi = q_[i];
    const std::uint64_t pm = pb.product_mod(qi);
    p_mod_q_.push_back(pm);
    p_inv_mod_q_.push_back(inverse_mod(pm, qi));
    half_p_mod_q_.push_back(mpz_class(half_p % qi).get_ui());
  }
  for (std::size_t r = 0; r < p_.size(); ++r) {
    half_p_mod_p_.push_back(mpz_class(half_p % p_[r]).get_ui());
  }
  if (sodium_init() < 0) throw Error("libsodium failed to initialise");
  const std::vector<std::uint8_t> fields = encode_fields();
  std::uint8_t digest[crypto_generichash_BYTES_MIN];
  crypto_generichash(digest, sizeof digest, fields.data(), fields.size(), nullptr, 0);
  for (int i = 0; i < 8; ++i) hash_ |= std::uint64_t{digest[i]} << (8 * i);
}

ParametersLiteral Parameters::literal() const {
  ParametersLiteral lit;
  lit.log_n = log_n_;
  if (!power_of_two()) lit.m = m_;
  lit.q = q_;
  lit.p = p_;
  lit.dnum = ks_.dnum();
  lit.hamming_weight = hamming_weight_;
  lit.security = security_;
  lit.transform = transform_;
  return lit;
}

std::size_t Parameters::security_n() const {
  std::size_t row = 1;
  while (row * 2 <= n_) row *= 2;
  return row;
}

std::vector<std::uint8_t> Parameters::encode_fields() const {
  std::vector<std::uint8_t> out;
  serial::Writer w(out);
  w.u32(static_cast<std::uint32_t>(log_n_));
  if (!power_of_two()) w.u64(m_);  // log_n = 0 announces an odd m
  w.u32(static_cast<std::uint32_t>(q_.size()));
  w.words(q_);
  w.u32(static_cast<std::uint32_t>(p_.size()));
  w.words(p_);
  w.u32(static_cast<std::uint32_t>(ks_.dnum()));
  w.u64(hamming_weight_);
  w.u8(static_cast<std::uint8_t>(security_));
  return out;
}

}  // namespace polyhe::rlwe
