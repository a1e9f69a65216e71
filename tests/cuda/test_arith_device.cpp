// Every reduction of the catalogue and one CT and one GS butterfly of every policy, run in CUDA
// kernels (device_ops.cu) on seeded random inputs and edge cases, must equal the host result bit
// for bit, on both words and several moduli per word. Skips, with the reason, without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cuda/device_ops.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe::test {
namespace {

constexpr std::size_t kRandomLanes = std::size_t{1} << 14;

// The product that needs two corrections in the Barrett variants of Özerk et al. [Ozerk21] and
// Lee et al. [Lee21] ([GPU-Polymul] §II-B, next to [GPU-Polymul, Alg. 3]): a·b mod q, 32-bit words.
constexpr std::uint32_t kPaperA = 994674970;
constexpr std::uint32_t kPaperB = 994705408;
constexpr std::uint32_t kPaperQ = 994705409;

template <Word W>
std::vector<W> test_moduli();

// Largest sizes each reduction serves (31 bits: add/sub, Shoup, Montgomery only; 30: classical
// Barrett and [GPU-Polymul, Alg. 4]; 28: Dhem–Quisquater), the paper's q, a small prime and an
// even modulus.
template <>
std::vector<std::uint32_t> test_moduli() {
  return {2147483647U,  // 2^31 − 1: 31 bits, q − 1 = 2·odd ([FPGA-FV, Alg. 5]: k = 1, 31 rounds)
          2013265921U,   // 15·2^27 + 1: 31 bits, NTT-friendly
          1073479681U,   // largest 30-bit prime ≡ 1 mod 2^17
          kPaperQ,       // 30 bits, q − 1 = 7589·2^17
          268369921U,    // 2^28 − 2^16 + 1: largest 28-bit prime ≡ 1 mod 2^13
          12289U,        // 14 bits
          1000000000U};  // even, 30 bits: Barrett and Shoup only
}

template <>
std::vector<std::uint64_t> test_moduli() {
  return {9223372036854775783ULL,   // largest 63-bit prime, q − 1 = 2·odd
          9223372036844421121ULL,   // 63-bit prime ≡ 1 mod 2^17
          4611686018425815041ULL,   // largest 62-bit prime ≡ 1 mod 2^17
          1152921504606584833ULL,   // largest 60-bit prime ≡ 1 mod 2^17
          1125899903827969ULL,      // 50 bits
          68719403009ULL,           // 36 bits
          65537ULL,                 // 17 bits
          1000000000000000000ULL};  // even, 60 bits
}

template <Word W>
W below(TestRng& rng, std::uint64_t bound) {
  return static_cast<W>(rng.uniform(0, bound - 1));
}

template <Word W>
W any_word(TestRng& rng) {
  return static_cast<W>(rng.bits());
}

u128 wide_below(TestRng& rng, u128 bound) {
  const u128 r = (static_cast<u128>(rng.bits()) << 64) | rng.bits();
  return r % bound;
}

/// The lane whose (a, b) is x split into high and low words (ReduceOp joins them back).
template <Word W>
In<W> split(u128 x) {
  return {static_cast<W>(x >> word_bits<W>), static_cast<W>(x), 0, 0};
}

/// Runs ops on host and device and compares; counts which ops ran so a test can insist that
/// every op met at least one modulus.
template <Word W>
class Checker {
 public:
  explicit Checker(TestRng& rng) : rng_(rng) {}

  TestRng& rng() { return rng_; }

  /// Edge lanes followed by kRandomLanes lanes drawn by gen.
  template <class Op, class Gen>
  void run(const Op& op, const std::string& name, std::vector<In<W>> lanes, Gen gen) {
    ++ran_[name];
    SCOPED_TRACE(name);
    for (std::size_t i = 0; i < kRandomLanes; ++i) lanes.push_back(gen(rng_));
    std::vector<Out<W>> host(lanes.size());
    for (std::size_t i = 0; i < lanes.size(); ++i) host[i] = op(lanes[i]);
    std::vector<Out<W>> device;
    try {
      device = run_on_device(op, lanes);
    } catch (const DeviceError& e) {
      ADD_FAILURE() << e.what();
      return;
    }
    ASSERT_EQ(device.size(), host.size());
    std::size_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      const Out<W>& h = host[i];
      const Out<W>& d = device[i];
      if (h.r0 != d.r0 || h.r1 != d.r1 || h.r2 != d.r2) {
        if (mismatches++ == 0) first = i;
      }
    }
    if (mismatches != 0) {
      const In<W>& x = lanes[first];
      const Out<W>& h = host[first];
      const Out<W>& d = device[first];
      ADD_FAILURE() << mismatches << " of " << lanes.size() << " lanes differ; first, lane "
                    << first << ": in (" << x.a << ", " << x.b << ", " << x.c << ", " << x.d
                    << ") host (" << h.r0 << ", " << h.r1 << ", " << h.r2 << ") device (" << d.r0
                    << ", " << d.r1 << ", " << d.r2 << ")";
    }
  }

  void expect_ran(const std::vector<std::string>& names) const {
    for (const auto& name : names) {
      EXPECT_TRUE(ran_.contains(name)) << name << " met no modulus it can serve";
    }
  }

 private:
  TestRng& rng_;
  std::map<std::string, int> ran_;
};

/// (a, b) pairs below q: 0, 1, q − 1, and the paper's pair where it fits.
template <Word W>
std::vector<In<W>> pair_edges(W q) {
  std::vector<In<W>> e = {{0, 0, 0, 0},
                          {0, q - 1, 0, 0},
                          {1, 1, 0, 0},
                          {1, q - 1, 0, 0},
                          {q - 1, q - 1, 0, 0},
                          {q - 1, 1, 0, 0},
                          {q / 2, q / 2 + 1, 0, 0}};
  if (q > kPaperB) e.push_back({kPaperA, kPaperB, 0, 0});
  return e;
}

/// Double words below bound: 0, 1, q − 1, q, (q − 1)², the paper's product, bound − 1.
template <Word W>
std::vector<In<W>> wide_edges(W q, u128 bound) {
  std::vector<In<W>> e;
  const u128 qm1 = q - 1;
  for (u128 x :
       {u128{0}, u128{1}, qm1, qm1 + 1, qm1 * qm1, u128{kPaperA} * kPaperB, bound / 2, bound - 1}) {
    if (x < bound) e.push_back(split<W>(x));
  }
  return e;
}

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      GTEST_SKIP() << "no CUDA device: " << cudaGetErrorString(err)
                   << " (cudaGetDeviceCount returned " << cudaGetErrorName(err) << ")";
    }
    if (count == 0) GTEST_SKIP() << "no CUDA device: cudaGetDeviceCount found 0 devices";
  }
};

template <class W>
class ArithDevice : public DeviceTest {};

struct WordName {
  template <class W>
  static std::string GetName(int) {
    return "u" + std::to_string(word_bits<W>);
  }
};

using Words = ::testing::Types<std::uint32_t, std::uint64_t>;
TYPED_TEST_SUITE(ArithDevice, Words, WordName);

TYPED_TEST(ArithDevice, Additions) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  Checker<W> check(rng);
  for (const W q : test_moduli<W>()) {
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    const auto below_q = [q](TestRng& r) { return In<W>{below<W>(r, q), below<W>(r, q), 0, 0}; };
    check.run(AddSubModOp<W>{q}, "add_mod/sub_mod", pair_edges(q), below_q);
    check.run(NegModOp<W>{q}, "neg_mod", pair_edges(q), below_q);
    if (mod.bits() <= word_bits<W> - 2) {
      const W top = static_cast<W>((W{1} << mod.bits()) - 1);  // 2^K − 1
      check.run(LazyAddSubOp<W>{q}, "add_lazy_ct/sub_lazy_ct",
                {{0, 0, 0, 0},
                 {top, top, 0, 0},
                 {0, top, 0, 0},
                 {top, 0, 0, 0},
                 {q, q, 0, 0},
                 {q - 1, q, 0, 0}},
                [top](TestRng& r) {
                  return In<W>{below<W>(r, top + std::uint64_t{1}),
                               below<W>(r, top + std::uint64_t{1}), 0, 0};
                });
    }
    if (q % 2 == 1) {
      check.run(HalveModOp<W>{q}, "halve_mod",
                {{0, 0, 0, 0},
                 {1, 0, 0, 0},
                 {q - 1, 0, 0, 0},
                 {q, 0, 0, 0},
                 {static_cast<W>(2 * q - 1), 0, 0, 0}},
                [q](TestRng& r) {
                  return In<W>{below<W>(r, std::uint64_t{2} * q), 0, 0, 0};
                });
    }
  }
  check.expect_ran({"add_mod/sub_mod", "neg_mod", "add_lazy_ct/sub_lazy_ct", "halve_mod"});
}

TYPED_TEST(ArithDevice, BarrettReductions) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  Checker<W> check(rng);
  for (const W q : test_moduli<W>()) {
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    const u128 bound = u128{1} << (2 * mod.bits());  // [GPU-Polymul, Algs. 2–4] accept x < 2^(2m)
    const auto below_bound = [bound](TestRng& r) { return split<W>(wide_below(r, bound)); };
    const auto below_q = [q](TestRng& r) { return In<W>{below<W>(r, q), below<W>(r, q), 0, 0}; };
    if (mod.supports(Reduction::barrett_classical)) {
      check.run(BarrettClassicalReduceOp<W>{mod.barrett_classical()}, "barrett_classical_reduce",
                wide_edges(q, bound), below_bound);
      check.run(BarrettClassicalMulOp<W>{mod.barrett_classical()}, "mul_mod(BarrettClassical)",
                pair_edges(q), below_q);
    }
    if (mod.supports(Reduction::barrett_dq)) {
      check.run(BarrettDQReduceOp<W>{mod.barrett_dq()}, "barrett_dq_reduce", wide_edges(q, bound),
                below_bound);
      check.run(BarrettDQMulOp<W>{mod.barrett_dq()}, "mul_mod(BarrettDQ)", pair_edges(q), below_q);
    }
    if (mod.supports(Reduction::barrett_alg4)) {
      check.run(BarrettAlg4ReduceOp<W>{mod.barrett_alg4()}, "barrett_alg4_reduce",
                wide_edges(q, bound), below_bound);
      check.run(BarrettAlg4MulOp<W>{mod.barrett_alg4()}, "mul_mod(BarrettAlg4)", pair_edges(q),
                below_q);
    }
  }
  check.expect_ran({"barrett_classical_reduce", "mul_mod(BarrettClassical)", "barrett_dq_reduce",
                    "mul_mod(BarrettDQ)", "barrett_alg4_reduce", "mul_mod(BarrettAlg4)"});
}

TYPED_TEST(ArithDevice, MontgomeryReductions) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  Checker<W> check(rng);
  for (const W q : test_moduli<W>()) {
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    if (!mod.supports(Reduction::montgomery)) continue;  // even q
    const auto below_q = [q](TestRng& r) { return In<W>{below<W>(r, q), below<W>(r, q), 0, 0}; };
    const u128 redc_bound = static_cast<u128>(q) << word_bits<W>;  // REDC accepts T < q·2^β
    check.run(MontgomeryReduceOp<W>{mod.montgomery()}, "montgomery_reduce",
              wide_edges(q, redc_bound),
              [redc_bound](TestRng& r) { return split<W>(wide_below(r, redc_bound)); });
    check.run(MontgomeryMulOp<W>{mod.montgomery()}, "montgomery_mul/mul_mod(Montgomery)",
              pair_edges(q), below_q);
    const u128 ntt_bound = static_cast<u128>(q) * q;  // [FPGA-FV, Alg. 5] accepts T < q²
    check.run(MontgomeryNttReduceOp<W>{mod.montgomery_ntt()}, "montgomery_ntt_reduce",
              wide_edges(q, ntt_bound),
              [ntt_bound](TestRng& r) { return split<W>(wide_below(r, ntt_bound)); });
    check.run(MontgomeryNttMulOp<W>{mod.montgomery_ntt()},
              "montgomery_ntt_mul/mul_mod(MontgomeryNtt)", pair_edges(q), below_q);
  }
  check.expect_ran({"montgomery_reduce", "montgomery_mul/mul_mod(Montgomery)",
                    "montgomery_ntt_reduce", "montgomery_ntt_mul/mul_mod(MontgomeryNtt)"});
}

TYPED_TEST(ArithDevice, Shoup) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  Checker<W> check(rng);
  for (const W q : test_moduli<W>()) {
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    std::vector<In<W>> edges;
    for (W a : {W{0}, W{1}, static_cast<W>(q - 1), q, static_cast<W>(~W{0})}) {
      for (W w : {W{0}, W{1}, static_cast<W>(q - 1)})
        edges.push_back({a, w, mod.shoup(w).w_shoup, 0});
    }
    // mul_shoup_lazy accepts any word a.
    check.run(MulShoupOp<W>{q}, "mul_shoup/mul_shoup_lazy", edges, [&mod, q](TestRng& r) {
      const W w = below<W>(r, q);
      return In<W>{any_word<W>(r), w, mod.shoup(w).w_shoup, 0};
    });
  }
  check.expect_ran({"mul_shoup/mul_shoup_lazy"});
}

/// ct on (x, y) below ct_bound, gs on (x, y) below gs_bound, and the policy's products, each with
/// a twiddle w < q and its Shoup companion.
template <Word W, template <class> class Ct, template <class> class Gs, template <class> class Mul,
          class P>
void check_policy(Checker<W>& check, const Modulus<W>& mod, const std::string& name,
                  const P& policy, std::uint64_t ct_bound, std::uint64_t gs_bound) {
  const W q = mod.value();
  const auto edges = [&mod, q](std::uint64_t bound) {
    std::vector<In<W>> e;
    const W top = static_cast<W>(bound - 1);
    for (W w : {W{0}, W{1}, static_cast<W>(q - 1)}) {
      const W ws = mod.shoup(w).w_shoup;
      const std::pair<W, W> corners[] = {{0, 0}, {top, top}, {0, top}, {top, 0}, {q - 1, q - 1}};
      for (const auto& [x, y] : corners) e.push_back({x, y, w, ws});
    }
    return e;
  };
  const auto draw = [&mod, q](std::uint64_t bound) {
    return [&mod, q, bound](TestRng& r) {
      const W w = below<W>(r, q);
      return In<W>{below<W>(r, bound), below<W>(r, bound), w, mod.shoup(w).w_shoup};
    };
  };
  check.run(Ct<W>{policy}, name + ".ct", edges(ct_bound), draw(ct_bound));
  check.run(Gs<W>{policy}, name + ".gs", edges(gs_bound), draw(gs_bound));
  check.run(Mul<W>{policy}, name + ".mul/mul_tw", edges(q), draw(q));
}

TYPED_TEST(ArithDevice, Butterflies) {
  using W = TypeParam;
  POLYHE_SEEDED_RNG(rng);
  Checker<W> check(rng);
  for (const W q : test_moduli<W>()) {
    SCOPED_TRACE("q = " + std::to_string(q));
    const Modulus<W> mod(q);
    if (q % 2 == 0) continue;  // every GS butterfly halves: odd q only
    check_policy<W, CtReferenceButterfly, GsReferenceButterfly, MulReferenceButterfly>(
        check, mod, "ReferenceButterfly", ReferenceButterfly<W>{nullptr, nullptr, q}, q, q);
    check_policy<W, CtMontgomeryButterfly, GsMontgomeryButterfly, MulMontgomeryButterfly>(
        check, mod, "ReducedButterfly<Montgomery>",
        MontgomeryButterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.montgomery()}}, q, q);
    check_policy<W, CtMontgomeryNttButterfly, GsMontgomeryNttButterfly, MulMontgomeryNttButterfly>(
        check, mod, "ReducedButterfly<MontgomeryNtt>",
        MontgomeryNttButterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.montgomery_ntt()}}, q,
        q);
    if (mod.supports(Reduction::barrett_classical)) {
      check_policy<W, CtClassicalButterfly, GsClassicalButterfly, MulClassicalButterfly>(
          check, mod, "ReducedButterfly<BarrettClassical>",
          ClassicalButterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.barrett_classical()}},
          q, q);
    }
    if (mod.supports(Reduction::barrett_dq)) {
      check_policy<W, CtDQButterfly, GsDQButterfly, MulDQButterfly>(
          check, mod, "ReducedButterfly<BarrettDQ>",
          DQButterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.barrett_dq()}}, q, q);
    }
    if (mod.supports(Reduction::barrett_alg4)) {  // also len(q) ≤ β−2, as the lazy ranges need
      check_policy<W, CtAlg4Butterfly, GsAlg4Butterfly, MulAlg4Butterfly>(
          check, mod, "ReducedButterfly<BarrettAlg4>",
          Alg4Butterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.barrett_alg4()}}, q, q);
      check_policy<W, CtShoupButterfly, GsShoupButterfly, MulShoupButterfly>(
          check, mod, "ReducedButterfly<Shoup>",
          ShoupButterfly<W>{nullptr, nullptr, nullptr, nullptr, q, {mod.barrett_alg4(), q}}, q, q);
      const ShoupLazyButterfly<W> lazy{nullptr, nullptr, nullptr, nullptr, q, mod.barrett_alg4()};
      // Harvey's ranges: ct in [0, 4q), gs in [0, 2q).
      check_policy<W, CtShoupLazyButterfly, GsShoupLazyButterfly, MulShoupLazyButterfly>(
          check, mod, "ShoupLazyButterfly", lazy, std::uint64_t{4} * q, std::uint64_t{2} * q);
      check.run(LazyOutOp<W>{lazy}, "ShoupLazyButterfly.fwd_out/inv_out",
                {{0, 0, 0, 0},
                 {static_cast<W>(4 * q - 1), static_cast<W>(2 * q - 1), 0, 0},
                 {q, q, 0, 0}},
                [q](TestRng& r) {
                  return In<W>{below<W>(r, std::uint64_t{4} * q), below<W>(r, std::uint64_t{2} * q),
                               0, 0};
                });
    }
  }
  std::vector<std::string> names;
  for (const char* p :
       {"ReferenceButterfly", "ReducedButterfly<Montgomery>", "ReducedButterfly<MontgomeryNtt>",
        "ReducedButterfly<BarrettClassical>", "ReducedButterfly<BarrettDQ>",
        "ReducedButterfly<BarrettAlg4>", "ReducedButterfly<Shoup>", "ShoupLazyButterfly"}) {
    for (const char* op : {".ct", ".gs", ".mul/mul_tw"}) names.push_back(std::string(p) + op);
  }
  names.push_back("ShoupLazyButterfly.fwd_out/inv_out");
  check.expect_ran(names);
}

}  // namespace
}  // namespace polyhe::test
