// One load-generating HTTP/1.1 connection. It lives on one load thread for the whole Run
// stream and keeps up to in_flight requests outstanding (pipelining):
//  - closed loop: every answered request is replaced at once;
//  - open loop: requests go out when the connection's OpenLoopSchedule says they are due and
//    a slot is free; a request that waits for a slot keeps its intended send time, so the
//    wait shows in its latency. Every request due inside the window is sent, after the
//    window's end (during the drain) if need be; what the drain deadline cuts off before it
//    could be written counts as a "not_sent" error (docs/MEASUREMENT.md "Closed loop and open
//    loop").
// Requests are written from the plan's prebuilt batch (k requests, one system call); answers
// are read, once the socket is readable, into the load thread's buffer and parsed in place;
// nothing is allocated per request, and an idle connection holds no read buffer. What an idle
// cleartext connection holds (issue 19, goal 2; docs/PERFORMANCE.md, section 4): this object
// (264 bytes), Asio's state for its descriptor and, with --http1-io asio, its pending
// readability wait (a 104-byte block of the thread's OperationPool, operation_pool.h); the TLS
// part and a line split over reads are made only when used, the open-loop timer when an
// open-loop window begins (Connection::begin_window).
// Cleartext connections learn that their socket is readable, with LoadPlan::edge_poll (worker
// --http1-io epoll, the default), from the load thread's edge-triggered ReadinessPoller, or
// from Asio (--http1-io asio: a wait per read, one system call more per request). With
// LoadPlan::ring_io (--http1-io uring) a cleartext connection receives and sends through the
// load thread's io_uring instead (common/net/completion_ring.h): one multishot receive for the
// socket's life, its bytes parsed from the ring's buffer, and its requests written by a send
// the ring submits with the others of the same batch of completions.
//
// With TLS (https: LoadPlan::tls) the connection handshakes after TCP connect, reads into a
// buffer of its own (a read is outstanding on the stream, so the thread's buffer cannot be
// shared) and writes through the stream. Every connection set up is timed: TCP connect, TLS
// handshake, and its first request to the first byte of the answer (ThreadState::setup).
//
// new_connection_per_request: the connection is closed once its one request is answered and a
// new one is set up for the next (with tls_resumption offering the session the last one got),
// so every request pays a TCP connect and a TLS handshake; those completed inside the window
// are ThreadStats::window_connections.
//
// Failures never throw and never stop the thread: when the connection fails, every request
// outstanding on it is counted as failed with the failure's kind, the socket is closed, and
// it is reconnected at once while the window is still sending or its start lead runs (a failed
// reconnect counts a "connect" error and leaves it down until the next window, which tries
// again).
#pragma once

#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/net/completion_ring.h"
#include "common/net/readiness_poller.h"
#include "worker/engine/error_kind.h"
#include "worker/engine/late_sends.h"
#include "worker/engine/load_connection.h"
#include "worker/engine/open_loop_schedule.h"
#include "worker/engine/thread_state.h"
#include "worker/http/in_flight_ring.h"
#include "worker/http/operation_pool.h"
#include "worker/http/response_parser.h"
#include "worker/http/tls_client.h"

namespace benchgate::worker::http {

using net::Readable;
using net::ReadinessPoller;

class Connection : public LoadConnection, private Readable, private net::RingTarget {
 public:
  // `index` is the connection's position among all of the workload's connections (it
  // staggers the open-loop schedule).
  Connection(boost::asio::io_context& io, ThreadState& thread, uint32_t index);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() override;

  // Connects; `done` runs on the connection's thread. Used before the first window.
  void connect(ConnectDone done) override;
  bool up() const { return link_ == Link::kUp; }

  // Window control, called by the LoadThread on its thread.
  void begin_window() override;  // forgets the last window's counters; reconnects when down
  void start_sending() override;
  void stop_sending() override;  // the window's sending time is over
  void expire() override;        // the drain deadline passed: outstanding requests time out
  void close() override;         // the stream ended: close for good

  uint32_t outstanding() const { return ring_.size(); }

 private:
  enum class Link : uint8_t { kDown, kConnecting, kUp };

  void on_tcp_connected(ConnectDone done);
  void on_connected();
  void reconnect();
  void close_socket();
  void fail(ErrorKind kind);
  // Open loop: may requests of the window still be written (running, or draining with
  // requests of the window owed)?
  bool may_send() const;
  uint64_t owed() const;  // due in the window and not yet written (during the drain)
  void write_off_owed();  // the owed requests count as not_sent errors
  void on_server_close();
  void next_connection();
  void unclaim_queued();

  void issue(int64_t now);
  void flush(int64_t now);
  void on_write(const boost::system::error_code& ec, size_t bytes);
  void write_through_asio(const char* data, size_t bytes);
  // LoadPlan::ring_io: what the thread's ring reports (tag: the generation the operation was
  // started for).
  void on_received(uint32_t tag, const boost::system::error_code& ec, const char* data,
                   size_t bytes) override;
  void on_sent(uint32_t tag, const boost::system::error_code& ec, size_t bytes) override;
  net::CompletionRing* uring() const { return thread_.ring; }
  void arm_timer(int64_t due_ns);

  void start_read();
  void on_readable() override;  // LoadPlan::edge_poll: the thread's poller says it is readable
  void on_read(const boost::system::error_code& ec, const char* data, size_t bytes);
  void on_response(int64_t now);

  // The socket and the timer on their io_context's own executor rather than Asio's type-erased
  // default (tcp::socket): 48 bytes fewer in each, and in each operation queued for them, as
  // the router's sockets (router/net/stream.h).
  using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp,
                                                  boost::asio::io_context::executor_type>;
  using Timer =
      boost::asio::basic_waitable_timer<std::chrono::steady_clock,
                                        boost::asio::wait_traits<std::chrono::steady_clock>,
                                        boost::asio::io_context::executor_type>;
  using Tls = ::benchgate::tls::TlsStream<Socket&>;
  // What only an https connection needs, made at its first handshake and kept across
  // reconnects.
  struct TlsPart {
    // Shared with the completions pending on it: a stream closed meanwhile lives until they ran.
    std::shared_ptr<Tls> stream;
    std::unique_ptr<char[]> read_buffer;  // plan().read_buffer_bytes
    SavedSession saved_session;           // tls_resumption only
  };
  Tls* tls() const { return tls_ ? tls_->stream.get() : nullptr; }
  // An asynchronous operation's handler, with its memory from the thread's pool.
  template <typename Handler>
  auto pooled(Handler&& handler) {
    return boost::asio::bind_allocator(PooledAllocator<char>(thread_.operations),
                                       std::forward<Handler>(handler));
  }

  const LoadPlan& plan() const { return thread_.plan; }

  ThreadState& thread_;
  Socket socket_;
  std::unique_ptr<TlsPart> tls_;  // https only
  // Open loop: wakes the connection when a request is due (made at its first wait).
  std::unique_ptr<Timer> timer_;
  // When the setup step being timed (ThreadState::setup) started: while connecting, the
  // connect's start; once up, the first request's write (0: nothing written on this connection
  // yet). One field, as the two never overlap; with the flags below as bits, the object is 264
  // bytes instead of 280, a malloc chunk 16 bytes smaller (issue 19, goal 2).
  int64_t setup_start_ns_ = 0;
  int64_t tcp_done_ns_ = 0;
  OpenLoopSchedule schedule_;
  ResponseParser parser_;
  InFlightRing ring_;

  uint64_t claimed_ = 0;     // requests taken from the schedule in this window (sent or queued)
  uint64_t window_due_ = 0;  // open loop: requests due inside this window
  // Incremented whenever the socket is closed, so completions of the old socket are ignored.
  uint32_t generation_ = 0;
  uint32_t queued_ = 0;  // claimed but not yet written (a write was still in progress)
  // LoadPlan::ring_io (the thread's ring, ThreadState::ring): this connection's slot in it,
  // whether the ring has a receive on the current socket, and the write a ring send is doing
  // (bytes of the batch written so far, of how many).
  uint32_t uring_slot_ = 0;
  uint32_t send_done_ = 0;
  uint32_t send_bytes_ = 0;
  // Which writes count in late_sends (the next requests written may be written again, after a
  // server's "Connection: close"). Two bytes the object had as padding.
  LateSends late_sends_;
  Link link_ = Link::kDown;
  // As bits: see setup_start_ns_.
  bool ttfb_taken_ : 1 = false;
  bool writing_ : 1 = false;
  bool timer_armed_ : 1 = false;
  bool uring_receiving_ : 1 = false;
  // Cleartext with LoadPlan::edge_poll: the socket is in the thread's ReadinessPoller (until it
  // refused one, after which this connection waits through Asio).
  bool edge_poll_ : 1 = false;
};

}  // namespace benchgate::worker::http
