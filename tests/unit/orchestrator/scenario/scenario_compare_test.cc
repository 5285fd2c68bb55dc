// [routers.NAME], [compare] and `sweep`: what the loader accepts, how a sweep expands (over
// request_bytes, connections or rate), and the errors for an odd number of repetitions, an
// unknown router and a malformed sweep.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;
using test_support::load_hermetic;

constexpr std::string_view kCompare = R"(name = "c"
[routers.a]
impl = "builtin"
[routers.b]
impl = "command"
command = ["nginx", "-c", "${scenario_dir}/nginx.conf"]
address = "127.0.0.1:${port:nginx}"
[compare]
routers = ["a", "b"]
[[workloads]]
name = "w"
repetitions = 4
)";

TEST(ScenarioCompare, ReadsRoutersAndTheComparisonOrder) {
  LoadResult r = load_hermetic(std::string(kCompare));
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->compare_routers, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.scenario->routers.at("a").impl, RouterImpl::kBuiltin);
  const RouterConfig& b = r.scenario->routers.at("b");
  EXPECT_EQ(b.impl, RouterImpl::kCommand);
  EXPECT_EQ(b.address, "127.0.0.1:1234");
  EXPECT_EQ(b.ready, "tcp://127.0.0.1:1234");
  // By default a command variant requires its own program.
  EXPECT_EQ(b.requires_programs, std::vector<std::string>{"nginx"});
}

// A program named by a path is a file the scenario names, not an installed program: it is not
// required (which would make a typo in a build's path not_configured, failing nothing); its
// start fails instead (ExternalSystem::start).
TEST(ScenarioCompare, ACommandNamedByAPathIsNotARequiredProgram) {
  for (const std::string program : {"./cand/router", "/opt/cand/router"}) {
    std::string text(kCompare);
    text.replace(text.find("\"nginx\", \"-c\""), 7, "\"" + program + "\"");
    LoadResult r = load_hermetic(text);
    ASSERT_TRUE(r.ok()) << diagnostics_text(r);
    EXPECT_EQ(r.scenario->routers.at("b").command.front(), program);
    EXPECT_TRUE(r.scenario->routers.at("b").requires_programs.empty()) << program;
  }
}

// Every compared router is started up front: two commands on one ${port:NAME} cannot both
// listen, and the second was refused at run time as if another program listened there.
TEST(ScenarioCompare, TwoCommandVariantsOnOnePortAreRefusedNamingBoth) {
  const std::string text = R"(name = "s"
[routers.old]
impl = "command"
command = ["./old/router", "--http", "127.0.0.1:${port:old}"]
address = "127.0.0.1:${port:old}"
[routers.new]
impl = "command"
command = ["./new/router", "--http", "127.0.0.1:${port:old}"]
address = "127.0.0.1:${port:old}"
[compare]
routers = ["old", "new"]
[[workloads]]
name = "w"
repetitions = 4
)";
  LoadResult r = load_hermetic(text);
  const std::vector<std::string> lines = test_support::diagnostic_lines(r);
  ASSERT_EQ(lines.size(), 1u) << diagnostics_text(r);
  EXPECT_TRUE(lines[0].starts_with("s.toml:9:11: error: [routers.new] address '127.0.0.1:"))
      << lines[0];
  EXPECT_TRUE(lines[0].ends_with(
      "' is also [routers.old] address (s.toml:5:11): every compared router is started before "
      "the first workload, so two commands cannot both listen there; give each variant its own "
      "${port:NAME}"))
      << lines[0];
  // Across keys too: one variant's websocket_address on the other's address.
  std::string across = text;
  const std::string second = "address = \"127.0.0.1:${port:old}\"\n[compare]";
  across.replace(across.find(second), second.size(),
                 "address = \"127.0.0.1:${port:new}\"\nwebsocket_address = "
                 "\"127.0.0.1:${port:old}\"\n[compare]");
  r = load_hermetic(across);
  ASSERT_EQ(test_support::diagnostic_lines(r).size(), 1u) << diagnostics_text(r);
  EXPECT_NE(diagnostics_text(r).find("[routers.new] websocket_address '127.0.0.1:"),
            std::string::npos)
      << diagnostics_text(r);
  // Each on its own port: valid.
  std::string apart = text;
  for (int i = 0; i < 2; ++i) apart.replace(apart.rfind("${port:old}"), 11, "${port:new}");
  EXPECT_TRUE(load_hermetic(apart).ok()) << diagnostics_text(load_hermetic(apart));
}

TEST(ScenarioCompare, RequiresOverridesTheProgramToCheck) {
  std::string text(kCompare);
  text.insert(text.find("[compare]"), "requires = [\"nginx\", \"sed\"]\n");
  LoadResult r = load_hermetic(text);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->routers.at("b").requires_programs,
            (std::vector<std::string>{"nginx", "sed"}));
}

TEST(ScenarioCompare, AnOddNumberOfRepetitionsIsAnError) {
  std::string text(kCompare);
  text.replace(text.find("repetitions = 4"), 15, "repetitions = 3");
  LoadResult r = load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("a comparison needs an even number of repetitions"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioCompare, AnOddNumberOfRepetitionsIsReportedWhereItIsWritten) {
  const std::string why = "a comparison needs an even number of repetitions (order A B B A ...)";
  std::string text(kCompare);
  text.replace(text.find("repetitions = 4"), 15, "repetitions = 3");
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(text)),
            std::vector<std::string>{"s.toml:12:15: error: workload 'w': " + why + ", got 3"});
  // Written in [defaults]: there, for each workload that takes it.
  text = std::string(kCompare);
  text.replace(text.find("repetitions = 4"), 15, "[[workloads]]\nname = \"v\"");
  text.insert(text.find("[[workloads]]"), "[defaults]\nrepetitions = 5\n");
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(text)),
            (std::vector<std::string>{"s.toml:11:15: error: workload 'v': " + why + ", got 5",
                                      "s.toml:11:15: error: workload 'w': " + why + ", got 5"}));
  // Written nowhere: the default count, at the workload.
  text = std::string(kCompare);
  text.replace(text.find("repetitions = 4"), 15, "");
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(text)),
            std::vector<std::string>{"s.toml:10:1: error: workload 'w': " + why + ", got 3"});
  // A count refused for itself is not also said to be odd (the default 3 it left in place).
  text = std::string(kCompare);
  text.replace(text.find("repetitions = 4"), 15, "repetitions = 0");
  const auto lines = test_support::diagnostic_lines(load_hermetic(text));
  ASSERT_EQ(lines.size(), 1u) << diagnostics_text(load_hermetic(text));
  EXPECT_EQ(lines[0].find("even"), std::string::npos) << lines[0];
}

TEST(ScenarioCompare, AnUnknownRouterIsNamed) {
  std::string text(kCompare);
  text.replace(text.find("[\"a\", \"b\"]"), 10, "[\"a\", \"x\"]");
  LoadResult r = load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("[compare] names router 'x', which no [routers.x] defines"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioCompare, ARefusedRouterIsReportedOnceNotAgainWhereCompareNamesIt) {
  // A [routers.NAME] refused for its name or for not being a table: [compare] routers naming
  // it gets no second error saying that no such table exists.
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(R"(name = "c"
[routers]
c = 5
[routers.a]
impl = "builtin"
[routers."B"]
impl = "builtin"
[compare]
routers = ["a", "B", "c"]
[[workloads]]
name = "w"
repetitions = 4
)")),
            (std::vector<std::string>{
                "s.toml:3:5: error: key 'c' in [routers] must be a table ([routers.c]), got "
                "integer",
                "s.toml:6:10: error: router name 'B' must match [a-z0-9_.-]+",
            }));
  // `routers` that is no table at all: one error, none for the names it was to define.
  EXPECT_EQ(test_support::diagnostic_lines(
                load_hermetic("name = \"c\"\nrouters = 5\n[compare]\nrouters = [\"a\", \"b\"]\n"
                              "[[workloads]]\nname = \"w\"\nrepetitions = 4\n")),
            std::vector<std::string>{"s.toml:2:11: error: key 'routers' must be a table, got "
                                     "integer 5"});
}

TEST(ScenarioCompare, ARouterWithARefusedValueIsRefusedWholeWithNoFollowOnErrors) {
  // impl = "comand" for "command": reported once, at the value. Kept, [routers.a] stood for the
  // bundled router (the default impl), and the h2load adapter was refused its /bench/echo
  // checks, which only the bundled router asks for: an error that fixing the typo removes. A
  // gate naming the refused variant is not reported either.
  const std::string text = R"(name = "c"
[routers.a]
impl = "comand"
command = ["x"]
address = "127.0.0.1:18080"
[routers.b]
impl = "command"
command = ["x"]
address = "127.0.0.1:18081"
[compare]
routers = ["a", "b"]
[worker_impls.h]
adapter = "h2load"
[[workloads]]
name = "w"
target = "/bench/echo"
worker = "h"
repetitions = 4
[[gates]]
workload = "w"
variant = "a"
metric = "latency.max"
max = "1s"
)";
  LoadResult refused = load_hermetic(text);
  EXPECT_EQ(test_support::diagnostic_lines(refused),
            std::vector<std::string>{
                "s.toml:3:8: error: key 'impl' must be one of builtin, command or external, got "
                "'comand' (did you mean 'command'?)"});
  // As meant, the file is valid: the refusal above was the only mistake.
  std::string meant = text;
  meant.replace(meant.find("\"comand\""), 8, "\"command\"");
  LoadResult valid = load_hermetic(meant);
  EXPECT_TRUE(valid.ok()) << diagnostics_text(valid);
}

TEST(ScenarioCompare,
     AMisspeltKeyARouterNeedsIsOneErrorAtTheKeyWithNoMissingKeyGateOrCompareError) {
  // 'adress' for 'address' (and 'comand' for 'command'): the misspelling is the one mistake,
  // reported at the key with what was meant; the table is not told again that it lacks the key
  // it misspells, and the gate and [compare] naming the router say nothing.
  const std::string text = R"(name = "c"
[routers.a]
impl = "builtin"
[routers.b]
impl = "external"
adress = "127.0.0.1:18081"
[routers.c]
impl = "command"
comand = ["x"]
address = "127.0.0.1:18082"
[compare]
routers = ["a", "b", "c"]
[[workloads]]
name = "w"
repetitions = 4
[[gates]]
workload = "w"
variant = "b"
metric = "errors.count"
max = 0
)";
  LoadResult refused = load_hermetic(text);
  EXPECT_EQ(test_support::diagnostic_lines(refused),
            (std::vector<std::string>{
                "s.toml:6:1: error: unknown key 'adress' in [routers.b] (did you mean 'address'?)",
                "s.toml:9:1: error: unknown key 'comand' in [routers.c] (did you mean "
                "'command'?)"}));
  // As meant, the file is valid: the misspellings were its only mistakes.
  std::string meant = text;
  meant.replace(meant.find("adress"), 6, "address");
  meant.replace(meant.find("comand"), 6, "command");
  LoadResult valid = load_hermetic(meant);
  EXPECT_TRUE(valid.ok()) << diagnostics_text(valid);
  // In [router] too: one error.
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(
                "name = \"c\"\n[router]\nimpl = \"external\"\nadress = \"127.0.0.1:1\"\n"
                "[[workloads]]\nname = \"w\"\n")),
            std::vector<std::string>{
                "s.toml:4:1: error: unknown key 'adress' in [router] (did you mean 'address'?)"});
}

TEST(ScenarioCompare, AMisspeltRouterIsToldTheClosestAndAGateNamingTheMeantOneIsNotReported) {
  // 'cnad' for 'cand': the [compare] entry is told the router it may have meant; a gate on
  // 'cand' (or against it) is not told that it matches no variant, nor suggested the typo.
  const std::string text = R"(name = "c"
[routers.main]
impl = "builtin"
[routers.cand]
impl = "builtin"
[compare]
routers = ["main", "cnad"]
[[workloads]]
name = "w"
repetitions = 8
[[gates]]
workload = "w"
metric = "throughput.rps"
variant = "cand"
against = "main"
max_regression = "5%"
[[gates]]
workload = "w"
metric = "throughput.rps"
variant = "main"
against = "cand"
max_regression = "5%"
[[gates]]
workload = "w"
metric = "throughput.rps"
variant = "cnad"
max = 1
)";
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(text)),
            std::vector<std::string>{
                "s.toml:7:11: error: [compare] names router 'cnad', which no [routers.cnad] "
                "defines (did you mean 'cand'?)"});
  // A variant that is neither is still an error, told only the routers that are defined.
  std::string other = text;
  other.replace(other.find("variant = \"cnad\""), 16, "variant = \"cnd\"");
  const auto lines = test_support::diagnostic_lines(load_hermetic(other));
  ASSERT_EQ(lines.size(), 2u) << diagnostics_text(load_hermetic(other));
  EXPECT_EQ(lines[1],
            "s.toml:26:11: error: gate variant 'cnd' matches no variant; the scenario's variants: "
            "main");
}

TEST(ScenarioCompare, AMisspeltWorkerIsToldTheClosest) {
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(R"(name = "c"
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "wkr"]
[[workloads]]
name = "w"
repetitions = 8
[[gates]]
workload = "w"
metric = "throughput.rps"
variant = "wrk"
against = "builtin"
max_regression = "5%"
)")),
            std::vector<std::string>{
                "s.toml:5:11: error: [compare] names worker 'wkr', which is neither builtin nor "
                "defined by [worker_impls.wkr] (did you mean 'wrk'?); known: builtin, wrk"});
}

TEST(ScenarioCompare, RouterKeysAreCheckedPerVariant) {
  std::string text(kCompare);
  text.insert(text.find("[routers.b]"), "threads = 2\ncommand = [\"x\"]\n");
  LoadResult r = load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("key 'command' in [routers.a] applies only to impl = \"command\""),
      std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioCompare, RoutersWithoutCompareIsAnError) {
  LoadResult r = load_hermetic("name = \"c\"\n[routers.a]\n[[workloads]]\nname = \"w\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("which is missing"), std::string::npos) << diagnostics_text(r);
}

TEST(ScenarioCompare, RouterAndCompareExcludeEachOther) {
  LoadResult r = load_hermetic("[router]\n" + std::string(kCompare));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("[router] and [compare] routers exclude each other"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioCompare, AnEmptyCompareNamesBothKeys) {
  LoadResult r = load_hermetic("name = \"c\"\n[compare]\n[[workloads]]\nname = \"w\"\n");
  EXPECT_EQ(
      diagnostics_text(r),
      "s.toml:2:1: error: [compare] needs routers = [...] or workers = [...]: the two or more "
      "routers ([routers.NAME]) or workers (\"builtin\", [worker_impls.NAME]) to "
      "compare\n");
}

// A command or external system serves each WAMP transport at the address the scenario gives
// for it (the bundled router cannot serve WAMP on its HTTP port): read in [routers.NAME] as in
// [router], with ${port:NAME}, and empty (the one address) when not given.
TEST(ScenarioCompare, ReadsTheTransportAddressesOfAVariant) {
  std::string text(kCompare);
  text.insert(text.find("[compare]"),
              "rawsocket_address = \"127.0.0.1:${port:rs}\"\n"
              "websocket_address = \"localhost:${port:ws}\"\n");
  LoadResult r = load_hermetic(text);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const RouterConfig& b = r.scenario->routers.at("b");
  EXPECT_EQ(b.address, "127.0.0.1:1234");
  EXPECT_EQ(b.rawsocket_address, "127.0.0.1:1235");
  EXPECT_EQ(b.websocket_address, "localhost:1236");
  EXPECT_EQ(b.ready, "tcp://127.0.0.1:1234");
  EXPECT_EQ(b.at("rawsocket_address").line, 8u);
  EXPECT_EQ(b.at("websocket_address").line, 9u);

  LoadResult plain = load_hermetic(std::string(kCompare));
  ASSERT_TRUE(plain.ok()) << diagnostics_text(plain);
  EXPECT_EQ(plain.scenario->routers.at("b").rawsocket_address, "");
  EXPECT_EQ(plain.scenario->routers.at("b").websocket_address, "");
}

TEST(ScenarioCompare, TransportAddressesAreReadInRouterToo) {
  LoadResult r = load_hermetic(R"(name = "c"
[router]
impl = "external"
address = "127.0.0.1:8080"
rawsocket_address = "127.0.0.1:8081"
[[workloads]]
name = "w"
protocol = "wamp_rpc"
transport = "rawsocket"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->router.rawsocket_address, "127.0.0.1:8081");
  EXPECT_EQ(r.scenario->router.websocket_address, "");
}

// The rule of `address`, in the same words: a transport address is one to connect to over TCP.
TEST(ScenarioCompare, ATransportAddressIsCheckedAsAddressIs) {
  for (const std::string key : {"rawsocket_address", "websocket_address"}) {
    for (const auto& [value, error] : std::vector<std::pair<std::string, std::string>>{
             {"127.0.0.1", "'127.0.0.1' is not an address to connect to: it has no :PORT"},
             {"unix:/tmp/s", "is not an address to connect to"},
             {"127.0.0.1:0", "port"}}) {
      std::string text(kCompare);
      text.insert(text.find("[compare]"), key + " = \"" + value + "\"\n");
      LoadResult r = load_hermetic(text);
      EXPECT_FALSE(r.ok()) << key << " = " << value;
      EXPECT_NE(diagnostics_text(r).find("s.toml:8:"), std::string::npos) << diagnostics_text(r);
      EXPECT_NE(diagnostics_text(r).find("key '" + key + "' in [routers.b]: "), std::string::npos)
          << diagnostics_text(r);
      EXPECT_NE(diagnostics_text(r).find(error), std::string::npos) << diagnostics_text(r);
    }
  }
}

TEST(ScenarioCompare, TheBundledRouterTakesNoTransportAddress) {
  std::string text(kCompare);
  text.insert(text.find("[routers.b]"), "websocket_address = \"127.0.0.1:8081\"\n");
  LoadResult r = load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("key 'websocket_address' in [routers.a] applies only to "
                                     "impl = \"command\" or \"external\" (the bundled router "
                                     "announces its own ports)"),
            std::string::npos)
      << diagnostics_text(r);
}

// Without `ready` the probe connects to every address the workers will (over IPv4); with it,
// only `ready` is probed and a host name is the workers' to resolve.
TEST(ScenarioCompare, WithoutReadyATransportAddressMustBeProbeable) {
  std::string text(kCompare);
  text.insert(text.find("[compare]"), "rawsocket_address = \"sut.example:8081\"\n");
  LoadResult r = load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find(
                "key 'rawsocket_address' must name an IPv4 address or localhost, as the "
                "readiness probe connects to it over IPv4 (or give key 'ready' = "
                "\"tcp://IPV4:PORT\"), got \"sut.example:8081\""),
            std::string::npos)
      << diagnostics_text(r);
  text.insert(text.find("[compare]"), "ready = \"tcp://127.0.0.1:${port:nginx}\"\n");
  LoadResult with_ready = load_hermetic(text);
  ASSERT_TRUE(with_ready.ok()) << diagnostics_text(with_ready);
  EXPECT_EQ(with_ready.scenario->routers.at("b").rawsocket_address, "sut.example:8081");
}

TEST(ScenarioSweep, RequestBytesExpandsIntoNamedWorkloads) {
  LoadResult r = load_hermetic(R"(name = "s"
[[workloads]]
name = "echo"
method = "POST"
target = "/bench/echo"
sweep = { request_bytes = [64, "1KiB", 65536] }
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const auto& w = r.scenario->workloads;
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].name, "echo@request_bytes=64");
  EXPECT_EQ(w[1].name, "echo@request_bytes=1024");
  EXPECT_EQ(w[2].name, "echo@request_bytes=65536");
  EXPECT_EQ(w[1].http.request_bytes, 1024u);
  EXPECT_EQ(w[1].sweep_of, "echo");
  EXPECT_EQ(w[1].sweep_parameter, "request_bytes");
  EXPECT_EQ(w[2].sweep_value, 65536u);
  EXPECT_EQ(w[2].http.method, "POST");
}

TEST(ScenarioSweep, ConnectionsExpandIntoNamedWorkloads) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"c\"\nsweep = { connections = [1, 10, 100] }\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->workloads.size(), 3u);
  EXPECT_EQ(r.scenario->workloads[2].name, "c@connections=100");
  EXPECT_EQ(r.scenario->workloads[2].connections, 100u);
}

TEST(ScenarioSweep, ValuesMustIncrease) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"c\"\nsweep = { connections = [10, 1] }\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("values must increase"), std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioSweep, AnUnknownParameterIsAnError) {
  LoadResult r =
      load_hermetic("name = \"s\"\n[[workloads]]\nname = \"c\"\nsweep = { in_flight = [1, 2] }\n");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:4:11: error: sweep parameter 'in_flight' is not supported (request_bytes, "
            "connections, rate)\n");
}

// An open loop at each rate, named as the other parameters' points are; the workload's own
// rate is never run, so it is not checked.
TEST(ScenarioSweep, RateExpandsIntoNamedOpenLoopWorkloads) {
  LoadResult r = load_hermetic(R"(name = "s"
[[workloads]]
name = "hello"
connections = 4
rate = 0.0000001
sweep = { rate = [1000, 5000, 20000] }
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const auto& w = r.scenario->workloads;
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].name, "hello@rate=1000");
  EXPECT_EQ(w[2].name, "hello@rate=20000");
  EXPECT_EQ(w[1].rate, 5000.0);
  EXPECT_EQ(w[1].sweep_of, "hello");
  EXPECT_EQ(w[1].sweep_parameter, "rate");
  EXPECT_EQ(w[2].sweep_value, 20000u);
  EXPECT_EQ(w[2].connections, 4u);
}

// wamp_pubsub schedules its publications over its publishers.
TEST(ScenarioSweep, APubSubRateIsScheduledOverItsPublishers) {
  LoadResult r = load_hermetic(R"(name = "s"
[[workloads]]
name = "p"
protocol = "wamp_pubsub"
publishers = 2
sweep = { rate = [100, 2000002] }
)");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:6:24: error: sweep value: rate (2000002/s) over publishers (2) is 1000001/s "
            "per publisher; the bundled worker schedules from 0.000001 to 1000000/s per "
            "publisher: use more publishers or a lower rate\n");
}

TEST(ScenarioSweep, RateValuesAreWholePositiveRequestsPerSecond) {
  LoadResult r = load_hermetic(R"(name = "s"
[[workloads]]
name = "c"
connections = 4
sweep = { rate = [0, 1.5, 5000001, 100] }
)");
  EXPECT_EQ(diagnostics_text(r),
            "s.toml:5:19: error: sweep value 0 must be at least 1\n"
            "s.toml:5:22: error: sweep values must be positive integers, got float\n"
            "s.toml:5:27: error: sweep value: rate (5000001/s) over connections (4) is "
            "1250000.25/s per connection; the bundled worker schedules from 0.000001 to "
            "1000000/s per connection: use more connections or a lower rate\n");
}

// A rate sweep needs a workload that can run open loop: the rules of a workload's own rate,
// reported at the swept parameter.
TEST(ScenarioSweep, RateIsRefusedWhereTheWorkloadMustRunClosedLoop) {
  EXPECT_EQ(
      diagnostics_text(load_hermetic("name = \"s\"\n[[workloads]]\nname = \"c\"\nin_flight = 4\n"
                                     "sweep = { rate = [100, 200] }\n")),
      "s.toml:5:11: error: sweep parameter 'rate' (open loop) needs in_flight = 1, got "
      "in_flight = 4: an open-loop request is sent at its scheduled time, not queued "
      "behind others: workload 'c'\n");
  EXPECT_EQ(diagnostics_text(load_hermetic(
                "name = \"s\"\n[[workloads]]\nname = \"t\"\nprotocol = \"wamp_transfer\"\n"
                "sweep = { rate = [100, 200] }\n")),
            "s.toml:5:11: error: sweep parameter 'rate' needs an open loop, and wamp_transfer "
            "runs one transfer at a time per session, closed loop: workload 't'\n");
  EXPECT_EQ(diagnostics_text(
                load_hermetic("name = \"s\"\n[[workloads]]\nname = \"r\"\nprotocol = \"wamp_rpc\"\n"
                              "session_per_operation = true\nsweep = { rate = [100, 200] }\n")),
            "s.toml:6:11: error: sweep parameter 'rate' needs an open loop, and "
            "session_per_operation makes every call on a session of its own, closed loop: "
            "workload 'r'\n");
}

TEST(ScenarioSweep, ConnectionsBelowWorkersTimesThreadsAreRefused) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"c\"\nthreads = 2\nconnections = 2\n"
      "sweep = { connections = [1, 4] }\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("sweep value 1 must be at least 2"), std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioSweep, ASweepInDefaultsSaysWhyItIsRefused) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[defaults]\nsweep = { connections = [1, 2] }\n[[workloads]]\nname = "
      "\"w\"\n");
  EXPECT_EQ(
      diagnostics_text(r),
      "s.toml:3:1: error: key 'sweep' in [defaults] is refused: a sweep expands one workload into "
      "one per value, so it is written in that [[workloads]] table, not inherited by every "
      "workload\n");
}

TEST(ScenarioSweep, OneValueIsNotASweep) {
  LoadResult r =
      load_hermetic("name = \"s\"\n[[workloads]]\nname = \"c\"\nsweep = { connections = [4] }\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("at least two values"), std::string::npos)
      << diagnostics_text(r);
}

}  // namespace
}  // namespace benchgate::scenario
