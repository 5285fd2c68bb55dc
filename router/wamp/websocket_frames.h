// The WebSocket connection's wire, under Beast's websocket::stream.
//
// Counting frames. Beast reassembles a fragmented message (a first frame and its continuation
// frames, RFC 6455 section 5.4) and fragments what it writes (auto_fragment,
// --ws-fragment-bytes) without saying how many frames either took, so the WebSocket
// connection reads and writes through FrameCountingStream: it passes every byte on unchanged
// and runs a FrameScanner over the bytes that went through, in each direction. The scanner
// parses only frame headers and skips payloads by their length, so its cost per read or write
// does not depend on the payload size.
//
// Writing several messages at once. Beast writes one message per write, so a connection with
// many answers queued paid one send system call each (69% of the router's time for 64-byte
// calls, 128 in flight). The connection therefore frames its messages itself
// (server_frame_header: a server's frames are not masked) and writes those queued in one
// gathered write through async_write_frames, which passes Beast by (net::async_write_all: up
// to 128 frames per send over TCP, a record of up to 16 KiB per send over TLS). Beast
// still writes what it writes on its own, the pong that answers a ping and the close frame,
// and the two must never interleave: a Beast write that comes while the connection's write is
// under way waits until it has ended, and the connection writes its own frames only while
// frames_writable() (no Beast write under way or waiting, the last frame out complete, no close
// frame sent); otherwise it hands its message to Beast, whose own write lock orders it.
//
// Beast hands out one message per read, also when the socket's last read brought many, and
// each completion is posted: a write started when the first answer is queued would leave
// before the next message is read. The connection therefore holds its write back while Beast
// still holds complete messages (messages_read(): the scanner counts every message whose last
// byte came in) and writes once it has handled the last of them, so that the answers to
// everything one read brought leave together.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <boost/asio/async_result.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/assert.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include "common/net/wrapped_handler.h"
#include "router/metrics/wamp_counters.h"
#include "router/net/stream.h"

namespace benchgate::router::wamp {

// Follows the frame structure of one direction of a WebSocket connection from its first
// frame on (the bytes after the HTTP upgrade). Counts data frames (text, binary,
// continuation) and messages made of more than one frame; control frames (ping, pong, close)
// are parsed and skipped.
class FrameScanner {
 public:
  void feed(const uint8_t* data, size_t size);

  uint64_t data_frames() const { return data_frames_; }
  uint64_t fragmented_messages() const { return fragmented_messages_; }
  // No frame is under way: every byte fed so far belongs to a complete frame.
  bool at_frame_boundary() const { return have_ == 0 && remaining_ == 0; }
  // A close frame's header went through.
  bool close_seen() const { return close_seen_; }
  // Messages whose last byte went through (the last frame of each, FIN set, whole).
  uint64_t complete_messages() const { return complete_messages_; }
  // Counts gathered since the last take (added into the router's counters).
  std::pair<uint64_t, uint64_t> take() {
    const auto taken =
        std::pair{data_frames_ - taken_frames_, fragmented_messages_ - taken_fragmented_};
    taken_frames_ = data_frames_;
    taken_fragmented_ = fragmented_messages_;
    return taken;
  }

 private:
  void on_header();
  // The current frame's payload went through.
  void on_payload_end();

  std::array<uint8_t, 14> header_{};
  size_t have_ = 0;         // header bytes gathered
  uint64_t remaining_ = 0;  // payload bytes of the current frame still to skip
  uint64_t data_frames_ = 0;
  uint64_t fragmented_messages_ = 0;
  uint64_t taken_frames_ = 0;
  uint64_t taken_fragmented_ = 0;
  uint64_t complete_messages_ = 0;
  bool ends_message_ = false;  // the current frame is a message's last
  bool close_seen_ = false;
};

// The header of one unmasked, final WebSocket frame (a server's, RFC 6455 section 5.2): text
// (opcode 1) or binary (2), and the payload's length in 7, 16 or 64 bits.
struct ServerFrameHeader {
  std::array<uint8_t, 10> bytes{};
  uint8_t size = 0;
};
ServerFrameHeader server_frame_header(bool text, uint64_t payload_size);

// The byte stream under Beast's websocket::stream: NextLayer's bytes, scanned. Once
// start_scanning() is called (after the HTTP upgrade: those bytes are not frames) the counts
// go into `counters` (websocket_frames, websocket_fragmented_messages) as each read or write
// completes. Every write goes through it, Beast's and the connection's own (see the top of
// this file for how they take turns); Beast's synchronous write_some is not held back (the
// router uses Beast's asynchronous operations only).
template <typename NextLayer>
class FrameCountingStream {
 public:
  // The io_context's own executor, not the socket's type-erased one: Beast posts a read it
  // completes at once (its message already buffered) through this executor, and only the
  // io_context's keeps the allocator the handler carries (the thread's pool,
  // router/wamp/transport_connection.h); the type-erased one takes Asio's two-slot cache or
  // the heap. The socket's executor is an io_context's (the WAMP thread's).
  using executor_type = boost::asio::io_context::executor_type;
  using next_layer_type = NextLayer;

  explicit FrameCountingStream(NextLayer next)
      : next_(std::move(next)), executor_(io_executor_of(next_)) {}

  executor_type get_executor() { return executor_; }
  NextLayer& next_layer() { return next_; }
  const NextLayer& next_layer() const { return next_; }

  void start_scanning(metrics::WampCounters& counters) { counters_ = &counters; }

  // Messages whose last byte has been read from the socket: once the connection has handled
  // fewer, Beast holds the rest in its buffer and hands them out without reading again.
  uint64_t messages_read() const {
    return scanners_[static_cast<size_t>(metrics::Direction::in)].complete_messages();
  }
  // Told when Beast reads from the socket: by then it has handed out every complete message
  // it held (it reads only for a frame it does not have whole, and frames come in order).
  struct ReadObserver {
    virtual void reading_from_socket() = 0;

   protected:
    ~ReadObserver() = default;
  };
  void observe_reads(ReadObserver* observer) { read_observer_ = observer; }

  template <typename Buffers, typename Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, size_t)>(
        [this](auto handler, const Buffers& b) {
          if (read_observer_ != nullptr) read_observer_->reading_from_socket();
          // Beast's handler to Asio (common/net/wrapped_handler.h): the operation below takes
          // its memory where that handler says (the connection's pooled allocator,
          // router/wamp/transport_connection.h), and completes on its executor.
          next_.async_read_some(
              b, ::benchgate::net::wrap_handler(
                     std::move(handler),
                     [this, b](auto&& done, const boost::system::error_code& ec, size_t n) {
                       scan(b, n, metrics::Direction::in);
                       std::move(done)(ec, n);
                     }));
        },
        token, buffers);
  }

  // Beast's writes. One that comes while the connection's own write is under way waits for
  // its end (Beast has at most one write under way: its write lock).
  template <typename Buffers, typename Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, size_t)>(
        [this](auto handler, const Buffers& b) {
          if (own_writing_) {
            // From the heap: only a pong or a close that comes during the connection's own
            // write waits, not a message.
            BOOST_ASSERT(!waiting_);
            waiting_ =
                std::make_unique<WaitingWrite<Buffers, decltype(handler)>>(b, std::move(handler));
            return;
          }
          beast_write(b, std::move(handler));
        },
        token, buffers);
  }

  // Whether the connection may write frames of its own now: scanning has started (the
  // upgrade is done), no Beast write is under way or waiting, the last frame out is complete
  // and no close frame has gone out.
  bool frames_writable() const {
    const FrameScanner& out = scanners_[static_cast<size_t>(metrics::Direction::out)];
    return counters_ != nullptr && !own_writing_ && !beast_writing_ && !waiting_ &&
           out.at_frame_boundary() && !out.close_seen();
  }

  // Writes `frames` (whole frames the connection built, see server_frame_header) in one
  // gathered write, past Beast; call only when frames_writable(). The buffers must stay valid
  // until `handler` runs: void(error_code, size_t). net::async_write_all (router/net/stream.h)
  // sends up to 256 buffers (128 frames) per send over TCP, and a record of up to 16 KiB
  // gathered from the whole list per send over TLS.
  template <typename Handler>
  void async_write_frames(std::span<const boost::asio::const_buffer> frames, Handler&& handler) {
    own_writing_ = true;
    net::async_write_all(
        next_, frames,
        ::benchgate::net::wrap_handler(
            std::forward<Handler>(handler),
            [this, frames](auto&& done, const boost::system::error_code& ec, size_t n) {
              scan(frames, n, metrics::Direction::out);
              own_write_ended();
              std::move(done)(ec, n);
            }));
  }

  template <typename Buffers>
  size_t read_some(const Buffers& buffers, boost::system::error_code& ec) {
    const size_t n = next_.read_some(buffers, ec);
    scan(buffers, n, metrics::Direction::in);
    return n;
  }
  template <typename Buffers>
  size_t write_some(const Buffers& buffers, boost::system::error_code& ec) {
    const size_t n = next_.write_some(buffers, ec);
    scan(buffers, n, metrics::Direction::out);
    return n;
  }

 private:
  // A Beast write of the layer below, its bytes scanned once it completes. The operation
  // takes its memory where the handler says (the connection's pooled allocator,
  // router/wamp/transport_connection.h) and completes on its executor.
  template <typename Buffers, typename Handler>
  void beast_write(const Buffers& buffers, Handler handler) {
    BOOST_ASSERT(!beast_writing_);
    beast_writing_ = true;
    next_.async_write_some(
        buffers, ::benchgate::net::wrap_handler(
                     std::move(handler),
                     [this, buffers](auto&& done, const boost::system::error_code& ec, size_t n) {
                       beast_writing_ = false;
                       scan(buffers, n, metrics::Direction::out);
                       std::move(done)(ec, n);
                     }));
  }

  // The connection's own write ended: a Beast write that waited goes first, so that the
  // connection's next write sees it under way and hands its message to Beast, behind it.
  void own_write_ended() {
    own_writing_ = false;
    if (auto waiting = std::move(waiting_)) waiting->start(*this);
  }

  // A Beast write that came during the connection's own write.
  struct Waiting {
    virtual ~Waiting() = default;
    virtual void start(FrameCountingStream& stream) = 0;
  };
  template <typename Buffers, typename Handler>
  struct WaitingWrite final : Waiting {
    WaitingWrite(const Buffers& b, Handler h) : buffers(b), handler(std::move(h)) {}
    void start(FrameCountingStream& stream) override {
      stream.beast_write(buffers, std::move(handler));
    }
    Buffers buffers;
    Handler handler;
  };

  template <typename Buffers>
  void scan(const Buffers& buffers, size_t n, metrics::Direction direction) {
    if (counters_ == nullptr || n == 0) return;
    FrameScanner& scanner = scanners_[static_cast<size_t>(direction)];
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         n > 0 && it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer piece(*it);
      const size_t take = std::min(n, piece.size());
      scanner.feed(static_cast<const uint8_t*>(piece.data()), take);
      n -= take;
    }
    const auto [frames, fragmented] = scanner.take();
    counters_->websocket_frames[static_cast<size_t>(direction)] += frames;
    counters_->websocket_fragmented_messages[static_cast<size_t>(direction)] += fragmented;
  }

  // A socket of another executor is a programming error, said as one (not a null dereference).
  static executor_type io_executor_of(NextLayer& next) {
    if constexpr (std::is_same_v<std::decay_t<decltype(next.get_executor())>, executor_type>) {
      return next.get_executor();
    } else {
      const auto* io = next.get_executor().template target<executor_type>();
      if (io == nullptr) {
        throw std::logic_error("FrameCountingStream: the socket's executor is not an io_context's");
      }
      return *io;
    }
  }

  NextLayer next_;
  executor_type executor_;
  metrics::WampCounters* counters_ = nullptr;
  ReadObserver* read_observer_ = nullptr;
  std::array<FrameScanner, 2> scanners_;
  std::unique_ptr<Waiting> waiting_;  // at most one: Beast writes one at a time
  // Beast's write is under way: one at most, as its write lock orders its writes, the HTTP
  // upgrade's answer before them.
  bool beast_writing_ = false;
  bool own_writing_ = false;  // the connection's own write is under way
};

// Beast closes the WebSocket's TCP connection through these (found by argument-dependent
// lookup): the layer below does the work.
template <typename NextLayer>
void teardown(boost::beast::role_type role, FrameCountingStream<NextLayer>& stream,
              boost::system::error_code& ec) {
  using boost::beast::websocket::teardown;
  teardown(role, stream.next_layer(), ec);
}

template <typename NextLayer, typename Handler>
void async_teardown(boost::beast::role_type role, FrameCountingStream<NextLayer>& stream,
                    Handler&& handler) {
  using boost::beast::websocket::async_teardown;
  async_teardown(role, stream.next_layer(), std::forward<Handler>(handler));
}

}  // namespace benchgate::router::wamp
