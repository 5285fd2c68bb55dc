// nghttp2's allocator for the router's HTTP/2 sessions: the thread's size-class pool
// (common/util/size_class_pool.h), so that what nghttp2 allocates per stream (its stream
// object, the queued response and its copy of the header fields, the HPACK buffers of a header
// block) comes from blocks that earlier streams gave back instead of malloc. A session only runs
// on its serving thread.
#pragma once

#include <nghttp2/nghttp2.h>

namespace benchgate::router::http2 {

// The allocator to hand to nghttp2_session_server_new3 (static, never freed).
nghttp2_mem* thread_pool_mem();

}  // namespace benchgate::router::http2
