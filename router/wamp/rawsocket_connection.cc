// WAMP over RawSocket (see rawsocket_connection.h).
#include "router/wamp/rawsocket_connection.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "common/net/asio_access.h"
#include "common/net/edge_wait.h"

namespace benchgate::router::wamp {
namespace {

namespace asio = boost::asio;

constexpr size_t kInitialInput = 64 * 1024;

// The WAMP thread's spare input buffer (common/util/thread_spare.h): a connection with
// nothing buffered holds none, so an idle connection costs no 64 KiB, and a busy one
// allocates nothing per message (the larger of the two buffers stays with the thread, up to
// memory::kSpareBufferBytes).
struct InputTag {};
using SpareInput = ThreadSpare<InputTag, ByteBlock>;

}  // namespace

template <typename Socket>
RawSocketConnection<Socket>::RawSocketConnection(Socket socket, WampCore& core)
    : Base(std::move(socket), core, metrics::WampTransport::rawsocket,
           memory::BudgetUser::rawsocket),
      input_budget_(core.options().buffer_budget.get(), memory::BudgetUser::rawsocket) {}

template <typename Socket>
RawSocketConnection<Socket>::~RawSocketConnection() = default;

template <typename Socket>
void RawSocketConnection<Socket>::begin_handshake() {
  asio::async_read(
      stream_, asio::buffer(handshake_),
      [self = this->shared_from_this()](const error_code& ec, size_t) { self->on_handshake(ec); });
}

template <typename Socket>
void RawSocketConnection<Socket>::on_handshake(const error_code& ec) {
  if (ec || finished_) return finish();
  const ClientHandshake hello = parse_client_handshake(handshake_);
  if (hello.not_rawsocket) return finish();
  if (hello.error) return refuse(*hello.error);
  if (!admit()) return refuse(HandshakeError::max_connections);
  // Reads are synchronous once the socket is readable (on_readable): never block the thread.
  error_code ignored;
  boost::beast::get_lowest_layer(stream_).non_blocking(true, ignored);
  // 2^24 announces "whatever a frame can carry" (2^24 - 1 bytes).
  const uint64_t limit = std::min<uint64_t>(core_.options().max_message_bytes, 1u << 24);
  const uint8_t exponent = length_exponent_for(limit);
  max_in_ = length_for_exponent(exponent);
  max_out_ = std::min<uint64_t>(hello.client_max_length, limit);
  session_.emplace(core_, *this, hello.serializer);
  reply_ = handshake_reply(hello.serializer, exponent);
  asio::async_write(stream_, asio::buffer(reply_),
                    [self = this->shared_from_this()](const error_code& write_ec, size_t) {
                      if (write_ec) return self->finish();
                      self->do_read();
                    });
}

template <typename Socket>
void RawSocketConnection<Socket>::refuse(HandshakeError error) {
  reply_ = handshake_error_reply(error);
  asio::async_write(
      stream_, asio::buffer(reply_),
      [self = this->shared_from_this()](const error_code&, size_t) { self->finish(); });
}

template <typename Socket>
void RawSocketConnection<Socket>::do_read() {
  if (stopped()) return;
  const bool empty = in_begin_ == in_end_;
  if (empty) {
    park_input();
  } else if (in_end_ == in_.capacity() && !reserve_input(in_end_ - in_begin_ + 1)) {
    // Room for one byte more. A full buffer holds the start of a frame header at its end (a
    // frame whose header was read made room for more in process_frames): those bytes move to
    // the front, and need no larger buffer.
    return refuse_over_budget(in_end_ - in_begin_ + 1);
  }
  const auto readable = [this] {
    return pooled(
        [self = this->shared_from_this()](const error_code& ec) { self->on_readable(ec); });
  };
  if constexpr (net::is_tls_v<Socket>) {
    if (!empty) {
      const size_t room = in_.capacity() - in_end_;
      stream_.async_read_some(
          asio::buffer(in_.data() + in_end_, room),
          pooled([self = this->shared_from_this()](const error_code& ec, size_t bytes) {
            self->on_read(ec, bytes);
          }));
    } else if (net::has_buffered_input(stream_)) {
      // The TLS layer holds bytes already: the socket will not become readable for them.
      asio::post(stream_.get_executor(),
                 [self = this->shared_from_this()] { self->on_readable({}); });
    } else {
      // Without an epoll_ctl when OpenSSL's last read emptied the socket
      // (common/tls/tls_stream.h).
      stream_.async_wait_readable(readable());
    }
  } else if (drained_) {
    // The last read emptied the socket: its next edge, in Asio's own registration, without
    // the epoll_ctl an async_wait makes (one per batch of calls).
    ::benchgate::net::async_wait_edge(::benchgate::net::asio_access::reactor(stream_), stream_,
                                      ::benchgate::net::Readiness::kRead, readable());
  } else if (empty) {
    // Bytes may wait that made their edge already: the re-arm of an async_wait reports them.
    stream_.async_wait(asio::socket_base::wait_read, readable());
  } else {
    // The rest of a frame, with the socket maybe holding it already: read again at the
    // thread's next turn. Never through the socket's async_read_some: Asio tries that read at
    // once only while its "try at once" flag for the socket is set, which the edge wait that
    // woke on_readable cleared; the read there then took a full buffer without Asio knowing,
    // and with the rest of the frame already in the socket no edge would come for it (the
    // connection waited forever for a frame larger than its buffer, sent whole before it
    // woke).
    post_keeping_allocator(stream_.get_executor(),
                           pooled([self = this->shared_from_this()] { self->on_readable({}); }));
  }
}

template <typename Socket>
void RawSocketConnection<Socket>::on_readable(const error_code& ec) {
  if (ec || finished_) return finish();
  if (closing_) return;
  if (in_.capacity() == 0) {
    SpareInput::lend(in_);
    // A spare past kUnbudgetedBytes counts while this connection holds it; without room for
    // it, it stays with the thread and a 64 KiB buffer will do.
    if (!input_budget_.resize(in_.capacity())) SpareInput::lend(in_);
  }
  reserve_input(kInitialInput);
  error_code read_ec;
  // The socket is non-blocking here: a spurious wake-up reads nothing and waits again.
  const size_t room = in_.capacity() - in_end_;
  const size_t bytes = stream_.read_some(asio::buffer(in_.data() + in_end_, room), read_ec);
  if (read_ec == asio::error::would_block || read_ec == asio::error::try_again) {
    drained_ = true;
    return do_read();
  }
  drained_ = !read_ec && bytes < room;
  on_read(read_ec, bytes);
}

template <typename Socket>
void RawSocketConnection<Socket>::park_input() {
  if (in_begin_ != in_end_ || in_.capacity() == 0) return;
  in_begin_ = in_end_ = 0;
  // The thread keeps the larger buffer up to kSpareBufferBytes; one grown past that for a
  // large frame is freed. Either way its bytes go back to the budget.
  SpareInput::give_back(in_, memory::kSpareBufferBytes);
  input_budget_.resize(0);
}

template <typename Socket>
void RawSocketConnection<Socket>::on_read(const error_code& ec, size_t bytes) {
  if (ec || finished_) return finish();
  const bool held_before = in_begin_ != in_end_;
  in_end_ += bytes;
  bool handled_any = false;
  if (!process_frames(&handled_any)) return;
  // A frame held in part now began in this read unless it is the one held before.
  track_partial_message(in_begin_ != in_end_, !held_before || handled_any);
  do_read();
}

template <typename Socket>
bool RawSocketConnection<Socket>::process_frames(bool* handled_any) {
  while (!stopped()) {
    const size_t available = in_end_ - in_begin_;
    if (available < kFrameHeaderSize) break;
    const FrameHeader header = parse_frame_header(in_.data() + in_begin_);
    if (!header.valid) {
      session_->abort("wamp.error.protocol_violation", "invalid RawSocket frame header");
      return false;
    }
    if (header.length > max_in_) {
      session_->on_oversize(header.length, max_in_);
      return false;
    }
    const size_t total = kFrameHeaderSize + header.length;
    if (available < total) {
      // The length in the header is trusted as far as the frame's bytes arrive
      // (memory::trusted_capacity): only a buffer full of this frame grows, to at most 16
      // times what it holds plus a read, so a header announcing 16 MiB with little after it
      // holds no more than its read buffer. A full buffer that begins with earlier frames
      // moves this one to its front first.
      if (in_end_ == in_.capacity()) {
        const size_t wanted = in_begin_ > 0
                                  ? available + 1
                                  : static_cast<size_t>(memory::trusted_capacity(available, total));
        if (!reserve_input(wanted)) {
          refuse_over_budget(wanted);
          return false;
        }
      }
      break;
    }
    const std::span<const uint8_t> payload(in_.data() + in_begin_ + kFrameHeaderSize,
                                           header.length);
    in_begin_ += total;
    *handled_any = true;
    switch (header.type) {
      case FrameType::kMessage:
        session_->on_message(payload);
        break;
      case FrameType::kPing: {
        // A pong echoes the ping's payload; it is a control frame, not a WAMP message (and is
        // skipped, like one that does not fit the queue, when the budget has no room).
        Frame pong = std::make_shared<const std::vector<uint8_t>>(payload.begin(), payload.end());
        if (queue_.fits(pong) &&
            queue_.push(std::move(pong), static_cast<uint8_t>(FrameType::kPong))) {
          schedule_write();
        }
        break;
      }
      case FrameType::kPong:
        break;
    }
  }
  if (stopped()) return false;
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
  return true;
}

template <typename Socket>
bool RawSocketConnection<Socket>::reserve_input(size_t total) {
  total = std::max(total, kInitialInput);
  if (in_.capacity() - in_begin_ >= total) return true;
  const size_t buffered = in_end_ - in_begin_;
  if (in_.capacity() >= total) {
    std::memmove(in_.data(), in_.data() + in_begin_, buffered);
  } else {
    if (!input_budget_.resize(total)) return false;
    ByteBlock bigger;
    bigger.reserve_discarding(total);
    if (buffered > 0) std::memcpy(bigger.data(), in_.data() + in_begin_, buffered);
    swap(in_, bigger);
    // The buffer a frame outgrew (outside the budget once parked) goes to the thread when it
    // is the larger spare: the next large frame starts from 1 MiB instead of allocating its
    // way up again.
    SpareInput::give_back(bigger, memory::kSpareBufferBytes);
  }
  in_begin_ = 0;
  in_end_ = buffered;
  return true;
}

template <typename Socket>
void RawSocketConnection<Socket>::refuse_over_budget(size_t total) {
  session_->on_over_budget(total);
}

template <typename Socket>
void RawSocketConnection<Socket>::write_queued() {
  // The tag of a queued frame is its type (a message, or the pong that answers a ping).
  const auto buffers = frames_.gather(
      queue_, [](const std::vector<uint8_t>& frame, uint8_t tag, std::array<uint8_t, 4>& header) {
        header = frame_header(static_cast<FrameType>(tag), static_cast<uint32_t>(frame.size()));
        return asio::buffer(header);
      });
  // A view (a span), not a vector: the write operation keeps a copy of the buffer sequence it
  // is given, which would be a vector allocated per write.
  net::async_write_all(stream_, buffers,
                       pooled([self = this->shared_from_this()](const error_code& ec, size_t) {
                         self->on_written(ec, self->frames_.take_written());
                       }));
}

template <typename Socket>
void RawSocketConnection<Socket>::close_flushed() {
  arm_close_timer();
  in_begin_ = in_end_ = 0;
  if constexpr (net::is_tls_v<Socket>) {
    // close_notify; OpenSSL discards what the peer still sends until it closes.
    stream_.async_shutdown(
        [self = this->shared_from_this()](const error_code&) { self->finish(); });
  } else {
    net::half_close(stream_);
    reserve_input(kInitialInput);  // within kUnbudgetedBytes, or already held: never refused
    discard_input();
  }
}

template <typename Socket>
void RawSocketConnection<Socket>::discard_input() {
  stream_.async_read_some(asio::buffer(in_.data(), in_.capacity()),
                          [self = this->shared_from_this()](const error_code& ec, size_t) {
                            if (ec || self->finished_) return self->finish();
                            self->discard_input();
                          });
}

template class RawSocketConnection<net::Stream>;
template class RawSocketConnection<net::TlsStream>;

}  // namespace benchgate::router::wamp
