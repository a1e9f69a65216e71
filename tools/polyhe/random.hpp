// Random inputs for the self-test and the benchmarks: a seed from the operating system, expanded
// by SplitMix64. These are test data, never secrets: keys and noise belong to the library's
// sampler, which uses a vetted stream cipher (docs/design.md, "Randomness").
#pragma once

#include <cstdint>

namespace polyhe::cli {

/// 64 bits from getrandom(2).
std::uint64_t os_seed();

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a Weyl sequence and
/// finalised by a bijective mixer. Replayable from its seed; statistically sound for test data.
class InputRng {
 public:
  explicit InputRng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [lo, hi] (lo ≤ hi), by rejection: no modulo bias.
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi);

 private:
  std::uint64_t state_;
};

}  // namespace polyhe::cli
