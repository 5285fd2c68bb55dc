// why_cannot_listen (orchestrator/app/listen_probe.h), the check of serve --listen, --http,
// --metrics-listen and run --metrics-listen before a library binds. It split HOST:PORT by hand
// before: ":0" went to getaddrinfo as no host (every interface) and "::1:0" as host "::1",
// where the worker's and the router's listen flags refuse both.
#include "orchestrator/app/listen_probe.h"

#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "tests/unit/orchestrator/loopback_test_support.h"

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
  std::optional<test_support::LoopbackListener> listener(std::in_place);
  ASSERT_TRUE(listener->bound());
  const std::string port = std::to_string(listener->port());
  EXPECT_EQ(why_cannot_listen("127.0.0.1:" + port), "address already in use");
  EXPECT_EQ(why_cannot_listen("localhost:" + port), "address already in use");
  EXPECT_EQ(why_cannot_listen("192.0.2.1:0"), "cannot assign requested address");
  listener.reset();
  EXPECT_EQ(why_cannot_listen("127.0.0.1:" + port), std::nullopt);
}

// A name is free where every address it resolves to is, as the HTTP listener listens on each:
// "localhost" was free where ::1 bound, its port held on 127.0.0.1 (or the other way round).
TEST(ListenProbe, APortHeldOnOneOfANamesAddressesIsInUse) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  ASSERT_EQ(::getaddrinfo("localhost", "0", &hints, &found), 0);
  int families = 0;
  for (const addrinfo* at = found; at != nullptr; at = at->ai_next) {
    families |= at->ai_family == AF_INET6 ? 2 : 1;
  }
  ::freeaddrinfo(found);
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_loopback;
  socklen_t size = sizeof address;
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool held = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
                    ::listen(fd, 1) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0;
  const std::string port = std::to_string(ntohs(address.sin6_port));
  if (families == 3 && held) {
    EXPECT_EQ(why_cannot_listen("localhost:" + port), "address already in use");
    EXPECT_EQ(why_cannot_listen("[::1]:" + port), "address already in use");
  }
  if (fd >= 0) ::close(fd);
  if (families != 3 || !held) {
    GTEST_SKIP() << "localhost is not both 127.0.0.1 and ::1 here, or ::1 cannot be listened on";
  }
  // The other way round: APortAListenerHoldsIsNamedInTheKernelsWords.
}

TEST(ListenProbe, AFreePortAndAUnixPathAreLeftToTheServer) {
  EXPECT_EQ(why_cannot_listen("127.0.0.1:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("localhost:0"), std::nullopt);
  EXPECT_EQ(why_cannot_listen("unix:/nonexistent/folder/socket"), std::nullopt);
}

// serve's listeners on one port are named before anything listens. The hosts were compared as
// text: "127.0.0.1:7700" and "localhost:7700" passed, and the second listener then failed with
// "address already in use", its taker unnamed.
TEST(ListenProbe, TwoListenersOnOnePortAreNamedHoweverTheHostIsSpelled) {
  const auto clash = [](const std::string& a, const std::string& b) {
    return listeners_on_one_port({{"--listen", a}, {"--metrics-listen", b}});
  };
  EXPECT_EQ(clash("127.0.0.1:7700", "127.0.0.1:7700"),
            "--metrics-listen 127.0.0.1:7700: the port of --listen 127.0.0.1:7700; give each "
            "listener a port of its own");
  EXPECT_EQ(clash("127.0.0.1:7700", "localhost:7700"),
            "--metrics-listen localhost:7700: the port of --listen 127.0.0.1:7700; give each "
            "listener a port of its own");
  EXPECT_NE(clash("localhost:7700", "127.0.0.1:7700"), std::nullopt);
  EXPECT_NE(clash("[::1]:7700", "[0:0::1]:7700"), std::nullopt);
  // A wildcard, however written, takes the port on every address.
  EXPECT_NE(clash("0.0.0.0:7700", "127.0.0.1:7700"), std::nullopt);
  EXPECT_NE(clash("127.0.0.1:7700", "[::]:7700"), std::nullopt);
  EXPECT_NE(clash("[0::0]:7700", "127.0.0.1:7700"), std::nullopt);
  // An IPv4-mapped address is the IPv4 address it maps.
  EXPECT_NE(clash("[::ffff:127.0.0.1]:7700", "127.0.0.1:7700"), std::nullopt);
  // The third listener is named against the one it shares a port with.
  EXPECT_EQ(listeners_on_one_port({{"--listen", "127.0.0.1:7700"},
                                   {"--metrics-listen", "127.0.0.1:9464"},
                                   {"--http", "localhost:9464"}}),
            "--http localhost:9464: the port of --metrics-listen 127.0.0.1:9464; give each "
            "listener a port of its own");
}

TEST(ListenProbe, ListenersOnTwoPortsOrTwoAddressesAreLeftAlone) {
  const auto clash = [](const std::string& a, const std::string& b) {
    return listeners_on_one_port({{"--listen", a}, {"--metrics-listen", b}});
  };
  EXPECT_EQ(clash("127.0.0.1:7700", "127.0.0.1:9464"), std::nullopt);
  EXPECT_EQ(clash("127.0.0.1:0", "localhost:0"), std::nullopt);  // each gets a free port
  EXPECT_EQ(clash("127.0.0.1:7700", "127.0.0.2:7700"), std::nullopt);
  // The IPv4 wildcard takes no IPv6 address: both listen.
  EXPECT_EQ(clash("0.0.0.0:7700", "[::1]:7700"), std::nullopt);
  EXPECT_EQ(clash("unix:/run/serve.sock", "127.0.0.1:7700"), std::nullopt);
  EXPECT_EQ(
      listeners_on_one_port(
          {{"--listen", "127.0.0.1:7700"}, {"--metrics-listen", "127.0.0.1:9464"}, {"--http", ""}}),
      std::nullopt);
}

}  // namespace
}  // namespace benchgate::app
