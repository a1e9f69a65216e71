// Only the NTT layer (polyhe::ntt): a negacyclic product.
#include <polyhe/arith/primes.hpp>
#include <polyhe/ntt/plan.hpp>
#include <polyhe/ntt/polymul.hpp>

#include <vector>

int main() {
  const std::size_t n = 1024;
  const std::uint64_t q = polyhe::ntt_primes(50, n, 1)[0];
  auto plan = polyhe::NttPlan<std::uint64_t>::create(n, q);
  std::vector<std::uint64_t> a(n, 0), b(n, 0), c(n);
  a[n - 1] = 1;                                    // x^(n-1)
  b[1] = 1;                                        // x
  polyhe::polymul<std::uint64_t>(a, b, c, *plan);  // x^n = -1
  return c[0] == q - 1 ? 0 : 1;
}
