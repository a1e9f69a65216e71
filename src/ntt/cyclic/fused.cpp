// The flattened PFA transform (fused.hpp): the tables, and the choice of kernel.
#include "fused.hpp"

#include <algorithm>

#include "nodes.hpp"
#include "polyhe/core/config.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"

namespace polyhe::cyclic {

FusedTwiddle make_fused_twiddle(u64 w, u64 q) {
  return make_fused_twiddle(w, ShoupQuotient<u64>(q), q);
}

FusedTwiddle make_fused_twiddle(u64 w, const ShoupQuotient<u64>& quotient, u64 q) {
  const ShoupOperand<u64> s = quotient.operand(w);
  const double centred = w > q / 2 ? -static_cast<double>(q - w) : static_cast<double>(w);
  return {
      s.w, s.w_shoup, s.w_shoup >> 32, s.w_shoup >> 12, centred, centred / static_cast<double>(q)};
}

namespace {

std::vector<FusedTwiddle> fused_powers(u64 omega, u64 q, std::size_t count) {
  const ShoupQuotient<u64> quotient(q);
  std::vector<FusedTwiddle> out(count);
  const std::vector<u64> w = powers_of(omega, q, count);
  for (std::size_t i = 0; i < count; ++i) out[i] = make_fused_twiddle(w[i], quotient, q);
  return out;
}

/// Stage tables of the radix-2 transform of length len by ω: [h − 1 + i] = (ω^(len/2h))^i.
std::vector<FusedTwiddle> radix2_twiddles(std::size_t len, u64 omega, u64 q) {
  std::vector<FusedTwiddle> out(len > 1 ? len - 1 : 0);
  for (std::size_t h = 1; h < len; h <<= 1) {
    const auto powers = fused_powers(pow_mod(omega, len / (2 * h), q), q, h);
    std::copy(powers.begin(), powers.end(), out.begin() + static_cast<std::ptrdiff_t>(h - 1));
  }
  return out;
}

// How an axis of length len runs mod q: radix-2 for powers of two; Rader over a power-of-two
// convolution for primes above 5 that have one (as the planner); any other odd length up to
// kDirectMax as a symmetric direct DFT (prime powers and the primes whose Rader convolution the
// planner would split further: 7, 11, 13, 9, 25, ...); none (false) otherwise. The one rule of
// make_fused_axis and fused_applies.
bool fused_axis_kind(std::size_t len, u64 q, FusedAxis::Kind& kind) {
  constexpr std::size_t kDirectPrime = 5;  // as plan_automatic
  constexpr std::size_t kDirectMax = 31;   // kMaxDirect of fused_kernels.hpp
  if (is_power_of_two(len)) {
    kind = FusedAxis::Kind::radix2;
    return true;
  }
  const std::size_t L = len - 1;
  if (len > kDirectPrime && is_prime(len) && is_power_of_two(L) && (q - 1) % L == 0) {
    kind = FusedAxis::Kind::rader;
    return true;
  }
  kind = FusedAxis::Kind::direct;
  return len % 2 == 1 && len <= kDirectMax;
}

// n's prime-power factors, ascending by prime.
std::vector<std::size_t> fused_factors(std::size_t n) {
  std::vector<std::size_t> factors;
  for (const u64 p : prime_factors(n)) {
    std::size_t pe = 1;
    while (n % (pe * p) == 0) pe *= static_cast<std::size_t>(p);
    factors.push_back(pe);
  }
  return factors;
}

// The layout of FusedTables (fused.hpp) for these factors: the largest is the row axis (the most
// words per row, the fewest padded lanes); r its index.
struct FusedLayout {
  std::size_t r, rows, padded_rows, pitch, work;
  bool line_maps;
};

FusedLayout fused_layout(std::size_t n, const std::vector<std::size_t>& factors) {
  constexpr std::size_t kW = FusedTables::kLanes;
  FusedLayout l{};
  l.r =
      static_cast<std::size_t>(std::max_element(factors.begin(), factors.end()) - factors.begin());
  const std::size_t nr = factors[l.r];
  l.rows = n / nr;
  l.padded_rows = (l.rows + kW - 1) / kW * kW;
  // Long rows get room for the AVX-512 input map's runs that wrap past the row's end
  // (permute_in there); short ones would waste too many lanes on it and keep the plain maps.
  constexpr std::size_t kLineMapsFrom = 64;
  l.line_maps = nr >= kLineMapsFrom;
  l.pitch = (nr + (l.line_maps ? kW - 1 : 0) + kW - 1) / kW * kW;
  // The last axis's transposed rows, then its work (no axis is longer than the row axis).
  l.work = (l.pitch + nr) * kW;
  return l;
}

}  // namespace

bool fused_applies(std::size_t n, u64 q) {
  const auto factors = fused_factors(n);
  if (factors.size() < 2) return false;
  FusedAxis::Kind kind{};
  return std::all_of(factors.begin(), factors.end(),
                     [&](std::size_t ni) { return fused_axis_kind(ni, q, kind); });
}

std::size_t fused_scratch_words(std::size_t n) {
  const FusedLayout l = fused_layout(n, fused_factors(n));
  return l.padded_rows * l.pitch + l.work + FusedTables::kLanes;
}

bool make_fused_axis(FusedAxis& ax, std::size_t len, u64 q, u64 omega, u64 n_inv) {
  ax.n = len;
  if (!fused_axis_kind(len, q, ax.kind)) return false;
  if (ax.kind == FusedAxis::Kind::radix2) {
    ax.len = len;
    ax.order = bit_reversal(len);
    ax.twiddles = radix2_twiddles(len, omega, q);
    return true;
  }
  const std::vector<u64> w = powers_of(omega, q, len);  // ω^k, k < len
  if (ax.kind == FusedAxis::Kind::direct) {
    // The symmetric tables of direct_odd: (ω^(jk) ± ω^(−jk))/2 for j, k in [1, H].
    const std::size_t half = (len - 1) / 2;
    const u64 two_inv = (q + 1) / 2;
    const ShoupQuotient<u64> quotient(q);
    ax.powers.resize(2 * half * half);
    for (std::size_t j = 1; j <= half; ++j) {
      for (std::size_t k = 1; k <= half; ++k) {
        const u64 plus = w[j * k % len];
        const u64 minus = w[(len - j * k % len) % len];
        const std::size_t at = (j - 1) * half + (k - 1);
        ax.powers[at] =
            make_fused_twiddle(mul_mod_slow((plus + minus) % q, two_inv, q), quotient, q);
        ax.powers[half * half + at] =
            make_fused_twiddle(mul_mod_slow((plus + q - minus) % q, two_inv, q), quotient, q);
      }
    }
    return true;
  }
  const std::size_t L = len - 1;
  ax.len = L;
  const u64 g = multiplicative_generator(len);
  ax.order.resize(L);
  u64 gi = 1;
  for (std::size_t i = 0; i < L; ++i) {
    ax.order[i] = static_cast<std::uint32_t>(gi);
    gi = gi * g % len;
  }
  // b[l] = ω^(g^−l) = ω^(order[(L − l) mod L]); K = F(b)/L in bit-reversed order.
  const PlanPtr conv = plan_convolution(L, q, "rader");
  std::vector<u64> b(L);
  for (std::size_t l = 0; l < L; ++l) b[l] = w[ax.order[(L - l) % L]];
  const auto kernel = convolution_kernel(*conv, std::move(b));
  ax.twiddles = radix2_twiddles(L, conv->omega(), q);
  const auto rev = bit_reversal(L);
  const ShoupQuotient<u64> quotient(q);
  const ShoupOperand<u64> scale = make_shoup<u64>(n_inv, q);
  ax.kernel.resize(L);
  ax.kernel_scaled.resize(L);
  for (std::size_t i = 0; i < L; ++i) {
    const u64 k = kernel[rev[i]].w;
    ax.kernel[i] = make_fused_twiddle(k, quotient, q);
    ax.kernel_scaled[i] = make_fused_twiddle(mul_shoup(k, scale, q), quotient, q);
  }
  return true;
}

std::shared_ptr<const FusedTables> make_fused_tables(std::size_t n, u64 q, u64 omega) {
  const std::vector<std::size_t> factors = fused_factors(n);
  if (factors.size() < 2) return nullptr;
  const u64 n_inv = inverse_mod(n % q, q);
  auto tb = std::make_shared<FusedTables>();
  tb->n = n;
  tb->q = q;
  tb->n_inv = make_fused_twiddle(n_inv, q);
  // The largest factor is the row axis; the others keep ascending order, the first fastest.
  std::vector<FusedAxis> axes(factors.size());
  std::vector<std::size_t> idempotents(factors.size());
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::size_t ni = factors[i];
    const std::size_t rest = n / ni;
    idempotents[i] = rest * static_cast<std::size_t>(inverse_mod(rest % ni, ni)) % n;
    if (!make_fused_axis(axes[i], ni, q, pow_mod(omega, idempotents[i], q), n_inv)) return nullptr;
  }
  constexpr std::size_t kW = FusedTables::kLanes;
  const FusedLayout layout = fused_layout(n, factors);
  const std::size_t r = layout.r;
  const std::size_t nr = factors[r];
  tb->rows = layout.rows;
  tb->padded_rows = layout.padded_rows;
  tb->line_maps = layout.line_maps;
  tb->pitch = layout.pitch;
  tb->work = layout.work;
  const std::size_t M = tb->rows;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    if (i == r) continue;
    // Row μ = j mod M; along axis i its digit μ mod n_i steps by ε_i (≡ 1 mod n_i, ≡ 0 mod
    // M/n_i), the other digits fixed: column set s lists the rows base_s + t·ε_i mod M, t < n_i.
    const std::size_t ni = factors[i];
    const std::size_t rest = M / ni;
    const std::size_t eps = rest * static_cast<std::size_t>(inverse_mod(rest % ni, ni)) % M;
    axes[i].rows.reserve(M);
    for (std::size_t base = 0; base < M; base += ni) {
      for (std::size_t t = 0; t < ni; ++t) {
        axes[i].rows.push_back(static_cast<std::uint32_t>((base + t * eps) % M));
      }
    }
  }
  tb->last = std::move(axes[r]);
  axes.erase(axes.begin() + static_cast<std::ptrdiff_t>(r));
  tb->others = std::move(axes);

  // Natural index j = CRT(μ, ρ) = μ·E_M + ρ·e_R mod n (E_M ≡ 1 mod M, ≡ 0 mod n_R).
  const std::size_t e_m = nr * static_cast<std::size_t>(inverse_mod(nr % M, M)) % n;
  const std::size_t e_r = idempotents[r];
  const auto natural = [&](std::size_t mu, std::size_t rho) { return (mu * e_m + rho * e_r) % n; };
  tb->in_map.resize(n);
  tb->out_map.resize(n);
  for (std::size_t mu = 0; mu < M; ++mu) {
    for (std::size_t rho = 0; rho < nr; ++rho) {
      const std::size_t j = natural(mu, rho);
      tb->in_map[mu * nr + rho] = static_cast<std::uint32_t>(j);
      tb->out_map[j] = static_cast<std::uint32_t>((mu / kW) * kW * nr + rho * kW + mu % kW);
    }
  }
  tb->line_start.resize(tb->padded_rows / kW * nr);
  for (std::size_t b = 0; b < tb->padded_rows / kW; ++b) {
    for (std::size_t rho = 0; rho < nr; ++rho) {
      tb->line_start[b * nr + rho] = static_cast<std::uint32_t>(natural(b * kW, rho));
    }
  }
  return tb;
}

void run_fused(const FusedTables& tables, std::span<u64> a, std::span<u64> scratch, bool inverse) {
  POLYHE_DEBUG_ASSERT(a.size() == tables.n && scratch.size() >= tables.scratch_words());
  constexpr std::uint64_t kIfmaBound = std::uint64_t{1} << 50;
  FusedKernel kernel = fused_kernel_scalar();
  const CpuPath path = cpu_path();
  if (path >= CpuPath::avx2) {
    if (const FusedKernel k = fused_kernel_avx2()) kernel = k;
  }
  if (path >= CpuPath::avx512) {
    if (const FusedKernel k = fused_kernel_avx512()) kernel = k;
  }
  if (path >= CpuPath::ifma && tables.q < kIfmaBound) {
    if (const FusedKernel k = fused_kernel_ifma()) kernel = k;
  }
  kernel(tables, a.data(), scratch.data(), inverse);
}

}  // namespace polyhe::cyclic
