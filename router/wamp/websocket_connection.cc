// WAMP over WebSocket (see websocket_connection.h).
#include "router/wamp/websocket_connection.h"

#include <algorithm>
#include <bit>
#include <chrono>

#include <boost/asio/post.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "router/wamp/core.h"

namespace benchgate::router::wamp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

// A read gets at least this much room; the buffer doubles when less is left.
constexpr size_t kMinRead = 4096;
constexpr auto kCloseTimeout = std::chrono::seconds(2);

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The WAMP thread's spare message buffer (at most memory::kSpareBufferBytes): a connection
// whose message outgrows its first read takes it, and gives it back once the message is
// handled, so that a stream of messages of some hundred KiB does not allocate its way up
// each time. WebSocket connections only run on the WAMP thread.
beast::flat_buffer& thread_spare_message() {
  thread_local beast::flat_buffer spare;
  return spare;
}

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

WebSocketConnection::WebSocketConnection(asio::ip::tcp::socket socket, WampCore& core)
    : ws_(std::move(socket)),
      core_(core),
      timer_(ws_.get_executor()),
      buffer_budget_(core.options().buffer_budget.get(), memory::BudgetUser::websocket),
      max_message_(core.options().max_message_bytes),
      queue_(core.options().max_queued_bytes, core.frames(), memory::BudgetUser::websocket) {
  ++core_.stats().connections_open[static_cast<size_t>(metrics::WampTransport::websocket)];
}

WebSocketConnection::~WebSocketConnection() {
  finish();
  --core_.stats().connections_open[static_cast<size_t>(metrics::WampTransport::websocket)];
}

void WebSocketConnection::start() {
  timer_.expires_after(std::chrono::nanoseconds(core_.options().handshake_timeout_ns));
  timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec && !self->session_) self->finish();
  });
  upgrade_.emplace();
  upgrade_->header_limit(16 * 1024);
  http::async_read(
      ws_.next_layer(), buffer_, *upgrade_,
      [self = shared_from_this()](const error_code& ec, size_t) { self->on_upgrade_request(ec); });
}

void WebSocketConnection::shutdown() {
  error_code ignored;
  beast::get_lowest_layer(ws_).close(ignored);
  timer_.cancel();
}

void WebSocketConnection::on_upgrade_request(const error_code& ec) {
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
  if (!core_.admit()) {
    ++core_.stats()
          .counters.connections_rejected[static_cast<size_t>(metrics::WampTransport::websocket)];
    return refuse(503, "too many WAMP sessions\n");
  }
  admitted_ = true;
  subprotocol_ = std::string(subprotocol(*serializer));
  session_.emplace(core_, *this, *serializer);
  ws_.set_option(websocket::stream_base::decorator([this](websocket::response_type& response) {
    response.set(http::field::sec_websocket_protocol, subprotocol_);
    response.set(http::field::server, "benchgate-router");
  }));
  // Sizes are checked here, piece by piece (see the header); Beast's own limit is off.
  ws_.read_message_max(0);
  ws_.auto_fragment(false);
  ws_.text(*serializer == Serializer::kJson);
  ws_.async_accept(request, [self = shared_from_this()](const error_code& accept_ec) {
    self->on_accept(accept_ec);
  });
}

void WebSocketConnection::refuse(unsigned status, std::string body) {
  refusal_.emplace(static_cast<http::status>(status), upgrade_ ? upgrade_->get().version() : 11);
  refusal_->set(http::field::server, "benchgate-router");
  refusal_->set(http::field::content_type, "text/plain");
  refusal_->keep_alive(false);
  refusal_->body() = std::move(body);
  refusal_->prepare_payload();
  http::async_write(ws_.next_layer(), *refusal_,
                    [self = shared_from_this()](const error_code&, size_t) { self->finish(); });
}

void WebSocketConnection::on_accept(const error_code& ec) {
  if (ec || finished_) return finish();
  timer_.cancel();
  upgrade_.reset();
  buffer_.consume(buffer_.size());
  do_read();
}

void WebSocketConnection::do_read() {
  if (closing_ || finished_) return;
  if (!make_room()) {
    close_code_ = websocket::close_code::too_big;
    return session_->on_over_budget(std::bit_ceil(buffer_.size() + kMinRead));
  }
  // Beast never grows the buffer itself: each read is limited to the room there is.
  ws_.async_read_some(
      buffer_, buffer_.capacity() - buffer_.size(),
      [self = shared_from_this()](const error_code& ec, size_t) { self->on_read(ec); });
}

bool WebSocketConnection::make_room() {
  if (buffer_.capacity() - buffer_.size() >= kMinRead) return true;
  // Doubling keeps copies logarithmic; past the largest message there is no need to grow
  // further (one byte more is enough to see that it is too large).
  const size_t needed = buffer_.size() + kMinRead;
  beast::flat_buffer bigger;
  beast::flat_buffer& spare = thread_spare_message();
  // A message under way that outgrows its buffer takes the thread's spare when it is larger.
  if (buffer_.size() > 0 && spare.capacity() >= needed && buffer_budget_.resize(spare.capacity())) {
    std::swap(bigger, spare);
  } else {
    const size_t capacity =
        std::min(std::bit_ceil(needed), std::max<size_t>(needed, max_message_ + kMinRead));
    if (!buffer_budget_.resize(capacity)) return false;
    // A new buffer of exactly that capacity (flat_buffer's own growth could double past it).
    bigger.reserve(capacity);
  }
  bigger.commit(asio::buffer_copy(bigger.prepare(buffer_.size()), buffer_.data()));
  buffer_ = std::move(bigger);
  return true;
}

void WebSocketConnection::on_read(const error_code& ec) {
  if (ec || finished_) return finish();
  if (buffer_.size() > max_message_) {
    session_->on_oversize(buffer_.size(), max_message_);
    return;
  }
  if (ws_.is_message_done()) {
    const auto data = buffer_.data();
    session_->on_message(
        std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()));
    buffer_.consume(buffer_.size());
    // A large message's buffer is not kept by the connection: the thread keeps the larger
    // one up to kSpareBufferBytes, the rest is freed; its bytes go back to the budget.
    if (buffer_.capacity() > memory::kUnbudgetedBytes) {
      beast::flat_buffer& spare = thread_spare_message();
      if (buffer_.capacity() <= memory::kSpareBufferBytes &&
          spare.capacity() < buffer_.capacity()) {
        std::swap(buffer_, spare);
      }
      buffer_ = beast::flat_buffer();
      buffer_budget_.resize(0);
    }
  }
  do_read();
}

SendResult WebSocketConnection::send(Frame frame) {
  if (closing_ || finished_) return SendResult::closed;
  if (frame->size() > max_message_) return SendResult::too_large;
  if (!queue_.fits(frame->size())) {
    drop_session(/*slow_consumer=*/true);
    return SendResult::closed;
  }
  if (!queue_.push(std::move(frame))) {
    drop_session(/*slow_consumer=*/false);
    return SendResult::closed;
  }
  if (!writing_) {
    writing_ = true;
    do_write();
  }
  return SendResult::sent;
}

void WebSocketConnection::do_write() {
  if (finished_) return;
  if (queue_.empty()) {
    writing_ = false;
    if (closing_) begin_close();
    return;
  }
  const Frame& frame = queue_.frame(0);
  ws_.async_write(
      asio::buffer(frame->data(), frame->size()),
      [self = shared_from_this()](const error_code& ec, size_t) { self->on_write(ec); });
}

void WebSocketConnection::on_write(const error_code& ec) {
  if (ec || finished_ || dropped_) return finish();
  queue_.pop();
  do_write();
}

void WebSocketConnection::close_after_flush() {
  if (closing_ || finished_) return;
  closing_ = true;
  if (!writing_) begin_close();
}

void WebSocketConnection::begin_close() {
  timer_.expires_after(kCloseTimeout);
  timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->finish();
  });
  ws_.async_close(close_code_, [self = shared_from_this()](const error_code&) { self->finish(); });
}

void WebSocketConnection::drop_session(bool slow_consumer) {
  if (slow_consumer) {
    ++core_.stats().counters.drops[static_cast<size_t>(metrics::DropReason::slow_consumer)];
  }
  closing_ = true;
  dropped_ = true;
  error_code ignored;
  beast::get_lowest_layer(ws_).close(ignored);
  // Never from inside send(): the session may be in the middle of a fan-out.
  asio::post(ws_.get_executor(), [self = shared_from_this()] { self->finish(); });
}

void WebSocketConnection::finish() {
  if (finished_) return;
  finished_ = true;
  if (session_) session_->on_transport_closed();
  if (admitted_) core_.release();
  admitted_ = false;
  error_code ignored;
  beast::get_lowest_layer(ws_).close(ignored);
  timer_.cancel();
}

}  // namespace benchgate::router::wamp
