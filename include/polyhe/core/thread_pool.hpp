// A persistent thread pool and the process-wide default pool that the batched APIs spread their
// limbs over. Workers are created once and park between jobs; the calling thread takes part in
// every job, so a pool of T threads has T − 1 workers.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace polyhe {

/// The most threads a pool may have (and POLYHE_THREADS may ask for).
inline constexpr unsigned kMaxThreads = 1024;

class FunctionRef;

/// What parallel_for runs: an object callable with an index (and not a FunctionRef itself).
template <class F>
concept IndexBody = !std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
                    std::is_object_v<std::remove_reference_t<F>> &&
                    std::is_invocable_v<std::remove_reference_t<F>&, std::size_t>;

/// A non-owning reference to a callable `void(std::size_t)`: two words, no allocation. The callable
/// must outlive the reference (a temporary lambda passed straight to parallel_for does).
class FunctionRef {
 public:
  // Implicit, as std::span is; IndexBody leaves copies and moves to the copy constructor.
  template <IndexBody F>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
  FunctionRef(F&& f) noexcept
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, std::size_t i) { (*static_cast<std::remove_reference_t<F>*>(o))(i); }) {}

  void operator()(std::size_t i) const { call_(object_, i); }

 private:
  void* object_;
  void (*call_)(void*, std::size_t);
};

/// T threads: the caller of parallel_for and T − 1 workers, started in the constructor and
/// parked between jobs (a spin of about 50 µs, then a futex wait through std::atomic::wait).
/// Measured cost of one parallel_for: about 0.1 µs back to back, 3 µs when the
/// workers are parked (2 threads, AMD EPYC VM).
class ThreadPool {
 public:
  /// Throws InvalidParameter unless 1 ≤ threads ≤ kMaxThreads.
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// T, the caller included.
  [[nodiscard]] unsigned size() const;

  /// Runs body(i) exactly once for every i in [0, count), on at most min(max_threads, size())
  /// threads (max_threads = 0: size()), the caller among them; returns when all have finished.
  /// Indices are handed out dynamically in chunks, in no particular order.
  ///
  /// Runs inline on the calling thread, in index order, when one thread suffices (count ≤ 1,
  /// max_threads = 1), when called from inside a task of any pool (nested calls never deadlock),
  /// or when another thread's job holds this pool.
  ///
  /// Exceptions: after a body throws, no further index starts; the caller waits for the running
  /// ones, then rethrows the first exception.
  ///
  /// Threads: any number of threads may call parallel_for on one pool at once; one job holds the
  /// pool at a time and the others run inline on their callers, as above (checked under
  /// ThreadSanitizer by scripts/tsan.sh).
  void parallel_for(std::size_t count, FunctionRef body, unsigned max_threads = 0);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// The process-wide pool, created on first use with POLYHE_THREADS threads when that variable is
/// set (a decimal integer in [1, kMaxThreads]; anything else throws InvalidParameter naming the
/// value), else std::thread::hardware_concurrency() (at least 1). set_thread_count replaces it.
std::shared_ptr<ThreadPool> default_thread_pool();

/// The default pool's size.
unsigned thread_count();

/// Replaces the default pool with one of `threads` threads (the API form of POLYHE_THREADS).
/// Throws InvalidParameter unless 1 ≤ threads ≤ kMaxThreads. Jobs already running finish on the
/// old pool, which goes away after them.
void set_thread_count(unsigned threads);

/// parallel_for on the default pool.
void parallel_for(std::size_t count, FunctionRef body, unsigned max_threads = 0);

}  // namespace polyhe
