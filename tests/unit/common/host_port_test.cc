// HOST:PORT split by one rule (common/net/host_port.h). Before it, the orchestrator, the worker
// and the router each split an address by rules of their own: a workload's address
// "::1:7700" was read as host "::1", port 7700, where the orchestrator refused it; the router
// took "a b:80" and "[x]:80" and left them to fail at bind.
#include "common/net/host_port.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate::net {
namespace {

TEST(HostPort, SplitsANameAnIpv4AndABracketedIpv6Address) {
  auto name = split_host_port("localhost:7700", kDialMinPort);
  ASSERT_TRUE(name.ok()) << name.reason;
  EXPECT_EQ(name.host, "localhost");
  EXPECT_EQ(name.port, 7700);
  EXPECT_FALSE(name.ipv6);
  EXPECT_EQ(name.reason, "");

  auto v4 = split_host_port("127.0.0.1:65535", kDialMinPort);
  ASSERT_TRUE(v4.ok()) << v4.reason;
  EXPECT_EQ(v4.host, "127.0.0.1");
  EXPECT_EQ(v4.port, 65535);

  auto v6 = split_host_port("[::1]:1", kDialMinPort);
  ASSERT_TRUE(v6.ok()) << v6.reason;
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 1);
  EXPECT_TRUE(v6.ipv6);

  auto zoned = split_host_port("[fe80::1%eth0]:80", kDialMinPort);
  ASSERT_TRUE(zoned.ok()) << zoned.reason;
  EXPECT_EQ(zoned.host, "fe80::1%eth0");
  EXPECT_TRUE(zoned.ipv6);

  for (const char* good : {"serve.example:1", "my-worker_1.svc.cluster.local:7800", "10.0.0.2:080",
                           "[2001:db8::7]:7800", "[::ffff:127.0.0.1]:9", "x:1"}) {
    EXPECT_TRUE(split_host_port(good, kDialMinPort).ok()) << good;
  }
}

TEST(HostPort, TheCallerSaysWhetherPortZeroIsTaken) {
  auto listen = split_host_port("127.0.0.1:0", kListenMinPort);
  ASSERT_TRUE(listen.ok()) << listen.reason;
  EXPECT_EQ(listen.port, 0);
  auto v6 = split_host_port("[::]:0", kListenMinPort);
  ASSERT_TRUE(v6.ok()) << v6.reason;
  EXPECT_EQ(v6.host, "::");

  auto dial = split_host_port("127.0.0.1:0", kDialMinPort);
  EXPECT_EQ(dial.problem, HostPortProblem::kBadPort);
  EXPECT_EQ(dial.reason, "its port '0' is not a number from 1 to 65535");
  EXPECT_EQ(split_host_port("127.0.0.1:65536", kListenMinPort).reason,
            "its port '65536' is not a number from 0 to 65535");
}

TEST(HostPort, APortIsDecimalDigitsOnly) {
  for (const char* bad : {"h:", "h:65536", "h:99999999999999999999", "h:-1", "h:+80", "h: 80",
                          "h:80 ", "h:0x50", "h:8o", "h:80\n"}) {
    const auto split = split_host_port(bad, kListenMinPort);
    EXPECT_EQ(split.problem, HostPortProblem::kBadPort) << bad;
    EXPECT_FALSE(split.ok()) << bad;
    EXPECT_EQ(split.host, "") << bad;
  }
  // Shown escaped in the reason.
  EXPECT_EQ(split_host_port("h:8\x1b", kDialMinPort).reason,
            "its port '8\\x1b' is not a number from 1 to 65535");
}

TEST(HostPort, AnIpv6HostIsBracketed) {
  // Split at the last ':', "::1:7700" would be host "::1", port 7700, and "::1" alone would
  // be host ":", port 1: an unbracketed IPv6 host is refused rather than guessed at.
  for (const char* bad : {"::1:7700", "::1", "fe80::1:80", "a:b:80", "a]b:80", "a[b:80"}) {
    const auto split = split_host_port(bad, kListenMinPort);
    EXPECT_EQ(split.problem, HostPortProblem::kUnbracketedIpv6) << bad;
    EXPECT_EQ(split.reason, "an IPv6 host is written in brackets, as in \"[::1]:7700\"") << bad;
  }
  for (const char* bad : {"[::1:7700", "::1]:7700", "[]:7700", "[:80", "]:80"}) {
    EXPECT_EQ(split_host_port(bad, kListenMinPort).problem, HostPortProblem::kHalfBracketed) << bad;
  }
  for (const char* bad :
       {"[nope]:7700", "[127.0.0.1]:80", "[::1%]:80", "[::1%a%b]:80", "[:::1]:80", "[[::1]]:80"}) {
    EXPECT_EQ(split_host_port(bad, kListenMinPort).problem, HostPortProblem::kNotIpv6) << bad;
  }
  EXPECT_EQ(split_host_port("[nope]:7700", kDialMinPort).reason,
            "'nope' in brackets is not an IPv6 address");
  // The port after a bracketed host is checked as any other.
  EXPECT_EQ(split_host_port("[::1]:", kDialMinPort).problem, HostPortProblem::kBadPort);
  EXPECT_EQ(split_host_port("[::1]", kDialMinPort).problem, HostPortProblem::kHalfBracketed);
}

TEST(HostPort, AHostHasOnlyTheCharactersOfANameOrAnAddress) {
  for (const char* bad : {"a b:80", "a,b:80", "a/b:80", "user@h:80", "h?x:80", "h#x:80", "a\\b:80",
                          "x!:80", "*:80", "h%eth0:80", "h\t:80", "caf\xc3\xa9:80"}) {
    const auto split = split_host_port(bad, kListenMinPort);
    EXPECT_EQ(split.problem, HostPortProblem::kForeignCharacter) << bad;
  }
  // "http://h:80" splits at its last ':' into host "http://h", whose '/' no host has.
  EXPECT_EQ(split_host_port("http://h:80", kDialMinPort).problem,
            HostPortProblem::kForeignCharacter);
  // The character is named, escaped.
  EXPECT_EQ(split_host_port("x\n:80", kDialMinPort).reason,
            "its host has a character no host name has ('\\n')");
  EXPECT_EQ(split_host_port("a b:80", kDialMinPort).reason,
            "its host has a character no host name has (' ')");
}

TEST(HostPort, NoPortAndNoHostAreSaidSo) {
  for (const char* bad : {"", "127.0.0.1", "localhost", "unix"}) {
    const auto split = split_host_port(bad, kListenMinPort);
    EXPECT_EQ(split.problem, HostPortProblem::kNoPort) << bad;
    EXPECT_EQ(split.reason, "it has no :PORT") << bad;
  }
  for (const char* bad : {":80", ":", ":0"}) {
    const auto split = split_host_port(bad, kListenMinPort);
    EXPECT_EQ(split.problem, HostPortProblem::kEmptyHost) << bad;
    EXPECT_EQ(split.reason, "its HOST is empty") << bad;
  }
}

TEST(HostPort, AnAuthorityMayLeaveThePortOut) {
  auto name = split_host_optional_port("exporter", 80, kDialMinPort);
  ASSERT_TRUE(name.ok()) << name.reason;
  EXPECT_EQ(name.host, "exporter");
  EXPECT_EQ(name.port, 80);
  auto v6 = split_host_optional_port("[::1]", 80, kDialMinPort);
  ASSERT_TRUE(v6.ok()) << v6.reason;
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 80);
  EXPECT_TRUE(v6.ipv6);
  auto written = split_host_optional_port("127.0.0.1:9113", 80, kDialMinPort);
  ASSERT_TRUE(written.ok()) << written.reason;
  EXPECT_EQ(written.port, 9113);
  EXPECT_EQ(split_host_optional_port("[::1]:9113", 80, kDialMinPort).port, 9113);
  // Otherwise as HOST:PORT: an empty port is not the default one.
  EXPECT_EQ(split_host_optional_port("h:", 80, kDialMinPort).problem, HostPortProblem::kBadPort);
  EXPECT_EQ(split_host_optional_port("h:0", 80, kDialMinPort).problem, HostPortProblem::kBadPort);
  EXPECT_EQ(split_host_optional_port("::1", 80, kDialMinPort).problem,
            HostPortProblem::kUnbracketedIpv6);
  EXPECT_EQ(split_host_optional_port("", 80, kDialMinPort).problem, HostPortProblem::kEmptyHost);
  EXPECT_EQ(split_host_optional_port(":80", 80, kDialMinPort).problem, HostPortProblem::kEmptyHost);
  EXPECT_EQ(split_host_optional_port("x!", 80, kDialMinPort).problem,
            HostPortProblem::kForeignCharacter);
  EXPECT_EQ(split_host_optional_port("[nope]", 80, kDialMinPort).problem,
            HostPortProblem::kNotIpv6);
  EXPECT_EQ(split_host_optional_port("[::1", 80, kDialMinPort).problem,
            HostPortProblem::kHalfBracketed);
}

TEST(HostPort, JoinWritesBackWhatSplitReads) {
  EXPECT_EQ(join_host_port("127.0.0.1", 41234), "127.0.0.1:41234");
  EXPECT_EQ(join_host_port("localhost", 0), "localhost:0");
  EXPECT_EQ(join_host_port("::1", 7700), "[::1]:7700");
  EXPECT_EQ(join_host_port("fe80::1%eth0", 80), "[fe80::1%eth0]:80");
  for (const char* address : {"127.0.0.1:1", "[::1]:65535", "[fe80::1%eth0]:80", "h:0"}) {
    const auto split = split_host_port(address, kListenMinPort);
    ASSERT_TRUE(split.ok()) << address;
    EXPECT_EQ(join_host_port(split.host, split.port), address);
  }
}

}  // namespace
}  // namespace benchgate::net
