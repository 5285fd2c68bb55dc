// Each class of mistake in a scenario file is reported at the exact line and column of the key
// or value at fault, with a message that says what to change; every mistake of a file is listed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

std::vector<std::string> refusals_of(std::string_view text) {
  LoadResult r = test_support::load_hermetic(text);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.scenario.has_value());
  return test_support::diagnostic_lines(r);
}

constexpr std::string_view kHead = "name = \"s\"\n\n[[workloads]]\nname = \"w\"\n";  // 4 lines

TEST(ScenarioErrors, AMetricsUrlTheScrapeCannotUseIsRefusedSayingWhy) {
  const std::string router = std::string(kHead) +
                             "[router]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
                             "metrics = ";
  const std::pair<std::string, std::string> refused[] = {
      {"https://127.0.0.1:9100/metrics", "it does not start with http://"},
      {"http://127.0.0.1:0/metrics", "its port '0' is not a number from 1 to 65535"},
      {"http://127.0.0.1:/metrics", "its port '' is not a number from 1 to 65535"},
      {"http://127.0.0.1:+80/metrics", "its port '+80' is not a number from 1 to 65535"},
      {"http://[::1]:9100/metrics", "its host '[::1]' is neither an IPv4 address nor localhost"},
      {"http://[::1]/metrics", "its host '[::1]' is neither an IPv4 address nor localhost"},
      // HOST[:PORT] by the parser every benchgate address is read by (common/net/host_port.h),
      // with its reason, where a split at the last ':' judged "::1" or "x!" as a host.
      {"http://::1:9100/metrics", "an IPv6 host is written in brackets, as in \"[::1]:7700\""},
      {"http://x!:9100/metrics", "its host has a character no host name has ('!')"},
      {"http://u:p@127.0.0.1:9100/metrics", "a user name or password is not supported"},
      {"http://127.0.0.1:9100/metrics#top", "a fragment (#...) is never sent to a server"},
      {"http:///metrics", "it names no host"}};
  for (const auto& [url, why] : refused) {
    const auto errors = refusals_of(router + "\"" + url + "\"\n");
    ASSERT_EQ(errors.size(), 1u) << url;
    EXPECT_NE(errors[0].find("s.toml:8:11: error: key 'metrics' must be an http:// URL"),
              std::string::npos)
        << errors[0];
    EXPECT_NE(errors[0].find(why), std::string::npos) << errors[0];
  }
  for (const char* url : {"http://localhost/metrics", "http://127.0.0.1:9100",
                          "http://127.0.0.1:9100/metrics?format=text"}) {
    const LoadResult r = test_support::load_hermetic(router + "\"" + url + "\"\n");
    EXPECT_TRUE(r.ok()) << url;
  }
}

TEST(ScenarioErrors, AMetricsPathThatCouldCarryAnotherRequestIsRefusedSayingWhere) {
  // The scrape writes the path into its request line: a CR LF there would add headers or a
  // whole second request to the address serve allowed.
  const std::string router = std::string(kHead) +
                             "[router]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
                             "metrics = ";
  const std::pair<std::string, std::string> refused[] = {
      {"http://127.0.0.1:9113/m HTTP/1.1\\r\\nX: y\\r\\n\\r\\nPOST /admin HTTP/1.1",
       "character 24 (byte 0x20) must be percent-encoded as %20"},
      {"http://127.0.0.1:9113/m\\r\\nX: y",
       "character 24 (byte 0x0D) must be percent-encoded as %0D"},
      {"http://127.0.0.1:9113/m?a=\\u001b[31m",
       "character 27 (byte 0x1B) must be percent-encoded as %1B"},
      {"http://127.0.0.1:9113/caf\\u00e9",
       "character 26 (byte 0xC3) must be percent-encoded as %C3"},
      {"http://127.0.0.1:9113/m?q=\\\"x\\\"",
       "character 27 (byte 0x22) must be percent-encoded as %22"},
      {"http://127.0.0.1:9113/m%zz", "the '%' at character 24 is not followed by two hex digits"},
      {"http://127.0.0.1:9113/m%4", "the '%' at character 24 is not followed by two hex digits"}};
  for (const auto& [url, why] : refused) {
    const auto errors = refusals_of(router + "\"" + url + "\"\n");
    ASSERT_EQ(errors.size(), 1u) << url;
    EXPECT_NE(errors[0].find("s.toml:8:11: error: key 'metrics' must be an http:// URL"),
              std::string::npos)
        << errors[0];
    EXPECT_NE(errors[0].find(why), std::string::npos) << errors[0];
    // The message shows the value with its control bytes escaped: it stays one line.
    EXPECT_EQ(errors[0].find_first_of("\r\n\x1b"), std::string::npos) << errors[0];
  }
  for (const char* url : {"http://127.0.0.1:9113/a%20b/~x-y_z.txt?k=v&l=(1);m=*!$'+,:@/?",
                          "http://127.0.0.1:9113/caf%C3%A9"}) {
    const LoadResult r = test_support::load_hermetic(router + "\"" + url + "\"\n");
    EXPECT_TRUE(r.ok()) << url;
  }
}

TEST(ScenarioErrors, MisspeltKeyPointsAtTheKeyAndSuggestsTheRightOne) {
  EXPECT_EQ(refusals_of(std::string(kHead) + "conections = 8\n"),
            std::vector<std::string>{"s.toml:5:1: error: unknown key 'conections' in [[workloads]] "
                                     "#1 (did you mean 'connections'?)"});
}

TEST(ScenarioErrors, UnknownKeyFarFromAnyKnownOneHasNoSuggestion) {
  EXPECT_EQ(
      refusals_of(std::string(kHead) + "  colour = \"red\"\n"),
      std::vector<std::string>{"s.toml:5:3: error: unknown key 'colour' in [[workloads]] #1"});
}

TEST(ScenarioErrors, PastAHundredProblemsTheFirstHundredInTheFileAreListed) {
  // 600 unknown top-level keys on lines 2-601, then a workload with 10 more: whichever order
  // the sections are read in, the hundred listed are the file's first.
  std::string text = "name = \"s\"\n";
  for (int i = 0; i < 600; ++i) text += "zzzz_" + std::to_string(i) + " = 1\n";
  text += "[[workloads]]\nname = \"w\"\n";
  for (int i = 0; i < 10; ++i) text += "yyyy_" + std::to_string(i) + " = 1\n";
  const std::vector<std::string> lines = refusals_of(text);
  ASSERT_EQ(lines.size(), 101u);
  EXPECT_EQ(lines.front(), "s.toml:2:1: error: unknown key 'zzzz_0' at the top level");
  EXPECT_EQ(lines[99], "s.toml:101:1: error: unknown key 'zzzz_99' at the top level");
  EXPECT_EQ(lines.back(),
            "s.toml: error: more than 100 problems; the first 100 in the file are listed");
}

TEST(ScenarioErrors, AHundredProblemsAreAllListedWithNoNote) {
  std::string text = "name = \"s\"\n";
  for (int i = 0; i < 100; ++i) text += "zzzz_" + std::to_string(i) + " = 1\n";
  text += "[[workloads]]\nname = \"w\"\n";
  const std::vector<std::string> lines = refusals_of(text);
  ASSERT_EQ(lines.size(), 100u);
  EXPECT_EQ(lines.back(), "s.toml:101:1: error: unknown key 'zzzz_99' at the top level");
}

TEST(ScenarioErrors, WrongTypePointsAtTheValue) {
  EXPECT_EQ(refusals_of(std::string(kHead) + "connections = \"8\"\n"),
            std::vector<std::string>{
                "s.toml:5:15: error: key 'connections' must be an integer, got string \"8\""});
}

TEST(ScenarioErrors, AFloatWhereAnIntegerIsWantedIsNamedWithItsValue) {
  // The key, the value as TOML reads it and what is wanted: "got float" alone left the reader
  // to find which number of the line was meant, and a whole float (3.0) looked like an integer.
  EXPECT_EQ(refusals_of(std::string(kHead) +
                        "connections = 1.5\nrepetitions = 3.0\nthreads = 1e3\nworkers = true\n"
                        "in_flight = [1]\n"),
            (std::vector<std::string>{
                "s.toml:5:15: error: key 'connections' must be an integer, got float 1.5",
                "s.toml:6:15: error: key 'repetitions' must be an integer, got float 3.0",
                "s.toml:7:11: error: key 'threads' must be an integer, got float 1000.0",
                "s.toml:8:11: error: key 'workers' must be an integer, got boolean true",
                "s.toml:9:13: error: key 'in_flight' must be an integer, got array",
            }));
}

TEST(ScenarioErrors, BadUnitQuotesTheValueAndTheExpectedForm) {
  auto errors = refusals_of(std::string(kHead) + "duration = \"3 parsecs\"\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(
      errors[0].starts_with("s.toml:5:12: error: key 'duration' has a bad duration "
                            "\"3 parsecs\""))
      << errors[0];
  EXPECT_NE(errors[0].find("write it like \"250us\" or \"1.5s\""), std::string::npos) << errors[0];
}

// max_start_skew is a duration above 0, in [defaults] or a workload; the default is 1 ms.
TEST(ScenarioErrors, MaxStartSkewIsADurationAboveZero) {
  auto errors = refusals_of(std::string(kHead) + "max_start_skew = \"0ms\"\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].starts_with("s.toml:5:18: error: key 'max_start_skew'")) << errors[0];
  errors = refusals_of(std::string(kHead) + "max_start_skew = 3\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(errors[0].starts_with("s.toml:5:18: error: key 'max_start_skew'")) << errors[0];

  LoadResult r = load_scenario_text(std::string("name = \"s\"\n[defaults]\nmax_start_skew = "
                                                "\"250us\"\n[[workloads]]\nname = \"a\"\n"
                                                "[[workloads]]\nname = \"b\"\n"
                                                "max_start_skew = \"2ms\"\n"),
                                    "s.toml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.scenario->workloads[0].max_start_skew_ns, 250'000);
  EXPECT_EQ(r.scenario->workloads[1].max_start_skew_ns, 2'000'000);
  r = load_scenario_text(std::string(kHead), "s.toml");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.scenario->workloads[0].max_start_skew_ns, 1'000'000);
}

TEST(ScenarioErrors, SyntaxErrorGivesTomlsLineAndColumn) {
  EXPECT_EQ(refusals_of("name = \"s\"\n[[workloads]]\nname =\nconnections = 1\n"),
            std::vector<std::string>{"s.toml:3:7: error: TOML syntax error: Error while parsing "
                                     "key-value pair: expected value, saw '\\n'; a key needs a "
                                     "value after '='"});
}

// toml++ speaks of its parser's states; the common mistakes get a plain explanation after it.
TEST(ScenarioErrors, CommonSyntaxErrorsAreExplained) {
  const std::string head = "name = \"s\"\n[[workloads]]\n";
  EXPECT_EQ(refusals_of(head + "name = \"w\nconnections = 1\n"),
            std::vector<std::string>{
                "s.toml:3:10: error: TOML syntax error: Error while parsing string: unescaped "
                "control characters other than TAB (U+0009) are explicitly prohibited; a string "
                "is not closed on this line: end it with the quote it starts with (use "
                "\"\"\"...\"\"\" for a string of several lines)"});
  EXPECT_EQ(refusals_of(head + "name = 'w\n"),
            std::vector<std::string>{
                "s.toml:3:10: error: TOML syntax error: Error while parsing literal string: "
                "control characters other than TAB (U+0009) are explicitly prohibited; a string "
                "is not closed on this line: end it with the quote it starts with (use "
                "\"\"\"...\"\"\" for a string of several lines)"});
  EXPECT_EQ(refusals_of(head + "name = \"w\"\nconnections = four\n"),
            std::vector<std::string>{
                "s.toml:4:16: error: TOML syntax error: Error while parsing boolean: expected "
                "'false', saw 'fo'; a bare word is not a TOML value: quote strings (\"four\") or "
                "write a number, true or false"});
  EXPECT_EQ(refusals_of(head + "name = w\n"),
            std::vector<std::string>{
                "s.toml:3:8: error: TOML syntax error: Error while parsing value: could not "
                "determine value type; a bare word is not a TOML value: quote strings (\"w\") or "
                "write a number, true or false"});
  EXPECT_EQ(refusals_of(head + "name = \"w\"\nduration = 10s\n"),
            std::vector<std::string>{
                "s.toml:4:14: error: TOML syntax error: Error while parsing decimal integer: "
                "expected digit, saw 's'; a number with a unit is a string in a scenario: quote "
                "it (\"10s\")"});
  EXPECT_EQ(refusals_of(head + "name = \"\"\"w\n"),
            std::vector<std::string>{"s.toml:3:13: error: TOML syntax error: Error while parsing "
                                     "string: encountered end-of-file; a string is not closed "
                                     "before the end of the file"});
  // An error without a plain explanation is toml++'s text alone.
  EXPECT_EQ(refusals_of(head + "name = \"w\" x\n"),
            std::vector<std::string>{"s.toml:3:12: error: TOML syntax error: Error while parsing "
                                     "key-value pair: expected a comment or whitespace, saw 'x'"});
}

TEST(ScenarioErrors, EveryProblemOfAFileIsReportedInFileOrder) {
  auto errors = refusals_of(
      "nmae = \"s\"\n"              // 1: unknown key, the missing name it misspells
      "[defaults]\n"                // 2
      "repetitions = 0\n"           // 3
      "[[workloads]]\n"             // 4
      "name = \"w\"\n"              // 5
      "in_flight = 5000000000\n"    // 6
      "[[gates]]\n"                 // 7
      "workload = \"w\"\n"          // 8
      "metric = \"latency.p99\"\n"  // 9
      "max = 5\n");                 // 10
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "s.toml:1:1: error: unknown key 'nmae' at the top level (did you mean "
                        "'name'?)",
                        "s.toml:3:15: error: key 'repetitions' must be at least 1, got 0",
                        "s.toml:6:13: error: key 'in_flight' must be at most 4294967295, got "
                        "5000000000",
                        "s.toml:10:7: error: key 'max' must be a duration string such as "
                        "\"250ms\" or \"1.5s\", got integer 5",
                    }));
}

TEST(ScenarioErrors, AMisspeltRequiredKeyIsOneErrorNotAlsoAMissingKey) {
  // Each misspelling is reported once, at the key, with what was meant: the key it misspells is
  // not reported again as missing, nor the keys beside it as belonging to another kind of gate.
  EXPECT_EQ(refusals_of("nme = \"s\"\n"               // 1
                        "[[workloads]]\n"             // 2
                        "nmae = \"w\"\n"              // 3
                        "[[gates]]\n"                 // 4
                        "workload = \"*\"\n"          // 5
                        "metrc = \"latency.p99\"\n"   // 6
                        "max = \"1s\"\n"              // 7
                        "[[gates]]\n"                 // 8
                        "workload = \"*\"\n"          // 9
                        "metric = \"latency.p99\"\n"  // 10
                        "baselin = \"main\"\n"        // 11
                        "max_regression = \"5%\"\n"   // 12
                        "[[gates]]\n"                 // 13
                        "workload = \"*\"\n"          // 14
                        "metric = \"latency.p99\"\n"  // 15
                        "baseline = \"main\"\n"       // 16
                        "max_regresion = \"5%\"\n"    // 17
                        "[[gates]]\n"                 // 18
                        "workload = \"*\"\n"          // 19
                        "metric = \"latency.p99\"\n"  // 20
                        "kind = \"relative\"\n"       // 21
                        "basline = \"main\"\n"        // 22
                        "[workers]\n"                 // 23
                        "count = 2\n"                 // 24
                        "att = \"127.0.0.1:1\"\n"),   // 25
            (std::vector<std::string>{
                "s.toml:1:1: error: unknown key 'nme' at the top level (did you mean 'name'?)",
                "s.toml:3:1: error: unknown key 'nmae' in [[workloads]] #1 (did you mean "
                "'name'?)",
                "s.toml:6:1: error: unknown key 'metrc' in [[gates]] #1 (did you mean "
                "'metric'?)",
                "s.toml:11:1: error: unknown key 'baselin' in [[gates]] #2 (did you mean "
                "'baseline'?)",
                "s.toml:17:1: error: unknown key 'max_regresion' in [[gates]] #3 (did you mean "
                "'max_regression'?)",
                "s.toml:22:1: error: unknown key 'basline' in [[gates]] #4 (did you mean "
                "'baseline'?)",
                "s.toml:25:1: error: unknown key 'att' in [workers] (did you mean 'at'?)",
            }));
  // A key far from every known one is no misspelling of the missing one: both are reported.
  EXPECT_EQ(refusals_of("title = \"s\"\n[[workloads]]\nname = \"w\"\n"),
            (std::vector<std::string>{
                "s.toml:1:1: error: missing required key 'name' at the top level",
                "s.toml:1:1: error: unknown key 'title' at the top level",
            }));
}

TEST(ScenarioErrors, ConnectionsBelowWorkersTimesThreadsBlamesTheConnectionsKey) {
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\nworkers = 2\nthreads = 4\n"
                        "[[workloads]]\nname = \"w\"\nconnections = 4\n"),
            std::vector<std::string>{
                "s.toml:7:1: error: workload 'w': connections (4) must be at least workers * "
                "threads (2 * 4 = 8): each thread needs a connection"});
}

TEST(ScenarioErrors, ADefaultsProblemSharedByWorkloadsIsReportedOncePerWorkloadHeader) {
  auto errors = refusals_of(
      "name = \"s\"\n[defaults]\nthreads = 2\n[[workloads]]\nname = \"a\"\n"
      "[[workloads]]\nname = \"b\"\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_TRUE(errors[0].starts_with("s.toml:3:1: error: workload 'a': connections (1)"))
      << errors[0];
  EXPECT_TRUE(errors[1].starts_with("s.toml:3:1: error: workload 'b': connections (1)"))
      << errors[1];
}

TEST(ScenarioErrors, OpenLoopRateWithPipeliningIsRefused) {
  auto errors = refusals_of(std::string(kHead) + "in_flight = 2\nrate = 500\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(
      errors[0].starts_with("s.toml:5:1: error: workload 'w': rate (open loop) needs "
                            "in_flight = 1, got in_flight = 2"))
      << errors[0];
}

TEST(ScenarioErrors, OpenLoopWithPipeliningBlamesInFlightWhereverTheWorkloadWritesIt) {
  const std::string message =
      "error: workload 'w': rate (open loop) needs in_flight = 1, got in_flight = 2: an "
      "open-loop request is sent at its scheduled time, not queued behind others";
  // Both in the workload, in either order: in_flight is what the rule asks to change.
  EXPECT_EQ(refusals_of(std::string(kHead) + "rate = 500\nin_flight = 2\n"),
            std::vector<std::string>{"s.toml:6:1: " + message});
  EXPECT_EQ(refusals_of(std::string(kHead) + "in_flight = 2\nrate = 500\n"),
            std::vector<std::string>{"s.toml:5:1: " + message});
  // Both in [defaults]: in_flight there.
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\nrate = 500\nin_flight = 2\n[[workloads]]\n"
                        "name = \"w\"\n"),
            std::vector<std::string>{"s.toml:4:1: " + message});
  // The workload's own in_flight, under a rate of [defaults].
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\nrate = 500\n[[workloads]]\nname = \"w\"\n"
                        "in_flight = 2\n"),
            std::vector<std::string>{"s.toml:6:1: " + message});
  // An in_flight of [defaults] that suits the other workloads: the workload's own rate.
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\nin_flight = 2\n[[workloads]]\nname = \"w\"\n"
                        "rate = 500\n"),
            std::vector<std::string>{"s.toml:6:1: " + message});
}

TEST(ScenarioErrors, AOneAtATimeRuleBlamesTheKeyThatBreaksIt) {
  // wamp_transfer runs one transfer at a time: in_flight = 2 breaks it, not rate = 0.
  EXPECT_EQ(
      refusals_of(std::string(kHead) + "protocol = \"wamp_transfer\"\nrate = 0\nin_flight = 2\n"),
      std::vector<std::string>{
          "s.toml:7:1: error: workload 'w': wamp_transfer runs one transfer at a time per "
          "session, closed loop: in_flight must be 1 and rate unset, got in_flight = 2"});
  // An in_flight of [defaults] that suits the other workloads: the workload's own
  // session_per_operation is what asks for one call at a time.
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\nin_flight = 2\n[[workloads]]\nname = \"w\"\n"
                        "protocol = \"wamp_rpc\"\nsession_per_operation = true\n"),
            std::vector<std::string>{
                "s.toml:7:1: error: workload 'w': session_per_operation makes every call on a "
                "session of its own, closed loop: in_flight must be 1 and rate unset, got "
                "in_flight = 2"});
}

TEST(ScenarioErrors, ATooShortTimeoutIsReportedAtTheTimeout) {
  // Not at a warm-up of zero, which adds nothing, nor at a duration the timeout must cover: the
  // timeout is the key at fault, wherever it is set.
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\ntimeout = \"5s\"\n[[workloads]]\nname = \"w\"\n"
                        "warmup = \"0s\"\n"),
            std::vector<std::string>{"s.toml:3:1: error: workload 'w': timeout (5s) must be "
                                     "longer than warmup + duration * repetitions (9s)"});
  EXPECT_EQ(refusals_of("name = \"s\"\n[defaults]\ntimeout = \"20s\"\n[[workloads]]\n"
                        "name = \"w\"\nduration = \"10s\"\n"),
            std::vector<std::string>{"s.toml:3:1: error: workload 'w': timeout (20s) must be "
                                     "longer than warmup + duration * repetitions (31s)"});
  // The default timeout: blamed on what it must cover, the workload's own key first.
  EXPECT_EQ(refusals_of(std::string(kHead) + "warmup = \"0s\"\nduration = \"30s\"\n"),
            std::vector<std::string>{"s.toml:6:1: error: workload 'w': timeout (60s) must be "
                                     "longer than warmup + duration * repetitions (90s)"});
}

TEST(ScenarioErrors, DotAndDotDotAreNoNames) {
  const std::string why =
      "must not be '.' or '..' (names end up in file and folder names, where these mean the "
      "folder itself and its parent)";
  EXPECT_EQ(refusals_of("name = \"..\"\n[[workloads]]\nname = \".\"\n"),
            (std::vector<std::string>{"s.toml:1:8: error: key 'name' " + why + ", got '..'",
                                      "s.toml:3:8: error: key 'name' " + why + ", got '.'"}));
  EXPECT_EQ(refusals_of("name = \"s\"\n[worker_impls.\"..\"]\ncommand = [\"w\"]\n"
                        "[routers.\".\"]\nimpl = \"builtin\"\n[routers.b]\nimpl = \"builtin\"\n"
                        "[routers.c]\nimpl = \"builtin\"\n[compare]\nrouters = [\"b\", \"c\"]\n"
                        "[[workloads]]\nname = \"w\"\nrepetitions = 2\n"),
            (std::vector<std::string>{
                "s.toml:2:15: error: worker name '..' " + why,
                "s.toml:4:10: error: router name '.' " + why,
            }));
  // Other names of dots are names like any other.
  for (const char* name : {"...", ".a", "a..b"}) {
    const LoadResult r = test_support::load_hermetic(
        std::string("name = \"") + name + "\"\n[[workloads]]\nname = \"" + name + "\"\n");
    EXPECT_TRUE(r.ok()) << name << "\n" << test_support::diagnostics_text(r);
  }
}

// An errors.rate max fails only when the rate is past it, and errors never outnumber operations:
// a max of 100% or more can never fail. A min past 100% can never pass; a min of 100% (every
// operation fails) is odd but can.
TEST(ScenarioErrors, AnErrorRateMaxOfAHundredPercentOrMoreOrAMinPastItIsRefusedAtItsValue) {
  const std::string gate = "[[gates]]\nworkload = \"w\"\nmetric = \"errors.rate\"\n";
  const std::string max =
      "s.toml:%d:7: error: key 'max' of metric 'errors.rate' (errors over "
      "operations) must be below 100% (or 1), got ";
  const std::string never = ": errors never outnumber operations, so such a gate can never fail";
  auto at = [&](int line) {
    std::string text = max;
    text.replace(text.find("%d"), 2, std::to_string(line));
    return text;
  };
  EXPECT_EQ(refusals_of(std::string(kHead) + gate + "max = \"150%\"\n" + gate + "min = 2\n" + gate +
                        "max = \"100.5 %\"\n" + gate + "max = \"100%\"\n" + gate + "max = 1\n"),
            (std::vector<std::string>{
                at(8) + "\"150%\"" + never,
                "s.toml:12:7: error: key 'min' of metric 'errors.rate' (errors over operations) "
                "must be at most 100% (or 1), got 2",
                at(16) + "\"100.5 %\"" + never,
                at(20) + "\"100%\"" + never,
                at(24) + "1" + never,
            }));
  const LoadResult r = test_support::load_hermetic(std::string(kHead) + gate + "max = \"99.9%\"\n" +
                                                   gate + "max = 0.5\n" + gate + "min = \"0%\"\n" +
                                                   gate + "min = \"100%\"\n" + gate + "min = 1\n");
  EXPECT_TRUE(r.ok()) << test_support::diagnostics_text(r);
}

// A gate's 'against' in a scenario that compares nothing is refused once, at the key: it makes
// no relative gate, so neither a missing max_regression nor one present is a second error.
TEST(ScenarioErrors, AStrayAgainstIsRefusedOnceAtTheKey) {
  const std::string gate =
      "[[gates]]\nworkload = \"w\"\nmetric = \"throughput.rps\"\n";  // lines 5 to 7
  const std::string stray =
      "error: key 'against' judges one variant against another of the same run, and this "
      "scenario compares none ([compare] routers or workers)";
  EXPECT_EQ(refusals_of(std::string(kHead) + gate + "min = 5\nagainst = \"x\"\n"),
            std::vector<std::string>{"s.toml:9:1: " + stray});
  EXPECT_EQ(refusals_of(std::string(kHead) + gate + "against = \"x\"\n"),
            std::vector<std::string>{"s.toml:8:1: " + stray});
  EXPECT_EQ(refusals_of(std::string(kHead) + gate +
                        "min = 5\nagainst = \"x\"\nmax_regression = \"5%\"\nalpha = 0.05\n"),
            std::vector<std::string>{"s.toml:9:1: " + stray});
}

TEST(ScenarioErrors, ACpuUtilizationBoundPastAHundredPercentIsRefusedAtItsValue) {
  const std::string gate = "[[gates]]\nworkload = \"w\"\nmetric = \"worker.cpu_utilization\"\n";
  const std::string what =
      "of metric 'worker.cpu_utilization' (the busiest load thread's CPU "
      "time over its window) must be at most 100% (or 1), got ";
  EXPECT_EQ(refusals_of(std::string(kHead) + gate + "max = \"150%\"\n" + gate + "min = 1.5\n"),
            (std::vector<std::string>{
                "s.toml:8:7: error: key 'max' " + what + "\"150%\"",
                "s.toml:12:7: error: key 'min' " + what + "1.5",
            }));
  const LoadResult r = test_support::load_hermetic(std::string(kHead) + gate + "max = \"100%\"\n" +
                                                   gate + "max = 0.9\n");
  EXPECT_TRUE(r.ok()) << test_support::diagnostics_text(r);
}

TEST(ScenarioErrors, UnsetEnvironmentVariableIsNamedAtTheString) {
  EXPECT_EQ(refusals_of(std::string(kHead) + "target = \"/${env:NOPE}\"\n"),
            std::vector<std::string>{"s.toml:5:10: error: key 'target': environment variable "
                                     "'NOPE' is not set (used as ${env:NOPE})"});
}

TEST(ScenarioErrors, GateOnAMisspeltWorkloadSuggestsTheNearestName) {
  EXPECT_EQ(refusals_of(std::string(kHead) +
                        "[[gates]]\nworkload = \"x\"\nmetric = \"throughput.rps\"\nmin = 10\n"),
            std::vector<std::string>{
                "s.toml:6:12: error: gate workload 'x' matches no workload (did you mean 'w'?)"});
}

// A gate on a figure no run of its workload can measure would have the run measure everything
// and then judge it an error (exit 3): it is refused when the file loads, at its metric, saying
// which workload and why.
TEST(ScenarioErrors, AGateOnAFigureItsWorkloadCanNeverMeasureIsRefused) {
  EXPECT_EQ(
      refusals_of(std::string(kHead) +
                  "[[workloads]]\nname = \"w2\"\n"
                  "[[gates]]\nworkload = \"w*\"\nmetric = \"tls_handshake.p99\"\nmax = \"1s\"\n"
                  "[[gates]]\nworkload = \"w\"\nmetric = \"session_setup.p99\"\nmax = \"1s\"\n"
                  "[[gates]]\nworkload = \"w2\"\nmetric = \"handshakes.rate\"\nmin = 1\n"
                  "[[gates]]\nworkload = \"w\"\nmetric = \"connect.p99\"\nmax = \"1s\"\n"),
      (std::vector<std::string>{
          "s.toml:9:10: error: gate metric 'tls_handshake.p99' can never be measured for workload "
          "'w' (and 1 more that 'w*' matches): it is cleartext, so no connection makes a TLS "
          "handshake (tls = true asks for TLS)",
          "s.toml:13:10: error: gate metric 'session_setup.p99' can never be measured for "
          "workload 'w': it is a WAMP figure and the workload is http1",
          "s.toml:17:10: error: gate metric 'handshakes.rate' can never be measured for workload "
          "'w2': the workload keeps its connections; it needs new_connection_per_request = true",
      }));
}

// A stored run's scenario is loaded again to judge its gates (`orchestrator gate RUN`): a gate
// the loader refuses now is kept with the loader's message instead of failing the load, the
// other gates as they are; a file, and a problem outside [[gates]], are refused as before.
TEST(ScenarioErrors, AStoredRunsGateTheLoaderRefusesIsKeptWithItsMessage) {
  const std::string text = std::string(kHead) +
                           "[[gates]]\nworkload = \"w\"\nmetric = \"errors.count\"\nmax = 0\n"
                           "[[gates]]\nworkload = \"w\"\nmetric = \"handshakes.rate\"\nmin = 1\n"
                           "severity = \"warning\"\n";
  LoadOptions options = test_support::hermetic_options();
  options.keep_refused_gates = true;
  const LoadResult stored = load_scenario_text(text, "run 3 scenario", options);
  ASSERT_TRUE(stored.ok()) << test_support::diagnostics_text(stored);
  ASSERT_EQ(stored.scenario->gates.size(), 2u);
  EXPECT_EQ(stored.scenario->gates[0].refused, "");
  const Gate& refused = stored.scenario->gates[1];
  EXPECT_EQ(refused.refused,
            "line 11: gate metric 'handshakes.rate' can never be measured for workload 'w': the "
            "workload keeps its connections; it needs new_connection_per_request = true");
  EXPECT_EQ(refused.workload, "w");
  EXPECT_EQ(refused.metric, "handshakes.rate");
  EXPECT_EQ(refused.min, 1.0);
  EXPECT_EQ(refused.severity, GateSeverity::kWarning);

  EXPECT_EQ(refusals_of(text),
            std::vector<std::string>{
                "s.toml:11:10: error: gate metric 'handshakes.rate' can never be measured for "
                "workload 'w': the workload keeps its connections; it needs "
                "new_connection_per_request = true"});
  const LoadResult workload_refused = load_scenario_text(
      std::string(kHead) + "conections = 2\n" + text.substr(kHead.size()), "s.toml", options);
  EXPECT_FALSE(workload_refused.ok());
  EXPECT_EQ(test_support::diagnostic_lines(workload_refused).size(), 1u)
      << test_support::diagnostics_text(workload_refused);
}

// A WAMP workload cannot take new_connection_per_request (an HTTP key), so a handshakes.rate
// gate on it is told the figure is HTTP's, not to set that key.
TEST(ScenarioErrors, AHandshakesRateGateOnAWampWorkloadSaysItIsAnHttpFigure) {
  EXPECT_EQ(refusals_of("name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
                        "[[gates]]\nworkload = \"w\"\nmetric = \"handshakes.rate\"\nmin = 1\n"),
            std::vector<std::string>{
                "s.toml:7:10: error: gate metric 'handshakes.rate' can never be measured for "
                "workload 'w': it is an HTTP figure (with new_connection_per_request = true) and "
                "the workload is wamp_rpc"});
}

// The bundled worker times a WAMP session's setup only as a whole (session_setup.p99): its
// WAMP sessions report no connect, TLS handshake or first byte, so a gate on those is refused,
// saying which workloads measure the figure; a worker program may report them.
TEST(ScenarioErrors, AConnectionSetupGateOnAWampWorkloadOfTheBundledWorkerIsRefused) {
  const std::string head =
      "name = \"s\"\n[[workloads]]\nname = \"rpc\"\nprotocol = \"wamp_rpc\"\n";  // 4 lines
  EXPECT_EQ(
      refusals_of(head + "[[gates]]\nworkload = \"rpc\"\nmetric = \"connect.p99\"\nmax = \"1s\"\n"
                         "[[gates]]\nworkload = \"rpc\"\nmetric = \"tls_handshake.p99\"\n"
                         "max = \"1s\"\n"
                         "[[gates]]\nworkload = \"rpc\"\nmetric = \"ttfb.p99\"\nmax = \"1s\"\n"),
      (std::vector<std::string>{
          "s.toml:7:10: error: gate metric 'connect.p99' can never be measured for workload "
          "'rpc': it is wamp_rpc run by the bundled worker, which times a WAMP session's "
          "setup only as a whole (session_setup.p99: TCP connect to WELCOME); connect.p99 "
          "is measured for HTTP workloads (http1, http2), and for a workload whose "
          "[worker_impls] program reports connection setup",
          "s.toml:11:10: error: gate metric 'tls_handshake.p99' can never be measured for "
          "workload 'rpc': it is wamp_rpc run by the bundled worker, which times a WAMP "
          "session's setup only as a whole (session_setup.p99: TCP connect to WELCOME); "
          "tls_handshake.p99 is measured for HTTP workloads with tls = true, and for a "
          "workload whose [worker_impls] program reports connection setup",
          "s.toml:15:10: error: gate metric 'ttfb.p99' can never be measured for workload "
          "'rpc': it is wamp_rpc run by the bundled worker, which times a WAMP session's "
          "setup only as a whole (session_setup.p99: TCP connect to WELCOME); ttfb.p99 is "
          "measured for HTTP workloads (http1, http2), and for a workload whose "
          "[worker_impls] program reports connection setup",
      }));

  // A worker program may report connection setup (docs/WORKER_PROTOCOL.md, `setup`).
  const std::string program = "[worker_impls.py]\ncommand = [\"python3\", \"worker.py\"]\n";
  const std::string gate =
      "[[gates]]\nworkload = \"rpc\"\nmetric = \"connect.p99\"\nmax = \"1s\"\n";
  LoadResult loaded = test_support::load_hermetic(head + "worker = \"py\"\n" + program + gate);
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
  // Comparing workers: refused where the gate judges the variant "builtin", not elsewhere.
  const std::string compared =
      head + "repetitions = 2\n" + program + "[compare]\nworkers = [\"builtin\", \"py\"]\n" + gate;
  EXPECT_EQ(refusals_of(compared),
            std::vector<std::string>{
                "s.toml:12:10: error: gate metric 'connect.p99' can never be measured for workload "
                "'rpc': it is wamp_rpc run by the bundled worker, which times a WAMP session's "
                "setup only as a whole (session_setup.p99: TCP connect to WELCOME); connect.p99 "
                "is measured for HTTP workloads (http1, http2), and for a workload whose "
                "[worker_impls] program reports connection setup"});
  loaded = test_support::load_hermetic(compared + "variant = \"py\"\n");
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
}

// Comparing workers, a paired gate judges the variant it is judged against as well as its own:
// against = "builtin" puts the bundled worker's figure in every pair.
TEST(ScenarioErrors, APairedGateAgainstTheBundledWorkerOnAWampWorkloadIsRefused) {
  const std::string text =
      "name = \"s\"\n[[workloads]]\nname = \"rpc\"\nprotocol = \"wamp_rpc\"\n"
      "repetitions = 8\n[worker_impls.py]\ncommand = [\"python3\", \"worker.py\"]\n"
      "[compare]\nworkers = [\"builtin\", \"py\"]\n"
      "[[gates]]\nworkload = \"rpc\"\nmetric = \"connect.p99\"\nvariant = \"py\"\n"
      "against = \"builtin\"\nmax_regression = \"5%\"\n";
  EXPECT_EQ(refusals_of(text),
            std::vector<std::string>{
                "s.toml:12:10: error: gate metric 'connect.p99' can never be measured for workload "
                "'rpc': it is wamp_rpc run by the bundled worker, which times a WAMP session's "
                "setup only as a whole (session_setup.p99: TCP connect to WELCOME); connect.p99 "
                "is measured for HTTP workloads (http1, http2), and for a workload whose "
                "[worker_impls] program reports connection setup"});
}

// A gate's baseline must be a name `baseline add` and --promote accept: no other can exist.
TEST(ScenarioErrors, AGateBaselineNameTheStoreRefusesIsRefused) {
  const std::string head =
      "name = \"s\"\n[[workloads]]\nname = \"rpc\"\nprotocol = \"wamp_rpc\"\n"
      "[[gates]]\nworkload = \"rpc\"\nmetric = \"throughput.rps\"\n";  // 7 lines
  EXPECT_EQ(refusals_of(head + "baseline = \"ma in\"\nmax_regression = \"5%\"\n"),
            std::vector<std::string>{
                "s.toml:8:12: error: baseline name 'ma in' may contain only letters, digits, "
                "'_', '-' and '.' (the rule of 'orchestrator baseline add' and --promote)"});
  EXPECT_EQ(
      refusals_of(head + "baseline = \"" + std::string(101, 'a') + "\"\nmax_regression = \"5%\"\n"),
      std::vector<std::string>{
          "s.toml:8:12: error: a baseline name must have 1 to 100 characters (the rule of "
          "'orchestrator baseline add' and --promote)"});
  LoadResult loaded =
      test_support::load_hermetic(head + "baseline = \"main-1.2_x\"\nmax_regression = \"5%\"\n");
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
}

// The adapters report what their tool prints: wrk latency at p50, p75, p90, p99 and p99.9,
// h2load no percentile at all, and neither any connection setup.
TEST(ScenarioErrors, AGateOnAFigureTheAdapterNeverReportsIsRefused) {
  const std::string head =
      "name = \"s\"\n[worker_impls.w]\nadapter = \"wrk\"\n[worker_impls.h]\nadapter = \"h2load\"\n"
      "[[workloads]]\nname = \"a\"\nworker = \"w\"\n[[workloads]]\nname = \"b\"\nworker = \"h\"\n";
  auto gate = [](const std::string& workload, const std::string& metric) {
    return "[[gates]]\nworkload = \"" + workload + "\"\nmetric = \"" + metric +
           "\"\nmax = \"1s\"\n";
  };
  EXPECT_EQ(
      refusals_of(head + gate("a", "latency.p95") + gate("b", "latency.p99") +
                  gate("a", "connect.p99") + gate("b", "ttfb.p99")),
      (std::vector<std::string>{
          "s.toml:14:10: error: gate metric 'latency.p95' can never be measured for workload "
          "'a': it is run by worker 'w', the wrk adapter, which prints latency at p50, p75, "
          "p90, p99 and p99.9 only (and its mean and max); latency.p95 is measured by the "
          "bundled worker and a [worker_impls] program",
          "s.toml:18:10: error: gate metric 'latency.p99' can never be measured for workload "
          "'b': it is run by worker 'h', the h2load adapter, which prints no latency "
          "percentile (only the min, max, mean and standard deviation of its request times: "
          "latency.max and latency.mean); latency.p99 is measured by the bundled worker and a "
          "[worker_impls] program",
          "s.toml:22:10: error: gate metric 'connect.p99' can never be measured for workload "
          "'a': it is run by worker 'w', the wrk adapter, which reports no connection setup; "
          "connect.p99 is measured by the bundled worker and a [worker_impls] program that "
          "reports it",
          "s.toml:26:10: error: gate metric 'ttfb.p99' can never be measured for workload "
          "'b': it is run by worker 'h', the h2load adapter, which reports no connection "
          "setup; ttfb.p99 is measured by the bundled worker and a [worker_impls] program that "
          "reports it",
      }));
  // What each prints is accepted.
  LoadResult loaded = test_support::load_hermetic(
      head + gate("a", "latency.p99") + gate("a", "latency.p999") + gate("a", "latency.max") +
      gate("b", "latency.max") + gate("b", "latency.mean"));
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
}

// benchgate samples the CPU and memory only of a system it started.
TEST(ScenarioErrors, ARouterProcessGateOnAnExternalSystemIsRefused) {
  const std::string head =
      "name = \"s\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
      "[[workloads]]\nname = \"a\"\n";  // 6 lines
  auto gate = [](const std::string& metric) {
    return "[[gates]]\nworkload = \"a\"\nmetric = \"" + metric +
           "\"\nbaseline = \"main\"\nmax_regression = \"5%\"\n";
  };
  EXPECT_EQ(refusals_of(head + gate("router.cpu_per_request") + gate("router.rss_bytes")),
            (std::vector<std::string>{
                "s.toml:9:10: error: gate metric 'router.cpu_per_request' can never be measured "
                "for workload 'a': its system under test is [router] impl = \"external\", whose "
                "CPU and memory benchgate does not sample (it samples only a process it "
                "started); router.cpu_per_request is measured for impl = \"builtin\" and impl = "
                "\"command\"",
                "s.toml:14:10: error: gate metric 'router.rss_bytes' can never be measured for "
                "workload 'a': its system under test is [router] impl = \"external\", whose CPU "
                "and memory benchgate does not sample (it samples only a process it started); "
                "router.rss_bytes is measured for impl = \"builtin\" and impl = \"command\"",
            }));
  LoadResult loaded = test_support::load_hermetic(head + gate("throughput.rps"));
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
  loaded = test_support::load_hermetic("name = \"s\"\n[[workloads]]\nname = \"a\"\n" +
                                       gate("router.rss_bytes"));
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
}

// Comparing routers, the [routers.NAME] of each variant the gate judges counts: its `variant`,
// or a paired gate's `against`.
TEST(ScenarioErrors, ARouterProcessGateJudgingAnExternalComparedRouterIsRefused) {
  const std::string head =
      "name = \"s\"\n[[workloads]]\nname = \"a\"\nrepetitions = 8\n[routers.mine]\n"
      "[routers.theirs]\nimpl = \"external\"\naddress = \"127.0.0.1:8080\"\n"
      "[compare]\nrouters = [\"mine\", \"theirs\"]\n"
      "[[gates]]\nworkload = \"a\"\nmetric = \"router.rss_bytes\"\n";  // 13 lines
  const std::string refusal =
      "s.toml:13:10: error: gate metric 'router.rss_bytes' can never be measured for workload "
      "'a': its system under test is [routers.theirs] impl = \"external\", whose CPU and memory "
      "benchgate does not sample (it samples only a process it started); router.rss_bytes is "
      "measured for impl = \"builtin\" and impl = \"command\"";
  EXPECT_EQ(refusals_of(head + "baseline = \"main\"\nmax_regression = \"5%\"\n"),
            std::vector<std::string>{refusal});
  EXPECT_EQ(
      refusals_of(head + "variant = \"mine\"\nagainst = \"theirs\"\nmax_regression = \"5%\"\n"),
      std::vector<std::string>{refusal});
  LoadResult loaded = test_support::load_hermetic(
      head + "variant = \"mine\"\nbaseline = \"main\"\nmax_regression = \"5%\"\n");
  EXPECT_TRUE(loaded.ok()) << test_support::diagnostics_text(loaded);
}

TEST(ScenarioErrors, ComparingRoutersAndWorkersAtOnceIsRefused) {
  auto errors =
      refusals_of(std::string(kHead) +
                  "repetitions = 2\n[routers.a]\n[routers.b]\n[compare]\nrouters = [\"a\", \"b\"]\n"
                  "workers = [\"builtin\"]\n");
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "s.toml:10:1: error: [compare] routers and workers exclude each other: a "
                        "comparison varies one thing; compare routers and workers in two "
                        "scenario files",
                    }));
}

TEST(ScenarioErrors, UnknownKeysAreFoundInEverySection) {
  EXPECT_EQ(refusals_of("name = \"s\"\n"
                        "[router]\n"
                        "thread = 2\n"
                        "[router.limits]\n"
                        "[defaults]\n"
                        "warmpu = \"1s\"\n"
                        "[[workloads]]\n"
                        "name = \"w\"\n"
                        "[[gates]]\n"
                        "workload = \"w\"\n"
                        "metric = \"latency.p99\"\n"
                        "max = \"1ms\"\n"
                        "sevrity = \"warning\"\n"),
            (std::vector<std::string>{
                "s.toml:3:1: error: unknown key 'thread' in [router] (did you mean 'threads'?)",
                "s.toml:4:9: error: unknown key 'limits' in [router]",
                "s.toml:6:1: error: unknown key 'warmpu' in [defaults] (did you mean 'warmup'?)",
                "s.toml:13:1: error: unknown key 'sevrity' in [[gates]] #1 (did you mean "
                "'severity'?)",
            }));
}

TEST(ScenarioErrors, GateBoundsAreTypedByTheirMetric) {
  auto errors =
      refusals_of(std::string(kHead) +
                  "[[gates]]\nworkload = \"w\"\nmetric = \"router.rss_bytes\"\nmax = \"5ms\"\n"
                  "[[gates]]\nworkload = \"w\"\nmetric = \"throughput.rps\"\nmin = \"5k\"\n");
  ASSERT_EQ(errors.size(), 2u);
  // The middle of the first message is the units library's own explanation.
  EXPECT_TRUE(errors[0].starts_with("s.toml:8:7: error: key 'max' has a bad size \"5ms\""))
      << errors[0];
  EXPECT_TRUE(errors[0].ends_with("; write it like \"1KiB\", \"1.5MB\" or an integer of bytes"))
      << errors[0];
  EXPECT_EQ(errors[1], "s.toml:12:7: error: key 'min' must be a number, got string \"5k\"");
}

// The second name, and where the first one is: in a long file, that is the one to find.
TEST(ScenarioErrors, DuplicateWorkloadNamePointsAtTheSecondNameAndNamesTheFirst) {
  EXPECT_EQ(refusals_of(std::string(kHead) + "[[workloads]]\nname = \"w\"\n"),
            std::vector<std::string>{
                "s.toml:6:8: error: duplicate workload name 'w' (first given at s.toml:4:8)"});
}

TEST(ScenarioErrors, MissingFileIsAnErrorNamingTheFile) {
  LoadResult r = load_scenario_file("/nonexistent/dir/x.toml");
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].format(), "/nonexistent/dir/x.toml: error: no such scenario file");
}

// Issue 13: a gate's variant must be one the scenario runs, fail_when_underpowered is a
// relative gate's boolean.
TEST(ScenarioErrors, GateVariantAndFailWhenUnderpoweredAreChecked) {
  EXPECT_EQ(refusals_of(std::string(kHead) + "[[gates]]\nworkload = \"w\"\nvariant = \"defualt\"\n"
                                             "metric = \"throughput.rps\"\nmin = 1\n"),
            std::vector<std::string>{
                "s.toml:7:11: error: gate variant 'defualt' matches no variant (did you mean "
                "'default'?); the scenario's variants: default"});
  auto errors = refusals_of(std::string(kHead) +
                            "[[gates]]\nworkload = \"w\"\nmetric = \"throughput.rps\"\n"
                            "min = 1\nfail_when_underpowered = true\n"
                            "[[gates]]\nworkload = \"w\"\nmetric = \"throughput.rps\"\n"
                            "baseline = \"main\"\nmax_regression = \"5%\"\n"
                            "fail_when_underpowered = \"yes\"\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0],
            "s.toml:9:1: error: key 'fail_when_underpowered' applies only to a relative gate "
            "(one with 'baseline')");
  EXPECT_EQ(errors[1],
            "s.toml:15:26: error: key 'fail_when_underpowered' must be a boolean (true or false), "
            "got string \"yes\"");
}

}  // namespace
}  // namespace benchgate::scenario
