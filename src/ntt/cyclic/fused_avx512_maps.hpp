// The data movement of the flattened PFA transform on AVX-512 F (internal): loads, 8×8
// transposes and the two maps by whole lines (fused.hpp), shared by the AVX-512 and IFMA
// policies. Include only from translation units compiled with the AVX-512 flags; internal
// linkage, as src/cpu/avx512/lanes.hpp.
#pragma once

// GCC 12 reports its own _mm512_undefined_epi32() (inlined into shifts, products, min) as
// (maybe-)uninitialized (GCC PR 105593, fixed in GCC 13); the pragma must be in force where the
// intrinsics header is read, so it is read here first.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

#include <algorithm>

#include "fused_kernels.hpp"

namespace polyhe::cyclic {
namespace {  // NOLINT(cert-dcl59-cpp, google-build-namespaces): see the file comment

struct Avx512Maps {
  using V = __m512i;
  static constexpr bool kBlocked = true;
  static constexpr std::size_t kStages = 4;  // 16 vectors of the 32 registers

  [[gnu::always_inline]] static V load(const u64* p) { return _mm512_loadu_si512(p); }
  [[gnu::always_inline]] static void store(u64* p, V x) { _mm512_storeu_si512(p, x); }

  /// The 8×8 transpose of r in place (r[i] lane l ← r[l] lane i): pairs of 64-bit words, then
  /// 128-bit halves of lanes, then 256-bit halves (8 unpacks, 8 two-source permutes, 8 shuffles).
  [[gnu::always_inline]] static void transpose(V* r) {
    V t[kW];
    for (std::size_t l = 0; l < kW; l += 2) {
      t[l] = _mm512_unpacklo_epi64(r[l], r[l + 1]);      // words 0 2 4 6 of rows l, l+1
      t[l + 1] = _mm512_unpackhi_epi64(r[l], r[l + 1]);  // words 1 3 5 7
    }
    const V lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const V hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    V u[kW];
    for (std::size_t g = 0; g < kW; g += 4) {                        // rows g … g+3
      u[g] = _mm512_permutex2var_epi64(t[g], lo, t[g + 2]);          // words 0, 4
      u[g + 1] = _mm512_permutex2var_epi64(t[g], hi, t[g + 2]);      // words 2, 6
      u[g + 2] = _mm512_permutex2var_epi64(t[g + 1], lo, t[g + 3]);  // words 1, 5
      u[g + 3] = _mm512_permutex2var_epi64(t[g + 1], hi, t[g + 3]);  // words 3, 7
    }
    constexpr std::size_t kWord[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
    for (std::size_t m = 0; m < 4; ++m) {
      r[kWord[m][0]] = _mm512_shuffle_i64x2(u[m], u[m + 4], 0x44);
      r[kWord[m][1]] = _mm512_shuffle_i64x2(u[m], u[m + 4], 0xEE);
    }
  }

  /// out[i·8 + l] = in[l·pitch + i] for i, l < 8.
  [[gnu::always_inline]] static void transpose8(const u64* in, std::size_t pitch, u64* out) {
    V r[kW];
    for (std::size_t l = 0; l < kW; ++l) r[l] = _mm512_loadu_si512(in + l * pitch);
    transpose(r);
    for (std::size_t i = 0; i < kW; ++i) _mm512_storeu_si512(out + i * kW, r[i]);
  }

  /// out[i·out_pitch + l] = in[l·in_pitch + i] for i, l < 8 (in place when in == out and the
  /// pitches agree: all eight lines are read first).
  [[gnu::always_inline]] static void transpose8_pitched(const u64* in, std::size_t in_pitch,
                                                        u64* out, std::size_t out_pitch) {
    V r[kW];
    for (std::size_t l = 0; l < kW; ++l) r[l] = _mm512_loadu_si512(in + l * in_pitch);
    transpose(r);
    for (std::size_t i = 0; i < kW; ++i) _mm512_storeu_si512(out + i * out_pitch, r[i]);
  }

  /// The eight words a[s], …, a[s + 7] (indices mod n).
  [[gnu::always_inline]] static V load_line(const u64* a, std::size_t s, std::size_t n) {
    if (s + kW <= n) return _mm512_loadu_si512(a + s);
    alignas(64) u64 w[kW];
    for (std::size_t m = 0; m < kW; ++m) w[m] = a[(s + m) % n];
    return _mm512_load_si512(w);
  }

  /// The input map by lines (fused.hpp): the line of eight natural words from (8b, ρ) holds
  /// (8b + m, ρ + m), m < 8. Eight lines ρ0 + l, transposed, give for each m the run
  /// (8b + m, ρ0 + m + l), l < 8: one unaligned store into row 8b + m at column ρ0 + m. Runs
  /// past column n_R − 1 land in the row's padding (P ≥ n_R + 7) and are moved to the row's
  /// start afterwards; the last n_R mod 8 lines go word by word.
  static void permute_in(const FusedTables& tb, const u64* a, u64* rows) {
    if (!tb.line_maps) {
      permute_in_plain(tb, a, rows);
      return;
    }
    const std::size_t n = tb.n;
    const std::size_t nr = tb.last.n;
    const std::size_t pitch = tb.pitch;
    const std::size_t full = nr / kW * kW;
    for (std::size_t b = 0; b < tb.padded_rows / kW; ++b) {
      const std::size_t valid = std::min(kW, tb.rows - b * kW);  // rows of this block
      u64* block = rows + b * kW * pitch;
      const std::uint32_t* starts = tb.line_start.data() + b * nr;
      for (std::size_t r0 = 0; r0 < full; r0 += kW) {
        V r[kW];
        for (std::size_t l = 0; l < kW; ++l) r[l] = load_line(a, starts[r0 + l], n);
        transpose(r);
        for (std::size_t m = 0; m < valid; ++m) {
          _mm512_storeu_si512(block + m * pitch + r0 + m, r[m]);
        }
      }
      for (std::size_t rho = full; rho < nr; ++rho) {
        for (std::size_t m = 0; m < valid; ++m) {
          block[m * pitch + (rho + m) % nr] = a[(starts[rho] + m) % n];
        }
      }
      for (std::size_t m = 0; m < valid; ++m) {
        u64* row = block + m * pitch;
        const std::size_t wrapped = full + m > nr ? full + m - nr : 0;
        for (std::size_t k = 0; k < wrapped; ++k) row[k] = row[nr + k];
        for (std::size_t k = nr; k < pitch; ++k) row[k] = 0;
      }
    }
    for (std::size_t i = tb.rows * pitch; i < tb.padded_rows * pitch; i += kW) {
      _mm512_storeu_si512(rows + i, _mm512_setzero_si512());
    }
  }

  /// The output map by lines: the natural line from (8b, ρ) is lane m of the lane-interleaved
  /// vector (b, ρ + m) for m < 8, assembled by seven masked blends. Inverse: frequency j goes to
  /// position (n − j) mod n, so the line is stored reversed, ending at n − s.
  static void permute_out(const FusedTables& tb, const u64* out, u64* a, bool inverse) {
    if (!tb.line_maps) {
      permute_out_plain(tb, out, a, inverse);
      return;
    }
    const std::size_t n = tb.n;
    const std::size_t nr = tb.last.n;
    const V reverse = _mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    for (std::size_t b = 0; b < tb.padded_rows / kW; ++b) {
      const std::size_t valid = std::min(kW, tb.rows - b * kW);
      const auto mask = static_cast<__mmask8>((1U << valid) - 1);
      const u64* slab = out + b * kW * nr;
      const std::uint32_t* starts = tb.line_start.data() + b * nr;
      for (std::size_t rho = 0; rho < nr; ++rho) {
        V line = _mm512_loadu_si512(slab + rho * kW);
        for (std::size_t m = 1; m < kW; ++m) {
          const std::size_t k = rho + m < nr ? rho + m : rho + m - nr;
          line = _mm512_mask_mov_epi64(line, static_cast<__mmask8>(1U << m),
                                       _mm512_loadu_si512(slab + k * kW));
        }
        const std::size_t s = starts[rho];
        if (!inverse) {
          if (s + kW <= n) {
            _mm512_mask_storeu_epi64(a + s, mask, line);
          } else {
            alignas(64) u64 w[kW];
            _mm512_store_si512(w, line);
            for (std::size_t m = 0; m < valid; ++m) a[(s + m) % n] = w[m];
          }
        } else if (s >= 1 && n - s >= kW - 1) {
          // positions n − s − m, m < valid: lanes 7 − m of the reversed line at n − s − 7
          const auto high = static_cast<__mmask8>(mask << (kW - valid));
          _mm512_mask_storeu_epi64(a + (n - s - (kW - 1)), high,
                                   _mm512_permutexvar_epi64(reverse, line));
        } else {
          alignas(64) u64 w[kW];
          _mm512_store_si512(w, line);
          for (std::size_t m = 0; m < valid; ++m) a[(2 * n - s - m) % n] = w[m];
        }
      }
    }
  }

  /// Broadcasts straight from the table (a load, not a move from a general register).
  [[gnu::always_inline]] static V broadcast(const u64* p) {
    return _mm512_broadcastq_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
};

}  // namespace
}  // namespace polyhe::cyclic
