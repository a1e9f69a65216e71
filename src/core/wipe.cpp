#include "polyhe/core/wipe.hpp"

#include <sodium.h>

#include <new>

#include "polyhe/core/aligned.hpp"

namespace polyhe {

void secure_zero(void* p, std::size_t bytes) noexcept {
  // sodium_memzero needs no sodium_init(): a store loop the compiler keeps, or explicit_bzero.
  if (p != nullptr && bytes != 0) sodium_memzero(p, bytes);
}

namespace detail {

namespace {

// Plain (trivially destructible) thread_locals: valid for the whole life of the thread, also while
// the ThreadScratch objects themselves are destroyed at its exit.
thread_local ThreadScratch* t_scratch_head = nullptr;
thread_local unsigned t_secret_depth = 0;

void release(void* p) noexcept {
  ::operator delete (p, std::align_val_t{kAlignment});
}

}  // namespace

ThreadScratch::ThreadScratch() noexcept : next_(t_scratch_head) {
  t_scratch_head = this;
}

ThreadScratch::~ThreadScratch() {
  secure_zero(data_, bytes_);
  release(data_);
  for (ThreadScratch** p = &t_scratch_head; *p != nullptr; p = &(*p)->next_) {
    if (*p == this) {
      *p = next_;
      break;
    }
  }
}

void* ThreadScratch::get(std::size_t bytes) {
  if (bytes_ < bytes) {
    void* fresh = ::operator new (bytes, std::align_val_t{kAlignment});
    secure_zero(data_, bytes_);
    release(data_);
    data_ = fresh;
    bytes_ = bytes;
  }
  used_ = true;
  return data_;
}

void ThreadScratch::wipe() noexcept {
  secure_zero(data_, bytes_);
  used_ = false;
}

void wipe_thread_scratch() noexcept {
  for (ThreadScratch* p = t_scratch_head; p != nullptr; p = p->next_) {
    if (p->used_) p->wipe();
  }
}

bool thread_scratch_in_use() noexcept {
  for (const ThreadScratch* p = t_scratch_head; p != nullptr; p = p->next_) {
    if (p->used_) return true;
  }
  return false;
}

SecretScope::SecretScope() noexcept {
  ++t_secret_depth;
}

SecretScope::~SecretScope() {
  --t_secret_depth;
}

bool in_secret_scope() noexcept {
  return t_secret_depth != 0;
}

}  // namespace detail

}  // namespace polyhe
