// A counting global allocator for the allocation tests (docs/PERFORMANCE.md, "Heap
// allocations per operation and heap bytes per connection (tests/alloc)"). Linked into the alloc
// test binary only: it replaces malloc, calloc, realloc, the aligned allocators, free and every
// operator new and delete, and counts, exactly:
//   - allocation calls, per thread (each thread that allocates gets a slot with its kernel
//     thread id), so a test can attribute the calls to the threads of one component;
//   - live bytes, process-wide: what malloc_usable_size says each live block holds (the bytes
//     the heap really gives, alignment and rounding included), added at allocation and taken
//     away at free.
// Counting itself never allocates: the slots are a fixed array, the counters atomics.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace benchgate::alloc_test {

// Allocation calls (malloc, calloc, realloc, aligned and operator new alike) made so far by
// the threads in `tids` (kernel thread ids), summed over their slots.
uint64_t allocations_of(const std::vector<pid_t>& tids);
// Allocation calls made so far by every thread.
uint64_t allocations_total();
// Bytes held now by live heap blocks (malloc_usable_size of each).
int64_t live_bytes();

// Writes the call stack of the next `count` allocation calls made by `tids` to stderr (how a
// test that fails says where a path allocates; the environment variable
// BENCHGATE_ALLOC_TRACE=N of the measuring helpers sets it). Up to 64 ids.
void trace_allocations_of(const std::vector<pid_t>& tids, int count);

// The kernel thread ids of this process's threads now (/proc/self/task; allocates: call it
// outside a measured phase).
std::vector<pid_t> threads_now();
// The ids in `after` that are not in `before`: the threads a call started.
std::vector<pid_t> started_between(const std::vector<pid_t>& before,
                                   const std::vector<pid_t>& after);
// This thread's kernel id.
pid_t this_thread();

}  // namespace benchgate::alloc_test
