// Division by the last prime (ring/rescale.hpp): CKKS's rescale and BGV's modulus switch, on the
// CPU (the lift fused with each limb's transform, the limbs spread over the default pool) and on a
// device (the same steps in a few launches); the same words either way.
#include "polyhe/ring/rescale.hpp"

#include <string>
#include <vector>

#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ring/device.hpp"
#include "ring/scratch.hpp"

namespace polyhe {

namespace {

using u64 = std::uint64_t;
using detail::scratch;

// The largest N whose rescale transforms in the output limb itself (cpu_rescale).
constexpr std::size_t kRescaleInOutMax = std::size_t{1} << 14;

struct RescaleJob {
  const RnsPoly* x;
  std::span<u64> out;  // l limbs (may be x's first l limbs)
};

/// The constants of a division by q_l with error multiple μ (ring/rescale.hpp).
struct RescaleConstants {
  std::vector<u64> q_l_inv;  // q_l^−1 mod q_i, i < l
  std::vector<u64> mu_mod;   // μ mod q_i, i < l (μ ≠ 1 only)
  u64 mu_inv_last = 1;       // μ^−1 mod q_l
};

RescaleConstants rescale_constants(const RingContext& ring, std::size_t l, u64 mu) {
  RescaleConstants c;
  const u64 ql = ring.basis().prime(l);
  for (std::size_t i = 0; i < l; ++i) {
    const u64 qi = ring.basis().prime(i);
    c.q_l_inv.push_back(inverse_mod(ql % qi, qi));
    if (mu != 1) c.mu_mod.push_back(mu % qi);
  }
  if (mu != 1) {
    if (mu % ql == 0) {
      throw InvalidParameter("rescale: the error multiple " + std::to_string(mu) +
                             " is divisible by the prime q = " + std::to_string(ql) +
                             " being divided by, so it has no inverse there");
    }
    c.mu_inv_last = inverse_mod(mu % ql, ql);
  }
  return c;
}

void check_rescale_inputs(std::span<const RnsPoly* const> in, const char* op) {
  if (in.empty()) return;
  const RnsPoly& first = *in[0];
  if (first.limbs() < 2) {
    throw InvalidParameter(std::string(op) +
                           ": the polynomial has one limb, there is no prime left to divide by");
  }
  for (const RnsPoly* x : in) {
    first.check_compatible(*x, op);
    x->require_evaluation(op);
  }
}

// μ = 1: round(x/q_l) for each part x at level l: round(x/q_l) = (x − [x_l]_centred)·q_l^−1,
// where [x_l]_centred is the centred representative of x mod q_l — the rounding offset ⌊q_l/2⌋
// added and taken away again. Only the last limb leaves evaluation form; its centred lift to each
// q_i is transformed under q_i, with the lift and (x_i − ·)·q_l^−1 fused into the transform
// (NttPlan::forward_lifted: one pass over x_i and out_i). Limb by limb, all parts of a limb
// together: they share q_i's twiddle tables, which then come from L2 once.
// μ ≠ 1 (BGV): δ = μ·[x_l·μ^−1]_centred ≡ x mod q_l and ≡ 0 mod μ; (x − δ)·q_l^−1 with the
// lift, the product by μ and the transform in turn.
void cpu_rescale(const RingContext& ring, std::size_t l, const RescaleConstants& k, u64 mu,
                 std::span<const RescaleJob> jobs) {
  const std::size_t n = ring.n();
  const u64 ql = ring.basis().prime(l);
  const std::span<u64> last = scratch(detail::kScratchCoef, jobs.size() * n);
  // The parts' last limbs back to coefficients, one part a thread (a ciphertext's two inverse
  // transforms side by side: on one thread they were 2 of the 2(l + 1) transforms that the others
  // wait for).
  parallel_for(jobs.size(), [&](std::size_t j) {
    const std::span<u64> w = last.subspan(j * n, n);
    ring.inverse(l, jobs[j].x->data().subspan(l * n, n), w);
    if (mu != 1) vec::multiply_scalar(w, k.mu_inv_last, w, ring.basis().modulus(l));
  });
  parallel_for(l, [&](std::size_t i) {
    const Modulus<u64>& qi = ring.basis().modulus(i);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const std::span<u64> out_i = jobs[j].out.subspan(i * n, n);
      const std::span<const u64> x_i = jobs[j].x->data().subspan(i * n, n);
      if (mu != 1) {
        const std::span<u64> delta = scratch(detail::kScratchConv, n);
        vec::lift_centred(last.subspan(j * n, n), ql, delta, qi);
        vec::multiply_scalar(delta, k.mu_mod[i], delta, qi);
        ring.forward(i, delta);
        vec::sub_multiply_scalar(x_i, delta, k.q_l_inv[i], out_i, qi);
        continue;
      }
      // The transform runs in out_i itself where it can (out of place) and the limb is small
      // enough for out_i's lines to stay in L2 next to the twiddles (measured: N = 2^14
      // 6 % faster than in a scratch, 2^16 15 % slower); otherwise in a scratch.
      const bool in_out = out_i.data() != x_i.data() && n <= kRescaleInOutMax;
      ring.forward_lifted(i, last.subspan(j * n, n), ql, x_i, k.q_l_inv[i], out_i,
                          in_out ? out_i : scratch(detail::kScratchConv, n));
    }
  });
}

// The same on a device, every part of the ciphertext in the same launches: the last limbs
// gathered side by side, their inverse transforms (times μ^−1), their centred lifts to every
// other prime (one buffer per part), the forward transforms of all of those, and per part
// (x_i − ·)·q_l^−1. The transforms are latency-bound at these sizes (H200, 2^16: the last limbs'
// inverse takes 18.6 µs for two parts as for one; the forward 37 µs for 16 limbs against 22.5
// for 8). For two parts and μ = 1 (CKKS): a gather, the inverse pair, and the lift, forward pair
// and final step as two launches (Device::lift_forward_sub): 5 launches and no copy, where one
// part at a time took 12 launches. With μ ≠ 1 (BGV) the inverse's product by μ^−1
// adds a launch per part, and the lift's product by μ rides in the column pass.
void device_rescale(std::span<const RnsPoly* const> in, std::span<u64* const> out,
                    const RescaleConstants& k, u64 mu) {
  const RnsPoly& first = *in[0];
  Device& dev = *first.device();
  const RingContext& ring = *first.context();
  const std::size_t n = ring.n();
  const std::size_t l = first.level();
  const std::size_t parts = in.size();
  DeviceWords last(first.device(), parts * n);
  const u64* src = in[0]->device_words() + l * n;  // one part: transformed where it lies
  if (parts > 1) {
    std::vector<const u64*> from(parts);
    std::vector<u64*> to(parts);
    for (std::size_t j = 0; j < parts; ++j) {
      from[j] = in[j]->device_words() + l * n;
      to[j] = last.data() + j * n;
    }
    dev.copy_batch(from, to, n);
    src = last.data();
  }
  const std::size_t last_limb[] = {l};
  dev.ntt_mapped(ring, last_limb, parts, src, last.data(), true);
  if (mu != 1) {
    const u64 inv[] = {k.mu_inv_last};
    for (std::size_t j = 0; j < parts; ++j) {
      dev.multiply_scalar(ring, LimbRange{l, 1}, last.data() + j * n, inv, last.data() + j * n);
    }
  }
  std::vector<const u64*> xs(parts);
  for (std::size_t j = 0; j < parts; ++j) xs[j] = in[j]->device_words();
  // The lift (times μ mod q_i for BGV), the forward transforms and the last step in two launches.
  dev.lift_forward_sub(ring, l, last.data(), ring.basis().prime(l), xs, k.q_l_inv, out, false,
                       mu != 1 ? std::span<const u64>(k.mu_mod) : std::span<const u64>{});
}

}  // namespace

void rescale_by_last_prime(std::span<const RnsPoly* const> in, std::span<RnsPoly* const> out,
                           std::uint64_t error_multiple) {
  if (in.size() != out.size()) {
    throw InvalidParameter("rescale: " + std::to_string(in.size()) + " inputs and " +
                           std::to_string(out.size()) + " outputs");
  }
  check_rescale_inputs(in, "rescale");
  if (in.empty()) return;
  const RnsPoly& first = *in[0];
  const std::size_t l = first.level();
  const RescaleConstants k = rescale_constants(*first.context(), l, error_multiple);
  for (RnsPoly* o : out) {
    *o = RnsPoly(first.context(), l, PolyForm::kEvaluation, RnsPoly::kForOverwrite, first.device());
  }
  if (first.on_device()) {
    std::vector<u64*> words;
    for (RnsPoly* o : out) words.push_back(o->device_words());
    device_rescale(in, words, k, error_multiple);
    return;
  }
  std::vector<RescaleJob> jobs;
  for (std::size_t j = 0; j < in.size(); ++j) jobs.push_back({in[j], out[j]->data()});
  cpu_rescale(*first.context(), l, k, error_multiple, jobs);
}

void rescale_by_last_prime_inplace(std::span<RnsPoly* const> polys, std::uint64_t error_multiple) {
  const std::vector<const RnsPoly*> in(polys.begin(), polys.end());
  check_rescale_inputs(in, "rescale");
  if (polys.empty()) return;
  const RnsPoly& first = *polys[0];
  const std::size_t l = first.level();
  const RescaleConstants k = rescale_constants(*first.context(), l, error_multiple);
  if (first.on_device()) {
    std::vector<u64*> words;
    for (RnsPoly* p : polys) words.push_back(p->device_words());
    device_rescale(in, words, k, error_multiple);
  } else {
    std::vector<RescaleJob> jobs;
    for (RnsPoly* p : polys) jobs.push_back({p, p->data().first(l * p->n())});
    cpu_rescale(*first.context(), l, k, error_multiple, jobs);
  }
  for (RnsPoly* p : polys) p->drop_last_limb();
}

}  // namespace polyhe
