// Valid scenario files load into the typed model with defaults applied and units converted.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/scenario/workload_glob.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;

const Workload& find_workload(const Scenario& s, const std::string& name) {
  for (const Workload& w : s.workloads) {
    if (w.name == name) return w;
  }
  ADD_FAILURE() << "no workload " << name;
  return s.workloads.front();
}

// A gate's plain workload name is looked up by name (not matched against every workload); a
// backslash is fnmatch's escape, so a name written with one is still matched as a pattern.
TEST(ScenarioLoader, AGatesWorkloadIsFoundByNameOrByPattern) {
  LoadResult r = test_support::load_hermetic(
      "name = \"s\"\n"
      "[[workloads]]\nname = \"w-1\"\n[[workloads]]\nname = \"w-2\"\n"
      "[[gates]]\nworkload = \"w-2\"\nmetric = \"throughput.rps\"\nmin = 1\n"
      "[[gates]]\nworkload = 'w\\-1'\nmetric = \"throughput.rps\"\nmin = 1\n"
      "[[gates]]\nworkload = \"w-?\"\nmetric = \"throughput.rps\"\nmin = 1\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->gates.size(), 3u);
  EXPECT_EQ(workloads_matching(*r.scenario, r.scenario->gates[1].workload),
            std::vector<std::string>{"w-1"});
  LoadResult none = test_support::load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w-1\"\n"
      "[[gates]]\nworkload = \"w-3\"\nmetric = \"throughput.rps\"\nmin = 1\n");
  EXPECT_EQ(diagnostics_text(none),
            "s.toml:5:12: error: gate workload 'w-3' matches no workload (did you mean 'w-1'?)\n");
}

// Each gate naming no workload is told the nearest name, in every message the load lists
// (the search compares with every workload: it is made for as many gates as are listed).
TEST(ScenarioLoader, EveryListedGateNamingNoWorkloadIsToldTheNearest) {
  std::string text = "name = \"s\"\n";
  for (int i = 0; i < 150; ++i) text += "[[workloads]]\nname = \"w" + std::to_string(i) + "\"\n";
  for (int i = 0; i < 150; ++i) {
    text += "[[gates]]\nworkload = \"x" + std::to_string(i) +
            "\"\nmetric = \"throughput.rps\"\nmin = 1\n";
  }
  LoadResult r = test_support::load_hermetic(text);
  ASSERT_EQ(r.diagnostics.size(), Diagnostics::kMaxListed + 1);
  for (size_t i = 0; i < Diagnostics::kMaxListed; ++i) {
    EXPECT_EQ(r.diagnostics[i].message, "gate workload 'x" + std::to_string(i) +
                                            "' matches no workload (did you mean 'w" +
                                            std::to_string(i) + "'?)");
  }
}

TEST(ScenarioLoader, QuickstartExampleLoadsWithTheWrittenValues) {
  const std::string path = test_support::kScenarioData + "/valid/quickstart_http.toml";
  LoadResult r = load_scenario_file(path);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.name, "quickstart");
  EXPECT_EQ(s.description, "HTTP/1.1 against the bundled router");
  EXPECT_EQ(s.path, path);
  EXPECT_NE(s.text.find("name = \"quickstart\""), std::string::npos);
  EXPECT_EQ(s.router.impl, RouterImpl::kBuiltin);
  EXPECT_EQ(s.router.threads, 1u);
  ASSERT_EQ(s.workloads.size(), 3u);

  const Workload& hello = s.workloads[0];
  EXPECT_EQ(hello.name, "http_hello");
  EXPECT_EQ(hello.where.line, 18u);
  EXPECT_EQ(hello.where.column, 1u);
  EXPECT_EQ(hello.protocol, Protocol::kHttp1);
  EXPECT_EQ(hello.http.method, "GET");
  EXPECT_EQ(hello.http.target, "/bench/hello");
  EXPECT_EQ(hello.connections, 32u);
  EXPECT_EQ(hello.in_flight, 1u);
  EXPECT_EQ(hello.rate, 0);
  EXPECT_EQ(hello.warmup_ns, 1'000'000'000);
  EXPECT_EQ(hello.duration_ns, 3'000'000'000);
  EXPECT_EQ(hello.repetitions, 3u);
  EXPECT_EQ(hello.workers, 1u);
  EXPECT_EQ(hello.threads, 1u);
  EXPECT_EQ(hello.worker, "builtin");
  EXPECT_EQ(hello.timeout_ns, 60'000'000'000);

  const Workload& open_loop = s.workloads[1];
  EXPECT_EQ(open_loop.name, "http_hello_open_loop");
  EXPECT_EQ(open_loop.rate, 20000);
  EXPECT_EQ(open_loop.http.method, "GET");

  const Workload& echo = s.workloads[2];
  EXPECT_EQ(echo.http.method, "POST");
  EXPECT_EQ(echo.http.request_bytes, 1024u);
  EXPECT_EQ(echo.http.expect_status, 200u);
  EXPECT_EQ(echo.http.expect_body_bytes, 1024u);
  EXPECT_EQ(echo.http.headers.at("Content-Type"), "application/octet-stream");
  EXPECT_EQ(echo.http.headers.at("X-Bench"), "1");

  ASSERT_EQ(s.gates.size(), 3u);
  const Gate& p99 = s.gates[0];
  EXPECT_EQ(p99.workload, "http_hello");
  EXPECT_EQ(p99.metric, "latency.p99");
  ASSERT_TRUE(p99.max.has_value());
  EXPECT_DOUBLE_EQ(*p99.max, 0.005);  // seconds
  EXPECT_FALSE(p99.min.has_value());
  EXPECT_TRUE(p99.baseline.empty());
  EXPECT_EQ(p99.severity, GateSeverity::kCritical);

  const Gate& rps = s.gates[1];
  EXPECT_EQ(rps.metric, "throughput.rps");
  EXPECT_EQ(rps.baseline, "main");
  ASSERT_TRUE(rps.max_regression.has_value());
  EXPECT_DOUBLE_EQ(*rps.max_regression, 0.05);
  EXPECT_DOUBLE_EQ(rps.alpha, 0.05);
  EXPECT_FALSE(rps.max.has_value());

  const Gate& errors = s.gates[2];
  EXPECT_DOUBLE_EQ(*errors.max, 0.001);
  EXPECT_DOUBLE_EQ(errors.alpha, 0.01);  // the default
  EXPECT_EQ(errors.severity, GateSeverity::kWarning);
  EXPECT_EQ(workloads_matching(s, errors.workload),
            (std::vector<std::string>{"http_hello", "http_hello_open_loop"}));
}

TEST(ScenarioLoader, DefaultsApplyToEveryWorkloadUnlessItOverridesThem) {
  LoadResult r = load_scenario_text(R"(name = "d"
[defaults]
warmup = "0s"
duration = "250ms"
repetitions = 7
workers = 2
threads = 3
timeout = "1m"
connections = 12
in_flight = 4

[[workloads]]
name = "inherits"

[[workloads]]
name = "overrides"
duration = "1.5s"
repetitions = 2
in_flight = 1
rate = 100
connections = 6
)",
                                    "d.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& a = find_workload(*r.scenario, "inherits");
  EXPECT_EQ(a.warmup_ns, 0);
  EXPECT_EQ(a.duration_ns, 250'000'000);
  EXPECT_EQ(a.repetitions, 7u);
  EXPECT_EQ(a.workers, 2u);
  EXPECT_EQ(a.threads, 3u);
  EXPECT_EQ(a.timeout_ns, 60'000'000'000);
  EXPECT_EQ(a.connections, 12u);
  EXPECT_EQ(a.in_flight, 4u);
  EXPECT_EQ(a.rate, 0);

  const Workload& b = find_workload(*r.scenario, "overrides");
  EXPECT_EQ(b.warmup_ns, 0);
  EXPECT_EQ(b.duration_ns, 1'500'000'000);
  EXPECT_EQ(b.repetitions, 2u);
  EXPECT_EQ(b.workers, 2u);
  EXPECT_EQ(b.in_flight, 1u);
  EXPECT_EQ(b.rate, 100);
  EXPECT_EQ(b.connections, 6u);
}

TEST(ScenarioLoader, WithoutDefaultsTheModelDefaultsApply) {
  LoadResult r = load_scenario_file(test_support::kScenarioData + "/valid/minimal.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Workload& w = r.scenario->workloads.at(0);
  const Workload model;
  EXPECT_EQ(w.warmup_ns, model.warmup_ns);
  EXPECT_EQ(w.duration_ns, model.duration_ns);
  EXPECT_EQ(w.repetitions, model.repetitions);
  EXPECT_EQ(w.connections, model.connections);
  EXPECT_EQ(w.http.method, "GET");
  EXPECT_EQ(w.http.target, "/bench/hello");
  EXPECT_EQ(r.scenario->router.impl, RouterImpl::kBuiltin);
  EXPECT_TRUE(r.scenario->gates.empty());
}

TEST(ScenarioLoader, CommandRouterGetsItsArgvAndOnePortPerName) {
  // No environment read; ports from 40000, one per name.
  LoadResult r = load_scenario_file(test_support::kScenarioData + "/valid/command_router.toml",
                                    test_support::hermetic_options(40000));
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.name, "nginx-compare.v1");
  EXPECT_EQ(s.router.impl, RouterImpl::kCommand);
  ASSERT_EQ(s.router.command.size(), 5u);
  EXPECT_EQ(s.router.command[0], "nginx");
  EXPECT_TRUE(s.router.command[2].ends_with("tests/data/scenarios/valid/nginx.conf"))
      << s.router.command[2];
  EXPECT_EQ(s.router.command[2].front(), '/');
  EXPECT_EQ(s.router.command[4], "daemon off;");
  EXPECT_EQ(s.router.address, "127.0.0.1:40000");
  EXPECT_EQ(s.router.ready, "tcp://127.0.0.1:40000");  // derived from the address
  EXPECT_EQ(s.router.metrics, "http://127.0.0.1:40001/metrics");
  EXPECT_EQ(s.ports.at("http"), 40000);
  EXPECT_EQ(s.ports.at("metrics"), 40001);

  const Workload& paced = find_workload(s, "hello_paced");
  EXPECT_DOUBLE_EQ(paced.rate, 1500.5);
  EXPECT_EQ(paced.warmup_ns, 0);
  EXPECT_EQ(paced.repetitions, 5u);
  EXPECT_EQ(paced.timeout_ns, 30'000'000'000);
  EXPECT_EQ(find_workload(s, "hello").in_flight, 8u);

  ASSERT_EQ(s.gates.size(), 2u);
  EXPECT_DOUBLE_EQ(*s.gates[0].max, 256.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*s.gates[1].min, 1e-6);
}

TEST(ScenarioLoader, ExternalRouterAndEveryBoundUnitConvert) {
  LoadResult r = load_scenario_file(test_support::kScenarioData + "/valid/external_router.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.router.impl, RouterImpl::kExternal);
  EXPECT_EQ(s.router.address, "127.0.0.1:18080");
  EXPECT_EQ(s.router.ready, "tcp://127.0.0.1:18081");
  EXPECT_EQ(s.router.startup_timeout_ns, 45'000'000'000);
  ASSERT_EQ(s.gates.size(), 4u);
  EXPECT_DOUBLE_EQ(*s.gates[0].min, 1e6);
  EXPECT_DOUBLE_EQ(*s.gates[1].max, 0.9);
  EXPECT_DOUBLE_EQ(*s.gates[2].max, 50e-6);
  EXPECT_DOUBLE_EQ(*s.gates[3].max, 0);
}

// Workers resolve the address themselves; only the readiness probe needs an IPv4 host.
TEST(ScenarioLoader, AHostNameAddressLoadsWhenTheReadinessProbeIsIPv4) {
  const std::string text =
      "name = \"t\"\n[router]\nimpl = \"external\"\naddress = \"bench.example:8080\"\n"
      "ready = \"tcp://127.0.0.1:8081\"\n[[workloads]]\nname = \"w\"\n";
  LoadResult r = load_scenario_text(text, "t.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->router.address, "bench.example:8080");
  LoadResult local = load_scenario_text(
      "name = \"t\"\n[router]\nimpl = \"external\"\naddress = \"localhost:8080\"\n"
      "[[workloads]]\nname = \"w\"\n",
      "t.toml");
  ASSERT_TRUE(local.ok()) << diagnostics_text(local);
  EXPECT_EQ(local.scenario->router.ready, "tcp://localhost:8080");
}

// startup_timeout: how long this system may take to come up; absent, the engine's deadline.
TEST(ScenarioLoader, StartupTimeoutIsAPositiveDurationOfTheRouterOrAVariant) {
  LoadResult r = load_scenario_text(
      "name = \"t\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
      "startup_timeout = \"2m\"\n[[workloads]]\nname = \"w\"\n",
      "t.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->router.startup_timeout_ns, 120'000'000'000);
  LoadResult absent = load_scenario_text("name = \"t\"\n[[workloads]]\nname = \"w\"\n", "t.toml");
  ASSERT_TRUE(absent.ok()) << diagnostics_text(absent);
  EXPECT_EQ(absent.scenario->router.startup_timeout_ns, 0);
  LoadResult variant = load_scenario_text(
      "name = \"t\"\n[routers.a]\nstartup_timeout = \"500ms\"\n[routers.b]\n"
      "[compare]\nrouters = [\"a\", \"b\"]\n[[workloads]]\nname = \"w\"\nrepetitions = 2\n",
      "t.toml");
  ASSERT_TRUE(variant.ok()) << diagnostics_text(variant);
  EXPECT_EQ(variant.scenario->routers.at("a").startup_timeout_ns, 500'000'000);
  EXPECT_EQ(variant.scenario->routers.at("b").startup_timeout_ns, 0);
  LoadResult zero = load_scenario_text(
      "name = \"t\"\n[router]\nstartup_timeout = \"0s\"\n[[workloads]]\nname = \"w\"\n", "t.toml");
  EXPECT_FALSE(zero.ok());
  EXPECT_NE(diagnostics_text(zero).find("t.toml:3:19: error: key 'startup_timeout'"),
            std::string::npos)
      << diagnostics_text(zero);
}

TEST(ScenarioLoader, TextLoadsLikeAFileAtTheGivenPath) {
  const std::string text = "name = \"t\"\n[[workloads]]\nname = \"w\"\n";
  LoadResult r = load_scenario_text(text, "/some/where/t.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->text, text);
  EXPECT_EQ(r.scenario->path, "/some/where/t.toml");
}

TEST(ScenarioLoader, GatesApplyToEveryVariantUnlessTheyNameOne) {
  const std::string text =
      "name = \"t\"\n[worker_impls.h2]\nadapter = \"h2load\"\n"
      "[compare]\nworkers = [\"builtin\", \"h2\"]\n[defaults]\nrepetitions = 2\n"
      "[[workloads]]\nname = \"w\"\n"
      "[[gates]]\nworkload = \"w\"\nmetric = \"latency.max\"\nmax = \"1s\"\n"
      "[[gates]]\nworkload = \"w\"\nvariant = \"h*\"\nmetric = \"throughput.rps\"\n"
      "baseline = \"main\"\nmax_regression = \"5%\"\nfail_when_underpowered = true\n";
  LoadResult r = load_scenario_text(text, "t.toml");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->gates.size(), 2u);
  EXPECT_EQ(r.scenario->gates[0].variant, "*");
  EXPECT_FALSE(r.scenario->gates[0].fail_when_underpowered);
  EXPECT_EQ(r.scenario->gates[1].variant, "h*");
  EXPECT_TRUE(r.scenario->gates[1].fail_when_underpowered);
}

}  // namespace
}  // namespace benchgate::scenario
