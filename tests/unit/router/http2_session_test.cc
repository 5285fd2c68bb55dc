// The router's HTTP/2 server session (router/http2/server_session.h) driven in-process by an
// nghttp2 client session: bytes go straight from one to the other, no sockets. Checks answers,
// counters and the defences that need no timing; the preface matcher too.
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/ssl/stream.hpp>

#include "common/time/clock.h"
#include "router/http/body_buffer.h"
#include "router/http/server_options.h"
#include "router/http2/connection.h"
#include "router/http2/preface.h"
#include "router/http2/server_session.h"
#include "router/memory/buffer_budget.h"
#include "router/metrics/thread_stats.h"

namespace benchgate::router::http2 {
namespace {

struct Response {
  std::map<std::string, std::string> headers;
  std::string body;
  bool closed = false;
  uint32_t error_code = 0;
};

// An nghttp2 client whose output the test hands to the server and back.
class Client {
 public:
  Client() {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(
        cb, [](nghttp2_session*, const uint8_t* data, size_t length, int, void* user) {
          static_cast<Client*>(user)->out.append(reinterpret_cast<const char*>(data), length);
          return static_cast<ssize_t>(length);
        });
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t nlen,
               const uint8_t* value, size_t vlen, uint8_t, void* user) {
          static_cast<Client*>(user)
              ->responses[frame->hd.stream_id]
              .headers[std::string(reinterpret_cast<const char*>(name), nlen)] =
              std::string(reinterpret_cast<const char*>(value), vlen);
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len, void* user) {
          static_cast<Client*>(user)->responses[id].body.append(reinterpret_cast<const char*>(data),
                                                                len);
          return 0;
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cb, [](nghttp2_session*, int32_t id, uint32_t error_code, void* user) {
          auto& response = static_cast<Client*>(user)->responses[id];
          response.closed = true;
          response.error_code = error_code;
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          if (frame->hd.type == NGHTTP2_GOAWAY) {
            static_cast<Client*>(user)->goaway = static_cast<int>(frame->goaway.error_code);
          }
          return 0;
        });
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // Large header blocks are what some tests send (nghttp2 refuses them past 64 KiB of its
    // worst-case bound by default).
    nghttp2_option_set_max_send_header_block_length(option, 1 << 20);
    nghttp2_session_client_new2(&session, cb, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
  ~Client() { nghttp2_session_del(session); }

  int32_t get(const std::string& path, const std::string& method = "GET",
              const std::vector<std::pair<std::string, std::string>>& extra = {},
              bool with_body = false) {
    std::vector<nghttp2_nv> fields;
    auto add = [&](std::string_view name, std::string_view value) {
      fields.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                        reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                        value.size(), NGHTTP2_NV_FLAG_NONE});
    };
    const std::string scheme = "http", authority = "127.0.0.1";
    add(":method", method);
    add(":scheme", scheme);
    add(":authority", authority);
    add(":path", path);
    for (const auto& [name, value] : extra) add(name, value);
    return nghttp2_submit_request(session, nullptr, fields.data(), fields.size(),
                                  with_body ? &provider_ : nullptr, this);
  }

  // `end`: false leaves the stream open after the body (the client sends nothing more).
  int32_t post(const std::string& path, std::string body, bool end = true) {
    body_ = std::move(body);
    body_offset_ = 0;
    end_ = end;
    provider_.source.ptr = this;
    provider_.read_callback = [](nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                                 uint32_t* flags, nghttp2_data_source*, void* user) {
      auto* self = static_cast<Client*>(user);
      if (self->body_offset_ == self->body_.size()) {
        if (!self->end_) return ssize_t{NGHTTP2_ERR_DEFERRED};
        *flags |= NGHTTP2_DATA_FLAG_EOF;  // finish(): an empty DATA frame ends the stream
        return ssize_t{0};
      }
      const size_t n = std::min(length, self->body_.size() - self->body_offset_);
      std::memcpy(buf, self->body_.data() + self->body_offset_, n);
      self->body_offset_ += n;
      if (self->body_offset_ == self->body_.size() && self->end_) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
    // The body is read while the client sends: it stays until the next post().
    return get(path, "POST", {}, true);
  }

  // Ends a stream post() left open.
  void finish(int32_t stream_id) {
    end_ = true;
    nghttp2_session_resume_data(session, stream_id);
  }

  nghttp2_session* session = nullptr;
  std::string out;
  std::map<int32_t, Response> responses;
  int goaway = -1;

 private:
  std::string body_;
  size_t body_offset_ = 0;
  bool end_ = true;
  nghttp2_data_provider provider_{};
};

class Http2SessionTest : public ::testing::Test {
 protected:
  Http2SessionTest() { options_.http2.max_concurrent_streams = 10; }

  // Moves bytes both ways until neither side has anything more to say. The nghttp2 client
  // opens with the client preface itself.
  void pump() {
    for (int round = 0; round < 1000; ++round) {
      client_.out.clear();
      nghttp2_session_send(client_.session);
      bool moved = !client_.out.empty();
      if (moved) {
        ASSERT_TRUE(server_->receive(reinterpret_cast<const uint8_t*>(client_.out.data()),
                                     client_.out.size(), steady_now_ns()));
      }
      std::string out;
      ASSERT_TRUE(server_->fill(out, 1 << 20));
      if (!out.empty()) {
        moved = true;
        nghttp2_session_mem_recv(client_.session, reinterpret_cast<const uint8_t*>(out.data()),
                                 out.size());
      }
      if (!moved) return;
    }
    FAIL() << "no quiescence";
  }

  void start() { server_ = std::make_unique<ServerSession>(options_, stats_); }

  http::ServerOptions options_;
  metrics::ThreadStats stats_;
  std::unique_ptr<ServerSession> server_;
  Client client_;
};

TEST_F(Http2SessionTest, AnswersEveryBenchRouteAsHttp1Does) {
  start();
  const int32_t hello = client_.get("/bench/hello");
  const int32_t bytes = client_.get("/bench/bytes/100000");
  const int32_t missing = client_.get("/nowhere");
  const int32_t wrong = client_.get("/bench/echo");
  const int32_t big = client_.get("/bench/bytes/99999999999");
  pump();
  EXPECT_EQ(client_.responses[hello].headers[":status"], "200");
  EXPECT_EQ(client_.responses[hello].body, "Hello, world");
  EXPECT_EQ(client_.responses[hello].headers["content-length"], "12");
  EXPECT_EQ(client_.responses[hello].headers["server"], "benchgate-router");
  std::string pattern;
  for (int i = 0; i < 100000; ++i) pattern.push_back(static_cast<char>('a' + i % 26));
  EXPECT_TRUE(client_.responses[bytes].body == pattern)
      << client_.responses[bytes].body.size() << " bytes";
  EXPECT_EQ(client_.responses[missing].headers[":status"], "404");
  EXPECT_EQ(client_.responses[missing].body, "Not Found\n");
  EXPECT_EQ(client_.responses[wrong].headers[":status"], "405");
  EXPECT_EQ(client_.responses[wrong].headers["allow"], "POST");
  EXPECT_EQ(client_.responses[big].headers[":status"], "400");
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kHello, 200), 1u);
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kBytes, 200), 1u);
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kOther, 404), 1u);
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kEcho, 405), 1u);
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kBytes, 400), 1u);
  EXPECT_EQ(stats_.counters.h2.connections, 1u);
  EXPECT_EQ(stats_.counters.h2.streams, 5u);
  EXPECT_EQ(server_->open_streams(), 0u);
}

TEST_F(Http2SessionTest, EchoesABodyLargerThanAFrameAndRefusesOneOverTheLimit) {
  options_.max_body_bytes = 100'000;
  start();
  std::string body(70'000, 'q');
  for (size_t i = 0; i < body.size(); i += 7) body[i] = static_cast<char>('0' + i % 10);
  const int32_t echo = client_.post("/bench/echo", body);
  pump();
  EXPECT_EQ(client_.responses[echo].headers[":status"], "200");
  EXPECT_TRUE(client_.responses[echo].body == body) << client_.responses[echo].body.size();
  const int32_t large = client_.post("/bench/echo", std::string(150'000, 'x'));
  pump();
  EXPECT_EQ(client_.responses[large].headers[":status"], "413");
  EXPECT_EQ(stats_.counters.parse_errors, 1u);
}

// Echo bodies draw on --max-buffered-bytes as HTTP/1.1's do: past 64 KiB a stream's buffer is
// reserved before it grows, a body the budget cannot hold is answered 503, and a closed
// stream gives its bytes back.
TEST_F(Http2SessionTest, EchoBodiesDrawOnTheBufferBudgetAndOneItCannotHoldIsAnswered503) {
  options_.max_body_bytes = 1 << 20;
  options_.buffer_budget = std::make_shared<memory::BufferBudget>(300 * 1024);
  start();
  const std::string fits(200 * 1024, 'f');
  const int32_t first = client_.post("/bench/echo", fits);
  pump();
  EXPECT_EQ(client_.responses[first].headers[":status"], "200");
  EXPECT_TRUE(client_.responses[first].body == fits);
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u) << "given back when the stream closed";

  const int32_t large = client_.post("/bench/echo", std::string(400 * 1024, 'x'));
  pump();
  EXPECT_EQ(client_.responses[large].headers[":status"], "503");
  EXPECT_EQ(options_.buffer_budget->refusals(memory::BudgetUser::http), 1u);
  EXPECT_EQ(stats_.counters.requests_for(http::Route::kEcho, 503), 1u);
  EXPECT_EQ(stats_.counters.parse_errors, 0u);
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u);

  const int32_t again = client_.post("/bench/echo", fits);
  pump();
  EXPECT_EQ(client_.responses[again].headers[":status"], "200");
  EXPECT_EQ(server_->open_streams(), 0u);
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u);

  // A refused body gives its bytes back at once, not when the client ends the stream (this one
  // never does).
  const int32_t open = client_.post("/bench/echo", std::string(400 * 1024, 'o'), false);
  pump();
  EXPECT_EQ(client_.responses[open].headers[":status"], "503");
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u);
}

// An echo body past 64 KiB starts in the serving thread's spare body buffer when its stream's
// state holds no buffer of its own, as an HTTP/1.1 chunked body does (router/http/body_buffer.h),
// and goes back to the thread when its stream closes; the budget covers the whole spare while the
// stream holds it.
TEST_F(Http2SessionTest, ALargeEchoBodyStartsInTheThreadsSpareAndGivesItBack) {
  options_.max_body_bytes = 8 << 20;
  options_.buffer_budget = std::make_shared<memory::BufferBudget>(64ull << 20);
  http::SpareBodies::clear();
  std::string earlier;
  earlier.reserve(1 << 20);
  const char* spare = earlier.data();
  http::SpareBodies::give_back(earlier);
  start();
  std::string body(100'000, 's');
  for (size_t i = 0; i < body.size(); i += 5) body[i] = static_cast<char>('0' + i % 10);
  const int32_t first = client_.post("/bench/echo", body, false);
  pump();
  EXPECT_EQ(http::SpareBodies::count(), 0u) << "lent to the stream";
  // The budget covers the whole spare the stream holds, whatever its bytes.
  EXPECT_EQ(options_.buffer_budget->in_use(), 1u << 20);
  client_.finish(first);
  pump();
  EXPECT_EQ(client_.responses[first].headers[":status"], "200");
  EXPECT_TRUE(client_.responses[first].body == body) << client_.responses[first].body.size();
  ASSERT_EQ(http::SpareBodies::count(), 1u);
  std::string back;
  http::SpareBodies::take_largest(back);
  EXPECT_EQ(back.data(), spare) << "the same buffer, back with the thread";
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u);

  // Without a spare, the buffer the body grew into goes to the thread when the stream closes
  // (the 128 KiB it grew to; the 16, 32 and 64 KiB it outgrew are freed).
  std::string().swap(back);
  const int32_t second = client_.post("/bench/echo", body);
  pump();
  EXPECT_EQ(client_.responses[second].headers[":status"], "200");
  EXPECT_TRUE(client_.responses[second].body == body) << client_.responses[second].body.size();
  EXPECT_EQ(http::SpareBodies::count(), 1u);
  EXPECT_EQ(http::SpareBodies::largest(), 128u * 1024);
  EXPECT_EQ(options_.buffer_budget->in_use(), 0u);
  EXPECT_EQ(server_->open_streams(), 0u);
  http::SpareBodies::clear();
}

// fill() leaves at most max_fill_bytes(flush_bytes) in `out`, for a client that allows 1 MiB
// frames too, and an `out` kept between batches (as the connection keeps its own) grows past
// flush_bytes once, straight to room for that: before, it grew to about flush_bytes in the
// first full batch and again in whichever later batch first ended on more bytes (frames of
// several streams mixed), an allocation alloc.router_http2_steady_state counted now and then.
TEST_F(Http2SessionTest, AKeptOutputBufferGrowsPastTheFlushSizeOnceToRoomForAnyBatch) {
  constexpr size_t kFlush = 64 * 1024;
  start();
  const nghttp2_settings_entry large_frames{NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 1 << 20};
  nghttp2_submit_settings(client_.session, NGHTTP2_FLAG_NONE, &large_frames, 1);
  std::vector<int32_t> streams;
  for (int i = 0; i < 6; ++i) streams.push_back(client_.get("/bench/bytes/100000"));
  std::string out;  // kept between batches
  size_t growths_past_flush = 0;
  size_t most = 0;
  for (int round = 0; round < 1000; ++round) {
    client_.out.clear();
    nghttp2_session_send(client_.session);
    bool moved = !client_.out.empty();
    if (moved) {
      ASSERT_TRUE(server_->receive(reinterpret_cast<const uint8_t*>(client_.out.data()),
                                   client_.out.size(), steady_now_ns()));
    }
    const size_t capacity = out.capacity();
    out.clear();
    ASSERT_TRUE(server_->fill(out, kFlush));
    if (out.capacity() != capacity && out.capacity() > kFlush) {
      ++growths_past_flush;
      EXPECT_GE(out.capacity(), ServerSession::max_fill_bytes(kFlush));
    }
    most = std::max(most, out.size());
    EXPECT_LE(out.size(), ServerSession::max_fill_bytes(kFlush));
    if (!out.empty()) {
      moved = true;
      nghttp2_session_mem_recv(client_.session, reinterpret_cast<const uint8_t*>(out.data()),
                               out.size());
    }
    if (!moved) break;
  }
  for (int32_t id : streams) {
    EXPECT_EQ(client_.responses[id].headers[":status"], "200");
    EXPECT_EQ(client_.responses[id].body.size(), 100'000u);
  }
  EXPECT_GT(most, kFlush) << "a batch passed flush_bytes";
  EXPECT_EQ(growths_past_flush, 1u);
}

TEST_F(Http2SessionTest, DelayedAnswersGoOutWhenDue) {
  start();
  const int32_t delayed = client_.get("/bench/delay/50");
  pump();
  EXPECT_FALSE(client_.responses[delayed].closed);
  ASSERT_NE(server_->next_delay_ns(), 0);
  server_->answer_due_delays(server_->next_delay_ns());
  pump();
  EXPECT_EQ(client_.responses[delayed].headers[":status"], "200");
  EXPECT_TRUE(client_.responses[delayed].closed);
  EXPECT_EQ(server_->next_delay_ns(), 0);
}

TEST_F(Http2SessionTest, StreamsOverTheAdvertisedLimitAreRefused) {
  start();
  // 13 requests in the first flight, before the client could see the server's SETTINGS.
  std::vector<int32_t> ids;
  for (int i = 0; i < 13; ++i) ids.push_back(client_.get("/bench/delay/1"));
  pump();
  int refused = 0;
  for (int32_t id : ids) {
    if (client_.responses[id].closed &&
        client_.responses[id].error_code == NGHTTP2_REFUSED_STREAM) {
      ++refused;
    }
  }
  EXPECT_EQ(refused, 3);
  EXPECT_EQ(stats_.counters.h2.streams_refused, 3u);
  EXPECT_EQ(server_->open_streams(), 10u);
}

TEST_F(Http2SessionTest, AHeaderListOverTheLimitEndsTheConnection) {
  options_.http2.max_header_list_bytes = 4096;
  start();
  client_.get("/bench/hello", "GET", {{"x-large", std::string(5000, 'v')}});
  pump();
  EXPECT_EQ(client_.goaway, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_EQ(stats_.counters.h2.header_list_closes, 1u);
  EXPECT_TRUE(server_->done());
}

TEST_F(Http2SessionTest, ResetsOverTheBudgetGetGoawayEnhanceYourCalm) {
  options_.http2.reset_burst = 3;
  options_.http2.reset_rate_per_s = 1;
  start();
  // Each reset in a flight of its own, after its request went out (nghttp2 would otherwise
  // drop a request reset before it was sent).
  for (int i = 0; i < 6; ++i) {
    const int32_t id = client_.get("/bench/delay/1000");
    pump();
    nghttp2_submit_rst_stream(client_.session, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    pump();
  }
  EXPECT_EQ(client_.goaway, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_EQ(stats_.counters.h2.rapid_reset_closes, 1u);
  // Three from the bucket, the fourth found it empty; nothing after it was read.
  EXPECT_EQ(stats_.counters.h2.client_resets, 4u);
  EXPECT_TRUE(server_->done());
}

TEST_F(Http2SessionTest, TooManyContinuationFramesEndTheConnection) {
  options_.http2.max_continuations = 1;
  start();
  // 90,000 'c's, Huffman-coded in 5 bits each: a block of about 56 KB, one HEADERS frame of
  // 16 KiB and three CONTINUATION frames; the second of them is one too many.
  const int32_t id = client_.get("/bench/hello", "GET", {{"x-large", std::string(90000, 'c')}});
  ASSERT_GT(id, 0);
  pump();

  EXPECT_EQ(client_.goaway, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_EQ(stats_.counters.h2.continuation_flood_closes, 1u);
  EXPECT_EQ(stats_.counters.h2.header_list_closes, 0u);
}

TEST_F(Http2SessionTest, ABrokenPrefaceIsAProtocolError) {
  start();
  // After the preface a client must send SETTINGS first; this one sends a PING.
  const std::string junk = std::string(kClientPreface) +
                           std::string("\x00\x00\x08\x06\x00\x00\x00\x00\x00", 9) +
                           std::string(8, 'p');
  server_->receive(reinterpret_cast<const uint8_t*>(junk.data()), junk.size(), steady_now_ns());
  std::string out;
  ASSERT_TRUE(server_->fill(out, 1 << 20));
  EXPECT_FALSE(out.empty());  // our SETTINGS, then a GOAWAY
  EXPECT_EQ(stats_.counters.h2.protocol_error_closes, 1u);
}

// A WINDOW_UPDATE frame (RFC 9113 6.9) as a client that breaks flow control would send it.
std::string window_update(int32_t stream_id, uint32_t increment) {
  const unsigned char frame[] = {0,
                                 0,
                                 4,
                                 NGHTTP2_WINDOW_UPDATE,
                                 0,
                                 static_cast<unsigned char>(stream_id >> 24),
                                 static_cast<unsigned char>(stream_id >> 16),
                                 static_cast<unsigned char>(stream_id >> 8),
                                 static_cast<unsigned char>(stream_id),
                                 static_cast<unsigned char>(increment >> 24),
                                 static_cast<unsigned char>(increment >> 16),
                                 static_cast<unsigned char>(increment >> 8),
                                 static_cast<unsigned char>(increment)};
  return std::string(reinterpret_cast<const char*>(frame), sizeof frame);
}

TEST_F(Http2SessionTest, AStreamWindowPastTheLimitResetsTheStreamOnly) {
  start();
  const int32_t delayed = client_.get("/bench/delay/60000");
  pump();
  // The router's send window of the stream is the client's 65,535: this takes it past 2^31-1.
  const std::string frame = window_update(delayed, 0x7fffffff);
  ASSERT_TRUE(server_->receive(reinterpret_cast<const uint8_t*>(frame.data()), frame.size(),
                               steady_now_ns()));
  std::string out;
  ASSERT_TRUE(server_->fill(out, 1 << 20));
  nghttp2_session_mem_recv(client_.session, reinterpret_cast<const uint8_t*>(out.data()),
                           out.size());
  EXPECT_TRUE(client_.responses[delayed].closed);
  EXPECT_EQ(client_.responses[delayed].error_code, NGHTTP2_FLOW_CONTROL_ERROR);
  EXPECT_EQ(stats_.counters.h2.flow_control_resets, 1u);
  // The connection goes on.
  const int32_t hello = client_.get("/bench/hello");
  pump();
  EXPECT_EQ(client_.responses[hello].body, "Hello, world");
  EXPECT_EQ(client_.goaway, -1);
  EXPECT_EQ(stats_.counters.h2.flow_control_closes, 0u);
  EXPECT_EQ(stats_.counters.h2.protocol_error_closes, 0u);
}

TEST_F(Http2SessionTest, AConnectionWindowPastTheLimitEndsTheConnection) {
  start();
  pump();
  const std::string frame = window_update(0, 0x7fffffff);
  server_->receive(reinterpret_cast<const uint8_t*>(frame.data()), frame.size(), steady_now_ns());
  std::string out;
  ASSERT_TRUE(server_->fill(out, 1 << 20));
  nghttp2_session_mem_recv(client_.session, reinterpret_cast<const uint8_t*>(out.data()),
                           out.size());
  EXPECT_EQ(client_.goaway, NGHTTP2_FLOW_CONTROL_ERROR);
  EXPECT_EQ(stats_.counters.h2.flow_control_closes, 1u);
  EXPECT_EQ(stats_.counters.h2.protocol_error_closes, 0u);
  EXPECT_EQ(stats_.counters.h2.flow_control_resets, 0u);
  EXPECT_TRUE(server_->done());
}

TEST(Http2Preface, TellsHttp2FromHttp1) {
  EXPECT_EQ(match_preface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), PrefaceMatch::kFull);
  EXPECT_EQ(match_preface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00"), PrefaceMatch::kFull);
  EXPECT_EQ(match_preface("PRI * HTTP/2"), PrefaceMatch::kPartial);
  EXPECT_EQ(match_preface("P"), PrefaceMatch::kPartial);
  EXPECT_EQ(match_preface("POST /bench/echo HTTP/1.1\r\n"), PrefaceMatch::kNo);
  EXPECT_EQ(match_preface("GET / HTTP/1.1\r\n"), PrefaceMatch::kNo);
  EXPECT_EQ(match_preface("PRI * HTTP/1.1\r\n"), PrefaceMatch::kNo);
}

}  // namespace
}  // namespace benchgate::router::http2

// The HTTP/2 connection is a template over the byte stream: a TLS stream whose ALPN chose h2
// must plug in as it is (compiled here, every member, so that the TLS listener needs only to
// construct one).
template class benchgate::router::http2::Connection<benchgate::router::net::TlsStream>;
