// A wait for a TCP socket's next readiness edge in Asio's own epoll registration, at no system
// call of its own. Asio adds every socket to its reactor edge-triggered (EPOLLIN | EPOLLET, plus
// EPOLLOUT once a write had to wait), yet each async_wait re-arms the descriptor with
// epoll_ctl(MOD), and each async_read_some first tries a recv that, right after an answer went
// out, nearly always finds nothing (EAGAIN): either way a request pays one system call just to
// wait. An EdgeWait is a reactor operation of its own that the reactor queues without re-arming
// (speculation allowed, and reported exhausted after every edge, as the wait on the set of
// common/net/readiness_poller.cc is), so the socket's next edge in that direction completes it.
// Used by the TLS stream after OpenSSL's EAGAIN (common/tls/tls_stream.h) and by the router's
// cleartext HTTP/2 and RawSocket connections once they read the socket empty
// (router/http2/connection.h, router/wamp/rawsocket_connection.cc).
//
// The rule that makes an edge enough: wait only once the socket said EAGAIN in that direction,
// or (reading) once a read returned less than it asked for: the receive queue was empty then,
// so what arrives afterwards makes a new edge. An edge the reactor saw while nothing waited
// leaves Asio's "try at once" flag set for the descriptor: the wait then completes at once
// (perform() is called from start_op) and the caller reads again, so no edge is lost; an edge
// taken by the wait clears it (done_and_exhausted), so the next wait is queued without a
// system call. A new socket's flag is set too (asio_access::clear_initial_read_edge clears it
// where the caller knows nothing can have been read yet).
//
// The flag is also what Asio's own read operations go by: an async_read_some queued while it
// is clear waits for the next edge without trying the socket first. So a caller woken by an
// EdgeWait that reads the socket itself and does not empty it must read again itself (at once
// or posted), never through async_read_some: bytes that arrived before the wake-up make no new
// edge, and that read would wait forever (tests/e2e/test_wamp_rawsocket_reads.py).
//
// On the thread that runs the socket's io_context (the only thread that runs it). The handler
// is called as handler(error_code) from the reactor's completion, on that thread; closing the
// socket completes it with operation_aborted; an io_context destroyed with the wait queued
// destroys the handler without calling it. The operation's memory comes from the thread's
// size-class pool (common/util/size_class_pool.h), so steady-state waits allocate nothing
// however many connections of the thread wait at once (Asio's own recycling cache keeps two
// freed operations: four busy HTTP/2 connections of a thread outran it,
// tests/alloc/router_http2_alloc_test.cc).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

// io_context first: it declares what the reactor's header uses.
#include <boost/asio/io_context.hpp>

#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>

#include "common/net/asio_access.h"
#include "common/util/size_class_pool.h"

namespace benchgate::net {

enum class Readiness { kRead, kWrite };

template <typename Handler>
class EdgeWait final : public boost::asio::detail::reactor_op {
 public:
  using Allocator = PoolAllocator<EdgeWait>;

  // Queues handler(error_code) for the next edge of `socket` in `direction`; `reactor` is the
  // one of the socket's io_context (asio_access::reactor, looked up once by the caller).
  template <typename SocketExecutor>
  static void start(boost::asio::detail::reactor& reactor,
                    boost::asio::basic_socket<asio_access::Tcp, SocketExecutor>& socket,
                    Readiness direction, Handler&& handler) {
    Allocator allocator;
    auto* op = new (allocator.allocate(1)) EdgeWait(std::move(handler));
    auto& impl = asio_access::implementation(socket);
    reactor.start_op(direction == Readiness::kRead ? boost::asio::detail::reactor::read_op
                                                   : boost::asio::detail::reactor::write_op,
                     impl.socket_, impl.reactor_data_, op, /*is_continuation=*/false,
                     /*allow_speculative=*/true);
  }

 private:
  explicit EdgeWait(Handler&& handler)
      : reactor_op(boost::system::error_code(), &EdgeWait::perform, &EdgeWait::complete),
        handler_(std::move(handler)) {}

  // Called by the reactor on the edge (or at once, while the reactor thinks a read could
  // succeed): nothing to try, done, and no point in speculating before the next edge.
  static status perform(reactor_op*) { return done_and_exhausted; }
  static void complete(void* owner, boost::asio::detail::operation* base,
                       const boost::system::error_code&, std::size_t) {
    auto* op = static_cast<EdgeWait*>(base);
    Handler handler(std::move(op->handler_));
    const boost::system::error_code ec = op->ec_;
    op->~EdgeWait();
    Allocator().deallocate(op, 1);
    // owner null: the io_context is being destroyed with the wait queued; nothing runs.
    if (owner != nullptr) handler(ec);
  }

  Handler handler_;
};

// EdgeWait<Handler>::start with the handler's type deduced.
template <typename Handler, typename SocketExecutor>
void async_wait_edge(boost::asio::detail::reactor& reactor,
                     boost::asio::basic_socket<asio_access::Tcp, SocketExecutor>& socket,
                     Readiness direction, Handler&& handler) {
  EdgeWait<std::decay_t<Handler>>::start(reactor, socket, direction,
                                         std::forward<Handler>(handler));
}

}  // namespace benchgate::net
