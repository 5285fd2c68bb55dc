// [compare] routers: two `command` variants on one port of one address are refused at the
// second's key, naming the first and where it is written (comparison_section.cc). The check
// compared the addresses as written and left out `metrics`: "localhost:P" beside "127.0.0.1:P",
// or one variant's metrics endpoint on another's port, passed validate and the second variant
// then failed at run time as if another program listened there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"
#include "tests/unit/common/private_hosts.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::diagnostics_text;
using test_support::load_hermetic;

// Each ${port:NAME} is a number from 1234 up, by the names' order (hermetic_options).
std::string two_commands(const std::string& old_keys, const std::string& new_keys) {
  return R"(name = "s"
[routers.old]
impl = "command"
command = ["./old/router"]
)" + old_keys +
         R"(
[routers.new]
impl = "command"
command = ["./new/router"]
)" + new_keys +
         R"(
[compare]
routers = ["old", "new"]
[[workloads]]
name = "w"
repetitions = 4
)";
}

constexpr const char* kWhy =
    ": every compared router is started before the first workload, so two commands cannot both "
    "listen there; give each variant its own ${port:NAME}";

TEST(ScenarioComparePorts, OneAddressSpelledTwoWaysIsRefusedNamingBoth) {
  const LoadResult r = load_hermetic(
      two_commands(R"(address = "127.0.0.1:${port:old}")", R"(address = "localhost:${port:old}")"));
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{
                "s.toml:9:11: error: [routers.new] address 'localhost:1234' takes the port of "
                "[routers.old] address '127.0.0.1:1234' (s.toml:5:11)" +
                std::string(kWhy)})
      << diagnostics_text(r);
  // A wildcard takes the port on every address: 0.0.0.0 and 127.0.0.1 are one listener's.
  const LoadResult wildcard = load_hermetic(two_commands(
      R"(address = "0.0.0.0:${port:old}")", R"(websocket_address = "127.0.0.1:${port:old}"
address = "127.0.0.1:${port:new}")"));
  ASSERT_EQ(diagnostic_lines(wildcard).size(), 1u) << diagnostics_text(wildcard);
  EXPECT_TRUE(diagnostic_lines(wildcard)[0].starts_with(
      "s.toml:9:21: error: [routers.new] websocket_address '127.0.0.1:1235' takes the port of "
      "[routers.old] address '0.0.0.0:1235' (s.toml:5:11)"))
      << diagnostics_text(wildcard);
}

TEST(ScenarioComparePorts, AMetricsEndpointOnAnotherVariantsPortIsRefusedNamingBoth) {
  // The later variant's metrics on the earlier's address...
  const LoadResult later = load_hermetic(two_commands(R"(address = "127.0.0.1:${port:old}")",
                                                      R"(address = "127.0.0.1:${port:new}"
metrics = "http://localhost:${port:old}/metrics")"));
  EXPECT_EQ(diagnostic_lines(later),
            std::vector<std::string>{
                "s.toml:10:11: error: [routers.new] metrics 'http://localhost:1235/metrics' "
                "takes the port of [routers.old] address '127.0.0.1:1235' (s.toml:5:11)" +
                std::string(kWhy)})
      << diagnostics_text(later);
  // ...and the earlier variant's metrics on the later's address.
  const LoadResult earlier = load_hermetic(two_commands(
      R"(address = "127.0.0.1:${port:old}"
metrics = "http://127.0.0.1:${port:metrics}/metrics")",
      R"(address = "127.0.0.1:${port:metrics}")"));
  EXPECT_EQ(diagnostic_lines(earlier),
            std::vector<std::string>{
                "s.toml:10:11: error: [routers.new] address '127.0.0.1:1234' takes the port of "
                "[routers.old] metrics 'http://127.0.0.1:1234/metrics' (s.toml:6:11)" +
                std::string(kWhy)})
      << diagnostics_text(earlier);
}

TEST(ScenarioComparePorts, SharedMetricsTwoAddressesAndOneVariantsOwnPortsAreValid) {
  // Both variants may scrape one endpoint (a machine-wide exporter): the orchestrator only
  // connects to it, and no variant's command need listen there.
  const std::string shared_metrics = R"(metrics = "http://127.0.0.1:9100/metrics")";
  LoadResult r =
      load_hermetic(two_commands("address = \"127.0.0.1:${port:old}\"\n" + shared_metrics,
                                 "address = \"127.0.0.1:${port:new}\"\n" + shared_metrics));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  // One port on two addresses of the machine: each command listens on its own.
  r = load_hermetic(
      two_commands(R"(address = "127.0.0.1:${port:old}")", R"(address = "127.0.0.2:${port:old}")"));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  // One variant's metrics on its own address: one command serves both.
  r = load_hermetic(two_commands(R"(address = "127.0.0.1:${port:old}"
metrics = "http://localhost:${port:old}/metrics")",
                                 R"(address = "127.0.0.1:${port:new}")"));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
}

// A metrics endpoint on another machine (an exporter there) takes no port of this one: it was
// refused beside a variant listening on the wildcard at its port number, as if they clashed.
// 203.0.113.9 is TEST-NET-3 (RFC 5737), for documentation: no interface here has it.
TEST(ScenarioComparePorts, AMetricsEndpointOnAnotherMachineTakesNoPortOfThisOne) {
  LoadResult r = load_hermetic(two_commands(R"(address = "0.0.0.0:9100")",
                                            R"(address = "127.0.0.1:${port:new}"
metrics = "http://203.0.113.9:9100/metrics")"));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  r = load_hermetic(two_commands(R"(address = "127.0.0.1:${port:old}"
metrics = "http://203.0.113.9:9100/metrics")",
                                 R"(address = "0.0.0.0:9100")"));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  // On this machine it still does: the wildcard takes 127.0.0.1's port.
  r = load_hermetic(two_commands(R"(address = "0.0.0.0:9100")",
                                 R"(address = "127.0.0.1:${port:new}"
metrics = "http://127.0.0.1:9100/metrics")"));
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{
                "s.toml:10:11: error: [routers.new] metrics 'http://127.0.0.1:9100/metrics' "
                "takes the port of [routers.old] address '0.0.0.0:9100' (s.toml:5:11)" +
                std::string(kWhy)})
      << diagnostics_text(r);
}

// The check looks nothing up (orchestrator serve loads a submitted scenario before its policy
// check: a lookup would resolve names of the client's choosing). A name other than localhost is
// only itself: a name that does not resolve is no error, and one written twice on one port is.
TEST(ScenarioComparePorts, NoNameIsLookedUp) {
  // A command listening on a name is probed at `ready` (the readiness probe dials IPv4).
  const auto named = [](const std::string& host, const char* ready) {
    return "address = \"" + host + ":${port:old}\"\nready = \"tcp://127.0.0.1:${port:" + ready +
           "}\"";
  };
  LoadResult r = load_hermetic(two_commands(named("no-such-host.invalid", "ready_old"),
                                            R"(address = "127.0.0.1:${port:old}")"));
  EXPECT_TRUE(r.ok()) << diagnostics_text(r);
  r = load_hermetic(two_commands(named("no-such-host.invalid", "ready_old"),
                                 named("No-Such-Host.invalid", "ready_new")));
  ASSERT_EQ(diagnostic_lines(r).size(), 1u) << diagnostics_text(r);
  EXPECT_TRUE(diagnostic_lines(r)[0].starts_with(
      "s.toml:10:11: error: [routers.new] address 'No-Such-Host.invalid:1234' takes the port of "
      "[routers.old] address 'no-such-host.invalid:1234'"))
      << diagnostics_text(r);
  // Where the hosts file gives a name 127.0.0.1 (in a mount namespace of the test's own), it is
  // still not that address to the check: it was resolved, and refused beside 127.0.0.1.
  const benchgate::test_support::PrivateHostsRun run =
      benchgate::test_support::run_with_hosts("127.0.0.1 router-host.test\n", [&named] {
        const LoadResult loaded = load_hermetic(two_commands(
            named("router-host.test", "ready_old"), R"(address = "127.0.0.1:${port:old}")"));
        return loaded.ok() ? std::string() : diagnostics_text(loaded);
      });
  if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
  EXPECT_EQ(run.failed, "");
}

}  // namespace
}  // namespace benchgate::scenario
