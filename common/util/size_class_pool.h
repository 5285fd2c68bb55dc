// A per-thread pool of size classes (powers of two from 64 bytes to 64 KiB) for a C library's
// allocator hooks (nghttp2's nghttp2_mem, in the router's HTTP/2 server and the worker's HTTP/2
// client), so that what the library allocates per request (stream objects, queued frames, the
// HPACK buffers of a header block) comes from blocks that earlier requests gave back instead of
// malloc. Blocks over 64 KiB go to malloc and free directly.
//
// Each thread's pool is touched by its thread only. A block may be freed on another thread
// than the one that made it (a session destroyed with its io_context): it then joins that
// thread's pool; blocks are plain malloc memory, owned by no pool in particular. Each class
// keeps at most kKeptPerClass free blocks, the rest are freed, and a thread's pool is freed
// when the thread ends. The signatures are nghttp2_mem's (`user` is unused).
#pragma once

#include <cstddef>
#include <new>

namespace benchgate::size_class_pool {

inline constexpr size_t kKeptPerClass = 512;

void* allocate(size_t size, void* user);
void release(void* ptr, void* user);
void* allocate_zeroed(size_t count, size_t size, void* user);
void* reallocate(void* ptr, size_t size, void* user);

}  // namespace benchgate::size_class_pool

namespace benchgate {

// A standard allocator over the thread's pool, for a container whose nodes come and go per
// operation on one thread (the router dealer's pending calls): a node freed goes back to the
// pool, and the next one comes from it instead of operator new.
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}  // NOLINT(google-explicit-constructor)
  T* allocate(size_t n) {
    void* block = size_class_pool::allocate(n * sizeof(T), nullptr);
    if (block == nullptr) throw std::bad_alloc();
    return static_cast<T*>(block);
  }
  void deallocate(T* block, size_t) { size_class_pool::release(block, nullptr); }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const {
    return true;
  }
};

}  // namespace benchgate
