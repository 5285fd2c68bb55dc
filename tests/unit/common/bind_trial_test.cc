// The one bind trial behind the orchestrator's listen probe and the named cause of a failed
// gRPC listen (common/net/bind_trial.h), and whether two listeners' hosts take one address.
#include "common/net/bind_trial.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/unit/common/private_hosts.h"
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

// A numeric address with a port, as getaddrinfo gives it ("fe80::1%2": scope 2).
ListenAddress numeric(const std::string& host, uint16_t port) {
  ListenAddress out;
  const size_t percent = host.find('%');
  const std::string bare = host.substr(0, percent);
  if (bare.find(':') == std::string::npos) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&out.storage);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    EXPECT_EQ(::inet_pton(AF_INET, bare.c_str(), &v4->sin_addr), 1) << host;
    out.length = sizeof *v4;
  } else {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    EXPECT_EQ(::inet_pton(AF_INET6, bare.c_str(), &v6->sin6_addr), 1) << host;
    if (percent != std::string::npos) v6->sin6_scope_id = std::stoul(host.substr(percent + 1));
    out.length = sizeof *v6;
  }
  return out;
}

std::string shown(const ListenAddress& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.family() == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address.get())->sin_addr, text,
                sizeof text);
    return text;
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address.get());
  ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
  return std::string(text) +
         (v6->sin6_scope_id != 0 ? "%" + std::to_string(v6->sin6_scope_id) : "");
}

// A name on two lines of /etc/hosts resolves to one address twice: the HTTP listener bound it
// twice and failed on its own socket, while the bind trial bound each alone and called the port
// free. Each address is kept once, the first of it, in getaddrinfo's order.
TEST(BindTrial, AnAddressGivenTwiceIsKeptOnceWhereItFirstCame) {
  std::vector<ListenAddress> given;
  for (const auto& [host, port] : std::vector<std::pair<std::string, uint16_t>>{
           {"127.0.0.1", 80},
           {"::1", 80},
           {"127.0.0.1", 80},         // a second /etc/hosts line
           {"127.0.0.1", 81},         // the port plays no part: all are bound on one
           {"::ffff:127.0.0.1", 80},  // the IPv4 address a dual-stack socket binds
           {"127.0.0.2", 80},
           {"0.0.0.0", 80},  // a wildcard is kept beside an address it covers
           {"::1", 80},
           {"fe80::1%2", 80},
           {"fe80::1%3", 80},  // one address on two interfaces: two
           {"fe80::1%2", 80}}) {
    given.push_back(numeric(host, port));
  }
  std::vector<std::string> kept;
  for (const ListenAddress& address : distinct_addresses(given)) kept.push_back(shown(address));
  EXPECT_EQ(kept, (std::vector<std::string>{"127.0.0.1", "::1", "127.0.0.2", "0.0.0.0", "fe80::1%2",
                                            "fe80::1%3"}));
  EXPECT_TRUE(distinct_addresses({}).empty());
}

// Through getaddrinfo: a hosts file (in a mount namespace of the test's own) with a name on two
// lines. The bind trial tried its address twice.
TEST(BindTrial, ANameOnTwoLinesOfTheHostsFileIsTriedOnce) {
  const test_support::PrivateHostsRun run =
      test_support::run_with_hosts("127.0.0.1 twice.test\n127.0.0.1 twice.test\n", [] {
        const ListenAddresses resolved = resolve_listen_addresses("twice.test", 0);
        if (resolved.resolve_error != 0) return std::string("twice.test did not resolve");
        const BindTrial trial = try_binding("twice.test", 0);
        if (trial.attempts.size() != 1) {
          return "tried " + std::to_string(trial.attempts.size()) + " addresses";
        }
        return trial.refusal() == 0 ? std::string() : std::string(std::strerror(trial.refusal()));
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
}

// At load of a file a client may have sent, nothing is looked up: a numeric host is compared by
// address, "localhost" as 127.0.0.1 and ::1, any other name only with itself.
TEST(BindTrial, HostsShareAnAddressWithoutALookupByAddressLocalhostOrTheSameName) {
  EXPECT_TRUE(hosts_share_an_address_without_lookup("127.0.0.1", "localhost"));
  EXPECT_TRUE(hosts_share_an_address_without_lookup("LocalHost", "::1"));
  EXPECT_TRUE(hosts_share_an_address_without_lookup("0.0.0.0", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address_without_lookup("::", "localhost"));
  EXPECT_TRUE(hosts_share_an_address_without_lookup("::ffff:127.0.0.1", "127.0.0.1"));
  EXPECT_TRUE(hosts_share_an_address_without_lookup("router.example", "Router.Example"));
  EXPECT_FALSE(hosts_share_an_address_without_lookup("0.0.0.0", "::1"));
  EXPECT_FALSE(hosts_share_an_address_without_lookup("127.0.0.1", "127.0.0.2"));
  // A name other than localhost is not resolved, whatever it would resolve to.
  EXPECT_FALSE(hosts_share_an_address_without_lookup("router.example", "0.0.0.0"));
  EXPECT_FALSE(hosts_share_an_address_without_lookup("no-such-host.invalid", "127.0.0.1"));
}

TEST(BindTrial, ThisMachinesHostsAreLoopbackWildcardsLocalhostAndItsInterfaces) {
  for (const char* host :
       {"localhost", "127.0.0.1", "127.1.2.3", "::1", "0.0.0.0", "::", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(names_this_machine(host)) << host;
  }
  // Documentation addresses (TEST-NET-3, RFC 5737; 2001:db8::/32) on no interface here; a name
  // is not looked up.
  for (const char* host : {"203.0.113.9", "2001:db8::9", "no-such-host.invalid", "example.com"}) {
    EXPECT_FALSE(names_this_machine(host)) << host;
  }
  // Each IPv4 address an interface has, loopback or not.
  ifaddrs* interfaces = nullptr;
  ASSERT_EQ(::getifaddrs(&interfaces), 0);
  for (const ifaddrs* at = interfaces; at != nullptr; at = at->ifa_next) {
    if (at->ifa_addr == nullptr || at->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(at->ifa_addr)->sin_addr, text,
                sizeof text);
    EXPECT_TRUE(names_this_machine(text)) << text << " (" << at->ifa_name << ")";
  }
  ::freeifaddrs(interfaces);
}

}  // namespace
}  // namespace benchgate::net
