// The thread pool: one job at a time, published through an atomic pointer and claimed
// chunk by chunk through an atomic counter; no lock on the way in or out.
//
// A job lives on its caller's stack. A worker announces itself (in_job + 1) before it reads the
// job pointer and leaves (in_job − 1) after its last access to the job; the caller, once no index
// is left, withdraws the pointer and waits for in_job = 0. With every step sequentially
// consistent, a worker that read the pointer is counted before the withdrawal, so the caller
// waits for it; a worker that reads null touches nothing. A worker that wakes late therefore
// costs the caller nothing, and no thread ever waits on a lock that a preempted thread holds.
//
// Parking is a futex wait on the job epoch (std::atomic::wait) after a short spin, so that
// back-to-back calls (a pipeline of batched transforms) pay no wake-up; the caller issues the
// wake-up system call only when a worker is actually parked (`sleepers`, the same Dekker
// pattern: the worker counts itself then re-reads the epoch; the caller bumps the epoch then
// reads the count).
#include "polyhe/core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "polyhe/core/error.hpp"

namespace polyhe {

namespace {

/// How long an idle worker polls for the next job before it parks, and how long a caller polls
/// for its helpers to leave before it blocks.
constexpr auto kWorkerSpin = std::chrono::microseconds(50);
constexpr auto kCallerSpin = std::chrono::microseconds(20);

constexpr auto kSeqCst = std::memory_order_seq_cst;

/// Whether this thread is running a task of some pool: nested parallel_for calls run inline.
thread_local bool t_in_task = false;

class TaskScope {
 public:
  TaskScope() : saved_(t_in_task) { t_in_task = true; }
  ~TaskScope() { t_in_task = saved_; }
  TaskScope(const TaskScope&) = delete;
  TaskScope& operator=(const TaskScope&) = delete;

 private:
  bool saved_;
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/// Polls done() for about `budget`; true as soon as it holds. Yields the CPU between rounds of
/// polling: when threads outnumber cores, the thread we wait for may be queued behind us.
template <class Done>
bool spin_until(Done done, std::chrono::microseconds budget) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int k = 0; k < 64; ++k) {
      if (done()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() - start > budget) return done();
    std::this_thread::yield();
  }
}

void check_thread_count(unsigned threads, const char* what) {
  if (threads == 0 || threads > kMaxThreads) {
    throw InvalidParameter(std::string(what) + ": " + std::to_string(threads) +
                           " threads is outside [1, " + std::to_string(kMaxThreads) + "]");
  }
}

// The padding is deliberate: the hot counters sit on cache lines of their own.
struct Job {  // NOLINT(clang-analyzer-optin.performance.Padding)
  Job(FunctionRef b, std::size_t n, std::size_t g, unsigned h)
      : body(b), count(n), grain(g), helpers_max(h) {}

  FunctionRef body;
  std::size_t count;
  std::size_t grain;         // indices claimed per fetch_add
  unsigned helpers_max;      // workers that may join (the caller is the other thread)
  std::exception_ptr error;  // written once, by the thread that sets `failed`
  alignas(64) std::atomic<std::size_t> next{0};  // the next unclaimed index
  std::atomic<unsigned> helpers{0};              // workers that tried to join
  std::atomic<bool> failed{false};

  /// Claims chunks until none is left or a body has thrown. `next` overshoots count by at most
  /// one grain per thread, far from overflow for any count below 2^63.
  void run() {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      const std::size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
      if (begin >= count) return;
      const std::size_t end = std::min(count, begin + grain);
      try {
        for (std::size_t i = begin; i < end; ++i) body(i);
      } catch (...) {
        if (!failed.exchange(true, std::memory_order_acq_rel)) error = std::current_exception();
        return;
      }
    }
  }
};

}  // namespace

// Padded as Job is.
struct ThreadPool::State {  // NOLINT(clang-analyzer-optin.performance.Padding)
  unsigned size = 1;
  alignas(64) std::atomic<std::uint32_t> epoch{0};  // bumped per job and at stop
  std::atomic<Job*> job{nullptr};                   // the published job
  std::atomic<bool> stop{false};
  std::atomic<std::uint32_t> sleepers{0};            // workers parked (or about to) on epoch
  alignas(64) std::atomic<std::uint32_t> in_job{0};  // workers between announce and leave
  std::atomic<bool> caller_waiting{false};           // a caller is parked on in_job
  alignas(64) std::atomic<bool> busy{false};         // a caller owns the pool
  std::vector<std::thread> workers;

  void worker_main();
  void wake_workers(unsigned wanted);
  void wait_for_helpers();
  /// Stops and joins the workers; idempotent.
  void shutdown();
};

void ThreadPool::State::worker_main() {
  t_in_task = true;  // for good: whatever a worker runs is a task
  std::uint32_t seen = 0;
  for (;;) {
    if (!spin_until([&] { return epoch.load(std::memory_order_acquire) != seen; }, kWorkerSpin)) {
      sleepers.fetch_add(1, kSeqCst);
      while (epoch.load(kSeqCst) == seen) epoch.wait(seen, kSeqCst);
      sleepers.fetch_sub(1, kSeqCst);
    }
    seen = epoch.load(std::memory_order_acquire);
    if (stop.load(std::memory_order_acquire)) return;
    in_job.fetch_add(1, kSeqCst);
    Job* j = job.load(kSeqCst);
    if (j != nullptr && j->helpers.fetch_add(1, std::memory_order_relaxed) < j->helpers_max) {
      j->run();
    }
    // After this, *j may be gone.
    if (in_job.fetch_sub(1, kSeqCst) == 1 && caller_waiting.load(kSeqCst)) in_job.notify_all();
  }
}

void ThreadPool::State::wake_workers(unsigned wanted) {
  const std::uint32_t parked = sleepers.load(kSeqCst);
  if (parked == 0 || wanted == 0) return;
  if (wanted >= parked) {
    epoch.notify_all();
  } else {
    for (unsigned i = 0; i < wanted; ++i) epoch.notify_one();
  }
}

void ThreadPool::State::wait_for_helpers() {
  if (spin_until([&] { return in_job.load(std::memory_order_acquire) == 0; }, kCallerSpin)) {
    return;
  }
  caller_waiting.store(true, kSeqCst);
  for (std::uint32_t v = in_job.load(kSeqCst); v != 0; v = in_job.load(kSeqCst)) {
    in_job.wait(v, kSeqCst);
  }
  caller_waiting.store(false, kSeqCst);
}

void ThreadPool::State::shutdown() {
  stop.store(true, kSeqCst);
  epoch.fetch_add(1, kSeqCst);
  epoch.notify_all();
  for (auto& t : workers) t.join();
  workers.clear();
}

ThreadPool::ThreadPool(unsigned threads) : state_(std::make_unique<State>()) {
  check_thread_count(threads, "ThreadPool");
  state_->size = threads;
  state_->workers.reserve(threads - 1);
  try {
    for (unsigned i = 1; i < threads; ++i) {
      state_->workers.emplace_back([s = state_.get()] { s->worker_main(); });
    }
  } catch (...) {
    state_->shutdown();  // joins the workers already started
    throw;
  }
}

ThreadPool::~ThreadPool() {
  state_->shutdown();
}

unsigned ThreadPool::size() const {
  return state_->size;
}

void ThreadPool::parallel_for(std::size_t count, FunctionRef body, unsigned max_threads) {
  State& s = *state_;
  std::size_t threads = max_threads == 0 ? s.size : std::min(max_threads, s.size);
  threads = std::min(threads, count);
  if (threads <= 1 || t_in_task || s.busy.exchange(true, std::memory_order_acquire)) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  // About four chunks per thread: dynamic balance for uneven limbs, few atomic operations.
  Job job(body, count, std::max<std::size_t>(1, count / (4 * threads)),
          static_cast<unsigned>(threads - 1));
  s.job.store(&job, kSeqCst);
  s.epoch.fetch_add(1, kSeqCst);
  s.wake_workers(job.helpers_max);
  {
    TaskScope scope;
    job.run();
  }
  s.job.store(nullptr, kSeqCst);  // no late joiners
  s.wait_for_helpers();
  s.busy.store(false, std::memory_order_release);
  if (job.error) std::rethrow_exception(job.error);
}

// --- The default pool ---------------------------------------------------------------------------

namespace {

std::mutex g_default_mutex;
std::shared_ptr<ThreadPool> g_default;

unsigned threads_from_environment() {
  const char* env = std::getenv("POLYHE_THREADS");
  if (env == nullptr || *env == '\0') {
    return std::clamp(std::thread::hardware_concurrency(), 1U, kMaxThreads);
  }
  unsigned long value = 0;
  bool ok = true;
  for (const char* p = env; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9' || value > kMaxThreads) {
      ok = false;
      break;
    }
    value = value * 10 + static_cast<unsigned long>(*p - '0');
  }
  if (!ok || value == 0 || value > kMaxThreads) {
    throw InvalidParameter(std::string("POLYHE_THREADS=") + env +
                           " is not a thread count: use a decimal integer in [1, " +
                           std::to_string(kMaxThreads) + "]");
  }
  return static_cast<unsigned>(value);
}

}  // namespace

std::shared_ptr<ThreadPool> default_thread_pool() {
  std::lock_guard lock(g_default_mutex);
  if (!g_default) g_default = std::make_shared<ThreadPool>(threads_from_environment());
  return g_default;
}

unsigned thread_count() {
  return default_thread_pool()->size();
}

void set_thread_count(unsigned threads) {
  check_thread_count(threads, "set_thread_count");
  auto fresh = std::make_shared<ThreadPool>(threads);
  std::shared_ptr<ThreadPool> old;
  {
    std::lock_guard lock(g_default_mutex);
    old = std::exchange(g_default, std::move(fresh));
  }
  // `old` is released here, outside the lock; its workers join once its last user lets go.
}

void parallel_for(std::size_t count, FunctionRef body, unsigned max_threads) {
  default_thread_pool()->parallel_for(count, body, max_threads);
}

}  // namespace polyhe
