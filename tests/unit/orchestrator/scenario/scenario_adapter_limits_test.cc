// A [worker_impls] adapter (h2load, wrk) runs only what its tool's flags can say
// (common/workload/adapter_limits.h): the loader refuses the rest at the key that asks for it,
// as `validate` does, rather than the adapter when the workload starts. And a gate on a figure
// an adapter never measures (handshakes.rate) is refused at its metric.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orchestrator/scenario/expected_response.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::diagnostics_text;
using test_support::load_hermetic;

constexpr const char* kTools = R"(name = "t"
[worker_impls.wrk]
adapter = "wrk"
[worker_impls.h2]
adapter = "h2load"
)";

LoadResult load(const std::string& rest) { return load_hermetic(kTools + rest); }

using Lines = std::vector<std::string>;

TEST(ScenarioAdapterLimits, WindowsAreRefusedAtTheirKeyAsWrittenNamingTheWarmUp) {
  // Line 6 onwards; wrk -d takes whole seconds, h2load -D whole milliseconds.
  auto r = load(R"([defaults]
warmup = "1.5s"
[[workloads]]
name = "a"
worker = "wrk"
duration = "2500ms"
[[workloads]]
name = "b"
worker = "h2"
duration = "1500500us"
)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            (Lines{"s.toml:7:1: error: workload 'a': worker 'wrk' (the wrk adapter) cannot run a "
                   "warm-up of 1.5s (wrk -d takes whole seconds)",
                   "s.toml:11:1: error: workload 'a': worker 'wrk' (the wrk adapter) cannot run "
                   "measured windows of 2500ms (wrk -d takes whole seconds)",
                   "s.toml:15:1: error: workload 'b': worker 'h2' (the h2load adapter) cannot "
                   "run measured windows of 1500500us (h2load -D takes whole milliseconds)"}));
  // h2load takes the 1.5 s warm-up; no warm-up (0s) runs no window.
  EXPECT_TRUE(load("[defaults]\nwarmup = \"1.5s\"\n[[workloads]]\nname = \"a\"\nworker = "
                   "\"h2\"\n")
                  .ok());
  auto none = load("[defaults]\nwarmup = \"0s\"\n[[workloads]]\nname = \"a\"\nworker = \"wrk\"\n");
  EXPECT_TRUE(none.ok()) << diagnostics_text(none);
}

TEST(ScenarioAdapterLimits, WhatTheToolCannotRunIsRefusedAtTheKeyThatAsksForIt) {
  auto r = load(R"([[workloads]]
name = "post"
worker = "wrk"
method = "POST"
rate = 100
connections = 2
[[workloads]]
name = "h2c"
protocol = "http2"
worker = "wrk"
[[workloads]]
name = "rpc"
protocol = "wamp_rpc"
worker = "wrk"
[[workloads]]
name = "pipelined"
worker = "wrk"
in_flight = 4
[[workloads]]
name = "verified"
worker = "h2"
tls = true
[[workloads]]
name = "window"
protocol = "http2"
worker = "h2"
initial_window = 100000
)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      diagnostic_lines(r),
      (Lines{"s.toml:10:1: error: workload 'post': worker 'wrk' (the wrk adapter) cannot run the "
             "open loop (rate > 0): it runs the closed loop only",
             "s.toml:14:1: error: workload 'h2c': worker 'wrk' (the wrk adapter) cannot run "
             "protocol 'http2' (it generates http1 only)",
             "s.toml:18:1: error: workload 'rpc': worker 'wrk' (the wrk adapter) cannot run "
             "protocol 'wamp_rpc' (it generates http1 only)",
             "s.toml:23:1: error: workload 'pipelined': worker 'wrk' (the wrk adapter) cannot run "
             "in_flight 4: wrk does not pipeline",
             "s.toml:27:1: error: workload 'verified': worker 'h2' (the h2load adapter) cannot run "
             "TLS with certificate verification: h2load does not verify the server's certificate "
             "(set insecure = true to run it so)",
             "s.toml:32:1: error: workload 'window': worker 'h2' (the h2load adapter) cannot run "
             "initial_window 100000: h2load's -w takes 2^N - 1 bytes (give 2^N - 1 or 2^N)"}));
  // Without the rate, the method is next.
  auto post = load("[[workloads]]\nname = \"a\"\nworker = \"wrk\"\nmethod = \"POST\"\n");
  EXPECT_EQ(diagnostic_lines(post),
            (Lines{"s.toml:9:1: error: workload 'a': worker 'wrk' (the wrk adapter) cannot run "
                   "method 'POST' (GET only)"}));
  // What h2load runs: http2 with a window of 2^N - 1, TLS with insecure = true.
  auto fine = load(R"([[workloads]]
name = "a"
protocol = "http2"
worker = "h2"
initial_window = 65535
tls = true
insecure = true
)");
  EXPECT_TRUE(fine.ok()) << diagnostics_text(fine);
}

TEST(ScenarioAdapterLimits, AComparedVariantIsCheckedAndAKeyOfDefaultsBlamedThere) {
  auto r = load_hermetic(R"(name = "t"
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "wrk"]
[defaults]
repetitions = 2
in_flight = 4
[[workloads]]
name = "a"
)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            (Lines{"s.toml:8:1: error: workload 'a': worker 'wrk' (the wrk adapter, a variant of "
                   "[compare] workers) cannot run in_flight 4: wrk does not pipeline"}));
}

TEST(ScenarioAdapterLimits, ASweptValueIsRefusedOnceAtTheSweep) {
  auto r = load(R"([[workloads]]
name = "a"
worker = "h2"
sweep = { request_bytes = [10, 20] }
)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            (Lines{"s.toml:9:1: error: workload 'a': worker 'h2' (the h2load adapter) cannot run "
                   "a request body (request_bytes 10, GET only)"}));
}

TEST(ScenarioAdapterLimits, TheBundledRoutersEchoIsRefusedButAnotherSystemsIsNot) {
  auto echo = load("[[workloads]]\nname = \"a\"\nworker = \"wrk\"\ntarget = \"/bench/echo\"\n");
  EXPECT_EQ(diagnostic_lines(echo),
            (Lines{"s.toml:9:1: error: workload 'a': worker 'wrk' (the wrk adapter) cannot run "
                   "echo checks (/bench/echo: it does not compare an answer's body with the "
                   "request's)"}));
  auto external = load(R"([router]
impl = "external"
address = "127.0.0.1:8080"
ready = "tcp://127.0.0.1:8080"
[[workloads]]
name = "a"
worker = "wrk"
target = "/bench/echo"
)");
  EXPECT_TRUE(external.ok()) << diagnostics_text(external);
}

TEST(ScenarioAdapterLimits, EchoChecksAreRefusedExactlyWhereTheEngineAsksForThem) {
  // The loader's rule is the engine's expectation (expected_response.h): each workload is loaded
  // with the bundled worker, its expectation taken as the engine takes it, and loaded again with
  // the wrk adapter, which must be refused its echo checks exactly when they are expected.
  const std::string builtin = "[router]\nimpl = \"builtin\"\n";
  const std::string external =
      "[router]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
      "ready = \"tcp://127.0.0.1:8080\"\n";
  const std::string compared = R"([routers.a]
impl = "external"
address = "127.0.0.1:8080"
ready = "tcp://127.0.0.1:8080"
[routers.b]
impl = "builtin"
[compare]
routers = ["a", "b"]
[defaults]
repetitions = 4
)";
  const std::string compared_external = R"([routers.a]
impl = "external"
address = "127.0.0.1:8080"
ready = "tcp://127.0.0.1:8080"
[routers.b]
impl = "external"
address = "127.0.0.1:8081"
ready = "tcp://127.0.0.1:8081"
[compare]
routers = ["a", "b"]
[defaults]
repetitions = 4
)";
  struct Case {
    std::string router;  // [router] or [routers.NAME] and [compare]
    std::string keys;    // the workload's
    bool echo;           // what the engine expects on some router the workload runs against
  };
  const Case cases[] = {
      {builtin, "target = \"/bench/echo\"\n", true},
      {builtin, "target = \"/bench/echo\"\nexpect_status = 200\n", true},
      {builtin, "target = \"/bench/echo\"\nexpect_body_bytes = 0\n", false},
      {builtin, "target = \"/bench/echo\"\nexpect_status = 204\n", false},
      {builtin, "target = \"/bench/echo?x=1\"\n", false},
      {builtin, "target = \"/bench/echo/\"\n", false},
      {builtin, "target = \"/bench/hello\"\n", false},
      {external, "target = \"/bench/echo\"\n", false},
      {compared, "target = \"/bench/echo\"\n", true},
      {compared_external, "target = \"/bench/echo\"\n", false},
  };
  for (const Case& c : cases) {
    const std::string workload = "[[workloads]]\nname = \"a\"\n" + c.keys;
    LoadResult bundled = load(c.router + workload);
    ASSERT_TRUE(bundled.ok()) << c.keys << diagnostics_text(bundled);
    const Scenario& s = *bundled.scenario;
    bool engine_echo = false;
    if (s.compare_routers.empty()) {
      engine_echo = expected_response(s.workloads[0], s.router.impl == RouterImpl::kBuiltin).echo;
    }
    for (const std::string& name : s.compare_routers) {
      const bool on_builtin = s.routers.at(name).impl == RouterImpl::kBuiltin;
      engine_echo = engine_echo || expected_response(s.workloads[0], on_builtin).echo;
    }
    EXPECT_EQ(engine_echo, c.echo) << c.router << c.keys;
    LoadResult wrk = load(c.router + workload + "worker = \"wrk\"\n");
    const bool refused = diagnostics_text(wrk).find("cannot run echo checks") != std::string::npos;
    EXPECT_EQ(refused, engine_echo) << c.router << c.keys << diagnostics_text(wrk);
    EXPECT_EQ(wrk.ok(), !engine_echo) << c.router << c.keys << diagnostics_text(wrk);
  }
}

// h2load counts no failed connect in a timed run and neither tool checks a body's length (the
// bundled router's routes define one): an errors gate would judge a lower bound, never a pass
// on what was measured, so it is refused at its metric rather than judged an error every run.
TEST(ScenarioAdapterLimits, AnErrorsGateOnErrorsTheToolCannotDetectIsRefusedAtItsMetric) {
  auto h2 = load(R"([[workloads]]
name = "a"
worker = "h2"
target = "/index.html"
[[gates]]
workload = "a"
metric = "errors.count"
max = 0
)");
  ASSERT_FALSE(h2.ok());
  EXPECT_EQ(diagnostic_lines(h2),
            (Lines{"s.toml:12:10: error: gate metric 'errors.count' can never be measured for "
                   "workload 'a': it is run by worker 'h2', the h2load adapter, which cannot "
                   "detect errors of kind connect, so errors.count would count a lower bound, "
                   "which a gate cannot pass on; errors.count is measured by the bundled worker "
                   "and a [worker_impls] program"}));
  // wrk's hello: the route's 12 bytes are a length wrk does not check.
  auto wrk = load(R"([[workloads]]
name = "a"
worker = "wrk"
[[gates]]
workload = "a"
metric = "errors.rate"
max = "1%"
)");
  ASSERT_FALSE(wrk.ok());
  EXPECT_NE(diagnostics_text(wrk).find("the wrk adapter, which cannot detect errors of kind "
                                       "length, so errors.rate would count a lower bound"),
            std::string::npos)
      << diagnostics_text(wrk);
  // wrk on a target whose length nothing defines detects every error it can have.
  EXPECT_TRUE(load(R"([[workloads]]
name = "a"
worker = "wrk"
target = "/index.html"
[[gates]]
workload = "a"
metric = "errors.count"
max = 0
)")
                  .ok());
}

TEST(ScenarioAdapterLimits, AHandshakesGateOnAnAdapterIsRefusedAtItsMetric) {
  // The adapters count no handshakes: such a gate could only be an error.
  auto r = load(R"([[workloads]]
name = "a"
worker = "h2"
[[gates]]
workload = "a"
metric = "handshakes.rate"
min = 1
)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            (Lines{"s.toml:11:10: error: gate metric 'handshakes.rate' can never be measured for "
                   "workload 'a': it is run by worker 'h2', the h2load adapter, which keeps its "
                   "connections and counts no handshakes (it runs no new_connection_per_request); "
                   "handshakes.rate is measured by the bundled worker and a [worker_impls] "
                   "program that reports connection setup"}));
  // With new_connection_per_request, both the workload and the gate are refused.
  auto renewed = load(R"([[workloads]]
name = "a"
worker = "h2"
new_connection_per_request = true
[[gates]]
workload = "a"
metric = "handshakes.rate"
min = 1
)");
  const std::string text = diagnostics_text(renewed);
  EXPECT_NE(text.find("s.toml:9:1: error: workload 'a': worker 'h2' (the h2load adapter) cannot "
                      "run new_connection_per_request (it keeps its connections)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("s.toml:12:10: error: gate metric 'handshakes.rate' can never be measured "
                      "for workload 'a': it is run by worker 'h2', the h2load adapter, which "
                      "keeps its connections and counts no handshakes"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace benchgate::scenario
