// Wiping secret temporaries of key generation and encryption on every way out of a scope.
// Internal to src/rlwe.
#pragma once

#include <initializer_list>
#include <vector>

#include "polyhe/ring/poly.hpp"

namespace polyhe::rlwe::internal {

/// Calls RnsPoly::wipe() on each polynomial it names when it goes out of scope — normal exit or
/// exception — unless dismissed (an output that became public on success). The polynomials must
/// be declared before the guard, so that they outlive it. Errors of a device are swallowed (a
/// destructor cannot throw; a device that fails to zero fails to free as well).
class WipeGuard {
 public:
  WipeGuard(std::initializer_list<RnsPoly*> polys) : polys_(polys) {}
  WipeGuard(const WipeGuard&) = delete;
  WipeGuard& operator=(const WipeGuard&) = delete;
  ~WipeGuard() {
    if (dismissed_) return;
    for (RnsPoly* p : polys_) {
      try {
        p->wipe();
      } catch (...) {  // NOLINT(bugprone-empty-catch): see above
      }
    }
  }
  void dismiss() { dismissed_ = true; }

 private:
  std::vector<RnsPoly*> polys_;
  bool dismissed_ = false;
};

}  // namespace polyhe::rlwe::internal
