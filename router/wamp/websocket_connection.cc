// WAMP over WebSocket (see websocket_connection.h).
#include "router/wamp/websocket_connection.h"

#include <algorithm>
#include <chrono>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "common/util/thread_spare.h"

namespace benchgate::router::wamp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

// A read gets at least this much room.
constexpr size_t kMinRead = 4096;

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The WAMP thread's spare message buffer (common/util/thread_spare.h, at most
// memory::kSpareBufferBytes): a connection whose message outgrows its first read takes it,
// and gives it back once the message is handled, so that a stream of messages of some
// hundred KiB does not allocate its way up each time. WebSocket connections only run on the
// WAMP thread.
struct MessageTag {};
using SpareMessage = ThreadSpare<MessageTag, beast::flat_buffer>;

}  // namespace

std::optional<Serializer> choose_subprotocol(std::string_view offered) {
  while (!offered.empty()) {
    const size_t comma = offered.find(',');
    const std::string_view item = trim(offered.substr(0, comma));
    if (auto serializer = serializer_for_subprotocol(item)) return serializer;
    if (comma == std::string_view::npos) break;
    offered.remove_prefix(comma + 1);
  }
  return std::nullopt;
}

template <typename Socket>
WebSocketConnection<Socket>::WebSocketConnection(Socket socket, WampCore& core)
    : Base(std::move(socket), core, metrics::WampTransport::websocket,
           memory::BudgetUser::websocket),
      buffer_budget_(core.options().buffer_budget.get(), memory::BudgetUser::websocket),
      max_message_(core.options().max_message_bytes) {
  max_out_ = max_message_;
}

template <typename Socket>
WebSocketConnection<Socket>::~WebSocketConnection() = default;

template <typename Socket>
void WebSocketConnection<Socket>::begin_handshake() {
  upgrade_.emplace();
  upgrade_->header_limit(16 * 1024);
  http::async_read(stream_.next_layer(), buffer_, *upgrade_,
                   [self = this->shared_from_this()](const error_code& ec, size_t) {
                     self->on_upgrade_request(ec);
                   });
}

template <typename Socket>
void WebSocketConnection<Socket>::on_upgrade_request(const error_code& ec) {
  if (ec || finished_) return finish();
  const auto& request = upgrade_->get();
  if (!websocket::is_upgrade(request)) {
    return refuse(400, "this port speaks WAMP over WebSocket only\n");
  }
  const auto serializer = choose_subprotocol(request[http::field::sec_websocket_protocol]);
  if (!serializer) {
    return refuse(400,
                  "no supported WAMP subprotocol (wamp.2.json, wamp.2.msgpack, wamp.2.cbor)\n");
  }
  if (!admit()) return refuse(503, "too many WAMP sessions\n");
  subprotocol_ = std::string(subprotocol(*serializer));
  session_.emplace(core_, *this, *serializer);
  stream_.set_option(websocket::stream_base::decorator([this](websocket::response_type& response) {
    response.set(http::field::sec_websocket_protocol, subprotocol_);
    response.set(http::field::server, "benchgate-router");
  }));
  // Sizes are checked here, piece by piece (see the header); Beast's own limit is off.
  stream_.read_message_max(0);
  const uint64_t fragment = core_.options().ws_fragment_bytes;
  stream_.auto_fragment(fragment > 0);
  if (fragment > 0) stream_.write_buffer_bytes(fragment);
  stream_.text(*serializer == Serializer::kJson);
  stream_.async_accept(request, [self = this->shared_from_this()](const error_code& accept_ec) {
    self->on_accept(accept_ec);
  });
}

template <typename Socket>
void WebSocketConnection<Socket>::refuse(unsigned status, std::string body) {
  refusal_.emplace(static_cast<http::status>(status), upgrade_ ? upgrade_->get().version() : 11);
  refusal_->set(http::field::server, "benchgate-router");
  refusal_->set(http::field::content_type, "text/plain");
  refusal_->keep_alive(false);
  refusal_->body() = std::move(body);
  refusal_->prepare_payload();
  http::async_write(
      stream_.next_layer(), *refusal_,
      [self = this->shared_from_this()](const error_code&, size_t) { self->finish(); });
}

template <typename Socket>
void WebSocketConnection<Socket>::on_accept(const error_code& ec) {
  if (ec || finished_) return finish();
  // Every byte from here on is a WebSocket frame (the 101 response was the last that is not).
  stream_.next_layer().start_scanning(core_.stats().counters);
  stream_.next_layer().observe_reads(this);
  upgrade_.reset();
  buffer_.consume(buffer_.size());
  do_read();
}

template <typename Socket>
void WebSocketConnection<Socket>::queued() {
  if (!hold_writes()) return start_write();
  if (writing_) return;
  writing_ = true;  // the write is due: a close waits for it
  write_held_ = true;
}

template <typename Socket>
bool WebSocketConnection<Socket>::take_held_write() {
  if (!write_held_) return false;
  write_held_ = false;
  writing_ = false;
  return true;
}

template <typename Socket>
void WebSocketConnection<Socket>::release_held_write() {
  if (take_held_write()) start_write();
}

template <typename Socket>
void WebSocketConnection<Socket>::reading_from_socket() {
  messages_handled_ = stream_.next_layer().messages_read();
  if (take_held_write()) schedule_write();  // posted: not from inside Beast's read
}

template <typename Socket>
void WebSocketConnection<Socket>::do_read() {
  if (stopped()) return release_held_write();
  if (!make_room()) {
    close_code_ = websocket::close_code::too_big;
    session_->on_over_budget(room_wanted());
    return release_held_write();
  }
  // Beast never grows the buffer itself: each read is limited to the room there is.
  stream_.async_read_some(buffer_, buffer_.capacity() - buffer_.size(),
                          pooled([self = this->shared_from_this()](const error_code& ec, size_t) {
                            self->on_read(ec);
                          }));
}

template <typename Socket>
size_t WebSocketConnection<Socket>::room_wanted() const {
  // Once a frame's header is read, Beast knows how many payload bytes of that frame are still
  // to come: the message buffer grows to hold them all at once, so that a large message is
  // read straight into its place instead of through the copies of a doubling buffer. What
  // the header announces is trusted up to 16 times the bytes received so far plus a read
  // (memory::trusted_capacity, as a RawSocket frame's length is); past the largest message
  // there is no need to grow further (one byte more is enough to see that it is too large).
  const size_t held = buffer_.size();
  const size_t frame = std::max(kMinRead, stream_.read_size_hint(kMinRead));
  const size_t announced =
      std::min(held + frame, std::max<size_t>(held + kMinRead, max_message_ + kMinRead));
  return static_cast<size_t>(memory::trusted_capacity(held, announced));
}

template <typename Socket>
bool WebSocketConnection<Socket>::make_room() {
  const size_t target = room_wanted();
  if (buffer_.capacity() >= target) return true;
  beast::flat_buffer bigger;
  // A message under way that outgrows its buffer takes the thread's spare when it is larger.
  const size_t spare = SpareMessage::get().capacity();
  if (buffer_.size() > 0 && spare >= target && buffer_budget_.resize(spare)) {
    SpareMessage::lend(bigger);
  } else {
    if (!buffer_budget_.resize(target)) return false;
    // A new buffer of exactly that capacity (flat_buffer's own growth could double past it).
    bigger.reserve(target);
  }
  bigger.commit(asio::buffer_copy(bigger.prepare(buffer_.size()), buffer_.data()));
  buffer_ = std::move(bigger);
  return true;
}

template <typename Socket>
void WebSocketConnection<Socket>::on_read(const error_code& ec) {
  if (ec || finished_) return finish();
  if (buffer_.size() > max_message_) {
    session_->on_oversize(buffer_.size(), max_message_);
    return release_held_write();
  }
  if (stream_.is_message_done()) {
    ++messages_handled_;
    const auto data = buffer_.data();
    session_->on_message(
        std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()));
    buffer_.consume(buffer_.size());
    // A large message's buffer is not kept by the connection: the thread keeps the larger
    // one up to kSpareBufferBytes, the rest is freed; its bytes go back to the budget.
    if (buffer_.capacity() > memory::kUnbudgetedBytes) {
      SpareMessage::give_back(buffer_, memory::kSpareBufferBytes);
      buffer_budget_.resize(0);
    }
    if (!more_buffered()) release_held_write();
    track_partial_message(false, false);
  } else {
    track_partial_message(true, false);  // the same message until it is done
  }
  do_read();
}

template <typename Socket>
void WebSocketConnection<Socket>::write_queued() {
  // Also when a write completes between two buffered messages: what they are answered with
  // goes out together, once the connection has handled them all.
  if (hold_writes()) {
    write_held_ = true;
    return;
  }
  // Without --ws-fragment-bytes (Beast's auto_fragment) the connection may frame messages.
  if (!stream_.auto_fragment() && stream_.next_layer().frames_writable()) {
    return write_own_frames();
  }
  const Frame& frame = queue_.frame(0);
  stream_.async_write(asio::buffer(frame->data(), frame->size()),
                      pooled([self = this->shared_from_this()](const error_code& ec, size_t) {
                        self->on_written(ec, 1);
                      }));
}

template <typename Socket>
void WebSocketConnection<Socket>::write_own_frames() {
  const auto buffers =
      frames_.gather(queue_, [text = stream_.text()](const std::vector<uint8_t>& frame, uint8_t,
                                                     ServerFrameHeader& header) {
        header = server_frame_header(text, frame.size());
        return asio::buffer(header.bytes.data(), header.size);
      });
  // A view (a span), not a vector: the write operation keeps a copy of the buffer sequence it
  // is given, which would be a vector allocated per write.
  stream_.next_layer().async_write_frames(
      buffers, pooled([self = this->shared_from_this()](const error_code& ec, size_t) {
        self->on_written(ec, self->frames_.take_written());
      }));
}

template <typename Socket>
void WebSocketConnection<Socket>::close_flushed() {
  arm_close_timer();
  stream_.async_close(close_code_,
                      [self = this->shared_from_this()](const error_code&) { self->finish(); });
}

template class WebSocketConnection<net::Stream>;
template class WebSocketConnection<net::TlsStream>;

}  // namespace benchgate::router::wamp
