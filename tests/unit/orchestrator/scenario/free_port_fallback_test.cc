// ${port:NAME}'s fallback, the kernel's choice of a port on 127.0.0.1 (free_port.h): a port the
// kernel found free there may be held on another loopback address a key names
// (127.0.0.53:${port:sut}), which holds no port of 127.0.0.1's. It is checked on every address,
// as a port drawn outside the ephemeral range is, and the kernel asked again.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

#include "orchestrator/scenario/free_port.h"

namespace benchgate::scenario {
namespace {

// A listener on `host` (IPv4, network order) at a port the kernel picks; closed when it goes.
class Listener {
 public:
  explicit Listener(uint32_t host) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = host;
    socklen_t size = sizeof address;
    if (fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
        ::listen(fd_, 1) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~Listener() {
    if (fd_ >= 0) ::close(fd_);
  }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  uint16_t port() const { return port_; }

 private:
  int fd_;
  uint16_t port_ = 0;
};

TEST(FreePortFallback, AKernelPortHeldOnAnotherLoopbackAddressIsNotGiven) {
  const Listener elsewhere(htonl(0x7f000035));  // 127.0.0.53
  ASSERT_NE(elsewhere.port(), 0);
  uint16_t free_port = 0;
  {
    const Listener probe(htonl(INADDR_LOOPBACK));
    free_port = probe.port();
  }
  ASSERT_NE(free_port, 0);
  int asked = 0;
  const auto port = kernel_port_free_everywhere(
      [&]() -> Expected<uint16_t> { return ++asked == 1 ? elsewhere.port() : free_port; });
  ASSERT_TRUE(port.ok()) << port.message();
  EXPECT_EQ(*port, free_port);
  EXPECT_EQ(asked, 2);
}

TEST(FreePortFallback, AKernelPortFreeEverywhereIsGivenAtOnce) {
  uint16_t free_port = 0;
  {
    const Listener probe(htonl(INADDR_LOOPBACK));
    free_port = probe.port();
  }
  ASSERT_NE(free_port, 0);
  int asked = 0;
  const auto port = kernel_port_free_everywhere([&]() -> Expected<uint16_t> {
    ++asked;
    return free_port;
  });
  ASSERT_TRUE(port.ok()) << port.message();
  EXPECT_EQ(*port, free_port);
  EXPECT_EQ(asked, 1);
}

TEST(FreePortFallback, TheKernelsOwnFailureIsReported) {
  const auto port = kernel_port_free_everywhere(
      []() -> Expected<uint16_t> { return Error{"bind for a port on 127.0.0.1: no"}; });
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.message(), "bind for a port on 127.0.0.1: no");
}

}  // namespace
}  // namespace benchgate::scenario
