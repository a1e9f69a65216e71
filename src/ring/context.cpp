#include "polyhe/ring/context.hpp"

#include <algorithm>
#include <bit>
#include <numeric>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"

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

RnsBasis checked_cyclotomic_basis(std::size_t m, std::span<const std::uint64_t> primes) {
  if (m % 2 == 0 || m < 3 || m > PowerfulNtt::kMaxM) {
    throw InvalidParameter("RingContext: cyclotomic index m = " + std::to_string(m) +
                           " must be odd in [3, " + std::to_string(PowerfulNtt::kMaxM) +
                           "] (powers of two: create(N, primes) for x^N + 1, m = 2N)");
  }
  if (primes.empty()) throw InvalidParameter("RingContext: the basis needs at least one prime");
  for (std::size_t i = 0; i < primes.size(); ++i) {
    if (primes[i] < 2 || primes[i] % m != 1) {
      throw InvalidParameter("RingContext: prime q_" + std::to_string(i) + " = " +
                             std::to_string(primes[i]) + " is not 1 mod m = " + std::to_string(m) +
                             ", so Phi_m does not split mod it (no slots)");
    }
  }
  return RnsBasis(primes);
}

}  // namespace

RingContext::RingContext(std::size_t n, RnsBasis basis)
    : n_(n), log_n_(bit_length(n) - 1), m_(2 * n), basis_(std::move(basis)) {
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

RingContext::RingContext(std::size_t m, RnsBasis basis, Decomposition force)
    : n_(static_cast<std::size_t>(euler_phi(m))), log_n_(0), m_(m), basis_(std::move(basis)) {
  for (std::size_t i = 0; i < basis_.size(); ++i) {
    powerful_.push_back(PowerfulNtt::create(m, basis_.prime(i), force));
  }
}

std::shared_ptr<const RingContext> RingContext::create_cyclotomic(
    std::size_t m, std::span<const std::uint64_t> primes, Decomposition force) {
  RnsBasis basis = checked_cyclotomic_basis(m, primes);
  return std::shared_ptr<const RingContext>(new RingContext(m, std::move(basis), force));
}

bool RingContext::device_serves() const {
  if (power_of_two()) return true;
  if (!std::has_single_bit(n_)) return false;
  return std::all_of(powerful_.begin(), powerful_.end(),
                     [](const auto& t) { return t->route() == PowerfulNtt::Route::fused; });
}

bool RingContext::is_galois_element(std::uint64_t k) const {
  if (power_of_two()) return k % 2 == 1 && k < m_;
  return k >= 1 && k < m_ && std::gcd(k, static_cast<std::uint64_t>(m_)) == 1;
}

std::string RingContext::galois_rule() const {
  if (power_of_two()) {
    return "odd and in [1, 2N) = [1, " + std::to_string(m_) +
           ") (x -> x^k is a ring automorphism of x^N + 1 only for odd k)";
  }
  return "in [1, m) = [1, " + std::to_string(m_) +
         ") and coprime to m (x -> x^k is an "
         "automorphism of Z[x]/Phi_m only for units k mod m)";
}

void RingContext::check_limb(std::size_t i, std::size_t words, const char* op) const {
  if (i >= basis_.size()) {
    throw InvalidParameter(std::string("RingContext::") + op + ": limb " + std::to_string(i) +
                           " does not exist; the ring has " + std::to_string(basis_.size()));
  }
  if (words != n_) {
    throw InvalidParameter(std::string("RingContext::") + op + ": " + std::to_string(words) +
                           " words for a limb of " + std::to_string(n_));
  }
}

void RingContext::forward(std::size_t i, std::span<u64> a) const {
  check_limb(i, a.size(), "forward");
  if (power_of_two()) {
    plans_[i]->forward(a);
  } else {
    powerful_[i]->forward(a);
  }
}

void RingContext::inverse(std::size_t i, std::span<u64> a) const {
  check_limb(i, a.size(), "inverse");
  if (power_of_two()) {
    plans_[i]->inverse(a);
  } else {
    powerful_[i]->inverse(a);
  }
}

void RingContext::inverse(std::size_t i, std::span<const u64> a, std::span<u64> out) const {
  check_limb(i, a.size(), "inverse");
  check_limb(i, out.size(), "inverse");
  if (power_of_two()) {
    plans_[i]->inverse(a, out);
    return;
  }
  std::copy(a.begin(), a.end(), out.begin());
  powerful_[i]->inverse(out);
}

void RingContext::forward_lifted(std::size_t i, std::span<const u64> x, u64 p,
                                 std::span<u64> out) const {
  check_limb(i, x.size(), "forward_lifted");
  if (power_of_two()) {
    plans_[i]->forward_lifted(x, p, out);
    return;
  }
  check_limb(i, out.size(), "forward_lifted");
  vec::lift_centred(x, p, out, basis_.modulus(i));
  powerful_[i]->forward(out);
}

void RingContext::forward_lifted(std::size_t i, std::span<const u64> x, u64 p,
                                 std::span<const u64> c, u64 s, std::span<u64> out,
                                 std::span<u64> work) const {
  check_limb(i, x.size(), "forward_lifted");
  if (power_of_two()) {
    plans_[i]->forward_lifted(x, p, c, s, out, work);
    return;
  }
  check_limb(i, work.size(), "forward_lifted");
  vec::lift_centred(x, p, work, basis_.modulus(i));
  powerful_[i]->forward(work);
  vec::sub_multiply_scalar(c, work, s, out, basis_.modulus(i));
}

namespace {

/// The batched transform of limbs `limbs` held in `data`, either direction, for either shape.
void transform_limbs(const RingContext& ring, std::span<std::uint64_t> data,
                     std::span<const std::size_t> limbs, bool inverse, const char* op) {
  const std::size_t n = ring.n();
  if (data.size() != limbs.size() * n) {
    throw InvalidParameter(std::string("RingContext::") + op + ": " + std::to_string(data.size()) +
                           " words for " + std::to_string(limbs.size()) + " limbs of " +
                           std::to_string(n));
  }
  for (const std::size_t i : limbs) {
    if (i >= ring.max_limbs()) {
      throw InvalidParameter(std::string("RingContext::") + op + ": limb " + std::to_string(i) +
                             " does not exist; the ring has " + std::to_string(ring.max_limbs()));
    }
  }
  const auto transform = [&](std::size_t j) {
    const auto limb = data.subspan(j * n, n);
    if (inverse) {
      ring.inverse(limbs[j], limb);
    } else {
      ring.forward(limbs[j], limb);
    }
  };
  if (detail::in_secret_scope()) {
    // Secret words pass through the kernels' per-thread scratch (core/wipe.hpp): the limbs go in
    // one contiguous chunk per thread, and each thread wipes its scratch after its chunk, before
    // it returns to the pool (even when a transform throws).
    struct WipeOnExit {
      WipeOnExit() = default;
      WipeOnExit(const WipeOnExit&) = delete;
      WipeOnExit& operator=(const WipeOnExit&) = delete;
      ~WipeOnExit() { detail::wipe_thread_scratch(); }
    };
    const std::size_t count = limbs.size();
    const std::size_t chunks = std::min<std::size_t>(count, thread_count());
    parallel_for(chunks, [&](std::size_t c) {
      const WipeOnExit wipe;
      for (std::size_t j = c * count / chunks; j < (c + 1) * count / chunks; ++j) transform(j);
    });
    return;
  }
  if (ring.power_of_two()) {
    std::vector<const NttPlan<std::uint64_t>*> plans;
    plans.reserve(limbs.size());
    for (const std::size_t i : limbs) plans.push_back(&ring.plan(i));
    if (inverse) {
      inverse_batch<std::uint64_t>(data, plans);
    } else {
      forward_batch<std::uint64_t>(data, plans);
    }
    return;
  }
  parallel_for(limbs.size(), transform);
}

}  // namespace

void RingContext::forward(std::span<u64> data, std::span<const std::size_t> limbs) const {
  transform_limbs(*this, data, limbs, false, "forward");
}

void RingContext::inverse(std::span<u64> data, std::span<const std::size_t> limbs) const {
  transform_limbs(*this, data, limbs, true, "inverse");
}

namespace {
std::vector<std::size_t> consecutive(std::size_t first, std::size_t words, std::size_t n) {
  std::vector<std::size_t> limbs(n == 0 ? 0 : words / n);
  for (std::size_t j = 0; j < limbs.size(); ++j) limbs[j] = first + j;
  return limbs;
}
}  // namespace

void RingContext::forward_from(std::size_t first, std::span<u64> data) const {
  if (data.empty()) return;
  forward(data, consecutive(first, data.size(), n_));
}

void RingContext::inverse_from(std::size_t first, std::span<u64> data) const {
  if (data.empty()) return;
  inverse(data, consecutive(first, data.size(), n_));
}

RingLevel RingContext::level(std::size_t l) const {
  if (l > max_level()) {
    throw InvalidParameter("RingContext: level " + std::to_string(l) +
                           " does not exist; levels are 0.." + std::to_string(max_level()));
  }
  return RingLevel{shared_from_this(), l + 1, basis_.prefix(l + 1)};
}

}  // namespace polyhe
