#include "worker/http2/session.h"

#include <openssl/ssl.h>
#include <algorithm>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstring>
#include <string_view>

#include "common/time/clock.h"
#include "common/tls/client_errors.h"
#include "common/util/size_class_pool.h"
#include "worker/http/tls_client.h"
#include "worker/http2/setup_error.h"

namespace benchgate::worker::http2 {
namespace {

namespace asio = boost::asio;
using boost::system::error_code;

constexpr size_t kReadBufferBytes = 16 * 1024;
// What one write gathers from nghttp2 at most before it goes out.
constexpr size_t kWriteChunkBytes = 64 * 1024;

asio::steady_timer::time_point steady_point(int64_t ns) {
  return asio::steady_timer::time_point(std::chrono::nanoseconds(ns));
}

Session* self(void* user_data) { return static_cast<Session*>(user_data); }

Session::Stream* stream_of(nghttp2_session* session, int32_t id) {
  return static_cast<Session::Stream*>(nghttp2_session_get_stream_user_data(session, id));
}

int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
  if (frame->hd.type == NGHTTP2_SETTINGS && (frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) {
    self(user_data)->on_settings();
  }
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    self(user_data)->on_goaway(frame->goaway.last_stream_id, frame->goaway.error_code);
  }
  // The response is complete only with END_STREAM (on its HEADERS, DATA or trailers): a stream
  // the server resets before, RST_STREAM(NO_ERROR) included, was cut short (on_stream_close).
  const bool response_frame = frame->hd.type == NGHTTP2_DATA || frame->hd.type == NGHTTP2_HEADERS;
  if (response_frame && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
    if (Session::Stream* s = stream_of(session, frame->hd.stream_id)) s->ended = true;
  }
  return 0;
}

// The client sends GOAWAY only when nghttp2 ends the session for a connection error of the
// server's: the worker never asks for one.
int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  if (frame->hd.type == NGHTTP2_GOAWAY) self(user_data)->on_goaway_sent();
  return 0;
}

int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_RESPONSE) {
    self(user_data)->on_response_begins();
  }
  return 0;
}

int on_header(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name,
              size_t name_size, const uint8_t* value, size_t value_size, uint8_t, void* user_data) {
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  if (Session::Stream* s = stream_of(session, frame->hd.stream_id)) {
    self(user_data)->on_header(*s, name, name_size, value, value_size);
  }
  return 0;
}

int on_data_chunk(nghttp2_session* session, uint8_t, int32_t stream_id, const uint8_t* data,
                  size_t size, void* user_data) {
  if (Session::Stream* s = stream_of(session, stream_id)) self(user_data)->on_data(*s, data, size);
  return 0;
}

int on_stream_close(nghttp2_session* session, int32_t stream_id, uint32_t error_code,
                    void* user_data) {
  if (Session::Stream* s = stream_of(session, stream_id)) {
    self(user_data)->on_stream_close(*s, error_code);
  }
  return 0;
}

ssize_t read_body(nghttp2_session* session, int32_t stream_id, uint8_t* buf, size_t length,
                  uint32_t* flags, nghttp2_data_source*, void* user_data) {
  Session::Stream* s = stream_of(session, stream_id);
  if (!s) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  return self(user_data)->read_body(*s, buf, length, flags);
}

// One set of callbacks for every session of the process.
const nghttp2_session_callbacks* callbacks() {
  static nghttp2_session_callbacks* const made = [] {
    nghttp2_session_callbacks* c = nullptr;
    nghttp2_session_callbacks_new(&c);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(c, on_frame_send);
    nghttp2_session_callbacks_set_on_begin_headers_callback(c, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(c, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, on_data_chunk);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, on_stream_close);
    return c;
  }();
  return made;
}

}  // namespace

Session::Session(asio::io_context& io, ThreadState& thread, uint32_t index,
                 const RequestHeaders& request)
    : thread_(thread),
      plan_(thread.plan),
      request_(request),
      socket_(io),
      timer_(io),
      schedule_(plan_.open_loop()
                    ? OpenLoopSchedule(plan_.rate, plan_.connections, index, plan_.schedule_first,
                                       plan_.schedule_connections)
                    : OpenLoopSchedule()),
      streams_(plan_.streams),
      read_buffer_(kReadBufferBytes) {
  free_.reserve(plan_.streams);
  write_buffer_.reserve(kWriteChunkBytes + 16 * 1024);
  body_provider_.read_callback = http2::read_body;
}

Session::~Session() { close_transport(); }

// ---- connection lifecycle ----

void Session::connect(ConnectDone done) {
  close_transport();
  link_ = Link::kConnecting;
  pending_done_ = std::move(done);
  connect_start_ns_ = steady_now_ns();
  socket_.async_connect(plan_.endpoint, [this, generation = generation_](const error_code& ec) {
    if (generation != generation_) return;
    if (ec) return finish_connect(ec);
    tcp_done_ns_ = steady_now_ns();
    on_tcp_connected();
  });
}

void Session::on_tcp_connected() {
  error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  if (!plan_.tls) return start_session();
  tls_ = std::make_shared<http::TlsSocket>(socket_, *plan_.tls);
  http::prepare_connection(tls_->native_handle(), plan_.sni, plan_.verify_host);
  http::keep_record_buffers(tls_->native_handle());
  if (plan_.tls_resumption) saved_session_.offer(tls_->native_handle());
  tls_->async_handshake(
      asio::ssl::stream_base::client,
      [this, keep = tls_, generation = generation_](const error_code& ec) {
        if (generation != generation_) return;
        if (ec) {
          return finish_connect(tls::client_handshake_error(keep->native_handle(), ec));
        }
        handshake_done_ns_ = steady_now_ns();
        if (http::selected_alpn(tls_->native_handle()) != "h2") {
          return finish_connect(make_error(SetupError::kNoH2Alpn));
        }
        start_session();
      });
}

// The client preface and our SETTINGS go out at once; the connection is up when the server's
// SETTINGS arrived (on_settings).
void Session::start_session() {
  // nghttp2's stream objects, HPACK buffers and queued frames come from the load thread's
  // size-class pool (common/util/size_class_pool.h): no malloc per request in steady state.
  static nghttp2_mem pool_mem{nullptr, size_class_pool::allocate, size_class_pool::release,
                              size_class_pool::allocate_zeroed, size_class_pool::reallocate};
  if (nghttp2_session_client_new3(&session_, callbacks(), this, nullptr, &pool_mem) != 0) {
    session_ = nullptr;
    return finish_connect(make_error(SetupError::kSessionFailed));
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, plan_.initial_window},
      {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, plan_.max_frame_size},
  };
  int rv = nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  // The connection's own window starts at 65,535 whatever SETTINGS say (RFC 9113 6.9.2).
  if (rv == 0 && plan_.initial_window > NGHTTP2_INITIAL_CONNECTION_WINDOW_SIZE) {
    rv = nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                               static_cast<int32_t>(plan_.initial_window));
  }
  if (rv != 0) return finish_connect(make_error(SetupError::kSessionFailed));
  settings_seen_ = false;
  goaway_ = false;
  goaway_error_ = false;
  goaway_sent_ = false;
  first_request_ns_ = 0;
  ttfb_taken_ = false;
  free_.clear();
  for (uint32_t i = plan_.streams; i > 0; --i) free_.push_back(i - 1);
  flush();
  start_read();
}

void Session::on_settings() {
  if (settings_seen_) return;
  settings_seen_ = true;
  const uint32_t peer_max =
      nghttp2_session_get_remote_settings(session_, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
  effective_ = std::min(plan_.streams, peer_max);
}

// Runs once per connect: from connect() through TCP, TLS and the server's SETTINGS.
void Session::finish_connect(const error_code& ec) {
  if (!pending_done_) return;
  ConnectDone done = std::move(pending_done_);
  pending_done_ = nullptr;
  if (ec) {
    close_transport();
  } else {
    link_ = Link::kUp;
    ConnectionSetup& setup = thread_.setup;
    ++setup.connections;
    setup.connect.record(tcp_done_ns_ - connect_start_ns_);
    if (tls_) {
      ++setup.handshakes;
      if (http::resumed(tls_->native_handle())) ++setup.resumed;
      setup.tls_handshake.record(handshake_done_ns_ - tcp_done_ns_);
      thread_.tls = http::negotiated(tls_->native_handle());
    }
    const int64_t now = steady_now_ns();
    if (thread_.phase == Phase::kRunning && now >= thread_.start_ns && now < thread_.end_ns) {
      ++thread_.stats.window_connections;
    }
    if (thread_.effective_streams == 0 || effective_ < thread_.effective_streams) {
      thread_.effective_streams = effective_;
    }
  }
  done(ec);
}

void Session::reconnect() {
  connect([this](const error_code& ec) {
    if (ec) {
      if (thread_.phase != Phase::kIdle) thread_.stats.record_connection_error(ErrorKind::kConnect);
      if (thread_.phase == Phase::kDraining) write_off_owed();
      return;
    }
    if (may_send()) issue(steady_now_ns());
  });
}

void Session::close_transport() {
  ++generation_;
  if (session_) {
    closing_ = true;
    nghttp2_session_del(session_);
    closing_ = false;
    session_ = nullptr;
  }
  if (tls_) http::closing(tls_->native_handle());
  tls_.reset();
  error_code ignored;
  socket_.close(ignored);
  link_ = Link::kDown;
  writing_ = false;
  write_buffer_.clear();
  effective_ = 0;
}

void Session::close() {
  pending_done_ = nullptr;
  close_transport();
  timer_.cancel();
}

// Every open stream fails with `kind`; while the window still sends (or the drain owes
// requests of the window), reconnect at once, and during the start lead too (as the HTTP/1.1
// connection does: worker/http/connection.cc, Connection::fail).
void Session::fail(ErrorKind kind) {
  if (pending_done_) {
    // Failed while connecting: the connect's callback counts it.
    return finish_connect(kind == ErrorKind::kProtocol ? make_error(SetupError::kBadFrames)
                                                       : make_error(SetupError::kNoSettings));
  }
  std::vector<Stream>& streams = streams_;
  uint32_t failed = 0;
  for (Stream& s : streams) {
    if (!s.in_use) continue;
    s.in_use = false;
    ++failed;
  }
  active_ = 0;
  close_transport();
  const bool resend = may_send() || thread_.phase == Phase::kWaiting;
  for (uint32_t i = 0; i < failed; ++i) {
    thread_.stats.record_failure(kind);
    thread_.request_finished();
  }
  if (resend) reconnect();
}

bool Session::may_send() const {
  if (thread_.phase == Phase::kRunning) return true;
  return thread_.phase == Phase::kDraining && plan_.open_loop() && owed() > 0;
}

uint64_t Session::owed() const { return plan_.open_loop() ? window_due_ - claimed_ : 0; }

void Session::write_off_owed() {
  const uint64_t n = owed();
  if (n == 0) return;
  for (uint64_t i = 0; i < n; ++i) thread_.stats.record_failure(ErrorKind::kNotSent);
  claimed_ = window_due_;
  thread_.paid(n);
  thread_.settle_if_drained();
}

// ---- window control (as the HTTP/1.1 connection's) ----

void Session::begin_window() {
  claimed_ = 0;
  late_sends_.begin_window();
  window_due_ = plan_.open_loop() ? schedule_.due_in_window(thread_.end_ns - thread_.start_ns) : 0;
  if (link_ == Link::kDown) reconnect();
  // Open loop: armed now, for the start, so that Asio's timer queue holds every connection's
  // timer and the phase timer at once before the window sends (worker/http/connection.cc,
  // Connection::begin_window).
  if (plan_.open_loop()) arm_timer(thread_.start_ns);
}

void Session::start_sending() {
  if (link_ == Link::kUp) issue(steady_now_ns());
}

void Session::stop_sending() {
  if (!plan_.open_loop()) return;
  const uint64_t n = owed();
  if (n == 0) return;
  thread_.stats.unsent += n;
  thread_.owe(n);
  if (link_ == Link::kDown) return write_off_owed();
  issue(steady_now_ns());
}

void Session::expire() {
  write_off_owed();
  if (active_ > 0) fail(ErrorKind::kTimeout);
}

// ---- sending ----

// Opens what may be opened now (closed loop: every free stream; open loop: what is due, up to
// the free streams) and writes it.
void Session::issue(int64_t now) {
  // After GOAWAY the server opens no stream of ours any more: they go on the next connection.
  if (!may_send() || link_ != Link::kUp || goaway_) return;
  if (!plan_.open_loop() && now >= thread_.end_ns) return;
  const uint32_t free = effective_ > active_ ? effective_ - active_ : 0;
  uint64_t n = free;
  if (plan_.open_loop()) {
    const uint64_t due_total = std::min(schedule_.due_by(now - thread_.start_ns), window_due_);
    const uint64_t due = due_total > claimed_ ? due_total - claimed_ : 0;
    n = std::min<uint64_t>(due, free);
    if (n == due && free > n) arm_timer(thread_.start_ns + schedule_.due_offset_ns(claimed_ + n));
  }
  if (n == 0) return;
  const uint32_t generation = generation_;
  uint64_t sent = 0;
  for (; sent < n; ++sent) {
    const uint64_t index = claimed_ + sent;
    int64_t intended = now;
    if (plan_.open_loop()) intended = thread_.start_ns + schedule_.due_offset_ns(index);
    if (!submit(intended, now)) break;
    if (late_sends_.counts(intended, now)) ++thread_.stats.late_sends;
  }
  claimed_ += sent;
  // Written during the drain: the window owes these no more (they are outstanding now).
  if (thread_.phase == Phase::kDraining) thread_.paid(sent);
  thread_.stats.first_send_ns = std::min(thread_.stats.first_send_ns, now);
  if (sent < n) return fail(ErrorKind::kProtocol);
  if (generation == generation_) flush();
}

bool Session::submit(int64_t intended, int64_t now) {
  const uint32_t slot = free_.back();
  Stream& s = streams_[slot];
  s = Stream{intended, now, 0, 0, 0, true, true, false};
  const bool body = !request_.body().empty();
  const int32_t id = nghttp2_submit_request(session_, nullptr, request_.nva(), request_.size(),
                                            body ? &body_provider_ : nullptr, &s);
  if (id < 0) {
    s.in_use = false;
    return false;
  }
  free_.pop_back();
  ++active_;
  thread_.request_sent();
  if (first_request_ns_ == 0) first_request_ns_ = now;
  return true;
}

void Session::arm_timer(int64_t due_ns) {
  if (timer_armed_ || due_ns >= thread_.end_ns) return;
  timer_armed_ = true;
  timer_.expires_at(steady_point(due_ns));
  timer_.async_wait(asio::bind_allocator(http::HandlerAllocator<char>(&timer_memory_),
                                         [this](const error_code& ec) {
                                           timer_armed_ = false;
                                           if (!ec) issue(steady_now_ns());
                                         }));
}

// Gathers what nghttp2 has to send and writes it, unless a write is in progress (its completion
// gathers again). With none in progress the buffer starts empty, and a GOAWAY nghttp2 queued
// for a connection error is gathered here, never left behind a full chunk: from then on the
// session is closing and nghttp2 drops every other frame it takes from its queues instead of
// serializing it (HEADERS, DATA, WINDOW_UPDATE, RST_STREAM, PING and SETTINGS acknowledgements;
// only SETTINGS of our own, sent at connect, would pass), so the GOAWAY is the first one out.
void Session::flush() {
  if (writing_ || !session_) return;
  while (write_buffer_.size() < kWriteChunkBytes) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) return fail(ErrorKind::kProtocol);
    if (n == 0) break;
    write_buffer_.insert(write_buffer_.end(), data, data + n);
  }
  // nghttp2 ended the session after the server's GOAWAY (ended_by_nghttp2() cannot tell then):
  // the streams left open fail as `protocol`, as without the GOAWAY, not as the short reads
  // of a server that closed when done.
  if (goaway_sent_) return fail_protocol();
  if (write_buffer_.empty()) return;
  writing_ = true;
  auto done = [this, generation = generation_](const error_code& ec, size_t bytes) {
    if (generation != generation_) return;
    writing_ = false;
    thread_.stats.bytes_sent += bytes;
    write_buffer_.clear();
    if (ec) return fail(ErrorKind::kReset);
    flush();
  };
  if (tls_) {
    asio::async_write(
        *tls_, asio::buffer(write_buffer_),
        asio::bind_allocator(http::HandlerAllocator<char, WriteMemory>(&write_memory_),
                             [keep = tls_, done = std::move(done)](
                                 const error_code& ec, size_t bytes) { done(ec, bytes); }));
  } else {
    asio::async_write(
        socket_, asio::buffer(write_buffer_),
        asio::bind_allocator(http::HandlerAllocator<char, WriteMemory>(&write_memory_),
                             std::move(done)));
  }
}

// ---- receiving ----

void Session::start_read() {
  auto done = [this, generation = generation_](const error_code& ec, size_t bytes) {
    if (generation != generation_) return;
    on_read(ec, bytes);
  };
  if (tls_) {
    tls_->async_read_some(
        asio::buffer(read_buffer_),
        asio::bind_allocator(http::HandlerAllocator<char>(&read_memory_),
                             [keep = tls_, done = std::move(done)](
                                 const error_code& ec, size_t bytes) { done(ec, bytes); }));
  } else {
    socket_.async_read_some(
        asio::buffer(read_buffer_),
        asio::bind_allocator(http::HandlerAllocator<char>(&read_memory_), std::move(done)));
  }
}

void Session::on_read(const error_code& ec, size_t bytes) {
  if (ec) {
    // After the server's GOAWAY, nghttp2's own GOAWAY (a connection error: flush()) is known
    // only once handed over, and a write in progress keeps flush() from taking it: the server
    // may close before that write completes. Nothing more can be written, so what nghttp2 has
    // queued is taken and dropped here, which runs on_frame_send for its GOAWAY.
    if (session_ && goaway_ && !goaway_sent_) {
      const uint8_t* data = nullptr;
      while (nghttp2_session_mem_send(session_, &data) > 0) {
      }
    }
    if (goaway_sent_) return fail_protocol();
    const bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
    return fail(eof ? ErrorKind::kShortRead : ErrorKind::kReset);
  }
  now_ = steady_now_ns();
  const uint32_t generation = generation_;
  const uint32_t active_before = active_;
  if (!receive(bytes)) return;
  // TLS: Asio's read returns one record's plaintext, and the socket read under it may have
  // brought more records, or a whole server flush of them (a response a record, as nginx
  // writes them). Those are decrypted and handed to nghttp2 here, before anything is written:
  // one flush answers every response they carry, as h2load's read loop does, instead of one
  // write (a TLS record and a send) after each record.
  if (tls_) {
    SSL* ssl = tls_->native_handle();
    while (true) {
      const int n = SSL_read(ssl, read_buffer_.data(), static_cast<int>(read_buffer_.size()));
      // Nothing more decrypted without reading the socket (SSL_ERROR_WANT_READ), or an
      // error or close_notify: the next read through Asio reports those.
      if (n <= 0) break;
      if (!receive(static_cast<size_t>(n)) || generation != generation_) return;
    }
  }
  if (pending_done_ && settings_seen_) {
    // A GOAWAY with the SETTINGS: the server takes no request on this connection, so it is a
    // failed connect (counted as "connect", not tried again before the next window), not a
    // connection to replace at once, over and over.
    finish_connect(goaway_ ? make_error(SetupError::kGoaway) : error_code{});
    if (generation != generation_) return;
  }
  // A GOAWAY with an error code is a connection error (RFC 9113, section 5.4.1: its sender
  // closes the connection), not a rotation: the streams it refused counted as "reset"
  // (on_stream_close), so does every stream still open, and the connection is replaced as after
  // any failure.
  if (goaway_error_) return fail(ErrorKind::kReset);
  if (ended_by_nghttp2()) return fail_protocol();
  if (active_ < active_before) {
    thread_.stats.last_receive_ns = now_;
    // new_connection_per_request: the connection's one stream is done; the next request goes
    // out on a new connection.
    if (plan_.new_connection_per_request && active_ == 0) {
      close_transport();
      if (may_send()) reconnect();
      return;
    }
    issue(steady_now_ns());
    if (generation != generation_) return;
  }
  flush();
  if (generation != generation_) return;
  // GOAWAY and nothing left to do: the server is done with this connection.
  if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) {
    return fail(ErrorKind::kShortRead);
  }
  start_read();
}

// Hands `bytes` of read_buffer_ to nghttp2; false when the connection failed.
bool Session::receive(size_t bytes) {
  thread_.stats.count_received(bytes, now_);
  const ssize_t rv = nghttp2_session_mem_recv(session_, read_buffer_.data(), bytes);
  if (rv >= 0) return true;
  fail_protocol();
  return false;
}

// The server broke the framing: the connection fails, and the error is attributed to the
// streams it fails, once each. With none open it belongs to no request and counts once, as
// bytes nobody asked for do on HTTP/1.1 (docs/MEASUREMENT.md "Operations, successes and
// errors"); while connecting, the failed connect counts it.
void Session::fail_protocol() {
  if (active_ == 0 && !pending_done_ && thread_.phase != Phase::kIdle) {
    thread_.stats.record_connection_error(ErrorKind::kProtocol);
  }
  fail(ErrorKind::kProtocol);
}

// ---- nghttp2 callbacks ----

void Session::on_response_begins() {
  if (ttfb_taken_ || first_request_ns_ == 0 || closing_) return;
  ttfb_taken_ = true;
  thread_.setup.ttfb.record(now_ - first_request_ns_);
}

void Session::on_header(Stream& stream, const uint8_t* name, size_t name_size, const uint8_t* value,
                        size_t value_size) {
  if (name_size != 7 || std::memcmp(name, ":status", 7) != 0) return;
  int status = 0;
  for (size_t i = 0; i < value_size; ++i) {
    if (value[i] < '0' || value[i] > '9') return;
    status = status * 10 + (value[i] - '0');
  }
  stream.status = status;
}

void Session::on_data(Stream& stream, const uint8_t* data, size_t size) {
  if (plan_.expect_echo && stream.body_matches) {
    const std::string& expected = request_.body();
    if (stream.body_bytes + size > expected.size() ||
        std::memcmp(expected.data() + stream.body_bytes, data, size) != 0) {
      stream.body_matches = false;
    }
  }
  stream.body_bytes += size;
}

void Session::on_goaway_sent() { goaway_sent_ = true; }

void Session::on_goaway(int32_t last_stream_id, uint32_t error_code) {
  goaway_ = true;
  goaway_processed_ = last_stream_id > 0;
  goaway_error_ = error_code != NGHTTP2_NO_ERROR;
}

// nghttp2 ended the session for a connection error of the server's (a frame it cannot parse,
// a frame on a stream it may not be on): it queued its GOAWAY and reports nothing else, and the
// streams left open would be answered by nobody. That is what refuses new requests when no
// GOAWAY was received and stream ids are left; after the server's GOAWAY, which refuses them
// too, only nghttp2's own GOAWAY going out tells (flush()).
bool Session::ended_by_nghttp2() const {
  return !goaway_ && nghttp2_session_get_next_stream_id(session_) <= uint32_t{INT32_MAX} &&
         nghttp2_session_check_request_allowed(session_) == 0;
}

void Session::on_stream_close(Stream& stream, uint32_t error_code) {
  if (closing_ || !stream.in_use) return;
  stream.in_use = false;
  free_.push_back(static_cast<uint32_t>(&stream - streams_.data()));
  --active_;
  const bool refused = error_code == NGHTTP2_REFUSED_STREAM && goaway_;
  if (refused && goaway_processed_ && !goaway_error_) return on_refused();
  ErrorKind kind{};
  bool ok = true;
  if (refused && goaway_error_) {
    // Refused by a GOAWAY with an error code: a server failing, not rotating (on_read).
    ok = false;
    kind = ErrorKind::kReset;
  } else if (refused) {
    // A GOAWAY that processed nothing on this connection: the server is going away, not
    // rotating, and sending again at no error could go round without a trace (a server that
    // refuses every connection's streams). Counted as HTTP/1.1 counts a server that closes with
    // requests unanswered.
    ok = false;
    kind = ErrorKind::kShortRead;
  } else if (error_code != NGHTTP2_NO_ERROR || !stream.ended) {
    // Reset by the server, or closed before the response's END_STREAM: RST_STREAM(NO_ERROR)
    // only ends a stream whose response is complete (RFC 9113, section 8.1). A body shorter
    // than its content-length nghttp2 resets itself (PROTOCOL_ERROR).
    ok = false;
    kind = ErrorKind::kReset;
  } else if (stream.status != static_cast<int>(plan_.expect_status)) {
    ok = false;
    kind = ErrorKind::kStatus;
  } else if (plan_.expect_body_bytes >= 0 &&
             stream.body_bytes != static_cast<uint64_t>(plan_.expect_body_bytes)) {
    ok = false;
    kind = ErrorKind::kLength;
  } else if (plan_.expect_echo &&
             (!stream.body_matches || stream.body_bytes != request_.body().size())) {
    ok = false;
    kind = ErrorKind::kMismatch;
  }
  if (ok) {
    thread_.stats.record_success(now_, now_ - stream.intended_ns, stream.body_bytes,
                                 plan_.progress);
    if (plan_.open_loop()) thread_.stats.service_time.record(now_ - stream.sent_ns);
  } else {
    thread_.stats.record_failure(kind);
  }
  thread_.request_finished();
}

// A stream above the last one a GOAWAY named (nghttp2 closes those with REFUSED_STREAM, and
// any we had submitted that were not yet written) was never processed (RFC 9113, section 8.7),
// as the requests behind an HTTP/1.1 "Connection: close" (worker/http/connection.cc,
// Connection::on_server_close), and is counted the same: while the window sends, it goes back
// to the schedule and is sent again on the new connection, at no error; during the drain it is
// lost and counts as a short read (closed loop) or is owed again and sent on a new connection
// (open loop). The connection is replaced once its last stream closed (on_read: nghttp2 wants
// neither to read nor to write any more).
void Session::on_refused() {
  const bool open_loop_drain = thread_.phase == Phase::kDraining && plan_.open_loop();
  if (thread_.phase != Phase::kRunning && !open_loop_drain) {
    thread_.stats.record_failure(ErrorKind::kShortRead);
  } else {
    --claimed_;
    late_sends_.taken_back(1);
    // Owed again before the stream counts as finished, so the drain is not judged over.
    if (open_loop_drain) thread_.owe(1);
  }
  thread_.request_finished();
}

ssize_t Session::read_body(Stream& stream, uint8_t* buf, size_t length, uint32_t* flags) {
  const std::string& body = request_.body();
  const size_t n = std::min<size_t>(length, body.size() - stream.body_sent);
  std::memcpy(buf, body.data() + stream.body_sent, n);
  stream.body_sent += n;
  if (stream.body_sent == body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace benchgate::worker::http2
