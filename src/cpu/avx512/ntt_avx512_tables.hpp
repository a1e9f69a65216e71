// The AVX-512 kernel's tables, built once from the plan's (NttTables64) and immutable after:
//   fwd, inv            ψ^±br(i) for i < n/8 with ω' and ω' >> 32, broadcast by the passes;
//   fwd_split, ...      ψ^±br(i) for n/8 ≤ i < n as arrays of ω and of ω', loaded 2, 4 or 8
//                       consecutive entries at a time by the in-register stages (t = 4, 2, 1);
//   inverse_final, ...  the scaled twiddles of the last inverse stage (1/N and 2/N);
//   fused_alpha2        ±α² per pair of the fused Karatsuba product, in its lane order.
// About 17 bytes per element and direction (the data itself is 8).
#pragma once

#include <array>
#include <cstddef>
#include <new>
#include <vector>

#include "cpu/ntt_kernel.hpp"
#include "ntt_avx512_simd.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/aligned.hpp"

namespace polyhe::cpu::avx512 {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see ntt_avx512_simd.hpp

/// 64-byte aligned storage (core/aligned.hpp), so that table rows load with aligned loads.
template <class T>
using AVec = AlignedVector<T>;

using u128 = unsigned __int128;

inline u64 mulmod(u64 a, u64 b, u64 q) {
  return static_cast<u64>(static_cast<u128>(a) * b % q);
}

inline Tw3 make_tw3(u64 w, u64 q) {
  const u64 s = static_cast<u64>((static_cast<u128>(w) << 64) / q);  // ⌊ω·2^64/q⌋
  return {w, s, s >> 32};
}

/// The twiddles ψ^br(i) for n/8 ≤ i < n (the in-register stages t = 4, 2, 1) as two arrays,
/// ω and ω', 64-byte aligned, so that 2, 4 or 8 consecutive entries load straight into a
/// register (ω' >> 32 is computed when needed: a shift is cheaper than a third stream of tables).
struct SplitTable {
  std::size_t first = 0;  // n/8 rounded down to a multiple of 8: entry n/2 + 8g stays 64-aligned
  AVec<u64> w, shoup;

  SplitTable() = default;
  SplitTable(const AVec<Tw3>& t, std::size_t n)
      : first(n / 8 / 8 * 8), w(n - first), shoup(n - first) {
    for (std::size_t i = first; i < n; ++i) {
      w[i - first] = t[i].w;
      shoup[i - first] = t[i].shoup;
    }
  }
  [[nodiscard]] const u64* w_at(std::size_t i) const { return &w[i - first]; }
  [[nodiscard]] const u64* shoup_at(std::size_t i) const { return &shoup[i - first]; }
};

/// Writes the three components of `tw` at one lane of an entry of 24 words (ω ×8, ω' ×8,
/// ω' >> 32 ×8), the layout load_lanes reads.
inline void put_lane(u64* entry, int lane, const Tw3& tw) {
  entry[lane] = tw.w;
  entry[8 + lane] = tw.shoup;
  entry[16 + lane] = tw.shoup_hi;
}

/// ±α² per pair of the fused product (arith/ntt_schedule.hpp): pair i uses +ψ^br(n/4 + ⌊i/2⌋) for
/// even i and its negation for odd i. Per 16-element group, 24 words in the lane order of
/// unpacklo(P, Q) over the group's two vectors: pairs 0, 4, 1, 5, 2, 6, 3, 7.
inline AVec<u64> build_fused_alpha2(const NttTables64& t) {
  AVec<u64> out(t.n / 16 * 24);
  constexpr std::array<std::size_t, 8> kPairOfLane = {0, 4, 1, 5, 2, 6, 3, 7};
  for (std::size_t g = 0; g < t.n / 16; ++g) {
    for (int l = 0; l < 8; ++l) {
      const std::size_t i = 8 * g + kPairOfLane[l];
      const u64 w = t.fwd[t.n / 4 + i / 2];  // non-zero: a power of ψ
      put_lane(&out[g * 24], l, make_tw3(i % 2 == 0 ? w : t.q - w, t.q));
    }
  }
  return out;
}

/// The scale s and the scaled twiddle ψ^−br(1)·s of the last inverse stage.
struct FinalStage {
  Tw3 scale, w_scaled;
};

struct KernelTables {
  std::size_t n = 0;
  int log_n = 0;
  u64 q = 0;
  AVec<Tw3> fwd, inv;  // index i < n/8: ψ^br(i), ψ^−br(i) (unhalved), for broadcasts
  SplitTable fwd_split, inv_split;  // n/8 ≤ i < n, struct-of-arrays
  AVec<u64> fused_alpha2;           // 24 words per 16 elements
  FinalStage inverse_final;         // s = 1/N
  FinalStage truncated_final;       // s = 2/N (the fused product already did one halving stage)
  u64 q_inv = 0;                    // q^−1 mod 2^64
  Tw3 r_mod_q{};                    // 2^64 mod q

  explicit KernelTables(const NttTables64& t) : n(t.n), q(t.q) {
    while ((std::size_t{1} << log_n) < n) ++log_n;
    AVec<Tw3> f(n), v(n);
    for (std::size_t i = 0; i < n; ++i) {
      f[i] = {t.fwd[i], t.fwd_shoup[i], t.fwd_shoup[i] >> 32};
      v[i] = make_tw3(t.inv[i], q);
    }
    fwd_split = SplitTable(f, n);
    inv_split = SplitTable(v, n);
    fwd.assign(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n / 8));
    inv.assign(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 8));
    fused_alpha2 = build_fused_alpha2(t);
    const u64 inv_n = inverse_mod(pow_mod(2, static_cast<u64>(log_n), q), q);
    inverse_final = final_stage(inv_n);
    truncated_final = final_stage(mulmod(inv_n, 2, q));
    q_inv = q;  // Newton: each step doubles the correct low bits (q·q ≡ 1 mod 8 to start)
    for (int k = 0; k < 5; ++k) q_inv *= 2 - q * q_inv;
    r_mod_q = make_tw3((u64{0} - q) % q, q);
  }

 private:
  [[nodiscard]] FinalStage final_stage(u64 s) const {
    return {make_tw3(s, q), make_tw3(mulmod(inv[1].w, s, q), q)};
  }
};

}  // namespace
}  // namespace polyhe::cpu::avx512
