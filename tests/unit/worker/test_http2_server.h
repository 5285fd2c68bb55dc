// A tiny h2c server (prior knowledge) for the worker's tests: 127.0.0.1, a free port, one
// thread, nghttp2 doing the framing. It answers every request with 200 and `body` (HEAD: the
// body's content-length, no body). With
// `goaway_every` = K it ends each connection gracefully after the K-th request it answered, as
// a server rotating its connections does (nginx's keepalive_requests): that response, then
// GOAWAY naming the K-th request's stream as the last it processed, so that every stream the
// client opened after it is refused (RFC 9113, section 6.8); once all of it is written it stops
// writing (a half close) and reads until the client closes. With `processes_none`, a server going
// away: its GOAWAY names no stream (last_stream_id 0), instead of answering the K-th request, or
// with K = 0 right behind its SETTINGS. Misbehaviour asks for a server that fails instead: a
// GOAWAY with an error code, bytes that break the framing, responses cut short. It counts
// exactly what it did.
#pragma once

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace benchgate::worker::testing {

struct Http2Misbehaviour {
  // The error code of the GOAWAY after every `goaway_every`-th request (NO_ERROR: a rotation).
  uint32_t goaway_error = NGHTTP2_NO_ERROR;
  // Instead of answering a connection's n-th request (from 1): a DATA frame on stream 0, a
  // connection error (RFC 9113, section 6.1), and nothing more on that connection.
  uint32_t break_framing_at = 0;
  // With break_framing_at: first a GOAWAY (goaway_error) naming that request's stream as the
  // last processed, which leaves it open, then the DATA frame on stream 0.
  bool goaway_before_break = false;
  // With break_framing_at: the request counts at its HEADERS, before its body, and once the
  // framing is broken the server reads nothing more, nor closes: with windows of 2^31-1 (so
  // flow control does not stop the client first) a long body stays part written, the client's
  // write in progress while the GOAWAY, the broken frame and the half close reach it.
  bool stop_reading_at_break = false;
  // Every response: headers with the whole body's content-length, then half the body, then
  // RST_STREAM(NO_ERROR) instead of END_STREAM.
  bool reset_mid_body = false;
  // Every response: half the body and END_STREAM, under the whole body's content-length.
  bool short_body = false;
  // Not a failure, a slow server: each answer waits this long first (the one thread sleeps).
  uint32_t answer_delay_ms = 0;
};

class TestHttp2Server {
 public:
  TestHttp2Server(std::string body, uint32_t goaway_every, bool processes_none = false,
                  Http2Misbehaviour misbehaviour = {})
      : body_(std::move(body)),
        goaway_every_(goaway_every),
        processes_none_(processes_none),
        misbehaviour_(misbehaviour),
        acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TestHttp2Server() {
    io_.stop();
    thread_.join();
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  uint64_t replies() const { return replies_.load(); }  // responses submitted
  uint64_t connections() const { return connections_.load(); }
  uint64_t goaways() const { return goaways_.load(); }
  uint64_t head_replies() const { return head_replies_.load(); }  // of them, to HEAD requests
  // The first `n` connections are closed once the client acknowledged the server's SETTINGS
  // (the connection set up, nothing asked), as a server whose idle timeout expired or that
  // restarted would close them. Set before the first connection.
  void close_after_handshake(uint64_t n) { close_after_handshake_ = n; }

 private:
  class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(TestHttp2Server& server, boost::asio::ip::tcp::socket socket, uint64_t number)
        : server_(server), socket_(std::move(socket)), number_(number) {
      nghttp2_session_callbacks* callbacks = nullptr;
      nghttp2_session_callbacks_new(&callbacks);
      nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
      nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, on_frame_send);
      nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
      nghttp2_session_server_new(&session_, callbacks, this);
      nghttp2_session_callbacks_del(callbacks);
      const bool wide = server_.misbehaviour_.stop_reading_at_break;
      const nghttp2_settings_entry settings[] = {
          {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100},
          {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, NGHTTP2_MAX_WINDOW_SIZE}};
      nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, wide ? 2 : 1);
      if (wide) {
        nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                              NGHTTP2_MAX_WINDOW_SIZE);
      }
      if (server_.processes_none_ && server_.goaway_every_ == 0) go_away(0);
    }
    ~Session() { nghttp2_session_del(session_); }

    void start() {
      write();
      read();
    }

   private:
    static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
      auto* self = static_cast<Session*>(user_data);
      if (frame->hd.type == NGHTTP2_SETTINGS && (frame->hd.flags & NGHTTP2_FLAG_ACK) != 0 &&
          self->number_ <= self->server_.close_after_handshake_) {
        self->drop_ = true;
      }
      const bool request = frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA;
      const bool ended = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
      const bool at_headers = self->server_.misbehaviour_.stop_reading_at_break;
      if (at_headers ? frame->hd.type == NGHTTP2_HEADERS : request && ended) {
        self->answer(frame->hd.stream_id);
      }
      return 0;
    }

    static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                         size_t name_size, const uint8_t* value, size_t value_size, uint8_t,
                         void* user_data) {
      const std::string_view n(reinterpret_cast<const char*>(name), name_size);
      const std::string_view v(reinterpret_cast<const char*>(value), value_size);
      if (n == ":method" && v == "HEAD") {
        static_cast<Session*>(user_data)->head_streams_.push_back(frame->hd.stream_id);
      }
      return 0;
    }

    // reset_mid_body: the half body went out without END_STREAM; the stream ends with a reset.
    static int on_frame_send(nghttp2_session* session, const nghttp2_frame* frame,
                             void* user_data) {
      const Http2Misbehaviour& m = static_cast<Session*>(user_data)->server_.misbehaviour_;
      if (m.reset_mid_body && frame->hd.type == NGHTTP2_DATA &&
          (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_NO_ERROR);
      }
      return 0;
    }

    static ssize_t read_body(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                             uint32_t* flags, nghttp2_data_source* source, void*) {
      auto* self = static_cast<Session*>(source->ptr);
      const std::string& body = self->server_.body_;
      const Http2Misbehaviour& m = self->server_.misbehaviour_;
      const bool half = m.reset_mid_body || m.short_body;
      const size_t n = std::min(length, half ? body.size() / 2 : body.size());
      std::memcpy(buf, body.data(), n);
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      if (m.reset_mid_body) *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
      return static_cast<ssize_t>(n);
    }

    void go_away(int32_t last_stream_id) {
      nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_stream_id,
                            server_.misbehaviour_.goaway_error, nullptr, 0);
      goaway_sent_ = true;
      ++server_.goaways_;
    }

    void answer(int32_t stream_id) {
      if (goaway_sent_) return;  // after the GOAWAY: refused, never processed
      if (++received_ == server_.misbehaviour_.break_framing_at) {
        // Written after what is queued; then the connection is done, as after a GOAWAY.
        if (server_.misbehaviour_.goaway_before_break) go_away(stream_id);
        break_framing_ = true;
        goaway_sent_ = true;
        return;
      }
      if (server_.processes_none_ && ++answered_ == server_.goaway_every_) return go_away(0);
      if (server_.misbehaviour_.answer_delay_ms > 0) {
        std::this_thread::sleep_for(
            std::chrono::milliseconds(server_.misbehaviour_.answer_delay_ms));
      }
      const std::string length = std::to_string(server_.body_.size());
      const nghttp2_nv headers[] = {
          {(uint8_t*)":status", (uint8_t*)"200", 7, 3, NGHTTP2_NV_FLAG_NONE},
          {(uint8_t*)"content-length", (uint8_t*)length.data(), 14, length.size(),
           NGHTTP2_NV_FLAG_NONE},
      };
      nghttp2_data_provider body{};
      body.source.ptr = this;
      body.read_callback = read_body;
      // HEAD: the content-length a GET would get, no body (END_STREAM on the HEADERS).
      const bool head = std::erase(head_streams_, stream_id) > 0;
      nghttp2_submit_response(session_, stream_id, headers, 2, head ? nullptr : &body);
      ++server_.replies_;
      if (head) ++server_.head_replies_;
      if (!server_.processes_none_ && server_.goaway_every_ > 0 &&
          ++answered_ == server_.goaway_every_) {
        go_away(stream_id);
      }
    }

    void read() {
      socket_.async_read_some(
          boost::asio::buffer(in_),
          [self = shared_from_this()](boost::system::error_code ec, size_t n) {
            if (ec) return;
            // After the GOAWAY, what the client still sends is read and dropped.
            if (!self->half_closed_ && nghttp2_session_mem_recv(self->session_, self->in_, n) < 0) {
              return;
            }
            if (self->drop_) {
              boost::system::error_code ignored;
              self->socket_.close(ignored);
              return;
            }
            self->write();
            if (self->goaway_sent_ && self->server_.misbehaviour_.stop_reading_at_break) {
              // Kept open, unread, until the server ends (a close would reset the connection).
              self->server_.parked_.push_back(self);
              return;
            }
            self->read();
          });
    }

    void write() {
      if (writing_ || half_closed_) return;
      out_.clear();
      for (;;) {
        const uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(session_, &data);
        if (n <= 0) break;
        out_.insert(out_.end(), data, data + n);
      }
      if (break_framing_) {
        // A DATA frame (type 0) of no payload on stream 0.
        const uint8_t frame[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
        out_.insert(out_.end(), frame, frame + sizeof frame);
        break_framing_ = false;
      }
      if (out_.empty()) {
        if (goaway_sent_) {
          // Everything up to the GOAWAY is written: no more from this side.
          half_closed_ = true;
          boost::system::error_code ignored;
          socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
        }
        return;
      }
      writing_ = true;
      boost::asio::async_write(socket_, boost::asio::buffer(out_),
                               [self = shared_from_this()](boost::system::error_code ec, size_t) {
                                 self->writing_ = false;
                                 if (!ec) self->write();
                               });
    }

    TestHttp2Server& server_;
    boost::asio::ip::tcp::socket socket_;
    const uint64_t number_;  // of the connections accepted, from 1
    nghttp2_session* session_ = nullptr;
    uint8_t in_[16384];
    std::vector<uint8_t> out_;
    bool writing_ = false;
    bool half_closed_ = false;
    uint32_t answered_ = 0;
    uint32_t received_ = 0;
    bool goaway_sent_ = false;  // or the framing broken: nothing more is answered
    bool break_framing_ = false;
    bool drop_ = false;                  // close_after_handshake: close it now
    std::vector<int32_t> head_streams_;  // HEAD requests not yet answered
  };

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket s) {
      if (ec) return;
      std::make_shared<Session>(*this, std::move(s), ++connections_)->start();
      accept();
    });
  }

  const std::string body_;
  const uint32_t goaway_every_;
  const bool processes_none_;
  const Http2Misbehaviour misbehaviour_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::atomic<uint64_t> replies_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> goaways_{0};
  std::atomic<uint64_t> head_replies_{0};
  uint64_t close_after_handshake_ = 0;
  std::vector<std::shared_ptr<Session>> parked_;  // stop_reading_at_break; the server's thread
  std::thread thread_;
};

}  // namespace benchgate::worker::testing
