// One WAMP-over-WebSocket connection (Boost.Beast): the HTTP upgrade with WAMP subprotocol
// negotiation (wamp.2.json as text frames, wamp.2.msgpack and wamp.2.cbor as binary), one
// WAMP message per WebSocket message, and the WAMP session it carries. Beast answers pings.
//
// Messages are read piecewise so that one larger than --max-message-bytes is answered with
// ABORT (wamp.error.protocol_violation) before the close, not only with close code 1009. The
// read buffer grows by doubling within the buffered-bytes budget (reserved before it grows);
// past the budget the session is aborted and the close code is 1009. A buffer grown past
// 64 KiB is freed once its message is handled.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "router/memory/buffer_budget.h"
#include "router/wamp/connection.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {

class WampCore;

// The first WAMP subprotocol the router supports in a Sec-WebSocket-Protocol list, in the
// client's order of preference.
std::optional<Serializer> choose_subprotocol(std::string_view offered);

class WebSocketConnection final : public Connection,
                                  public std::enable_shared_from_this<WebSocketConnection> {
 public:
  WebSocketConnection(boost::asio::ip::tcp::socket socket, WampCore& core);
  ~WebSocketConnection() override;

  void start() override;
  void shutdown() override;
  SendResult send(Frame frame) override;
  void close_after_flush() override;

 private:
  using error_code = boost::system::error_code;

  void on_upgrade_request(const error_code& ec);
  // Answers the upgrade request with a plain HTTP error and closes.
  void refuse(unsigned status, std::string body);
  void on_accept(const error_code& ec);
  void do_read();
  // Room for the next read; false when the budget cannot hold the larger buffer.
  bool make_room();
  void on_read(const error_code& ec);
  void do_write();
  void on_write(const error_code& ec);
  void begin_close();
  // Closes at once, as if the peer had gone: its queue passed --max-queued-bytes (a slow
  // consumer, counted), or a message for it found no room in the buffered-bytes budget (counted
  // as the budget's refusal).
  void drop_session(bool slow_consumer);
  // Ends the connection: the session leaves, the socket closes. Idempotent.
  void finish();

  boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws_;
  WampCore& core_;
  boost::asio::steady_timer timer_;
  boost::beast::flat_buffer buffer_;
  memory::Reservation buffer_budget_;  // buffer_'s capacity past kUnbudgetedBytes
  boost::beast::websocket::close_code close_code_ = boost::beast::websocket::close_code::normal;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> upgrade_;
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> refusal_;
  std::optional<Session> session_;
  std::string subprotocol_;
  uint64_t max_message_ = 0;

  OutboundQueue queue_;
  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  bool dropped_ = false;  // as a slow consumer: nothing more is written
  bool admitted_ = false;
};

}  // namespace benchgate::router::wamp
