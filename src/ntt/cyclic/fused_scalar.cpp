// The flattened PFA transform on the portable path: eight lanes as a plain array, exact Shoup
// products (lazy bound c = 2q for every len(q) ≤ 62). This is the specification the vector
// kernels are tested against.
#include "fused_kernels.hpp"
#include "polyhe/arith/word.hpp"
#include "powerful_kernels.hpp"

namespace polyhe::cyclic {
namespace {

struct ScalarOps {
  struct V {
    u64 v[kW];
  };
  static constexpr bool kBlocked = false;
  static constexpr std::size_t kStages = 4;  // unused: the stage loops are not blocked
  u64 q;
  u64 c;

  explicit ScalarOps(u64 modulus) : q(modulus), c(2 * modulus) {}

  static V load(const u64* p) {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = p[l];
    return r;
  }
  static void store(u64* p, const V& x) {
    for (std::size_t l = 0; l < kW; ++l) p[l] = x.v[l];
  }
  /// out[i·8 + l] = in[l·pitch + i] for i, l < 8.
  static void transpose8(const u64* in, std::size_t pitch, u64* out) {
    for (std::size_t i = 0; i < kW; ++i) {
      for (std::size_t l = 0; l < kW; ++l) out[i * kW + l] = in[l * pitch + i];
    }
  }
  /// out[i·out_pitch + l] = in[l·in_pitch + i] for i, l < 8.
  static void transpose8_pitched(const u64* in, std::size_t in_pitch, u64* out,
                                 std::size_t out_pitch) {
    u64 r[kW * kW];
    for (std::size_t i = 0; i < kW; ++i) {
      for (std::size_t l = 0; l < kW; ++l) r[i * kW + l] = in[l * in_pitch + i];
    }
    for (std::size_t i = 0; i < kW; ++i) {
      for (std::size_t l = 0; l < kW; ++l) out[i * out_pitch + l] = r[i * kW + l];
    }
  }
  static void permute_in(const FusedTables& tb, const u64* a, u64* rows) {
    permute_in_plain(tb, a, rows);
  }
  static void permute_out(const FusedTables& tb, const u64* rows, u64* a, bool inverse) {
    permute_out_plain(tb, rows, a, inverse);
  }

  /// x − m if x ≥ m, else x.
  static u64 csub(u64 x, u64 m) { return x >= m ? x - m : x; }

  /// Shoup's product with the exact quotient: [0, 2q) for any a < 2^64.
  [[nodiscard]] u64 mul1(u64 a, const FusedTwiddle& t) const {
    return a * t.w - mul_hi(a, t.shoup) * q;
  }

  [[nodiscard]] V mul(const V& a, const FusedTwiddle& t) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = mul1(a.v[l], t);
    return r;
  }
  [[nodiscard]] V add(const V& a, const V& b) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = a.v[l] + b.v[l];
    return r;
  }
  [[nodiscard]] V sub(const V& a, const V& b) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = a.v[l] - b.v[l];
    return r;
  }
  [[nodiscard]] V modulus() const { return splat(q); }
  [[nodiscard]] V bound() const { return splat(c); }
  static V splat(u64 x) {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = x;
    return r;
  }
  [[nodiscard]] V reduce_c(const V& a) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = csub(a.v[l], c);
    return r;
  }
  [[nodiscard]] V out_c(const V& a) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = csub(a.v[l], q);
    return r;
  }
  [[nodiscard]] V out_2c(const V& a) const {
    V r;
    for (std::size_t l = 0; l < kW; ++l) r.v[l] = csub(csub(a.v[l], c), q);
    return r;
  }
  void ct(V& x, V& y, const FusedTwiddle& t) const {
    for (std::size_t l = 0; l < kW; ++l) {
      const u64 x0 = csub(x.v[l], c);
      const u64 r = mul1(y.v[l], t);
      x.v[l] = x0 + r;
      y.v[l] = x0 + c - r;
    }
  }
  void ct1(V& x, V& y) const {
    for (std::size_t l = 0; l < kW; ++l) {
      const u64 x0 = csub(x.v[l], c);
      const u64 r = csub(y.v[l], c);
      x.v[l] = x0 + r;
      y.v[l] = x0 + c - r;
    }
  }
  void gs(V& x, V& y, const FusedTwiddle& t) const {
    for (std::size_t l = 0; l < kW; ++l) {
      const u64 s = x.v[l] + y.v[l];
      const u64 d = x.v[l] + c - y.v[l];
      x.v[l] = csub(s, c);
      y.v[l] = mul1(d, t);
    }
  }
  void gs1(V& x, V& y) const {
    for (std::size_t l = 0; l < kW; ++l) {
      const u64 s = x.v[l] + y.v[l];
      const u64 d = x.v[l] + c - y.v[l];
      x.v[l] = csub(s, c);
      y.v[l] = csub(d, c);
    }
  }
};

void run_scalar(const FusedTables& tb, u64* a, u64* buf, bool inverse) {
  run_fused_with(ScalarOps(tb.q), tb, a, buf, inverse);
}

void run_powerful_scalar(const PowerfulTables& tb, u64* a, u64* buf, bool inverse) {
  run_powerful_with(ScalarOps(tb.q), tb, a, buf, inverse);
}

}  // namespace

FusedKernel fused_kernel_scalar() {
  return &run_scalar;
}

PowerfulKernel powerful_kernel_scalar() {
  return &run_powerful_scalar;
}

}  // namespace polyhe::cyclic
