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

class HandlerMemory {
 public:
  HandlerMemory() = default;
  HandlerMemory(const HandlerMemory&) = delete;
  HandlerMemory& operator=(const HandlerMemory&) = delete;

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
  // Asio's reactive wait and write operations with a connection's handler fit in 256 bytes.
  alignas(std::max_align_t) unsigned char slot_[256];
  bool in_use_ = false;
};

// The allocator Asio finds through bind_allocator(HandlerAllocator<char>(&memory), handler).
template <typename T>
class HandlerAllocator {
 public:
  using value_type = T;
  explicit HandlerAllocator(HandlerMemory* memory) : memory_(memory) {}
  template <typename U>
  HandlerAllocator(const HandlerAllocator<U>& other) : memory_(other.memory()) {}  // NOLINT

  T* allocate(size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n)); }
  void deallocate(T* block, size_t) { memory_->deallocate(block); }
  HandlerMemory* memory() const { return memory_; }

  template <typename U>
  bool operator==(const HandlerAllocator<U>& other) const {
    return memory_ == other.memory();
  }
  template <typename U>
  bool operator!=(const HandlerAllocator<U>& other) const {
    return memory_ != other.memory();
  }

 private:
  HandlerMemory* memory_;
};

}  // namespace benchgate::worker::http
