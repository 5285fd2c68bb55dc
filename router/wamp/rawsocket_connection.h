// One WAMP-over-RawSocket connection: the opening handshake (serializer and maximum length
// negotiation), length-prefixed frames in and out, ping answered with pong, and the WAMP
// session it carries.
//
// Reads go into one input buffer; a frame is handed to the session where it lies in that
// buffer. A frame larger than the buffer grows it each time the frame fills it, to at most 16
// times what arrived plus a read and at most the frame's length (memory::trusted_capacity:
// the length a header announces is trusted only as far as bytes arrive; a 16 MiB frame takes
// two steps from 64 KiB, one from a 1 MiB spare), reserved from the buffered-bytes budget
// before it grows; the buffer is given back once nothing is left in it. The buffer is the
// WAMP thread's spare (the largest one seen, up to 1 MiB), held by a connection only while it
// has bytes to handle (an idle connection holds none; one holding more than 64 KiB reserves
// it). Writes gather the queued messages with their 4-byte headers into one write
// (gathered_frames.h). Counters, timers, the queue and the close are the shared lifecycle's
// (transport_connection.h).
#pragma once

#include <array>
#include <cstdint>

#include "common/util/thread_spare.h"
#include "router/memory/buffer_budget.h"
#include "router/net/stream.h"
#include "router/wamp/gathered_frames.h"
#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/transport_connection.h"

namespace benchgate::router::wamp {

// Socket: net::Stream, or net::TlsStream for RawSocket over TLS.
template <typename Socket>
class RawSocketConnection final : public TransportConnection<RawSocketConnection<Socket>, Socket> {
 public:
  RawSocketConnection(Socket socket, WampCore& core);
  ~RawSocketConnection() override;

 private:
  using Base = TransportConnection<RawSocketConnection<Socket>, Socket>;
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
  using typename Base::error_code;
  static constexpr uint8_t kMessageTag = static_cast<uint8_t>(FrameType::kMessage);

  // The lifecycle's hooks.
  void begin_handshake();
  void queued() { schedule_write(); }
  void write_queued();
  // After the last queued message: half-close, read and discard until the peer closes (so
  // that unread input does not turn our close into a reset that could lose the ABORT).
  void close_flushed();

  void on_handshake(const error_code& ec);
  void refuse(HandshakeError error);
  // Reads behind a partial frame, or (nothing buffered) waits for readability first.
  void do_read();
  void on_readable(const error_code& ec);
  void on_read(const error_code& ec, size_t bytes);
  // With nothing buffered: the input buffer goes back to the thread (or is freed).
  void park_input();
  // Hands complete frames to the session (`handled_any`: at least one); false once the
  // connection stops reading.
  bool process_frames(bool* handled_any);
  // Makes room for `total` bytes from in_begin_ (moving what is buffered to the front); false
  // when the buffered-bytes budget cannot hold the larger buffer.
  bool reserve_input(size_t total);
  // The budget is spent: ABORT, then close.
  void refuse_over_budget(size_t total);
  void discard_input();

  std::array<uint8_t, 4> handshake_{};
  std::array<uint8_t, 4> reply_{};
  uint32_t max_in_ = 0;  // what we announced
  // Cleartext: the last read emptied the socket's receive queue (EAGAIN, or fewer bytes than
  // asked), so what arrives next makes a new edge and the wait needs no re-arm
  // (common/net/edge_wait.h). In the padding after max_in_: no byte more per connection.
  bool drained_ = false;

  ByteBlock in_;
  memory::Reservation input_budget_;  // in_'s capacity past kUnbudgetedBytes
  size_t in_begin_ = 0;
  size_t in_end_ = 0;

  GatheredFrames<std::array<uint8_t, 4>> frames_;  // the write under way
};

extern template class RawSocketConnection<net::Stream>;
extern template class RawSocketConnection<net::TlsStream>;

}  // namespace benchgate::router::wamp
