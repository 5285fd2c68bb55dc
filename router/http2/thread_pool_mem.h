// nghttp2's allocator for the router's HTTP/2 sessions: a per-thread pool of size classes
// (powers of two from 64 bytes to 64 KiB), so that what nghttp2 allocates per stream (its
// stream object, the queued response and its copy of the header fields, the HPACK buffers of
// a header block) comes from blocks that earlier streams gave back instead of malloc. Blocks
// over 64 KiB go to malloc and free directly.
//
// A session only runs on its serving thread, so each thread's pool is touched by one thread at
// a time. A block may be freed on another thread than the one that made it (a session
// destroyed with its io_context): it then joins that thread's pool; blocks are plain malloc
// memory, owned by no pool in particular. Each class keeps at most kKeptPerClass free blocks,
// the rest are freed, and a thread's pool is freed when the thread ends.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>

namespace benchgate::router::http2 {

inline constexpr size_t kKeptPerClass = 512;

// The allocator to hand to nghttp2_session_server_new3 (static, never freed).
nghttp2_mem* thread_pool_mem();

}  // namespace benchgate::router::http2
