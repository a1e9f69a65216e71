// The big-integer half of an RnsBasis's CRT constants (internal to polyhe_rns): Q and q̂_i = Q/q_i
// as GMP integers, built with the basis and read through rns/bigint.hpp, so that no public header
// but bigint.hpp includes GMP.
#pragma once

#include <gmpxx.h>

#include <vector>

namespace polyhe::detail {

struct BigCrt {
  mpz_class product;
  std::vector<mpz_class> q_hat;
};

}  // namespace polyhe::detail
