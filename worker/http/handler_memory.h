// Memory for one asynchronous operation at a time, owned by the connection that starts it,
// so that an operation in steady state never reaches the heap. Asio's own per-thread cache
// keeps two freed operations; a thread with more operations pending at once (open loop: every
// connection's read wait and timer) would otherwise allocate on some of them
// (tests/alloc/worker_http_alloc_test.cc measures it). An operation larger than the slot, or
// started while the slot is taken, falls back to the heap.
#pragma once

#include <cstddef>
#include <new>

namespace benchgate::worker::http {

// The HTTP/2 session (worker/http2/session.h) keeps one per kind of operation; the HTTP/1.1
// connection takes its operations' memory from the thread's pool instead
// (worker/http/operation_pool.h), which an idle connection does not pay for.
//
// `SlotBytes`: the largest operation the slot takes (HandlerMemory's 256 fit the reactive
// waits; the HTTP/2 session's composed write needs more).
template <size_t SlotBytes>
class HandlerMemoryOf {
 public:
  HandlerMemoryOf() = default;
  HandlerMemoryOf(const HandlerMemoryOf&) = delete;
  HandlerMemoryOf& operator=(const HandlerMemoryOf&) = delete;

  void* allocate(size_t size) {
    if (!in_use_ && size <= sizeof(slot_)) {
      in_use_ = true;
      return slot_;
    }
    return ::operator new(size);
  }
  void deallocate(void* block) {
    if (block == slot_) {
      in_use_ = false;
    } else {
      ::operator delete(block);
    }
  }

 private:
  alignas(std::max_align_t) unsigned char slot_[SlotBytes];
  bool in_use_ = false;
};

// Asio's reactive wait and write operations with a connection's handler fit in 256 bytes.
using HandlerMemory = HandlerMemoryOf<256>;

// The allocator Asio finds through bind_allocator(HandlerAllocator<char>(&memory), handler).
template <typename T, typename Memory = HandlerMemory>
class HandlerAllocator {
 public:
  using value_type = T;
  explicit HandlerAllocator(Memory* memory) : memory_(memory) {}
  template <typename U>
  HandlerAllocator(const HandlerAllocator<U, Memory>& other)  // NOLINT
      : memory_(other.memory()) {}

  T* allocate(size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
  void deallocate(T* block, size_t) { memory_->deallocate(block); }
  Memory* memory() const { return memory_; }

  template <typename U>
  bool operator==(const HandlerAllocator<U, Memory>& other) const {
    return memory_ == other.memory();
  }
  template <typename U>
  bool operator!=(const HandlerAllocator<U, Memory>& other) const {
    return memory_ != other.memory();
  }

 private:
  Memory* memory_;
};

}  // namespace benchgate::worker::http
