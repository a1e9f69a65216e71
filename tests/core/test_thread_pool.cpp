// The thread pool: every index exactly once, thread limits, exceptions, nested and concurrent
// calls, the default pool's size from POLYHE_THREADS and set_thread_count.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"

namespace polyhe {
namespace {

/// Runs `count` indices on `pool` and checks each ran exactly once.
void expect_each_once(ThreadPool& pool, std::size_t count, unsigned max_threads) {
  std::vector<std::atomic<int>> hits(count);
  pool.parallel_for(
      count, [&](std::size_t i) { hits[i].fetch_add(1, std::memory_order_relaxed); }, max_threads);
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << count << ", pool " << pool.size()
                                 << ", max_threads " << max_threads;
  }
}

TEST(ThreadPool, EveryIndexExactlyOnce) {
  for (unsigned threads : {1U, 2U, 3U, 8U}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (std::size_t count : {0, 1, 2, 3, 7, 64, 1000, 100003}) {
      for (unsigned max_threads : {0U, 1U, 2U, 5U}) expect_each_once(pool, count, max_threads);
    }
  }
}

TEST(ThreadPool, ManyBackToBackCalls) {
  ThreadPool pool(4);
  std::atomic<std::size_t> sum{0};
  for (int rep = 0; rep < 2000; ++rep) {
    pool.parallel_for(17, [&](std::size_t i) { sum.fetch_add(i, std::memory_order_relaxed); });
  }
  EXPECT_EQ(sum.load(), 2000U * (16 * 17 / 2));
}

TEST(ThreadPool, RespectsMaxThreads) {
  ThreadPool pool(4);
  for (unsigned max_threads : {1U, 2U, 3U}) {
    std::mutex m;
    std::set<std::thread::id> ids;
    pool.parallel_for(
        4000,
        [&](std::size_t) {
          std::lock_guard lock(m);
          ids.insert(std::this_thread::get_id());
        },
        max_threads);
    EXPECT_LE(ids.size(), max_threads);
    if (max_threads == 1) {
      EXPECT_EQ(*ids.begin(), std::this_thread::get_id());
    }
  }
}

TEST(ThreadPool, RethrowsTheFirstExceptionAfterAllFinish) {
  ThreadPool pool(4);
  for (int rep = 0; rep < 50; ++rep) {
    std::atomic<int> running{0};
    std::atomic<int> max_after{0};
    try {
      pool.parallel_for(1000, [&](std::size_t i) {
        running.fetch_add(1);
        if (i % 97 == 13) {
          running.fetch_sub(1);
          throw std::runtime_error("index " + std::to_string(i));
        }
        running.fetch_sub(1);
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("index ", 0), 0U) << e.what();
      // Every task that started has finished by the time the caller sees the exception.
      max_after.store(running.load());
    }
    EXPECT_EQ(max_after.load(), 0);
    expect_each_once(pool, 5000, 0);  // the pool is usable afterwards
  }
}

TEST(ThreadPool, InlineExceptionPropagates) {
  ThreadPool pool(1);
  EXPECT_THROW(pool.parallel_for(3,
                                 [](std::size_t i) {
                                   if (i == 1) throw InvalidParameter("one");
                                 }),
               InvalidParameter);
}

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(4);
  constexpr std::size_t kOuter = 64, kInner = 50;
  std::vector<std::atomic<int>> hits(kOuter * kInner);
  pool.parallel_for(kOuter, [&](std::size_t i) {
    // The same pool, and the default pool, from inside a task: no deadlock.
    pool.parallel_for(kInner, [&](std::size_t j) { hits[i * kInner + j].fetch_add(1); });
    parallel_for(kInner, [&](std::size_t j) { hits[i * kInner + j].fetch_add(1); });
  });
  for (std::size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k].load(), 2) << k;
}

TEST(ThreadPool, ConcurrentCallersShareOnePool) {
  ThreadPool pool(3);
  std::vector<std::thread> callers;
  callers.reserve(4);
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) {
        std::vector<std::atomic<int>> hits(257);
        pool.parallel_for(257, [&](std::size_t i) { hits[i].fetch_add(1); });
        for (auto& h : hits) failures.fetch_add(h.load() != 1);
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(ThreadPool, RejectsBadSizes) {
  EXPECT_THROW(ThreadPool(0), InvalidParameter);
  EXPECT_THROW(ThreadPool(kMaxThreads + 1), InvalidParameter);
  EXPECT_THROW(set_thread_count(0), InvalidParameter);
  try {
    set_thread_count(kMaxThreads + 1);
    FAIL() << "no exception";
  } catch (const InvalidParameter& e) {
    EXPECT_NE(std::string(e.what()).find("1025"), std::string::npos) << e.what();
  }
}

TEST(ThreadPool, SetThreadCountReplacesTheDefaultPool) {
  if (std::getenv("POLYHE_THREADS") != nullptr) GTEST_SKIP() << "POLYHE_THREADS is set";
  const unsigned hardware = std::thread::hardware_concurrency();
  EXPECT_EQ(thread_count(), std::clamp(hardware, 1U, kMaxThreads));
  for (unsigned t : {3U, 1U, 2U}) {
    set_thread_count(t);
    EXPECT_EQ(thread_count(), t);
    EXPECT_EQ(default_thread_pool()->size(), t);
    std::vector<std::atomic<int>> hits(1001);
    parallel_for(hits.size(), [&](std::size_t i) { hits[i].fetch_add(1); });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  // Replacing the pool while a job runs on it: the job finishes on the old pool.
  std::atomic<int> done{0};
  parallel_for(8, [&](std::size_t i) {
    if (i == 0) set_thread_count(2);
    done.fetch_add(1);
  });
  EXPECT_EQ(done.load(), 8);
  EXPECT_EQ(thread_count(), 2U);
}

/// Run by CTest with POLYHE_THREADS set and POLYHE_TEST_EXPECT_THREADS naming the outcome: a
/// count, or "error" for a value the library must refuse (tests/core/CMakeLists.txt).
TEST(ThreadPoolEnvironment, PolyheThreads) {
  const char* expect = std::getenv("POLYHE_TEST_EXPECT_THREADS");
  const char* value = std::getenv("POLYHE_THREADS");
  if (expect == nullptr || value == nullptr) {
    GTEST_SKIP() << "run by CTest with POLYHE_THREADS and POLYHE_TEST_EXPECT_THREADS set";
  }
  if (std::string(expect) == "error") {
    try {
      (void)thread_count();
      FAIL() << "POLYHE_THREADS=" << value << " was accepted";
    } catch (const InvalidParameter& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("POLYHE_THREADS=") + value),
                std::string::npos)
          << e.what();
    }
    // Every use refuses it until the API sets a count.
    EXPECT_THROW(parallel_for(4, [](std::size_t) {}), InvalidParameter);
    set_thread_count(2);
    EXPECT_EQ(thread_count(), 2U);
  } else {
    EXPECT_EQ(thread_count(), static_cast<unsigned>(std::stoul(expect)));
    expect_each_once(*default_thread_pool(), 10007, 0);
  }
}

}  // namespace
}  // namespace polyhe
