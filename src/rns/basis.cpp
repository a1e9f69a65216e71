#include "polyhe/rns/basis.hpp"

#include <string>
#include <unordered_set>

#include "big_crt.hpp"
#include "gmp_memory.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {

namespace {

std::uint64_t mpz_mod_u64(const mpz_class& x, std::uint64_t m) {
  static_assert(sizeof(unsigned long) == sizeof(std::uint64_t), "GMP's ui must be 64-bit");
  return mpz_fdiv_ui(x.get_mpz_t(), m);  // floor remainder: in [0, m) for either sign of x
}

void check_distinct(std::span<const Modulus<std::uint64_t>> moduli) {
  std::unordered_set<std::uint64_t> seen;
  for (std::size_t i = 0; i < moduli.size(); ++i) {
    if (!seen.insert(moduli[i].value()).second) {
      throw InvalidParameter("RnsBasis: prime q = " + std::to_string(moduli[i].value()) +
                             " appears twice (limb " + std::to_string(i) +
                             "); the primes of a basis must be distinct");
    }
  }
}

void check_size(std::size_t primes) {
  if (primes > RnsBasis::kMaxPrimes) {
    throw InvalidParameter("RnsBasis: " + std::to_string(primes) + " primes exceed the limit of " +
                           std::to_string(RnsBasis::kMaxPrimes) + " (RnsBasis::kMaxPrimes)");
  }
}

}  // namespace

RnsBasis::RnsBasis(std::span<const std::uint64_t> primes) : offset_(0), size_(primes.size()) {
  if (primes.empty()) throw InvalidParameter("RnsBasis: the basis is empty; it needs ≥ 1 prime");
  check_size(primes.size());
  auto table = std::make_shared<Table>();
  table->reserve(primes.size());
  for (std::size_t i = 0; i < primes.size(); ++i) {
    const std::uint64_t q = primes[i];
    if (bit_length(q) > kMaxBits) {
      throw InvalidParameter("RnsBasis: q = " + std::to_string(q) + " (limb " + std::to_string(i) +
                             ") has " + std::to_string(bit_length(q)) + " bits; at most " +
                             std::to_string(kMaxBits) + " allowed");
    }
    if (!is_prime(q)) {
      throw InvalidParameter("RnsBasis: q = " + std::to_string(q) + " (limb " + std::to_string(i) +
                             ") is not prime");
    }
    table->emplace_back(q);
  }
  check_distinct(*table);
  table_ = std::move(table);
  crt_ = make_crt(moduli());
}

RnsBasis::RnsBasis(std::shared_ptr<const Table> table, std::size_t offset, std::size_t size)
    : table_(std::move(table)), offset_(offset), size_(size) {
  crt_ = make_crt(moduli());
}

std::shared_ptr<const RnsBasis::Crt> RnsBasis::make_crt(
    std::span<const Modulus<std::uint64_t>> moduli) {
  detail::use_throwing_gmp_allocator();
  auto crt = std::make_shared<Crt>();
  auto big = std::make_shared<detail::BigCrt>();
  big->product = 1;
  for (const auto& m : moduli) big->product *= static_cast<unsigned long>(m.value());
  crt->product_bits = static_cast<int>(mpz_sizeinbase(big->product.get_mpz_t(), 2));
  for (const auto& m : moduli) {
    const std::uint64_t q = m.value();
    mpz_class hat;
    mpz_divexact_ui(hat.get_mpz_t(), big->product.get_mpz_t(), q);
    const std::uint64_t inv = inverse_mod(mpz_mod_u64(hat, q), q);
    big->q_hat.push_back(std::move(hat));
    crt->q_hat_inv.push_back(make_shoup(inv, q));
    crt->q_hat_inv_words.push_back(inv);
  }
  crt->big = std::move(big);
  return crt;
}

std::vector<std::uint64_t> RnsBasis::primes() const {
  std::vector<std::uint64_t> out;
  out.reserve(size_);
  for (const auto& m : moduli()) out.push_back(m.value());
  return out;
}

std::uint64_t RnsBasis::q_hat_mod(std::size_t i, std::uint64_t m) const {
  return mpz_mod_u64(crt_->big->q_hat[i], m);
}

std::uint64_t RnsBasis::product_mod(std::uint64_t m) const {
  return mpz_mod_u64(crt_->big->product, m);
}

RnsBasis RnsBasis::range(std::size_t begin, std::size_t count) const {
  if (count == 0 || begin > size_ || count > size_ - begin) {
    throw InvalidParameter("RnsBasis::range: [" + std::to_string(begin) + ", " +
                           std::to_string(begin + count) + ") is empty or outside a basis of " +
                           std::to_string(size_) + " primes");
  }
  if (begin == 0 && count == size_) return *this;
  return RnsBasis(table_, offset_ + begin, count);
}

RnsBasis RnsBasis::concat(const RnsBasis& a, const RnsBasis& b) {
  check_size(a.size() + b.size());
  auto table = std::make_shared<Table>();
  table->reserve(a.size() + b.size());
  for (const auto& m : a.moduli()) table->push_back(m);
  for (const auto& m : b.moduli()) table->push_back(m);
  check_distinct(*table);  // each part was validated when it was made
  const std::size_t n = table->size();
  return RnsBasis(std::move(table), 0, n);
}

std::size_t RnsBasis::find(std::uint64_t q) const {
  for (std::size_t i = 0; i < size_; ++i) {
    if (prime(i) == q) return i;
  }
  return size_;
}

bool operator==(const RnsBasis& a, const RnsBasis& b) {
  if (a.size_ != b.size_) return false;
  for (std::size_t i = 0; i < a.size_; ++i) {
    if (a.prime(i) != b.prime(i)) return false;
  }
  return true;
}

}  // namespace polyhe
