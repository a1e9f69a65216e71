// The untyped device and pinned-memory calls behind buffer.hpp; every call checked.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda/check.hpp"
#include "polyhe/backend/cuda/buffer.hpp"

namespace polyhe::cuda::detail {

namespace {

cudaStream_t as_stream(Stream s) {
  return static_cast<cudaStream_t>(s.native());
}

}  // namespace

void* device_allocate(const Context& ctx, std::size_t bytes, Stream s) {
  if (bytes == 0) return nullptr;
  ctx.activate();
  void* p = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(
      &p, bytes, static_cast<cudaMemPool_t>(ctx.memory_pool()), as_stream(s));
  if (err != cudaSuccess) {
    check(err, "cudaMallocFromPoolAsync(" + std::to_string(bytes) + " bytes, device " +
                   std::to_string(ctx.device()) + ")");
  }
  return p;
}

void device_free(const Context& ctx, void* p, Stream s) noexcept {
  if (p == nullptr) return;
  static_cast<void>(cudaSetDevice(ctx.device()));
  static_cast<void>(cudaFreeAsync(p, as_stream(s)));
  static_cast<void>(cudaGetLastError());  // an ignored error must not surface at a later check
}

void copy_async(void* dst, const void* src, std::size_t bytes, Stream s) {
  if (bytes == 0) return;
  const cudaError_t err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, as_stream(s));
  if (err != cudaSuccess) {
    check(err, "cudaMemcpyAsync(" + std::to_string(bytes) + " bytes)");
  }
}

void* pinned_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t err = cudaMallocHost(&p, bytes);
  if (err != cudaSuccess) check(err, "cudaMallocHost(" + std::to_string(bytes) + " bytes)");
  return p;
}

void pinned_free(void* p) noexcept {
  if (p == nullptr) return;
  static_cast<void>(cudaFreeHost(p));
  static_cast<void>(cudaGetLastError());
}

}  // namespace polyhe::cuda::detail
