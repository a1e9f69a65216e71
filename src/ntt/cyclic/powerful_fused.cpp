// The pruned tensor form of the powerful-basis transform (powerful_fused.hpp): the tables, and
// the choice of kernel.
#include "powerful_fused.hpp"

#include <algorithm>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/config.hpp"
#include "polyhe/cpu/features.hpp"
#include "polyhe/ntt/cyclic/primes.hpp"

namespace polyhe::cyclic {

namespace {

using u64 = std::uint64_t;

bool make_powerful_axis(PowerfulAxis& ax, std::size_t mi, u64 q, u64 omega_i, u64 m_inv) {
  ax.m = mi;
  ax.p = static_cast<std::size_t>(prime_factors(mi).front());
  ax.phi = mi / ax.p * (ax.p - 1);
  if (!make_fused_axis(ax.forward, mi, q, omega_i, m_inv)) return false;
  if (!make_fused_axis(ax.inverse, mi, q, inverse_mod(omega_i, q), m_inv)) return false;
  ax.rank.assign(mi, -1);
  std::int32_t next = 0;
  for (std::size_t k = 1; k < mi; ++k) {
    if (k % ax.p != 0) ax.rank[k] = next++;
  }
  return true;
}

}  // namespace

std::shared_ptr<const PowerfulTables> make_powerful_tables(std::size_t m, u64 q, u64 omega) {
  constexpr std::size_t kW = PowerfulTables::kLanes;
  std::vector<std::size_t> factors;
  for (const u64 p : prime_factors(m)) {
    std::size_t pe = 1;
    while (m % (pe * p) == 0) pe *= static_cast<std::size_t>(p);
    factors.push_back(pe);
  }
  if (m % 2 == 0 || factors.size() < 2) return nullptr;
  auto tb = std::make_shared<PowerfulTables>();
  tb->m = m;
  tb->q = q;
  tb->degree = 1;
  for (const std::size_t mi : factors)
    tb->degree *= mi / prime_factors(mi).front() * (prime_factors(mi).front() - 1);
  const u64 m_inv = inverse_mod(m % q, q);
  tb->m_inv = make_fused_twiddle(m_inv, q);
  std::vector<PowerfulAxis> axes(factors.size());
  std::size_t stride = tb->degree;
  std::size_t longest = 0;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::size_t mi = factors[i];
    if (!make_powerful_axis(axes[i], mi, q, pow_mod(omega, m / mi, q), m_inv)) return nullptr;
    stride /= axes[i].phi;
    axes[i].stride = stride;
    longest = std::max(longest, mi);
  }
  tb->width = axes.back().phi;
  tb->rows = tb->degree / tb->width;
  if (tb->width % kW != 0 || tb->rows % kW != 0) return nullptr;
  // t (the row axis's eight rows), the Rader work (≤ m_i vectors), the inverse's column (m_i).
  tb->work = tb->width * kW + 2 * longest * kW;
  tb->last = std::move(axes.back());
  axes.pop_back();
  tb->others = std::move(axes);
  return tb;
}

void run_powerful(const PowerfulTables& tables, std::span<u64> a, std::span<u64> scratch,
                  bool inverse) {
  POLYHE_DEBUG_ASSERT(a.size() == tables.degree && scratch.size() >= tables.scratch_words());
  constexpr std::uint64_t kIfmaBound = std::uint64_t{1} << 50;
  PowerfulKernel kernel = powerful_kernel_scalar();
  const CpuPath path = cpu_path();
  if (path >= CpuPath::avx2) {
    if (const PowerfulKernel k = powerful_kernel_avx2()) kernel = k;
  }
  if (path >= CpuPath::avx512) {
    if (const PowerfulKernel k = powerful_kernel_avx512()) kernel = k;
  }
  if (path >= CpuPath::ifma && tables.q < kIfmaBound) {
    if (const PowerfulKernel k = powerful_kernel_ifma()) kernel = k;
  }
  kernel(tables, a.data(), scratch.data(), inverse);
}

}  // namespace polyhe::cyclic
