// The counting allocator counts what it says (so the zeros of the other tests mean something):
// each kind of allocation is one call on the allocating thread's slot, live bytes follow
// malloc_usable_size, and a thread outside the set is not counted.
#include "counting_allocator.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <thread>

namespace benchgate::alloc_test {
namespace {

TEST(AllocCountingAllocator, CountsEveryKindOfAllocationOnTheAllocatingThread) {
  const std::vector<pid_t> me{this_thread()};
  const uint64_t calls = allocations_of(me);
  const int64_t live = live_bytes();
  void* a = std::malloc(100);
  void* b = std::calloc(3, 50);
  void* c = std::aligned_alloc(64, 128);
  auto* d = new int(7);
  auto* e = new char[33];
  const auto usable =
      static_cast<int64_t>(malloc_usable_size(a) + malloc_usable_size(b) + malloc_usable_size(c) +
                           malloc_usable_size(d) + malloc_usable_size(e));
  EXPECT_EQ(allocations_of(me) - calls, 5u);
  EXPECT_EQ(live_bytes() - live, usable);
  a = std::realloc(a, 5000);  // one more call; the old block's bytes leave, the new ones come
  EXPECT_EQ(allocations_of(me) - calls, 6u);
  std::free(a);
  std::free(b);
  std::free(c);
  delete d;
  delete[] e;
  EXPECT_EQ(live_bytes(), live);
  EXPECT_EQ(allocations_of(me) - calls, 6u);

  // Another thread's calls are on its own slot. (The pointer escapes, so that the compiler
  // cannot leave the new and delete out.)
  pid_t other = 0;
  int* volatile escaped = nullptr;
  std::thread thread([&] {
    other = this_thread();
    escaped = new int(1);
    delete escaped;
  });
  const uint64_t with_thread = allocations_of(me);  // std::thread's own state, on this one
  thread.join();
  const std::vector<pid_t> them{other};
  EXPECT_EQ(allocations_of(them), 1u);
  EXPECT_EQ(allocations_of(me), with_thread + 1);  // the vector `them`, nothing of the thread's
}

}  // namespace
}  // namespace benchgate::alloc_test
