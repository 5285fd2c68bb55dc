// A blocking WAMP-over-RawSocket test client for the in-process router tests: handshake,
// messages encoded with the router's own serializers, raw frames for what a well-behaved
// client never sends. Every read gives up after a few seconds, so a misbehaving router fails
// the test instead of hanging it (a poll() first: Asio's synchronous reads wait in a poll() of
// their own when SO_RCVTIMEO ends a recv, so the socket option alone bounds nothing).
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>

#include <array>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/serializer.h"
#include "router/wamp/wamp_server.h"

namespace benchgate::router::testing {

class RawSocketTestClient {
 public:
  // Connects and sends the handshake; reply() is what the router answered.
  RawSocketTestClient(uint16_t port, wamp::Serializer serializer, uint8_t length_exponent = 15,
                      int receive_buffer = 0)
      : socket_(io_), serializer_(serializer) {
    socket_.open(boost::asio::ip::tcp::v4());
    if (receive_buffer > 0) {
      ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
                   sizeof(receive_buffer));
    }
    socket_.connect({boost::asio::ip::make_address_v4("127.0.0.1"), port});
    const timeval timeout{5, 0};
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    const std::array<uint8_t, 4> hello = {
        0x7F,
        static_cast<uint8_t>(length_exponent << 4 | wamp::rawsocket_serializer_id(serializer)), 0,
        0};
    boost::asio::write(socket_, boost::asio::buffer(hello));
    boost::system::error_code ec;
    boost::asio::read(socket_, boost::asio::buffer(reply_), ec);
  }

  const std::array<uint8_t, 4>& reply() const { return reply_; }

  // Each message goes out as it is written (TCP_NODELAY). A message is two writes (header,
  // payload), so with Nagle's algorithm a test that trades many messages one after the other
  // waits out the peer's delayed ACK (tens of ms) each time.
  void send_without_delay() {
    const int on = 1;
    ::setsockopt(socket_.native_handle(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
  }

  void send_frame(wamp::FrameType type, const std::vector<uint8_t>& payload) {
    const auto header = wamp::frame_header(type, static_cast<uint32_t>(payload.size()));
    boost::asio::write(socket_, boost::asio::buffer(header));
    boost::asio::write(socket_, boost::asio::buffer(payload));
  }
  void send(const wamp::Json& message) {
    std::vector<uint8_t> bytes;
    wamp::encode(serializer_, message, bytes);
    send_frame(wamp::FrameType::kMessage, bytes);
  }
  void send_raw(const std::vector<uint8_t>& bytes) {
    boost::asio::write(socket_, boost::asio::buffer(bytes));
  }

  // The next frame, or nullopt when the connection ended (or the read timed out).
  std::optional<std::pair<wamp::FrameType, std::vector<uint8_t>>> read_frame() {
    if (!readable_within_read_timeout()) return std::nullopt;
    std::array<uint8_t, 4> header{};
    boost::system::error_code ec;
    boost::asio::read(socket_, boost::asio::buffer(header), ec);
    if (ec) return std::nullopt;
    const wamp::FrameHeader parsed = wamp::parse_frame_header(header.data());
    std::vector<uint8_t> payload(parsed.length);
    boost::asio::read(socket_, boost::asio::buffer(payload), ec);
    if (ec) return std::nullopt;
    return std::make_pair(parsed.type, std::move(payload));
  }
  // The next message decoded, or null when the connection ended.
  wamp::Json read() {
    auto frame = read_frame();
    wamp::Json message;
    if (!frame || !wamp::decode(serializer_, frame->second, message)) return nullptr;
    return message;
  }

  // HELLO and WELCOME; returns the session id.
  uint64_t join(const std::string& realm = "realm1") {
    send(wamp::Json::array({1, realm, {{"roles", {{"caller", wamp::Json::object()}}}}}));
    const wamp::Json welcome = read();
    if (!welcome.is_array() || welcome[0] != 2) return 0;
    return welcome[1].get<uint64_t>();
  }

  // True when the router closed the connection (end of stream) within the read timeout;
  // what it sent before is read and dropped (counted in `received` when given).
  bool closed_by_router(size_t* received = nullptr) {
    std::array<uint8_t, 4096> sink{};
    while (readable_within_read_timeout()) {
      const ssize_t n = ::recv(socket_.native_handle(), sink.data(), sink.size(), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      if (received != nullptr) *received += static_cast<size_t>(n);
    }
    return false;
  }

  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

 private:
  // Whether the socket has something to read (bytes or the end of the stream) within 5 s.
  bool readable_within_read_timeout() {
    pollfd descriptor{socket_.native_handle(), POLLIN, 0};
    return ::poll(&descriptor, 1, 5000) > 0;
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  wamp::Serializer serializer_;
  std::array<uint8_t, 4> reply_{};
};

// Polls (bounded) until `done(snapshot)` holds; returns the last snapshot.
template <class Predicate>
metrics::Snapshot wait_for_wamp(wamp::WampServer& server, Predicate done) {
  metrics::Snapshot snapshot;
  for (int i = 0; i < 500; ++i) {
    metrics::Snapshot next;
    server.add_metrics(next);
    snapshot = std::move(next);
    if (done(snapshot)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return snapshot;
}

}  // namespace benchgate::router::testing
