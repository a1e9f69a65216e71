// Balanced mixed-radix digits (rns/mixed_radix.hpp).
#include "polyhe/rns/mixed_radix.hpp"

#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe {

MixedRadix::MixedRadix(const RnsBasis& basis) {
  for (std::size_t i = 0; i < basis.size(); ++i) {
    const std::uint64_t qi = basis.prime(i);
    moduli_.push_back(basis.modulus(i));
    for (std::size_t j = 0; j < i; ++j) {
      inverses_.push_back(make_shoup<std::uint64_t>(inverse_mod(basis.prime(j) % qi, qi), qi));
    }
  }
}

void MixedRadix::refuse(std::size_t count, std::size_t primes) const {
  throw InvalidParameter("MixedRadix::digits: " + std::to_string(count) + " coefficients over " +
                         std::to_string(primes) + " primes; at most " + std::to_string(kBlock) +
                         " over at most " + std::to_string(moduli_.size()));
}

}  // namespace polyhe
