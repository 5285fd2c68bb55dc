// A completion handler whose Asio operation takes its memory from the thread's size-class pool
// (common/util/size_class_pool.h), for the operations a connection starts per message (a read,
// a readiness wait, a write, a posted write): they then never reach the heap in steady state.
// Asio's own per-thread cache keeps two freed operations, fewer than a thread with several
// connections has pending at once (tests/alloc/wamp_alloc_test.cc measures it). The router's
// WAMP connections (router/wamp/transport_connection.h) and the worker's WAMP channels
// (worker/wamp/rawsocket_channel.cc, websocket_channel.cc) bind their handlers with it.
#pragma once

#include <utility>

#include <boost/asio/bind_allocator.hpp>

#include "common/util/size_class_pool.h"

namespace benchgate {

template <typename Handler>
auto pooled(Handler&& handler) {
  return boost::asio::bind_allocator(PoolAllocator<char>(), std::forward<Handler>(handler));
}

}  // namespace benchgate
