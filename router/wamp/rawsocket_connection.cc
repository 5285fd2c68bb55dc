// WAMP over RawSocket (see rawsocket_connection.h).
#include "router/wamp/rawsocket_connection.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "router/wamp/core.h"

namespace benchgate::router::wamp {
namespace {

namespace asio = boost::asio;

constexpr size_t kInitialInput = 64 * 1024;
constexpr size_t kMaxGather = 64;  // messages per write
constexpr auto kDrainTimeout = std::chrono::seconds(2);

// The WAMP thread's spare input buffer. A connection with nothing buffered holds no input
// buffer: it waits for readability, takes this one (ownership moves, nothing is shared),
// reads and handles its frames, and gives it back when it waits again with nothing left
// over. An idle connection then costs no 64 KiB, and a busy one allocates nothing per
// message (the larger of the two buffers stays with the thread).
struct SpareInput {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
};
SpareInput& thread_spare_input() {
  thread_local SpareInput spare;
  return spare;
}

}  // namespace

RawSocketConnection::RawSocketConnection(asio::ip::tcp::socket socket, WampCore& core)
    : socket_(std::move(socket)),
      core_(core),
      timer_(socket_.get_executor()),
      input_budget_(core.options().buffer_budget.get(), memory::BudgetUser::rawsocket),
      queue_(core.options().max_queued_bytes, core.frames(), memory::BudgetUser::rawsocket) {
  ++core_.stats().connections_open[static_cast<size_t>(metrics::WampTransport::rawsocket)];
}

RawSocketConnection::~RawSocketConnection() {
  finish();
  --core_.stats().connections_open[static_cast<size_t>(metrics::WampTransport::rawsocket)];
}

void RawSocketConnection::start() {
  timer_.expires_after(std::chrono::nanoseconds(core_.options().handshake_timeout_ns));
  timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec && !self->session_) self->finish();
  });
  asio::async_read(
      socket_, asio::buffer(handshake_),
      [self = shared_from_this()](const error_code& ec, size_t) { self->on_handshake(ec); });
}

void RawSocketConnection::shutdown() {
  error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
}

void RawSocketConnection::on_handshake(const error_code& ec) {
  if (ec || finished_) return finish();
  const ClientHandshake hello = parse_client_handshake(handshake_);
  if (hello.not_rawsocket) return finish();
  if (hello.error) return refuse(*hello.error);
  if (!core_.admit()) {
    ++core_.stats()
          .counters.connections_rejected[static_cast<size_t>(metrics::WampTransport::rawsocket)];
    return refuse(HandshakeError::max_connections);
  }
  admitted_ = true;
  timer_.cancel();
  // Reads are synchronous once the socket is readable (on_readable): never block the thread.
  error_code ignored;
  socket_.non_blocking(true, ignored);
  // 2^24 announces "whatever a frame can carry" (2^24 - 1 bytes).
  const uint64_t limit = std::min<uint64_t>(core_.options().max_message_bytes, 1u << 24);
  const uint8_t exponent = length_exponent_for(limit);
  max_in_ = length_for_exponent(exponent);
  max_out_ = static_cast<uint32_t>(std::min<uint64_t>(hello.client_max_length, limit));
  session_.emplace(core_, *this, hello.serializer);
  reply_ = handshake_reply(hello.serializer, exponent);
  asio::async_write(socket_, asio::buffer(reply_),
                    [self = shared_from_this()](const error_code& write_ec, size_t) {
                      if (write_ec) return self->finish();
                      self->do_read();
                    });
}

void RawSocketConnection::refuse(HandshakeError error) {
  reply_ = handshake_error_reply(error);
  asio::async_write(socket_, asio::buffer(reply_),
                    [self = shared_from_this()](const error_code&, size_t) { self->finish(); });
}

void RawSocketConnection::do_read() {
  if (closing_ || finished_) return;
  if (in_begin_ == in_end_) {
    park_input();
    socket_.async_wait(
        asio::socket_base::wait_read,
        [self = shared_from_this()](const error_code& ec) { self->on_readable(ec); });
    return;
  }
  if (in_end_ == in_capacity_ && !reserve_input(in_end_ - in_begin_ + kInitialInput)) {
    return refuse_over_budget(in_end_ - in_begin_ + kInitialInput);
  }
  socket_.async_read_some(asio::buffer(in_.get() + in_end_, in_capacity_ - in_end_),
                          [self = shared_from_this()](const error_code& ec, size_t bytes) {
                            self->on_read(ec, bytes);
                          });
}

void RawSocketConnection::on_readable(const error_code& ec) {
  if (ec || finished_) return finish();
  if (closing_) return;
  if (in_capacity_ == 0) {
    SpareInput& spare = thread_spare_input();
    std::swap(in_, spare.data);
    std::swap(in_capacity_, spare.capacity);
    // A spare past kUnbudgetedBytes counts while this connection holds it; without room for
    // it, it stays with the thread and a 64 KiB buffer will do.
    if (!input_budget_.resize(in_capacity_)) {
      std::swap(in_, spare.data);
      std::swap(in_capacity_, spare.capacity);
    }
  }
  reserve_input(kInitialInput);
  error_code read_ec;
  // The socket is non-blocking here: a spurious wake-up reads nothing and waits again.
  const size_t bytes =
      socket_.read_some(asio::buffer(in_.get() + in_end_, in_capacity_ - in_end_), read_ec);
  if (read_ec == asio::error::would_block || read_ec == asio::error::try_again) return do_read();
  on_read(read_ec, bytes);
}

void RawSocketConnection::park_input() {
  if (in_begin_ != in_end_ || in_capacity_ == 0) return;
  in_begin_ = in_end_ = 0;
  SpareInput& spare = thread_spare_input();
  // The thread keeps the larger buffer up to kSpareBufferBytes; one grown past that for a
  // large frame is freed. Either way its bytes go back to the budget.
  if (in_capacity_ <= memory::kSpareBufferBytes && spare.capacity < in_capacity_) {
    std::swap(in_, spare.data);
    std::swap(in_capacity_, spare.capacity);
  }
  in_.reset();
  in_capacity_ = 0;
  input_budget_.resize(0);
}

void RawSocketConnection::on_read(const error_code& ec, size_t bytes) {
  if (ec || finished_) return finish();
  in_end_ += bytes;
  if (process_frames()) do_read();
}

bool RawSocketConnection::process_frames() {
  while (!closing_ && !finished_) {
    const size_t available = in_end_ - in_begin_;
    if (available < kFrameHeaderSize) break;
    const FrameHeader header = parse_frame_header(in_.get() + in_begin_);
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
      // The whole frame is reserved from its header, before its payload is read.
      if (!reserve_input(total)) {
        refuse_over_budget(total);
        return false;
      }
      break;
    }
    const std::span<const uint8_t> payload(in_.get() + in_begin_ + kFrameHeaderSize, header.length);
    in_begin_ += total;
    switch (header.type) {
      case FrameType::kMessage:
        session_->on_message(payload);
        break;
      case FrameType::kPing:
        // A pong echoes the ping's payload; it is a control frame, not a WAMP message (and is
        // skipped, like one that does not fit the queue, when the budget has no room).
        if (queue_.fits(payload.size()) && queue_.push(std::make_shared<const std::vector<uint8_t>>(
                                                           payload.begin(), payload.end()),
                                                       static_cast<uint8_t>(FrameType::kPong))) {
          schedule_write();
        }
        break;
      case FrameType::kPong:
        break;
    }
  }
  if (closing_ || finished_) return false;
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
  return true;
}

bool RawSocketConnection::reserve_input(size_t total) {
  total = std::max(total, kInitialInput);
  if (in_capacity_ - in_begin_ >= total) return true;
  const size_t buffered = in_end_ - in_begin_;
  if (in_capacity_ >= total) {
    std::memmove(in_.get(), in_.get() + in_begin_, buffered);
  } else {
    if (!input_budget_.resize(total)) return false;
    auto bigger = std::make_unique_for_overwrite<uint8_t[]>(total);
    if (buffered > 0) std::memcpy(bigger.get(), in_.get() + in_begin_, buffered);
    in_ = std::move(bigger);
    in_capacity_ = total;
  }
  in_begin_ = 0;
  in_end_ = buffered;
  return true;
}

void RawSocketConnection::refuse_over_budget(size_t total) { session_->on_over_budget(total); }

SendResult RawSocketConnection::send(Frame frame) {
  if (closing_ || finished_) return SendResult::closed;
  if (frame->size() > max_out_) return SendResult::too_large;
  if (!queue_.fits(frame->size())) {
    drop_session(/*slow_consumer=*/true);
    return SendResult::closed;
  }
  if (!queue_.push(std::move(frame), static_cast<uint8_t>(FrameType::kMessage))) {
    drop_session(/*slow_consumer=*/false);
    return SendResult::closed;
  }
  schedule_write();
  return SendResult::sent;
}

void RawSocketConnection::schedule_write() {
  if (writing_) return;
  writing_ = true;
  // Posted, so that every message queued while handling this read leaves in one write.
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->do_write(); });
}

void RawSocketConnection::do_write() {
  if (finished_) return;
  if (queue_.empty()) {
    writing_ = false;
    if (closing_) drain();
    return;
  }
  in_flight_ = std::min(queue_.size(), kMaxGather);
  headers_.resize(in_flight_);
  gather_.clear();
  for (size_t i = 0; i < in_flight_; ++i) {
    const Frame& frame = queue_.frame(i);
    headers_[i] =
        frame_header(static_cast<FrameType>(queue_.tag(i)), static_cast<uint32_t>(frame->size()));
    gather_.emplace_back(headers_[i].data(), headers_[i].size());
    if (!frame->empty()) gather_.emplace_back(frame->data(), frame->size());
  }
  asio::async_write(socket_, gather_, [self = shared_from_this()](const error_code& ec, size_t) {
    self->on_write(ec);
  });
}

void RawSocketConnection::on_write(const error_code& ec) {
  if (ec || finished_ || dropped_) return finish();
  for (size_t i = 0; i < in_flight_; ++i) queue_.pop();
  in_flight_ = 0;
  do_write();
}

void RawSocketConnection::close_after_flush() {
  if (closing_ || finished_) return;
  closing_ = true;
  if (!writing_) drain();
}

void RawSocketConnection::drain() {
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  timer_.expires_after(kDrainTimeout);
  timer_.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->finish();
  });
  in_begin_ = in_end_ = 0;
  reserve_input(kInitialInput);  // within kUnbudgetedBytes, or already held: never refused
  discard_input();
}

void RawSocketConnection::discard_input() {
  socket_.async_read_some(asio::buffer(in_.get(), in_capacity_),
                          [self = shared_from_this()](const error_code& ec, size_t) {
                            if (ec || self->finished_) return self->finish();
                            self->discard_input();
                          });
}

void RawSocketConnection::drop_session(bool slow_consumer) {
  if (slow_consumer) {
    ++core_.stats().counters.drops[static_cast<size_t>(metrics::DropReason::slow_consumer)];
  }
  closing_ = true;
  dropped_ = true;
  error_code ignored;
  socket_.close(ignored);
  // Never from inside send(): the session may be in the middle of a fan-out.
  asio::post(socket_.get_executor(), [self = shared_from_this()] { self->finish(); });
}

void RawSocketConnection::finish() {
  if (finished_) return;
  finished_ = true;
  if (session_) session_->on_transport_closed();
  if (admitted_) core_.release();
  admitted_ = false;
  error_code ignored;
  socket_.close(ignored);
  timer_.cancel();
}

}  // namespace benchgate::router::wamp
