#include "polyhe/ntt/plan.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/arith/ntt_schedule.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/overlap.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe {

namespace {

template <Word W>
void validate(std::size_t n, W q) {
  constexpr int max_bits = word_bits<W> - 2;
  if (!is_power_of_two(n) || n < 2 || n > (std::size_t{1} << NttPlan<W>::kMaxLogN)) {
    throw InvalidParameter("N = " + std::to_string(n) + " is not a power of two in [2, 2^" +
                           std::to_string(NttPlan<W>::kMaxLogN) + "]");
  }
  if (bit_length(q) > max_bits) {
    throw InvalidParameter("q = " + std::to_string(q) + " has " + std::to_string(bit_length(q)) +
                           " bits; NTT primes on " + std::to_string(word_bits<W>) +
                           "-bit words have at most " + std::to_string(max_bits));
  }
  check_ntt_prime(q, n);
}

}  // namespace

template <Word W>
std::shared_ptr<const NttPlan<W>> NttPlan<W>::create(std::size_t n, W q) {
  validate(n, q);
  return std::shared_ptr<const NttPlan>(
      new NttPlan(n, q, static_cast<W>(minimal_primitive_root(q, n))));
}

template <Word W>
std::shared_ptr<const NttPlan<W>> NttPlan<W>::create(std::size_t n, W q, W psi) {
  validate(n, q);
  if (!is_primitive_root(psi, q, n)) {
    throw InvalidParameter(
        "psi = " + std::to_string(psi) + " is not a primitive " + std::to_string(2 * n) +
        "-th root of unity modulo q = " + std::to_string(q) + " (psi^N must be q - 1)");
  }
  return std::shared_ptr<const NttPlan>(new NttPlan(n, q, psi));
}

template <Word W>
NttPlan<W>::~NttPlan() = default;

template <Word W>
NttPlan<W>::NttPlan(std::size_t n, W q, W psi)
    : n_(n), log_n_(std::countr_zero(n)), modulus_(q), psi_(psi) {
  // Every product here has one fixed factor (ψ, ψ^−1, 1/2, the Montgomery radices), so each is a
  // Shoup multiplication, and the companions come from ShoupQuotient: no double-word division
  // per word (they were 80 % of building the tables of a large parameter set).
  const ShoupQuotient<W> quotient(q);
  const ShoupOperand<W> psi_s = quotient.operand(psi);
  const ShoupOperand<W> psi_inv_s = quotient.operand(static_cast<W>(inverse_mod(psi, q)));
  const ShoupOperand<W> half_s = quotient.operand(static_cast<W>((q + 1) / 2));
  // The tables in bit-reversed order, written front to back: for 2^k ≤ i < 2^(k+1),
  // br(i) = br(i − 2^k) + N/2^(k+1), so t[i] = t[i − 2^k]·ψ^(N/2^(k+1)) — one pass, no gather.
  auto bit_reversed_powers = [&](const ShoupOperand<W>& root, AlignedVector<W>& t) {
    t.resize(n);
    t[0] = 1;
    W step = root.w;  // ψ^(N/2^(k+1)) for k = log n − 1 down to 0: squared each level down
    std::vector<ShoupOperand<W>> steps(static_cast<std::size_t>(log_n_));
    for (int k = log_n_ - 1; k >= 0; --k) {
      steps[static_cast<std::size_t>(k)] = quotient.operand(step);
      step = mul_shoup(step, quotient.operand(step), q);
    }
    for (int k = 0; k < log_n_; ++k) {
      const std::size_t half_size = std::size_t{1} << k;
      const ShoupOperand<W> c = steps[static_cast<std::size_t>(k)];
      for (std::size_t m = 0; m < half_size; ++m) t[half_size + m] = mul_shoup(t[m], c, q);
    }
  };
  bit_reversed_powers(psi_s, fwd_);
  bit_reversed_powers(psi_inv_s, inv_);
  inv_half_.resize(n);
  for (std::size_t i = 0; i < n; ++i) inv_half_[i] = mul_shoup(inv_[i], half_s, q);
  auto companions = [&](const AlignedVector<W>& t) {
    AlignedVector<W> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = quotient(t[i]);
    return s;
  };
  fwd_shoup_ = companions(fwd_);
  inv_half_shoup_ = companions(inv_half_);
  auto scaled = [&](const AlignedVector<W>& t, W r_mod_q) {
    const ShoupOperand<W> r_s = quotient.operand(r_mod_q);
    AlignedVector<W> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = mul_shoup(t[i], r_s, q);
    return s;
  };
  const W r_mont = static_cast<W>(pow_mod(2, word_bits<W>, q));
  fwd_mont_ = scaled(fwd_, r_mont);
  inv_half_mont_ = scaled(inv_half_, r_mont);
  const auto& mntt = modulus_.montgomery_ntt();
  const W r_mntt = static_cast<W>(pow_mod(2, static_cast<std::uint64_t>(mntt.rounds) * mntt.k, q));
  fwd_mntt_ = scaled(fwd_, r_mntt);
  inv_half_mntt_ = scaled(inv_half_, r_mntt);
}

template <Word W>
const cpu::NttKernel64* NttPlan<W>::kernel_of(CpuPath p) const {
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    const auto i = static_cast<std::size_t>(p);
    if (kernel_built_[i].load(std::memory_order_acquire)) return kernels_[i].get();
    const std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (!kernel_built_[i].load(std::memory_order_relaxed)) {
      // SIMD kernels only where this CPU can run them (their construction may use the ISA);
      // null where p is missing here or does not serve (n, q).
      if (p <= best_cpu_path()) {
        const cpu::NttTables64 tables{n_,   modulus_.value(), fwd_,           fwd_shoup_,
                                      inv_, inv_half_,        inv_half_shoup_};
        switch (p) {
          case CpuPath::scalar: kernels_[i] = cpu::make_scalar_ntt_kernel(tables); break;
          case CpuPath::avx2: kernels_[i] = cpu::make_avx2_ntt_kernel(tables); break;
          case CpuPath::avx512: kernels_[i] = cpu::make_avx512_ntt_kernel(tables); break;
          case CpuPath::ifma: kernels_[i] = cpu::make_ifma_ntt_kernel(tables); break;
        }
      }
      kernel_built_[i].store(true, std::memory_order_release);
    }
    return kernels_[i].get();
  } else {
    static_cast<void>(p);
    return nullptr;
  }
}

template <Word W>
const cpu::NttKernel64* NttPlan<W>::cpu_kernel(CpuPath p) const {
  for (int i = static_cast<int>(p); i >= 0; --i) {
    if (const cpu::NttKernel64* k = kernel_of(static_cast<CpuPath>(i))) return k;
  }
  return nullptr;
}

template <Word W>
bool NttPlan<W>::supports(NttVariant v) const {
  switch (v) {
    case NttVariant::barrett_dq: return modulus_.supports(Reduction::barrett_dq);
    default: return true;  // the plan's own range (len(q) ≤ β−2, q odd) covers the others
  }
}

template <Word W>
void NttPlan<W>::require(NttVariant v) const {
  if (v == NttVariant::barrett_dq) {
    if (auto why = modulus_.unsupported_reason(Reduction::barrett_dq)) {
      throw InvalidParameter("NTT variant barrett-dq: " + *why);
    }
  }
}

namespace {

template <class T>
void check_size(std::span<T> a, std::size_t n, const char* what) {
  if (a.size() != n) {
    throw InvalidParameter(std::string(what) + ": the polynomial has " + std::to_string(a.size()) +
                           " coefficients; the plan is for N = " + std::to_string(n));
  }
}

}  // namespace

template <Word W>
void NttPlan<W>::forward(std::span<W> a, NttVariant v) const {
  check_size(a, n_, "forward NTT");
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    if (v == NttVariant::shoup_lazy) return cpu_kernel()->forward(a.data());
  }
  visit(v, [&](const auto& p) { detail::forward_ct(a.data(), n_, p, n_); });
}

template <Word W>
void NttPlan<W>::inverse(std::span<W> a, NttVariant v) const {
  check_size(a, n_, "inverse NTT");
  if constexpr (std::is_same_v<W, std::uint64_t>) {
    if (v == NttVariant::shoup_lazy) return cpu_kernel()->inverse(a.data());
  }
  visit(v, [&](const auto& p) { detail::inverse_gs(a.data(), n_, p, n_ / 2); });
}

template <Word W>
void NttPlan<W>::inverse(std::span<const W> in, std::span<W> out, NttVariant v) const {
  check_size(in, n_, "inverse NTT");
  check_size(out, n_, "inverse NTT");
  if (in.data() != out.data()) {
    if (bytes_overlap(in.data(), n_ * sizeof(W), out.data(), n_ * sizeof(W))) {
      throw InvalidParameter("inverse NTT: in and out overlap without being the same array");
    }
    if constexpr (std::is_same_v<W, std::uint64_t>) {
      if (v == NttVariant::shoup_lazy && cpu_kernel()->inverse_from(in.data(), out.data())) return;
    }
    std::copy(in.begin(), in.end(), out.begin());
  }
  inverse(out, v);
}

template <Word W>
void NttPlan<W>::forward_lifted(std::span<const W> x, W p, std::span<const W> c, W s,
                                std::span<W> out,
                                std::span<W> work) const requires std::same_as<W, std::uint64_t> {
  // Clang 14 instantiates constrained members in `template class NttPlan<std::uint32_t>`.
  if constexpr (std::same_as<W, std::uint64_t>) {
    const char* what = "forward_lifted";
    check_size(x, n_, what);
    check_size(c, n_, what);
    check_size(out, n_, what);
    check_size(work, n_, what);
    const W q = modulus_.value();
    if (p < 2 || p >= (W{1} << 62)) {
      throw InvalidParameter("forward_lifted: p = " + std::to_string(p) + " is outside [2, 2^62)");
    }
    if (s >= q) {
      throw InvalidParameter("forward_lifted: s = " + std::to_string(s) +
                             " is not below q = " + std::to_string(q));
    }
    const std::size_t bytes = n_ * sizeof(W);
    if (bytes_overlap(work.data(), bytes, x.data(), bytes) ||
        bytes_overlap(work.data(), bytes, c.data(), bytes)) {
      throw InvalidParameter("forward_lifted: the work array overlaps x or c");
    }
    if (bytes_overlap(out.data(), bytes, x.data(), bytes) ||
        (out.data() != c.data() && bytes_overlap(out.data(), bytes, c.data(), bytes))) {
      throw InvalidParameter(
          "forward_lifted: out overlaps x, or overlaps c without being it (out may be c exactly)");
    }
    const cpu::NttKernel64* kernel = cpu_kernel();
    if (kernel->forward_lifted({x.data(), p, c.data(), s, out.data(), work.data()})) return;
    vec::lift_centred(x, p, work, modulus_);
    kernel->forward(work.data());
    vec::sub_multiply_scalar(c, work, s, out, modulus_);
  }
}

template <Word W>
void NttPlan<W>::forward_lifted(std::span<const W> x, W p,
                                std::span<W> out) const requires std::same_as<W, std::uint64_t> {
  // Clang 14 instantiates constrained members in `template class NttPlan<std::uint32_t>`.
  if constexpr (std::same_as<W, std::uint64_t>) {
    const char* what = "forward_lifted";
    check_size(x, n_, what);
    check_size(out, n_, what);
    if (p < 2 || p >= (W{1} << 62)) {
      throw InvalidParameter("forward_lifted: p = " + std::to_string(p) + " is outside [2, 2^62)");
    }
    const std::size_t bytes = n_ * sizeof(W);
    if (bytes_overlap(out.data(), bytes, x.data(), bytes)) {
      throw InvalidParameter("forward_lifted: out overlaps x");
    }
    const cpu::NttKernel64* kernel = cpu_kernel();
    if (kernel->forward_from_lifted(x.data(), p, out.data())) return;
    vec::lift_centred(x, p, out, modulus_);
    kernel->forward(out.data());
  }
}

template class NttPlan<std::uint32_t>;
template class NttPlan<std::uint64_t>;

}  // namespace polyhe
