// The one bind trial behind the orchestrator's listen probe and the named cause of a failed
// gRPC listen (common/net/bind_trial.h), and whether two listeners' hosts take one address.
#include "common/net/bind_trial.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/orchestrator/loopback_test_support.h"

namespace benchgate::net {
namespace {

TEST(BindTrial, APortAListenerHoldsDoesNotBindAndNothingIsLeftBound) {
  std::optional<test_support::LoopbackListener> listener(std::in_place);
  ASSERT_TRUE(listener->bound());
  const uint16_t port = listener->port();
  const BindTrial held = try_binding("127.0.0.1", port);
  EXPECT_EQ(held.resolve_error, 0);
  ASSERT_EQ(held.attempts.size(), 1u);
  EXPECT_TRUE(held.attempts[0].socket_made);
  EXPECT_FALSE(held.attempts[0].bound());
  EXPECT_EQ(held.attempts[0].error, EADDRINUSE);
  listener.reset();
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

// A listener on every address a name resolves to: one that does not bind keeps it from
// listening, but for an address this machine lacks (::1 where IPv6 is off) where another binds.
TEST(BindTrial, TheRefusalIsTheFirstAddressThatDoesNotBindButOneNotHere) {
  using Attempt = BindTrial::Attempt;
  const auto refusal = [](std::vector<Attempt> attempts) {
    BindTrial trial;
    trial.attempts = std::move(attempts);
    return trial.refusal();
  };
  EXPECT_EQ(refusal({Attempt{true, 0}}), 0);
  EXPECT_EQ(refusal({Attempt{true, 0}, Attempt{true, EADDRINUSE}}), EADDRINUSE);
  EXPECT_EQ(refusal({Attempt{true, EACCES}, Attempt{true, 0}}), EACCES);
  EXPECT_EQ(refusal({Attempt{true, EADDRNOTAVAIL}, Attempt{true, 0}}), 0);
  EXPECT_EQ(refusal({Attempt{false, EAFNOSUPPORT}, Attempt{true, 0}}), 0);
  EXPECT_EQ(refusal({Attempt{true, EADDRNOTAVAIL}, Attempt{true, EADDRINUSE}}), EADDRINUSE);
  // None binds: the reason of the last.
  EXPECT_EQ(refusal({Attempt{true, EADDRNOTAVAIL}}), EADDRNOTAVAIL);
}

TEST(BindTrial, HostsShareAnAddressAsTheyResolveNotAsTheyAreSpelled) {
  // The same address spelled two ways: a name and its address, two IPv6 spellings.
  EXPECT_TRUE(hosts_share_an_address("127.0.0.1", "localhost"));
  EXPECT_TRUE(hosts_share_an_address("localhost", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address("LOCALHOST", "localhost"));
  EXPECT_TRUE(hosts_share_an_address("::1", "0:0::1"));
  EXPECT_TRUE(hosts_share_an_address("127.0.0.1", "127.0.0.1"));
  // A wildcard takes the port on every address, whatever the other host; "0" is 0.0.0.0.
  EXPECT_TRUE(hosts_share_an_address("0.0.0.0", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address("127.0.0.1", "::"));
  EXPECT_TRUE(hosts_share_an_address("0:0::0", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address("0", "127.0.0.1"));
  // Two addresses of one machine: two listeners may each hold the port on theirs.
  EXPECT_FALSE(hosts_share_an_address("127.0.0.1", "127.0.0.2"));
  EXPECT_FALSE(hosts_share_an_address("127.0.0.1", "::1"));
}

// As Linux binds with IPV6_V6ONLY off: 0.0.0.0 was taken to clash with every IPv6 address,
// and an IPv4-mapped address with none of the IPv4 ones it is.
TEST(BindTrial, TheIpv4WildcardTakesNoIpv6AddressAndAMappedAddressIsItsIpv4One) {
  EXPECT_FALSE(hosts_share_an_address("0.0.0.0", "::1"));
  EXPECT_FALSE(hosts_share_an_address("::1", "0.0.0.0"));
  EXPECT_FALSE(hosts_share_an_address("::ffff:0.0.0.0", "::1"));
  EXPECT_TRUE(hosts_share_an_address("::ffff:127.0.0.1", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address("127.0.0.1", "::ffff:7f00:1"));
  EXPECT_TRUE(hosts_share_an_address("0.0.0.0", "::ffff:127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address("::ffff:0.0.0.0", "127.0.0.2"));
  EXPECT_FALSE(hosts_share_an_address("::ffff:127.0.0.1", "127.0.0.2"));
  EXPECT_FALSE(hosts_share_an_address("::ffff:127.0.0.1", "::1"));
  // The IPv6 wildcard is dual stack: every address of both families.
  EXPECT_TRUE(hosts_share_an_address("::", "0.0.0.0"));
  EXPECT_TRUE(hosts_share_an_address("::", "::1"));
  EXPECT_TRUE(hosts_share_an_address("::ffff:127.0.0.1", "::"));
}

// A socket listening on the numeric address `host` at a port the kernel picks, bound as the
// servers bind (SO_REUSEADDR; IPV6_V6ONLY off); port 0 where it could not listen.
class Held {
 public:
  explicit Held(const std::string& host) {
    sockaddr_in6 v6{};
    sockaddr_in v4{};
    const bool ipv6 = host.find(':') != std::string::npos;
    fd_ = ::socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) return;
    const int on = 1;
    const int off = 0;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (ipv6) ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    v6.sin6_family = AF_INET6;
    v4.sin_family = AF_INET;
    auto* address = ipv6 ? reinterpret_cast<sockaddr*>(&v6) : reinterpret_cast<sockaddr*>(&v4);
    socklen_t size = ipv6 ? sizeof v6 : sizeof v4;
    if (::inet_pton(ipv6 ? AF_INET6 : AF_INET, host.c_str(),
                    ipv6 ? static_cast<void*>(&v6.sin6_addr) : static_cast<void*>(&v4.sin_addr)) !=
            1 ||
        ::bind(fd_, address, size) != 0 || ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, address, &size) != 0) {
      return;
    }
    port_ = ntohs(ipv6 ? v6.sin6_port : v4.sin_port);
  }
  ~Held() {
    if (fd_ >= 0) ::close(fd_);
  }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// The rule asked of the kernel: where `a` listens, `b` does not bind exactly when the hosts
// share an address.
TEST(BindTrial, HostsShareAnAddressExactlyWhereTheKernelRefusesTheSecondBind) {
  if (Held("::1").port() == 0) GTEST_SKIP() << "no IPv6 loopback (::1) on this machine";
  const char* hosts[] = {"127.0.0.1", "0.0.0.0", "::1", "::", "::ffff:127.0.0.1", "::ffff:0.0.0.0"};
  for (const char* a : hosts) {
    for (const char* b : hosts) {
      const Held held(a);
      ASSERT_NE(held.port(), 0) << a;
      const BindTrial trial = try_binding(b, held.port());
      ASSERT_EQ(trial.attempts.size(), 1u) << b;
      const bool refused = trial.attempts[0].error == EADDRINUSE;
      EXPECT_EQ(hosts_share_an_address(a, b), refused)
          << a << " listening, " << b << " on its port: " << trial.attempts[0].error;
    }
  }
}

}  // namespace
}  // namespace benchgate::net
