// See http_listener.h.
#include "common/http_listener/http_listener.h"

#include <netdb.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/asio/ip/v6_only.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

#include "common/net/bind_trial.h"
#include "common/net/host_port.h"
#include "common/util/errno_text.h"

namespace benchgate::http_listener {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// The soft RLIMIT_NOFILE, or 0 when there is none or it cannot be read.
uint64_t soft_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return limit.rlim_cur;
}

}  // namespace

size_t connection_cap(size_t asked, uint64_t soft_file_limit) {
  if (soft_file_limit == 0) return asked;
  constexpr size_t kFloor = 16;
  const auto share = static_cast<size_t>(soft_file_limit / 4);
  return std::min(asked, std::max(share, kFloor));
}

Expected<std::unique_ptr<HttpListener>> HttpListener::start(const std::string& flag,
                                                            const std::string& host_port,
                                                            Handler handler,
                                                            const ListenerOptions& options) {
  auto refused = [&](const std::string& reason) -> Error {
    return Error{flag + " " + host_port + ": cannot listen: " + reason};
  };
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  if (!split.ok()) {
    return refused(host_port.starts_with("unix:") ? kUnixSocketRefused : split.reason);
  }
  std::unique_ptr<HttpListener> listener(new HttpListener());
  listener->connections_.handler = std::move(handler);
  listener->connections_.options = options;
  listener->connections_.options.max_connections =
      connection_cap(options.max_connections, soft_file_limit());
  // What the kernel or the resolver said, lower case first ("address already in use").
  auto failed = [&](const boost::system::error_code& ec) -> Error {
    if (!ec) return refused("no address");
    return refused(ec.category() == boost::system::system_category()
                       ? errno_text(ec.value())
                       : lowercase_first(ec.message()));
  };
  // Resolved as the listen probe's bind trial resolves it, each address once: a name on two
  // lines of /etc/hosts was bound twice, and failed on its own socket.
  const net::ListenAddresses resolved = net::resolve_listen_addresses(split.host, split.port);
  if (resolved.resolve_error != 0) {
    return refused(lowercase_first(::gai_strerror(resolved.resolve_error)));
  }
  std::vector<tcp::endpoint> addresses;
  for (const net::ListenAddress& address : resolved.addresses) {
    tcp::endpoint endpoint;
    std::memcpy(endpoint.data(), address.get(), address.length);
    endpoint.resize(address.length);
    addresses.push_back(endpoint);
  }
  boost::system::error_code ec;
  if (addresses.empty()) return failed(ec);
  // Port 0 takes the port the first address got on the others too; where another program
  // holds it there, a fresh pick, a few times.
  constexpr int kPicks = 8;
  for (int pick = 1;; ++pick) {
    ec = listener->listen_on(addresses);
    if (!ec || split.port != 0 || ec != asio::error::address_in_use || pick == kPicks) break;
  }
  if (ec) return failed(ec);
  listener->address_ = net::join_host_port(split.host, listener->port_);
  for (const auto& acceptor : listener->acceptors_) listener->accept(*acceptor);
  listener->thread_ = std::thread([raw = listener.get()] { raw->io_.run(); });
  return listener;
}

HttpListener::~HttpListener() {
  io_.stop();
  if (thread_.joinable()) thread_.join();
}

boost::system::error_code HttpListener::listen_on(const std::vector<tcp::endpoint>& addresses) {
  acceptors_.clear();
  boost::system::error_code passed_over;
  uint16_t port = addresses.front().port();
  for (tcp::endpoint endpoint : addresses) {
    endpoint.port(port);
    auto acceptor = std::make_unique<Acceptor>(io_);
    tcp::acceptor& socket = acceptor->socket;
    boost::system::error_code ec;
    socket.open(endpoint.protocol(), ec);
    if (!ec) socket.set_option(tcp::acceptor::reuse_address(true), ec);
    // Dual stack whatever net.ipv6.bindv6only says, as gRPC listens: [::] takes IPv4 too
    // (net::hosts_share_an_address reads listeners so).
    if (!ec && endpoint.protocol() == tcp::v6()) socket.set_option(asio::ip::v6_only(false), ec);
    if (!ec) socket.bind(endpoint, ec);
    if (!ec) socket.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) port = socket.local_endpoint(ec).port();
    if (!ec) {
      acceptors_.push_back(std::move(acceptor));
    } else if (ec.category() == boost::system::system_category() &&
               net::address_not_here(ec.value())) {
      passed_over = ec;
    } else {
      acceptors_.clear();
      return ec;
    }
  }
  if (acceptors_.empty()) return passed_over;
  port_ = port;
  return {};
}

void HttpListener::accept(Acceptor& acceptor) {
  acceptor.socket.async_accept(
      [this, &acceptor](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
          admit(std::move(socket));
          accept(acceptor);
          return;
        }
        // Out of file descriptors: a connection gives its own (HttpListener::close_one), else
        // the next try is a moment later (the pending connection waits in the backlog).
        if ((ec == asio::error::no_descriptors || ec.value() == ENFILE) && close_one()) {
          accept(acceptor);
          return;
        }
        acceptor.retry.expires_after(std::chrono::milliseconds(100));
        acceptor.retry.async_wait([this, &acceptor](const boost::system::error_code& waited) {
          if (!waited) accept(acceptor);
        });
      });
}

void HttpListener::admit(tcp::socket socket) {
  if (connections_.open >= connections_.options.max_connections && !close_one()) {
    boost::system::error_code ignored;
    socket.close(ignored);  // every open connection is being answered: this one is refused
    return;
  }
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::make_shared<Connection>(std::move(socket), connections_)->start();
}

bool HttpListener::close_one() {
  for (auto* list : {&connections_.draining, &connections_.waiting, &connections_.writing}) {
    if (!list->empty()) {
      list->front()->close();
      return true;
    }
  }
  return false;
}

}  // namespace benchgate::http_listener
