// Memory for the asynchronous operations of one io_context's HTTP/1.1 connections
// (worker/http/connection.h), and for the lines their parsers assemble across reads: blocks
// of a few sizes, kept on a free list per size when given back and handed out again. So an
// operation in steady state never reaches the heap (Asio's own per-thread cache keeps only two
// freed operations, fewer than a load thread has pending at once), and a connection holds
// only what it has pending, not a slot per kind of operation (issue 19, goal 2: an idle
// connection has one readability wait pending, or nothing with --http1-io epoll or uring).
//
// One per io_context (an Asio service), touched only by the thread that runs it (and by the
// thread that finishes the io_context's aborted operations once that one has ended,
// worker/engine/load_thread.cc). The free lists grow to the peak number of blocks of each
// size in use at once and are freed with the io_context, after its pending operations were
// destroyed. Blocks larger than the largest size go to the heap directly.
//
// Why not the thread's size-class pool (common/util/size_class_pool.h, `pooled` in
// common/util/pooled_handler.h), which the WAMP connections and nghttp2 use: that one serves
// callers that free without a size (nghttp2's free), so each block carries a 16-byte head,
// and its classes are powers of two from 64 bytes. Asio gives the size back on deallocate, so
// here a block needs no head and its classes follow glibc's chunks: the 104-byte readability
// wait an idle connection keeps with --http1-io asio takes a 112-byte chunk here and would take
// a 160-byte one there (128-byte class plus head), 48 bytes more per idle connection (from the
// sizes; the wait's 104 bytes are alloc.worker_http_connection_memory_asio's 512.0 less the
// default's 408.0).
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <new>

namespace benchgate::worker::http {

class OperationPool : public boost::asio::io_context::service {
 public:
  static inline boost::asio::io_context::id id;

  explicit OperationPool(boost::asio::io_context& io) : boost::asio::io_context::service(io) {}
  OperationPool(const OperationPool&) = delete;
  OperationPool& operator=(const OperationPool&) = delete;
  ~OperationPool() override {
    for (Block* block : free_) {
      while (block != nullptr) {
        Block* next = block->next;
        ::operator delete(block);
        block = next;
      }
    }
  }

  // `size` must be given back with the block (Asio's allocators give it).
  void* allocate(size_t size) {
    if (size > kLargest) return ::operator new(size);
    const size_t c = class_of(size);
    if (Block* block = free_[c]) {
      free_[c] = block->next;
      return block;
    }
    return ::operator new(block_bytes(c));
  }
  void deallocate(void* block, size_t size) {
    if (size > kLargest) return ::operator delete(block);
    const size_t c = class_of(size);
    free_[c] = new (block) Block{free_[c]};
  }

 private:
  struct Block {
    Block* next;
  };

  // The sizes are those of glibc's chunks, less their 8-byte header (a chunk is a multiple of
  // 16 bytes): 24, 40, 56, ... 520 bytes, so a block wastes nothing malloc would not.
  static constexpr size_t kClasses = 32;
  static constexpr size_t block_bytes(size_t c) { return 16 * c + 24; }
  static constexpr size_t class_of(size_t size) { return size <= 24 ? 0 : (size - 24 + 15) / 16; }
  static constexpr size_t kLargest = 16 * (kClasses - 1) + 24;  // block_bytes(kClasses - 1)

  void shutdown() override {}  // operations destroyed meanwhile still give their blocks back

  std::array<Block*, kClasses> free_{};
};

// The allocator Asio finds through bind_allocator(PooledAllocator<char>(pool), handler).
template <typename T>
class PooledAllocator {
 public:
  using value_type = T;
  explicit PooledAllocator(OperationPool* pool) : pool_(pool) {}
  template <typename U>
  PooledAllocator(const PooledAllocator<U>& other)  // NOLINT(google-explicit-constructor)
      : pool_(other.pool()) {}

  T* allocate(size_t n) { return static_cast<T*>(pool_->allocate(sizeof(T) * n)); }
  void deallocate(T* block, size_t n) { pool_->deallocate(block, sizeof(T) * n); }
  OperationPool* pool() const { return pool_; }

  template <typename U>
  bool operator==(const PooledAllocator<U>& other) const {
    return pool_ == other.pool();
  }
  template <typename U>
  bool operator!=(const PooledAllocator<U>& other) const {
    return pool_ != other.pool();
  }

 private:
  OperationPool* pool_;
};

}  // namespace benchgate::worker::http
