// The load thread's own edge-triggered epoll set for cleartext HTTP/1.1 connections
// (worker --http1-io epoll, docs/PERFORMANCE.md). Asio's reactor makes every wait for
// readability cost a system call of its own: async_wait re-arms the descriptor with
// epoll_ctl, async_read_some first tries a read that, right after a request went out, nearly
// always finds nothing (EAGAIN). Here a socket is added once, edge-triggered, and each
// connection reads until a short read when told it is readable; the set itself is one
// descriptor in Asio's reactor, re-armed once per wake-up (however many connections it
// reports), so a request costs its send and its recv plus a share of three calls per wake-up.
//
// One per io_context (an Asio service: it lives as long as the load thread's io_context, and
// runs only on its thread). A socket closed leaves the set by itself; an event already fetched
// for a connection that closed meanwhile reaches a connection that checks it is still up.
#pragma once

#include <sys/epoll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/system/error_code.hpp>

#include "worker/http/handler_memory.h"

namespace benchgate::worker::http {

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
  // target.on_readable() for each edge until the descriptor is closed. An error: the set
  // could not be made (no descriptor left) or the kernel refused `fd`; the caller waits
  // through Asio instead.
  boost::system::error_code add(int fd, Readable& target);

 private:
  void shutdown() override;
  void arm();
  void dispatch();

  static constexpr int kBatch = 64;
  int epoll_fd_ = -1;
  boost::asio::posix::stream_descriptor waiter_;
  bool armed_ = false;
  bool stopped_ = false;
  HandlerMemory wait_memory_;
  epoll_event events_[kBatch];
};

}  // namespace benchgate::worker::http
