// A thread's own edge-triggered epoll set for cleartext HTTP/1.1 connections, shared by the
// worker (--http1-io epoll) and the router (--http-io epoll); docs/PERFORMANCE.md. Asio's
// reactor makes every wait for readability cost a system call of its own: async_wait re-arms
// the descriptor with epoll_ctl, async_read_some first tries a read that, right after an
// answer (or a request) went out, nearly always finds nothing (EAGAIN). Here a socket is added
// once, edge-triggered, and each connection reads until a short read when told it is readable.
//
// The set itself is one descriptor in Asio's reactor, waited for by an operation of the
// poller's own (common/net/read_edge_op.h) that the reactor keeps
// queued without re-arming the descriptor: Asio's registration is edge-triggered already and
// the set is drained on every wake-up, so each socket that becomes readable afterwards makes
// a new edge. A wake-up costs the reactor's epoll_wait and the set's, whatever number of
// connections it reports; a request its recv and its send.
//
// One per io_context (an Asio service: it lives as long as the io_context and runs only on
// its thread, which must be the only one running it). A socket closed leaves the set by
// itself; a socket that stays open but goes elsewhere leaves it with remove(). A target must
// stay alive while its socket is in the set: an event already fetched reaches its target in
// the same dispatch, after the targets before it ran.
#pragma once

#include <sys/epoll.h>

// io_context first: it declares what the reactor's header uses.
#include <boost/asio/io_context.hpp>

#include <boost/asio/detail/reactor.hpp>
#include <boost/system/error_code.hpp>

#include "common/net/read_edge_op.h"

namespace benchgate::net {

// What the poller calls when a registered socket became readable (or hung up, or failed).
class Readable {
 public:
  virtual void on_readable() = 0;

 protected:
  ~Readable() = default;
};

class ReadinessPoller : public boost::asio::io_context::service {
 public:
  static boost::asio::io_context::id id;

  explicit ReadinessPoller(boost::asio::io_context& io);
  ReadinessPoller(const ReadinessPoller&) = delete;
  ReadinessPoller& operator=(const ReadinessPoller&) = delete;
  ~ReadinessPoller() override;

  // Adds `fd` (edge-triggered, readable and hang-up) for `target`; the poller calls
  // target.on_readable() for each edge until the descriptor is closed or removed. An error:
  // the set could not be made (no descriptor left), the poller was stopped, or the kernel
  // refused `fd`; the caller waits through Asio instead.
  boost::system::error_code add(int fd, Readable& target);
  // Takes `fd` out of the set (it stays open: e.g. handed to another protocol's connection).
  void remove(int fd);
  // No more wake-ups: the wait is cancelled and the set closed, so the io_context's run() can
  // end; add() fails from now on. Also done when the io_context goes away.
  void stop();

 private:
  void shutdown() override;
  void arm();
  void on_wake(const boost::system::error_code& ec);
  void dispatch();

  static constexpr int kBatch = 64;
  boost::asio::detail::reactor& reactor_;
  boost::asio::detail::reactor::per_descriptor_data reactor_data_ = nullptr;
  int epoll_fd_ = -1;
  // Woken on the set's next edge (read_edge_op.h). The set is read in the completion, on the
  // thread's turn: an event fetched earlier could name a connection that has closed since.
  ReadEdgeOp<ReadinessPoller, &ReadinessPoller::on_wake> wait_{*this};
  bool armed_ = false;
  bool stopped_ = false;
  epoll_event events_[kBatch];
};

}  // namespace benchgate::net
