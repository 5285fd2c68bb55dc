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
  // The connections reading and dropping what a client sent after its last answer (within
  // drain_timeout), those waiting for (the rest of) a request, and those whose answer is not yet
  // all taken, each the one there longest first. A new connection that finds max_connections
  // open closes the first draining one, else the first waiting one, else the first writing one.
  std::list<Connection*> draining;
  std::list<Connection*> waiting;
  std::list<Connection*> writing;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(boost::asio::ip::tcp::socket socket, Connections& shared);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void start();
  // Closes it (to make room): its read or write ends, and with it the connection.
  void close();

 private:
  void read_request();
  void on_request_head(boost::beast::error_code ec);
  // Sends `answer` (its body left out for a HEAD); then the next request, or the end.
  void send(Answer answer, bool head, bool keep_alive, int version);
  void on_sent(boost::beast::error_code ec, bool keep_alive);
  // After the last answer of a connection: what the client still sends (a body that was not
  // read, a pipelined request) is read and dropped, up to 1 MiB and within drain_timeout from
  // the first read, before the socket closes, so that the kernel does not reset the
  // connection and lose the answer.
  void drain();
  // Puts it in one of the lists of Connections (leaving the one it was in), or in none.
  void enter(std::list<Connection*>& list);
  void leave();

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::empty_body>> parser_;
  Connections& shared_;
  std::list<Connection*>* listed_in_ = nullptr;
  std::list<Connection*>::iterator listed_at_;
  std::string out_;
  std::array<char, 2048> sink_{};
  size_t drained_ = 0;
};

}  // namespace benchgate::http_listener
