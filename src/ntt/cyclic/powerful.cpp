// PowerfulNtt: the powerful-basis evaluation transform of Z_q[X]/Φ_m, one small cyclotomic
// transform per prime-power factor along its dimension (ntt/cyclic/powerful.hpp).
#include "polyhe/ntt/cyclic/powerful.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/word.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/wipe.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"
#include "powerful_fused.hpp"
#include "shared_tables.hpp"

namespace polyhe {

namespace {

using u64 = std::uint64_t;

/// Per-thread buffers of the transforms (a factor's padded row and its plan's scratch), wiped
/// after secret transforms (core/wipe.hpp).
std::span<u64> thread_buffer(std::size_t slot, std::size_t words) {
  thread_local detail::ThreadScratch buffers[3];
  return std::span<u64>(static_cast<u64*>(buffers[slot].get(words * sizeof(u64))), words);
}

/// x − y mod q for x, y < q without a branch (the folds run on random words: a branch on the
/// borrow mispredicts half the time, which cost the length-m inverse 1.5× its transform).
inline u64 sub_mod_branchless(u64 x, u64 y, u64 q) {
  const u64 d = x - y;
  return d + (q & (u64{0} - static_cast<u64>(x < y)));
}

}  // namespace

std::vector<u64> prime_power_factors(u64 m) {
  std::vector<u64> out;
  if (m <= 1) return out;
  for (const u64 p : prime_factors(m)) {
    u64 pe = 1;
    while (m % p == 0) {
      m /= p;
      pe *= p;
    }
    out.push_back(pe);
  }
  return out;
}

u64 euler_phi(u64 m) {
  if (m == 0) throw InvalidParameter("euler_phi: m = 0; φ is defined for m ≥ 1");
  u64 phi = m;
  for (const u64 p : prime_factors(m)) phi = phi / p * (p - 1);
  return phi;
}

std::vector<u64> powerful_exponents(u64 m) {
  const auto factors = prime_power_factors(m);
  std::vector<u64> out{0};
  for (const u64 mi : factors) {
    const u64 step = m / mi;
    const u64 phi = euler_phi(mi);
    std::vector<u64> next;
    next.reserve(out.size() * phi);
    for (const u64 e : out) {
      for (u64 j = 0; j < phi; ++j) next.push_back((e + j * step) % m);
    }
    out = std::move(next);
  }
  return out;
}

std::vector<u64> power_to_powerful(u64 m, std::span<const u64> power, u64 t) {
  const auto factors = prime_power_factors(m);
  const u64 phi = euler_phi(m);
  if (m < 3 || m % 2 == 0 || power.size() != phi) {
    throw InvalidParameter("power_to_powerful: " + std::to_string(power.size()) +
                           " coefficients for m = " + std::to_string(m) +
                           " (odd m >= 3 with phi(m) = " + std::to_string(phi) + " coefficients)");
  }
  // A grid of Π m_i = m cells, row-major over the factors: cell Σ c_i·S_i holds Π x_i^(c_i).
  const std::size_t r = factors.size();
  std::vector<u64> grid_stride(r), inv(r), phis(r), primes(r);
  u64 stride = m;
  for (std::size_t i = 0; i < r; ++i) {
    stride /= factors[i];
    grid_stride[i] = stride;
    const u64 cofactor = m / factors[i];
    inv[i] = factors[i] == 1 ? 0 : inverse_mod(cofactor % factors[i], factors[i]);
    phis[i] = euler_phi(factors[i]);
    primes[i] = prime_factors(factors[i]).front();
  }
  std::vector<u64> grid(m, 0);
  for (u64 k = 0; k < phi; ++k) {
    u64 cell = 0;
    for (std::size_t i = 0; i < r; ++i)
      cell += (k % factors[i]) * inv[i] % factors[i] * grid_stride[i];
    grid[cell] = power[k] % t;
  }
  // Along each dimension: x^((p−1)·P + c) = −Σ_(j<p−1) x^(j·P + c).
  for (std::size_t i = 0; i < r; ++i) {
    const u64 mi = factors[i];
    const u64 big_p = mi / primes[i];
    const u64 block = mi * grid_stride[i];
    for (u64 outer = 0; outer < m; outer += block) {
      for (u64 inner = 0; inner < grid_stride[i]; ++inner) {
        u64* const row = grid.data() + outer + inner;
        for (u64 c = 0; c < big_p; ++c) {
          const u64 top = row[((primes[i] - 1) * big_p + c) * grid_stride[i]];
          if (top == 0) continue;
          row[((primes[i] - 1) * big_p + c) * grid_stride[i]] = 0;
          for (u64 j = 0; j + 1 < primes[i]; ++j) {
            u64& x = row[(j * big_p + c) * grid_stride[i]];
            x = x >= top ? x - top : x + t - top;
          }
        }
      }
    }
  }
  // The cells with every c_i < φ(m_i), in the powerful layout's row-major order.
  std::vector<u64> out;
  out.reserve(phi);
  std::vector<u64> digit(r, 0);
  for (u64 j = 0; j < phi; ++j) {
    u64 cell = 0;
    for (std::size_t i = 0; i < r; ++i) cell += digit[i] * grid_stride[i];
    out.push_back(grid[cell]);
    for (std::size_t i = r; i-- > 0;) {
      if (++digit[i] < phis[i]) break;
      digit[i] = 0;
    }
  }
  return out;
}

u64 powerful_ntt_modulus(u64 m) {
  u64 l = m;
  std::vector<u64> pending = prime_factors(m);
  while (!pending.empty()) {
    const u64 p = pending.back();
    pending.pop_back();
    if (p <= 5) continue;
    if (l % (p - 1) != 0) l = std::lcm(l, p - 1);
    for (const u64 r : prime_factors(p - 1)) pending.push_back(r);
  }
  return l;
}

std::vector<u64> powerful_ntt_primes(u64 m, int bits, std::size_t count,
                                     std::span<const u64> exclude) {
  if (bits < 2 || bits > 62) {
    throw InvalidParameter("prime size " + std::to_string(bits) + " bits is outside [2, 62]");
  }
  const u64 l = powerful_ntt_modulus(m);
  std::vector<u64> out;
  const u64 top = (u64{1} << bits) - 1;
  const u64 bottom = u64{1} << (bits - 1);
  if (top > l) {
    // The largest q ≤ top with q ≡ 1 mod l, stepping down.
    for (u64 q = (top - 1) / l * l + 1; q >= bottom && out.size() < count; q -= l) {
      if (is_prime(q) && std::find(exclude.begin(), exclude.end(), q) == exclude.end()) {
        out.push_back(q);
      }
      if (q < l + bottom) break;
    }
  }
  if (out.size() < count) {
    throw InvalidParameter("only " + std::to_string(out.size()) + " primes of " +
                           std::to_string(bits) + " bits are 1 mod " + std::to_string(l) +
                           " (what m = " + std::to_string(m) + "'s transforms need); " +
                           std::to_string(count) + " were asked for: use wider primes");
  }
  return out;
}

std::shared_ptr<const PowerfulNtt> PowerfulNtt::create(std::size_t m, u64 q, Decomposition force) {
  return create(m, q, force, Route::automatic);
}

std::shared_ptr<const PowerfulNtt> PowerfulNtt::create(std::size_t m, u64 q, Decomposition force,
                                                       Route route) {
  if (m % 2 == 0 || m < 3 || m > kMaxM) {
    throw InvalidParameter("powerful-basis transform: m = " + std::to_string(m) +
                           " must be odd in [3, " + std::to_string(kMaxM) + "]");
  }
  if (bit_length(q) > 62) {
    throw InvalidParameter("q = " + std::to_string(q) + " has more than 62 bits");
  }
  if (!is_prime(q)) throw InvalidParameter("q = " + std::to_string(q) + " is not a prime");
  if ((q - 1) % m != 0) {
    throw InvalidParameter("q = " + std::to_string(q) + " is not 1 mod m = " + std::to_string(m) +
                           ": no primitive m-th root of unity");
  }
  return std::shared_ptr<const PowerfulNtt>(new PowerfulNtt(m, q, force, route));
}

PowerfulNtt::PowerfulNtt(std::size_t m, u64 q, Decomposition force, Route route)
    : m_(m), degree_(euler_phi(m)), mod_(q), omega_(primitive_nth_root(q, m)) {
  const auto pf = prime_power_factors(m);
  std::size_t stride = degree_;
  for (const u64 mi64 : pf) {
    const auto mi = static_cast<std::size_t>(mi64);
    Factor f;
    f.m = mi;
    f.p = static_cast<std::size_t>(prime_factors(mi).front());
    f.phi = static_cast<std::size_t>(euler_phi(mi));
    stride /= f.phi;
    f.stride = stride;
    const u64 omega_i = pow_mod(omega_, m / mi, q);
    const bool forced = force != Decomposition::automatic && f.p == mi && mi > 5;
    f.plan = CyclicNttPlan::create(mi, q, omega_i, forced ? force : Decomposition::automatic);
    f.primitive = cyclic::shared_table<std::size_t>(cyclic::SharedTableKind::primitive, mi, 0, [&] {
      std::vector<std::size_t> units;
      units.reserve(f.phi);
      for (std::size_t k = 1; k < mi; ++k) {
        if (k % f.p != 0) units.push_back(k);
      }
      return units;
    });
    f.m_inv = make_shoup<u64>(inverse_mod(mi % q, q), q);
    buffer_words_ = std::max(buffer_words_, mi);
    scratch_words_ = std::max(scratch_words_, f.plan->scratch_size());
    factors_.push_back(mi);
    factor_data_.push_back(std::move(f));
  }
  // Slot exponents: row-major over (k_1, …, k_r), k the CRT combination of the k_i.
  slot_k_ = cyclic::shared_table<std::size_t>(cyclic::SharedTableKind::slot_exponents, m, 0, [&] {
    std::vector<std::size_t> slots(1, 0);
    std::size_t modulus = 1;
    for (const Factor& f : factor_data_) {
      std::vector<std::size_t> next;
      next.reserve(slots.size() * f.phi);
      // k ≡ k_prev mod `modulus`, k ≡ k_i mod f.m: k = k_prev + modulus·((k_i − k_prev)·
      // modulus^−1 mod f.m).
      const u64 inv = modulus == 1 ? 0 : inverse_mod(modulus % f.m, f.m);
      for (const std::size_t kp : slots) {
        for (const std::size_t ki : *f.primitive) {
          const u64 diff = (ki + f.m - kp % f.m) % f.m;
          const u64 t = modulus == 1 ? ki : (diff * inv) % f.m;
          next.push_back(modulus == 1 ? ki : kp + modulus * static_cast<std::size_t>(t));
        }
      }
      slots = std::move(next);
      modulus *= f.m;
    }
    return slots;
  });
  // The fused route: when forced (it must apply), or automatically where it applies (a forced
  // factor decomposition keeps the per-factor route, which is what it tests).
  if (route == Route::fused || (route == Route::automatic && force == Decomposition::automatic)) {
    fused_ = cyclic::make_powerful_tables(m, q, omega_);
    if (route == Route::fused && !fused_) {
      throw InvalidParameter(
          "PowerfulNtt: the fused route does not apply to m = " + std::to_string(m) +
          ", q = " + std::to_string(q) +
          " (it needs at least two factors, each an odd prime power <= 31 or a prime p with p - 1 "
          "a power of two dividing q - 1, and the last factor's phi and phi(m) over it multiples "
          "of 8)");
    }
    if (fused_) {
      route_ = Route::fused;
      scratch_words_ = std::max(scratch_words_, fused_->scratch_words());
      return;
    }
  }
  // The length-m route: when forced, or automatically when m's plan runs flattened.
  // The length-m plan is made once, whether to look at it or to keep it.
  if (route == Route::length_m ||
      (route == Route::automatic && force == Decomposition::automatic && factor_data_.size() > 1)) {
    cyclic_ = CyclicNttPlan::create(m, q, omega_, Decomposition::automatic);
  }
  if (route == Route::automatic) {
    route = cyclic_ && cyclic_->flattened() ? Route::length_m : Route::per_factor;
  }
  route_ = route;
  if (route_ != Route::length_m) cyclic_.reset();
  if (route_ == Route::length_m) {
    exponent_ =
        cyclic::shared_table<std::uint32_t>(cyclic::SharedTableKind::powerful_exponents, m, 0, [m] {
          const auto e = powerful_exponents(m);
          return std::vector<std::uint32_t>(e.begin(), e.end());
        });
    const std::size_t r = factor_data_.size();
    grid_stride_.resize(r);
    std::size_t grid_step = m;
    for (std::size_t i = 0; i < r; ++i) {
      grid_step /= factor_data_[i].m;
      grid_stride_[i] = grid_step;
    }
    cell_of_power_ =
        cyclic::shared_table<std::uint32_t>(cyclic::SharedTableKind::cell_of_power, m, 0, [&] {
          std::vector<u64> inv(r);
          for (std::size_t i = 0; i < r; ++i) {
            const std::size_t mi = factor_data_[i].m;
            inv[i] = r == 1 ? 1 : inverse_mod((m / mi) % mi, mi);
          }
          std::vector<std::uint32_t> cells(m);
          for (std::size_t k = 0; k < m; ++k) {
            std::size_t cell = 0;
            for (std::size_t i = 0; i < r; ++i) {
              const std::size_t mi = factor_data_[i].m;
              cell += static_cast<std::size_t>((k % mi) * inv[i] % mi) * grid_stride_[i];
            }
            cells[k] = static_cast<std::uint32_t>(cell);
          }
          return cells;
        });
    cell_of_coordinate_ =
        cyclic::shared_table<std::uint32_t>(cyclic::SharedTableKind::cell_of_coordinate, m, 0, [&] {
          std::vector<std::uint32_t> cells(degree_);
          std::vector<std::size_t> digit(r, 0);
          for (std::size_t j = 0; j < degree_; ++j) {
            std::size_t cell = 0;
            for (std::size_t i = 0; i < r; ++i) cell += digit[i] * grid_stride_[i];
            cells[j] = static_cast<std::uint32_t>(cell);
            for (std::size_t i = r; i-- > 0;) {
              if (++digit[i] < factor_data_[i].phi) break;
              digit[i] = 0;
            }
          }
          return cells;
        });
    buffer_words_ = std::max(buffer_words_, m);
    scratch_words_ = std::max(scratch_words_, cyclic_->scratch_size());
  }
}

void PowerfulNtt::forward_length_m(std::span<u64> a) const {
  const auto buf = thread_buffer(0, m_);
  const auto scratch = thread_buffer(1, scratch_words_);
  std::fill(buf.begin(), buf.end(), u64{0});
  const std::vector<std::uint32_t>& exponent = *exponent_;
  const std::vector<std::size_t>& slot_k = *slot_k_;
  for (std::size_t j = 0; j < degree_; ++j) buf[exponent[j]] = a[j];
  cyclic_->forward_with(buf, scratch);
  for (std::size_t t = 0; t < degree_; ++t) a[t] = buf[slot_k[t]];
}

void PowerfulNtt::inverse_length_m(std::span<u64> a) const {
  const u64 q = mod_.value();
  const auto buf = thread_buffer(0, m_);
  const auto scratch = thread_buffer(1, scratch_words_);
  std::fill(buf.begin(), buf.end(), u64{0});
  const std::vector<std::size_t>& slot_k = *slot_k_;
  for (std::size_t t = 0; t < degree_; ++t) buf[slot_k[t]] = a[t];
  cyclic_->inverse_with(buf, scratch);  // C, degree < m, C ≡ a mod Φ_m
  // C's monomials on the CRT grid, then each dimension's top block folded down by Φ_(m_i).
  const auto grid = thread_buffer(2, m_);
  const std::vector<std::uint32_t>& cell_of_power = *cell_of_power_;
  for (std::size_t k = 0; k < m_; ++k) grid[cell_of_power[k]] = buf[k];
  for (std::size_t i = 0; i < factor_data_.size(); ++i) {
    const Factor& f = factor_data_[i];
    const std::size_t s = grid_stride_[i];
    const std::size_t big_p = f.m / f.p;
    const std::size_t block = f.m * s;
    for (std::size_t outer = 0; outer < m_; outer += block) {
      for (std::size_t c = 0; c < big_p; ++c) {
        u64* const top = grid.data() + outer + ((f.p - 1) * big_p + c) * s;
        for (std::size_t j = 0; j + 1 < f.p; ++j) {
          u64* const row = grid.data() + outer + (j * big_p + c) * s;
          for (std::size_t inner = 0; inner < s; ++inner) {
            const u64 x = row[inner];
            const u64 y = top[inner];
            row[inner] = sub_mod_branchless(x, y, q);
          }
        }
      }
    }
  }
  const std::vector<std::uint32_t>& cell_of_coordinate = *cell_of_coordinate_;
  for (std::size_t j = 0; j < degree_; ++j) a[j] = grid[cell_of_coordinate[j]];
}

std::string PowerfulNtt::decomposition() const {
  std::string s;
  for (const Factor& f : factor_data_) {
    if (!s.empty()) s += " (x) ";
    s += std::to_string(f.m) + ": " + f.plan->decomposition();
  }
  return s;
}

void PowerfulNtt::check_size(std::span<const u64> a, const char* op) const {
  if (a.size() != degree_) {
    throw InvalidParameter(std::string("PowerfulNtt::") + op + ": " + std::to_string(a.size()) +
                           " words given; Z_q[X]/Phi_" + std::to_string(m_) +
                           " has phi(m) = " + std::to_string(degree_));
  }
}

// Every row of dimension i — the φ(m_i) words at base + t·s_i — zero-padded to m_i, transformed,
// and its values at the primitive m_i-th roots written back in their place.
void PowerfulNtt::forward_dimension(const Factor& f, std::span<u64> a, std::span<u64> buf,
                                    std::span<u64> scratch) const {
  const std::vector<std::size_t>& primitive = *f.primitive;
  const std::size_t block = f.phi * f.stride;
  for (std::size_t outer = 0; outer < degree_; outer += block) {
    for (std::size_t r = 0; r < f.stride; ++r) {
      u64* const row = a.data() + outer + r;
      for (std::size_t t = 0; t < f.phi; ++t) buf[t] = row[t * f.stride];
      std::fill(buf.begin() + static_cast<std::ptrdiff_t>(f.phi), buf.end(), u64{0});
      f.plan->forward_with(buf, scratch);
      for (std::size_t t = 0; t < f.phi; ++t) row[t * f.stride] = buf[primitive[t]];
    }
  }
}

// The inverse along dimension i: the values scattered to the primitive positions (zeros at the
// others), the inverse length-m_i transform — by ω_i read backwards, times m_i^−1 — and the
// reduction mod Φ_(p^e): with P = p^(e−1), x^((p−1)·P + r) = −Σ_(c<p−1) x^(c·P + r).
void PowerfulNtt::inverse_dimension(const Factor& f, std::span<u64> a, std::span<u64> buf,
                                    std::span<u64> scratch) const {
  const u64 q = mod_.value();
  const std::vector<std::size_t>& primitive = *f.primitive;
  const std::size_t block = f.phi * f.stride;
  const std::size_t big_p = f.m / f.p;
  for (std::size_t outer = 0; outer < degree_; outer += block) {
    for (std::size_t r = 0; r < f.stride; ++r) {
      u64* const row = a.data() + outer + r;
      std::fill(buf.begin(), buf.end(), u64{0});
      // buf'[k] = value at ω_i^(−k): forward by ω_i of the reversed input is the inverse.
      for (std::size_t t = 0; t < f.phi; ++t) {
        const std::size_t k = primitive[t];
        buf[(f.m - k) % f.m] = row[t * f.stride];
      }
      f.plan->forward_with(buf, scratch);
      for (std::size_t c = 0; c < big_p; ++c) {
        const u64 top = buf[(f.p - 1) * big_p + c];
        for (std::size_t j = 0; j + 1 < f.p; ++j) {
          u64& x = buf[j * big_p + c];
          x = sub_mod_branchless(x, top, q);
        }
      }
      for (std::size_t t = 0; t < f.phi; ++t) row[t * f.stride] = mul_shoup(buf[t], f.m_inv, q);
    }
  }
}

void PowerfulNtt::forward(std::span<u64> a) const {
  check_size(a, "forward");
  if (route_ == Route::fused) {
    cyclic::run_powerful(*fused_, a, thread_buffer(1, scratch_words_), false);
    return;
  }
  if (route_ == Route::length_m) {
    forward_length_m(a);
    return;
  }
  const auto buf = thread_buffer(0, buffer_words_);
  const auto scratch = thread_buffer(1, scratch_words_);
  for (const Factor& f : factor_data_) {
    forward_dimension(f, a, buf.first(f.m), scratch);
  }
}

void PowerfulNtt::inverse(std::span<u64> a) const {
  check_size(a, "inverse");
  if (route_ == Route::fused) {
    cyclic::run_powerful(*fused_, a, thread_buffer(1, scratch_words_), true);
    return;
  }
  if (route_ == Route::length_m) {
    inverse_length_m(a);
    return;
  }
  const auto buf = thread_buffer(0, buffer_words_);
  const auto scratch = thread_buffer(1, scratch_words_);
  for (const Factor& f : factor_data_) {
    inverse_dimension(f, a, buf.first(f.m), scratch);
  }
}

std::vector<std::uint32_t> PowerfulNtt::automorphism_table(std::uint64_t g) const {
  if (std::gcd(g % m_, static_cast<u64>(m_)) != 1) {
    throw InvalidParameter("automorphism: g = " + std::to_string(g) +
                           " is not a unit mod m = " + std::to_string(m_) +
                           " (X -> X^g is an automorphism of Z[X]/Phi_m only for gcd(g, m) = 1)");
  }
  std::vector<std::uint32_t> position(m_, 0);
  const std::vector<std::size_t>& slot_k = *slot_k_;
  for (std::size_t t = 0; t < degree_; ++t) position[slot_k[t]] = static_cast<std::uint32_t>(t);
  std::vector<std::uint32_t> table(degree_);
  const u64 gm = g % m_;
  for (std::size_t t = 0; t < degree_; ++t) {
    table[t] = position[(gm * slot_k[t]) % m_];
  }
  return table;
}

}  // namespace polyhe
