// An environment variable set (or unset) for a scope and restored after: the device knobs
// (POLYHE_CUDA_TILE_LOG, POLYHE_CUDA_CONVERT_GROUP, POLYHE_CUDA_PDL) are read when a device is
// made, so the tests that try them set them around it.
#pragma once

#include <cstdlib>
#include <string>

namespace polyhe::test {

/// Sets (or, with nullptr, unsets) an environment variable for a scope, as it was after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* before = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
    had_ = before != nullptr;
    if (had_) saved_ = before;
    set(value);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() { set(had_ ? saved_.c_str() : nullptr); }
  void set(const char* value) const {
    if (value != nullptr) {
      setenv(name_, value, 1);  // NOLINT(concurrency-mt-unsafe)
    } else {
      unsetenv(name_);  // NOLINT(concurrency-mt-unsafe)
    }
  }

 private:
  const char* name_;
  std::string saved_;
  bool had_ = false;
};

}  // namespace polyhe::test
