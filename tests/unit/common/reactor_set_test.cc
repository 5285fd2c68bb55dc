// asio_access::leave_reactor_set and rejoin_reactor_set (common/net/asio_access.h), which the
// router's HTTP/1.1 sessions use while their socket waits in the serving thread's own epoll
// set: the descriptor really leaves the reactor's epoll set (taking it out again is refused:
// it is not there), really comes back (adding it again is refused: it is there), and a wait
// started after the rejoin is told of bytes that arrived while it was out. Counts and
// bytes, no times (the wait is bounded only so that a broken rejoin fails instead of hanging).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "common/net/asio_access.h"

namespace benchgate::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

TEST(ReactorSet, ASocketLeavesTheReactorsEpollSetAndRejoinsItWithItsReadinessReported) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
  tcp::socket local(io);
  tcp::socket peer(io);
  local.connect(acceptor.local_endpoint());
  acceptor.accept(peer);

  // Registered in the reactor when it was opened: it leaves once.
  ASSERT_TRUE(asio_access::leave_reactor_set(local));
  EXPECT_FALSE(asio_access::leave_reactor_set(local));

  // Bytes that arrive while it is out...
  const std::string sent = "while out";
  asio::write(peer, asio::buffer(sent));

  ASSERT_TRUE(asio_access::rejoin_reactor_set(local));
  EXPECT_FALSE(asio_access::rejoin_reactor_set(local));

  // ...are reported by the rejoin as a readiness edge: a wait, which Asio never tries at once
  // (unlike a read), completes only on an event of the reactor's epoll set.
  error_code result = asio::error::would_block;
  local.async_wait(tcp::socket::wait_read, [&](const error_code& ec) { result = ec; });
  io.run_for(std::chrono::seconds(5));
  EXPECT_FALSE(result) << result.message();
  char buffer[64];
  error_code read_ec;
  const size_t received = local.read_some(asio::buffer(buffer), read_ec);
  EXPECT_FALSE(read_ec) << read_ec.message();
  EXPECT_EQ(std::string(buffer, received), sent);
}

TEST(ReactorSet, AClosedSocketIsNeitherLeftNorRejoined) {
  asio::io_context io;
  tcp::socket socket(io);
  EXPECT_FALSE(asio_access::leave_reactor_set(socket));
  EXPECT_FALSE(asio_access::rejoin_reactor_set(socket));
}

}  // namespace
}  // namespace benchgate::net
