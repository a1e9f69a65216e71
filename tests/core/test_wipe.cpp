// core/wipe.hpp: secure_zero, the per-thread work arrays and their wipe, the secret scope.
#include "polyhe/core/wipe.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <thread>
#include <vector>

namespace polyhe {
namespace {

bool all_zero(std::span<const std::uint64_t> w) {
  return std::all_of(w.begin(), w.end(), [](std::uint64_t x) { return x == 0; });
}

TEST(SecureZero, ZeroesEveryByteAndAcceptsNothing) {
  std::vector<std::uint64_t> w(1000, ~std::uint64_t{0});
  secure_zero(std::span<std::uint64_t>(w).subspan(10, 980));
  EXPECT_EQ(w[9], ~std::uint64_t{0});
  EXPECT_EQ(w[990], ~std::uint64_t{0});
  EXPECT_TRUE(all_zero(std::span<const std::uint64_t>(w).subspan(10, 980)));
  secure_zero(nullptr, 0);  // allowed
}

TEST(ThreadScratch, WipeZeroesWhatWasUsedAndKeepsTheArray) {
  thread_local detail::ThreadScratch scratch;
  auto* a = static_cast<std::uint64_t*>(scratch.get(512 * sizeof(std::uint64_t)));
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0U);
  std::fill(a, a + 512, 0x5a5a5a5aULL);
  detail::wipe_thread_scratch();
  // The array stays this thread's (not freed): reading it is reading live memory.
  EXPECT_TRUE(all_zero({a, 512}));
  // A smaller request reuses it; a larger one moves it (the old block wiped before its release).
  EXPECT_EQ(scratch.get(100 * sizeof(std::uint64_t)), a);
  auto* b = static_cast<std::uint64_t*>(scratch.get(4096 * sizeof(std::uint64_t)));
  std::fill(b, b + 4096, 7);
  detail::wipe_thread_scratch();
  EXPECT_TRUE(all_zero({b, 4096}));
}

TEST(ThreadScratch, EachThreadWipesOnlyItsOwn) {
  thread_local detail::ThreadScratch scratch;
  auto* mine = static_cast<std::uint64_t*>(scratch.get(64 * sizeof(std::uint64_t)));
  std::fill(mine, mine + 64, 3);
  std::thread other([] {
    thread_local detail::ThreadScratch theirs;
    auto* w = static_cast<std::uint64_t*>(theirs.get(64 * sizeof(std::uint64_t)));
    std::fill(w, w + 64, 9);
    detail::wipe_thread_scratch();
    EXPECT_TRUE(all_zero({w, 64}));
  });
  other.join();
  EXPECT_EQ(mine[0], 3U);
  detail::wipe_thread_scratch();
  EXPECT_TRUE(all_zero({mine, 64}));
}

TEST(SecretScope, NestsAndEnds) {
  EXPECT_FALSE(detail::in_secret_scope());
  {
    const detail::SecretScope outer;
    EXPECT_TRUE(detail::in_secret_scope());
    {
      const detail::SecretScope inner;
      EXPECT_TRUE(detail::in_secret_scope());
    }
    EXPECT_TRUE(detail::in_secret_scope());
    bool seen_elsewhere = true;
    std::thread([&] { seen_elsewhere = detail::in_secret_scope(); }).join();
    EXPECT_FALSE(seen_elsewhere);  // per thread
  }
  EXPECT_FALSE(detail::in_secret_scope());
}

}  // namespace
}  // namespace polyhe
