#include "worker/http/connection.h"

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <chrono>

#include "common/time/clock.h"
#include "common/tls/client_errors.h"
#include "common/util/thread_spare.h"
#include "worker/http/tls_client.h"

namespace benchgate::worker::http {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

// The load thread's read buffer (common/util/thread_spare.h). A connection waits for
// readability, reads into this buffer and parses everything it got before it returns (the
// parser streams and keeps no pointer into it), so no connection needs a buffer of its own:
// at 10,000 connections that is 160 MiB of address space and a resident page or two each
// saved. It is never lent: every connection of the thread reads into it in turn.
struct ReadBufferTag {};
char* thread_read_buffer(size_t bytes) {
  ByteBlock& buffer = ThreadSpare<ReadBufferTag, ByteBlock>::get();
  buffer.reserve_discarding(bytes);
  return reinterpret_cast<char*>(buffer.data());
}

// The thread's operation pool (operation_pool.h), set up by its first connection.
OperationPool* thread_operations(asio::io_context& io, ThreadState& thread) {
  if (thread.operations == nullptr) thread.operations = &asio::use_service<OperationPool>(io);
  return thread.operations;
}

}  // namespace

Connection::Connection(asio::io_context& io, ThreadState& thread, uint32_t index)
    : thread_(thread),
      socket_(io),
      schedule_(plan().open_loop()
                    ? OpenLoopSchedule(plan().rate, plan().connections, index,
                                       plan().schedule_first, plan().schedule_connections)
                    : OpenLoopSchedule()),
      parser_(plan().expect_echo
                  ? ResponseParser(plan().expected_body, thread_operations(io, thread))
                  : ResponseParser(thread_operations(io, thread))),
      ring_(plan().in_flight) {
  if (plan().ring_io && !plan().tls && thread_.ring == nullptr) {
    // The thread's first connection sets the ring up. One that could not be (the worker checks
    // this at start-up) leaves the connections waiting through Asio.
    auto& ring = boost::asio::use_service<net::CompletionRing>(io);
    if (ring.unavailable().empty()) thread_.ring = &ring;
  }
  if (plan().head_requests) parser_.expect_no_bodies();
  if (uring()) uring_slot_ = uring()->attach(*this);
  if (plan().edge_poll && !plan().tls) {
    if (thread_.poller == nullptr) thread_.poller = &asio::use_service<ReadinessPoller>(io);
    edge_poll_ = true;
  }
  // Asio's state for a socket's descriptor comes from its reactor's pool, which keeps a closed
  // socket's for the next one: opened here, the connection's is allocated once, on the thread
  // that makes the connections, beside this object, and every connect reuses it. Opened at the
  // first connect instead, the load thread would allocate it between the connect operations
  // of the connections before and after, whose memory, freed once they are connected, would
  // stay behind as a hole between two descriptor states: about 140 bytes of RSS per idle
  // connection with --http1-io epoll (docs/PERFORMANCE.md, section 4). The first connect uses
  // this socket; a socket that cannot be opened now is opened (or fails) at the connect.
  error_code ignored;
  socket_.open(plan().endpoint.protocol(), ignored);
}

Connection::~Connection() {
  if (!uring()) return;
  close_socket();
  uring()->detach(uring_slot_);
}

// ---- connection lifecycle ----

void Connection::connect(ConnectDone done) {
  // The socket opened with the connection, never connected, is connected as it is: no second
  // socket and registration.
  if (link_ != Link::kDown || !socket_.is_open()) close_socket();
  link_ = Link::kConnecting;
  setup_start_ns_ = steady_now_ns();
  socket_.async_connect(plan().endpoint, [this, generation = generation_,
                                          done = std::move(done)](const error_code& ec) mutable {
    if (generation != generation_) return;  // closed meanwhile
    if (ec) {
      close_socket();
      return done(ec);
    }
    tcp_done_ns_ = steady_now_ns();
    on_tcp_connected(std::move(done));
  });
}

void Connection::on_tcp_connected(ConnectDone done) {
  error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (!plan().tls) {
    on_connected();
    return done({});
  }
  if (!tls_) {
    tls_ = std::make_unique<TlsPart>();
    tls_->read_buffer = std::make_unique_for_overwrite<char[]>(plan().read_buffer_bytes);
  }
  tls_->stream = std::make_shared<Tls>(socket_, *plan().tls);
  Tls& tls = *tls_->stream;
  prepare_connection(tls.native_handle(), plan().sni, plan().verify_host);
  if (plan().tls_resumption) tls_->saved_session.offer(tls.native_handle());
  tls.async_handshake(
      asio::ssl::stream_base::client, [this, keep = tls_->stream, generation = generation_,
                                       done = std::move(done)](const error_code& ec) {
        if (generation != generation_) return;
        if (ec) {
          const error_code why = tls::client_handshake_error(keep->native_handle(), ec);
          close_socket();
          return done(why);
        }
        // HTTP/1.1 inside a connection the server reads as h2 (or another
        // protocol it selected) could only fail request by request.
        if (const error_code alpn = tls::http11_alpn_error(keep->native_handle())) {
          close_socket();
          return done(alpn);
        }
        on_connected();
        done({});
      });
}

void Connection::on_connected() {
  ConnectionSetup& setup = thread_.setup;
  const int64_t now = steady_now_ns();
  ++setup.connections;
  setup.connect.record(tcp_done_ns_ - setup_start_ns_);
  if (Tls* tls = this->tls()) {
    ++setup.handshakes;
    if (resumed(tls->native_handle())) ++setup.resumed;
    setup.tls_handshake.record(now - tcp_done_ns_);
    thread_.tls = negotiated(tls->native_handle());
  }
  if (thread_.phase == Phase::kRunning && now >= thread_.start_ns && now < thread_.end_ns) {
    ++thread_.stats.window_connections;
  }
  setup_start_ns_ = 0;  // from now on, the first request's write
  ttfb_taken_ = false;
  // Cleartext: writes are tried directly first (one system call, no completion handler); only
  // what the socket does not take at once goes through async_write. TLS writes go through the
  // stream.
  if (!tls()) {
    error_code ignored;
    socket_.non_blocking(true, ignored);
  }
  link_ = Link::kUp;
  parser_.reset();
  if (uring()) {
    // One receive for the socket's life: the ring delivers every arrival (on_received). A ring
    // stopped meanwhile: wait through Asio.
    if (uring()->receive(uring_slot_, generation_, socket_.native_handle())) {
      uring_receiving_ = true;
      return;
    }
  }
  if (edge_poll_) {
    // Once per socket: from here on the poller reports every edge (one may be reported at
    // once when an answer is already there).
    if (!thread_.poller->add(socket_.native_handle(), *this)) return;
    // The set has no descriptor (the limit was reached when the thread made it) or refused
    // the socket: this connection waits through Asio from now on, rather than failing and
    // reconnecting in a loop; the answers are checked and counted the same.
    edge_poll_ = false;
  }
  start_read();
}

void Connection::reconnect() {
  connect([this](const error_code& ec) {
    if (ec) {
      if (thread_.phase != Phase::kIdle) thread_.stats.record_connection_error(ErrorKind::kConnect);
      // In the drain nothing tries again: what the window still owes cannot be sent.
      if (thread_.phase == Phase::kDraining) write_off_owed();
      return;
    }
    if (may_send()) issue(steady_now_ns());
  });
}

void Connection::close_socket() {
  ++generation_;
  if (uring_receiving_) {
    // The ring holds the socket's file while its receive is on: the shutdown ends the receive
    // (and the connection, with the close below); what it still delivers is dropped.
    uring()->end_receive(uring_slot_);
    ::shutdown(socket_.native_handle(), SHUT_RDWR);
    uring_receiving_ = false;
  }
  if (Tls* tls = this->tls()) {
    closing(tls->native_handle());
    tls_->stream.reset();
  }
  error_code ignored;
  socket_.close(ignored);
  link_ = Link::kDown;
  writing_ = false;
  parser_.reset();
}

void Connection::close() {
  close_socket();
  if (timer_) timer_->cancel();
  unclaim_queued();
}

void Connection::unclaim_queued() {
  claimed_ -= queued_;
  queued_ = 0;
}

// Every request outstanding on the connection fails with `kind`; requests claimed but not
// yet written go back to the schedule. While the window still sends (or, open loop, the
// drain still owes requests of the window), reconnect at once; so too during the start lead
// (a server's idle timeout or restart between begin_window and the start), or the connection
// would sit out the whole window without an error. A reconnect that fails counts "connect"
// and is not tried again before the next window (reconnect()).
void Connection::fail(ErrorKind kind) {
  unclaim_queued();
  close_socket();
  const bool resend = may_send() || thread_.phase == Phase::kWaiting;
  while (!ring_.empty()) {
    ring_.pop();
    thread_.stats.record_failure(kind);
    thread_.request_finished();
  }
  if (resend) reconnect();
}

bool Connection::may_send() const {
  if (thread_.phase == Phase::kRunning) return true;
  return thread_.phase == Phase::kDraining && plan().open_loop() && owed() > 0;
}

uint64_t Connection::owed() const {
  return plan().open_loop() ? window_due_ - (claimed_ - queued_) : 0;
}

void Connection::write_off_owed() {
  const uint64_t n = owed();
  if (n == 0) return;
  for (uint64_t i = 0; i < n; ++i) thread_.stats.record_failure(ErrorKind::kNotSent);
  claimed_ = window_due_;
  queued_ = 0;
  thread_.paid(n);
  thread_.settle_if_drained();
}

// The last response said "Connection: close" (nginx does this every keepalive_requests).
// Pipelined requests behind it were never processed: while the window sends they go back to
// the schedule and are sent again on a new connection; during the drain they are lost and
// count as short reads (closed loop) or are owed again and sent on a new connection (open
// loop).
void Connection::on_server_close() {
  const bool open_loop_drain = thread_.phase == Phase::kDraining && plan().open_loop();
  if (thread_.phase != Phase::kRunning && !open_loop_drain) return fail(ErrorKind::kShortRead);
  // Open loop, during the drain: they are owed again (before the ring empties, so the drain
  // is not judged over meanwhile).
  const uint32_t unanswered = ring_.size();
  claimed_ -= unanswered;
  // The lowest of the schedule's requests claimed again: the first written from now on.
  late_sends_.taken_back(unanswered);
  if (open_loop_drain) thread_.owe(unanswered);
  while (!ring_.empty()) {
    ring_.pop();
    thread_.request_finished();
  }
  unclaim_queued();
  close_socket();
  reconnect();
}

// new_connection_per_request: the answered request was the connection's only one (in_flight
// is 1); the next goes out on a new connection, while the window still sends.
void Connection::next_connection() {
  close_socket();
  if (may_send()) reconnect();
}

// ---- window control ----

void Connection::begin_window() {
  claimed_ = 0;
  late_sends_.begin_window();
  queued_ = 0;
  window_due_ = plan().open_loop() ? schedule_.due_in_window(thread_.end_ns - thread_.start_ns) : 0;
  if (link_ == Link::kDown) reconnect();
  // Open loop: the timer is armed now, for the start (whose handler only issues what is due),
  // so that it, its wait's block in the operation pool and its entry in Asio's timer queue
  // exist before the window sends, with every connection's timer and the phase timer pending
  // at once, the most the window ever has. A connection behind the schedule throughout the
  // warm-up (an overloaded machine) otherwise armed it for the first time mid-window, and
  // those first allocations fell on the hot path (docs/CONTRIBUTING.md, rule 9).
  if (plan().open_loop()) arm_timer(thread_.start_ns);
}

void Connection::start_sending() {
  if (link_ == Link::kUp) issue(steady_now_ns());
}

// Closed loop: nothing more is sent. Open loop: what the window still owes goes out during
// the drain, measured from its intended instant; it is counted in `unsent` as well.
void Connection::stop_sending() {
  if (!plan().open_loop()) return unclaim_queued();
  const uint64_t n = owed();
  if (n == 0) return;
  thread_.stats.unsent += n;
  thread_.owe(n);
  // A connection that is down and not reconnecting has nobody to send them.
  if (link_ == Link::kDown) return write_off_owed();
  issue(steady_now_ns());
}

// The drain deadline: what was never written is cut off (not_sent), what is unanswered times
// out.
void Connection::expire() {
  write_off_owed();
  if (!ring_.empty()) fail(ErrorKind::kTimeout);
}

// ---- sending ----

// Claims what may be sent now (closed loop: every free slot; open loop: what is due, up to
// the free slots) and writes it.
void Connection::issue(int64_t now) {
  if (!may_send() || link_ != Link::kUp) return;
  // Closed loop: the end timer is about to fire.
  if (!plan().open_loop() && now >= thread_.end_ns) return;
  const uint32_t busy = ring_.size() + queued_;
  const uint32_t free = plan().in_flight > busy ? plan().in_flight - busy : 0;
  uint64_t n = free;
  if (plan().open_loop()) {
    // Only requests due inside the window: after its end they are sent late, never new ones.
    const uint64_t due_total = std::min(schedule_.due_by(now - thread_.start_ns), window_due_);
    const uint64_t due = due_total > claimed_ ? due_total - claimed_ : 0;
    n = std::min<uint64_t>(due, free);
    // Everything due goes out now and a slot stays free: wake up when the next one is due.
    if (n == due && free > n) arm_timer(thread_.start_ns + schedule_.due_offset_ns(claimed_ + n));
  }
  if (n == 0) return;
  claimed_ += n;
  queued_ += static_cast<uint32_t>(n);
  flush(now);
}

void Connection::arm_timer(int64_t due_ns) {
  if (timer_armed_ || due_ns >= thread_.end_ns) return;
  timer_armed_ = true;
  if (!timer_) timer_ = std::make_unique<Timer>(socket_.get_executor());
  timer_->expires_at(steady_point(due_ns));
  timer_->async_wait(pooled([this](const error_code& ec) {
    timer_armed_ = false;
    if (!ec) issue(steady_now_ns());
  }));
}

// Writes every queued request in one system call, unless a write is still in progress (its
// completion flushes what queued up meanwhile).
void Connection::flush(int64_t now) {
  if (writing_ || queued_ == 0) return;
  const uint32_t n = queued_;
  const uint64_t first = claimed_ - n;
  for (uint32_t i = 0; i < n; ++i) {
    int64_t intended = now;
    if (plan().open_loop()) intended = thread_.start_ns + schedule_.due_offset_ns(first + i);
    if (late_sends_.counts(intended, now)) ++thread_.stats.late_sends;
    ring_.push({intended, now});
    thread_.request_sent();
  }
  queued_ = 0;
  // Written during the drain: the window owes these no more (they are outstanding now).
  if (thread_.phase == Phase::kDraining) thread_.paid(n);
  thread_.stats.first_send_ns = std::min(thread_.stats.first_send_ns, now);

  if (setup_start_ns_ == 0) setup_start_ns_ = now;
  const size_t bytes = static_cast<size_t>(n) * plan().request.size();
  if (Tls* tls = this->tls()) {
    writing_ = true;
    asio::async_write(*tls, asio::buffer(plan().batch.data(), bytes),
                      [this, keep = tls_->stream, generation = generation_](
                          const error_code& write_ec, size_t sent) {
                        if (generation != generation_) return;
                        on_write(write_ec, sent);
                      });
    return;
  }
  if (uring_receiving_) {
    // Submitted with the other sends of this batch of completions (at once outside one).
    writing_ = true;
    send_done_ = 0;
    send_bytes_ = static_cast<uint32_t>(bytes);
    if (uring()->send(uring_slot_, generation_, socket_.native_handle(), plan().batch.data(),
                      bytes)) {
      return;
    }
    writing_ = false;
  }
  error_code ec;
  size_t written = socket_.write_some(asio::buffer(plan().batch.data(), bytes), ec);
  if (ec) {
    if (ec != asio::error::would_block && ec != asio::error::try_again) {
      return fail(ErrorKind::kReset);
    }
    written = 0;
  }
  thread_.stats.bytes_sent += written;
  if (written == bytes) return;
  writing_ = true;
  write_through_asio(plan().batch.data() + written, bytes - written);
}

// The rest of a write the socket did not take at once; on_write when all of it went out.
void Connection::write_through_asio(const char* data, size_t bytes) {
  asio::async_write(
      socket_, asio::buffer(data, bytes),
      pooled([this, generation = generation_](const error_code& write_ec, size_t sent) {
        if (generation != generation_) return;
        on_write(write_ec, sent);
      }));
}

// A ring send finished. A short one sends the rest; one the kernel could not take without
// waiting goes through Asio.
void Connection::on_sent(uint32_t tag, const error_code& ec, size_t bytes) {
  if (tag != generation_) return;
  const char* rest = plan().batch.data() + send_done_ + bytes;
  const size_t left = send_bytes_ - send_done_ - (ec ? 0 : bytes);
  if (!ec && left > 0) {
    thread_.stats.bytes_sent += bytes;
    send_done_ += static_cast<uint32_t>(bytes);
    if (uring()->send(uring_slot_, generation_, socket_.native_handle(), rest, left)) return;
    return write_through_asio(rest, left);
  }
  if (ec == asio::error::would_block || ec == asio::error::try_again) {
    return write_through_asio(rest, left);
  }
  on_write(ec, bytes);
}

void Connection::on_write(const error_code& ec, size_t bytes) {
  writing_ = false;
  thread_.stats.bytes_sent += bytes;
  if (ec) return fail(ErrorKind::kReset);
  if (!may_send()) return;
  const int64_t now = steady_now_ns();
  flush(now);
  issue(now);
}

// ---- receiving ----

void Connection::start_read() {
  if (edge_poll_ || uring_receiving_) return;  // on_readable() or on_received() comes next
  if (Tls* tls = this->tls()) {
    tls->async_read_some(
        asio::buffer(tls_->read_buffer.get(), plan().read_buffer_bytes),
        [this, keep = tls_->stream, generation = generation_](const error_code& ec, size_t bytes) {
          if (generation != generation_) return;
          // A peer that closes without close_notify reads as a truncated stream:
          // EOF.
          if (ec == asio::ssl::error::stream_truncated)
            return on_read(asio::error::eof, nullptr, 0);
          on_read(ec, tls_->read_buffer.get(), bytes);
        });
    return;
  }
  socket_.async_wait(
      asio::socket_base::wait_read, pooled([this, generation = generation_](const error_code& ec) {
        if (generation != generation_) return;
        if (ec) return on_read(ec, nullptr, 0);
        // The socket is non-blocking: a spurious wake-up reads nothing.
        char* buffer = thread_read_buffer(plan().read_buffer_bytes);
        error_code read_ec;
        const size_t bytes =
            socket_.read_some(asio::buffer(buffer, plan().read_buffer_bytes), read_ec);
        if (read_ec == asio::error::would_block || read_ec == asio::error::try_again) {
          return start_read();
        }
        on_read(read_ec, buffer, bytes);
      }));
}

// Edge-triggered: everything the socket holds is read now, until a read comes back short (the
// queue was empty then; what arrives later makes a new edge) or finds nothing. An edge fetched
// before the connection closed, in the same batch, finds it down and is dropped.
void Connection::on_readable() {
  if (link_ != Link::kUp) return;
  const uint32_t generation = generation_;
  const size_t capacity = plan().read_buffer_bytes;
  for (;;) {
    char* buffer = thread_read_buffer(capacity);
    error_code ec;
    const size_t bytes = socket_.read_some(asio::buffer(buffer, capacity), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) return;
    on_read(ec, buffer, bytes);
    if (generation != generation_ || link_ != Link::kUp || bytes < capacity) return;
  }
}

// LoadPlan::ring_io: bytes of the socket's receive (from the ring's buffer), its end of stream
// or its failure. One of a socket closed since (fetched in the same batch) is dropped.
void Connection::on_received(uint32_t tag, const error_code& ec, const char* data, size_t bytes) {
  if (tag != generation_ || link_ != Link::kUp) return;
  if (!ec && bytes == 0) return on_read(asio::error::eof, nullptr, 0);
  on_read(ec, data, bytes);
}

void Connection::on_read(const error_code& ec, const char* data, size_t bytes) {
  // EOF with requests outstanding: the server closed before answering them (with none
  // outstanding, e.g. an idle timeout, fail() only closes and reconnects).
  if (ec) return fail(ec == asio::error::eof ? ErrorKind::kShortRead : ErrorKind::kReset);
  // One timestamp per read: every response in it arrived at the same instant.
  const int64_t now = steady_now_ns();
  thread_.stats.count_received(bytes, now);
  if (!ttfb_taken_ && setup_start_ns_ != 0 && bytes > 0) {
    ttfb_taken_ = true;
    thread_.setup.ttfb.record(now - setup_start_ns_);
  }
  size_t offset = 0;
  bool answered = false;
  while (offset < bytes) {
    if (ring_.empty()) {
      // Bytes nobody asked for: the stream cannot be trusted any more.
      thread_.stats.record_connection_error(ErrorKind::kProtocol);
      return fail(ErrorKind::kProtocol);
    }
    size_t used = 0;
    const ResponseParser::Result result = parser_.feed(data + offset, bytes - offset, used);
    offset += used;
    if (result == ResponseParser::Result::kNeedMore) break;
    if (result == ResponseParser::Result::kError) return fail(ErrorKind::kProtocol);
    const bool keep_alive = parser_.keep_alive();
    on_response(now);
    answered = true;
    parser_.reset();
    if (plan().new_connection_per_request) {
      thread_.stats.last_receive_ns = now;
      return next_connection();
    }
    if (!keep_alive) {
      thread_.stats.last_receive_ns = now;
      return on_server_close();
    }
  }
  if (answered) {
    thread_.stats.last_receive_ns = now;
    const uint32_t generation = generation_;
    // A fresh reading: the replacements' write starts after this read was processed.
    issue(steady_now_ns());
    if (generation != generation_) return;  // the write failed; the connection was replaced
  }
  start_read();
}

// Checks the completed response against the oldest outstanding request and counts it.
void Connection::on_response(int64_t now) {
  const InFlightRequest request = ring_.pop();
  ErrorKind kind{};
  bool ok = true;
  if (parser_.status() != static_cast<int>(plan().expect_status)) {
    ok = false;
    kind = ErrorKind::kStatus;
  } else if (plan().expect_body_bytes >= 0 &&
             parser_.content_length() != static_cast<uint64_t>(plan().expect_body_bytes)) {
    ok = false;
    kind = ErrorKind::kLength;
  } else if (plan().expect_echo && !parser_.body_matches()) {
    ok = false;
    kind = ErrorKind::kMismatch;
  }
  if (ok) {
    thread_.stats.record_success(now, now - request.intended_ns, parser_.content_length(),
                                 plan().progress);
    if (plan().open_loop()) thread_.stats.service_time.record(now - request.sent_ns);
  } else {
    thread_.stats.record_failure(kind);
  }
  thread_.request_finished();
}

}  // namespace benchgate::worker::http
