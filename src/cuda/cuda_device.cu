// The CUDA Device (backend/cuda/device.hpp): DeviceRing over an executor that launches the bodies
// through for_each.cuh and the block programs through launch.cuh, on the context's compute stream.
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/device_ring.hpp"
#include "cuda/for_each.cuh"
#include "cuda/launch.cuh"
#include "polyhe/backend/cuda/buffer.hpp"
#include "polyhe/backend/cuda/device.hpp"
#include "polyhe/backend/cuda/ntt.hpp"

namespace polyhe::cuda {
namespace {

using detail::RingButterfly;
using u64 = std::uint64_t;

class CudaExec {
 public:
  explicit CudaExec(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {}

  /// POLYHE_CUDA_PDL (DeviceRing): every later launch a programmatic dependent one, on devices of
  /// compute capability 9.0 and up (grid_dependency.cuh); before that, plain launches either way.
  void set_dependent_launch(bool on) { dependent_ = on && ctx_->info().compute_major >= 9; }

  template <class T>
  using Buffer = DeviceBuffer<T>;

  struct NttPolicies {
    std::shared_ptr<const DeviceNttTables<u64>> tables;
    [[nodiscard]] const RingButterfly* data() const {
      return static_cast<const RingButterfly*>(tables->device_policies());
    }
  };

  [[nodiscard]] DeviceKind kind() const { return DeviceKind::cuda; }
  [[nodiscard]] std::string name() const {
    return "cuda:" + std::to_string(ctx_->device()) + " (" + ctx_->info().name + ")";
  }

  template <class T>
  Buffer<T> upload_table(std::span<const T> host) {
    ctx_->activate();
    DeviceBuffer<T> b(ctx_, host.size(), ctx_->compute());
    copy_async<T>(b.span(), host, ctx_->compute());  // a pageable source is staged on return
    return b;
  }

  Buffer<u64> raw(std::size_t words) { return DeviceBuffer<u64>(ctx_, words, ctx_->compute()); }

  u64* allocate(std::size_t words) {
    return static_cast<u64*>(detail::device_allocate(
        *ctx_, detail::checked_bytes(words, sizeof(u64), "Device"), ctx_->compute()));
  }
  void deallocate(u64* p, std::size_t) noexcept { detail::device_free(*ctx_, p, ctx_->compute()); }
  void upload(std::span<const u64> host, u64* device) {
    detail::copy_async(device, host.data(), host.size_bytes(), ctx_->compute());
  }
  void download(const u64* device, std::span<u64> host) {
    detail::copy_async(host.data(), device, host.size_bytes(), ctx_->compute());
    cuda::synchronize(ctx_->compute());
  }
  void copy(const u64* src, u64* dst, std::size_t words) {
    if (src != dst) detail::copy_async(dst, src, words * sizeof(u64), ctx_->compute());
  }
  void zero(u64* dst, std::size_t words) {
    ctx_->activate();
    detail::check(cudaMemsetAsync(dst, 0, words * sizeof(u64),
                                  static_cast<cudaStream_t>(ctx_->compute().native())),
                  "cudaMemsetAsync(" + std::to_string(words * sizeof(u64)) + " bytes)");
  }
  void synchronize() { ctx_->synchronize(); }

  /// A recorded cuda::Event (without timing) as a ticket.
  struct EventTicket final : DeviceEvent {
    explicit EventTicket(const Context& ctx) : event(ctx, /*timing=*/false) {}
    void wait() override { event.synchronize(); }
    Event event;
  };
  std::shared_ptr<EventTicket> record_on(Stream s) {
    ctx_->activate();
    auto t = std::make_shared<EventTicket>(*ctx_);
    t->event.record(s);
    return t;
  }

  u64* pinned_allocate(std::size_t words) {
    return static_cast<u64*>(
        detail::pinned_allocate(detail::checked_bytes(words, sizeof(u64), "pinned buffer")));
  }
  void pinned_free(u64* p) noexcept { detail::pinned_free(p); }
  DeviceTicket record() { return record_on(ctx_->compute()); }
  void upload_async(const DeviceTicket& after, std::span<const u64> host, u64* dst) {
    ctx_->activate();
    // The destination was allocated on the compute stream: the copy waits for `after` (which
    // the caller records after the allocation and after the last reader of the memory).
    if (after) static_cast<const EventTicket&>(*after).event.wait_on(ctx_->upload());
    detail::copy_async(dst, host.data(), host.size_bytes(), ctx_->upload());
    record_on(ctx_->upload())->event.wait_on(ctx_->compute());
  }
  DeviceTicket download_async(const u64* src, std::span<u64> host) {
    record_on(ctx_->compute())->event.wait_on(ctx_->download());
    detail::copy_async(host.data(), src, host.size_bytes(), ctx_->download());
    return record_on(ctx_->download());
  }

  template <class Body>
  void for_each(const Body& body, std::size_t count) {
    ctx_->activate();
    detail::for_each(*ctx_, body, count, ctx_->compute(), "DeviceRing element-wise kernel",
                     dependent_);
  }

  template <class Program>
  void run(const Program& program, const char* name) {
    ctx_->activate();
    detail::launch(program, static_cast<cudaStream_t>(ctx_->compute().native()),
                   ctx_->shared_per_block_optin(), name, dependent_);
  }

  /// The policies (twiddle pointers into device memory) as host structs: gathered on the host
  /// into another order and uploaded again, they still point at the tables' device copies.
  std::vector<RingButterfly> policies_to_host(const NttPolicies& p, std::size_t count) {
    ctx_->activate();
    std::vector<RingButterfly> host(count);
    detail::copy_async(host.data(), p.data(), count * sizeof(RingButterfly), ctx_->compute());
    cuda::synchronize(ctx_->compute());
    return host;
  }

  NttPolicies make_ntt_policies(std::span<const NttPlan<u64>* const> plans) {
    return NttPolicies{DeviceNttTables<u64>::create(ctx_, plans, detail::kRingVariant)};
  }

 private:
  std::shared_ptr<const Context> ctx_;
  bool dependent_ = false;
};

}  // namespace

std::shared_ptr<Device> make_device(std::shared_ptr<const Context> ctx) {
  if (ctx == nullptr) throw InvalidParameter("cuda::make_device: null context");
  return std::make_shared<detail::DeviceRing<CudaExec>>(CudaExec(std::move(ctx)));
}

}  // namespace polyhe::cuda
