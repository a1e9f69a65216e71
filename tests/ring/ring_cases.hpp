// Shared helpers for the ring tests: contexts of NTT primes and random polynomials from the
// seeded test generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/ring/context.hpp"
#include "polyhe/ring/poly.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {

/// A context of `limbs` distinct NTT primes of `bits` bits for x^n + 1.
inline std::shared_ptr<const RingContext> make_ring(std::size_t n, std::size_t limbs,
                                                    int bits = 50) {
  return RingContext::create(n, ntt_primes(bits, n, limbs));
}

/// A uniformly random polynomial (every limb uniform in [0, q_i)) in coefficient form.
inline RnsPoly random_poly(TestRng& rng, const std::shared_ptr<const RingContext>& ctx,
                           std::size_t limbs) {
  RnsPoly p(ctx, limbs);
  for (std::size_t i = 0; i < limbs; ++i) {
    const std::uint64_t q = ctx->basis().prime(i);
    for (std::uint64_t& w : p.limb(i)) w = rng.uniform(0, q - 1);
  }
  return p;
}

inline std::vector<std::uint64_t> to_vector(std::span<const std::uint64_t> s) {
  return {s.begin(), s.end()};
}

/// The ring sizes the parameterised tests cover.
inline const std::vector<std::size_t> kRingSizes = {2, 4, 16, 256, 1024};

}  // namespace polyhe::test
