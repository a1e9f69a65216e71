// DeviceSpan: a view of words in device memory. A distinct type from std::span so that host
// memory cannot be passed where the device's is expected, or the other way round; it holds a
// pointer and a length and never dereferences them on the host.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>

#include "polyhe/core/error.hpp"

namespace polyhe::cuda {

template <class T>
class DeviceSpan {
 public:
  DeviceSpan() = default;
  DeviceSpan(T* data, std::size_t size) : data_(data), size_(size) {}
  /// DeviceSpan<T> → DeviceSpan<const T>.
  template <class U>
  requires std::is_same_v<const U, T> &&(!std::is_same_v<U, T>)DeviceSpan(DeviceSpan<U> other)
      : data_(other.data()), size_(other.size()) {}

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t size_bytes() const { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const { return size_ == 0; }

  /// Words [offset, offset + count). Checked: InvalidParameter naming both values and the size.
  [[nodiscard]] DeviceSpan subspan(std::size_t offset, std::size_t count) const {
    if (offset > size_ || count > size_ - offset) {
      throw InvalidParameter("DeviceSpan::subspan: offset " + std::to_string(offset) + " + count " +
                             std::to_string(count) + " exceeds the size " + std::to_string(size_));
    }
    return {data_ + offset, count};
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace polyhe::cuda
