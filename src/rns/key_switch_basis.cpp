#include "polyhe/rns/key_switch_basis.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/rns/bigint.hpp"

namespace polyhe {

namespace {

template <class F>
void for_each_limb(std::size_t limbs, std::size_t words, unsigned threads, const F& body) {
  if (threads == 1 || words < vec::kParallelMinWords) {
    for (std::size_t i = 0; i < limbs; ++i) body(i);
  } else {
    parallel_for(limbs, body, threads);
  }
}

}  // namespace

KeySwitchBasis::KeySwitchBasis(RnsBasis q, RnsBasis p, std::size_t dnum) {
  const std::size_t primes = q.size();
  if (dnum < 1 || dnum > primes) {
    throw InvalidParameter("KeySwitchBasis: dnum = " + std::to_string(dnum) +
                           " is outside [1, L + 1] = [1, " + std::to_string(primes) + "]");
  }
  (void)RnsBasis::concat(q, p);  // throws InvalidParameter naming a prime in both Q and P
  auto impl = std::make_shared<Impl>(Impl{q, p, dnum, (primes + dnum - 1) / dnum, {}, {}, {}, {}});
  const std::size_t alpha = impl->alpha;
  const std::size_t k = p.size();
  for (std::size_t l = 0; l < primes; ++l) {
    const RnsBasis ql = q.prefix(l + 1);
    Level level{{}, {}, {}, BaseConverter(p, ql)};
    for (std::size_t begin = 0; begin <= l; begin += alpha) {
      const std::size_t count = std::min(alpha, l + 1 - begin);
      RnsBasis digit = q.range(begin, count);
      // Targets: Q_l's primes before the digit, those after it, then P.
      std::vector<std::size_t> limbs;
      for (std::size_t i = 0; i <= l; ++i) {
        if (i < begin || i >= begin + count) limbs.push_back(i);
      }
      for (std::size_t r = 0; r < k; ++r) limbs.push_back(l + 1 + r);
      RnsBasis target = p;
      if (begin + count <= l) {
        target = RnsBasis::concat(q.range(begin + count, l + 1 - begin - count), target);
      }
      if (begin > 0) target = RnsBasis::concat(q.prefix(begin), target);
      level.up.emplace_back(digit, target);
      level.digits.push_back(std::move(digit));
      level.up_limbs.push_back(std::move(limbs));
    }
    impl->levels.push_back(std::move(level));
  }
  mpz_class half = big_product(p) / 2;
  for (std::size_t i = 0; i < primes; ++i) {
    const std::uint64_t qi = q.prime(i);
    const std::uint64_t inv = inverse_mod(p.product_mod(qi), qi);
    impl->p_inv.push_back(make_shoup(inv, qi));
    const std::uint64_t h = mpz_fdiv_ui(half.get_mpz_t(), qi);
    impl->half_p_inv.push_back(q.modulus(i).mul(h, inv));
  }
  for (std::size_t r = 0; r < k; ++r)
    impl->half_p.push_back(mpz_fdiv_ui(half.get_mpz_t(), p.prime(r)));
  impl_ = std::move(impl);
}

void KeySwitchBasis::check_level(std::size_t level, const char* what) const {
  if (level > max_level()) {
    throw InvalidParameter(std::string(what) + ": level " + std::to_string(level) +
                           " is above the top level L = " + std::to_string(max_level()));
  }
}

std::size_t KeySwitchBasis::digit_count(std::size_t level) const {
  check_level(level, "KeySwitchBasis::digit_count");
  return impl_->levels[level].digits.size();
}

const RnsBasis& KeySwitchBasis::digit(std::size_t level, std::size_t j) const {
  if (j >= digit_count(level)) {
    throw InvalidParameter("KeySwitchBasis::digit: digit " + std::to_string(j) + " at level " +
                           std::to_string(level) + " is not below the digit count " +
                           std::to_string(digit_count(level)));
  }
  return impl_->levels[level].digits[j];
}

int KeySwitchBasis::digit_modulus_bits(std::size_t j) const {
  return digit(max_level(), j).product_bits();
}

int KeySwitchBasis::max_digit_modulus_bits() const {
  int bits = 0;
  for (std::size_t j = 0; j < digit_count(max_level()); ++j) {
    bits = std::max(bits, digit_modulus_bits(j));
  }
  return bits;
}

void KeySwitchBasis::mod_up(std::size_t level, std::size_t j, std::span<const std::uint64_t> in,
                            std::span<std::uint64_t> out, unsigned threads) const {
  mod_up_impl(level, j, in, out, false, threads);
}

void KeySwitchBasis::mod_up_centred(std::size_t level, std::size_t j,
                                    std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                    unsigned threads) const {
  mod_up_impl(level, j, in, out, true, threads);
}

const BaseConverter& KeySwitchBasis::up_converter(std::size_t level, std::size_t j) const {
  static_cast<void>(digit(level, j));  // validates level and j
  return impl_->levels[level].up[j];
}

std::span<const std::size_t> KeySwitchBasis::up_limbs(std::size_t level, std::size_t j) const {
  static_cast<void>(digit(level, j));
  return impl_->levels[level].up_limbs[j];
}

void KeySwitchBasis::mod_up_impl(std::size_t level, std::size_t j,
                                 std::span<const std::uint64_t> in, std::span<std::uint64_t> out,
                                 bool centred, unsigned threads) const {
  const RnsBasis& d = digit(level, j);  // validates level and j
  const std::size_t limbs = level + 1 + impl_->p.size();
  if (in.empty() || in.size() % d.size() != 0) {
    throw InvalidParameter("KeySwitchBasis::mod_up: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for a digit of " +
                           std::to_string(d.size()) + " primes");
  }
  const std::size_t n = in.size() / d.size();
  if (out.size() != limbs * n) {
    throw InvalidParameter("KeySwitchBasis::mod_up: output of " + std::to_string(out.size()) +
                           " words, expected " + std::to_string(limbs) +
                           " limbs of N = " + std::to_string(n));
  }
  if (overlaps(in, out)) throw InvalidParameter("KeySwitchBasis::mod_up: input and output overlap");
  const Level& lv = impl_->levels[level];
  std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(j * impl_->alpha * n));
  if (centred) {
    lv.up[j].convert_exact(in, out, lv.up_limbs[j], threads);
  } else {
    lv.up[j].convert_approx(in, out, lv.up_limbs[j], threads);
  }
}

void KeySwitchBasis::mod_down(std::size_t level, std::span<const std::uint64_t> in,
                              std::span<std::uint64_t> out, ModDownMode mode,
                              unsigned threads) const {
  check_level(level, "KeySwitchBasis::mod_down");
  const std::size_t k = impl_->p.size();
  const std::size_t limbs = level + 1 + k;
  if (in.empty() || in.size() % limbs != 0) {
    throw InvalidParameter("KeySwitchBasis::mod_down: input of " + std::to_string(in.size()) +
                           " words is not a whole, non-zero number of limbs for " +
                           std::to_string(limbs) + " primes (Q_l ∪ P)");
  }
  const std::size_t n = in.size() / limbs;
  if (out.size() != (level + 1) * n) {
    throw InvalidParameter("KeySwitchBasis::mod_down: output of " + std::to_string(out.size()) +
                           " words, expected " + std::to_string(level + 1) +
                           " limbs of N = " + std::to_string(n));
  }
  if (overlaps(in, out)) {
    throw InvalidParameter("KeySwitchBasis::mod_down: input and output overlap");
  }
  const Level& lv = impl_->levels[level];
  const auto x_p = in.subspan((level + 1) * n);
  // out ← the conversion of x mod P (or of (x + ⌊P/2⌋) mod P) to Q_l.
  if (mode == ModDownMode::round) {
    std::vector<std::uint64_t> shifted(k * n);
    for (std::size_t r = 0; r < k; ++r) {
      const std::uint64_t pr = impl_->p.prime(r);
      const std::uint64_t h = impl_->half_p[r];
      for (std::size_t c = 0; c < n; ++c) shifted[r * n + c] = add_mod(x_p[r * n + c], h, pr);
    }
    lv.down.convert_approx(shifted, out, threads);
  } else if (mode == ModDownMode::round_exact) {
    lv.down.convert_exact(x_p, out, threads);
  } else {
    lv.down.convert_approx(x_p, out, threads);
  }
  // out_i ← (x_i − out_i)·P^−1 mod q_i (+ ⌊P/2⌋·P^−1 in the round mode).
  const bool add_half = mode == ModDownMode::round;
  for_each_limb(level + 1, out.size(), threads, [&](std::size_t i) {
    const std::uint64_t qi = impl_->q.prime(i);
    const ShoupOperand<std::uint64_t> p_inv = impl_->p_inv[i];
    const std::uint64_t half = add_half ? impl_->half_p_inv[i] : 0;
    const std::uint64_t* x = in.data() + i * n;
    std::uint64_t* y = out.data() + i * n;
    for (std::size_t c = 0; c < n; ++c) {
      // x + q − y < 2q < 2^63: Shoup serves any word-sized operand.
      y[c] = add_mod(mul_shoup(x[c] + qi - y[c], p_inv, qi), half, qi);
    }
  });
}

}  // namespace polyhe
