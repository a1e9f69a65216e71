#include "fft_stages.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace polyhe::ckks::detail {

namespace {

using Complex = std::complex<double>;

// exp(2πi·e/m) computed in long double (as the encoder's own table).
Complex unit_root(std::uint64_t e, std::uint64_t m) {
  const long double angle = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(e) /
                            static_cast<long double>(m);
  return {static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
}

std::vector<Complex>& slot(Diagonals& d, std::size_t k, std::size_t n) {
  auto [it, fresh] = d.try_emplace(k);
  if (fresh) it->second.assign(n, 0.0);
  return it->second;
}

}  // namespace

std::vector<Complex> stage_twiddles(std::size_t n, std::size_t h) {
  const std::uint64_t m = 4 * static_cast<std::uint64_t>(n);  // M = 2N = 4n
  const std::uint64_t lenq = 8 * static_cast<std::uint64_t>(h);
  std::vector<Complex> t(h);
  std::uint64_t g = 1;  // 5^j mod M
  for (std::size_t j = 0; j < h; ++j) {
    t[j] = unit_root((g % lenq) * (m / lenq), m);
    g = (g * 5) % m;
  }
  return t;
}

Diagonals fft_stage(std::size_t n, std::size_t h, bool inverse) {
  const std::vector<Complex> t = stage_twiddles(n, h);
  Diagonals d;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t j = p % (2 * h);
    if (j < h) {  // a lo row: lo + t·hi, or lo + hi
      slot(d, 0, n)[p] = 1.0;
      slot(d, h, n)[p] = inverse ? Complex(1.0) : t[j];
    } else {  // a hi row: lo − t·hi, or conj(t)·(lo − hi)
      const Complex w = inverse ? std::conj(t[j - h]) : Complex(1.0);
      slot(d, 0, n)[p] = inverse ? -w : -t[j - h];
      slot(d, n - h, n)[p] = w;
    }
  }
  return d;
}

Diagonals compose(const Diagonals& a, const Diagonals& b, std::size_t n) {
  Diagonals out;
  for (const auto& [ka, va] : a) {
    for (const auto& [kb, vb] : b) {
      std::vector<Complex>& v = slot(out, (ka + kb) % n, n);
      for (std::size_t p = 0; p < n; ++p) v[p] += va[p] * vb[(p + ka) % n];
    }
  }
  for (auto it = out.begin(); it != out.end();) {
    bool zero = true;
    for (const Complex z : it->second) zero = zero && std::abs(z) < 1e-300;
    it = zero ? out.erase(it) : std::next(it);
  }
  return out;
}

void scale_diagonals(Diagonals& d, Complex c) {
  for (auto& [k, v] : d) {
    for (Complex& z : v) z *= c;
  }
}

std::vector<Diagonals> fft_groups(std::size_t n, std::size_t groups, bool inverse) {
  const std::size_t stages = static_cast<std::size_t>(std::countr_zero(n));
  // The half-lengths in the order the stages are applied.
  std::vector<std::size_t> order;
  for (std::size_t s = 0; s < stages; ++s) {
    order.push_back(inverse ? n >> (s + 1) : std::size_t{1} << s);
  }
  std::vector<Diagonals> out;
  std::size_t next = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t size = stages / groups + (g < stages % groups ? 1 : 0);
    Diagonals m;
    for (std::size_t i = 0; i < size; ++i, ++next) {
      const Diagonals stage = fft_stage(n, order[next], inverse);
      m = i == 0 ? stage : compose(stage, m, n);  // the later stage on the left
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace polyhe::ckks::detail
