// Context, Event and stream synchronisation over the CUDA runtime; every call checked.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cuda/check.hpp"
#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda {

using detail::check;

namespace {

cudaStream_t as_stream(void* s) {
  return static_cast<cudaStream_t>(s);
}

cudaStream_t create_stream(const char* role) {
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
        std::string("cudaStreamCreateWithFlags(") + role + " stream, cudaStreamNonBlocking)");
  return s;
}

}  // namespace

std::shared_ptr<Context> Context::create(int device) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count == 0) {
    // The runtime normally reports cudaErrorNoDevice itself; a zero count with success is
    // reported the same way.
    throw DeviceError("cudaGetDeviceCount failed: no CUDA device is visible");
  }
  if (device < 0 || device >= count) {
    throw InvalidParameter("device " + std::to_string(device) + ": only " + std::to_string(count) +
                           " CUDA device(s)");
  }
  // Filled in step by step: if a step throws, the destructor releases what exists so far.
  std::shared_ptr<Context> ctx(new Context());
  ctx->device_ = device;
  ctx->activate();

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device),
        "cudaGetDeviceProperties(" + std::to_string(device) + ")");
  ctx->info_.index = device;
  ctx->info_.name = prop.name;
  ctx->info_.compute_major = prop.major;
  ctx->info_.compute_minor = prop.minor;
  ctx->info_.global_memory_bytes = prop.totalGlobalMem;
  ctx->info_.multiprocessors = prop.multiProcessorCount;
  ctx->shared_per_block_optin_ = prop.sharedMemPerBlockOptin;
  ctx->l2_bytes_ = static_cast<std::size_t>(prop.l2CacheSize);
  ctx->max_threads_per_block_ = prop.maxThreadsPerBlock;

  ctx->compute_ = create_stream("compute");
  ctx->upload_ = create_stream("upload");
  ctx->download_ = create_stream("download");

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  check(cudaMemPoolCreate(&pool, &props),
        "cudaMemPoolCreate(device " + std::to_string(device) + ")");
  ctx->pool_ = pool;
  std::uint64_t threshold = UINT64_MAX;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
        "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold, UINT64_MAX)");
  return ctx;
}

Context::~Context() {
  release();
}

void Context::release() noexcept {
  // Nothing here may throw; errors (a sticky error of the context, a driver shutting down at
  // process exit) are ignored.
  static_cast<void>(cudaSetDevice(device_));
  for (void** s : {&compute_, &upload_, &download_}) {
    if (*s == nullptr) continue;
    static_cast<void>(cudaStreamSynchronize(as_stream(*s)));
    static_cast<void>(cudaStreamDestroy(as_stream(*s)));
    *s = nullptr;
  }
  if (pool_ != nullptr) {
    static_cast<void>(cudaMemPoolDestroy(static_cast<cudaMemPool_t>(pool_)));
    pool_ = nullptr;
  }
  static_cast<void>(cudaGetLastError());
}

void Context::activate() const {
  // Runs before every launch and copy: the message is built only on failure (an allocation per
  // call otherwise).
  const cudaError_t err = cudaSetDevice(device_);
  if (err != cudaSuccess) check(err, "cudaSetDevice(" + std::to_string(device_) + ")");
}

void Context::synchronize() const {
  activate();
  check(cudaStreamSynchronize(as_stream(compute_)), "cudaStreamSynchronize(compute stream)");
  check(cudaStreamSynchronize(as_stream(upload_)), "cudaStreamSynchronize(upload stream)");
  check(cudaStreamSynchronize(as_stream(download_)), "cudaStreamSynchronize(download stream)");
}

// --- Event ---------------------------------------------------------------------------------------

Event::Event(const Context& ctx, bool timing) {
  ctx.activate();
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
        timing ? "cudaEventCreateWithFlags(cudaEventDefault)"
               : "cudaEventCreateWithFlags(cudaEventDisableTiming)");
  event_ = e;
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) static_cast<void>(cudaEventDestroy(static_cast<cudaEvent_t>(event_)));
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Event::~Event() {
  // cudaEventDestroy returns at once; resources are released when the event completes.
  if (event_ != nullptr) static_cast<void>(cudaEventDestroy(static_cast<cudaEvent_t>(event_)));
}

void Event::record(Stream s) {
  check(cudaEventRecord(static_cast<cudaEvent_t>(event_), as_stream(s.native())),
        "cudaEventRecord");
}

void Event::wait_on(Stream s) const {
  check(cudaStreamWaitEvent(as_stream(s.native()), static_cast<cudaEvent_t>(event_), 0),
        "cudaStreamWaitEvent");
}

void Event::synchronize() const {
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)), "cudaEventSynchronize");
}

float Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.event_),
                             static_cast<cudaEvent_t>(end.event_)),
        "cudaEventElapsedTime");
  return ms;
}

void synchronize(Stream s) {
  check(cudaStreamSynchronize(as_stream(s.native())), "cudaStreamSynchronize");
}

}  // namespace polyhe::cuda
