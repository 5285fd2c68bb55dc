// The session-setup deadlines of the WAMP serving thread's connections (--session-setup-timeout):
// a connection must have its session established (WELCOME sent) within the timeout of the
// start of its opening handshake, or of a GOODBYE that left its transport open; past it the
// connection is told (Connection::setup_timed_out) and closes. Without it a client that
// completes the RawSocket handshake or the WebSocket upgrade and never sends HELLO, or never
// answers a CHALLENGE, would hold a --max-sessions slot for as long as it liked.
//
// Why one list and one timer for the thread, not the connection's own timer: a wait pending on
// it cost every connection still in setup about 300 bytes more (measured: the idle connections
// of tests/alloc/connection_memory_alloc_test.cc, which are in setup), where the list costs its
// hook and the deadline, 24 bytes in the connection; and the connection's timer already serves
// the TLS handshake, a partial message's deadline and the close. Every connection gets
// the same timeout and the steady clock only goes forward, so appending keeps the list in
// deadline order: the timer waits for the first entry only, and a connection leaves the list in
// O(1) (its hook unlinks) when its session is established or it ends. Only the serving thread
// touches any of it. Each connection timed out is counted (wamp_session_setup_timeouts).
#pragma once

#include <cstdint>
#include <optional>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/time/clock.h"
#include "router/wamp/connection.h"

namespace benchgate::router::wamp {

class SetupDeadlines {
 public:
  // `timed_out` counts the connections whose deadline passed (the thread's WampCounters).
  SetupDeadlines(int64_t timeout_ns, uint64_t& timed_out)
      : timeout_ns_(timeout_ns), timed_out_(timed_out) {}
  SetupDeadlines(const SetupDeadlines&) = delete;
  SetupDeadlines& operator=(const SetupDeadlines&) = delete;

  // Deadlines fire on `executor` (the serving thread's); without it nothing is timed out.
  void use_executor(const boost::asio::any_io_executor& executor) { timer_.emplace(executor); }
  // The connection's session must be established within the timeout from now (a connection
  // waited on already starts again from now).
  void start(Connection& connection, int64_t now_ns) {
    if (stopped_) return;
    done(connection);
    connection.setup_deadline_ns = now_ns + timeout_ns_;
    list_.push_back(connection);
    if (!armed_) arm();
  }
  // The session is established, or the connection ends: no deadline any more.
  static void done(Connection& connection) {
    if (connection.SetupHook::is_linked()) connection.SetupHook::unlink();
  }
  // Cancels the timer (on the serving thread, so that its io_context can stop); nothing is
  // timed out after it.
  void stop() {
    stopped_ = true;
    armed_ = false;
    if (timer_) timer_->cancel();
  }
  // Destroys the timer; after the serving thread has ended, before its io_context goes.
  void release() { timer_.reset(); }

 private:
  // Waits for the first deadline, if any connection is waited on.
  void arm() {
    if (!timer_ || list_.empty() || stopped_) return;
    armed_ = true;
    timer_->expires_at(steady_point(list_.front().setup_deadline_ns));
    timer_->async_wait([this](const boost::system::error_code& ec) { on_timer(ec); });
  }
  void on_timer(const boost::system::error_code& ec) {
    if (ec || stopped_) return;  // stopping
    armed_ = false;
    const int64_t now = steady_now_ns();
    while (!list_.empty() && list_.front().setup_deadline_ns <= now) {
      Connection& connection = list_.front();
      list_.pop_front();  // first: the connection may end, or start again, in the call
      // A connection that has finished left the list (TransportConnection::finish): each one
      // here closes now, ABORTed first or not.
      ++timed_out_;
      connection.setup_timed_out();
    }
    arm();
  }

  const int64_t timeout_ns_;
  uint64_t& timed_out_;
  SetupList list_;
  std::optional<boost::asio::steady_timer> timer_;
  bool armed_ = false;
  bool stopped_ = false;
};

}  // namespace benchgate::router::wamp
