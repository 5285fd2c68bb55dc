// net::shut_down_listeners_on (common/net/listener_wakeup.h): a thread polling a listener the
// caller holds no descriptor of wakes when the listener on that port is shut down; a listener
// on another port, and a connected socket on the same port, are left alone. Plain sockets on
// 127.0.0.1 (ports chosen by the kernel); outcomes, no times.
#include "common/net/listener_wakeup.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <thread>

namespace benchgate::net {
namespace {

// A TCP listener on 127.0.0.1 at a port the kernel picks; closed on destruction.
struct LoopbackListener {
  LoopbackListener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), length), 0);
    EXPECT_EQ(::listen(fd, 8), 0);
    EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port = ntohs(address.sin_port);
  }
  ~LoopbackListener() { ::close(fd); }
  int fd = -1;
  uint16_t port = 0;
};

// What one poll of `fd` reports, waiting up to a minute: 0 when nothing woke it.
short poll_once(int fd) {
  pollfd entry{fd, POLLIN, 0};
  return ::poll(&entry, 1, 60'000) == 1 ? entry.revents : 0;
}

bool still_accepts(const LoopbackListener& listener) {
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(listener.port);
  const bool connected =
      ::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  ::close(client);
  return connected;
}

TEST(ListenerWakeup, APollOfTheListenerWakesAndTheListenerAcceptsNoMore) {
  LoopbackListener listener;
  std::promise<void> polling;
  auto woken = std::async(std::launch::async, [&] {
    polling.set_value();
    return poll_once(listener.fd);
  });
  polling.get_future().wait();
  EXPECT_EQ(shut_down_listeners_on(listener.port), 1);
  EXPECT_NE(woken.get() & POLLHUP, 0);
  EXPECT_FALSE(still_accepts(listener));
}

TEST(ListenerWakeup, ListenersOnOtherPortsAndConnectionsOnThePortAreLeftAlone) {
  LoopbackListener target;
  LoopbackListener other;
  // A connection to the target: its accepted end is bound to the target's port too.
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(target.port);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const int accepted = ::accept(target.fd, nullptr, nullptr);
  ASSERT_GE(accepted, 0);

  EXPECT_EQ(shut_down_listeners_on(target.port), 1);
  EXPECT_TRUE(still_accepts(other));
  // The connection still carries bytes both ways.
  EXPECT_EQ(::write(client, "x", 1), 1);
  char byte = 0;
  EXPECT_EQ(::read(accepted, &byte, 1), 1);
  EXPECT_EQ(byte, 'x');
  ::close(accepted);
  ::close(client);
}

TEST(ListenerWakeup, APortNoListenerHoldsShutsNothing) {
  uint16_t port = 0;
  {
    LoopbackListener closed;
    port = closed.port;
  }
  EXPECT_EQ(shut_down_listeners_on(port), 0);
  EXPECT_EQ(shut_down_listeners_on(0), 0);
}

}  // namespace
}  // namespace benchgate::net
