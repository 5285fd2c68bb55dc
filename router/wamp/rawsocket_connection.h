// One WAMP-over-RawSocket connection: the opening handshake (serializer and maximum length
// negotiation), length-prefixed frames in and out, ping answered with pong, and the WAMP
// session it carries.
//
// Reads go into one input buffer; a frame is handed to the session where it lies in that
// buffer (a message larger than the buffer grows it once, up to the negotiated maximum, within
// the buffered-bytes budget, and is given back once nothing is left in it). The buffer is the
// WAMP thread's spare (the largest one seen, up to 1 MiB), held by a connection only while it
// has bytes to handle (an idle connection holds none; one holding more than 64 KiB reserves
// it). Writes gather the queued messages with their 4-byte headers into one write.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "router/memory/buffer_budget.h"
#include "router/wamp/connection.h"
#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {

class WampCore;

class RawSocketConnection final : public Connection,
                                  public std::enable_shared_from_this<RawSocketConnection> {
 public:
  RawSocketConnection(boost::asio::ip::tcp::socket socket, WampCore& core);
  ~RawSocketConnection() override;

  void start() override;
  void shutdown() override;
  SendResult send(Frame frame) override;
  void close_after_flush() override;

 private:
  using error_code = boost::system::error_code;

  void on_handshake(const error_code& ec);
  void refuse(HandshakeError error);
  // Reads behind a partial frame, or (nothing buffered) waits for readability first.
  void do_read();
  void on_readable(const error_code& ec);
  void on_read(const error_code& ec, size_t bytes);
  // With nothing buffered: the input buffer goes back to the thread (or is freed).
  void park_input();
  // Hands complete frames to the session; false once the connection stops reading.
  bool process_frames();
  // Makes room for `total` bytes from in_begin_ (moving what is buffered to the front); false
  // when the buffered-bytes budget cannot hold the larger buffer.
  bool reserve_input(size_t total);
  // The budget is spent: ABORT, then close.
  void refuse_over_budget(size_t total);
  void schedule_write();
  void do_write();
  void on_write(const error_code& ec);
  // After the last queued message: half-close, read and discard until the peer closes (so
  // that unread input does not turn our close into a reset that could lose the ABORT).
  void drain();
  void discard_input();
  // Closes at once, as if the peer had gone: its queue passed --max-queued-bytes (a slow
  // consumer, counted), or a message for it found no room in the buffered-bytes budget (counted
  // as the budget's refusal).
  void drop_session(bool slow_consumer);
  // Ends the connection: the session leaves, the socket closes. Idempotent.
  void finish();

  boost::asio::ip::tcp::socket socket_;
  WampCore& core_;
  boost::asio::steady_timer timer_;
  std::array<uint8_t, 4> handshake_{};
  std::array<uint8_t, 4> reply_{};
  std::optional<Session> session_;
  uint32_t max_in_ = 0;   // what we announced
  uint32_t max_out_ = 0;  // what the client announced, within --max-message-bytes

  std::unique_ptr<uint8_t[]> in_;
  size_t in_capacity_ = 0;
  memory::Reservation input_budget_;  // in_capacity_ past kUnbudgetedBytes
  size_t in_begin_ = 0;
  size_t in_end_ = 0;

  OutboundQueue queue_;
  std::vector<std::array<uint8_t, 4>> headers_;
  std::vector<boost::asio::const_buffer> gather_;
  size_t in_flight_ = 0;  // queued messages the current write carries

  bool writing_ = false;
  bool closing_ = false;
  bool finished_ = false;
  bool dropped_ = false;  // as a slow consumer: nothing more is written
  bool admitted_ = false;
};

}  // namespace benchgate::router::wamp
