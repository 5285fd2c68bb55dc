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
//
// A write is held back while Beast holds complete messages the connection has not handled
// yet, so that the answers to what one read brought leave in one write: the connection frames
// the queued messages itself and writes them together, past Beast (websocket_frames.h says how
// that stays in order with Beast's pongs and close); with --ws-fragment-bytes, or while Beast
// has a write of its own under way, Beast writes one message at a time.
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
#include "router/wamp/gathered_frames.h"
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
    : public TransportConnection<WebSocketConnection<Socket>, WebSocketStream<Socket>>,
      private FrameCountingStream<Socket>::ReadObserver {
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
  using Base::max_out_;
  using Base::on_written;
  using Base::queue_;
  using Base::schedule_write;
  using Base::session_;
  using Base::start_write;
  using Base::stopped;
  using Base::stream_;
  using Base::track_partial_message;
  using Base::writing_;
  using typename Base::error_code;
  static constexpr uint8_t kMessageTag = 0;

  // The lifecycle's hooks.
  void begin_handshake();
  void queued();
  void write_queued();
  // The queued messages (up to GatheredFrames::kMaxMessages) in one write of frames the
  // connection built.
  void write_own_frames();
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
  // Beast holds complete messages the connection has not handled yet: their answers wait.
  bool more_buffered() const { return stream_.next_layer().messages_read() > messages_handled_; }
  // Writes wait while more_buffered(), unless reading has stopped (the session is closing:
  // a message too large or past the budget is never handled whole).
  bool hold_writes() const { return !stopped() && more_buffered(); }
  // Ends the hold of a write, if one is held: true when the caller is to start it.
  bool take_held_write();
  // The held write, if any, starts.
  void release_held_write();
  // Beast reads from the socket, so it holds no complete message: the count is set to agree
  // (a backstop: the two counts are not known to drift) and a held write starts.
  void reading_from_socket() override;

  boost::beast::flat_buffer buffer_;
  memory::Reservation buffer_budget_;  // buffer_'s capacity past kUnbudgetedBytes
  boost::beast::websocket::close_code close_code_ = boost::beast::websocket::close_code::normal;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> upgrade_;
  std::optional<boost::beast::http::response<boost::beast::http::string_body>> refusal_;
  std::string subprotocol_;
  uint64_t max_message_ = 0;
  GatheredFrames<ServerFrameHeader> frames_;  // the write of own frames under way
  uint64_t messages_handled_ = 0;             // messages Beast has handed out
  bool write_held_ = false;  // a write waits for the buffered messages to be handled
};

extern template class WebSocketConnection<net::Stream>;
extern template class WebSocketConnection<net::TlsStream>;

}  // namespace benchgate::router::wamp
