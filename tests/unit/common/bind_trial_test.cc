// The one bind trial behind the orchestrator's listen probe and the named cause of a failed
// gRPC listen (common/net/bind_trial.h), and whether two listeners' hosts take one address.
#include "common/net/bind_trial.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <optional>

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

}  // namespace
}  // namespace benchgate::net
