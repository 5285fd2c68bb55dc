// common/net/listener_wakeup.h: the listening sockets a library opened are told apart from the
// others by inode; shut down, a thread blocked polling one wakes with POLLHUP and the port
// accepts no more; a listener on another port, an accepted connection and a socket already
// closed are left alone. Plain sockets on 127.0.0.1 and ::1 (ports chosen by the kernel);
// outcomes, no times.
#include "common/net/listener_wakeup.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <future>
#include <string>

namespace benchgate::net {
namespace {

// A TCP listener on the loopback address of `family` at a port the kernel picks.
struct LoopbackListener {
  explicit LoopbackListener(int family = AF_INET) {
    fd = ::socket(family, SOCK_STREAM, 0);
    sockaddr_storage address{};
    socklen_t length = 0;
    if (family == AF_INET6) {
      auto& v6 = reinterpret_cast<sockaddr_in6&>(address);
      v6.sin6_family = AF_INET6;
      v6.sin6_addr = in6addr_loopback;
      length = sizeof(v6);
    } else {
      auto& v4 = reinterpret_cast<sockaddr_in&>(address);
      v4.sin_family = AF_INET;
      v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      length = sizeof(v4);
    }
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), length), 0);
    EXPECT_EQ(::listen(fd, 8), 0);
    EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
    port = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(address).sin6_port
                                    : reinterpret_cast<sockaddr_in&>(address).sin_port);
  }
  ~LoopbackListener() { ::close(fd); }
  int fd = -1;
  uint16_t port = 0;
};

int connect_to(uint16_t port) {
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  if (::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(client);
    return -1;
  }
  return client;
}

bool still_accepts(uint16_t port) {
  const int client = connect_to(port);
  if (client < 0) return false;
  ::close(client);
  return true;
}

// True once thread `tid` of this process sits in poll or ppoll (/proc/self/task/TID/syscall
// starts with the number of the system call a thread is blocked in).
bool blocked_in_poll(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/syscall");
  long number = -1;
  in >> number;
#ifdef SYS_poll
  if (number == SYS_poll) return true;
#endif
  return number == SYS_ppoll;
}

TEST(ListenerWakeup, AThreadBlockedPollingTheListenerWakesAndThePortAcceptsNoMore) {
  const auto before = listening_sockets();
  LoopbackListener library_listener;
  const auto owned = opened_between(before, listening_sockets(), {library_listener.port});
  ASSERT_EQ(owned.size(), 1u);

  std::atomic<pid_t> poller{0};
  auto woken = std::async(std::launch::async, [&] {
    poller = static_cast<pid_t>(::syscall(SYS_gettid));
    pollfd entry{library_listener.fd, POLLIN, 0};
    return ::poll(&entry, 1, 60'000) == 1 ? entry.revents : 0;
  });
  // Shut down only once the thread is blocked in poll: the wake-up is what is checked.
  for (int i = 0; i < 60'000 && (poller == 0 || !blocked_in_poll(poller)); ++i) ::usleep(1000);
  ASSERT_TRUE(blocked_in_poll(poller));
  EXPECT_EQ(shut_down_listeners(owned), 1);
  EXPECT_NE(woken.get() & POLLHUP, 0);
  EXPECT_FALSE(still_accepts(library_listener.port));
}

TEST(ListenerWakeup, OtherListenersAndConnectionsOnThePortAreLeftAlone) {
  LoopbackListener other;  // open before the "library" starts: never its
  const auto before = listening_sockets();
  LoopbackListener target;
  LoopbackListener v6(AF_INET6);
  const auto owned =
      opened_between(before, listening_sockets(), {target.port, v6.port, other.port});
  EXPECT_EQ(owned.size(), 2u);  // both families, and not `other`, whatever its port

  // A connection to the target: its accepted end is bound to the target's port too.
  const int client = connect_to(target.port);
  ASSERT_GE(client, 0);
  const int accepted = ::accept(target.fd, nullptr, nullptr);
  ASSERT_GE(accepted, 0);

  EXPECT_EQ(shut_down_listeners(owned), 2);
  EXPECT_FALSE(still_accepts(target.port));
  EXPECT_TRUE(still_accepts(other.port));
  // The connection still carries bytes both ways.
  EXPECT_EQ(::write(client, "x", 1), 1);
  char byte = 0;
  EXPECT_EQ(::read(accepted, &byte, 1), 1);
  EXPECT_EQ(byte, 'x');
  ::close(accepted);
  ::close(client);
}

TEST(ListenerWakeup, ASocketNoLongerOpenShutsNothing) {
  std::vector<ino_t> gone;
  {
    const auto before = listening_sockets();
    LoopbackListener closed;
    gone = opened_between(before, listening_sockets(), {closed.port});
    ASSERT_EQ(gone.size(), 1u);
  }
  EXPECT_EQ(shut_down_listeners(gone), 0);
  EXPECT_EQ(shut_down_listeners({}), 0);
}

}  // namespace
}  // namespace benchgate::net
