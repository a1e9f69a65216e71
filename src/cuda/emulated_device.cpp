// The emulated device (backend/emulated.hpp): DeviceRing over an executor that keeps "device"
// words in host memory and runs bodies and block programs through the host emulation of
// emulate.hpp. Compiled by the host compiler in every configuration, with or without CUDA.
#include "polyhe/backend/emulated.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/device_ring.hpp"
#include "cuda/emulate.hpp"
#include "polyhe/ntt/dispatch.hpp"

namespace polyhe {
namespace {

using cuda::detail::RingButterfly;
using u64 = std::uint64_t;

constexpr u64 kPoison = 0xdeadbeefdeadbeefULL;

/// The block programs a device ran, the last kLaunchLogSize of them (take_emulated_launches).
class LaunchLog {
 public:
  static constexpr std::size_t kLaunchLogSize = 4096;
  void add(EmulatedLaunch l) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (launches_.size() == kLaunchLogSize) launches_.pop_front();
    launches_.push_back(std::move(l));
  }
  std::vector<EmulatedLaunch> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<EmulatedLaunch> out(std::make_move_iterator(launches_.begin()),
                                    std::make_move_iterator(launches_.end()));
    launches_.clear();
    return out;
  }

 private:
  std::mutex mutex_;
  std::deque<EmulatedLaunch> launches_;
};

class EmulatedExec {
 public:
  EmulatedExec(EmulatedOrder order, u64 seed) : order_(order), seed_(seed) {}

  template <class T>
  class Buffer {
   public:
    Buffer() = default;
    explicit Buffer(std::vector<T> v) : v_(std::move(v)) {}
    [[nodiscard]] T* data() const { return const_cast<T*>(v_.data()); }

   private:
    std::vector<T> v_;
  };

  struct NttPolicies {
    std::vector<RingButterfly> policies;
    [[nodiscard]] const RingButterfly* data() const { return policies.data(); }
  };

  [[nodiscard]] DeviceKind kind() const { return DeviceKind::cuda_emulated; }
  [[nodiscard]] std::string name() const { return "cuda-emulated"; }

  template <class T>
  Buffer<T> upload_table(std::span<const T> host) {
    return Buffer<T>(std::vector<T>(host.begin(), host.end()));
  }

  Buffer<u64> raw(std::size_t words) { return Buffer<u64>(std::vector<u64>(words, kPoison)); }

  u64* allocate(std::size_t words) {
    u64* p = AlignedAllocator<u64>().allocate(words);
    std::fill(p, p + words, kPoison);
    return p;
  }
  void deallocate(u64* p, std::size_t words) noexcept {
    AlignedAllocator<u64>().deallocate(p, words);
  }
  void upload(std::span<const u64> host, u64* device) {
    std::memcpy(device, host.data(), host.size_bytes());
  }
  void download(const u64* device, std::span<u64> host) {
    std::memcpy(host.data(), device, host.size_bytes());
  }
  void copy(const u64* src, u64* dst, std::size_t words) {
    if (src != dst) std::memmove(dst, src, words * sizeof(u64));
  }
  void zero(u64* dst, std::size_t words) { std::fill(dst, dst + words, u64{0}); }
  void synchronize() {}

  // Transfers run at once on the host: every ticket is already done.
  struct DoneEvent final : DeviceEvent {
    void wait() override {}
  };
  u64* pinned_allocate(std::size_t words) { return allocate(words); }
  void pinned_free(u64* p) noexcept { AlignedAllocator<u64>().deallocate(p, 0); }
  DeviceTicket record() { return std::make_shared<DoneEvent>(); }
  void upload_async(const DeviceTicket& /*after*/, std::span<const u64> host, u64* dst) {
    upload(host, dst);
  }
  DeviceTicket download_async(const u64* src, std::span<u64> host) {
    download(src, host);
    return record();
  }

  template <class Body>
  void for_each(const Body& body, std::size_t count) {
    // One thread per index; the bodies touch only index i's outputs, so any order gives the
    // same words: the order is varied where it could matter (block programs).
    if (order_ == EmulatedOrder::reverse) {
      for (std::size_t i = count; i-- > 0;) body(i);
    } else {
      for (std::size_t i = 0; i < count; ++i) body(i);
    }
  }

  template <class Program>
  void run(const Program& program, const char* name) {
    const cuda::detail::LaunchShape shape = program.shape();
    log_->add({name, shape.threads, shape.blocks, shape.batch, shape.shared_bytes});
    cuda::detail::EmulationOrder order = cuda::detail::EmulationOrder::forward;
    if (order_ == EmulatedOrder::reverse) order = cuda::detail::EmulationOrder::reverse;
    if (order_ == EmulatedOrder::shuffled) order = cuda::detail::EmulationOrder::shuffled;
    cuda::detail::emulate(program, order, seed_++);
  }

  std::vector<RingButterfly> policies_to_host(const NttPolicies& p, std::size_t count) {
    return {p.policies.begin(), p.policies.begin() + static_cast<std::ptrdiff_t>(count)};
  }

  NttPolicies make_ntt_policies(std::span<const NttPlan<u64>* const> plans) {
    NttPolicies out;
    for (const NttPlan<u64>* plan : plans) {
      plan->visit(cuda::detail::kRingVariant, [&](auto p) {
        if constexpr (std::is_same_v<decltype(p), RingButterfly>) out.policies.push_back(p);
      });
    }
    return out;
  }

  [[nodiscard]] LaunchLog& log() const { return *log_; }

 private:
  EmulatedOrder order_;
  u64 seed_;
  std::shared_ptr<LaunchLog> log_ = std::make_shared<LaunchLog>();  // movable with the executor
};

}  // namespace

std::shared_ptr<Device> make_emulated_device(EmulatedOrder order, std::uint64_t seed) {
  return std::make_shared<cuda::detail::DeviceRing<EmulatedExec>>(EmulatedExec(order, seed));
}

std::vector<EmulatedLaunch> take_emulated_launches(Device& device) {
  auto* ring = dynamic_cast<cuda::detail::DeviceRing<EmulatedExec>*>(&device);
  if (ring == nullptr) {
    throw InvalidParameter("take_emulated_launches: device '" + device.name() +
                           "' is not an emulated device (make_emulated_device)");
  }
  return ring->executor().log().take();
}

}  // namespace polyhe
