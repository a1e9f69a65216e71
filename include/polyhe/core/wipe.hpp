// Wiping secrets: a zeroing the compiler may not remove (libsodium's sodium_memzero), the
// per-thread work arrays that secret words may pass through (the NTT kernels' and the cyclic
// transforms'), and the scope in which the ring layer wipes those arrays after each transform.
//
// What is secret (docs/security.md): the secret key s and everything derived from it or from the
// randomness of key generation and encryption (s², σ_k(s), errors, the ternary v of public-key
// encryption, their transforms and products) until it has become part of a public object.
#pragma once

#include <cstddef>
#include <span>

namespace polyhe {

/// Zeroes `bytes` bytes at p with libsodium's sodium_memzero: unlike std::fill or memset on
/// memory about to be freed, the stores are not optimised away. Null p with 0 bytes is allowed.
void secure_zero(void* p, std::size_t bytes) noexcept;

template <class T>
void secure_zero(std::span<T> s) noexcept {
  secure_zero(static_cast<void*>(s.data()), s.size_bytes());
}

namespace detail {

/// A growable, 64-byte-aligned work array of one thread — declare it `thread_local` — that a
/// transform reuses from call to call instead of allocating. Because secret words pass through it
/// during key generation and encryption, it is registered with its thread: wipe_thread_scratch()
/// zeroes it when it was used since the last wipe, and its destructor (thread exit) zeroes it
/// before the memory goes back to the allocator. Hot paths pay one store per get().
///
/// Every member is out of line, compiled without ISA flags: the kernels that use it are built
/// with per-file AVX2/AVX-512 flags, and an inline member instantiated there could be the copy
/// the linker keeps for the scalar code too.
class ThreadScratch {
 public:
  ThreadScratch() noexcept;
  ~ThreadScratch();
  ThreadScratch(const ThreadScratch&) = delete;
  ThreadScratch& operator=(const ThreadScratch&) = delete;

  /// At least `bytes` bytes, 64-byte aligned (grown on demand, the old block wiped; never
  /// shrunk), valid until the next get() on this object that grows it. Contents unspecified.
  [[nodiscard]] void* get(std::size_t bytes);

 private:
  friend void wipe_thread_scratch() noexcept;
  friend bool thread_scratch_in_use() noexcept;
  void wipe() noexcept;

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool used_ = false;  // used since the last wipe
  ThreadScratch* next_;
};

/// Zeroes every ThreadScratch of the calling thread used since its last wipe (none used: a walk
/// over a list of a few nodes). Other threads' arrays are theirs to wipe.
void wipe_thread_scratch() noexcept;

/// Whether some ThreadScratch of the calling thread was used since its last wipe (for tests: a
/// secret transform leaves none in use on the threads that ran it).
[[nodiscard]] bool thread_scratch_in_use() noexcept;

/// Marks the calling thread as handling secrets for its lifetime (nesting allowed): the ring
/// layer's batched transforms (RingContext::forward/inverse, RnsPoly::to_evaluation/
/// to_coefficient) started inside one call wipe_thread_scratch() on every thread that ran a limb,
/// before that thread returns to the pool. Key generation and encryption open one; transforms of
/// public data (evaluation, decoding) run without, at no cost.
class SecretScope {
 public:
  SecretScope() noexcept;
  ~SecretScope();
  SecretScope(const SecretScope&) = delete;
  SecretScope& operator=(const SecretScope&) = delete;
};

/// Whether the calling thread is inside a SecretScope.
[[nodiscard]] bool in_secret_scope() noexcept;

}  // namespace detail

}  // namespace polyhe
