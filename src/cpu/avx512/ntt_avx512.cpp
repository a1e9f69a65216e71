// The AVX-512 (F/DQ/VL/BW) kernel of the default transform for 64-bit words and primes up to
// 62 bits: Harvey's lazy butterflies with Shoup twiddles on 8 lanes. Its internal schedule
// differs from the scalar specification (unhalved GS butterflies with 1/N folded into the last
// stage, other lazy ranges, merged stages); its outputs are fully reduced, so they equal the
// scalar kernel's bit for bit.
//
// Arithmetic and lazy ranges: ntt_avx512_simd.hpp; tables: ntt_avx512_tables.hpp; schedules:
// ntt_avx512_forward.hpp, ntt_avx512_inverse.hpp. Per 8 butterflies the CT or GS butterfly is 16
// vector operations (18 for primes of 61–62 bits), of which 5 multiplies; Zen 5 issues ~3.8 such
// operations per cycle, so the floor is ~4.3 cycles per 8 butterflies; the passes run at ~4.7,
// the in-register stages at ~6.2 (shuffles and the output reduction).
//
// make_avx512_ntt_kernel serves primes below 2^50 with the double-precision transform instead
// (ntt_avx512_fma.cpp), whose element-wise products are this kernel's.
#include <cstdint>
#include <memory>
#include <utility>

#include "cpu/ntt_kernel.hpp"
#include "ntt_avx512_forward.hpp"
#include "ntt_avx512_inverse.hpp"
#include "ntt_avx512_simd.hpp"
#include "ntt_avx512_tables.hpp"
#include "polyhe/core/wipe.hpp"

namespace polyhe::cpu {

std::unique_ptr<NttKernel64> make_avx512_fma_ntt_kernel(const NttTables64& t,
                                                        std::unique_ptr<NttKernel64> products);

namespace {

using avx512::u64;
using avx512::V;

/// The smallest n served: five stages run in registers on 32 elements.
constexpr std::size_t kMinN = 32;

class Avx512NttKernel final : public NttKernel64 {
 public:
  explicit Avx512NttKernel(const NttTables64& t)
      : tb_(t), loose_(t.q < (u64{1} << 61)), mont_(make_mont(tb_)) {}

  [[nodiscard]] CpuPath path() const override { return CpuPath::avx512; }

  void forward(u64* a) const override {
    with_lazy([&](const auto& lz) { avx512::forward_ntt<false>(a, work(a), tb_, lz); });
  }
  void inverse(u64* a) const override {
    with_lazy([&](const auto& lz) { avx512::inverse_ntt<false>(a, work(a), tb_, lz); });
  }
  void forward_truncated(u64* a) const override {
    with_lazy([&](const auto& lz) { avx512::forward_ntt<true>(a, work(a), tb_, lz); });
  }
  void inverse_truncated(u64* a) const override {
    with_lazy([&](const auto& lz) { avx512::inverse_ntt<true>(a, work(a), tb_, lz); });
  }
  void hadamard(const u64* a, const u64* b, u64* c) const override;
  void fused_hadamard(const u64* a, const u64* b, u64* c) const override;

 private:
  static avx512::MontArith make_mont(const avx512::KernelTables& tb) {
    const V q = avx512::set1(tb.q);
    return {q, avx512::set1(tb.q >> 32), avx512::set1(tb.q_inv), avx512::broadcast(tb.r_mod_q)};
  }

  /// Where the transform of a works: a itself when it is 64-byte aligned or n > 2^15; otherwise
  /// this thread's aligned buffer (the first pass reads a and the last writes it, so no pass is
  /// added). Each 64-byte access to a misaligned array straddles two cache lines, ~5 % of the
  /// time at n ≤ 2^15; above, the second array no longer fits the L2 with the first and the
  /// tables, and working in place is 4–6 % faster (measured, A/B medians).
  [[nodiscard]] u64* work(u64* a) const {
    if (reinterpret_cast<std::uintptr_t>(a) % 64 == 0 || tb_.n > (std::size_t{1} << 15)) return a;
    // Wiped after secret transforms (core/wipe.hpp).
    thread_local polyhe::detail::ThreadScratch buffer;
    return static_cast<u64*>(buffer.get(tb_.n * sizeof(u64)));
  }

  /// Runs f with the lazy ranges this q allows (LazyArith<true> needs 8q ≤ 2^64).
  template <class F>
  void with_lazy(F&& f) const {
    if (loose_) {
      f(avx512::LazyArith<true>(tb_.q));
    } else {
      f(avx512::LazyArith<false>(tb_.q));
    }
  }

  avx512::KernelTables tb_;
  bool loose_;
  avx512::MontArith mont_;
};

void Avx512NttKernel::hadamard(const u64* a, const u64* b, u64* c) const {
  constexpr int U = 4;  // n ≥ 32 is a multiple of 8U
  for (std::size_t i = 0; i < tb_.n; i += 8 * U) {
    V x[U], y[U], z[U];
    for (int u = 0; u < U; ++u) {
      x[u] = avx512::load(a + i + 8 * u);
      y[u] = avx512::load(b + i + 8 * u);
    }
    mont_.mul<U>(x, y, z);
    for (int u = 0; u < U; ++u) avx512::store(c + i + 8 * u, z[u]);
  }
}

/// detail::fused_hadamard on 8 pairs per 16-element group, two groups at a time. Pairs
/// (x[2i], x[2i+1]) are split into their halves by unpacklo/unpackhi over the group's two
/// vectors (lane order: pairs 0, 4, 1, 5, 2, 6, 3, 7, which the ±α² table follows) and merged
/// back the same way. Per pair: u = a0·b0, v = a1·b1, s = (a0 + a1)(b0 + b1), c1 = s − u − v,
/// c0 = u ± α²·v, the three general products as Montgomery products with b taken to the
/// Montgomery domain once.
void Avx512NttKernel::fused_hadamard(const u64* a, const u64* b, u64* c) const {
  constexpr int G = 2;  // n/16 ≥ 2 groups, an even number
  const V q = mont_.q;
  const V q2 = _mm512_add_epi64(q, q);
  for (std::size_t g = 0; g < tb_.n / 16; g += G) {
    V x[3 * G], y[3 * G], p[3 * G];  // per group k: [3k] = u, [3k+1] = v, [3k+2] = s operands
    for (int k = 0; k < G; ++k) {
      const u64* pa = a + 16 * (g + k);
      const u64* pb = b + 16 * (g + k);
      const V a_lo = avx512::load(pa), a_hi = avx512::load(pa + 8);
      const V b_lo = avx512::load(pb), b_hi = avx512::load(pb + 8);
      x[3 * k] = _mm512_unpacklo_epi64(a_lo, a_hi);                                   // a0, [0, q)
      x[3 * k + 1] = _mm512_unpackhi_epi64(a_lo, a_hi);                               // a1
      x[3 * k + 2] = _mm512_add_epi64(x[3 * k], x[3 * k + 1]);                        // [0, 2q)
      y[3 * k] = avx512::csub(mont_.to_mont(_mm512_unpacklo_epi64(b_lo, b_hi)), q2);  // [0, 2q)
      y[3 * k + 1] = avx512::csub(mont_.to_mont(_mm512_unpackhi_epi64(b_lo, b_hi)), q2);
      y[3 * k + 2] = avx512::csub(_mm512_add_epi64(y[3 * k], y[3 * k + 1]), q2);  // [0, 2q)
    }
    mont_.redc_mul<3 * G>(x, y, p);  // every product < 4q² ≤ q·2^64; results in [0, q)
    for (int k = 0; k < G; ++k) {
      const V u = p[3 * k], v = p[3 * k + 1], s = p[3 * k + 2];
      const V c1 = avx512::sub_mod(avx512::sub_mod(s, u, q), v, q);
      const avx512::VTw alpha2 = avx512::load_lanes(&tb_.fused_alpha2[24 * (g + k)]);
      const V z = avx512::csub(avx512::csub(avx512::mul_shoup_lazy4(v, alpha2, q), q2), q);
      const V c0 = avx512::add_mod(u, z, q);  // u ± α²·v
      avx512::store(c + 16 * (g + k), _mm512_unpacklo_epi64(c0, c1));
      avx512::store(c + 16 * (g + k) + 8, _mm512_unpackhi_epi64(c0, c1));
    }
  }
}

}  // namespace

std::unique_ptr<NttKernel64> make_avx512_ntt_kernel(const NttTables64& t) {
  if (t.n < kMinN) return nullptr;  // the scalar kernel serves n < 32
  auto integer = std::make_unique<Avx512NttKernel>(t);
  // Below 2^50 the double-precision transform, 1.2-1.4x this kernel's speed on an Intel core (on
  // a Zen 5 core the integer one is faster, but no AMD core takes this path); its element-wise
  // products stay this kernel's.
  if (t.q < (u64{1} << 50)) return make_avx512_fma_ntt_kernel(t, std::move(integer));
  return integer;
}

}  // namespace polyhe::cpu
