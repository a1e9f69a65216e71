// The README's example, built and run as a test so it cannot rot.
#include <polyhe/polyhe.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::size_t n = 4096;
  const std::uint64_t q = polyhe::ntt_primes(60, n, 1)[0];   // a 60-bit prime, q ≡ 1 mod 2n
  auto plan = polyhe::NttPlan<std::uint64_t>::create(n, q);  // twiddle tables, built once
  std::vector<std::uint64_t> a(n, 1), b(n, 0), c(n);
  b[1] = 1;                               // b = x
  polyhe::polymul(a, b, c, *plan);        // c = a·b mod (x^n + 1, q)
  polyhe::polymul_fused(a, b, c, *plan);  // the same, by [GPU-Polymul, Alg. 8]
  std::printf("c[0] = %llu (= q - 1: x^(n-1)·x wraps to -1), c[1] = %llu\n",
              static_cast<unsigned long long>(c[0]), static_cast<unsigned long long>(c[1]));
  return (c[0] == q - 1 && c[1] == 1) ? 0 : 1;
}
