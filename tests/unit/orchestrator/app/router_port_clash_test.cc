// `run --metrics-listen` on the port a router of the scenario listens on is refused before
// anything listens, naming both (router_port_clash.h): the loader's [compare] port check has no
// flags, and the run failed later, its /metrics refused "address already in use" or the router
// refused its own port, neither naming the other.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/app/router_port_clash.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::app {
namespace {

scenario::Scenario loaded(const std::string& text) {
  scenario::LoadResult r = scenario::load_scenario_text(text, "s.toml");
  EXPECT_TRUE(r.ok());
  for (const auto& d : r.diagnostics) ADD_FAILURE() << d.format();
  return r.scenario.value_or(scenario::Scenario{});
}

// Lines: 9 [routers.new]'s address, 10 its metrics.
const std::string kCompared = R"(name = "s"
[routers.old]
impl = "command"
command = ["./old/router"]
address = "127.0.0.1:18080"
[routers.new]
impl = "command"
command = ["./new/router"]
address = "127.0.0.1:18081"
metrics = "http://localhost:19100/metrics"
[compare]
routers = ["old", "new"]
[[workloads]]
name = "w"
repetitions = 4
)";

std::optional<std::string> clash(const scenario::Scenario& s, const std::string& metrics_listen) {
  return router_on_an_orchestrator_port(s, {{"--metrics-listen", metrics_listen}});
}

TEST(RouterPortClash, AVariantsAddressOnTheMetricsPortIsNamedWithWhereItIsWritten) {
  const scenario::Scenario s = loaded(kCompared);
  EXPECT_EQ(clash(s, "127.0.0.1:18081"),
            "--metrics-listen 127.0.0.1:18081: the port of [routers.new] address "
            "'127.0.0.1:18081' (s.toml:9:11), where that router listens: the orchestrator and "
            "the router cannot both listen there; give --metrics-listen another port, or the "
            "router one of its own");
  // By address, not as written: localhost is 127.0.0.1, and a wildcard takes every port.
  EXPECT_NE(clash(s, "localhost:18080"), std::nullopt);
  EXPECT_NE(clash(s, "0.0.0.0:18080"), std::nullopt);
  // The metrics endpoint a variant's exporter serves on this machine holds its port too.
  const std::optional<std::string> metrics = clash(s, "127.0.0.1:19100");
  ASSERT_NE(metrics, std::nullopt);
  EXPECT_NE(metrics->find("[routers.new] metrics 'http://localhost:19100/metrics' (s.toml:10:11)"),
            std::string::npos)
      << *metrics;
}

TEST(RouterPortClash, OtherPortsAndAddressesAndNoFlagPass) {
  const scenario::Scenario s = loaded(kCompared);
  EXPECT_EQ(clash(s, "127.0.0.1:9464"), std::nullopt);
  EXPECT_EQ(clash(s, "127.0.0.2:18080"), std::nullopt);  // another address, the same port
  EXPECT_EQ(clash(s, ""), std::nullopt);
  EXPECT_EQ(clash(s, "127.0.0.1:0"), std::nullopt);
}

TEST(RouterPortClash, TheOneRouterOfAScenarioWithoutCompareCountsAndTheBundledOneNever) {
  const scenario::Scenario external = loaded(
      "name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:18080\"\n"
      "websocket_address = \"127.0.0.1:18082\"\n[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(clash(external, "[::ffff:127.0.0.1]:18082"),
            "--metrics-listen [::ffff:127.0.0.1]:18082: the port of [router] websocket_address "
            "'127.0.0.1:18082' (s.toml:5:21), where that router listens: the orchestrator and "
            "the router cannot both listen there; give --metrics-listen another port, or the "
            "router one of its own");
  const scenario::Scenario bundled = loaded("name = \"s\"\n[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(clash(bundled, "127.0.0.1:18080"), std::nullopt);
}

// A readiness probe on the orchestrator's port would be answered by the orchestrator, and the
// router called ready whatever it did: named as a listener's port is (before, passed over).
TEST(RouterPortClash, AReadinessProbeOnTheOrchestratorsPortIsNamed) {
  const scenario::Scenario s = loaded(
      "name = \"s\"\n[router]\nimpl = \"command\"\ncommand = [\"./router\"]\n"
      "address = \"127.0.0.1:18080\"\nready = \"tcp://127.0.0.1:18090\"\n"
      "[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(clash(s, "127.0.0.1:18090"),
            "--metrics-listen 127.0.0.1:18090: the port of [router] ready "
            "'tcp://127.0.0.1:18090' (s.toml:6:9), where that router listens: the orchestrator "
            "and the router cannot both listen there; give --metrics-listen another port, or the "
            "router one of its own");
}

// A metrics endpoint on another machine (an exporter there) takes no local port.
TEST(RouterPortClash, AMetricsEndpointElsewhereTakesNoLocalPort) {
  const scenario::Scenario s = loaded(
      "name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:18080\"\n"
      "metrics = \"http://10.255.0.9:9464/metrics\"\n[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(clash(s, "0.0.0.0:9464"), std::nullopt);
}

// An external router's address on another machine (the workers connect there) takes no port
// of this one, whatever --metrics-listen's wildcard takes here.
TEST(RouterPortClash, AnExternalRouterElsewhereTakesNoLocalPort) {
  const scenario::Scenario s = loaded(
      "name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"192.0.2.7:9464\"\n"
      "websocket_address = \"192.0.2.7:9465\"\n[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(clash(s, "0.0.0.0:9464"), std::nullopt);
  EXPECT_EQ(clash(s, "[::]:9465"), std::nullopt);
}

}  // namespace
}  // namespace benchgate::app
