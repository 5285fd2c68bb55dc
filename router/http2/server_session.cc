// HTTP/2 server protocol state on nghttp2 (see server_session.h).
#include "router/http2/server_session.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include <boost/beast/http/verb.hpp>

#include "common/time/clock.h"
#include "router/http/body_buffer.h"
#include "router/http/responses.h"
#include "router/http2/thread_pool_mem.h"
#include "router/memory/buffer_budget.h"
#include "router/metrics/inject_work.h"

namespace benchgate::router::http2 {

namespace {
// What a stream's request and answer set; back to these defaults when its state is reused.
struct StreamState {
  int32_t id = 0;
  boost::beast::http::verb method = boost::beast::http::verb::unknown;
  uint64_t header_bytes = 0;
  http::Dispatch dispatch;
  bool dispatched = false;
  bool answered = false;
  int64_t parsed_ns = 0;
  // The response body: `data` (or the pattern when `pattern`), from `offset`.
  const char* data = nullptr;
  bool pattern = false;
  uint64_t offset = 0;
  uint64_t remaining = 0;
  // What the echo body has been trusted with (router/http/body_buffer.h).
  http::BodyTrust body_trust;
  char status[4] = {};
  char content_length[24] = {};
};
}  // namespace

struct ServerSession::Stream : StreamState {
  explicit Stream(memory::BufferBudget* budget) : body_budget(budget, memory::BudgetUser::http) {}
  std::string path;  // :path, capacity kept across streams
  // The echo body, or an error answer's text: kept up to memory::kUnbudgetedBytes across
  // streams; a larger one is one of the thread's spare body buffers, or goes to them when the
  // stream ends.
  std::string body;
  // The body's trusted capacity past memory::kUnbudgetedBytes, in --max-buffered-bytes.
  memory::Reservation body_budget;
};

namespace {

using boost::beast::http::verb;

ServerSession* self(void* user_data) { return static_cast<ServerSession*>(user_data); }

nghttp2_nv header(std::string_view name, std::string_view value) {
  // Names and values live as long as the stream (static text, or the Stream's own buffers).
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

// The callbacks are the same for every connection: built once.
nghttp2_session_callbacks* callbacks() {
  static nghttp2_session_callbacks* const built = [] {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_send_callback(
        cb, [](nghttp2_session*, const uint8_t* data, size_t length, int, void* user) {
          return self(user)->on_send(data, length);
        });
    nghttp2_session_callbacks_set_send_data_callback(
        cb, [](nghttp2_session*, nghttp2_frame* frame, const uint8_t* head, size_t length,
               nghttp2_data_source* source, void* user) {
          return self(user)->on_send_data(*frame, head, length,
                                          *static_cast<ServerSession::Stream*>(source->ptr));
        });
    nghttp2_session_callbacks_set_on_begin_frame_callback(
        cb, [](nghttp2_session*, const nghttp2_frame_hd* hd, void* user) {
          return self(user)->on_begin_frame(*hd);
        });
    nghttp2_session_callbacks_set_on_begin_headers_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          return self(user)->on_begin_headers(*frame);
        });
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
               const uint8_t* value, size_t valuelen, uint8_t, void* user) {
          return self(user)->on_header(*frame, name, namelen, value, valuelen);
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          return self(user)->on_frame_recv(*frame);
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
               void* user) { return self(user)->on_data_chunk(stream_id, data, len); });
    nghttp2_session_callbacks_set_on_frame_send_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* frame, void* user) {
          return self(user)->on_frame_send(*frame);
        });
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cb, [](nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user) {
          return self(user)->on_stream_close(stream_id, error_code);
        });
    return cb;
  }();
  return built;
}

ssize_t read_body_trampoline(nghttp2_session*, int32_t, uint8_t*, size_t length, uint32_t* flags,
                             nghttp2_data_source* source, void* user) {
  return self(user)->read_body(*static_cast<ServerSession::Stream*>(source->ptr), length, flags);
}

}  // namespace

ServerSession::ServerSession(const http::ServerOptions& options, metrics::ThreadStats& stats)
    : options_(options),
      limits_(options.http2),
      route_limits_(options.route_limits()),
      stats_(stats),
      reset_tokens_(options.http2.reset_burst) {
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  // HPACK: our encoder's table stays at the default 4 KiB whatever the client allows.
  nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096);
  // nghttp2's per-stream allocations come from the thread's pool (thread_pool_mem.h).
  nghttp2_session_server_new3(&session_, callbacks(), this, option, thread_pool_mem());
  nghttp2_option_del(option);

  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.max_concurrent_streams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits_.initial_window_bytes},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, limits_.max_header_list_bytes},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  const uint64_t connection_window =
      std::min<uint64_t>(uint64_t{limits_.initial_window_bytes} * limits_.max_concurrent_streams,
                         static_cast<uint64_t>(std::numeric_limits<int32_t>::max()));
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                        static_cast<int32_t>(connection_window));
  ++stats_.counters.h2.connections;
}

ServerSession::~ServerSession() { nghttp2_session_del(session_); }

bool ServerSession::receive(const uint8_t* data, size_t size, int64_t now_ns) {
  now_ns_ = now_ns;
  const ssize_t used = nghttp2_session_mem_recv(session_, data, size);
  // A defence that stopped reading returned a callback failure after queueing its GOAWAY,
  // which fill() still writes.
  return used >= 0 || terminated_;
}

bool ServerSession::fill(std::string& out, size_t flush_bytes) {
  out_ = &out;
  flush_bytes_ = flush_bytes;
  const int rv = nghttp2_session_send(session_);
  out_ = nullptr;
  // EOF: a GOAWAY that ends the session was sent; what it appended still goes out.
  if (rv == NGHTTP2_ERR_EOF) ended_ = true;
  return rv == 0 || rv == NGHTTP2_ERR_EOF;
}

bool ServerSession::done() const {
  return ended_ ||
         (nghttp2_session_want_read(session_) == 0 && nghttp2_session_want_write(session_) == 0);
}

int64_t ServerSession::next_delay_ns() const {
  int64_t earliest = 0;
  for (const auto& [at, stream] : delayed_) {
    if (earliest == 0 || at < earliest) earliest = at;
  }
  return earliest;
}

void ServerSession::answer_due_delays(int64_t now_ns) {
  for (size_t i = 0; i < delayed_.size();) {
    auto [at, stream] = delayed_[i];
    if (at > now_ns) {
      ++i;
      continue;
    }
    delayed_[i] = delayed_.back();
    delayed_.pop_back();
    submit(*stream, 200, {}, nullptr, 0, false);
  }
}

void ServerSession::shut_down() {
  terminated_ = true;
  nghttp2_session_terminate_session(session_, NGHTTP2_NO_ERROR);
}

int ServerSession::calm_down(uint64_t& counter) {
  if (!terminated_) ++counter;
  terminated_ = true;
  nghttp2_session_terminate_session(session_, NGHTTP2_ENHANCE_YOUR_CALM);
  return NGHTTP2_ERR_CALLBACK_FAILURE;
}

ServerSession::Stream* ServerSession::stream_of(int32_t stream_id) const {
  return static_cast<Stream*>(nghttp2_session_get_stream_user_data(session_, stream_id));
}

ServerSession::Stream& ServerSession::acquire() {
  if (free_streams_.empty()) {
    streams_.push_back(std::make_unique<Stream>(options_.buffer_budget.get()));
    free_streams_.push_back(streams_.back().get());
  }
  Stream* stream = free_streams_.back();
  free_streams_.pop_back();
  ++open_streams_;
  return *stream;
}

void ServerSession::release(Stream* stream) {
  --open_streams_;
  static_cast<StreamState&>(*stream) = StreamState{};
  stream->path.clear();
  stream->body.clear();
  // A buffer past memory::kUnbudgetedBytes goes to the thread's spares (or is freed) and the
  // budget gets its bytes back; a smaller one stays with the stream state.
  http::release_body_buffer(stream->body, stream->body_budget);
  free_streams_.push_back(stream);
}

int ServerSession::on_begin_frame(const nghttp2_frame_hd& hd) {
  if (hd.type == NGHTTP2_HEADERS) {
    block_bytes_ = hd.length;
    continuations_ = 0;
  } else if (hd.type == NGHTTP2_CONTINUATION) {
    block_bytes_ += hd.length;
    if (++continuations_ > limits_.max_continuations) {
      return calm_down(stats_.counters.h2.continuation_flood_closes);
    }
  } else {
    return 0;
  }
  if (block_bytes_ > limits_.max_header_list_bytes) {
    return calm_down(stats_.counters.h2.header_list_closes);
  }
  return 0;
}

int ServerSession::on_begin_headers(const nghttp2_frame& frame) {
  if (frame.hd.type != NGHTTP2_HEADERS || frame.headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  Stream& stream = acquire();
  stream.id = frame.hd.stream_id;
  nghttp2_session_set_stream_user_data(session_, frame.hd.stream_id, &stream);
  ++stats_.counters.h2.streams;
  return 0;
}

int ServerSession::on_header(const nghttp2_frame& frame, const uint8_t* name, size_t name_size,
                             const uint8_t* value, size_t value_size) {
  Stream* stream = stream_of(frame.hd.stream_id);
  if (stream == nullptr) return 0;
  // RFC 9113 6.5.2: each field counts its name, its value and 32 bytes. HPACK can make a small
  // block decode into a huge list (a bomb); this bounds what the decoder hands us.
  stream->header_bytes += name_size + value_size + 32;
  if (stream->header_bytes > limits_.max_header_list_bytes) {
    return calm_down(stats_.counters.h2.header_list_closes);
  }
  const std::string_view field(reinterpret_cast<const char*>(name), name_size);
  const std::string_view text(reinterpret_cast<const char*>(value), value_size);
  if (field == ":method") {
    stream->method = boost::beast::http::string_to_verb(text);
  } else if (field == ":path") {
    stream->path.assign(text);
  }
  return 0;
}

int ServerSession::on_frame_recv(const nghttp2_frame& frame) {
  switch (frame.hd.type) {
    case NGHTTP2_RST_STREAM: {
      ++stats_.counters.h2.client_resets;
      // Rapid reset: refill the bucket for the time passed, then take one token.
      const double burst = limits_.reset_burst;
      reset_tokens_ =
          std::min(burst, reset_tokens_ + static_cast<double>(now_ns_ - reset_refilled_ns_) * 1e-9 *
                                              limits_.reset_rate_per_s);
      reset_refilled_ns_ = now_ns_;
      reset_tokens_ -= 1;
      if (reset_tokens_ < 0) return calm_down(stats_.counters.h2.rapid_reset_closes);
      return 0;
    }
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
      break;
    default:
      return 0;
  }
  Stream* stream = stream_of(frame.hd.stream_id);
  if (stream == nullptr || stream->answered) return 0;
  if (frame.hd.type == NGHTTP2_HEADERS && !stream->dispatched) {
    stream->dispatch = http::dispatch(stream->method, stream->path, route_limits_);
    stream->dispatched = true;
  }
  if ((frame.hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) respond(*stream);
  return 0;
}

void ServerSession::drop_body(Stream& stream) {
  // A refused body's bytes are dropped as they come: its buffer and budget are given back now,
  // not when the client ends the stream. The buffer goes to the thread's spares (it may have
  // been one) or is freed (http::SpareBodies::give_back).
  stream.body.clear();
  http::SpareBodies::give_back(stream.body);
  (void)stream.body_budget.resize(0);
}

int ServerSession::on_data_chunk(int32_t stream_id, const uint8_t* data, size_t size) {
  Stream* stream = stream_of(stream_id);
  if (stream == nullptr || stream->answered || stream->dispatch.action != http::Action::kEcho) {
    return 0;
  }
  const size_t needed = stream->body.size() + size;
  if (needed > options_.max_body_bytes) {
    // As HTTP/1.1: 413 at once; what the client still sends on the stream is dropped.
    ++stats_.counters.parse_errors;
    stream->dispatch = http::Dispatch{http::Route::kEcho, http::Action::kError, 413, 0};
    drop_body(*stream);
    respond(*stream);
    return 0;
  }
  // As an HTTP/1.1 chunked body (router/http/body_buffer.h): a stream state that kept no buffer
  // starts in the thread's largest spare, and the budget covers what the bytes make trusted before
  // the buffer grows: every stream of every connection draws on the one --max-buffered-bytes.
  if (needed > stream->body_trust.trusted() &&
      !stream->body_trust.trust_piece(stream->body, stream->body_budget, needed,
                                      options_.max_body_bytes)) {
    // As HTTP/1.1: 503, the request was sound and the router has no room for its body
    // (counted by the budget, not as a parse error); the stream's other bytes are dropped.
    stream->dispatch = http::Dispatch{http::Route::kEcho, http::Action::kError, 503, 0};
    drop_body(*stream);
    respond(*stream);
    return 0;
  }
  stream->body.append(reinterpret_cast<const char*>(data), size);
  return 0;
}

int ServerSession::on_frame_send(const nghttp2_frame& frame) {
  if (frame.hd.type == NGHTTP2_RST_STREAM) {
    if (frame.rst_stream.error_code == NGHTTP2_REFUSED_STREAM) ++stats_.counters.h2.streams_refused;
    if (frame.rst_stream.error_code == NGHTTP2_FLOW_CONTROL_ERROR) {
      ++stats_.counters.h2.flow_control_resets;
    }
  }
  if (frame.hd.type == NGHTTP2_GOAWAY && frame.goaway.error_code != NGHTTP2_NO_ERROR &&
      !terminated_) {
    // nghttp2's own GOAWAY: the client broke the protocol (its flow control, or otherwise).
    terminated_ = true;
    if (frame.goaway.error_code == NGHTTP2_FLOW_CONTROL_ERROR) {
      ++stats_.counters.h2.flow_control_closes;
    } else {
      ++stats_.counters.h2.protocol_error_closes;
    }
  }
  return 0;
}

int ServerSession::on_stream_close(int32_t stream_id, uint32_t error_code) {
  Stream* stream = stream_of(stream_id);
  if (stream == nullptr) return 0;
  if (stream->answered && error_code == NGHTTP2_NO_ERROR && stream->remaining == 0) {
    stats_.handling.record(steady_now_ns() - stream->parsed_ns);
  }
  for (size_t i = 0; i < delayed_.size(); ++i) {
    if (delayed_[i].second == stream) {
      delayed_[i] = delayed_.back();
      delayed_.pop_back();
      break;
    }
  }
  nghttp2_session_set_stream_user_data(session_, stream_id, nullptr);
  release(stream);
  return 0;
}

void ServerSession::respond(Stream& stream) {
  stream.answered = true;
  stream.parsed_ns = now_ns_ != 0 ? now_ns_ : steady_now_ns();
  if (!stream.dispatched) {
    stream.dispatch = http::dispatch(stream.method, stream.path, route_limits_);
    stream.dispatched = true;
  }
  const http::Dispatch& dispatch = stream.dispatch;
  stats_.counters.count_request(dispatch.route, dispatch.status);
  metrics::inject_work(options_.inject_work_ns);
  switch (dispatch.action) {
    case http::Action::kHello:
      return submit(stream, 200, "text/plain", http::kHelloBody.data(), http::kHelloBody.size(),
                    false);
    case http::Action::kBytes:
      return submit(stream, 200, "text/plain", nullptr, dispatch.param, true);
    case http::Action::kEcho:
      return submit(stream, 200, "application/octet-stream", stream.body.data(), stream.body.size(),
                    false);
    case http::Action::kDelay:
      delayed_.emplace_back(stream.parsed_ns + static_cast<int64_t>(dispatch.param) * 1'000'000,
                            &stream);
      return;
    case http::Action::kError:
      stream.body.assign(http::reason_phrase(dispatch.status));
      stream.body.push_back('\n');
      return submit(stream, dispatch.status, "text/plain", stream.body.data(), stream.body.size(),
                    false);
  }
}

void ServerSession::submit(Stream& stream, int status, std::string_view content_type,
                           const char* data, uint64_t length, bool pattern) {
  stream.data = data;
  stream.pattern = pattern;
  stream.offset = 0;
  stream.remaining = length;
  std::to_chars(stream.status, stream.status + 3, status);
  const auto digits = std::to_chars(stream.content_length,
                                    stream.content_length + sizeof(stream.content_length), length);
  nghttp2_nv fields[5];
  size_t count = 0;
  fields[count++] = header(":status", std::string_view(stream.status, 3));
  fields[count++] = header("server", "benchgate-router");
  if (!content_type.empty()) fields[count++] = header("content-type", content_type);
  fields[count++] = header(
      "content-length", std::string_view(stream.content_length,
                                         static_cast<size_t>(digits.ptr - stream.content_length)));
  if (status == 405) {
    fields[count++] = header("allow", stream.dispatch.route == http::Route::kEcho ? "POST" : "GET");
  }
  nghttp2_data_provider provider{};
  provider.source.ptr = &stream;
  provider.read_callback = read_body_trampoline;
  nghttp2_submit_response(session_, stream.id, fields, count, length > 0 ? &provider : nullptr);
}

ssize_t ServerSession::read_body(Stream& stream, size_t length, uint32_t* flags) {
  uint64_t most = length;
  // A client may allow frames up to 16 MiB; the pattern goes out from one block.
  if (stream.pattern) most = std::min<uint64_t>(most, http::pattern_block().size() - 26);
  const size_t piece = static_cast<size_t>(std::min<uint64_t>(most, stream.remaining));
  *flags |= NGHTTP2_DATA_FLAG_NO_COPY;
  if (piece == stream.remaining) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(piece);
}

void ServerSession::make_room(size_t bytes) {
  const size_t needed = out_->size() + bytes;
  if (needed <= out_->capacity()) return;
  // std::string grows to twice its capacity at least (libstdc++): a growth that would pass
  // flush_bytes_ goes to room for any batch at once.
  if (std::max(needed, 2 * out_->capacity()) <= flush_bytes_) return;
  out_->reserve(std::max(needed, max_fill_bytes(flush_bytes_)));
}

ssize_t ServerSession::on_send(const uint8_t* data, size_t size) {
  if (out_->size() >= flush_bytes_) return NGHTTP2_ERR_WOULDBLOCK;
  make_room(size);
  out_->append(reinterpret_cast<const char*>(data), size);
  return static_cast<ssize_t>(size);
}

int ServerSession::on_send_data(nghttp2_frame& frame, const uint8_t* frame_head, size_t length,
                                Stream& stream) {
  (void)frame;  // no padding is ever asked for
  if (out_->size() >= flush_bytes_) return NGHTTP2_ERR_WOULDBLOCK;
  make_room(kFrameHeadBytes + length);
  out_->append(reinterpret_cast<const char*>(frame_head), kFrameHeadBytes);
  if (stream.pattern) {
    // The block is whole periods of the pattern and longer than a frame plus one period.
    const std::string_view block = http::pattern_block();
    out_->append(block.data() + stream.offset % 26, length);
  } else {
    out_->append(stream.data + stream.offset, length);
  }
  stream.offset += length;
  stream.remaining -= length;
  return 0;
}

}  // namespace benchgate::router::http2
