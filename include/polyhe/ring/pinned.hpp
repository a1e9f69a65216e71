// Page-locked host words of a device, the staging of overlapped transfers (rlwe/batch.hpp): a
// polynomial's words are loaded into them on the host, then uploaded on the device's upload
// stream while its compute stream works; results come back on the download stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "polyhe/ring/device.hpp"
#include "polyhe/ring/poly.hpp"

namespace polyhe {

class PinnedWords {
 public:
  /// `words` page-locked words of `device` (InvalidParameter for a null device).
  PinnedWords(std::shared_ptr<Device> device, std::size_t words);
  PinnedWords(PinnedWords&& other) noexcept;
  PinnedWords& operator=(PinnedWords&& other) noexcept;
  PinnedWords(const PinnedWords&) = delete;
  PinnedWords& operator=(const PinnedWords&) = delete;
  ~PinnedWords();

  [[nodiscard]] std::size_t words() const { return words_; }
  [[nodiscard]] std::span<std::uint64_t> span() const { return {data_, words_}; }

  /// The words of the host polynomial p (InvalidParameter unless on the host and of this size).
  void load(const RnsPoly& p);
  /// Into the device polynomial d (this device, this size; checked) on the upload stream once
  /// `after` is done; the device's later operations wait for it. The buffer must stay untouched
  /// until the copy is done.
  void upload_to(RnsPoly& d, const DeviceTicket& after) const;
  /// From the device polynomial d (checked as above) on the download stream after the operations
  /// submitted so far; the ticket is done when the words are here.
  [[nodiscard]] DeviceTicket download_from(const RnsPoly& d);
  /// The words into the host polynomial p (of this size; checked), after the download is done.
  void store(RnsPoly& p) const;

 private:
  void check(const RnsPoly& p, bool on_device, const char* op) const;
  std::shared_ptr<Device> device_;
  std::uint64_t* data_ = nullptr;
  std::size_t words_ = 0;
};

}  // namespace polyhe
