#include "polyhe/rns/bigint.hpp"

#include <string>

#include "big_crt.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/rns/decrypt_rounder.hpp"

namespace polyhe {

const mpz_class& big_product(const RnsBasis& basis) {
  return basis.big_crt().product;
}

const mpz_class& big_q_hat(const RnsBasis& basis, std::size_t i) {
  return basis.big_crt().q_hat[i];
}

mpz_class bfv_max_noise(const BfvDecryptRounder& rounder) {
  const mpz_class& big_q = big_product(rounder.basis());
  const std::uint64_t t = rounder.plain_modulus();
  const mpz_class r = static_cast<unsigned long>(mpz_fdiv_ui(big_q.get_mpz_t(), t));
  const mpz_class g = static_cast<unsigned long>(rounder.gamma());
  const mpz_class numerator = g * big_q -
                              2 * static_cast<unsigned long>(rounder.basis().size()) * big_q -
                              2 * g * r * static_cast<unsigned long>(t - 1);
  const mpz_class denominator = 2 * g * static_cast<unsigned long>(t);
  mpz_class out;
  mpz_fdiv_q(out.get_mpz_t(), numerator.get_mpz_t(), denominator.get_mpz_t());
  return out;
}

namespace {

std::size_t coefficient_count(std::size_t words, const RnsBasis& basis, const char* what) {
  if (words == 0 || words % basis.size() != 0) {
    throw InvalidParameter(std::string(what) + ": " + std::to_string(words) +
                           " words are not a whole, non-zero number of limbs for " +
                           std::to_string(basis.size()) + " primes");
  }
  return words / basis.size();
}

mpz_class compose(std::span<const std::uint64_t> limbs, const RnsBasis& basis, std::size_t n,
                  std::size_t index) {
  mpz_class x = 0;
  for (std::size_t i = 0; i < basis.size(); ++i) {
    const std::uint64_t qi = basis.prime(i);
    const std::uint64_t t = mul_shoup(limbs[i * n + index] % qi, basis.q_hat_inverse(i), qi);
    mpz_addmul_ui(x.get_mpz_t(), big_q_hat(basis, i).get_mpz_t(), t);
  }
  mpz_mod(x.get_mpz_t(), x.get_mpz_t(), big_product(basis).get_mpz_t());
  return x;
}

}  // namespace

mpz_class to_bigint(std::span<const std::uint64_t> limbs, const RnsBasis& basis,
                    std::size_t index) {
  const std::size_t n = coefficient_count(limbs.size(), basis, "to_bigint");
  if (index >= n) {
    throw InvalidParameter("to_bigint: coefficient index " + std::to_string(index) +
                           " is not below N = " + std::to_string(n));
  }
  return compose(limbs, basis, n, index);
}

std::vector<mpz_class> to_bigint(std::span<const std::uint64_t> limbs, const RnsBasis& basis) {
  const std::size_t n = coefficient_count(limbs.size(), basis, "to_bigint");
  std::vector<mpz_class> out;
  out.reserve(n);
  for (std::size_t c = 0; c < n; ++c) out.push_back(compose(limbs, basis, n, c));
  return out;
}

mpz_class centre(const mpz_class& x, const mpz_class& m) {
  mpz_class r;
  mpz_fdiv_r(r.get_mpz_t(), x.get_mpz_t(), m.get_mpz_t());  // [0, m)
  if (2 * r > m) r -= m;
  return r;
}

std::vector<mpz_class> to_bigint_centred(std::span<const std::uint64_t> limbs,
                                         const RnsBasis& basis) {
  auto out = to_bigint(limbs, basis);
  for (auto& x : out) {
    if (2 * x > big_product(basis)) x -= big_product(basis);
  }
  return out;
}

void from_bigint(std::span<const mpz_class> values, const RnsBasis& basis,
                 std::span<std::uint64_t> out) {
  const std::size_t n = values.size();
  if (n == 0 || out.size() != basis.size() * n) {
    throw InvalidParameter("from_bigint: " + std::to_string(out.size()) + " output words for " +
                           std::to_string(n) + " values over " + std::to_string(basis.size()) +
                           " primes; expected |basis|·N > 0");
  }
  for (std::size_t i = 0; i < basis.size(); ++i) {
    const std::uint64_t qi = basis.prime(i);
    for (std::size_t c = 0; c < n; ++c) out[i * n + c] = mpz_fdiv_ui(values[c].get_mpz_t(), qi);
  }
}

}  // namespace polyhe
