// What a socket's peer acknowledged (common/net/acked_bytes.h), over a real loopback TCP pair.
#include "common/net/acked_bytes.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace benchgate::net {
namespace {

TEST(AckedBytes, GrowsByWhatThePeerReceived) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const int server = ::accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);

  const std::optional<uint64_t> before = acked_bytes(client);
  ASSERT_TRUE(before.has_value());
  const std::vector<char> bytes(1000, 'x');
  ASSERT_EQ(::send(client, bytes.data(), bytes.size(), 0), 1000);
  std::vector<char> received(1000);
  size_t got = 0;
  while (got < received.size()) {
    const ssize_t n = ::recv(server, received.data() + got, received.size() - got, 0);
    ASSERT_GT(n, 0);
    got += static_cast<size_t>(n);
  }
  // The acknowledgement may trail the bytes; bounded, so a kernel that never reports fails.
  std::optional<uint64_t> after = acked_bytes(client);
  for (int i = 0; i < 500 && after && *after < *before + 1000; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    after = acked_bytes(client);
  }
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(*after, *before + 1000);
  ::close(server);
  ::close(client);
  ::close(listener);
}

TEST(AckedBytes, ASocketThatIsNotTcpCannotSay) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  EXPECT_FALSE(acked_bytes(pair[0]).has_value());
  ::close(pair[0]);
  ::close(pair[1]);
}

}  // namespace
}  // namespace benchgate::net
