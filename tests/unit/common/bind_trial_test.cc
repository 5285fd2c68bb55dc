// The one bind trial behind the orchestrator's listen probe and the named cause of a failed
// gRPC listen (common/net/bind_trial.h).
#include "common/net/bind_trial.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace benchgate::net {
namespace {

// A TCP socket listening on 127.0.0.1 at a port the kernel picks; its port in `port`.
int listening_on_loopback(uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, 4) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(address.sin_port);
  return fd;
}

TEST(BindTrial, APortAListenerHoldsDoesNotBindAndNothingIsLeftBound) {
  uint16_t port = 0;
  const int fd = listening_on_loopback(port);
  ASSERT_GE(fd, 0);
  const BindTrial held = try_binding("127.0.0.1", port);
  EXPECT_EQ(held.resolve_error, 0);
  ASSERT_EQ(held.attempts.size(), 1u);
  EXPECT_TRUE(held.attempts[0].socket_made);
  EXPECT_FALSE(held.attempts[0].bound());
  EXPECT_EQ(held.attempts[0].error, EADDRINUSE);
  ::close(fd);
  // Free again once the listener is gone: the trial itself kept nothing bound, and binds as
  // the servers do (SO_REUSEADDR: the closed listener's port is free at once).
  const BindTrial freed = try_binding("127.0.0.1", port);
  ASSERT_EQ(freed.attempts.size(), 1u);
  EXPECT_TRUE(freed.attempts[0].bound());
}

TEST(BindTrial, AnAddressNotThisMachinesDoesNotBind) {
  // TEST-NET-1 (RFC 5737): never a local address.
  const BindTrial trial = try_binding("192.0.2.1", 0);
  ASSERT_EQ(trial.attempts.size(), 1u);
  EXPECT_EQ(trial.attempts[0].error, EADDRNOTAVAIL);
}

}  // namespace
}  // namespace benchgate::net
