// One connection of the HTTP listener (http_listener.h): reads a request head within the
// deadline, asks the handler, writes the answer within the deadline, and reads the next
// request when it is kept alive. Every step is asynchronous on the listener's one thread, so
// a connection that sends nothing holds its socket, a timer and a small buffer, and nobody
// waits for it.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <cstddef>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "common/http_listener/exchange.h"
#include "common/http_listener/listener_options.h"

namespace benchgate::http_listener {

class Connection;

// What the connections of one listener share; it outlives them.
struct Connections {
  Handler handler;
  ListenerOptions options;
  size_t open = 0;
  // The connections waiting for (the rest of) a request, the one that has waited longest
  // first: the one closed when a new connection finds max_connections open.
  std::list<Connection*> waiting;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, Connections& shared);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // Closes it while it waits for a request (to make room): its read ends, and with it the
  // connection.
  void close();

 private:
  void read_request();
  void on_request_head(boost::beast::error_code ec);
  // Sends `answer` (its body left out for a HEAD); then the next request, or the end.
  void send(Answer answer, bool head, bool keep_alive, int version, bool unread_body);
  void on_sent(boost::beast::error_code ec, bool keep_alive, bool unread_body);
  // After the answer to a request whose body was not read: the rest of what the client sends
  // is read and dropped (up to a bound) before the socket closes, so that the kernel does not
  // reset the connection and lose the answer.
  void drain();
  void stop_waiting();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> parser_;
  Connections& shared_;
  bool waiting_ = false;
  std::list<Connection*>::iterator waiting_at_;
  std::string out_;
  std::array<char, 2048> sink_{};
  size_t drained_ = 0;
};

}  // namespace benchgate::http_listener
