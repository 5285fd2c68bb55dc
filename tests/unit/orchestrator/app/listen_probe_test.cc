// why_cannot_listen (orchestrator/app/listen_probe.h), the check of serve --listen, --http,
// --metrics-listen and run --metrics-listen before a library binds. It split HOST:PORT by hand
// before: ":0" went to getaddrinfo as no host (every interface) and "::1:0" as host "::1",
// where the worker's and the router's listen flags refuse both.
#include "orchestrator/app/listen_probe.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace benchgate::app {
namespace {

TEST(ListenProbe, AnAddressThatIsNotHostPortIsRefusedWithTheSharedParsersReason) {
  EXPECT_EQ(why_cannot_listen(":0"),
            "its HOST is empty (give 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT or "
            "[::]:PORT for every interface)");
  EXPECT_EQ(why_cannot_listen("::1:0"),
            "an IPv6 host is written in brackets, as in \"[::1]:7700\"");
  EXPECT_EQ(why_cannot_listen("127.0.0.1"), "it has no :PORT");
  EXPECT_EQ(why_cannot_listen("[::1]"), "its [IPv6] host is not bracketed on both sides");
  EXPECT_EQ(why_cannot_listen("x!:0"), "its host has a character no host name has ('!')");
  // The kernel would bind 99999 modulo 65536 (34463), a port nobody asked for.
  EXPECT_EQ(why_cannot_listen("127.0.0.1:99999"),
            "its port '99999' is not a number from 0 to 65535");
  EXPECT_EQ(why_cannot_listen("127.0.0.1:"), "its port '' is not a number from 0 to 65535");
}

// The kernel's reason, in the case the messages write it, where the port is held: serve and
// `run --metrics-listen` refuse it before a server prints gRPC's or the HTTP library's words.
TEST(ListenProbe, APortAListenerHoldsIsNamedInTheKernelsWords) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));
  EXPECT_EQ(why_cannot_listen("127.0.0.1:" + port), "address already in use");
  EXPECT_EQ(why_cannot_listen("localhost:" + port), "address already in use");
  EXPECT_EQ(why_cannot_listen("192.0.2.1:0"), "cannot assign requested address");
  ::close(fd);
  EXPECT_EQ(why_cannot_listen("127.0.0.1:" + port), std::nullopt);
}

TEST(ListenProbe, AFreePortAndAUnixPathAreLeftToTheServer) {
  EXPECT_EQ(why_cannot_listen("127.0.0.1:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("localhost:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("unix:/nonexistent/folder/socket"), std::nullopt);
}

}  // namespace
}  // namespace benchgate::app
