// benchgate's HTTP/1.1 listener: the orchestrator's /metrics (`run` and `serve`
// --metrics-listen) and serve's --http pages, and the router's /metrics (--metrics-listen).
// One thread serves every connection asynchronously (Boost.Asio and
// Boost.Beast): a connection that sends nothing, or half a request, holds a socket and a small
// buffer, never a thread, so any number of them (up to max_connections; past it one is closed
// to make room, listener_options.h) leave every other request answered at once. Each
// connection has request_timeout to send a request head and to take each answer, is kept alive
// between requests, and reads the next request only once the answer before it is taken. GET and
// HEAD are answered (HEAD with GET's headers and no body); the handler answers other methods (405
// with Allow) and paths. (It replaced CivetWeb's thread per connection: in the orchestrator, 32
// connections held open kept every scrape and page waiting until the 5 s request timeout dropped
// one; in the router, whose prometheus-cpp Exposer had CivetWeb's default 2 threads, 2 idle
// connections did.)
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/http_listener/connection.h"
#include "common/http_listener/exchange.h"
#include "common/http_listener/listener_options.h"
#include "common/util/expected.h"

namespace benchgate::http_listener {

// What max_connections becomes: `asked`, at most a quarter of the soft RLIMIT_NOFILE
// (at least 16); `asked` when there is no limit (soft_file_limit 0).
size_t connection_cap(size_t asked, uint64_t soft_file_limit);

class HttpListener {
 public:
  // Listens on HOST:PORT (port 0 picks a free one; an IPv6 host in brackets, "[::1]:0") and
  // serves until destroyed; `flag` names the address in an error ("--http 127.0.0.1:80: cannot
  // listen: permission denied"; not HOST:PORT by common/net/host_port.h: that parser's reason).
  // A host name is listened on at every address it resolves to ("localhost": 127.0.0.1 and
  // ::1, as /etc/hosts has it; each address once, as the listen probe reads the name:
  // net::resolve_listen_addresses), on one port (0: the one the first address got, the pick
  // tried again where another address holds it), and fails when one of them cannot be
  // listened on, but for an address this machine lacks where another listens
  // (net::BindTrial::refusal: ::1 where IPv6 is off).
  // The orchestrator checks its addresses first, for a hint beside the reason
  // (orchestrator/http_listener/listen_address.h).
  static Expected<std::unique_ptr<HttpListener>> start(const std::string& flag,
                                                       const std::string& host_port,
                                                       Handler handler,
                                                       const ListenerOptions& options = {});
  // Stops serving: closes the listening socket and every connection, and joins the thread.
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  uint16_t port() const { return port_; }
  // "HOST:PORT" with the port bound ("[::1]:41234" for an IPv6 host).
  const std::string& address() const { return address_; }

 private:
  HttpListener() = default;
  struct Acceptor {
    explicit Acceptor(boost::asio::io_context& io) : socket(io), retry(io) {}
    boost::asio::ip::tcp::acceptor socket;
    boost::asio::steady_timer retry;
  };
  // Listens on each of `addresses` (one port, that of the first; 0 picks one), passing over an
  // address this machine lacks where another listens; the first other failure, or the last
  // when none listens. Nothing is left listening on a failure.
  boost::system::error_code listen_on(const std::vector<boost::asio::ip::tcp::endpoint>& addresses);
  void accept(Acceptor& acceptor);
  void admit(boost::asio::ip::tcp::socket socket);
  // Closes the connection draining longest, else the one that has waited longest for its
  // request, else the one whose answer has waited longest to be taken; false when none is
  // (every open connection is being answered).
  bool close_one();

  // Declared before the io_context: the connections its handlers hold, destroyed with it,
  // leave their count and place here as they go.
  Connections connections_;
  boost::asio::io_context io_{1};
  std::vector<std::unique_ptr<Acceptor>> acceptors_;  // one an address the host resolves to
  std::thread thread_;
  uint16_t port_ = 0;
  std::string address_;
};

}  // namespace benchgate::http_listener
