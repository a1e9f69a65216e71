// Seeded randomness for tests: fresh inputs each run, replayable from the printed seed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace polyhe::test {

/// The run's seed: POLYHE_TEST_SEED if set, else a fresh one from the OS. Fixed per process.
inline std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("POLYHE_TEST_SEED")) {
      return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 0));
    }
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ static_cast<std::uint64_t>(rd());
  }();
  return seed;
}

/// A generator for one test, derived from the run seed and a per-test stream id. Declare it with
/// POLYHE_SEEDED_RNG(rng) so a failure prints the seed and how to replay it.
class TestRng {
 public:
  explicit TestRng(std::uint64_t stream)
      : seed_(run_seed()), engine_(seed_ ^ (stream * 0x9E3779B97F4A7C15ULL)) {}
  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  /// Uniform in [lo, hi].
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(engine_);
  }
  std::uint64_t bits() { return engine_(); }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::uint64_t seed_;
  std::mt19937_64 engine_;
};

inline std::string replay_hint() {
  return "seed " + std::to_string(run_seed()) +
         " (replay with POLYHE_TEST_SEED=" + std::to_string(run_seed()) + ")";
}

}  // namespace polyhe::test

/// Declares `var`, a TestRng for this test, and attaches the replay hint to every failure.
#define POLYHE_SEEDED_RNG(var)                 \
  SCOPED_TRACE(::polyhe::test::replay_hint()); \
  ::polyhe::test::TestRng var(                 \
      std::hash<std::string>{}(::testing::UnitTest::GetInstance()->current_test_info()->name()))
