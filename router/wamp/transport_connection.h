// The lifecycle every WAMP transport connection shares, written once (h2load's split: one
// Client, a Session per protocol): the open-connection and rejection counters, the
// session-setup deadline (--session-setup-timeout: the transport's opening handshake, HELLO and
// any CHALLENGE / AUTHENTICATE until WELCOME, kept by the thread's SetupDeadlines,
// router/wamp/setup_deadlines.h), the deadline of a message being received (--message-timeout),
// admission against --max-sessions, the outbound queue with its slow-consumer drop
// (--max-queued-bytes) and buffered-bytes budget, close after flush with its timeout, and finish.
// RawSocketConnection and WebSocketConnection add only their framing, through four hooks called
// statically (CRTP, no virtual call):
//   void begin_handshake();  // read the transport's opening handshake
//   void queued();           // a message was queued: schedule_write() or start_write()
//   void write_queued();     // write from the front of queue_, then on_written(ec, count)
//   void close_flushed();    // closing, nothing left to write: the transport's own close
// and `static constexpr uint8_t kMessageTag`, the queue tag of a WAMP message.
//
// Stream is what the transport reads and writes: net::Stream or net::TlsStream for RawSocket,
// Beast's websocket::stream over either for WebSocket; the socket under it is closed through
// net::close_stream (router/net/stream.h). Over TLS, start() runs the TLS handshake first,
// under the same timer set to --tls-handshake-timeout (a timeout or failure is counted in the
// transport's TLS counters by reason, a success by version and ALPN), then starts the
// session-setup deadline and calls begin_handshake().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/stream_traits.hpp>

#include "common/net/acked_bytes.h"
#include "common/time/clock.h"
#include "common/util/pooled_handler.h"
#include "common/util/size_class_pool.h"
#include "router/memory/buffer_budget.h"
#include "router/metrics/wamp_counters.h"
#include "router/net/stream.h"
#include "router/tls/first_byte.h"
#include "router/tls/handshake_outcome.h"
#include "router/wamp/connection.h"
#include "router/wamp/core.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {

template <typename Derived, typename Stream>
class TransportConnection : public Connection, public std::enable_shared_from_this<Derived> {
 public:
  ~TransportConnection() override {
    finish();
    --core_.stats().connections_open[static_cast<size_t>(transport_)];
  }

  void start() final {
    if constexpr (net::is_tls_v<Stream>) {
      timer_.expires_after(std::chrono::nanoseconds(core_.options().tls_handshake_timeout_ns));
      timer_.async_wait([self = this->shared_from_this()](const error_code& ec) {
        if (ec || self->tls_done_ || self->finished_) return;
        self->tls_counters().count_failure(metrics::TlsFailure::timeout);
        self->tls_done_ = true;  // the handshake's own failure is not counted again
        self->finish();
      });
      tls::async_peek_first_byte(boost::beast::get_lowest_layer(stream_),
                                 [self = this->shared_from_this()](const error_code& ec, bool tls) {
                                   self->on_first_byte(ec, tls);
                                 });
    } else {
      begin_opening_handshake();
    }
  }

  // Closes the socket now; pending operations then end the connection.
  void shutdown() final {
    net::close_stream(stream_);
    timer_.cancel();
  }

  SendResult send(Frame frame) final {
    if (closing_ || finished_) return SendResult::closed;
    if (frame->size() > max_out_) return SendResult::too_large;
    if (!queue_.fits(frame)) {
      drop_session(/*slow_consumer=*/true);
      return SendResult::closed;
    }
    if (!queue_.push(std::move(frame), Derived::kMessageTag)) {
      drop_session(/*slow_consumer=*/false);
      return SendResult::closed;
    }
    derived().queued();
    return SendResult::sent;
  }

  size_t queued() const final { return queue_.size(); }

  bool closing() const final { return stopped(); }

  void session_established() final { SetupDeadlines::done(*this); }

  void session_ended() final {
    if (!stopped()) core_.setup_deadlines().start(*this, steady_now_ns());
  }

  // A peer that sent HELLO and is waited on for AUTHENTICATE speaks WAMP: ABORT, then close
  // after it, within kCloseTimeout however slowly the peer reads. Any other (no transport
  // handshake, no HELLO, nothing after a GOODBYE) is closed at once, as a transport handshake
  // that did not finish in time always was: there is no session to ABORT, or no WAMP peer to
  // read it.
  void setup_timed_out() final {
    const auto self = this->shared_from_this();  // alive to the end of the call
    if (finished_) return;
    if (session_ && !closing_ && session_->on_setup_timeout()) {
      if (!finished_) arm_close_timer();
      return;
    }
    finish();
  }

  // What is still queued goes first. A peer that stops reading would hold the connection and
  // its queue for ever, so the flush must make progress (arm_flush_timer).
  void close_after_flush() final {
    if (closing_ || finished_) return;
    closing_ = true;
    if (!writing_) return derived().close_flushed();
    arm_flush_timer();
  }

 protected:
  using error_code = boost::system::error_code;

  // How long the transport's close may take once everything queued is written, and how long
  // the flush before it may go without progress.
  static constexpr auto kCloseTimeout = std::chrono::seconds(2);

  template <typename Socket>
  TransportConnection(Socket socket, WampCore& core, metrics::WampTransport transport,
                      memory::BudgetUser user)
      : stream_(std::move(socket)),
        core_(core),
        timer_(stream_.get_executor()),
        queue_(core.options().max_queued_bytes, core.frames(), user),
        transport_(transport) {
    ++core_.stats().connections_open[static_cast<size_t>(transport_)];
  }

  // A session slot under --max-sessions; false (counted as a rejection of this transport)
  // when all are taken, and the transport then refuses in its own way.
  bool admit() {
    if (!core_.admit()) {
      ++core_.stats().counters.connections_rejected[static_cast<size_t>(transport_)];
      return false;
    }
    admitted_ = true;
    return true;
  }
  // Posted, so that every message queued while handling one read leaves in one write.
  void schedule_write() {
    if (writing_) return;
    writing_ = true;
    post_keeping_allocator(stream_.get_executor(),
                           pooled([self = this->shared_from_this()] { self->do_write(); }));
  }
  // Writes at once, unless a write is under way.
  void start_write() {
    if (writing_) return;
    writing_ = true;
    do_write();
  }
  // Writes what is queued; with nothing left, ends the write (and closes if asked to).
  void do_write() {
    if (finished_) return;
    if (queue_.empty()) {
      writing_ = false;
      if (closing_) derived().close_flushed();
      return;
    }
    derived().write_queued();
  }
  // The write of the first `messages` queued messages completed.
  void on_written(const error_code& ec, size_t messages) {
    if (ec || finished_ || dropped_) return finish();
    for (size_t i = 0; i < messages; ++i) queue_.pop();
    // Room for more of a transfer; what it queues goes out in the write below.
    if (queue_.size() < 2 && session_ && !closing_) session_->on_drained();
    do_write();
  }

  // After each read: whether the connection holds part of a message now, and whether that
  // message's first bytes came in this read (a new message, not the rest of the one held
  // before). A message held longer than --message-timeout from the read that brought its first
  // bytes ends the session (on_message_timeout). The timer is armed once per partial message
  // at most, and not at all while messages arrive whole: a message completed before its
  // deadline leaves the timer to find nothing held, or a later message to wait for.
  void track_partial_message(bool partial, bool began_now) {
    // Closing: timer_ serves the close now, and nothing more is read.
    if (stopped()) return;
    if (!partial) {
      partial_since_ns_ = 0;
      return;
    }
    if (partial_since_ns_ != 0 && !began_now) return;
    partial_since_ns_ = steady_now_ns();
    if (!message_timer_armed_) arm_message_timer();
  }

  // The connection ends after kCloseTimeout unless the transport's close ends it first.
  void arm_close_timer() {
    timer_.expires_after(kCloseTimeout);
    timer_.async_wait([self = this->shared_from_this()](const error_code& ec) {
      if (!ec) self->finish();
    });
  }

  // While the flush before a close is under way, the connection ends after kCloseTimeout in
  // which the peer acknowledged none of its bytes (TCP_INFO): a peer that stopped reading has
  // closed its receive window and acknowledges nothing more, while a slow reader's gathered
  // write (up to 64 messages) may take longer than that and still be moving. Where the socket
  // cannot say, the flush gets kCloseTimeout in all.
  void arm_flush_timer() {
    timer_.expires_after(kCloseTimeout);
    timer_.async_wait(pooled(
        [self = this->shared_from_this(), acked_before = acked_bytes()](const error_code& ec) {
          if (ec || self->finished_) return;
          const std::optional<uint64_t> acked = self->acked_bytes();
          if (self->writing_ && acked && acked_before && *acked != *acked_before) {
            return self->arm_flush_timer();
          }
          self->finish();
        }));
  }
  std::optional<uint64_t> acked_bytes() {
    return benchgate::net::acked_bytes(boost::beast::get_lowest_layer(stream_).native_handle());
  }

  // Closes at once, as if the peer had gone: its queue passed --max-queued-bytes (a slow
  // consumer, counted), or a message for it found no room in the buffered-bytes budget
  // (counted as the budget's refusal).
  void drop_session(bool slow_consumer) {
    if (slow_consumer) {
      ++core_.stats().counters.drops[static_cast<size_t>(metrics::DropReason::slow_consumer)];
    }
    closing_ = true;
    dropped_ = true;
    net::close_stream(stream_);
    // Never from inside send(): the session may be in the middle of a fan-out.
    boost::asio::post(stream_.get_executor(),
                      [self = this->shared_from_this()] { self->finish(); });
  }

  // Ends the connection: the session leaves, the socket closes. Idempotent.
  void finish() {
    if (finished_) return;
    finished_ = true;
    SetupDeadlines::done(*this);
    if (session_) session_->on_transport_closed();
    if (admitted_) core_.release();
    admitted_ = false;
    net::close_stream(stream_);
    timer_.cancel();
  }

  // Reading stops once the connection closes or has finished.
  bool stopped() const { return closing_ || finished_; }

  Stream stream_;
  WampCore& core_;
  // The opening handshake's timeout, then the close's.
  boost::asio::steady_timer timer_;
  std::optional<Session> session_;
  OutboundQueue queue_;
  uint64_t max_out_ = 0;  // the largest message the peer accepts
  // When the read that brought the first bytes of the message held in part now came
  // (steady_now_ns); 0: no message is held in part.
  int64_t partial_since_ns_ = 0;
  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  bool dropped_ = false;              // nothing more is written
  bool message_timer_armed_ = false;  // timer_ waits for a partial message's deadline

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  metrics::TlsCounters& tls_counters() {
    return core_.stats().tls[static_cast<size_t>(transport_)];
  }

  void arm_message_timer() {
    message_timer_armed_ = true;
    timer_.expires_at(steady_point(partial_since_ns_ + core_.options().message_timeout_ns));
    // From the thread's pool: a connection that keeps receiving large messages arms it about
    // once per timeout.
    timer_.async_wait(pooled(
        [self = this->shared_from_this()](const error_code& ec) { self->on_message_timer(ec); }));
  }

  void on_message_timer(const error_code& ec) {
    message_timer_armed_ = false;
    // Cancelled (the connection closes, and the timer now serves its close) or nothing held.
    if (ec || stopped() || partial_since_ns_ == 0 || !session_) return;
    if (steady_now_ns() < partial_since_ns_ + core_.options().message_timeout_ns) {
      return arm_message_timer();  // a later message is held now: its own deadline
    }
    ++core_.stats().counters.messages_timed_out[static_cast<size_t>(transport_)];
    session_->on_message_timeout();
  }

  // The WAMP opening handshake starts: the session must be established within
  // --session-setup-timeout of now. Nothing is pending on timer_ meanwhile (the TLS
  // handshake's wait, over TLS, is cancelled): an idle connection in setup costs its list hook
  // and no operation.
  void begin_opening_handshake() {
    if constexpr (net::is_tls_v<Stream>) timer_.cancel();
    core_.setup_deadlines().start(*this, steady_now_ns());
    derived().begin_handshake();
  }

  // The first byte arrived (router/tls/first_byte.h): not a TLS record's is counted as not_tls
  // and ends the connection at once; otherwise the TLS handshake goes on.
  void on_first_byte(const error_code& ec, bool tls) {
    if constexpr (net::is_tls_v<Stream>) {
      if (tls_done_ || finished_ || ec) return on_tls_handshake(ec);
      if (!tls) {
        tls_done_ = true;
        tls_counters().count_failure(metrics::TlsFailure::not_tls);
        return finish();
      }
      net::tls_layer(stream_).async_handshake(
          boost::asio::ssl::stream_base::server,
          [self = this->shared_from_this()](const error_code& handshake_ec) {
            self->on_tls_handshake(handshake_ec);
          });
    } else {
      (void)ec;
      (void)tls;
    }
  }

  void on_tls_handshake(const error_code& ec) {
    if constexpr (net::is_tls_v<Stream>) {
      if (tls_done_ || finished_) return finish();
      tls_done_ = true;
      if (ec) {
        tls_counters().count_failure(tls::classify_handshake_error(ec));
        return finish();
      }
      tls::count_handshake(net::tls_layer(stream_).native_handle(), tls_counters());
      begin_opening_handshake();
    } else {
      (void)ec;
    }
  }

  const metrics::WampTransport transport_;
  bool admitted_ = false;
  bool tls_done_ = false;  // the TLS handshake ended (or timed out): counted once
};

}  // namespace benchgate::router::wamp
