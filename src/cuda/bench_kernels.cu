// The floors of backend/cuda/bench.hpp: copy bandwidths, the integer multiply rate and the
// stream gate. Every CUDA call is checked (cuda/check.hpp).
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "cuda/bench.hpp"
#include "cuda/check.hpp"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda::bench {

namespace {

using detail::check;
using detail::check_launch;

constexpr unsigned char kFill = 0x5a;  // a non-zero byte pattern for the copied data

void check_args(const char* fn, const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                std::size_t reps) {
  if (ctx == nullptr) throw InvalidParameter(std::string(fn) + ": null context");
  if (bytes == 0) throw InvalidParameter(std::string(fn) + ": bytes = 0");
  if (reps == 0) throw InvalidParameter(std::string(fn) + ": reps = 0");
}

double seconds_between(const Event& start, const Event& end) {
  end.synchronize();
  return static_cast<double>(Event::elapsed_ms(start, end)) * 1e-3;
}

/// Times `reps` calls of copy() on s, one event pair each, after one untimed call.
template <class Copy>
std::vector<double> time_on(const Context& ctx, Stream s, std::size_t reps, Copy&& copy) {
  Event start(ctx);
  Event end(ctx);
  copy();
  synchronize(s);
  std::vector<double> seconds;
  seconds.reserve(reps);
  for (std::size_t r = 0; r < reps; ++r) {
    start.record(s);
    copy();
    end.record(s);
    seconds.push_back(seconds_between(start, end));
  }
  return seconds;
}

PinnedBuffer<unsigned char> filled_pinned(std::size_t bytes) {
  PinnedBuffer<unsigned char> host(bytes);
  std::memset(host.data(), kFill, bytes);
  return host;
}

DeviceBuffer<unsigned char> filled_device(const std::shared_ptr<const Context>& ctx,
                                          std::size_t bytes, Stream s) {
  DeviceBuffer<unsigned char> d(ctx, bytes, s);
  check(cudaMemsetAsync(d.data(), kFill, bytes, static_cast<cudaStream_t>(s.native())),
        "cudaMemsetAsync");
  return d;
}

__device__ __forceinline__ std::uint64_t mul_hi(std::uint64_t x, std::uint64_t y) {
  return __umul64hi(x, y);
}
__device__ __forceinline__ std::uint32_t mul_hi(std::uint32_t x, std::uint32_t y) {
  return __umulhi(x, y);
}

constexpr int kChains = 8;  // independent product chains per thread (hides the latency)
constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kIterations = 2048;

/// Each thread runs kChains independent chains x ← hi(x·y) ⊕ lo(x·y), `iterations` steps each,
/// and writes the xor of its chains to out[thread].
template <class W>
__global__ void multiply_kernel(W seed, int iterations, W* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const W y = seed | W{1};
  W x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = seed ^ static_cast<W>(tid * 0x9E3779B9U + c + 1);
#pragma unroll 4
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = mul_hi(x[c], y) ^ (x[c] * y);
  }
  W acc = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc ^= x[c];
  out[tid] = acc;
}

template <class W>
Samples time_multiply_word(const std::shared_ptr<const Context>& ctx, std::size_t reps) {
  const int sms = std::max(ctx->info().multiprocessors, 1);
  const unsigned blocks = static_cast<unsigned>(sms * kBlocksPerSm);
  const std::size_t threads = std::size_t{blocks} * kThreadsPerBlock;
  const Stream s = ctx->compute();
  const auto stream = static_cast<cudaStream_t>(s.native());
  DeviceBuffer<W> out(ctx, threads, s);
  const W seed = static_cast<W>(0xD1B54A32D192ED03ULL);
  Samples result;
  result.units_per_rep = static_cast<double>(threads) * kChains * kIterations;
  result.seconds = time_on(*ctx, s, reps, [&] {
    multiply_kernel<W><<<blocks, kThreadsPerBlock, 0, stream>>>(seed, kIterations, out.data());
    check_launch("multiply_kernel");
  });
  synchronize(s);
  return result;
}

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Spins until flag[0] ≠ 0; after timeout_ns sets flag[1] and returns.
__global__ void gate_kernel(volatile std::uint32_t* flag, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (flag[0] == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flag[1] = 1;
      return;
    }
    __nanosleep(200);
  }
}

}  // namespace

Samples time_device_copy(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                         std::size_t reps) {
  check_args("time_device_copy", ctx, bytes, reps);
  ctx->activate();
  const Stream s = ctx->compute();
  const DeviceBuffer<unsigned char> src = filled_device(ctx, bytes, s);
  DeviceBuffer<unsigned char> dst = filled_device(ctx, bytes, s);
  Samples result;
  result.units_per_rep = 2.0 * static_cast<double>(bytes);
  result.seconds = time_on(*ctx, s, reps, [&] { copy_async(dst.span(), src.cspan(), s); });
  return result;
}

Samples time_host_to_device(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                            std::size_t reps) {
  check_args("time_host_to_device", ctx, bytes, reps);
  ctx->activate();
  const Stream s = ctx->upload();
  const PinnedBuffer<unsigned char> host = filled_pinned(bytes);
  DeviceBuffer<unsigned char> dev(ctx, bytes, s);
  Samples result;
  result.units_per_rep = static_cast<double>(bytes);
  result.seconds = time_on(*ctx, s, reps, [&] {
    copy_async(dev.span(), std::span<const unsigned char>(host.span()), s);
  });
  return result;
}

Samples time_device_to_host(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                            std::size_t reps) {
  check_args("time_device_to_host", ctx, bytes, reps);
  ctx->activate();
  const Stream s = ctx->download();
  PinnedBuffer<unsigned char> host(bytes);
  const DeviceBuffer<unsigned char> dev = filled_device(ctx, bytes, s);
  Samples result;
  result.units_per_rep = static_cast<double>(bytes);
  result.seconds = time_on(*ctx, s, reps, [&] { copy_async(host.span(), dev.cspan(), s); });
  return result;
}

Samples time_bidirectional(const std::shared_ptr<const Context>& ctx, std::size_t bytes,
                           std::size_t reps) {
  check_args("time_bidirectional", ctx, bytes, reps);
  ctx->activate();
  const Stream up = ctx->upload();
  const Stream down = ctx->download();
  const PinnedBuffer<unsigned char> host_in = filled_pinned(bytes);
  PinnedBuffer<unsigned char> host_out(bytes);
  DeviceBuffer<unsigned char> dev_in(ctx, bytes, up);
  const DeviceBuffer<unsigned char> dev_out = filled_device(ctx, bytes, down);
  Event start(*ctx);
  Event up_done(*ctx, false);
  Event end(*ctx);
  auto both = [&] {
    start.record(up);
    start.wait_on(down);
    copy_async(dev_in.span(), std::span<const unsigned char>(host_in.span()), up);
    copy_async(host_out.span(), dev_out.cspan(), down);
    up_done.record(up);
    up_done.wait_on(down);
    end.record(down);
  };
  both();  // warm-up
  end.synchronize();
  Samples result;
  result.units_per_rep = static_cast<double>(bytes);
  result.seconds.reserve(reps);
  for (std::size_t r = 0; r < reps; ++r) {
    both();
    result.seconds.push_back(seconds_between(start, end));
  }
  return result;
}

Samples time_multiply(const std::shared_ptr<const Context>& ctx, unsigned word_bits,
                      std::size_t reps) {
  check_args("time_multiply", ctx, 1, reps);
  ctx->activate();
  if (word_bits == 64) return time_multiply_word<std::uint64_t>(ctx, reps);
  if (word_bits == 32) return time_multiply_word<std::uint32_t>(ctx, reps);
  throw InvalidParameter("time_multiply: word_bits = " + std::to_string(word_bits) + "; 32 or 64");
}

StreamGate::StreamGate(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {
  if (ctx_ == nullptr) throw InvalidParameter("StreamGate: null context");
  ctx_->activate();
  void* host = nullptr;
  check(cudaHostAlloc(&host, 2 * sizeof(std::uint32_t), cudaHostAllocMapped),
        "cudaHostAlloc (mapped)");
  host_ = static_cast<volatile std::uint32_t*>(host);
  host_[0] = 1;
  host_[1] = 0;
  void* device = nullptr;
  const cudaError_t err = cudaHostGetDevicePointer(&device, host, 0);
  if (err != cudaSuccess) {
    static_cast<void>(cudaFreeHost(host));
    check(err, "cudaHostGetDevicePointer");
  }
  device_ = static_cast<std::uint32_t*>(device);
}

StreamGate::~StreamGate() {
  host_[0] = 1;  // never leave a kernel spinning
  try {
    ctx_->synchronize();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor reports nothing
  }
  static_cast<void>(cudaFreeHost(const_cast<std::uint32_t*>(host_)));
}

void StreamGate::hold(Stream s, double timeout_s) {
  if (!(timeout_s > 0 && timeout_s <= 10)) {
    throw InvalidParameter("StreamGate::hold: timeout " + std::to_string(timeout_s) +
                           " s; (0, 10] expected");
  }
  ctx_->activate();
  host_[0] = 0;
  host_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const auto timeout_ns = static_cast<std::uint64_t>(timeout_s * 1e9);
  gate_kernel<<<1, 1, 0, static_cast<cudaStream_t>(s.native())>>>(device_, timeout_ns);
  check_launch("gate_kernel");
}

void StreamGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  host_[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool StreamGate::timed_out() const {
  return host_[1] != 0;
}

bool profiler(bool start) {
  const cudaError_t err = start ? cudaProfilerStart() : cudaProfilerStop();
  if (err != cudaSuccess) (void)cudaGetLastError();
  return err == cudaSuccess;
}

}  // namespace polyhe::cuda::bench
