// A blocking HTTP/1.1 test client for the in-process router tests: writes raw bytes (so a
// test can pipeline or send malformed requests) and reads responses one by one. Every read
// gives up after a few seconds, so a misbehaving server fails the test instead of hanging it.
#pragma once

#include <sys/socket.h>
#include <sys/time.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include "router/http/server.h"

namespace benchgate::router::testing {

using Response = boost::beast::http::response<boost::beast::http::string_body>;

class HttpTestClient {
 public:
  explicit HttpTestClient(uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address_v4("127.0.0.1"), port});
    const timeval timeout{5, 0};
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }

  void send(std::string_view bytes) {
    boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size()));
    sent_ += bytes.size();
  }

  // The next response, or nullopt when the connection ended (or the read timed out).
  std::optional<Response> read() {
    boost::beast::http::response_parser<boost::beast::http::string_body> parser;
    parser.body_limit(1ull << 30);
    boost::system::error_code ec;
    const size_t n = boost::beast::http::read(socket_, buffer_, parser, ec);
    received_ += n;
    if (ec) return std::nullopt;
    return parser.release();
  }

  // True when the server closed the connection (end of stream, nothing more to read).
  bool closed_by_server() {
    char byte;
    boost::system::error_code ec;
    if (buffer_.size() > 0) return false;
    socket_.read_some(boost::asio::buffer(&byte, 1), ec);
    return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
  }

  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  size_t bytes_sent() const { return sent_; }
  size_t bytes_received() const { return received_; }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
  size_t sent_ = 0;
  size_t received_ = 0;
};

// Waits (bounded) until every connection the server accepted is gone: then every handler of
// those connections has run and the counters are final.
inline metrics::Snapshot quiesced_snapshot(http::HttpServer& server, uint64_t accepted) {
  metrics::Snapshot snapshot = server.snapshot();
  for (int i = 0; i < 500; ++i) {
    if (snapshot.connections_open == 0 && snapshot.counters.connections_accepted >= accepted) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    snapshot = server.snapshot();
  }
  return snapshot;
}

}  // namespace benchgate::router::testing
