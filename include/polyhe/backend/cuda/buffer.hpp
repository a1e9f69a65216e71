// Device and page-locked host buffers, and the copies between them.
//
// DeviceBuffer<T> is stream-ordered: it is allocated from its context's memory pool on a stream
// (cudaMallocFromPoolAsync) and freed on that same stream (cudaFreeAsync), so allocation and
// release cost no device synchronisation and freed blocks are reused by the next allocation.
// The memory is valid for work on the allocating stream at once; work on another stream must
// first be ordered after the allocation (an Event), and must be complete — or ordered before
// the free by an Event recorded on it and waited on by the allocating stream — before the
// buffer is destroyed. Contents are uninitialised.
//
// Templates over a few untyped functions defined in buffer.cu, so any trivially copyable T
// works without instantiation. No CUDA header is included (see context.hpp).
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "polyhe/backend/cuda/context.hpp"
#include "polyhe/backend/cuda/device_span.hpp"
#include "polyhe/core/error.hpp"

namespace polyhe::cuda {

namespace detail {

/// bytes from ctx's memory pool, ordered on s (cudaMallocFromPoolAsync); activates ctx first.
/// bytes = 0 returns nullptr without a call. Throws DeviceError naming the call and the size.
void* device_allocate(const Context& ctx, std::size_t bytes, Stream s);
/// Returns p to its pool, ordered on s (cudaFreeAsync), after making ctx's device current.
/// Errors are ignored: it runs in destructors. p = nullptr does nothing.
void device_free(const Context& ctx, void* p, Stream s) noexcept;
/// cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s): either side may be host or device
/// memory (unified addressing tells which). bytes = 0 makes no call.
void copy_async(void* dst, const void* src, std::size_t bytes, Stream s);
/// Page-locked host memory (cudaMallocHost); bytes = 0 returns nullptr without a call.
void* pinned_allocate(std::size_t bytes);
/// cudaFreeHost; errors ignored, p = nullptr does nothing.
void pinned_free(void* p) noexcept;

/// count·size in bytes; InvalidParameter naming both when the product overflows size_t.
inline std::size_t checked_bytes(std::size_t count, std::size_t size, const char* what) {
  if (size != 0 && count > std::numeric_limits<std::size_t>::max() / size) {
    throw InvalidParameter(std::string(what) + ": " + std::to_string(count) + " elements of " +
                           std::to_string(size) + " bytes overflow the address space");
  }
  return count * size;
}

inline void check_copy_sizes(std::size_t dst, std::size_t src) {
  if (dst != src) {
    throw InvalidParameter("copy_async: the destination holds " + std::to_string(dst) +
                           " elements, the source " + std::to_string(src));
  }
}

}  // namespace detail

/// count elements of T in device memory of one context, allocated and freed on one stream.
/// Move-only; a default-constructed or moved-from buffer is empty (no context, size 0).
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");

 public:
  DeviceBuffer() = default;

  /// Allocates count·sizeof(T) bytes from ctx's pool on s (no call for count = 0). Keeps ctx
  /// alive. Throws InvalidParameter for a null ctx or when count·sizeof(T) overflows,
  /// DeviceError when the allocation fails.
  DeviceBuffer(std::shared_ptr<const Context> ctx, std::size_t count, Stream s)
      : ctx_(std::move(ctx)), stream_(s.native()) {
    if (ctx_ == nullptr) throw InvalidParameter("DeviceBuffer: null context");
    const std::size_t bytes = detail::checked_bytes(count, sizeof(T), "DeviceBuffer");
    data_ = static_cast<T*>(detail::device_allocate(*ctx_, bytes, s));
    size_ = count;
  }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ctx_(std::move(other.ctx_)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(other.stream_) {}

  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ctx_ = std::move(other.ctx_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Frees on the allocating stream (stream-ordered: after the work already submitted to it).
  ~DeviceBuffer() { release(); }

  [[nodiscard]] DeviceSpan<T> span() const { return {data_, size_}; }
  [[nodiscard]] DeviceSpan<const T> cspan() const { return {data_, size_}; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T* data() const { return data_; }
  /// The stream the buffer was allocated on and will be freed on.
  [[nodiscard]] Stream stream() const { return Stream(stream_); }
  [[nodiscard]] const std::shared_ptr<const Context>& context() const { return ctx_; }

 private:
  void release() noexcept {
    if (data_ != nullptr) detail::device_free(*ctx_, data_, Stream(stream_));
    data_ = nullptr;
    size_ = 0;
  }

  std::shared_ptr<const Context> ctx_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
  void* stream_ = nullptr;
};

/// count elements of page-locked host memory (cudaMallocHost): copies from and to it are truly
/// asynchronous and run at full bus speed. Move-only; contents uninitialised. Throws
/// InvalidParameter on size overflow, DeviceError when the allocation fails (also when no
/// device or driver is present).
template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned memory holds trivially copyable types");

 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count)
      : data_(static_cast<T*>(
            detail::pinned_allocate(detail::checked_bytes(count, sizeof(T), "PinnedBuffer")))),
        size_(count) {}
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      detail::pinned_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  /// Must not run while a copy from or to the buffer is still pending on a stream.
  ~PinnedBuffer() { detail::pinned_free(data_); }

  [[nodiscard]] std::span<T> span() const { return {data_, size_}; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] T* data() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// --- Copies ------------------------------------------------------------------------------------
//
// Ordered on s and asynchronous with respect to the host, with the CUDA runtime's exception for
// pageable (ordinary) host memory: a copy from pageable memory returns once the source has been
// staged (the host buffer may then be reused), and a copy to pageable memory returns only when
// it is complete. Use PinnedBuffer for copies that overlap host work. Checked: equal sizes
// (InvalidParameter naming both); device errors throw DeviceError. The stream must belong to
// the current device (Context::activate) when several devices are in use.

/// Host → device.
template <class T>
void copy_async(DeviceSpan<T> dst, std::type_identity_t<std::span<const T>> src, Stream s) {
  detail::check_copy_sizes(dst.size(), src.size());
  detail::copy_async(dst.data(), src.data(), src.size_bytes(), s);
}

/// Device → host.
template <class T>
void copy_async(std::span<T> dst, std::type_identity_t<DeviceSpan<const T>> src, Stream s) {
  detail::check_copy_sizes(dst.size(), src.size());
  detail::copy_async(dst.data(), src.data(), src.size_bytes(), s);
}

/// Device → device.
template <class T>
void copy_async(DeviceSpan<T> dst, std::type_identity_t<DeviceSpan<const T>> src, Stream s) {
  detail::check_copy_sizes(dst.size(), src.size());
  detail::copy_async(dst.data(), src.data(), src.size_bytes(), s);
}

/// The elements of src, copied to a new host vector; synchronous (waits for s, hence also for
/// the work submitted to s before the copy).
template <class T>
std::vector<std::remove_const_t<T>> to_host(DeviceSpan<T> src, Stream s) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<std::remove_const_t<T>> out(src.size());
  detail::copy_async(out.data(), src.data(), src.size_bytes(), s);
  synchronize(s);
  return out;
}

/// A new DeviceBuffer on s holding a copy of src. Asynchronous as copy_async: with a pageable
/// src it returns once src is staged (src may then be reused); with a pinned src, src must stay
/// unchanged until s reaches the copy.
template <class T>
DeviceBuffer<T> to_device(std::shared_ptr<const Context> ctx, std::span<const T> src, Stream s) {
  DeviceBuffer<T> buffer(std::move(ctx), src.size(), s);
  detail::copy_async(buffer.data(), src.data(), src.size_bytes(), s);
  return buffer;
}

template <class T>
DeviceBuffer<T> to_device(std::shared_ptr<const Context> ctx, const std::vector<T>& src, Stream s) {
  return to_device(std::move(ctx), std::span<const T>(src), s);
}

}  // namespace polyhe::cuda
