// polyhe::vec on the CPU path chosen as users choose it (POLYHE_CPU; CTest runs this binary once
// per path, and a path this CPU lacks skips, naming the reason): every operation equals a
// double-word (unsigned __int128) reference bit for bit, for every length 0..40, 4096 and
// 2^17 + 3, on random and edge values, at both ends of every modulus size class, aliased and
// not, one limb and many.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "cpu/elementwise_kernel.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/cpu/features.hpp"
#include "support/cpu_path_test.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

using ElementwisePaths = test::CpuPathTest;

/// The largest and the smallest prime of each boundary length (IFMA: below 2^50; AVX-512: up to
/// 62 bits), and the moduli at the edges of the kernels' ranges: the tiniest, 2^49 (which IFMA
/// leaves to AVX-512), 2^50 − 1 (the largest IFMA serves), 2^61 (no [GPU-Polymul, Alg. 4]) and
/// 2^62 − 1.
std::vector<u64> test_moduli() {
  std::vector<u64> qs = {2, 3, u64{1} << 49, (u64{1} << 50) - 1, u64{1} << 61, (u64{1} << 62) - 1};
  for (int bits : {20, 32, 49, 50, 61, 62}) {
    u64 top = (u64{1} << bits) - 1;
    while (!is_prime(top)) --top;
    u64 bottom = (u64{1} << (bits - 1)) + 1;
    while (!is_prime(bottom)) ++bottom;
    qs.push_back(top);
    qs.push_back(bottom);
  }
  return qs;
}

/// Uniform words with edge values (0, 1, 2, q−2, q−1) mixed in at a quarter of the positions.
std::vector<u64> sample(test::TestRng& rng, std::size_t n, u64 q) {
  const u64 edges[] = {0, 1, 2 % q, (q - 2) % q, q - 1};
  std::vector<u64> v(n);
  for (auto& x : v) x = rng.uniform(0, 3) == 0 ? edges[rng.uniform(0, 4)] : rng.uniform(0, q - 1);
  return v;
}

enum class Op {
  add,
  sub,
  negate,
  multiply,
  multiply_scalar,
  multiply_accumulate,
  multiply_add,  // d = c's old value in a separate buffer, c the output
  sub_multiply_scalar
};
constexpr Op kOps[] = {Op::add,
                       Op::sub,
                       Op::negate,
                       Op::multiply,
                       Op::multiply_scalar,
                       Op::multiply_accumulate,
                       Op::multiply_add,
                       Op::sub_multiply_scalar};

bool takes_scalar(Op op) {
  return op == Op::multiply_scalar || op == Op::sub_multiply_scalar;
}

const char* name(Op op) {
  switch (op) {
    case Op::add: return "add";
    case Op::sub: return "sub";
    case Op::negate: return "negate";
    case Op::multiply: return "multiply";
    case Op::multiply_scalar: return "multiply_scalar";
    case Op::multiply_accumulate: return "multiply_accumulate";
    case Op::multiply_add: return "multiply_add";
    case Op::sub_multiply_scalar: return "sub_multiply_scalar";
  }
  return "?";
}

/// The reference: one word by double-word arithmetic; c is the accumulator's old value.
u64 reference(Op op, u64 a, u64 b, u64 c, u64 s, u64 q) {
  const u128 Q = q;
  switch (op) {
    case Op::add: return static_cast<u64>((u128{a} + b) % Q);
    case Op::sub: return static_cast<u64>((u128{a} + Q - b) % Q);
    case Op::negate: return static_cast<u64>((Q - a) % Q);
    case Op::multiply: return static_cast<u64>(u128{a} * b % Q);
    case Op::multiply_scalar: return static_cast<u64>(u128{a} * s % Q);
    case Op::multiply_accumulate:
    case Op::multiply_add: return static_cast<u64>((u128{a} * b + c) % Q);
    case Op::sub_multiply_scalar: return static_cast<u64>((u128{a} + Q - b) % Q * s % Q);
  }
  return 0;
}

/// The operation through the public one-modulus API.
void apply(Op op, std::span<const u64> a, std::span<const u64> b, u64 s, std::span<u64> c,
           const Modulus<u64>& q) {
  switch (op) {
    case Op::add: vec::add(a, b, c, q); return;
    case Op::sub: vec::sub(a, b, c, q); return;
    case Op::negate: vec::negate(a, c, q); return;
    case Op::multiply: vec::multiply(a, b, c, q); return;
    case Op::multiply_scalar: vec::multiply_scalar(a, s, c, q); return;
    case Op::multiply_accumulate: vec::multiply_accumulate(a, b, c, q); return;
    case Op::multiply_add: {
      const std::vector<u64> d(c.begin(), c.end());
      vec::multiply_add(a, b, d, c, q);
      return;
    }
    case Op::sub_multiply_scalar: vec::sub_multiply_scalar(a, b, s, c, q); return;
  }
}

/// Checks op on (a, b, c0) against the reference three ways: c separate, c aliasing a, and
/// c aliasing b. The operands sit at word offset `off` of their buffers (unaligned when odd).
void check_op(Op op, const std::vector<u64>& a, const std::vector<u64>& b,
              const std::vector<u64>& c0, u64 s, const Modulus<u64>& q, std::size_t off,
              const std::string& where) {
  const std::size_t n = a.size();
  const u64 qv = q.value();
  const auto buffer = [&](const std::vector<u64>& x) {
    std::vector<u64> buf(n + off, 0);
    std::copy(x.begin(), x.end(), buf.begin() + static_cast<std::ptrdiff_t>(off));
    return buf;
  };
  const auto view = [&](std::vector<u64>& buf) { return std::span<u64>(buf).subspan(off, n); };
  std::vector<u64> ba = buffer(a), bb = buffer(b), bc = buffer(c0);
  apply(op, view(ba), view(bb), s, view(bc), q);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(view(bc)[i], reference(op, a[i], b[i], c0[i], s, qv))
        << name(op) << " " << where << " i=" << i << " a=" << a[i] << " b=" << b[i];
  }
  // c = a: for multiply_accumulate the accumulator is then a itself.
  std::vector<u64> xa = buffer(a);
  apply(op, view(xa), view(bb), s, view(xa), q);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(view(xa)[i], reference(op, a[i], b[i], a[i], s, qv))
        << name(op) << " (c = a) " << where << " i=" << i;
  }
  if (op == Op::negate || op == Op::multiply_scalar) return;
  std::vector<u64> xb = buffer(b);
  apply(op, view(ba), view(xb), s, view(xb), q);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(view(xb)[i], reference(op, a[i], b[i], b[i], s, qv))
        << name(op) << " (c = b) " << where << " i=" << i;
  }
}

TEST_F(ElementwisePaths, KernelsFollowThePathAndTheSizeClass) {
  for (u64 q : test_moduli()) {
    const CpuPath got = cpu::elementwise_kernels(path_, q).path;
    CpuPath want = path_;
    if (path_ == CpuPath::ifma && !cpu::ifma_serves(q)) want = CpuPath::avx512;
    EXPECT_EQ(got, want) << "q = " << q << " on path " << to_string(path_);
  }
  EXPECT_TRUE(cpu::ifma_serves((u64{1} << 50) - 1));
  EXPECT_FALSE(cpu::ifma_serves(u64{1} << 50));
  EXPECT_FALSE(cpu::ifma_serves(u64{1} << 49));
}

TEST_F(ElementwisePaths, EveryLengthEqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(4096);
  lengths.push_back((std::size_t{1} << 17) + 3);
  for (u64 qv : test_moduli()) {
    const Modulus<u64> q(qv);
    for (std::size_t n : lengths) {
      const auto a = sample(rng, n, qv), b = sample(rng, n, qv), c = sample(rng, n, qv);
      for (Op op : kOps) {
        for (u64 s : {u64{0}, u64{1}, qv - 1, rng.uniform(0, qv - 1)}) {
          if (!takes_scalar(op) && s != 0) continue;
          check_op(op, a, b, c, s, q, n % 2,
                   "q=" + std::to_string(qv) + " n=" + std::to_string(n) +
                       " s=" + std::to_string(s) + " path " + std::string(to_string(path_)));
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

/// Every pair of edge values, as one vector per operand.
TEST_F(ElementwisePaths, EdgeValuePairs) {
  for (u64 qv : test_moduli()) {
    const Modulus<u64> q(qv);
    const std::vector<u64> edges = {0, 1, 2 % qv, (qv - 2) % qv, qv - 1, qv / 2, (qv + 1) / 2 % qv};
    std::vector<u64> a, b, c;
    for (u64 x : edges) {
      for (u64 y : edges) {
        for (u64 z : edges) {
          a.push_back(x);
          b.push_back(y);
          c.push_back(z);
        }
      }
    }
    for (Op op : kOps) {
      for (u64 s : edges) {
        if (!takes_scalar(op) && s != 0) continue;
        check_op(op, a, b, c, s, q, 1, "q=" + std::to_string(qv) + " s=" + std::to_string(s));
        if (HasFatalFailure()) return;
      }
    }
  }
}

/// The limb-batched forms equal the one-modulus forms limb by limb, inline and on the pool.
TEST_F(ElementwisePaths, LimbBatchesEqualPerLimbCalls) {
  POLYHE_SEEDED_RNG(rng);
  const std::vector<u64> qvs = {(u64{1} << 62) - 57, (u64{1} << 50) - 27, (u64{1} << 49) + 69,
                                (u64{1} << 20) - 3, (u64{1} << 61) - 1};
  std::vector<Modulus<u64>> moduli;
  moduli.reserve(qvs.size());
  for (u64 q : qvs) moduli.emplace_back(q);
  // The last two sizes exceed kParallelMinWords in all: those calls run on the pool, in chunks
  // that split limbs (2^14 + 5 words: three chunks, the last one short).
  static_assert(((std::size_t{1} << 14) + 5) * 5 >= vec::kParallelMinWords);
  for (std::size_t n : {std::size_t{1}, std::size_t{37}, std::size_t{4096},
                        (std::size_t{1} << 14) + 5, std::size_t{1} << 15}) {
    const std::size_t words = n * moduli.size();
    std::vector<u64> a(words), b(words), c0(words), scalars;
    for (std::size_t i = 0; i < moduli.size(); ++i) {
      const u64 q = moduli[i].value();
      for (std::size_t j = 0; j < n; ++j) {
        a[i * n + j] = rng.uniform(0, q - 1);
        b[i * n + j] = rng.uniform(0, q - 1);
        c0[i * n + j] = rng.uniform(0, q - 1);
      }
      scalars.push_back(rng.uniform(0, q - 1));
    }
    for (Op op : kOps) {
      std::vector<u64> want = c0;
      for (std::size_t i = 0; i < moduli.size(); ++i) {
        const auto limb = [&](const std::vector<u64>& x) {
          return std::span<const u64>(x).subspan(i * n, n);
        };
        apply(op, limb(a), limb(b), scalars[i], std::span<u64>(want).subspan(i * n, n), moduli[i]);
      }
      for (unsigned threads : {0U, 1U, 2U, 3U}) {
        std::vector<u64> got = c0;
        switch (op) {
          case Op::add: vec::add(a, b, got, moduli, threads); break;
          case Op::sub: vec::sub(a, b, got, moduli, threads); break;
          case Op::negate: vec::negate(a, got, moduli, threads); break;
          case Op::multiply: vec::multiply(a, b, got, moduli, threads); break;
          case Op::multiply_scalar: vec::multiply_scalar(a, scalars, got, moduli, threads); break;
          case Op::multiply_accumulate: vec::multiply_accumulate(a, b, got, moduli, threads); break;
          case Op::multiply_add: vec::multiply_add(a, b, c0, got, moduli, threads); break;
          case Op::sub_multiply_scalar:
            vec::sub_multiply_scalar(a, b, scalars, got, moduli, threads);
            break;
        }
        ASSERT_EQ(got, want) << name(op) << " n=" << n << " threads=" << threads;
      }
    }
  }
}

/// The centred lift of residues mod p to q against the double-word reference, for sources
/// narrower and wider than the target and for the 52-bit boundary of the IFMA kernel.
TEST_F(ElementwisePaths, LiftCentredEqualsTheReference) {
  POLYHE_SEEDED_RNG(rng);
  const std::vector<u64> sources = {2,
                                    3,
                                    97,
                                    (u64{1} << 40) - 87,
                                    (u64{1} << 50) - 27,
                                    (u64{1} << 52) - 47,
                                    u64{1} << 52,
                                    (u64{1} << 60) - 93,
                                    (u64{1} << 62) - 57};
  for (u64 qv : test_moduli()) {
    const Modulus<u64> q(qv);
    for (u64 p : sources) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{13}, std::size_t{1000}}) {
        std::vector<u64> x(n);
        const u64 edges[] = {0, 1, p / 2, (p / 2 + 1) % p, p - 1};
        for (auto& w : x)
          w = rng.uniform(0, 2) == 0 ? edges[rng.uniform(0, 4)] : rng.uniform(0, p - 1);
        std::vector<u64> c(n);
        vec::lift_centred(x, p, c, q);
        for (std::size_t i = 0; i < n; ++i) {
          // x − p mod q, computed as x + (q − p mod q) in 128 bits.
          const u64 want = x[i] > p / 2 ? static_cast<u64>((u128{x[i]} + qv - p % qv) % qv)
                                        : static_cast<u64>(x[i] % qv);
          ASSERT_EQ(c[i], want) << "q=" << qv << " p=" << p << " x=" << x[i] << " path "
                                << to_string(path_);
        }
        std::vector<u64> in_place = x;
        vec::lift_centred(in_place, p, in_place, q);
        ASSERT_EQ(in_place, c) << "in place, q=" << qv << " p=" << p;
      }
    }
  }
  // Every limb of the batched form equals the one-modulus form, inline and on the pool.
  const std::vector<Modulus<u64>> moduli = {Modulus<u64>((u64{1} << 62) - 57),
                                            Modulus<u64>((u64{1} << 50) - 27),
                                            Modulus<u64>((u64{1} << 20) - 3)};
  const u64 p = (u64{1} << 40) - 87;
  const std::size_t n = std::size_t{1} << 15;
  std::vector<u64> x(n);
  for (auto& w : x) w = rng.uniform(0, p - 1);
  std::vector<u64> want(moduli.size() * n);
  for (std::size_t i = 0; i < moduli.size(); ++i) {
    vec::lift_centred(x, p, std::span<u64>(want).subspan(i * n, n), moduli[i]);
  }
  for (unsigned threads : {0U, 1U, 2U}) {
    std::vector<u64> got(moduli.size() * n);
    vec::lift_centred(x, p, got, moduli, threads);
    ASSERT_EQ(got, want) << "threads=" << threads;
  }
}

/// The interleaved key of vec::key_inner_products, built from separate rows by the layout's
/// definition: group g of G = min(8, n) residues holds b_0, a_0, b_1, a_1, … side by side, each
/// residue `width` little-endian bytes; when G does not divide n, the last n mod G residues form
/// one final group of that size.
std::vector<std::uint8_t> interleave(const std::vector<std::vector<u64>>& b,
                                     const std::vector<std::vector<u64>>& a, std::size_t n,
                                     std::size_t width) {
  const std::size_t parts = b.size();
  const std::size_t group = std::min<std::size_t>(n, 8);
  std::vector<std::uint8_t> key(2 * parts * n * width);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < parts; ++j) {
      for (std::size_t h = 0; h < 2; ++h) {
        const u64 x = (h == 0 ? b : a)[j][i];
        const std::size_t full = n - n % group;
        const std::size_t rest = n - full;
        const std::size_t word = i < full
                                     ? ((i / group) * 2 * parts + 2 * j + h) * group + i % group
                                     : full * 2 * parts + (2 * j + h) * rest + (i - full);
        for (std::size_t byte = 0; byte < width; ++byte) {
          key[word * width + byte] = static_cast<std::uint8_t>(x >> (8 * byte));
        }
      }
    }
  }
  return key;
}

/// Key-switching inner products against per-word double-word sums: every group width (n < 8),
/// n not a multiple of 8 (a final smaller group),
/// fewer terms than parts (lower levels), one term, more terms than the lazy IFMA sums hold, and
/// every residue width from the narrowest that holds q to 8 bytes.
TEST_F(ElementwisePaths, KeyInnerProductsEqualTheReference) {
  POLYHE_SEEDED_RNG(rng);
  struct Shape {
    std::size_t parts, terms, n;
  };
  std::vector<Shape> shapes;
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8},
                        std::size_t{24}, std::size_t{2048}, std::size_t{13}, std::size_t{30},
                        std::size_t{8190}}) {  // 8190 = φ(8191): a tail of 6
    for (std::size_t parts : {std::size_t{1}, std::size_t{3}, std::size_t{9}}) {
      for (std::size_t terms : {std::size_t{1}, parts - 1, parts}) {
        if (terms >= 1) shapes.push_back({parts, terms, n});
      }
    }
  }
  shapes.push_back({2049, 2049, 8});  // beyond kWeightedSumMaxTerms: the IFMA path falls back
  for (u64 qv : {(u64{1} << 62) - 57, (u64{1} << 50) - 27, (u64{1} << 40) - 87, u64{1} << 61,
                 u64{97}, u64{257}}) {
    const Modulus<u64> q(qv);
    const std::size_t narrowest = (static_cast<std::size_t>(std::bit_width(qv - 1)) + 7) / 8;
    for (std::size_t width = narrowest; width <= 8; ++width) {
      for (const Shape& sh : shapes) {
        if (sh.parts == 2049 && width != narrowest) continue;
        std::vector<std::vector<u64>> x(sh.terms), b(sh.parts), a(sh.parts);
        for (auto& v : x) v = sample(rng, sh.n, qv);
        for (auto& v : b) v = sample(rng, sh.n, qv);
        for (auto& v : a) v = sample(rng, sh.n, qv);
        const std::vector<std::uint8_t> key = interleave(b, a, sh.n, width);
        std::vector<const u64*> px;
        px.reserve(x.size());
        for (const auto& v : x) px.push_back(v.data());
        std::vector<u64> c0(sh.n), c1(sh.n);
        vec::key_inner_products(px, key, sh.parts, width, c0, c1, q);
        for (std::size_t i = 0; i < sh.n; ++i) {
          u128 s0 = 0, s1 = 0;
          for (std::size_t j = 0; j < sh.terms; ++j) {
            s0 = (s0 + u128{x[j][i]} * b[j][i]) % qv;
            s1 = (s1 + u128{x[j][i]} * a[j][i]) % qv;
          }
          ASSERT_EQ(c0[i], static_cast<u64>(s0))
              << "q=" << qv << " width=" << width << " parts=" << sh.parts << " terms=" << sh.terms
              << " n=" << sh.n << " i=" << i;
          ASSERT_EQ(c1[i], static_cast<u64>(s1))
              << "q=" << qv << " width=" << width << " parts=" << sh.parts << " terms=" << sh.terms
              << " n=" << sh.n << " i=" << i;
        }
      }
    }
  }
}

/// Key-switching inner products of the largest words (every digit and key residue q − 1), whose
/// sums are the largest the lazy kernels see: random words stay far below them (a lazy sum of one
/// term too many overflows only here), for term counts around the lazy limits and two groups
/// (the last read exactly).
TEST_F(ElementwisePaths, KeyInnerProductsOfTheLargestWords) {
  for (u64 qv : {(u64{1} << 62) - 57, (u64{1} << 60) - 93, (u64{1} << 52) - 47, (u64{1} << 50) - 27,
                 (u64{1} << 49) - 81}) {
    const Modulus<u64> q(qv);
    for (std::size_t terms : {1, 8, 9, 15, 16, 17, 31, 40}) {
      for (std::size_t width :
           {(static_cast<std::size_t>(std::bit_width(qv - 1)) + 7) / 8, std::size_t{8}}) {
        const std::size_t n = 16;
        const std::vector<std::vector<u64>> x(terms, std::vector<u64>(n, qv - 1));
        const std::vector<std::vector<u64>> rows(terms, std::vector<u64>(n, qv - 1));
        const std::vector<std::uint8_t> key = interleave(rows, rows, n, width);
        std::vector<const u64*> px;
        px.reserve(terms);
        for (const auto& v : x) px.push_back(v.data());
        std::vector<u64> c0(n), c1(n);
        vec::key_inner_products(px, key, terms, width, c0, c1, q);
        // Σ (q − 1)² = terms mod q.
        const u64 want = terms % qv;
        for (std::size_t i = 0; i < n; ++i) {
          ASSERT_EQ(c0[i], want) << "q=" << qv << " terms=" << terms << " width=" << width;
          ASSERT_EQ(c1[i], want) << "q=" << qv << " terms=" << terms << " width=" << width;
        }
      }
    }
  }
}

/// Gathers through random index maps (permutations and arbitrary maps) for every length 0..40
/// and a long one, plain and accumulating, against the obvious loop.
TEST_F(ElementwisePaths, GathersEqualTheReference) {
  POLYHE_SEEDED_RNG(rng);
  const u64 qv = (u64{1} << 50) - 27;
  const Modulus<u64> q(qv);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(std::size_t{1} << 14);
  for (std::size_t n : lengths) {
    const std::size_t src = n + 5;
    std::vector<u64> a(src);
    for (auto& x : a) x = rng.uniform(0, qv - 1);
    std::vector<std::uint32_t> index(n);
    for (auto& i : index) i = static_cast<std::uint32_t>(rng.uniform(0, src - 1));
    std::vector<u64> c(n), want(n);
    vec::gather(a, index, c);
    for (std::size_t i = 0; i < n; ++i) want[i] = a[index[i]];
    ASSERT_EQ(c, want) << "gather n=" << n;
    std::vector<u64> acc(n);
    for (auto& x : acc) x = rng.uniform(0, qv - 1);
    for (std::size_t i = 0; i < n; ++i) want[i] = (acc[i] + a[index[i]]) % qv;
    vec::gather_add(a, index, acc, q);
    ASSERT_EQ(acc, want) << "gather_add n=" << n;
  }
  // Edge values: q − 1 + q − 1 wraps once.
  const std::vector<u64> a(16, qv - 1);
  std::vector<std::uint32_t> index(16, 3);
  std::vector<u64> acc(16, qv - 1);
  vec::gather_add(a, index, acc, q);
  EXPECT_EQ(acc, std::vector<u64>(16, qv - 2));
}

/// Gathers through maps that send each aligned group of eight outputs to one aligned group of eight
/// inputs (the shape the vector kernels take in one load and a permute): random such maps, the
/// automorphisms of the evaluation form (bit-reversed slots, as ring/automorphism.cpp builds them),
/// such maps with single groups broken (one index moved to another group), and groups whose
/// source group runs past the end of the input (which must be read word by word); plain and
/// accumulating, against the obvious loop.
TEST_F(ElementwisePaths, GathersOfGroupedMapsEqualTheReference) {
  POLYHE_SEEDED_RNG(rng);
  const u64 qv = (u64{1} << 50) - 27;
  const Modulus<u64> q(qv);
  const auto check = [&](std::span<const u64> a, const std::vector<std::uint32_t>& index,
                         const std::string& what) {
    const std::size_t n = index.size();
    std::vector<u64> c(n), want(n);
    vec::gather(a, index, c);
    for (std::size_t i = 0; i < n; ++i) want[i] = a[index[i]];
    ASSERT_EQ(c, want) << "gather, " << what;
    std::vector<u64> acc(n);
    for (auto& x : acc) x = rng.uniform(0, qv - 1);
    for (std::size_t i = 0; i < n; ++i) acc[i] = i % 5 == 0 ? qv - 1 : acc[i];  // wraps
    for (std::size_t i = 0; i < n; ++i) want[i] = (acc[i] + a[index[i]]) % qv;
    vec::gather_add(a, index, acc, q);
    ASSERT_EQ(acc, want) << "gather_add, " << what;
  };
  for (const std::size_t n : {std::size_t{8}, std::size_t{16}, std::size_t{64}, std::size_t{1024},
                              std::size_t{1} << 14}) {
    std::vector<u64> a(n);
    for (auto& x : a) x = rng.uniform(0, qv - 1);
    for (std::size_t i = 0; i < n; i += 7) a[i] = qv - 1;
    const std::size_t groups = n / 8;
    // Random grouped maps: a random permutation of the groups, a random one within each.
    std::vector<std::uint32_t> order(groups);
    for (std::size_t g = 0; g < groups; ++g) order[g] = static_cast<std::uint32_t>(g);
    std::vector<std::uint32_t> index(n);
    for (int trial = 0; trial < 3; ++trial) {
      for (std::size_t g = groups; g > 1; --g)
        std::swap(order[g - 1], order[rng.uniform(0, g - 1)]);
      for (std::size_t g = 0; g < groups; ++g) {
        std::array<std::uint32_t, 8> lane{0, 1, 2, 3, 4, 5, 6, 7};
        for (std::size_t r = 8; r > 1; --r) std::swap(lane[r - 1], lane[rng.uniform(0, r - 1)]);
        for (std::size_t r = 0; r < 8; ++r) index[8 * g + r] = 8 * order[g] + lane[r];
      }
      check(a, index, "random grouped map, n=" + std::to_string(n));
      // The same map with every third group broken from the second on (one index moved to
      // another group: those groups word by word, the others as before), and with only the
      // first broken (the kernels then take the scalar loop throughout).
      std::vector<std::uint32_t> broken = index;
      for (std::size_t g = 1; g < groups; g += 3) {
        broken[8 * g + rng.uniform(0, 7)] =
            static_cast<std::uint32_t>((8 * (order[g] + 1) + rng.uniform(0, 7)) % n);
      }
      check(a, broken, "broken groups, n=" + std::to_string(n));
      broken = index;
      broken[rng.uniform(0, 7)] = static_cast<std::uint32_t>((8 * (order[0] + 1)) % n);
      check(a, broken, "first group broken, n=" + std::to_string(n));
    }
    // The automorphisms x -> x^k of the evaluation form: slot t holds the value at the
    // (2·bitrev(t) + 1)-th power of the root, and σ_k reads slot bitrev(((2·bitrev(t) + 1)·k mod
    // 2n − 1) / 2).
    const int log_n = std::countr_zero(n);
    const auto bitrev = [log_n](std::size_t x) {
      std::size_t y = 0;
      for (int b = 0; b < log_n; ++b) y |= ((x >> b) & 1U) << (log_n - 1 - b);
      return y;
    };
    for (const std::size_t k : {std::size_t{3}, std::size_t{5}, 2 * n - 1, 2 * n / 3 | 1}) {
      for (std::size_t t = 0; t < n; ++t) {
        const std::size_t e = ((2 * bitrev(t) + 1) * k) % (2 * n);
        index[t] = static_cast<std::uint32_t>(bitrev((e - 1) / 2));
      }
      check(a, index, "automorphism k=" + std::to_string(k) + ", n=" + std::to_string(n));
    }
  }
  // A source of 13 words: a group of outputs reading only words 8..12 lies in one aligned group
  // whose eight words would run past the end, so it must be read word by word (under ASan a
  // vector load there is an error); the next group is whole.
  std::vector<u64> a(13);
  for (auto& x : a) x = rng.uniform(0, qv - 1);
  std::vector<std::uint32_t> index = {8, 12, 9, 11, 10, 8, 12, 9, 7, 6, 5, 4, 3, 2, 1, 0, 12};
  check(a, index, "source group past the end");
}

/// The fused tensor equals four separate calls, inline and on the pool, across block edges.
TEST_F(ElementwisePaths, TensorEqualsSeparateProducts) {
  POLYHE_SEEDED_RNG(rng);
  const std::vector<Modulus<u64>> moduli = {Modulus<u64>((u64{1} << 62) - 57),
                                            Modulus<u64>((u64{1} << 50) - 27),
                                            Modulus<u64>((u64{1} << 20) - 3)};
  for (std::size_t n : {std::size_t{1}, std::size_t{2049}, std::size_t{1} << 14}) {
    const std::size_t words = n * moduli.size();
    std::vector<std::vector<u64>> in(4, std::vector<u64>(words));
    for (auto& v : in) {
      for (std::size_t i = 0; i < moduli.size(); ++i) {
        for (std::size_t j = 0; j < n; ++j) v[i * n + j] = rng.uniform(0, moduli[i].value() - 1);
      }
    }
    std::vector<u64> w0(words), w1(words), w2(words);
    vec::multiply(in[0], in[2], w0, moduli, 1);
    vec::multiply(in[0], in[3], w1, moduli, 1);
    vec::multiply_accumulate(in[1], in[2], w1, moduli, 1);
    vec::multiply(in[1], in[3], w2, moduli, 1);
    for (unsigned threads : {0U, 1U, 2U}) {
      std::vector<u64> c0(words), c1(words), c2(words);
      vec::tensor(in[0], in[1], in[2], in[3], c0, c1, c2, moduli, threads);
      ASSERT_EQ(c0, w0) << "n=" << n << " threads=" << threads;
      ASSERT_EQ(c1, w1) << "n=" << n << " threads=" << threads;
      ASSERT_EQ(c2, w2) << "n=" << n << " threads=" << threads;
    }
  }
}

TEST(ElementwiseChecks, RejectsBadTensors) {
  const std::vector<Modulus<u64>> two = {Modulus<u64>(97), Modulus<u64>(193)};
  std::vector<u64> a(8, 1), b(8, 1), c0(8), c1(8), c2(8), shorter(6);
  EXPECT_THROW(vec::tensor(a, a, b, shorter, c0, c1, c2, two), InvalidParameter);
  EXPECT_THROW(vec::tensor(a, a, b, b, c0, c1, shorter, two), InvalidParameter);
  EXPECT_THROW(vec::tensor(a, a, b, b, a, c1, c2, two), InvalidParameter);   // c0 is an input
  EXPECT_THROW(vec::tensor(a, a, b, b, c0, c0, c2, two), InvalidParameter);  // outputs alias
  std::vector<u64> odd(7, 1), o0(7), o1(7), o2(7);
  EXPECT_THROW(vec::tensor(odd, odd, odd, odd, o0, o1, o2, two), InvalidParameter);  // limbs
  EXPECT_NO_THROW(vec::tensor(a, a, b, b, c0, c1, c2, two));
  EXPECT_EQ(c1, std::vector<u64>(8, 2));
}

TEST(ElementwiseChecks, RejectsBadLiftsAndInnerProducts) {
  const Modulus<u64> q(97);
  std::vector<u64> x(8, 1), c(8), short_c(7);
  EXPECT_THROW(vec::lift_centred(x, 1, c, q), InvalidParameter);
  EXPECT_THROW(vec::lift_centred(x, u64{1} << 62, c, q), InvalidParameter);
  EXPECT_THROW(vec::lift_centred(x, 193, short_c, q), InvalidParameter);
  try {
    vec::lift_centred(x, 1, c, q);
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("p = 1"), std::string::npos) << e.what();
  }
  std::vector<u64> big(16, 1);
  EXPECT_THROW(vec::lift_centred(std::span<const u64>(big.data(), 8), 193,
                                 std::span<u64>(big.data() + 1, 8), q),
               InvalidParameter);
  const std::vector<Modulus<u64>> two = {Modulus<u64>(97), Modulus<u64>(193)};
  EXPECT_THROW(vec::lift_centred(x, 193, c, two), InvalidParameter);  // 8 words, not 2 limbs

  // key_inner_products: one term, one part of 8 residues of 8 bytes (key = b_0, a_0).
  std::vector<u64> t0(8, 1), o0(8), o1(8);
  std::vector<u64> key_words(16, 1);
  const std::span<std::uint8_t> key(reinterpret_cast<std::uint8_t*>(key_words.data()), 128);
  const std::vector<const u64*> terms = {t0.data()};
  EXPECT_NO_THROW(vec::key_inner_products(terms, key, 1, 8, o0, o1, q));
  EXPECT_EQ(o0, std::vector<u64>(8, 1));
  EXPECT_THROW(vec::key_inner_products(terms, key, 0, 8, o0, o1, q), InvalidParameter);  // 1 > 0
  const std::vector<const u64*> none;
  EXPECT_THROW(vec::key_inner_products(none, key, 1, 8, o0, o1, q), InvalidParameter);
  const std::vector<const u64*> null_term = {nullptr};
  EXPECT_THROW(vec::key_inner_products(null_term, key, 1, 8, o0, o1, q), InvalidParameter);
  EXPECT_THROW(vec::key_inner_products(terms, key.first(127), 1, 8, o0, o1, q),
               InvalidParameter);  // not 2·parts·n·width bytes
  EXPECT_NO_THROW(vec::key_inner_products(terms, key.first(16), 1, 1, o0, o1, q));  // 97: 1 byte
  const Modulus<u64> wide_q(257);  // 257 − 1 needs two bytes
  EXPECT_THROW(vec::key_inner_products(terms, key.first(16), 1, 1, o0, o1, wide_q),
               InvalidParameter);
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 9, o0, o1, q), InvalidParameter);
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 0, o0, o1, q), InvalidParameter);
  std::vector<u64> t12(12, 1), key12(24, 1), o12a(12), o12b(12);
  const std::vector<const u64*> terms12 = {t12.data()};
  // 12 residues: a group of 8 and a final group of 4 (rings Φ_m with 8 ∤ φ(m)); the values are
  // checked in KeyInnerProductsEqualTheReference.
  EXPECT_NO_THROW(vec::key_inner_products(
      terms12,
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(key12.data()), 192), 1, 8,
      o12a, o12b, q));
  EXPECT_EQ(o12a, std::vector<u64>(12, 1));  // 1·1 mod 97, every residue
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 8, o0, o0, q), InvalidParameter);  // c1 = c0
  std::vector<u64> o_short(4);
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 8, o0, o_short, q), InvalidParameter);
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 8, t0, o1, q),
               InvalidParameter);  // c0 = term
  EXPECT_THROW(vec::key_inner_products(terms, key, 1, 8, std::span<u64>(key_words).first(8), o1, q),
               InvalidParameter);  // c0 inside the key
  try {
    vec::key_inner_products(terms, key, 0, 8, o0, o1, q);
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("1 terms for a key of 0 parts"), std::string::npos)
        << e.what();
  }

  const std::vector<std::uint32_t> idx(7, 0);
  EXPECT_THROW(vec::gather(x, idx, c), InvalidParameter);  // 7 indices, 8 outputs
  std::vector<u64> self(8, 1);
  const std::vector<std::uint32_t> idx8(8, 0);
  EXPECT_THROW(vec::gather(self, idx8, self), InvalidParameter);  // output overlaps the input
  EXPECT_THROW(vec::gather_add(self, idx8, self, q), InvalidParameter);
}

TEST(ElementwiseChecks, RejectsBadArguments) {
  const Modulus<u64> q(97);
  std::vector<u64> a(8, 1), b(7, 1), c(8), big(16, 1);
  EXPECT_THROW(vec::add(a, b, c, q), InvalidParameter);
  EXPECT_THROW(vec::multiply(b, a, c, q), InvalidParameter);
  EXPECT_THROW(vec::negate(b, c, q), InvalidParameter);
  EXPECT_THROW(vec::multiply_scalar(a, 97, c, q), InvalidParameter);
  EXPECT_NO_THROW(vec::multiply_scalar(a, 96, c, q));
  const Modulus<u64> wide((u64{1} << 62) + 135);  // 63 bits: a Modulus, but not for vec
  try {
    vec::add(a, a, c, wide);
    FAIL() << "63-bit q accepted";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("62"), std::string::npos) << e.what();
  }
  // Partial overlap: c shifted by one word against a.
  std::span<const u64> head(big.data(), 8);
  std::span<u64> shifted(big.data() + 1, 8);
  EXPECT_THROW(vec::add(head, a, shifted, q), InvalidParameter);
  EXPECT_THROW(vec::multiply_accumulate(a, head, shifted, q), InvalidParameter);
  EXPECT_THROW(vec::multiply_add(a, a, head, shifted, q), InvalidParameter);  // d overlaps c
  EXPECT_THROW(vec::multiply_add(a, a, std::span<const u64>(big.data(), 7), c, q),
               InvalidParameter);                                        // d of 7 words
  EXPECT_NO_THROW(vec::multiply_add(a, a, c, c, q));                     // d = c exactly
  EXPECT_NO_THROW(vec::add(head, a, std::span<u64>(big.data(), 8), q));  // exact alias

  const std::vector<Modulus<u64>> two = {Modulus<u64>(97), Modulus<u64>(193)};
  std::vector<u64> odd(15, 1), odd_c(15);
  EXPECT_THROW(vec::add(odd, odd, odd_c, two), InvalidParameter);  // not whole limbs
  const std::vector<u64> scalars_one = {5};
  EXPECT_THROW(vec::multiply_scalar(big, scalars_one, big, two), InvalidParameter);
  const std::vector<u64> scalars_big = {5, 193};
  EXPECT_THROW(vec::multiply_scalar(big, scalars_big, big, two), InvalidParameter);
  const std::vector<Modulus<u64>> none;
  EXPECT_THROW(vec::add(a, a, c, none), InvalidParameter);
  std::vector<u64> empty;
  EXPECT_NO_THROW(vec::add(empty, empty, empty, none));
  EXPECT_NO_THROW(vec::add(empty, empty, empty, two));
}

}  // namespace
}  // namespace polyhe
