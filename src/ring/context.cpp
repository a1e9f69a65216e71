#include "polyhe/ring/context.hpp"

#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {

namespace {

void check_n(std::size_t n) {
  if (!is_power_of_two(n) || n < RingContext::kMinN || n > RingContext::kMaxN) {
    throw InvalidParameter("RingContext: N = " + std::to_string(n) +
                           " must be a power of two in [" + std::to_string(RingContext::kMinN) +
                           ", " + std::to_string(RingContext::kMaxN) + "]");
  }
}

RnsBasis checked_basis(std::size_t n, std::span<const std::uint64_t> primes) {
  check_n(n);
  if (primes.empty()) throw InvalidParameter("RingContext: the basis needs at least one prime");
  const std::uint64_t two_n = 2 * static_cast<std::uint64_t>(n);
  for (std::size_t i = 0; i < primes.size(); ++i) {
    const std::uint64_t q = primes[i];
    if (q < 2 || q % two_n != 1) {
      throw InvalidParameter("RingContext: prime q_" + std::to_string(i) + " = " +
                             std::to_string(q) + " is not 1 mod 2N = " + std::to_string(two_n) +
                             ", so x^N + 1 does not split mod it (no negacyclic NTT)");
    }
  }
  return RnsBasis(primes);  // primality, width and distinctness
}

}  // namespace

RingContext::RingContext(std::size_t n, RnsBasis basis)
    : n_(n), log_n_(bit_length(n) - 1), basis_(std::move(basis)) {
  for (std::size_t i = 0; i < basis_.size(); ++i) {
    plans_.push_back(NttPlan<std::uint64_t>::create(n_, basis_.prime(i)));
    plan_ptrs_.push_back(plans_.back().get());
  }
}

std::shared_ptr<const RingContext> RingContext::create(std::size_t n,
                                                       std::span<const std::uint64_t> primes) {
  RnsBasis basis = checked_basis(n, primes);
  return std::shared_ptr<const RingContext>(new RingContext(n, std::move(basis)));
}

RingLevel RingContext::level(std::size_t l) const {
  if (l > max_level()) {
    throw InvalidParameter("RingContext: level " + std::to_string(l) +
                           " does not exist; levels are 0.." + std::to_string(max_level()));
  }
  return RingLevel{shared_from_this(), l + 1, basis_.prefix(l + 1)};
}

}  // namespace polyhe
