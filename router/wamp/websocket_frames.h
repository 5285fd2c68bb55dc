// Counting WebSocket frames on the wire. Beast reassembles a fragmented message (a first
// frame and its continuation frames, RFC 6455 section 5.4) and fragments what it writes
// (auto_fragment, --ws-fragment-bytes) without saying how many frames either took, so the
// WebSocket connection reads and writes through FrameCountingStream: it passes every byte on
// unchanged and runs a FrameScanner over the bytes that went through, in each direction.
// The scanner parses only frame headers and skips payloads by their length, so its cost per
// read or write does not depend on the payload size.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include "router/metrics/wamp_counters.h"

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

  std::array<uint8_t, 14> header_{};
  size_t have_ = 0;         // header bytes gathered
  uint64_t remaining_ = 0;  // payload bytes of the current frame still to skip
  uint64_t data_frames_ = 0;
  uint64_t fragmented_messages_ = 0;
  uint64_t taken_frames_ = 0;
  uint64_t taken_fragmented_ = 0;
};

// The byte stream under Beast's websocket::stream: NextLayer's bytes, scanned. Once
// start_scanning() is called (after the HTTP upgrade: those bytes are not frames) the counts
// go into `counters` (websocket_frames, websocket_fragmented_messages) as each read or write
// completes.
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

  template <typename Buffers, typename Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, size_t)>(
        [this](auto handler, const Buffers& b) {
          // The operation below takes its memory where Beast's handler says (the
          // connection's pooled allocator, router/wamp/transport_connection.h).
          const auto allocator = boost::asio::get_associated_allocator(handler);
          next_.async_read_some(
              b, boost::asio::bind_allocator(
                     allocator, [this, b, handler = std::move(handler)](
                                    const boost::system::error_code& ec, size_t n) mutable {
                       scan(b, n, metrics::Direction::in);
                       std::move(handler)(ec, n);
                     }));
        },
        token, buffers);
  }

  template <typename Buffers, typename Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return boost::asio::async_initiate<Token, void(boost::system::error_code, size_t)>(
        [this](auto handler, const Buffers& b) {
          // The operation below takes its memory where Beast's handler says (the
          // connection's pooled allocator, router/wamp/transport_connection.h).
          const auto allocator = boost::asio::get_associated_allocator(handler);
          next_.async_write_some(
              b, boost::asio::bind_allocator(
                     allocator, [this, b, handler = std::move(handler)](
                                    const boost::system::error_code& ec, size_t n) mutable {
                       scan(b, n, metrics::Direction::out);
                       std::move(handler)(ec, n);
                     }));
        },
        token, buffers);
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
  std::array<FrameScanner, 2> scanners_;
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
