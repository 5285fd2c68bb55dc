// The counting global allocator (counting_allocator.h). glibc's own allocator does the work
// (__libc_malloc and friends); this file only counts around it.
#include "counting_allocator.h"

#include <dirent.h>
#include <execinfo.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* ptr);
}

namespace benchgate::alloc_test {
namespace {

struct Slot {
  std::atomic<pid_t> tid{0};
  std::atomic<uint64_t> allocations{0};
};

// More threads than a test ever starts; threads past the last share it (never in a test's set
// of ids, so a test sees an overflow as calls it cannot attribute, never as fewer calls).
constexpr int kSlots = 4096;
Slot g_slots[kSlots];
std::atomic<int> g_next_slot{0};
std::atomic<int64_t> g_live_bytes{0};
thread_local int t_slot = -1;

// trace_allocations_of(): the ids traced and how many stacks are still to be written.
constexpr int kTraced = 64;
std::atomic<pid_t> g_traced[kTraced];
std::atomic<int> g_trace_left{0};
thread_local bool t_tracing = false;

void maybe_trace(size_t bytes) {
  if (g_trace_left.load(std::memory_order_relaxed) <= 0 || t_tracing) return;
  const pid_t tid = g_slots[t_slot].tid.load(std::memory_order_relaxed);
  bool traced = false;
  for (const auto& id : g_traced) traced = traced || (tid != 0 && id.load() == tid);
  if (!traced || g_trace_left.fetch_sub(1) <= 0) return;
  t_tracing = true;  // backtrace() may allocate the first time
  void* frames[32];
  const int depth = ::backtrace(frames, 32);
  char header[64];
  const int length = std::snprintf(header, sizeof(header),
                                   "--- allocation on a traced thread: %zu bytes\n", bytes);
  (void)!::write(2, header, static_cast<size_t>(length));
  ::backtrace_symbols_fd(frames, depth, 2);
  t_tracing = false;
}

void count_allocation(void* block) {
  if (block == nullptr) return;
  if (t_slot < 0) {
    const int slot = g_next_slot.fetch_add(1, std::memory_order_relaxed);
    t_slot = std::min(slot, kSlots - 1);
    if (slot < kSlots - 1) g_slots[t_slot].tid.store(this_thread(), std::memory_order_relaxed);
  }
  g_slots[t_slot].allocations.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(block)),
                         std::memory_order_relaxed);
  maybe_trace(malloc_usable_size(block));
}

void count_free(void* block) {
  if (block == nullptr) return;
  g_live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(block)),
                         std::memory_order_relaxed);
}

void* aligned(size_t alignment, size_t size) {
  void* block = __libc_memalign(alignment, size);
  count_allocation(block);
  return block;
}

void* new_or_throw(size_t size) {
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

void* new_aligned_or_throw(size_t size, std::align_val_t alignment) {
  void* block = aligned(static_cast<size_t>(alignment), size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

}  // namespace

uint64_t allocations_of(const std::vector<pid_t>& tids) {
  uint64_t sum = 0;
  const int used = std::min(g_next_slot.load(std::memory_order_relaxed), kSlots - 1);
  for (int i = 0; i < used; ++i) {
    const pid_t tid = g_slots[i].tid.load(std::memory_order_relaxed);
    if (std::find(tids.begin(), tids.end(), tid) != tids.end())
      sum += g_slots[i].allocations.load(std::memory_order_relaxed);
  }
  return sum;
}

uint64_t allocations_total() {
  uint64_t sum = 0;
  for (const Slot& slot : g_slots) sum += slot.allocations.load(std::memory_order_relaxed);
  return sum;
}

void trace_allocations_of(const std::vector<pid_t>& tids, int count) {
  for (int i = 0; i < kTraced; ++i)
    g_traced[i].store(i < static_cast<int>(tids.size()) ? tids[i] : 0);
  void* warm[1];
  ::backtrace(warm, 1);  // loads what backtrace needs before the traced phase
  g_trace_left.store(count);
}

int64_t live_bytes() { return g_live_bytes.load(std::memory_order_relaxed); }

pid_t this_thread() { return ::gettid(); }

std::vector<pid_t> threads_now() {
  std::vector<pid_t> tids;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return tids;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') tids.push_back(static_cast<pid_t>(std::atoi(entry->d_name)));
  }
  ::closedir(dir);
  return tids;
}

std::vector<pid_t> started_between(const std::vector<pid_t>& before,
                                   const std::vector<pid_t>& after) {
  std::vector<pid_t> started;
  for (pid_t tid : after) {
    if (std::find(before.begin(), before.end(), tid) == before.end()) started.push_back(tid);
  }
  return started;
}

}  // namespace benchgate::alloc_test

using benchgate::alloc_test::count_allocation;
using benchgate::alloc_test::count_free;

extern "C" {

void* malloc(size_t size) {
  void* block = __libc_malloc(size);
  count_allocation(block);
  return block;
}

void* calloc(size_t count, size_t size) {
  void* block = __libc_calloc(count, size);
  count_allocation(block);
  return block;
}

void* realloc(void* ptr, size_t size) {
  if (ptr == nullptr) return malloc(size);
  if (size == 0) {
    free(ptr);
    return nullptr;
  }
  const size_t old_bytes = malloc_usable_size(ptr);
  void* block = __libc_realloc(ptr, size);
  if (block == nullptr) return nullptr;  // the old block stays, still counted
  benchgate::alloc_test::g_live_bytes.fetch_sub(static_cast<int64_t>(old_bytes),
                                                std::memory_order_relaxed);
  count_allocation(block);
  return block;
}

void free(void* ptr) {
  count_free(ptr);
  __libc_free(ptr);
}

void* memalign(size_t alignment, size_t size) {
  return benchgate::alloc_test::aligned(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  return benchgate::alloc_test::aligned(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* block = benchgate::alloc_test::aligned(alignment, size);
  if (block == nullptr) return ENOMEM;
  *out = block;
  return 0;
}

void* valloc(size_t size) {
  return benchgate::alloc_test::aligned(static_cast<size_t>(::sysconf(_SC_PAGESIZE)), size);
}

void* pvalloc(size_t size) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return benchgate::alloc_test::aligned(page, (size + page - 1) / page * page);
}

}  // extern "C"

using benchgate::alloc_test::new_aligned_or_throw;
using benchgate::alloc_test::new_or_throw;

void* operator new(size_t size) { return new_or_throw(size); }
void* operator new[](size_t size) { return new_or_throw(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size ? size : 1);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return std::malloc(size ? size : 1);
}
void* operator new(size_t size, std::align_val_t a) { return new_aligned_or_throw(size, a); }
void* operator new[](size_t size, std::align_val_t a) { return new_aligned_or_throw(size, a); }
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return benchgate::alloc_test::aligned(static_cast<size_t>(a), size ? size : 1);
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return benchgate::alloc_test::aligned(static_cast<size_t>(a), size ? size : 1);
}
void operator delete(void* ptr) noexcept { std::free(ptr); }
void operator delete[](void* ptr) noexcept { std::free(ptr); }
void operator delete(void* ptr, size_t) noexcept { std::free(ptr); }
void operator delete[](void* ptr, size_t) noexcept { std::free(ptr); }
void operator delete(void* ptr, const std::nothrow_t&) noexcept { std::free(ptr); }
void operator delete[](void* ptr, const std::nothrow_t&) noexcept { std::free(ptr); }
void operator delete(void* ptr, std::align_val_t) noexcept { std::free(ptr); }
void operator delete[](void* ptr, std::align_val_t) noexcept { std::free(ptr); }
void operator delete(void* ptr, size_t, std::align_val_t) noexcept { std::free(ptr); }
void operator delete[](void* ptr, size_t, std::align_val_t) noexcept { std::free(ptr); }
void operator delete(void* ptr, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(ptr);
}
void operator delete[](void* ptr, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(ptr);
}
