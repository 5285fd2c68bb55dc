// The terminal's workload table explains a difference of the workers' and the router's counts
// with the engine's bound (scenario::Workload::operations_in_flight: HTTP/2's streams per
// connection, wamp_pubsub's publications at every subscriber), and says "not configured" once.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/results/router_count.h"

namespace benchgate::report {
namespace {

results::WorkloadResult counted_workload() {
  results::WorkloadResult w;
  w.spec.name = "hello";
  results::Repetition rep;
  rep.successes = rep.operations = 1000;
  rep.duration_ns = rep.data_window_ns = 1'000'000'000;
  rep.latency.record(50'000);
  w.repetitions.push_back(rep);
  w.latency.add(rep.latency);
  return w;
}

// HTTP/2 has `streams` outstanding per connection (its in_flight is 1): 4 connections of 10
// streams may leave 40 requests counted by one side only, as the engine allows
// (scenario::Workload::operations_in_flight).
TEST(WorkloadTable, AnHttp2DifferenceIsWithinConnectionsTimesStreams) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kHttp2;
  w.spec.connections = 4;
  w.spec.in_flight = 1;
  w.spec.http2.streams = 10;
  EXPECT_EQ(w.spec.operations_in_flight(), 40u);
  w.repetitions.front().router.collected = true;
  w.repetitions.front().router.requests = 1040;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("(40 apart over 1 windows, within the 40 in flight at each window's edges"),
            std::string::npos)
      << table;
}

// A system under test that counts no requests (a command or an external system, whose metrics
// endpoint, if any, says nothing of which counter is a request): the line was left out, and the
// workers' count with it. JSON leaves the router's `requests` out, never 0.
TEST(WorkloadTable, WithoutTheRoutersCountTheWorkersCountIsShownAndTheRoutersSaidNotMeasured) {
  results::WorkloadResult w = counted_workload();
  const std::string expected =
      "requests: 1000 sent by workers, the router's count not measured (only the bundled router "
      "reports one)";
  EXPECT_EQ(counts_text(w), expected);
  EXPECT_NE(workload_table(w).find("  " + expected + "\n"), std::string::npos) << workload_table(w);
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.scenario = "s";
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<p class=\"counts\">requests: 1000 sent by workers, the router&#39;s "
                      "count not measured (only the bundled router reports one)</p>"),
            std::string::npos)
      << html;
  EXPECT_TRUE(workload_json(w)["repetitions"][0]["router"].is_null()) << workload_json(w).dump();

  w.spec.protocol = scenario::Protocol::kWampRpc;
  EXPECT_EQ(counts_text(w),
            "calls: 1000 made by workers, the router's count not measured (only the bundled "
            "router reports one)");
  // Counted in some repetitions only: no sum of those is set against the workers' of all.
  w.spec.protocol = scenario::Protocol::kHttp1;
  w.repetitions.push_back(w.repetitions.front());
  w.repetitions.push_back(w.repetitions.front());
  w.repetitions[1].router.collected = true;
  w.repetitions[1].router.requests = 1000;
  EXPECT_EQ(counts_text(w),
            "requests: 3000 sent by workers, the router's count not measured (missing from 2 of "
            "3 repetitions)");
}

// One order of flags, docs/MEASUREMENT.md's: a repetition's row read
// "worker_cpu_starved,rate_not_kept" and the "all reps" row, the RESULT line and the JSON summary
// "rate_not_kept,worker_cpu_starved" (a set's order).
TEST(WorkloadTable, FlagsReadInTheDocumentedOrderInEveryRowAndReport) {
  results::WorkloadResult w = counted_workload();
  w.repetitions.front().flags = {"worker_cpu_starved", "rate_not_kept"};
  results::Repetition second = w.repetitions.front();
  second.index = 1;
  second.flags = {"router_count_mismatch", "start_skew"};  // raised in another order
  w.repetitions.push_back(second);
  const std::string table = workload_table(w);
  EXPECT_NE(table.find(" worker_cpu_starved,rate_not_kept\n"), std::string::npos) << table;
  EXPECT_NE(table.find(" start_skew,router_count_mismatch\n"), std::string::npos) << table;
  const std::string all = "worker_cpu_starved,start_skew,router_count_mismatch,rate_not_kept";
  EXPECT_NE(table.find(" " + all + "\n"), std::string::npos) << table;
  EXPECT_TRUE(result_line("s", w, "-").ends_with("|flags=" + all)) << result_line("s", w, "-");
  const nlohmann::json json = workload_json(w);
  EXPECT_EQ(json["flags"], (std::vector<std::string>{"worker_cpu_starved", "start_skew",
                                                     "router_count_mismatch", "rate_not_kept"}))
      << json.dump();
  EXPECT_EQ(json["repetitions"][1]["flags"],
            (std::vector<std::string>{"start_skew", "router_count_mismatch"}));
  // A flag no table names (a later build's, read from a store) comes last, alphabetically.
  EXPECT_EQ(results::ordered_flags({"zz_new", "degraded", "aa_new", "worker_saturated"}),
            (std::vector<std::string>{"worker_saturated", "degraded", "aa_new", "zz_new"}));
}

// wamp_pubsub counts events: each of the publishers' in_flight publications reaches every
// subscriber (its `connections` does not apply).
TEST(OperationsInFlight, PubSubCountsEveryPublicationAtEverySubscriber) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.wamp.publishers = 2;
  w.spec.wamp.subscribers = 4;
  w.spec.in_flight = 3;
  EXPECT_EQ(w.spec.operations_in_flight(), 24u);
  w.spec.protocol = scenario::Protocol::kHttp1;
  w.spec.connections = 5;
  EXPECT_EQ(w.spec.operations_in_flight(), 15u);
}

// The stored reason keeps its kind ("not_configured: ..."); the line says it once.
TEST(WorkloadTable, ANotConfiguredWorkloadSaysSoOnce) {
  results::WorkloadResult w;
  w.spec.name = "h2";
  w.status = results::WorkloadStatus::kNotConfigured;
  w.error = "not_configured: 'h2load' is not installed (not found on PATH)";
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  NOT CONFIGURED (no figures): 'h2load' is not installed (not found on "
                       "PATH)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("not_configured:"), std::string::npos) << table;
  EXPECT_EQ(w.error, "not_configured: 'h2load' is not installed (not found on PATH)");
}

// wamp_pubsub: the workers' operations are the events they expected, failures included; those
// received are the successes, and the line says which is which (before: "events: 8362 received
// by workers" where none was received, every publication refused). Every publication refused
// by the router: none of its events is one the router delivers, so the counts agree and the
// line says why the operations are more (before: "8362 apart", a router_count_mismatch).
TEST(WorkloadTable, APubSubCountsLineSaysTheEventsReceivedApartFromThoseCounted) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.wamp.publishers = 1;
  w.spec.wamp.subscribers = 1;
  w.spec.in_flight = 1;
  results::Repetition& rep = w.repetitions.front();
  rep.successes = 0;
  rep.operations = 8362;
  rep.errors["not_authorized"] = 8362;
  rep.router.collected = true;
  rep.router.requests = 0;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  events: 8362 counted by workers (0 received, 8362 of them not_sent or "
                       "refused by the router), 0 delivered by the router\n"),
            std::string::npos)
      << table;
}

// The cross-check compares the router's count with the workers' operations that could reach it
// and be counted (docs/MEASUREMENT.md "Cross-checks"): a call or publication the router refused
// with an ERROR (not_authorized, wamp_error) is none it routes or delivers, and one never
// written (not_sent) never reached it. Every call or publication refused is no mismatch
// (before: the workers' 8362 operations against the router's 0 were flagged); a router that
// counted fewer than the workers' successes still is.
TEST(RouterCountMismatch, ComparesTheRouterWithTheOperationsItCouldCount) {
  scenario::Workload pubsub;
  pubsub.protocol = scenario::Protocol::kWampPubSub;
  pubsub.wamp.publishers = 1;
  pubsub.wamp.subscribers = 2;
  pubsub.in_flight = 1;  // 2 events in flight
  results::Repetition rep;
  rep.operations = 8362;
  rep.errors["not_authorized"] = 8362;
  rep.router.collected = true;
  rep.router.requests = 0;
  EXPECT_EQ(results::router_countable_operations(pubsub, rep), 0u);
  EXPECT_FALSE(results::router_count_mismatch(pubsub, rep));
  rep.errors.clear();
  rep.errors["wamp_error"] = 8362;
  EXPECT_FALSE(results::router_count_mismatch(pubsub, rep));
  // Open loop, 50 publications due: one published and lost at both subscribers, 49 never
  // written, each the two events it would have been.
  rep.operations = 100;
  rep.errors.clear();
  rep.errors["not_sent"] = 98;
  rep.errors["lost"] = 2;
  EXPECT_EQ(results::router_countable_operations(pubsub, rep), 2u);
  EXPECT_FALSE(results::router_count_mismatch(pubsub, rep));

  // 1000 calls: 900 answered, 97 the dealer refused (no such procedure), 3 never written.
  scenario::Workload rpc;
  rpc.protocol = scenario::Protocol::kWampRpc;
  rpc.connections = 1;
  rpc.in_flight = 1;
  rep.operations = 1000;
  rep.successes = 900;
  rep.errors.clear();
  rep.errors["wamp_error"] = 97;
  rep.errors["not_sent"] = 3;
  rep.router.requests = 900;
  EXPECT_EQ(results::router_countable_operations(rpc, rep), 900u);
  EXPECT_FALSE(results::router_count_mismatch(rpc, rep));
  rep.router.requests = 899;  // within the 1 in flight
  EXPECT_FALSE(results::router_count_mismatch(rpc, rep));
  rep.router.requests = 898;
  EXPECT_TRUE(results::router_count_mismatch(rpc, rep));
  rep.router.requests = 0;  // the router routed none of the 900 answered
  EXPECT_TRUE(results::router_count_mismatch(rpc, rep));

  // A callee's own ERROR answers a call the router routed (INVOCATION sent): 1000 calls, 600
  // results and 400 callee errors are 1000 routed, and a router that routed only the 600 is
  // flagged.
  rep.errors.clear();
  rep.errors["callee_error"] = 400;
  rep.successes = 600;
  rep.router.requests = 1000;
  EXPECT_EQ(results::router_countable_operations(rpc, rep), 1000u);
  EXPECT_FALSE(results::router_count_mismatch(rpc, rep));
  rep.router.requests = 600;
  EXPECT_TRUE(results::router_count_mismatch(rpc, rep));
  rep.successes = 900;
  rep.errors.clear();
  rep.errors["wamp_error"] = 97;
  rep.errors["not_sent"] = 3;

  // HTTP: an ERROR answer is no kind of its own; only not_sent never reached the server.
  scenario::Workload http;
  http.protocol = scenario::Protocol::kHttp1;
  http.connections = 1;
  http.in_flight = 1;
  rep.router.requests = 997;
  EXPECT_EQ(results::router_countable_operations(http, rep), 997u);
  EXPECT_FALSE(results::router_count_mismatch(http, rep));

  // A wamp_error that answered nothing outstanding counts on its own, no operation: what is
  // left out never exceeds the operations.
  rep.operations = 10;
  rep.errors.clear();
  rep.errors["wamp_error"] = 12;
  rep.router.requests = 0;
  EXPECT_EQ(results::router_countable_operations(rpc, rep), 0u);
  EXPECT_FALSE(results::router_count_mismatch(rpc, rep));
}

// wamp_transfer: a rate no verified transfer gave (every call failed) is "not measured", with
// no unit after it; a measured one carries its unit.
TEST(WorkloadTable, ATransferRateNotMeasuredHasNoUnit) {
  results::WorkloadResult w = counted_workload();
  w.spec.protocol = scenario::Protocol::kWampTransfer;
  w.repetitions.front().successes = 0;
  w.repetitions.front().transfer = results::TransferSums{};
  std::string table = workload_table(w);
  EXPECT_NE(table.find("  transfer: not measured over the data window, not measured over the "
                       "lifecycle\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("not measured Gbit/s"), std::string::npos) << table;

  // 8 x 1e9 bytes over 4 s and 8 s: 2 and 1 Gbit/s.
  w.repetitions.front().transfer = results::TransferSums{.transfers = 1,
                                                         .data_bytes = 1'000'000'000,
                                                         .data_ns = 4'000'000'000,
                                                         .lifecycle_bytes = 1'000'000'000,
                                                         .lifecycle_ns = 8'000'000'000};
  table = workload_table(w);
  EXPECT_NE(table.find("  transfer: 2.000 Gbit/s over the data window, 1.000 Gbit/s over the "
                       "lifecycle\n"),
            std::string::npos)
      << table;
}

// Two repetitions of 2^63 errors of a kind, or 2^63 requests each: summed, they stop at
// UINT64_MAX (results::saturated_sum) rather than wrap round to 0.
results::WorkloadResult capped_workload() {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  results::WorkloadResult w = counted_workload();
  w.repetitions.push_back(w.repetitions.front());
  for (auto& rep : w.repetitions) {
    rep.operations = kHalf;
    rep.successes = 0;
    rep.errors["status"] = kHalf;
    rep.router.collected = true;
    rep.router.requests = kHalf;
  }
  return w;
}

// Counts summed over repetitions read 2^64 - 1, not 0, and as what they are: at least that
// (results::count_text), in the summary row, the errors by kind and the counts line; a
// repetition's own count is exact.
TEST(WorkloadTable, CountsSummedOverRepetitionsDoNotWrapAndReadAtLeast) {
  const std::string table = workload_table(capped_workload());
  EXPECT_NE(table.find("errors by kind: status=at least 18446744073709551615\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("requests: at least 18446744073709551615 sent by workers, at least "
                       "18446744073709551615 counted by the router"),
            std::string::npos)
      << table;
  const size_t summary = table.find("  " + std::string(kSummaryRowLabel) + " ");
  ASSERT_NE(summary, std::string::npos) << table;
  const std::string row = table.substr(summary, table.find('\n', summary) - summary);
  EXPECT_TRUE(row.ends_with(" at least 18446744073709551615")) << row;
  const size_t rep = table.find("  rep 1 ");
  ASSERT_NE(rep, std::string::npos) << table;
  const std::string rep_row = table.substr(rep, table.find('\n', rep) - rep);
  EXPECT_NE(rep_row.find(" 9223372036854775808 "), std::string::npos) << rep_row;
  EXPECT_EQ(rep_row.find("at least"), std::string::npos) << rep_row;
}

// The HTML report's summary row and errors by kind, the Markdown summary's row and the JSON
// summary (`errors_at_least`) say a capped sum is at least its figure; an exact one is not.
TEST(WorkloadTable, ACappedSumIsAtLeastItsFigureInEveryReport) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.scenario = "s";
  run.result.workloads.push_back(capped_workload());
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<td>at least 18446744073709551615</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>9223372036854775808</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("errors by kind: status=at least 18446744073709551615</p>"),
            std::string::npos)
      << html;

  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 1;
  report.result.workloads.push_back(capped_workload());
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find(" | at least 18446744073709551615 | "), std::string::npos) << md;

  const nlohmann::json summary = workload_json(capped_workload())["summary"];
  EXPECT_EQ(summary["errors"], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(summary["errors_at_least"], true);
  results::WorkloadResult exact = counted_workload();
  exact.repetitions.front().errors["status"] = 3;
  EXPECT_EQ(workload_json(exact)["summary"]["errors"], 3u);
  EXPECT_EQ(workload_json(exact)["summary"]["errors_at_least"], false);
  EXPECT_EQ(workload_table(exact).find("at least"), std::string::npos) << workload_table(exact);
}

// A repetition whose error kinds sum past 2^64 (status=2^63, timeout=2^63) reads at least
// 2^64 - 1 in its row (terminal, HTML), and its JSON keeps the number with errors_at_least, as
// the summary does; it read 0 before.
TEST(WorkloadTable, ARepetitionsCappedErrorsReadAtLeastItsFigureInEveryReport) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  results::WorkloadResult w = counted_workload();
  w.repetitions.front().operations = kHalf;
  w.repetitions.front().successes = 0;
  w.repetitions.front().errors = {{"status", kHalf}, {"timeout", kHalf}};
  const std::string table = workload_table(w);
  const size_t rep = table.find("  rep 1 ");
  ASSERT_NE(rep, std::string::npos) << table;
  const std::string rep_row = table.substr(rep, table.find('\n', rep) - rep);
  EXPECT_NE(rep_row.find(" at least 18446744073709551615 "), std::string::npos) << rep_row;

  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.scenario = "s";
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  // The repetition's row and the summary's.
  const std::string capped = "<td>at least 18446744073709551615</td>";
  size_t cells = 0;
  for (size_t at = html.find(capped); at != std::string::npos; at = html.find(capped, at + 1)) {
    ++cells;
  }
  EXPECT_EQ(cells, 2u) << html;

  const nlohmann::json j = workload_json(w);
  const nlohmann::json& first = j["repetitions"][0];
  EXPECT_EQ(first["errors"], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(first["errors_at_least"], true);
  EXPECT_EQ(j["summary"]["errors_at_least"], true);
  results::WorkloadResult exact = counted_workload();
  exact.repetitions.front().errors = {{"status", 3}};
  EXPECT_EQ(workload_json(exact)["repetitions"][0]["errors"], 3u);
  EXPECT_EQ(workload_json(exact)["repetitions"][0]["errors_at_least"], false);
}

// What the router never counted is summed as such (2 not_sent over two repetitions of 2^63
// operations, as the errors by kind say), never a capped sum of operations less the countable
// ones (before: "1 of them not_sent").
TEST(WorkloadTable, TheUncountedAreSummedNotTakenFromACappedSum) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  results::WorkloadResult w = capped_workload();
  for (auto& rep : w.repetitions) {
    rep.errors = {{"not_sent", 1}};
    rep.router.requests = kHalf - 1;
  }
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  requests: at least 18446744073709551615 sent by workers (2 of them "
                       "not_sent), 18446744073709551614 counted by the router\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("errors by kind: not_sent=2\n"), std::string::npos) << table;
}

// Where either side's sum stopped at 2^64 - 1 (results::count_capped) the report states no
// difference, in the terminal and the HTML report alike: the router's 2^63 and 2^63 - 5 against
// the workers' capped sum were "4 apart", where the workers counted at least 5 more; both capped
// read as agreeing.
TEST(WorkloadTable, ACappedSumIsNotComparedWithTheRoutersCount) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  results::WorkloadResult w = capped_workload();
  w.repetitions[1].router.requests = kHalf - 5;
  EXPECT_EQ(counts_text(w),
            "requests: at least 18446744073709551615 sent by workers, 18446744073709551611 "
            "counted by the router (not compared: the workers' count reached 2^64 - 1, where a "
            "sum over repetitions stops)");
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.scenario = "s";
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_NE(html.find("counted by the router (not compared: the workers&#39; count reached 2^64 - "
                      "1, where a sum over repetitions stops)</p>"),
            std::string::npos)
      << html;

  EXPECT_EQ(counts_text(capped_workload()),
            "requests: at least 18446744073709551615 sent by workers, at least "
            "18446744073709551615 counted by the router (not compared: both counts reached 2^64 - "
            "1, where a sum over repetitions stops)");

  // The router's side capped, and a window the engine flagged: the flag is still said.
  w = capped_workload();
  for (auto& rep : w.repetitions) rep.errors = {{"not_sent", 1}};
  w.repetitions[1].flags = {"router_count_mismatch"};
  EXPECT_EQ(counts_text(w),
            "requests: at least 18446744073709551615 sent by workers (2 of them not_sent), at "
            "least 18446744073709551615 counted by the router (not compared: the router's count "
            "reached 2^64 - 1, where a sum over repetitions stops; router_count_mismatch in 1 of "
            "2 windows)");
}

// The connections, TLS handshakes and resumed ones, the WAMP sessions and the callees'
// invocations summed over repetitions read "at least" where the sum stopped at 2^64 - 1
// (results::count_text), as every other summed count does, and the HTML report says so too.
TEST(WorkloadTable, EveryOtherSummedCountReadsAtLeastWhereItStopped) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  const std::string capped = "at least 18446744073709551615";
  results::WorkloadResult w = capped_workload();
  w.spec.new_connection_per_request = true;
  for (auto& rep : w.repetitions) {
    rep.setup.emplace();
    rep.setup->connections = rep.setup->handshakes = rep.setup->resumed = kHalf;
    rep.setup->connect.record(40'000);
    rep.window_connections = 1000;
  }
  const std::string lines = connection_lines(w);
  EXPECT_NE(lines.find("  connections: " + capped + " set up; connect p50 "), std::string::npos)
      << lines;
  EXPECT_NE(lines.find("; " + capped + " of " + capped + " TLS handshakes resumed\n"),
            std::string::npos)
      << lines;
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.scenario = "s";
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<p class=\"detail\">connections: " + capped + " set up; "),
            std::string::npos)
      << html;

  // A WAMP workload's handshakes, counted apart from its sessions.
  w.spec.protocol = scenario::Protocol::kWampTransfer;
  for (auto& rep : w.repetitions) rep.setup->connections = 0;
  EXPECT_EQ(connection_lines(w), "  resumed: " + capped + " of " + capped + " TLS handshakes\n");

  // Sessions of a run stored before schema version 21 (their count only).
  w = capped_workload();
  w.spec.protocol = scenario::Protocol::kWampRpc;
  for (auto& rep : w.repetitions) {
    rep.not_stored.insert("session_setup");
    rep.stored_sessions = kHalf;
  }
  EXPECT_TRUE(session_setup_line(w).starts_with("  sessions: " + capped + " set up; "))
      << session_setup_line(w);

  w = capped_workload();
  w.spec.protocol = scenario::Protocol::kWampRpc;
  w.spec.wamp.callee = "worker";
  w.spec.wamp.invoke = "single";
  for (auto& rep : w.repetitions) rep.callee_invocations = {kHalf};
  EXPECT_EQ(callee_line(w), "  callees: 1 session(s) (invoke single), " + capped +
                                " invocations; per session, by repetition: "
                                "9223372036854775808-9223372036854775808, "
                                "9223372036854775808-9223372036854775808\n");
}

}  // namespace
}  // namespace benchgate::report
