// RnsPoly on a device: every ring operation on the emulated device (the CUDA kernel bodies and
// block programs run on the host) gives the CPU's words bit for bit, across ring sizes (one-block
// and two-pass transforms), prime sizes and thread orders; placement is explicit and checked.
// Built again with POLYHE_TEST_CUDA_DEVICE against the GPU (tests/cuda, label gpu), where the
// thread order is the hardware's.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "polyhe/backend/emulated.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/ring/key_switching.hpp"
#include "polyhe/ring/poly.hpp"
#include "polyhe/ring/rescale.hpp"
#include "polyhe/rns/base_converter.hpp"
#include "polyhe/rns/scale_rounder.hpp"
#include "ring/ring_cases.hpp"
#include "support/scoped_env.hpp"
#include "support/test_device.hpp"

namespace polyhe {
namespace {

using test::random_poly;
using test::to_vector;

struct Case {
  std::size_t n;
  int bits;
  EmulatedOrder order;
  std::size_t m = 0;  // odd: the ring over Φ_m (n = φ(m)) instead of x^n + 1
};

std::string name_of(const ::testing::TestParamInfo<Case>& info) {
  const char* order = info.param.order == EmulatedOrder::forward   ? "forward"
                      : info.param.order == EmulatedOrder::reverse ? "reverse"
                                                                   : "shuffled";
  const std::string ring =
      info.param.m != 0 ? "m" + std::to_string(info.param.m) : "n" + std::to_string(info.param.n);
  return ring + "_bits" + std::to_string(info.param.bits) + "_" + order;
}

class DevicePolyTest : public ::testing::TestWithParam<Case> {
 protected:
  static constexpr std::size_t kLimbs = 3;
  void SetUp() override {
    const Case& c = GetParam();
    ctx_ = c.m != 0 ? RingContext::create_cyclotomic(c.m, powerful_ntt_primes(c.m, c.bits, kLimbs))
                    : test::make_ring(c.n, kLimbs, c.bits);
#ifdef POLYHE_TEST_CUDA_DEVICE
    std::string why;
    device_ = test::test_device(why);
    if (device_ == nullptr) GTEST_SKIP() << "no CUDA device: " << why;
#else
    device_ = make_emulated_device(GetParam().order, 7);
#endif
  }
  /// The words of p, wherever they live.
  static std::vector<std::uint64_t> words(const RnsPoly& p) {
    return to_vector(p.on_device() ? p.to_host().data() : p.data());
  }
  std::shared_ptr<const RingContext> ctx_;
  std::shared_ptr<Device> device_;
};

TEST_P(DevicePolyTest, RoundTripKeepsWordsFormAndShape) {
  POLYHE_SEEDED_RNG(rng);
  RnsPoly a = random_poly(rng, ctx_, kLimbs);
  a.to_evaluation();
  const RnsPoly d = a.to_device(device_);
  EXPECT_TRUE(d.on_device());
  EXPECT_EQ(d.device(), device_);
  EXPECT_EQ(d.form(), PolyForm::kEvaluation);
  EXPECT_EQ(d.limbs(), kLimbs);
  const RnsPoly back = d.to_host();
  EXPECT_FALSE(back.on_device());
  EXPECT_EQ(to_vector(back.data()), to_vector(a.data()));
  // A copy on the device is its own memory.
  RnsPoly copy = d;
  copy.negate();
  EXPECT_EQ(words(d), to_vector(a.data()));
  EXPECT_NE(words(copy), to_vector(a.data()));
}

TEST_P(DevicePolyTest, WipeZeroesTheDeviceWords) {
  POLYHE_SEEDED_RNG(rng);
  RnsPoly d = random_poly(rng, ctx_, kLimbs).to_device(device_);
  d.drop_last_limb();
  d.wipe();
  EXPECT_TRUE(d.on_device());
  EXPECT_EQ(d.limbs(), kLimbs - 1);
  EXPECT_EQ(words(d), std::vector<std::uint64_t>((kLimbs - 1) * ctx_->n(), 0));
}

TEST_P(DevicePolyTest, TransformsMatchTheCpu) {
  POLYHE_SEEDED_RNG(rng);
  RnsPoly host = random_poly(rng, ctx_, kLimbs);
  RnsPoly dev = host.to_device(device_);
  host.to_evaluation();
  dev.to_evaluation();
  EXPECT_EQ(dev.form(), PolyForm::kEvaluation);
  EXPECT_EQ(words(dev), words(host)) << "forward";
  host.to_coefficient();
  dev.to_coefficient();
  EXPECT_EQ(words(dev), words(host)) << "inverse";
}

// The device rescales every polynomial of a call in the same launches (the last limbs gathered
// side by side, one lift into a buffer per polynomial): 1, 2 and 3 polynomials, out of place and
// in place, μ = 1 (CKKS) and μ = 65537 (BGV's modulus switch), each the CPU's words.
TEST_P(DevicePolyTest, RescaleByLastPrimeMatchesTheCpuForEveryCount) {
  POLYHE_SEEDED_RNG(rng);
  for (const std::uint64_t mu : {std::uint64_t{1}, std::uint64_t{65537}}) {
    for (std::size_t count = 1; count <= 3; ++count) {
      const std::string what = std::to_string(count) + " polynomials, mu " + std::to_string(mu);
      std::vector<RnsPoly> host, dev;
      for (std::size_t j = 0; j < count; ++j) {
        host.push_back(random_poly(rng, ctx_, kLimbs));
        host.back().to_evaluation();
        dev.push_back(host.back().to_device(device_));
      }
      std::vector<const RnsPoly*> host_in, dev_in;
      std::vector<RnsPoly*> host_io, dev_io;
      for (std::size_t j = 0; j < count; ++j) {
        host_in.push_back(&host[j]);
        dev_in.push_back(&dev[j]);
        host_io.push_back(&host[j]);
        dev_io.push_back(&dev[j]);
      }
      // Placeholders: rescale_by_last_prime replaces each with its result.
      std::vector<RnsPoly> host_out(count, RnsPoly(ctx_, 1)), dev_out(count, RnsPoly(ctx_, 1));
      std::vector<RnsPoly*> host_outs, dev_outs;
      for (std::size_t j = 0; j < count; ++j) {
        host_outs.push_back(&host_out[j]);
        dev_outs.push_back(&dev_out[j]);
      }
      rescale_by_last_prime(host_in, host_outs, mu);
      rescale_by_last_prime(dev_in, dev_outs, mu);
      for (std::size_t j = 0; j < count; ++j) {
        EXPECT_TRUE(dev_out[j].on_device()) << what;
        EXPECT_EQ(dev_out[j].level(), kLimbs - 2) << what;
        EXPECT_EQ(words(dev_out[j]), words(host_out[j])) << what << ", out of place, part " << j;
      }
      rescale_by_last_prime_inplace(host_io, mu);
      rescale_by_last_prime_inplace(dev_io, mu);
      for (std::size_t j = 0; j < count; ++j) {
        EXPECT_EQ(dev[j].level(), kLimbs - 2) << what;
        EXPECT_EQ(words(dev[j]), words(host[j])) << what << ", in place, part " << j;
        EXPECT_EQ(words(dev[j]), words(dev_out[j])) << what << ", in place against out of place";
      }
    }
  }
}

// The batched steps of the device schemes (several polynomials in one launch) against the CPU's
// obviously correct forms, one polynomial at a time: copy_batch, sub_multiply_scalar_parts (up to
// 10 polynomials, so that the launches of kBatchPointers split), and convert / scale_round with a
// polynomial count.
TEST_P(DevicePolyTest, BatchedStepsMatchTheCpuPolynomialByPolynomial) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = ctx_->n();
  const auto random_words = [&](const RnsBasis& basis, std::size_t count) {
    std::vector<std::uint64_t> w(count * basis.size() * n);
    for (std::size_t i = 0; i < w.size(); ++i) {
      w[i] = rng.uniform(0, basis.prime((i / n) % basis.size()) - 1);
    }
    return w;
  };
  const auto upload = [&](const std::vector<std::uint64_t>& host) {
    DeviceWords d(device_, host.size());
    device_->upload(host, d.data());
    return d;
  };
  const auto download = [&](const DeviceWords& d) {
    std::vector<std::uint64_t> host(d.words());
    device_->download(d.data(), host);
    return host;
  };
  const RnsBasis& basis = ctx_->basis();
  ASSERT_EQ(basis.size(), kLimbs);
  const std::size_t words = kLimbs * n;

  // copy_batch: 10 pairs (two launches), one of them a pair with dst == src.
  {
    const std::size_t count = 10;
    const std::vector<std::uint64_t> host = random_words(basis, count);
    DeviceWords src = upload(host), dst(device_, count * words);
    device_->zero(dst.data(), dst.words());
    std::vector<const std::uint64_t*> from;
    std::vector<std::uint64_t*> to;
    for (std::size_t p = 0; p < count; ++p) {
      from.push_back(src.data() + p * words);
      to.push_back(p == 4 ? src.data() + p * words : dst.data() + p * words);
    }
    device_->copy_batch(from, to, words);
    const std::vector<std::uint64_t> got = download(dst);
    for (std::size_t p = 0; p < count; ++p) {
      const auto first = static_cast<std::ptrdiff_t>(p * words);
      const std::vector<std::uint64_t> want =
          p == 4 ? std::vector<std::uint64_t>(words, 0)
                 : std::vector<std::uint64_t>(
                       host.begin() + first,
                       host.begin() + first + static_cast<std::ptrdiff_t>(words));
      EXPECT_EQ(std::vector<std::uint64_t>(
                    got.begin() + first, got.begin() + first + static_cast<std::ptrdiff_t>(words)),
                want)
          << "copy_batch, pair " << p;
    }
    EXPECT_EQ(download(src), host) << "copy_batch changed a source";
  }

  // sub_multiply_scalar_parts: c[p] = (a[p] − b_p)·s or c[p] += that, c[0] in place (a[0]).
  std::vector<std::uint64_t> residues(kLimbs);
  for (std::size_t j = 0; j < kLimbs; ++j) residues[j] = rng.uniform(0, basis.prime(j) - 1);
  for (const std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{10}}) {
    for (const bool accumulate : {false, true}) {
      const std::vector<std::uint64_t> ha = random_words(basis, count),
                                       hb = random_words(basis, count),
                                       hc = random_words(basis, count);
      DeviceWords da = upload(ha), db = upload(hb), dc = upload(hc);
      std::vector<const std::uint64_t*> a;
      std::vector<std::uint64_t*> c;
      for (std::size_t p = 0; p < count; ++p) {
        a.push_back(da.data() + p * words);
        c.push_back(p == 0 ? da.data() : dc.data() + p * words);
      }
      device_->sub_multiply_scalar_parts(*ctx_, LimbRange{0, kLimbs}, a, db.data(), residues, c,
                                         accumulate);
      const std::vector<std::uint64_t> got_a = download(da), got_c = download(dc);
      for (std::size_t i = 0; i < count * words; ++i) {
        const std::size_t p = i / words;
        const std::uint64_t q = basis.prime((i % words) / n);
        const std::uint64_t diff = (ha[i] + q - hb[i]) % q;
        std::uint64_t want = static_cast<std::uint64_t>(static_cast<unsigned __int128>(diff) *
                                                        residues[(i % words) / n] % q);
        const std::uint64_t before = p == 0 ? ha[i] : hc[i];
        if (accumulate) want = (before + want) % q;
        ASSERT_EQ(p == 0 ? got_a[i] : got_c[i], want)
            << count << " polynomials, accumulate " << accumulate << ", word " << i;
      }
    }
  }

  // convert (exact and approximate) and scale_round of 1 to 3 polynomials in one call.
  const auto big = test::make_ring(n, 6, GetParam().bits);
  const std::vector<std::uint64_t> primes = big->basis().primes();
  const RnsBasis from(std::vector<std::uint64_t>(primes.begin(), primes.begin() + 3));
  const RnsBasis to(std::vector<std::uint64_t>(primes.begin() + 3, primes.end()));
  const BaseConverter conv(from, to);
  const std::vector<std::size_t> out_limbs = {2, 0, 3};  // into 4 limbs, limb 1 untouched
  const ScaleRounder rounder(from, to, 65537);
  for (std::size_t count = 1; count <= 3; ++count) {
    const std::vector<std::uint64_t> hx = random_words(from, count);
    const std::vector<std::uint64_t> hp = random_words(to, count);
    const DeviceWords dx = upload(hx), dp = upload(hp);
    for (const bool exact : {true, false}) {
      const std::size_t stride = 4 * n;
      std::vector<std::uint64_t> want(count * stride, 7);
      DeviceWords dc = upload(want);
      device_->convert(conv, n, dx.data(), dc.data(), out_limbs, exact, count, stride);
      for (std::size_t p = 0; p < count; ++p) {
        const std::span<const std::uint64_t> in(hx.data() + p * 3 * n, 3 * n);
        const std::span<std::uint64_t> out(want.data() + p * stride, stride);
        if (exact) {
          conv.convert_exact(in, out, out_limbs);
        } else {
          conv.convert_approx(in, out, out_limbs);
        }
      }
      EXPECT_EQ(download(dc), want) << count << " polynomials, exact " << exact;
    }
    DeviceWords dr(device_, count * 3 * n);
    device_->scale_round(rounder, n, dx.data(), dp.data(), dr.data(), count);
    std::vector<std::uint64_t> want(count * 3 * n);
    for (std::size_t p = 0; p < count; ++p) {
      std::vector<std::uint64_t> in(hx.begin() + static_cast<std::ptrdiff_t>(p * 3 * n),
                                    hx.begin() + static_cast<std::ptrdiff_t>((p + 1) * 3 * n));
      in.insert(in.end(), hp.begin() + static_cast<std::ptrdiff_t>(p * 3 * n),
                hp.begin() + static_cast<std::ptrdiff_t>((p + 1) * 3 * n));
      rounder.round(in, std::span<std::uint64_t>(want.data() + p * 3 * n, 3 * n));
    }
    EXPECT_EQ(download(dr), want) << count << " polynomials, scale_round";
  }
}

// lift_forward_sub (rescale's and ModDown's last steps in two launches where the transform takes
// two passes, the steps one by one below that) against the CPU: the centred lift of each part's
// limb modulo p = the last prime to the other limbs, times a factor per limb or not (BGV's μ),
// their forward transforms (RnsPoly on the host), then (a − ·)·s or c += that, with 128-bit
// arithmetic; 1–3 parts, one of them in place.
TEST_P(DevicePolyTest, LiftForwardSubMatchesTheCpu) {
  POLYHE_SEEDED_RNG(rng);
  const std::size_t n = ctx_->n();
  const std::size_t limbs = kLimbs - 1;
  const std::uint64_t p = ctx_->basis().prime(kLimbs - 1);
  const std::size_t words = limbs * n;
  std::vector<std::uint64_t> residues(limbs), some_factors(limbs);
  for (std::size_t j = 0; j < limbs; ++j) {
    residues[j] = rng.uniform(0, ctx_->basis().prime(j) - 1);
    some_factors[j] = rng.uniform(0, ctx_->basis().prime(j) - 1);
  }
  for (const bool scaled : {false, true}) {
    const std::span<const std::uint64_t> factors =
        scaled ? std::span<const std::uint64_t>(some_factors) : std::span<const std::uint64_t>{};
    for (std::size_t parts = 1; parts <= 3; ++parts) {
      for (const bool accumulate : {false, true}) {
        std::vector<std::uint64_t> hx(parts * n), ha(parts * words), hc(parts * words);
        for (auto& v : hx) v = rng.uniform(0, p - 1);
        for (std::size_t i = 0; i < ha.size(); ++i) {
          const std::uint64_t q = ctx_->basis().prime((i % words) / n);
          ha[i] = rng.uniform(0, q - 1);
          hc[i] = rng.uniform(0, q - 1);
        }
        DeviceWords dx(device_, hx.size()), da(device_, ha.size()), dc(device_, hc.size());
        device_->upload(hx, dx.data());
        device_->upload(ha, da.data());
        device_->upload(hc, dc.data());
        std::vector<const std::uint64_t*> a;
        std::vector<std::uint64_t*> c;
        for (std::size_t i = 0; i < parts; ++i) {
          a.push_back(da.data() + i * words);
          c.push_back(i == 0 ? da.data() : dc.data() + i * words);  // part 0 in place
        }
        device_->lift_forward_sub(*ctx_, limbs, dx.data(), p, a, residues, c, accumulate, factors);
        std::vector<std::uint64_t> got_a(ha.size()), got_c(hc.size());
        device_->download(da.data(), got_a);
        device_->download(dc.data(), got_c);
        for (std::size_t i = 0; i < parts; ++i) {
          RnsPoly y(ctx_, limbs, PolyForm::kCoefficient);
          for (std::size_t j = 0; j < limbs; ++j) {
            const auto q = static_cast<__int128>(ctx_->basis().prime(j));
            for (std::size_t k = 0; k < n; ++k) {
              const std::uint64_t v = hx[i * n + k];
              const __int128 centred = v > p / 2 ? static_cast<__int128>(v) - p : v;
              const __int128 lift = ((centred % q) + q) % q;
              y.limb(j)[k] = static_cast<std::uint64_t>(scaled ? lift * some_factors[j] % q : lift);
            }
          }
          y.to_evaluation();
          for (std::size_t w = 0; w < words; ++w) {
            const std::size_t j = w / n;
            const std::uint64_t q = ctx_->basis().prime(j);
            const std::uint64_t diff = (ha[i * words + w] + q - y.limb(j)[w % n]) % q;
            std::uint64_t want =
                static_cast<std::uint64_t>(static_cast<unsigned __int128>(diff) * residues[j] % q);
            const std::uint64_t before = i == 0 ? ha[i * words + w] : hc[i * words + w];
            if (accumulate) want = (before + want) % q;
            ASSERT_EQ(i == 0 ? got_a[w] : got_c[i * words + w], want)
                << parts << " parts, accumulate " << accumulate << ", scaled " << scaled
                << ", part " << i << ", word " << w;
          }
        }
      }
    }
  }
}

// lift_digits_forward (ModUp of one-prime digits with the lift as the load of the transforms'
// first pass where they take two passes; the lift, then the transforms below that) against the
// CPU: buffer j, limb t = the centred lift of digit j (modulo q_j) to the prime of ring limb
// t (Q_l's limbs 0 … 2, then P's from ring limb 4: limb 3 is skipped, as a lower level leaves
// it), transformed by the ring on the host.
TEST_P(DevicePolyTest, LiftDigitsForwardMatchesTheCpu) {
  POLYHE_SEEDED_RNG(rng);
  const auto ring = test::make_ring(ctx_->n(), 6, GetParam().bits);
  const std::size_t n = ring->n();
  const std::size_t q_limbs = 3, p_first = 4, p_limbs = 2, limbs = q_limbs + p_limbs;
  for (std::size_t digits = 1; digits <= q_limbs; ++digits) {
    std::vector<std::uint64_t> hx(digits * n);
    for (std::size_t i = 0; i < hx.size(); ++i) {
      hx[i] = rng.uniform(0, ring->basis().prime(i / n) - 1);
    }
    DeviceWords dx(device_, hx.size()), dc(device_, digits * limbs * n);
    device_->upload(hx, dx.data());
    device_->lift_digits_forward(*ring, digits, q_limbs, p_first, p_limbs, dx.data(), dc.data());
    std::vector<std::uint64_t> got(dc.words());
    device_->download(dc.data(), got);
    for (std::size_t j = 0; j < digits; ++j) {
      const std::uint64_t qj = ring->basis().prime(j);
      for (std::size_t t = 0; t < limbs; ++t) {
        const std::size_t r = t < q_limbs ? t : p_first + (t - q_limbs);
        const auto q = static_cast<__int128>(ring->basis().prime(r));
        std::vector<std::uint64_t> want(n);
        for (std::size_t k = 0; k < n; ++k) {
          const std::uint64_t v = hx[j * n + k];
          const __int128 centred = v > qj / 2 ? static_cast<__int128>(v) - qj : v;
          want[k] = static_cast<std::uint64_t>(((centred % q) + q) % q);
        }
        ring->forward(r, want);
        const auto first = static_cast<std::ptrdiff_t>((j * limbs + t) * n);
        EXPECT_EQ(std::vector<std::uint64_t>(got.begin() + first,
                                             got.begin() + first + static_cast<std::ptrdiff_t>(n)),
                  want)
            << digits << " digits, buffer " << j << ", limb " << t;
      }
    }
  }
}

TEST_P(DevicePolyTest, ElementWiseOperationsMatchTheCpu) {
  POLYHE_SEEDED_RNG(rng);
  RnsPoly a = random_poly(rng, ctx_, kLimbs), b = random_poly(rng, ctx_, kLimbs),
          c = random_poly(rng, ctx_, kLimbs);
  a.to_evaluation();
  b.to_evaluation();
  c.to_evaluation();
  // Edge words: 0, 1, q − 1 in the first limb of a.
  a.limb(0)[0] = 0;
  a.limb(0)[1] = ctx_->basis().prime(0) - 1;
  if (GetParam().n > 2) a.limb(0)[2] = 1;
  const RnsPoly da = a.to_device(device_), db = b.to_device(device_), dc = c.to_device(device_);
  auto check = [&](const char* what, auto&& op) {
    RnsPoly h = a, d = da;
    op(h, b, c);
    op(d, db, dc);
    EXPECT_TRUE(d.on_device()) << what;
    EXPECT_EQ(words(d), words(h)) << what;
  };
  check("add", [](RnsPoly& x, const RnsPoly& y, const RnsPoly&) { x.add(y); });
  check("sub", [](RnsPoly& x, const RnsPoly& y, const RnsPoly&) { x.sub(y); });
  check("negate", [](RnsPoly& x, const RnsPoly&, const RnsPoly&) { x.negate(); });
  check("multiply", [](RnsPoly& x, const RnsPoly& y, const RnsPoly&) { x.multiply(y); });
  check("multiply_accumulate",
        [](RnsPoly& x, const RnsPoly& y, const RnsPoly& z) { x.multiply_accumulate(y, z); });
  check("add itself", [](RnsPoly& x, const RnsPoly&, const RnsPoly&) { x.add(x); });
  check("multiply_scalar (uint64)", [](RnsPoly& x, const RnsPoly&, const RnsPoly&) {
    x.multiply_scalar(0xfedcba987654321ULL);
  });
  const std::vector<std::uint64_t> residues = {ctx_->basis().prime(0) - 1, 0, 12345};
  check("multiply_scalar (residues)",
        [&](RnsPoly& x, const RnsPoly&, const RnsPoly&) { x.multiply_scalar(residues); });
  check("drop_last_limb then add", [](RnsPoly& x, const RnsPoly& y, const RnsPoly&) {
    RnsPoly z = y;
    x.drop_last_limb();
    z.drop_last_limb();
    x.add(z);
  });
}

TEST_P(DevicePolyTest, AutomorphismsMatchTheCpu) {
  POLYHE_SEEDED_RNG(rng);
  // Galois elements: odd k < 2N for x^N + 1, k coprime to m for Φ_m.
  const std::uint64_t m = ctx_->m();
  std::uint64_t random_k = 0;
  do {
    random_k = rng.uniform(1, m - 1);
  } while (!ctx_->is_galois_element(random_k));
  std::vector<std::uint64_t> ks = {1, m - 1, random_k};
  if (ctx_->is_galois_element(5 % m)) ks.push_back(5 % m);
  if (ctx_->is_galois_element(2)) ks.push_back(2);
  for (const std::uint64_t k : ks) {
    SCOPED_TRACE("k = " + std::to_string(k));
    for (const PolyForm form : {PolyForm::kCoefficient, PolyForm::kEvaluation}) {
      SCOPED_TRACE(to_string(form));
      RnsPoly a = random_poly(rng, ctx_, kLimbs), c = random_poly(rng, ctx_, kLimbs);
      if (form == PolyForm::kEvaluation) {
        a.to_evaluation();
        c.to_evaluation();
      }
      const RnsPoly da = a.to_device(device_);
      RnsPoly dc = c.to_device(device_);
      EXPECT_EQ(words(da.automorphism(k)), words(a.automorphism(k)));
      c.add_automorphism(a, k);
      dc.add_automorphism(da, k);
      EXPECT_EQ(words(dc), words(c));
      c.add_automorphism(c, k);  // the operand itself
      dc.add_automorphism(dc, k);
      EXPECT_EQ(words(dc), words(c));
    }
    // Device::permute_slots over more limbs than the ring has (three polynomials' limbs back to
    // back, as the digits of a ModUp lie): each polynomial's σ_k in evaluation form.
    std::vector<RnsPoly> polys;
    std::vector<std::uint64_t> want;
    for (int p = 0; p < 3; ++p) {
      polys.push_back(random_poly(rng, ctx_, kLimbs));
      polys.back().to_evaluation();
      const std::vector<std::uint64_t> w = words(polys.back().automorphism(k));
      want.insert(want.end(), w.begin(), w.end());
    }
    std::vector<std::uint64_t> all;
    for (const RnsPoly& p : polys) all.insert(all.end(), p.data().begin(), p.data().end());
    DeviceWords src(device_, all.size()), dst(device_, all.size());
    device_->upload(all, src.data());
    device_->permute_slots(*ctx_, 3 * kLimbs, src.data(), dst.data(), k);
    std::vector<std::uint64_t> got(all.size());
    device_->download(dst.data(), got);
    EXPECT_EQ(got, want) << "permute_slots";
  }
}

// The emulated device runs each case in its thread order; the GPU twin ignores the order, and its
// instances are named Cuda/ so that its logs say where they ran.
const auto kDevicePolyCases = ::testing::Values(
    Case{2, 50, EmulatedOrder::forward}, Case{4, 60, EmulatedOrder::reverse},
    Case{16, 40, EmulatedOrder::shuffled}, Case{256, 62, EmulatedOrder::forward},
    Case{2048, 50, EmulatedOrder::shuffled},  // one block
    Case{4096, 60, EmulatedOrder::reverse},   // two passes
    Case{std::size_t{1} << 14, 50, EmulatedOrder::forward},
    // Φ_m: 255 = 3·5·17, 4369 = 17·257, 21845 = 5·17·257
    Case{128, 50, EmulatedOrder::shuffled, 255}, Case{4096, 60, EmulatedOrder::reverse, 4369},
    Case{16384, 40, EmulatedOrder::forward, 21845});
#ifdef POLYHE_TEST_CUDA_DEVICE
INSTANTIATE_TEST_SUITE_P(Cuda, DevicePolyTest, kDevicePolyCases, name_of);
#else
INSTANTIATE_TEST_SUITE_P(Emulated, DevicePolyTest, kDevicePolyCases, name_of);
#endif

// Kernels launched as programmatic dependent launches (POLYHE_CUDA_PDL=1: each one may be
// scheduled before the one ahead of it has finished, and waits for it at its entry) give the
// words of plain launches: chains of transforms both ways at n = 2^12 … 2^16 (two passes), both
// lifts with their fused row passes, and element-wise kernels between transforms (product, sum,
// product by a scalar per limb). In the GPU twin this runs the dependent launches on the card in
// every runbook step, the four compute-sanitizer tools included; on the emulated device the knob
// changes nothing and the test checks that.
TEST(DevicePolyDependentLaunch, DependentLaunchesGiveThePlainWords) {
  POLYHE_SEEDED_RNG(rng);
  const test::ScopedEnv knob("POLYHE_CUDA_PDL", "0");
  POLYHE_DEVICE_OR_SKIP(plain);
  knob.set("1");
  const std::shared_ptr<Device> dependent = test::test_device(why_device_);
  ASSERT_NE(dependent, nullptr) << why_device_;
  for (const unsigned log_n : {12U, 14U, 16U}) {
    SCOPED_TRACE("n = 2^" + std::to_string(log_n));
    const auto ring = test::make_ring(std::size_t{1} << log_n, 5, 50);
    const std::size_t n = ring->n();
    const RnsPoly x = random_poly(rng, ring, 4);
    const RnsPoly y = random_poly(rng, ring, 4);
    const std::vector<std::uint64_t> scalars{3, 5, 7, 11};
    std::vector<std::vector<std::uint64_t>> chain;
    for (const auto& dev : {plain, dependent}) {
      RnsPoly a = x.to_device(dev), b = y.to_device(dev);
      a.to_evaluation();
      b.to_evaluation();
      a.multiply(b);
      a.add(b);
      a.multiply_scalar(scalars);
      a.to_coefficient();
      a.to_evaluation();
      chain.push_back(test::words_of(a));
    }
    EXPECT_EQ(chain[1], chain[0]) << "transforms and element-wise kernels in a chain";
    RnsPoly a = x.to_device(plain), b = x.to_device(dependent);
    a.to_evaluation();
    b.to_evaluation();
    EXPECT_EQ(test::words_of(b), test::words_of(a)) << "forward";
    b.to_coefficient();
    EXPECT_EQ(test::words_of(b), test::words_of(x)) << "inverse of the forward";
    if (log_n == 16) continue;  // the lifts at two sizes
    std::vector<std::uint64_t> hx(2 * n), ha(2 * 4 * n);
    const std::uint64_t p = ring->basis().prime(4);
    for (auto& v : hx) v = rng.uniform(0, p - 1);
    for (std::size_t w = 0; w < ha.size(); ++w) {
      ha[w] = rng.uniform(0, ring->basis().prime((w / n) % 4) - 1);
    }
    const std::vector<std::uint64_t> residues{3, 5, 7, 11}, factors{2, 3, 4, 5};
    for (const bool scaled : {false, true}) {
      std::vector<std::vector<std::uint64_t>> got;
      for (const auto& dev : {plain, dependent}) {
        DeviceWords dx(dev, hx.size()), da(dev, ha.size()), dd(dev, 2 * 5 * n);
        dev->upload(hx, dx.data());
        dev->upload(ha, da.data());
        const std::uint64_t* parts_a[] = {da.data(), da.data() + 4 * n};
        std::uint64_t* parts_c[] = {da.data(), da.data() + 4 * n};
        dev->lift_forward_sub(
            *ring, 4, dx.data(), p, parts_a, residues, parts_c, false,
            scaled ? std::span<const std::uint64_t>(factors) : std::span<const std::uint64_t>{});
        dev->lift_digits_forward(*ring, 2, 3, 3, 2, dx.data(), dd.data());
        std::vector<std::uint64_t> out(ha.size() + dd.words());
        dev->download(da.data(), std::span<std::uint64_t>(out).first(ha.size()));
        dev->download(dd.data(), std::span<std::uint64_t>(out).subspan(ha.size()));
        got.push_back(std::move(out));
      }
      EXPECT_EQ(got[1], got[0]) << "lifts, scaled " << scaled;
    }
  }
}

#ifndef POLYHE_TEST_CUDA_DEVICE
// POLYHE_CUDA_TILE_LOG reaches every transform of the ring (src/cuda/ring_ntt_options.hpp): at
// n = 2^14 each program of a transform, the plain ones and the fused lifts alike, holds 2^tile
// words a block (its shared memory), 2^11 when the variable is unset. (The scheme and ring
// tests run again under every tile the knob takes: tests/*/CMakeLists.txt, *.tile8 … *.tile13.)
/// Runs every transform program of the device ring once at n = 2^14 (a plain transform pair,
/// lift_forward_sub, lift_digits_forward) and returns its launch log.
std::vector<EmulatedLaunch> ring_transform_launches(test::TestRng& rng) {
  const auto ring = test::make_ring(std::size_t{1} << 14, 6, 50);
  const std::size_t n = ring->n();
  const auto device = make_emulated_device();
  RnsPoly x = random_poly(rng, ring, 3).to_device(device);
  x.to_evaluation();
  x.to_coefficient();
  DeviceWords dx(device, n), da(device, 2 * n), dc(device, 5 * n);
  std::vector<std::uint64_t> hx(n);
  for (auto& v : hx) v = rng.uniform(0, ring->basis().prime(2) - 1);
  device->upload(hx, dx.data());
  device->zero(da.data(), 2 * n);
  const std::uint64_t residues[] = {1, 1};
  const std::uint64_t* a[] = {da.data()};
  std::uint64_t* c[] = {da.data()};
  device->lift_forward_sub(*ring, 2, dx.data(), ring->basis().prime(2), a, residues, c, false, {});
  device->lift_digits_forward(*ring, 1, 3, 4, 2, dx.data(), dc.data());
  std::vector<EmulatedLaunch> log = take_emulated_launches(*device);
  EXPECT_TRUE(take_emulated_launches(*device).empty()) << "the log is emptied";
  return log;
}

const std::set<std::string> kTransformPrograms{
    "DeviceRing::ntt", "DeviceRing::lift_forward_sub (columns)",
    "DeviceRing::lift_forward_sub (rows)", "DeviceRing::lift_digits_forward (columns)",
    "DeviceRing::lift_digits_forward (rows)"};

TEST(DevicePolyTile, TheKnobSetsEveryTransformsBlocks) {
  POLYHE_SEEDED_RNG(rng);
  const test::ScopedEnv tile_env("POLYHE_CUDA_TILE_LOG", nullptr);
  for (const unsigned tile : {0U, 9U, 10U, 12U}) {
    tile_env.set(tile == 0 ? nullptr : std::to_string(tile).c_str());
    const unsigned want = tile == 0 ? 11 : tile;
    std::set<std::string> names;
    for (const EmulatedLaunch& l : ring_transform_launches(rng)) {
      names.insert(l.name);
      EXPECT_EQ(l.shared_bytes, std::size_t{8} << want)
          << l.name << " (" << l.blocks << " x " << l.batch << " blocks) at tile " << tile;
    }
    EXPECT_EQ(names, kTransformPrograms) << "tile " << tile;
  }
}

#else
// The launch log is the emulated device's: asked of the GPU's device, it refuses, naming it.
TEST(DevicePolyTile, OnlyTheEmulatedDeviceKeepsALaunchLog) {
  std::string why;
  const auto device = test::test_device(why);
  if (device == nullptr) GTEST_SKIP() << "no CUDA device: " << why;
  try {
    (void)take_emulated_launches(*device);
    ADD_FAILURE() << "take_emulated_launches accepted " << device->name();
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("is not an emulated device"), std::string::npos)
        << e.what();
  }
}
#endif

TEST(DevicePolyPlacement, HostAccessorsRefuseDeviceWords) {
  POLYHE_DEVICE_OR_SKIP(dev);
  const auto ctx = test::make_ring(16, 2);
  const RnsPoly d(ctx, 2, PolyForm::kCoefficient, dev);
  try {
    static_cast<void>(d.data());
    FAIL() << "data() of a device polynomial";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find(dev->name()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("to_host()"), std::string::npos) << e.what();
  }
  EXPECT_THROW(static_cast<void>(d.limb(0)), InvalidParameter);
  const RnsPoly h(ctx, 2);
  EXPECT_THROW(static_cast<void>(h.device_words()), InvalidParameter);
  // A zero polynomial made on the device is zero.
  EXPECT_EQ(to_vector(d.to_host().data()), std::vector<std::uint64_t>(32, 0));
}

TEST(DevicePolyPlacement, MixedPlacementsAreRefused) {
  POLYHE_DEVICE_OR_SKIP(dev);
  const auto ctx = test::make_ring(16, 2);
  const auto other = make_emulated_device();
  RnsPoly h(ctx, 2), d(ctx, 2, PolyForm::kCoefficient, dev),
      e(ctx, 2, PolyForm::kCoefficient, other);
  try {
    h.add(d);
    FAIL() << "host + device";
  } catch (const MismatchedContext& err) {
    EXPECT_NE(std::string(err.what()).find("host memory"), std::string::npos) << err.what();
  }
  EXPECT_THROW(d.add(e), MismatchedContext);
  EXPECT_THROW(d.sub(h), MismatchedContext);
  EXPECT_THROW(d.add_automorphism(h, 3), MismatchedContext);
  // Between two devices through the host.
  RnsPoly moved = d.to_device(other);
  EXPECT_EQ(moved.device(), other);
  EXPECT_NO_THROW(moved.add(e));
}

}  // namespace
}  // namespace polyhe
