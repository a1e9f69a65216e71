// The CUDA runtime layer: one device bound to a Context, its streams, its stream-ordered memory
// pool, and events. docs/design.md ("Layers": backend): a context is bound to one device; data
// lives where its context lives; moving data is explicit and asynchronous, overlapped with compute
// through the context's streams (compute, upload, download).
//
// This header includes no CUDA header (callers may be compiled by the host compiler without the
// CUDA include path): native handles are kept as void* (cudaStream_t, cudaEvent_t,
// cudaMemPool_t are pointers). Every failing CUDA call throws DeviceError naming the call.
#pragma once

#include <cstddef>
#include <memory>

#include "polyhe/backend/gpu_info.hpp"

namespace polyhe::cuda {

/// A non-owning handle to a CUDA stream (a cudaStream_t). polyhe's own code runs only on the
/// streams of a Context, never on the legacy default stream (a null handle), which would
/// serialise with every blocking stream of the device.
class Stream {
 public:
  /// Wraps a cudaStream_t the caller owns (and keeps alive while polyhe uses it).
  explicit Stream(void* native) : native_(native) {}
  [[nodiscard]] void* native() const { return native_; }
  friend bool operator==(Stream x, Stream y) { return x.native_ == y.native_; }

 private:
  void* native_;
};

/// One CUDA device, its three non-blocking streams and a memory pool. Not copyable: share it
/// through std::shared_ptr<const Context>; buffers and device tables hold that pointer, so the
/// context outlives everything allocated from it.
class Context {
 public:
  /// Binds device `device` (checked against cudaGetDeviceCount: DeviceError naming the call and
  /// its error when the runtime finds no device or no driver, InvalidParameter "device 3: only
  /// 1 CUDA device(s)" for an index out of range), makes it current for the calling thread,
  /// reads its properties, creates the streams (cudaStreamNonBlocking) and a device memory pool
  /// whose release threshold is UINT64_MAX (freed blocks stay in the pool and are reused; they
  /// return to the driver when the context is destroyed).
  static std::shared_ptr<Context> create(int device = 0);

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  /// Synchronises the streams, then destroys them and the pool; errors are not reported (a
  /// destructor does not throw). Allocations still outstanding keep the pool's memory until
  /// they are freed.
  ~Context();

  /// cudaSetDevice(device()) for the calling thread. Every public function that takes a context
  /// calls it first, so a thread never needs to select the device itself.
  void activate() const;

  [[nodiscard]] int device() const { return device_; }
  /// Name, compute capability, global memory and SM count of the device.
  [[nodiscard]] const GpuInfo& info() const { return info_; }
  /// Shared memory a block may use after opting in (cudaFuncAttributeMaxDynamicSharedMemorySize):
  /// cudaDeviceProp::sharedMemPerBlockOptin, in bytes.
  [[nodiscard]] std::size_t shared_per_block_optin() const { return shared_per_block_optin_; }
  /// Size of the L2 cache, in bytes.
  [[nodiscard]] std::size_t l2_bytes() const { return l2_bytes_; }
  [[nodiscard]] int max_threads_per_block() const { return max_threads_per_block_; }

  /// Kernels.
  [[nodiscard]] Stream compute() const { return Stream(compute_); }
  /// Host → device copies.
  [[nodiscard]] Stream upload() const { return Stream(upload_); }
  /// Device → host copies.
  [[nodiscard]] Stream download() const { return Stream(download_); }

  /// Waits until every stream of the context is idle; throws DeviceError if one failed.
  void synchronize() const;

  /// The device's memory pool (a cudaMemPool_t) that DeviceBuffer allocates from.
  [[nodiscard]] void* memory_pool() const { return pool_; }

 private:
  Context() = default;
  void release() noexcept;

  int device_ = 0;
  GpuInfo info_;
  std::size_t shared_per_block_optin_ = 0;
  std::size_t l2_bytes_ = 0;
  int max_threads_per_block_ = 0;
  void* compute_ = nullptr;
  void* upload_ = nullptr;
  void* download_ = nullptr;
  void* pool_ = nullptr;
};

/// A CUDA event (RAII over cudaEventCreate/cudaEventDestroy): orders one stream after another's
/// work without blocking the host, and times work on the device. Movable, not copyable; a
/// moved-from event holds nothing and may only be destroyed or assigned to.
class Event {
 public:
  /// Creates the event on ctx's device. `timing` = false creates it with
  /// cudaEventDisableTiming (cheaper to record and wait on; elapsed_ms then throws).
  explicit Event(const Context& ctx, bool timing = true);
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  /// Captures the work submitted to s so far (cudaEventRecord). s must be a stream of the
  /// event's device.
  void record(Stream s);
  /// Makes s wait, on the device, until the work captured by the last record() is done
  /// (cudaStreamWaitEvent); the host does not block.
  void wait_on(Stream s) const;
  /// Blocks the host until the captured work is done (cudaEventSynchronize).
  void synchronize() const;
  /// Milliseconds between two recorded, completed timing events (cudaEventElapsedTime;
  /// resolution about 0.5 µs). Throws DeviceError if either has not completed or was created
  /// without timing.
  static float elapsed_ms(const Event& start, const Event& end);

  [[nodiscard]] void* native() const { return event_; }

 private:
  void* event_ = nullptr;
};

/// Blocks the host until every operation submitted to s is done (cudaStreamSynchronize); throws
/// DeviceError if one of them failed.
void synchronize(Stream s);

}  // namespace polyhe::cuda
