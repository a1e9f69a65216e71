// The scalar kernel of the default transform — the path every SIMD kernel must match bit for
// bit (all outputs are fully reduced, so different schedules agree exactly).
//
// Harvey's lazy butterflies with Shoup twiddles, two stages per pass over memory (radix-4:
// four loads, four butterflies, four stores), which halves the loads and stores of the radix-2
// loops and their per-block overhead. The inverse does not halve in every stage as the
// per-reduction variants do (arith/butterfly.hpp); it folds 1/N into its last stage as one Shoup
// multiplication per output, as SEAL and HEXL do. The fused product's middle step is the generic
// one (arith/ntt_schedule.hpp).
#include <bit>
#include <vector>

#include "cpu/ntt_kernel.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/butterfly.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/ntt_schedule.hpp"
#include "polyhe/arith/primes.hpp"

namespace polyhe::cpu {

namespace {

using u64 = std::uint64_t;
using Tw = ShoupOperand<u64>;

/// x − c if x ≥ c, without a branch.
inline u64 sub_if_ge(u64 x, u64 c) {
  // For x < c the difference wraps above x: the unsigned minimum chooses (sub, cmp, cmov).
  const u64 d = x - c;
  return d < x ? d : x;
}

/// Harvey CT: x, y in [0, 4q) → x + w·y, x − w·y in [0, 4q).
inline void ct(u64& x, u64& y, Tw w, u64 q, u64 two_q) {
  const u64 x0 = sub_if_ge(x, two_q);     // [0, 2q)
  const u64 t = mul_shoup_lazy(y, w, q);  // [0, 2q)
  x = x0 + t;
  y = x0 - t + two_q;
}

/// GS without halving: x, y in [0, 2q) → x + y, (x − y)·w in [0, 2q).
inline void gs(u64& x, u64& y, Tw w, u64 q, u64 two_q) {
  const u64 u = x;
  const u64 v = y;
  x = sub_if_ge(u + v, two_q);
  y = mul_shoup_lazy(u - v + two_q, w, q);
}

class ScalarNttKernel final : public NttKernel64 {
 public:
  explicit ScalarNttKernel(const NttTables64& t)
      : n_(t.n),
        q_(t.q),
        fwd_(t.fwd.begin(), t.fwd.end()),
        fwd_shoup_(t.fwd_shoup.begin(), t.fwd_shoup.end()),
        inv_(t.inv.begin(), t.inv.end()),
        inv_half_(t.inv_half.begin(), t.inv_half.end()),
        inv_half_shoup_(t.inv_half_shoup.begin(), t.inv_half_shoup.end()),
        barrett_(Modulus<u64>(t.q).barrett_alg4()) {
    inv_shoup_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) inv_shoup_[i] = make_shoup(inv_[i], q_).w_shoup;
    // The last inverse stage multiplies by 2^−stages: 1/N for the whole transform, 2/N after
    // the fused product; its difference output also by that stage's twiddle ψ^−br(1).
    const Modulus<u64> m(q_);
    const u64 n_inv = inverse_mod(n_, q_);
    const u64 two_n_inv = m.mul(n_inv, 2 % q_);
    scale_whole_ = {make_shoup(n_inv, q_), make_shoup(m.mul(n_inv, inv_[1]), q_)};
    scale_truncated_ = {make_shoup(two_n_inv, q_), make_shoup(m.mul(two_n_inv, inv_[1]), q_)};
  }

  [[nodiscard]] CpuPath path() const override { return CpuPath::scalar; }

  void forward(u64* a) const override { forward_stages(a, n_); }
  void inverse(u64* a) const override { inverse_stages(a, n_ / 2, scale_whole_); }
  void hadamard(const u64* a, const u64* b, u64* c) const override {
    for (std::size_t i = 0; i < n_; ++i) c[i] = mul_mod(a[i], b[i], barrett_);
  }
  void forward_truncated(u64* a) const override { forward_stages(a, n_ / 2); }
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override {
    const ShoupLazyButterfly<u64> p{
        fwd_.data(), fwd_shoup_.data(), inv_half_.data(), inv_half_shoup_.data(), q_, barrett_};
    detail::fused_hadamard(a, b, c, n_, p, q_);
  }
  void inverse_truncated(u64* a) const override { inverse_stages(a, n_ / 4, scale_truncated_); }

 private:
  struct LastStageScale {
    Tw sum;   // 2^−stages
    Tw diff;  // 2^−stages · ψ^−br(1)
  };

  [[nodiscard]] Tw fwd_tw(std::size_t i) const { return {fwd_[i], fwd_shoup_[i]}; }
  [[nodiscard]] Tw inv_tw(std::size_t i) const { return {inv_[i], inv_shoup_[i]}; }

  /// [GPU-Polymul, Alg. 5] over the stages m = 1, 2, …, < m_end; inputs in [0, q), outputs in [0,
  /// q). An odd stage count starts with one radix-2 stage; the rest go two at a time, the last
  /// pair also bringing its outputs from [0, 4q) to [0, q).
  void forward_stages(u64* a, std::size_t m_end) const {
    const int stages = std::countr_zero(m_end);
    std::size_t m = 1;
    std::size_t t = n_;  // the block size of the next stage
    if (stages % 2 == 1) {
      t >>= 1;
      const Tw w = fwd_tw(1);
      const u64 q = q_;
      const u64 two_q = 2 * q;
      if (stages == 1) {
        for (std::size_t j = 0; j < t; ++j) {
          ct(a[j], a[j + t], w, q, two_q);
          a[j] = reduce4(a[j]);
          a[j + t] = reduce4(a[j + t]);
        }
        return;
      }
      for (std::size_t j = 0; j < t; ++j) ct(a[j], a[j + t], w, q, two_q);
      m = 2;
    }
    for (; m < m_end; m <<= 2) {
      if ((m << 2) >= m_end) {
        forward_pair<true>(a, m, t);
      } else {
        forward_pair<false>(a, m, t);
      }
      t >>= 2;
    }
  }

  /// Stages m and 2m in one pass: block i of stage m (half-size t1 = t/2) splits into blocks
  /// 2i and 2i + 1 of stage 2m (half-size h = t1/2). Values in [0, 4q); with Last, the outputs
  /// are reduced to [0, q).
  template <bool Last>
  void forward_pair(u64* a, std::size_t m, std::size_t t) const {
    const u64 q = q_;
    const u64 two_q = 2 * q;
    const std::size_t t1 = t >> 1;
    const std::size_t h = t1 >> 1;
    for (std::size_t i = 0; i < m; ++i) {
      const Tw w1 = fwd_tw(m + i);
      const Tw w2 = fwd_tw(2 * m + 2 * i);
      const Tw w3 = fwd_tw(2 * m + 2 * i + 1);
      u64* p = a + 2 * i * t1;
      for (std::size_t j = 0; j < h; ++j) {
        u64 x0 = p[j], x1 = p[j + h], x2 = p[j + t1], x3 = p[j + t1 + h];
        ct(x0, x2, w1, q, two_q);
        ct(x1, x3, w1, q, two_q);
        ct(x0, x1, w2, q, two_q);
        ct(x2, x3, w3, q, two_q);
        if constexpr (Last) {
          x0 = reduce4(x0);
          x1 = reduce4(x1);
          x2 = reduce4(x2);
          x3 = reduce4(x3);
        }
        p[j] = x0;
        p[j + h] = x1;
        p[j + t1] = x2;
        p[j + t1 + h] = x3;
      }
    }
  }

  /// [0, 4q) → [0, q).
  [[nodiscard]] u64 reduce4(u64 x) const { return sub_if_ge(sub_if_ge(x, 2 * q_), q_); }

  /// [GPU-Polymul, Alg. 6] over the stages m = m_first, …, 2 without halving (values in [0, 2q)),
  /// two at a time after an odd one, then the last stage (m = 1) with the scale folded in.
  void inverse_stages(u64* a, std::size_t m_first, const LastStageScale& scale) const {
    if (m_first == 0) return;  // n = 2 after the fused product: no stage left
    const u64 q = q_;
    const u64 two_q = 2 * q;
    std::size_t m = m_first;
    std::size_t t = n_ / (2 * m_first);
    if (std::countr_zero(m_first) % 2 == 1) {
      for (std::size_t i = 0; i < m; ++i) {
        const Tw w = inv_tw(m + i);
        u64* p = a + 2 * i * t;
        for (std::size_t j = 0; j < t; ++j) gs(p[j], p[j + t], w, q, two_q);
      }
      m >>= 1;
      t <<= 1;
    }
    // Stages m and m/2 together: blocks 2k and 2k + 1 of stage m (half-size t) merge into
    // block k of stage m/2 (half-size 2t).
    for (; m >= 4; m >>= 2, t <<= 2) {
      for (std::size_t k = 0; k < m / 2; ++k) {
        const Tw wa = inv_tw(m + 2 * k);
        const Tw wb = inv_tw(m + 2 * k + 1);
        const Tw wc = inv_tw(m / 2 + k);
        u64* p = a + 4 * k * t;
        for (std::size_t j = 0; j < t; ++j) {
          u64 x0 = p[j], x1 = p[j + t], x2 = p[j + 2 * t], x3 = p[j + 3 * t];
          gs(x0, x1, wa, q, two_q);
          gs(x2, x3, wb, q, two_q);
          gs(x0, x2, wc, q, two_q);
          gs(x1, x3, wc, q, two_q);
          p[j] = x0;
          p[j + t] = x1;
          p[j + 2 * t] = x2;
          p[j + 3 * t] = x3;
        }
      }
    }
    // The last stage (one block, half-size n/2): x ← (x + y)·s, y ← (x − y)·s·ψ^−br(1).
    const std::size_t half = n_ / 2;
    for (std::size_t j = 0; j < half; ++j) {
      const u64 u = a[j];
      const u64 v = a[j + half];
      a[j] = sub_if_ge(mul_shoup_lazy(u + v, scale.sum, q), q);
      a[j + half] = sub_if_ge(mul_shoup_lazy(u - v + two_q, scale.diff, q), q);
    }
  }

  std::size_t n_;
  u64 q_;
  std::vector<u64> fwd_, fwd_shoup_;            // ψ^br(i)
  std::vector<u64> inv_, inv_shoup_;            // ψ^−br(i)
  std::vector<u64> inv_half_, inv_half_shoup_;  // ψ^−br(i)/2, for the fused policy's signature
  BarrettAlg4<u64> barrett_;
  LastStageScale scale_whole_{}, scale_truncated_{};
};

}  // namespace

std::unique_ptr<NttKernel64> make_scalar_ntt_kernel(const NttTables64& t) {
  return std::make_unique<ScalarNttKernel>(t);
}

}  // namespace polyhe::cpu
