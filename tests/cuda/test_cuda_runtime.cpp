// The CUDA runtime layer: checked calls, Context, streams, events, the memory pool, buffers and
// copies. CudaRuntimeAnyMachine.* run with or without a device (label unit: they run in CI,
// where no GPU is present); CudaRuntime.* need a device and skip, naming the reason, without one
// (label gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/gpu_info.hpp"
#include "polyhe/core/error.hpp"
#include "support/test_rng.hpp"

namespace polyhe::cuda {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// --- Any machine
// ----------------------------------------------------------------------------------

TEST(CudaRuntimeAnyMachine, CheckNamesTheCallAndTheError) {
  EXPECT_NO_THROW(detail::check(cudaSuccess, "cudaFoo"));
  try {
    detail::check(cudaErrorInvalidValue, "cudaFoo(42)");
    ADD_FAILURE() << "check did not throw";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()), std::string("cudaFoo(42) failed: cudaErrorInvalidValue (") +
                                         cudaGetErrorString(cudaErrorInvalidValue) + ")");
  }
}

/// Without a device, create() names the CUDA call that failed; with one, it refuses an index
/// outside [0, count).
TEST(CudaRuntimeAnyMachine, CreateReportsNoDeviceOrABadIndex) {
  std::string why;
  const std::vector<GpuInfo> devices = gpus(&why);
  if (devices.empty()) {
    std::cout << "no GPU (" << why << "): checking the error Context::create reports\n";
    try {
      const auto ctx = Context::create(0);
      ADD_FAILURE() << "Context::create succeeded without a visible device";
    } catch (const DeviceError& e) {
      const std::string message = e.what();
      std::cout << "Context::create(0): " << message << "\n";
      if (contains(why, "cudaGetDeviceCount")) {
        EXPECT_TRUE(contains(message, "cudaGetDeviceCount failed: ")) << message;
      }
      EXPECT_TRUE(contains(message, " failed: ")) << message;
    }
    return;
  }
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  for (const int bad : {-1, count}) {
    try {
      const auto ctx = Context::create(bad);
      ADD_FAILURE() << "Context::create(" << bad << ") succeeded";
    } catch (const InvalidParameter& e) {
      EXPECT_TRUE(contains(e.what(), "device " + std::to_string(bad) + ": only " +
                                         std::to_string(count) + " CUDA device(s)"))
          << e.what();
    }
  }
}

/// Refused before any CUDA call: sizes, overflow, a null context.
TEST(CudaRuntimeAnyMachine, BadArgumentsThrowInvalidParameter) {
  std::vector<std::uint32_t> host(5);
  const DeviceSpan<std::uint32_t> dev(nullptr, 4);
  try {
    copy_async(dev, std::span<const std::uint32_t>(host), Stream(nullptr));
    ADD_FAILURE() << "copy_async accepted 4 and 5 elements";
  } catch (const InvalidParameter& e) {
    EXPECT_TRUE(contains(e.what(), "4") && contains(e.what(), "5")) << e.what();
  }
  EXPECT_THROW(copy_async(std::span<std::uint32_t>(host), DeviceSpan<const std::uint32_t>(dev),
                          Stream(nullptr)),
               InvalidParameter);
  EXPECT_THROW(copy_async(dev, DeviceSpan<const std::uint32_t>(nullptr, 3), Stream(nullptr)),
               InvalidParameter);
  EXPECT_THROW(PinnedBuffer<std::uint64_t>(std::numeric_limits<std::size_t>::max() / 4),
               InvalidParameter);
  EXPECT_THROW(DeviceBuffer<std::uint32_t>(nullptr, 1, Stream(nullptr)), InvalidParameter);
  // Empty buffers make no call.
  const PinnedBuffer<std::uint64_t> empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
}

// --- With a device ------------------------------------------------------------------------------

#define POLYHE_REQUIRE_DEVICE()                                          \
  do {                                                                   \
    std::string why_;                                                    \
    if (gpus(&why_).empty()) GTEST_SKIP() << "no CUDA device: " << why_; \
  } while (0)

TEST(CudaRuntime, ContextDescribesTheDevice) {
  POLYHE_REQUIRE_DEVICE();
  const auto ctx = Context::create(0);
  const GpuInfo expected = gpus().at(0);
  EXPECT_EQ(ctx->device(), 0);
  EXPECT_EQ(ctx->info().name, expected.name);
  EXPECT_EQ(ctx->info().multiprocessors, expected.multiprocessors);
  EXPECT_EQ(ctx->info().compute_major, expected.compute_major);
  EXPECT_GE(ctx->shared_per_block_optin(), std::size_t{48} << 10);
  EXPECT_GT(ctx->l2_bytes(), 0u);
  EXPECT_GE(ctx->max_threads_per_block(), 256);
  EXPECT_NE(ctx->compute().native(), nullptr);
  EXPECT_NE(ctx->upload().native(), nullptr);
  EXPECT_NE(ctx->download().native(), nullptr);
  EXPECT_FALSE(ctx->compute() == ctx->upload());
  EXPECT_FALSE(ctx->upload() == ctx->download());
  EXPECT_NE(ctx->memory_pool(), nullptr);
  unsigned flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(static_cast<cudaStream_t>(ctx->compute().native()), &flags),
            cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));
  EXPECT_NO_THROW(ctx->activate());
  EXPECT_NO_THROW(ctx->synchronize());
}

/// Host → device on the upload stream, device → device on compute (ordered by an event),
/// device → host on download (ordered by another), through pageable and pinned memory.
TEST(CudaRuntime, BuffersRoundTrip) {
  POLYHE_REQUIRE_DEVICE();
  POLYHE_SEEDED_RNG(rng);
  const std::shared_ptr<const Context> ctx = Context::create(0);
  constexpr std::size_t kCount = (std::size_t{1} << 20) + 3;
  std::vector<std::uint64_t> host(kCount);
  for (auto& x : host) x = rng.bits();

  DeviceBuffer<std::uint64_t> first = to_device(ctx, host, ctx->upload());
  EXPECT_EQ(first.size(), kCount);
  EXPECT_EQ(first.stream(), ctx->upload());
  Event uploaded(*ctx, false);
  uploaded.record(ctx->upload());
  uploaded.wait_on(ctx->compute());
  DeviceBuffer<std::uint64_t> second(ctx, kCount, ctx->compute());
  copy_async(second.span(), first.cspan(), ctx->compute());
  Event copied(*ctx, false);
  copied.record(ctx->compute());
  copied.wait_on(ctx->download());
  EXPECT_EQ(to_host(second.cspan(), ctx->download()), host);

  PinnedBuffer<std::uint64_t> pinned_in(kCount);
  PinnedBuffer<std::uint64_t> pinned_out(kCount);
  std::copy(host.begin(), host.end(), pinned_in.data());
  DeviceBuffer<std::uint64_t> third(ctx, kCount, ctx->compute());
  copy_async(third.span(), std::span<const std::uint64_t>(pinned_in.span()), ctx->compute());
  copy_async(pinned_out.span(), third.cspan(), ctx->compute());
  synchronize(ctx->compute());
  EXPECT_TRUE(std::equal(host.begin(), host.end(), pinned_out.data()));

  // Moves carry the allocation; a moved-from buffer is empty.
  DeviceBuffer<std::uint64_t> moved = std::move(third);
  EXPECT_EQ(third.size(), 0u);
  EXPECT_EQ(third.data(), nullptr);
  EXPECT_EQ(to_host(moved.cspan(), ctx->compute()), host);
  ctx->synchronize();
}

TEST(CudaRuntime, EventsTimeWorkOnAStream) {
  POLYHE_REQUIRE_DEVICE();
  const std::shared_ptr<const Context> ctx = Context::create(0);
  constexpr std::size_t kCount = std::size_t{1} << 24;  // 128 MiB of copying
  DeviceBuffer<std::uint64_t> a(ctx, kCount, ctx->compute());
  DeviceBuffer<std::uint64_t> b(ctx, kCount, ctx->compute());
  Event start(*ctx);
  Event end(*ctx);
  start.record(ctx->compute());
  for (int i = 0; i < 4; ++i) copy_async(b.span(), a.cspan(), ctx->compute());
  end.record(ctx->compute());
  end.synchronize();
  const float ms = Event::elapsed_ms(start, end);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  Event untimed(*ctx, false);
  untimed.record(ctx->compute());
  untimed.synchronize();
  EXPECT_THROW(static_cast<void>(Event::elapsed_ms(start, untimed)), DeviceError);
  Event moved = std::move(start);
  EXPECT_EQ(start.native(), nullptr);
  EXPECT_NE(moved.native(), nullptr);
}

/// Freed blocks stay in the pool (release threshold UINT64_MAX) and serve later allocations:
/// many allocate/free cycles on one stream reserve memory once.
TEST(CudaRuntime, PoolReusesFreedBlocks) {
  POLYHE_REQUIRE_DEVICE();
  const std::shared_ptr<const Context> ctx = Context::create(0);
  const auto pool = static_cast<cudaMemPool_t>(ctx->memory_pool());
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  for (int i = 0; i < 100; ++i) {
    const DeviceBuffer<std::uint8_t> block(ctx, kBytes, ctx->compute());
  }
  ctx->synchronize();
  std::uint64_t reserved = 0;
  std::uint64_t used = 0;
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved),
            cudaSuccess);
  ASSERT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  EXPECT_EQ(used, 0u);
  EXPECT_GE(reserved, kBytes) << "freed blocks were released to the driver at synchronisation";
  EXPECT_LE(reserved, 8 * kBytes) << "allocations did not reuse freed blocks";  // 100 without reuse
}

TEST(CudaRuntime, FailedCallsThrowDeviceError) {
  POLYHE_REQUIRE_DEVICE();
  const std::shared_ptr<const Context> ctx = Context::create(0);
  // More than the device holds.
  try {
    const DeviceBuffer<std::uint8_t> huge(ctx, std::size_t{1} << 60, ctx->compute());
    ADD_FAILURE() << "allocated 2^60 bytes";
  } catch (const DeviceError& e) {
    EXPECT_TRUE(contains(e.what(), "cudaMallocFromPoolAsync")) << e.what();
  }
  // The context is still usable afterwards (the error was not sticky).
  const std::vector<std::uint32_t> host{1, 2, 3};
  const DeviceBuffer<std::uint32_t> small = to_device(ctx, host, ctx->compute());
  EXPECT_EQ(to_host(small.cspan(), ctx->compute()), host);
}

}  // namespace
}  // namespace polyhe::cuda
