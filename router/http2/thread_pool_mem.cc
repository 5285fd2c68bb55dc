// nghttp2's allocator for the router's HTTP/2 sessions (see thread_pool_mem.h).
#include "router/http2/thread_pool_mem.h"

#include "common/util/size_class_pool.h"

namespace benchgate::router::http2 {

nghttp2_mem* thread_pool_mem() {
  static nghttp2_mem mem{nullptr, size_class_pool::allocate, size_class_pool::release,
                         size_class_pool::allocate_zeroed, size_class_pool::reallocate};
  return &mem;
}

}  // namespace benchgate::router::http2
