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

#include "tests/unit/common/private_hosts.h"
#include "tests/unit/orchestrator/loopback_test_support.h"

namespace benchgate::app {
namespace {

// A socket listening on `ip` (numeric, no brackets) at a port the kernel picks; port 0 where
// it could not listen.
struct ListeningSocket {
  explicit ListeningSocket(const std::string& ip) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
    addrinfo* found = nullptr;
    if (::getaddrinfo(ip.c_str(), "0", &hints, &found) != 0) return;
    fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_storage bound{};
    socklen_t size = sizeof bound;
    if (fd >= 0 && ::bind(fd, found->ai_addr, found->ai_addrlen) == 0 && ::listen(fd, 1) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size) == 0) {
      port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                               : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    }
    ::freeaddrinfo(found);
  }
  ~ListeningSocket() {
    if (fd >= 0) ::close(fd);
  }
  ListeningSocket(const ListeningSocket&) = delete;
  ListeningSocket& operator=(const ListeningSocket&) = delete;

  int fd = -1;
  uint16_t port = 0;
};

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
// The names resolve through a hosts file of the test's own (private_hosts.h), whatever this
// machine's /etc/hosts says.
TEST(ListenProbe, APortHeldOnOneOfANamesAddressesIsInUse) {
  const test_support::PrivateHostsRun run =
      test_support::run_with_hosts(test_support::kTwoAddressNamesHosts, [] {
        for (const test_support::TwoAddressName& name : test_support::two_address_names()) {
          for (const std::string& held : name.addresses) {
            const std::string held_host =
                held.find(':') != std::string::npos ? "[" + held + "]" : held;
            const ListeningSocket holder(held);
            if (holder.port == 0) return "cannot listen on " + held;
            const std::string port = std::to_string(holder.port);
            for (const std::string& address : {name.name + ":" + port, held_host + ":" + port}) {
              const std::optional<std::string> why = why_cannot_listen(address);
              if (why != "address already in use") {
                return address + " held on " + held + ": " + why.value_or("free");
              }
            }
          }
        }
        return std::string();
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
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
