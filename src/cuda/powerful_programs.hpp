// Which block programs (powerful_body.hpp) a device transform over Φ_m runs, with which
// constants and launch shapes: host code shared by the CUDA executor and the emulated device
// (device_ring.hpp), so the emulation tests check the very sequence the GPU runs.
//
// The device runs the CPU's fused route only (at least two prime-power factors, each an odd
// prime power ≤ 31 or a prime p > 5 with p − 1 a power of two dividing q − 1, the last factor's
// φ and φ(m) over it multiples of 8: m = 255, 4369, 21845, 65535, …); a ring whose m it does not
// cover is refused by name (its transforms, Bluestein's and the per-factor route, stay on the
// host). The Rader constants (radix-2 twiddles, kernels) are the CPU's fused tables
// (cyclic::make_powerful_tables), so both sides share one generator g and one kernel layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/powerful_body.hpp"
#include "ntt/cyclic/powerful_fused.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/context.hpp"

namespace polyhe::cuda::detail {

/// The device transform of one odd-m ring: the axes (storage order, the row axis last), the
/// words of each limb's constant table, and the index table; the same for every prime.
struct PowerfulPlan {
  std::size_t degree = 0;  // φ(m)
  std::vector<PowerfulAxisPlace> axes;
  std::size_t limb_consts = 0;
  std::vector<std::uint32_t> index;
};

namespace powerful_detail {

inline std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t q) {
  return static_cast<std::uint64_t>(static_cast<u128>(a) * b % q);
}

inline ShoupOperand<std::uint64_t> operand(const cyclic::FusedTwiddle& t) {
  return {t.w, t.shoup};
}

/// The dense matrices of a direct axis: V (forward) and D (inverse, times `scale`), φ_i² each.
inline void dense_matrices(const cyclic::PowerfulAxis& ax, std::uint64_t q, std::uint64_t omega_i,
                           std::uint64_t scale, std::vector<ShoupOperand<std::uint64_t>>& out) {
  using u64 = std::uint64_t;
  const std::size_t mi = ax.m;
  std::vector<u64> w(mi);
  std::vector<u64> w_inv(mi);
  const u64 inv = inverse_mod(omega_i, q);
  w[0] = w_inv[0] = 1;
  for (std::size_t e = 1; e < mi; ++e) {
    w[e] = mul_mod(w[e - 1], omega_i, q);
    w_inv[e] = mul_mod(w_inv[e - 1], inv, q);
  }
  std::vector<std::size_t> units;
  for (std::size_t k = 1; k < mi; ++k) {
    if (k % ax.p != 0) units.push_back(k);
  }
  const std::size_t phi = ax.phi;
  const std::size_t big_p = mi / ax.p;
  for (std::size_t kappa = 0; kappa < phi; ++kappa) {  // V[κ][j] = ω^(k_κ·j)
    for (std::size_t j = 0; j < phi; ++j) out.push_back(make_shoup(w[units[kappa] * j % mi], q));
  }
  for (std::size_t u = 0; u < phi; ++u) {  // D[u][κ] = (ω^(−u·k_κ) − ω^(−v·k_κ))·scale
    const std::size_t v = (ax.p - 1) * big_p + u % big_p;
    for (std::size_t kappa = 0; kappa < phi; ++kappa) {
      const u64 d = (w_inv[u * units[kappa] % mi] + q - w_inv[v * units[kappa] % mi]) % q;
      out.push_back(make_shoup(mul_mod(d, scale, q), q));
    }
  }
}

}  // namespace powerful_detail

/// The plan of `ring` (odd m) and every limb's constants, appended to consts (ring.max_limbs() ×
/// plan.limb_consts entries). InvalidParameter naming m when the device does not serve it.
inline PowerfulPlan make_powerful_plan(const RingContext& ring,
                                       std::vector<ShoupOperand<std::uint64_t>>& consts) {
  using u64 = std::uint64_t;
  PowerfulPlan plan;
  plan.degree = ring.n();
  const std::size_t m = ring.m();
  for (std::size_t limb = 0; limb < ring.max_limbs(); ++limb) {
    const PowerfulNtt& ntt = *ring.powerful(limb);
    const u64 q = ntt.q();
    const auto tb = cyclic::make_powerful_tables(m, q, ntt.omega());
    if (!tb) {
      throw InvalidParameter(
          "Φ_m ring with m = " + std::to_string(m) + " (" + ntt.decomposition() +
          ") on a device: the device transform serves m with at least two prime-power factors, "
          "each an odd prime power ≤ 31 or a prime p > 5 with p − 1 a power of two, the largest "
          "one's φ and φ(m) over it multiples of 8 (as 255, 4369, 21845, 65535); this m stays "
          "on the host");
    }
    const std::size_t start = consts.size();
    consts.push_back({q, 0});
    consts.push_back({tb->m_inv.w, tb->m_inv.shoup});
    std::vector<const cyclic::PowerfulAxis*> axes;
    for (const cyclic::PowerfulAxis& ax : tb->others) axes.push_back(&ax);
    axes.push_back(&tb->last);
    std::vector<PowerfulAxisPlace> places;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      const cyclic::PowerfulAxis& ax = *axes[i];
      PowerfulAxisPlace place;
      place.m = static_cast<std::uint32_t>(ax.m);
      place.p = static_cast<std::uint32_t>(ax.p);
      place.phi = static_cast<std::uint32_t>(ax.phi);
      place.stride = static_cast<std::uint32_t>(ax.stride);
      place.columns = static_cast<std::uint32_t>(plan.degree / ax.phi);
      place.scaled = i + 1 == axes.size();
      place.rader = ax.forward.kind == cyclic::FusedAxis::Kind::rader;
      place.forward = static_cast<std::uint32_t>(consts.size() - start);
      if (place.rader) {
        for (const cyclic::FusedAxis* dir : {&ax.forward, &ax.inverse}) {
          if (dir == &ax.inverse) place.inverse = static_cast<std::uint32_t>(consts.size() - start);
          for (const auto& t : dir->twiddles) consts.push_back(powerful_detail::operand(t));
          const auto& kernel =
              dir == &ax.inverse && place.scaled ? dir->kernel_scaled : dir->kernel;
          for (const auto& t : kernel) consts.push_back(powerful_detail::operand(t));
        }
        if (limb == 0) {
          place.order = static_cast<std::uint32_t>(plan.index.size());
          plan.index.insert(plan.index.end(), ax.forward.order.begin(), ax.forward.order.end());
        } else {
          place.order = plan.axes[i].order;
        }
        // One generator for every prime: the index table is shared.
        if (!std::equal(ax.forward.order.begin(), ax.forward.order.end(),
                        plan.index.begin() + place.order) ||
            ax.inverse.order != ax.forward.order) {
          throw std::logic_error("powerful device plan: Rader orders differ between primes");
        }
      } else {
        const std::size_t before = consts.size();
        powerful_detail::dense_matrices(ax, q, pow_mod(ntt.omega(), m / ax.m, q),
                                        place.scaled ? tb->m_inv.w : 1, consts);
        place.inverse = static_cast<std::uint32_t>(before - start + std::size_t{ax.phi} * ax.phi);
      }
      places.push_back(place);
    }
    if (limb == 0) {
      plan.axes = std::move(places);
      plan.limb_consts = consts.size() - start;
    } else if (consts.size() - start != plan.limb_consts) {
      throw std::logic_error("powerful device plan: constant tables differ between primes");
    }
  }
  return plan;
}

/// The columns a block of the axis's pass takes (a power of two dividing its column count) and
/// its threads: about 1024 words of shared work a block, at most 256 threads.
inline unsigned powerful_block_columns(const PowerfulAxisPlace& ax) {
  const unsigned work = ax.rader ? ax.p - 1 : ax.phi;
  const unsigned cap = std::max(1u, (ax.rader ? 1024u : 512u) / work);
  const unsigned divides = ax.columns & (~ax.columns + 1);  // the largest power of two dividing
  unsigned c = 1;
  while (c * 2 <= cap && c * 2 <= divides) c *= 2;
  return c;
}

inline unsigned powerful_block_threads(const PowerfulAxisPlace& ax, unsigned columns) {
  const unsigned items = ax.rader ? (ax.p - 1) * columns : ax.phi * columns;
  return std::clamp(items, 1u, 256u);
}

/// Runs `run(program)` for each pass of the transform of `batch` limbs of src into dst (dst may
/// be src): forward the axes in storage order, inverse the row axis (the 1/m) first, then the
/// others. The first pass reads src, every other one works in place in dst.
template <class Run>
void run_powerful(const PowerfulPlan& plan, const PowerfulLimbs& limbs, const std::uint32_t* index,
                  const std::uint64_t* src, std::uint64_t* dst, unsigned batch, bool inverse,
                  Run&& run) {
  std::vector<const PowerfulAxisPlace*> order;
  if (inverse) order.push_back(&plan.axes.back());
  for (std::size_t i = 0; i + 1 < plan.axes.size(); ++i) order.push_back(&plan.axes[i]);
  if (!inverse) order.push_back(&plan.axes.back());
  const std::uint64_t* from = src;
  for (const PowerfulAxisPlace* ax : order) {
    const unsigned columns = powerful_block_columns(*ax);
    const unsigned threads = powerful_block_threads(*ax, columns);
    if (ax->rader) {
      run(PowerfulRaderPass{limbs, index, from, dst, plan.degree, *ax, columns, batch, threads,
                            inverse});
    } else {
      run(PowerfulDensePass{limbs, from, dst, plan.degree, *ax, columns, batch, threads, inverse});
    }
    from = dst;
  }
}

}  // namespace polyhe::cuda::detail
