// The device transform over Φ_m (src/cuda/powerful_body.hpp, one block program per axis, in the
// sequence src/cuda/powerful_programs.hpp gives) on the emulated device, word for word against
// the CPU's PowerfulNtt: forward and inverse, in place and out of place, over limb ranges and
// limb maps with repeats, primes of 30 to 62 bits, threads and blocks in increasing, decreasing
// and shuffled order; every odd m up to 2^16 whose transform takes the fused route (80 rings);
// the rings the device does not serve refused by name. The PowerfulDevice tests are backend
// twins (support/test_device.hpp): tests/cuda builds them again for a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "polyhe/backend/emulated.hpp"
#include "polyhe/polyhe.hpp"
#include "support/test_device.hpp"
#include "support/test_rng.hpp"

namespace polyhe {
namespace {

using u64 = std::uint64_t;

/// A ring over Φ_m with one prime of each size (distinct, each ≡ 1 mod the transform's modulus).
std::shared_ptr<const RingContext> ring_with(std::size_t m, const std::vector<int>& bits) {
  std::vector<u64> primes;
  primes.reserve(bits.size());
  for (const int b : bits) {
    primes.push_back(powerful_ntt_primes(m, b, 1, primes)[0]);
  }
  return RingContext::create_cyclotomic(m, primes);
}

std::vector<u64> random_words(const RingContext& ring, std::span<const std::size_t> limbs,
                              test::TestRng& rng) {
  std::vector<u64> out;
  for (const std::size_t limb : limbs) {
    const u64 q = ring.basis().prime(limb);
    for (std::size_t i = 0; i < ring.n(); ++i) out.push_back(rng.uniform(0, q - 1));
  }
  return out;
}

/// The CPU's transform of each limb of `words` (limb j under ring limb limbs[j % size]).
std::vector<u64> cpu_transform(const RingContext& ring, std::span<const std::size_t> limbs,
                               std::vector<u64> words, bool inverse) {
  const std::size_t n = ring.n();
  for (std::size_t j = 0; j * n < words.size(); ++j) {
    const std::span<u64> limb(words.data() + j * n, n);
    if (inverse) {
      ring.inverse(limbs[j % limbs.size()], limb);
    } else {
      ring.forward(limbs[j % limbs.size()], limb);
    }
  }
  return words;
}

/// Device memory holding `words`.
DeviceWords upload(const std::shared_ptr<Device>& device, std::span<const u64> words) {
  DeviceWords out(device, words.size());
  device->upload(words, out.data());
  return out;
}

std::vector<u64> read(const DeviceWords& w) {
  std::vector<u64> out(w.words());
  w.device()->download(w.data(), out);
  return out;
}

/// Forward out of place and inverse in place over the limb range, against the CPU, and back to
/// the input.
void check_range(const RingContext& ring, const std::shared_ptr<Device>& device, test::TestRng& rng,
                 const std::string& what) {
  std::vector<std::size_t> limbs(ring.max_limbs());
  for (std::size_t i = 0; i < limbs.size(); ++i) limbs[i] = i;
  const LimbRange all{0, limbs.size()};
  const std::vector<u64> coeffs = random_words(ring, limbs, rng);
  const DeviceWords src = upload(device, coeffs);
  const DeviceWords dst(device, coeffs.size());
  device->ntt(ring, all, src.data(), dst.data(), false);
  const std::vector<u64> evaluated = read(dst);
  ASSERT_EQ(evaluated, cpu_transform(ring, limbs, coeffs, false)) << what << ": forward";
  ASSERT_EQ(read(src), coeffs) << what << ": the input of an out-of-place transform changed";

  const std::vector<u64> values = random_words(ring, limbs, rng);
  const DeviceWords in_place = upload(device, values);
  device->ntt(ring, all, in_place.data(), in_place.data(), true);
  ASSERT_EQ(read(in_place), cpu_transform(ring, limbs, values, true)) << what << ": inverse";

  device->ntt(ring, all, dst.data(), dst.data(), true);
  ASSERT_EQ(read(dst), coeffs) << what << ": inverse of forward";
}

// 255 = 3·5·17, 765 = 9·5·17 and 1275 = 3·25·17 (direct prime powers: the fold with P > 1),
// 1785 = 3·5·7·17, 2295 = 27·5·17, 4369 = 17·257, 21845 = 5·17·257, 65535 = 3·5·17·257.
constexpr std::size_t kRings[] = {255, 765, 1275, 1785, 2295, 4369, 21845, 65535};

TEST(PowerfulDevice, TransformsGiveTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(device);
  test::TestRng rng(0x9e3779b97f4a7c15ULL);
  for (const std::size_t m : kRings) {
    const auto ring = ring_with(m, {30, 45, 50, 62});
    ASSERT_EQ(ring->powerful(0)->route(), PowerfulNtt::Route::fused) << m;
    check_range(*ring, device, rng, "m = " + std::to_string(m));
  }
}

#ifndef POLYHE_TEST_CUDA_DEVICE
TEST(PowerfulDeviceEmulation, EveryThreadOrderGivesTheCpuWords) {
  test::TestRng rng(17);
  for (const std::size_t m : kRings) {
    if (m > 4369) continue;  // the large rings run shuffled in the test above
    const auto ring = ring_with(m, {31, 62});
    for (const EmulatedOrder order : {EmulatedOrder::forward, EmulatedOrder::reverse}) {
      const auto device = make_emulated_device(order, m);
      check_range(*ring, device, rng,
                  "m = " + std::to_string(m) +
                      (order == EmulatedOrder::forward ? ", forward order" : ", reverse order"));
    }
  }
}

TEST(PowerfulDeviceEmulation, OneLaunchPerAxis) {
  const auto ring = ring_with(21845, {40, 50});
  const auto device = make_emulated_device();
  test::TestRng rng(3);
  const std::vector<std::size_t> limbs = {0, 1};
  const std::vector<u64> coeffs = random_words(*ring, limbs, rng);
  const DeviceWords a = upload(device, coeffs);
  (void)take_emulated_launches(*device);
  device->ntt(*ring, LimbRange{0, 2}, a.data(), a.data(), false);
  const auto launches = take_emulated_launches(*device);
  // The axes 5 (dense), 17 and 257 (Rader), every limb in each launch.
  ASSERT_EQ(launches.size(), 3u);
  for (const EmulatedLaunch& l : launches) {
    EXPECT_EQ(l.name, "DeviceRing::ntt (Φ_m)");
    EXPECT_EQ(l.batch, 2u);
    EXPECT_LE(l.threads, 256u);
  }
  EXPECT_EQ(launches[2].blocks, 16384u / 256u / 4u);  // 64 rows of 256, four a block
}
#endif

TEST(PowerfulDevice, MappedLimbsAndRepeatsGiveTheCpuWords) {
  POLYHE_DEVICE_OR_SKIP(device);
  const auto ring = ring_with(21845, {36, 50, 60});
  test::TestRng rng(5);
  {
    const std::vector<std::size_t> map = {2, 0};
    const std::size_t repeats = 3;
    std::vector<u64> words;
    for (std::size_t r = 0; r < repeats; ++r) {
      const auto more = random_words(*ring, map, rng);
      words.insert(words.end(), more.begin(), more.end());
    }
    const DeviceWords a = upload(device, words);
    device->ntt_mapped(*ring, map, repeats, a.data(), a.data(), false);
    const std::vector<u64> evaluated = cpu_transform(*ring, map, words, false);
    ASSERT_EQ(read(a), evaluated);
    const DeviceWords b(device, words.size());
    device->ntt_mapped(*ring, map, repeats, a.data(), b.data(), true);
    ASSERT_EQ(read(b), words);
  }
}

TEST(PowerfulDevice, RingsOutsideTheFusedRouteAreRefusedByName) {
  POLYHE_DEVICE_OR_SKIP(device);
  // 119 = 7·17: six rows of 16, not a multiple of 8; 257: one factor.
  for (const std::size_t m : {119, 257}) {
    const auto ring = ring_with(m, {40});
    ASSERT_NE(ring->powerful(0)->route(), PowerfulNtt::Route::fused);
    std::vector<u64> words(ring->n(), 1);
    const DeviceWords a = upload(device, words);
    try {
      device->ntt(*ring, LimbRange{0, 1}, a.data(), a.data(), false);
      FAIL() << "m = " << m << " ran on the device";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find("m = " + std::to_string(m)), std::string::npos)
          << e.what();
    }
  }
}

/// Whether m's factors may take the fused route (the rule of make_powerful_tables, by structure:
/// a cheap filter; the route itself decides below).
bool may_be_fused(std::size_t m) {
  const std::vector<u64> factors = prime_power_factors(m);
  if (factors.size() < 2) return false;
  for (const u64 f : factors) {
    if (f != 17 && f != 257 && f > 31) return false;
  }
  const u64 last = factors.back();
  const u64 width = last == 17 ? 16 : last == 257 ? 256 : 0;
  return width != 0 && euler_phi(m) / width % 8 == 0;
}

/// Every odd m ≤ 2^16 whose transform takes the fused route, with a 30-bit and a 62-bit prime.
TEST(PowerfulDevice, EveryFusedRingUpTo65536) {
  POLYHE_DEVICE_OR_SKIP(device);
  test::TestRng rng(7);
  std::size_t served = 0;
  for (std::size_t m = 3; m <= 65536; m += 2) {
    if (!may_be_fused(m)) continue;
    std::vector<u64> primes;
    try {
      primes.push_back(powerful_ntt_primes(m, 30, 1)[0]);
      primes.push_back(powerful_ntt_primes(m, 62, 1)[0]);
    } catch (const InvalidParameter&) {
      continue;  // no prime of that size serves m
    }
    if (PowerfulNtt::create(m, primes[0])->route() != PowerfulNtt::Route::fused ||
        PowerfulNtt::create(m, primes[1])->route() != PowerfulNtt::Route::fused) {
      continue;
    }
    const auto ring = RingContext::create_cyclotomic(m, primes);
    check_range(*ring, device, rng, "m = " + std::to_string(m));
    ++served;
  }
  EXPECT_EQ(served, 80u);  // a change of the fused route's rule shows here
}

}  // namespace
}  // namespace polyhe
