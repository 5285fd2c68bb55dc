// The per-thread size-class pool (see size_class_pool.h).
#include "common/util/size_class_pool.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace benchgate::size_class_pool {

namespace {

constexpr int kSmallestShift = 6;  // 64 bytes
constexpr int kClasses = 11;       // up to 64 KiB
constexpr uint32_t kUnpooled = 0xffff'ffffu;

// Before every block, keeping what follows aligned as malloc's own blocks are.
struct alignas(alignof(std::max_align_t)) Head {
  uint32_t size_class;
  size_t capacity;
};

struct Pool {
  std::array<std::vector<Head*>, kClasses> free_blocks;
  ~Pool() {
    for (auto& blocks : free_blocks) {
      for (Head* head : blocks) std::free(head);
    }
  }
};

Pool& pool() {
  thread_local Pool the_pool;
  return the_pool;
}

int class_of(size_t size) {
  int c = 0;
  while (c < kClasses && (size_t{1} << (kSmallestShift + c)) < size) ++c;
  return c;  // kClasses: too large for the pool
}

}  // namespace

void* allocate(size_t size, void*) {
  const int c = class_of(size == 0 ? 1 : size);
  if (c < kClasses) {
    auto& blocks = pool().free_blocks[static_cast<size_t>(c)];
    if (!blocks.empty()) {
      Head* head = blocks.back();
      blocks.pop_back();
      return head + 1;
    }
    const size_t capacity = size_t{1} << (kSmallestShift + c);
    auto* head = static_cast<Head*>(std::malloc(sizeof(Head) + capacity));
    if (head == nullptr) return nullptr;
    // The free list of this class can take the block back without growing later.
    if (blocks.capacity() < kKeptPerClass) blocks.reserve(kKeptPerClass);
    *head = Head{static_cast<uint32_t>(c), capacity};
    return head + 1;
  }
  auto* head = static_cast<Head*>(std::malloc(sizeof(Head) + size));
  if (head == nullptr) return nullptr;
  *head = Head{kUnpooled, size};
  return head + 1;
}

void release(void* ptr, void*) {
  if (ptr == nullptr) return;
  Head* head = static_cast<Head*>(ptr) - 1;
  if (head->size_class != kUnpooled) {
    auto& blocks = pool().free_blocks[head->size_class];
    if (blocks.size() < kKeptPerClass) {
      if (blocks.capacity() < kKeptPerClass) blocks.reserve(kKeptPerClass);
      blocks.push_back(head);
      return;
    }
  }
  std::free(head);
}

void* allocate_zeroed(size_t count, size_t size, void* user) {
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* ptr = allocate(count * size, user);
  if (ptr != nullptr) std::memset(ptr, 0, count * size);
  return ptr;
}

void* reallocate(void* ptr, size_t size, void* user) {
  if (ptr == nullptr) return allocate(size, user);
  Head* head = static_cast<Head*>(ptr) - 1;
  if (size <= head->capacity) return ptr;
  void* grown = allocate(size, user);
  if (grown == nullptr) return nullptr;
  std::memcpy(grown, ptr, head->capacity);
  release(ptr, user);
  return grown;
}

}  // namespace benchgate::size_class_pool
