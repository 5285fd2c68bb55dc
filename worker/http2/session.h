// One load-generating HTTP/2 connection (h2c with prior knowledge, or h2 over TLS by ALPN), as
// h2load's Session: nghttp2 does the framing, HPACK and flow control (no frame code here); this
// class keeps up to `effective` streams open, each carrying one request of the workload, and
// checks every response as the HTTP/1.1 connection does (status, length, echo).
//  - effective streams: the workload's `streams`, capped by the server's
//    SETTINGS_MAX_CONCURRENT_STREAMS; the connection counts as connected only once the server's
//    SETTINGS arrived, so the cap is known before the first request;
//  - closed loop: every finished stream is replaced at once;
//  - open loop: requests go out when the connection's OpenLoopSchedule says they are due and a
//    stream is free; one waiting for a stream keeps its intended send time, so the wait shows
//    in its latency (coordinated omission corrected across the streams); the rest of the
//    window's bookkeeping (owed requests, the drain, not_sent) is the HTTP/1.1 connection's;
//  - each connection set up is timed: TCP connect, TLS handshake, and the first request to
//    the first byte of its response (ThreadState::setup).
//  - new_connection_per_request (one stream): once the stream closed, the connection is closed
//    and the next request goes out on a new one (TCP, TLS, SETTINGS again).
// Failures never throw: a broken connection counts every open stream as failed with the
// failure's kind, once each and not again for the connection, and reconnects while the window
// still sends or its start lead runs; frames that break the framing (nghttp2 ends the session)
// are "protocol"; a stream the server resets, or closes before its response's END_STREAM
// (RST_STREAM(NO_ERROR) included), counts as "reset". A server's GOAWAY without an error code
// (a graceful rotation) costs no error: no stream is opened on the connection any more, those
// it refused (above its last stream, never processed) are sent again on a new connection once
// the rest closed, as the HTTP/1.1 connection does after "Connection: close" (a GOAWAY that
// processed nothing on the connection counts them as short reads). One with an error code is a
// connection error: what it refused and what is still open count as "reset", and the connection
// is replaced.
#pragma once

#include <nghttp2/nghttp2.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <vector>

#include "worker/engine/error_kind.h"
#include "worker/engine/late_sends.h"
#include "worker/engine/load_connection.h"
#include "worker/engine/open_loop_schedule.h"
#include "worker/engine/thread_state.h"
#include "worker/http/handler_memory.h"
#include "worker/http/tls_client.h"
#include "worker/http2/request_headers.h"

namespace benchgate::worker::http2 {

class Session : public LoadConnection {
 public:
  Session(boost::asio::io_context& io, ThreadState& thread, uint32_t index,
          const RequestHeaders& request);
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void connect(ConnectDone done) override;
  void begin_window() override;
  void start_sending() override;
  void stop_sending() override;
  void expire() override;
  void close() override;

  uint32_t effective_streams() const { return effective_; }

  // nghttp2's callbacks (session.cc), public for the C trampolines only.
  struct Stream {
    int64_t intended_ns = 0;
    int64_t sent_ns = 0;
    uint64_t body_bytes = 0;
    uint64_t body_sent = 0;
    int status = 0;
    bool body_matches = true;
    bool in_use = false;
    bool ended = false;  // the response's END_STREAM arrived
  };
  void on_settings();
  void on_goaway(int32_t last_stream_id, uint32_t error_code);
  void on_goaway_sent();
  void on_response_begins();
  void on_header(Stream& stream, const uint8_t* name, size_t name_size, const uint8_t* value,
                 size_t value_size);
  void on_data(Stream& stream, const uint8_t* data, size_t size);
  void on_stream_close(Stream& stream, uint32_t error_code);
  ssize_t read_body(Stream& stream, uint8_t* buf, size_t length, uint32_t* flags);

 private:
  enum class Link : uint8_t { kDown, kConnecting, kUp };

  void on_tcp_connected();
  void start_session();
  void finish_connect(const boost::system::error_code& ec);
  void reconnect();
  void close_transport();
  void fail(ErrorKind kind);
  void fail_protocol();
  bool ended_by_nghttp2() const;
  bool may_send() const;
  uint64_t owed() const;
  void write_off_owed();

  void issue(int64_t now);
  bool submit(int64_t intended, int64_t now);
  void arm_timer(int64_t due_ns);
  void flush();
  void start_read();
  void on_read(const boost::system::error_code& ec, size_t bytes);
  bool receive(size_t bytes);
  void on_refused();

  ThreadState& thread_;
  const LoadPlan& plan_;
  const RequestHeaders& request_;
  boost::asio::ip::tcp::socket socket_;
  // Shared with the completions pending on it: a stream closed meanwhile lives until they ran.
  std::shared_ptr<http::TlsSocket> tls_;
  http::SavedSession saved_session_;  // tls_resumption only
  boost::asio::steady_timer timer_;
  OpenLoopSchedule schedule_;
  nghttp2_session* session_ = nullptr;
  nghttp2_data_provider body_provider_{};

  std::vector<Stream> streams_;  // `plan.streams` slots; `free_` holds the unused ones
  std::vector<uint32_t> free_;
  uint32_t effective_ = 0;  // usable slots on this connection (0 until the server's SETTINGS)
  uint32_t active_ = 0;

  std::vector<uint8_t> read_buffer_;
  std::vector<uint8_t> write_buffer_;
  bool writing_ = false;
  // One slot per kind of operation, each pending at most once (worker/http/handler_memory.h).
  http::HandlerMemory read_memory_;
  // Asio's composed write (async_write) with the session's handler takes about 300 bytes.
  using WriteMemory = http::HandlerMemoryOf<384>;
  WriteMemory write_memory_;
  http::HandlerMemory timer_memory_;

  Link link_ = Link::kDown;
  uint32_t generation_ = 0;
  ConnectDone pending_done_;  // until the server's SETTINGS arrived
  bool settings_seen_ = false;
  bool goaway_ = false;            // the server sent GOAWAY: no new stream on this connection
  bool goaway_processed_ = false;  // ... naming a stream it processed (a rotation)
  bool goaway_error_ = false;      // ... with an error code: a connection error, no rotation
  bool goaway_sent_ = false;       // nghttp2 ended the session (a connection error) and said so
  bool closing_ = false;           // nghttp2_session_del is running: callbacks count nothing
  int64_t now_ = 0;                // the instant of the read being processed
  int64_t connect_start_ns_ = 0;
  int64_t tcp_done_ns_ = 0;
  int64_t handshake_done_ns_ = 0;
  int64_t first_request_ns_ = 0;  // 0: nothing sent on this connection yet
  bool ttfb_taken_ = false;

  uint64_t claimed_ = 0;     // requests taken from the schedule in this window
  LateSends late_sends_;     // which writes count in late_sends (refused streams are resent)
  uint64_t window_due_ = 0;  // open loop: requests due inside this window
  bool timer_armed_ = false;
};

}  // namespace benchgate::worker::http2
