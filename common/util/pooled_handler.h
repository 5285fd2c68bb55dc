// A completion handler whose Asio operation takes its memory from the thread's size-class pool
// (common/util/size_class_pool.h), for the operations a connection starts per message (a read,
// a readiness wait, a write, a posted write: post_keeping_allocator): they then never reach
// the heap in steady state.
// Asio's own per-thread cache keeps two freed operations, fewer than a thread with several
// connections has pending at once (tests/alloc/wamp_alloc_test.cc measures it). The router's
// WAMP connections (router/wamp/transport_connection.h) and the worker's WAMP channels
// (worker/wamp/rawsocket_channel.cc, websocket_channel.cc) bind their handlers with it, and
// so do the router's HTTP/2 connections (router/http2/connection.h) and its serving threads'
// deadline wheel (router/http/deadline_wheel.cc), whose timer waits beside the connections'
// operations: in Asio's two blocks, a re-armed wait took the one a connection's next write
// would have found (tests/alloc/router_http_alloc_test.cc).
#pragma once

#include <type_traits>
#include <utility>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/util/size_class_pool.h"

namespace benchgate {

template <typename Handler>
auto pooled(Handler&& handler) {
  return boost::asio::bind_allocator(PoolAllocator<char>(), std::forward<Handler>(handler));
}

// Posts `handler` through `executor`, or through the io_context's own executor where
// `executor` is a type-erased one over an io_context: the type-erased executor drops the
// handler's allocator (the pool above) and takes Asio's two-slot cache, or the heap.
template <typename Executor, typename Handler>
void post_keeping_allocator(const Executor& executor, Handler&& handler) {
  using IoExecutor = boost::asio::io_context::executor_type;
  if constexpr (!std::is_same_v<Executor, IoExecutor> &&
                requires { executor.template target<IoExecutor>(); }) {
    if (const auto* io = executor.template target<IoExecutor>()) {
      boost::asio::post(*io, std::forward<Handler>(handler));
      return;
    }
  }
  boost::asio::post(executor, std::forward<Handler>(handler));
}

}  // namespace benchgate
