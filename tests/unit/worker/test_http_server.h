// A tiny HTTP/1.1 server for the worker's tests: 127.0.0.1, a free port, one thread. It
// parses requests (Content-Length framing), answers each with whatever `respond` returns
// and counts exactly what it did, so tests can compare the engine's counts with the truth.
// `respond` may ask to close the connection instead of (or after) answering.
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace benchgate::worker::testing {

struct Reply {
  std::string bytes;         // written as is (may be empty)
  bool close_after = false;  // close the connection after writing `bytes`
};

class TestHttpServer {
 public:
  // Called for every complete request with its body; runs on the server thread.
  using Respond = std::function<Reply(std::string_view body)>;

  explicit TestHttpServer(Respond respond)
      : respond_(std::move(respond)),
        acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TestHttpServer() {
    io_.stop();
    thread_.join();
  }

  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  uint64_t requests() const { return requests_.load(); }
  uint64_t replies() const { return replies_.load(); }  // non-empty replies written
  uint64_t connections() const { return connections_.load(); }
  // Connections accepted and not yet closed by the peer.
  uint64_t open_connections() const { return open_.load(); }
  // The n-th connection accepted (from 1) is closed at once, unread, as a server whose idle
  // timeout expired or that restarted would close it. Set before the first connection.
  void close_on_accept(uint64_t n) { close_on_accept_ = n; }

  static std::string ok(std::string_view body, std::string_view extra_headers = "") {
    return "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
           std::string(extra_headers) + "\r\n" + std::string(body);
  }

 private:
  class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(TestHttpServer& server, boost::asio::ip::tcp::socket socket)
        : server_(server), socket_(std::move(socket)) {
      ++server_.open_;
    }
    // The last handler holding the session has returned: the peer closed or the server did.
    ~Session() { --server_.open_; }
    void start() { read(); }

   private:
    void read() {
      socket_.async_read_some(boost::asio::buffer(chunk_),
                              [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                                if (ec) return;
                                self->buffer_.append(self->chunk_, n);
                                self->serve();
                              });
    }
    // Answers every complete request in the buffer, then reads on.
    void serve() {
      std::string out;
      bool close = false;
      for (;;) {
        const size_t end = buffer_.find("\r\n\r\n");
        if (end == std::string::npos) break;
        size_t length = 0;
        const size_t cl = buffer_.find("Content-Length: ");
        if (cl != std::string::npos && cl < end) length = std::stoul(buffer_.substr(cl + 16));
        if (buffer_.size() < end + 4 + length) break;
        const std::string body = buffer_.substr(end + 4, length);
        buffer_.erase(0, end + 4 + length);
        ++server_.requests_;
        Reply reply = server_.respond_(body);
        if (!reply.bytes.empty()) ++server_.replies_;
        out += reply.bytes;
        if (reply.close_after) {
          close = true;
          break;
        }
      }
      if (out.empty() && !close) return read();
      auto data = std::make_shared<std::string>(std::move(out));
      boost::asio::async_write(
          socket_, boost::asio::buffer(*data),
          [self = shared_from_this(), data, close](boost::system::error_code ec, size_t) {
            if (ec) return;
            if (close) {
              boost::system::error_code ignored;
              self->socket_.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
              self->socket_.close(ignored);
              return;
            }
            self->read();
          });
    }

    TestHttpServer& server_;
    boost::asio::ip::tcp::socket socket_;
    char chunk_[16384];
    std::string buffer_;
  };

  void accept() {
    port_ = acceptor_.local_endpoint().port();
    acceptor_.async_accept([this](boost::system::error_code ec, boost::asio::ip::tcp::socket s) {
      if (ec) return;
      if (++connections_ == close_on_accept_) {
        boost::system::error_code ignored;
        s.close(ignored);
      } else {
        std::make_shared<Session>(*this, std::move(s))->start();
      }
      accept();
    });
  }

  Respond respond_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> replies_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> open_{0};
  uint64_t close_on_accept_ = 0;  // 0: none
  std::thread thread_;
};

}  // namespace benchgate::worker::testing
