// A thread's io_uring for cleartext HTTP/1.1 connections (worker --http1-io uring;
// docs/PERFORMANCE.md, "Worker system calls per request"). With Asio's reactor, or the thread's
// own epoll set (readiness_poller.h), every request costs its connection a send and a recv
// system call. Here a connection's socket gets one multishot receive for as long as it is open
// (the kernel fills a buffer from the ring's pool each time bytes arrive and posts a
// completion), and sends are queued: those a dispatch of completions queues go to the kernel
// together, in one io_uring_enter, when the dispatch is done. A request then costs its share of
// one io_uring_enter and of the reactor's epoll_wait per batch of completions.
//
// The ring is one descriptor in Asio's reactor, waited for as ReadinessPoller waits for its set
// (an operation of its own that the reactor keeps queued without re-arming the descriptor).
// A dispatch reads at most kRounds batches of completions; if more are waiting it hands the
// thread back to Asio (timers, other handlers) and has the reactor wake it again at once.
//
// One per io_context (an Asio service, on the io_context's only thread). Targets attach for a
// slot, and operations carry the slot and a tag of the caller's (a connection's generation):
// completions of a detached slot are dropped, and a tag tells an old socket's completions from
// the new one's. A socket with a receive must be shut down (shutdown(2)) before it is closed: the
// ring holds the open file until the receive ends. Needs Linux 6.0 (multishot receive, buffer
// rings); where io_uring cannot be set up, unavailable() says why and the caller waits through
// Asio instead.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// io_context first: it declares what the reactor's header uses.
#include <boost/asio/io_context.hpp>

#include <boost/asio/detail/reactor.hpp>
#include <boost/system/error_code.hpp>

#include "common/net/read_edge_op.h"

struct io_uring_sqe;  // liburing's, kept out of this header

namespace benchgate::net {

// What a ring's completions are delivered to.
class RingTarget {
 public:
  // A receive's bytes (valid during the call only), or its end: end of stream (no error, 0
  // bytes) or a failure (ec).
  virtual void on_received(uint32_t tag, const boost::system::error_code& ec, const char* data,
                           size_t bytes) = 0;
  // A send finished: `bytes` of it were written (possibly fewer than asked), or it failed.
  virtual void on_sent(uint32_t tag, const boost::system::error_code& ec, size_t bytes) = 0;

 protected:
  ~RingTarget() = default;
};

class CompletionRing : public boost::asio::io_context::service {
 public:
  static boost::asio::io_context::id id;

  explicit CompletionRing(boost::asio::io_context& io);
  CompletionRing(const CompletionRing&) = delete;
  CompletionRing& operator=(const CompletionRing&) = delete;
  ~CompletionRing() override;

  // Empty when the ring works; otherwise why it could not be set up.
  const std::string& unavailable() const { return unavailable_; }

  // A slot for `target`, until detach(slot).
  uint32_t attach(RingTarget& target);
  void detach(uint32_t slot);

  // Receives on `fd` until end of stream, a failure or the socket's shutdown, delivering each
  // arrival to the slot's target with `tag`. False: the ring is unavailable or stopped.
  bool receive(uint32_t slot, uint32_t tag, int fd);
  // The slot's receive is no longer wanted (its socket is being shut down): what it still
  // delivers is dropped, and it is not started again.
  void end_receive(uint32_t slot);
  // Sends `bytes` from `data` (which must stay valid until on_sent) on `fd`. Queued while
  // completions are dispatched (sent with the others when the dispatch ends); submitted at
  // once otherwise. False: the ring is unavailable or stopped.
  bool send(uint32_t slot, uint32_t tag, int fd, const void* data, size_t bytes);

  // No more wake-ups; operations still in the kernel are cancelled. Also done when the
  // io_context goes away.
  void stop();

  // Completions dispatched so far (for tests).
  uint64_t completions() const { return completions_; }

 private:
  struct Ring;
  struct Slot {
    RingTarget* target = nullptr;
    int fd = -1;       // of the receive, re-armed when the pool ran dry
    uint32_t tag = 0;  // of the receive
  };

  void shutdown() override;
  void arm();
  void on_wake(const boost::system::error_code& ec);
  void dispatch();
  void complete(uint64_t user_data, int result, uint32_t flags);
  // Does the slot still want what its receive `tag` delivers?
  bool receiving(uint32_t slot, uint32_t tag) const;
  // A free submission entry (submitting what is queued when none is left); null if none.
  ::io_uring_sqe* next_sqe();
  // One more entry prepared: submitted at once outside a dispatch, else when it ends.
  void queued_one();
  bool queue_receive(uint32_t slot);
  void submit();

  static constexpr int kRounds = 4;
  boost::asio::detail::reactor& reactor_;
  boost::asio::detail::reactor::per_descriptor_data reactor_data_ = nullptr;
  std::unique_ptr<Ring> ring_;
  // Woken on the ring descriptor's next edge (read_edge_op.h): the kernel posted completions.
  ReadEdgeOp<CompletionRing, &CompletionRing::on_wake> wait_{*this};
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::string unavailable_;
  bool armed_ = false;
  bool stopped_ = false;
  bool dispatching_ = false;
  uint32_t queued_ = 0;  // operations prepared and not yet submitted
  uint64_t completions_ = 0;
};

}  // namespace benchgate::net
