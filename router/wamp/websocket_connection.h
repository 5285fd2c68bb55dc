// One WAMP-over-WebSocket connection (Boost.Beast): the HTTP upgrade with WAMP subprotocol
// negotiation (wamp.2.json as text frames, wamp.2.msgpack and wamp.2.cbor as binary), one
// WAMP message per WebSocket message, and the WAMP session it carries. Beast answers pings.
//
// Messages are read piecewise so that one larger than --max-message-bytes is answered with
// ABORT (wamp.error.protocol_violation) before the close, not only with close code 1009. The
// read buffer grows within the buffered-bytes budget (reserved before it grows) to what the
// frame under way still announces (Beast's read_size_hint), at most 16 times the bytes
// received at each step, so that a large frame is read straight into its place; past the
// budget the session is aborted and the close code is 1009. A buffer grown past
// 64 KiB is freed once its message is handled. Counters, timers, the queue and the close are
// the shared lifecycle's (transport_connection.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "router/memory/buffer_budget.h"
#include "router/net/stream.h"
#include "router/wamp/transport_connection.h"
#include "router/wamp/websocket_frames.h"

namespace benchgate::router::wamp {

// The first WAMP subprotocol the router supports in a Sec-WebSocket-Protocol list, in the
// client's order of preference.
std::optional<Serializer> choose_subprotocol(std::string_view offered);

// Frames are counted on the wire under Beast's WebSocket layer, over TCP or TLS.
template <typename Socket>
using WebSocketStream = boost::beast::websocket::stream<FrameCountingStream<Socket>>;

// Socket: net::Stream, or net::TlsStream for wss.
template <typename Socket>
class WebSocketConnection final
    : public TransportConnection<WebSocketConnection<Socket>, WebSocketStream<Socket>> {
 public:
  WebSocketConnection(Socket socket, WampCore& core);
  ~WebSocketConnection() override;

 private:
  using Base = TransportConnection<WebSocketConnection<Socket>, WebSocketStream<Socket>>;
  friend Base;
  using Base::admit;
  using Base::arm_close_timer;
  using Base::closing_;
  using Base::core_;
  using Base::finish;
  using Base::finished_;
  using Base::handshake_done;
  using Base::max_out_;
  using Base::on_written;
  using Base::queue_;
  using Base::schedule_write;
  using Base::session_;
  using Base::start_write;
  using Base::stopped;
  using Base::stream_;
  using typename Base::error_code;
  static constexpr uint8_t kMessageTag = 0;

  // The lifecycle's hooks.
  void begin_handshake();
  void queued() { start_write(); }
  void write_queued();
  // The WebSocket closing handshake, with close_code_.
  void close_flushed();

  void on_upgrade_request(const error_code& ec);
  // Answers the upgrade request with a plain HTTP error and closes.
  void refuse(unsigned status, std::string body);
  void on_accept(const error_code& ec);
  void do_read();
  // The capacity the next read wants: the rest of the frame under way, within bounds.
  size_t room_wanted() const;
  // Room for the next read; false when the budget cannot hold the larger buffer.
  bool make_room();
  void on_read(const error_code& ec);

  boost::beast::flat_buffer buffer_;
  memory::Reservation buffer_budget_;  // buffer_'s capacity past kUnbudgetedBytes
  boost::beast::websocket::close_code close_code_ = boost::beast::websocket::close_code::normal;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> upgrade_;
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> refusal_;
  std::string subprotocol_;
  uint64_t max_message_ = 0;
};

extern template class WebSocketConnection<net::Stream>;
extern template class WebSocketConnection<net::TlsStream>;

}  // namespace benchgate::router::wamp
