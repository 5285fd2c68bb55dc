// `runs show`: header, testbed, repetitions and gate verdicts from plain records.
#include "orchestrator/history/run_detail.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>
#include <limits>

namespace benchgate::history {
namespace {

constexpr int64_t kDetailStart = 1'700'000'000'000'000'000;

store::RunDetail sample_run() {
  store::RunDetail d;
  d.run.id = 4;
  d.run.scenario = "quickstart";
  d.run.status = "failed";
  d.run.exit_code = 3;
  d.run.started_at_ns = kDetailStart;
  d.run.finished_at_ns = kDetailStart + 12'500'000'000;
  d.run.commit = "deadbeef";
  d.run.branch = "feature";
  d.run.labels = {{"ci", "yes"}};
  d.run.testbed_id = 2;
  d.testbed = {"bench-1", "Test CPU", 8, "Linux 6.1", "performance", "GNU 12.2.0", "-O3"};
  store::StoredWorkload ok;
  ok.name = "hello";
  ok.protocol = "http1";
  ok.status = "ok";
  ok.params_hash = "abcdef0123456789";
  ok.load_from = "10.0.0.2,10.0.0.3";
  store::StoredRepetition rep;
  rep.index = 0;
  rep.ops_per_s = 12345.67;
  rep.bytes_per_s = 2'500'000;
  rep.p50_ns = 1'000'000;
  rep.p90_ns = 2'000'000;
  rep.p99_ns = 3'000'000;
  rep.p999_ns = 4'000'000;
  rep.max_ns = 5'000'000;
  rep.errors_total = 5;
  rep.errors = {{"timeout", 3}, {"status", 2}};
  rep.flags = {"worker_saturated"};
  ok.repetitions.push_back(rep);
  store::StoredWorkload failed;
  failed.name = "echo";
  failed.variant = "big";
  failed.protocol = "http1";
  failed.status = "failed";
  failed.error = "worker 1 died";
  d.workloads = {ok, failed};
  return d;
}

class RunDetailText : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(RunDetailText, AnAbandonedRunSaysWhenItWasMarkedNotHowLongItTook) {
  store::RunDetail d = sample_run();
  d.run.status = "abandoned";
  d.run.exit_code.reset();
  const std::string text = render_run_detail(d, {});
  EXPECT_NE(text.find("  finished  - (killed; marked abandoned at 2023-11-14 22:13:32)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("took"), std::string::npos) << text;
}

// A run a client submitted to `orchestrator serve` is a point of the clients' series only
// (docs/GATES.md, "Series and baselines"): `runs show` says whose.
TEST_F(RunDetailText, TheHeaderSaysARunWasSubmittedByAClient) {
  store::RunDetail d = sample_run();
  d.run.origin = "client";
  const std::string text = render_run_detail(d, {});
  EXPECT_NE(text.find("  origin    client (submitted to orchestrator serve; a point of the "
                      "clients' series only)\n"),
            std::string::npos)
      << text;
}

TEST_F(RunDetailText, TheHeaderNamesTheRunItsTimesCommitLabelsAndTestbed) {
  const std::string text = render_run_detail(sample_run(), {});
  EXPECT_NE(text.find("run 4  scenario quickstart  status failed (exit 3)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  started   2023-11-14 22:13:20\n"), std::string::npos);
  EXPECT_NE(text.find("  finished  2023-11-14 22:13:32 (took 12.5s)\n"), std::string::npos);
  EXPECT_NE(text.find("  commit    deadbeef\n"), std::string::npos);
  EXPECT_NE(text.find("  branch    feature\n"), std::string::npos);
  EXPECT_NE(text.find("  labels    ci=yes\n"), std::string::npos);
  EXPECT_NE(text.find("  origin    local (orchestrator run; a point of the operator's series)\n"),
            std::string::npos)
      << text;
  for (const char* line : {"  host      bench-1\n", "  cpu       Test CPU\n", "  cores     8\n",
                           "  kernel    Linux 6.1\n", "  governor  performance\n",
                           "  compiler  GNU 12.2.0\n", "  flags     -O3\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

// `runs show` of a run stored before control characters were refused: each value on its
// own line, escaped; before, "br\nanch" forged a line and ESC [31m reached the terminal.
TEST_F(RunDetailText, ControlCharactersOfAStoredRunAreShownEscapedNotPrinted) {
  store::RunDetail d = sample_run();
  d.run.commit = "a\"b\\\nc\x1b[31m";
  d.run.branch = "br\nanch";
  d.run.labels = {{"k\n", "=v"}};
  const std::string text = render_run_detail(d, {});
  EXPECT_NE(text.find("  commit    a\"b\\\\nc\\x1b[31m\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  branch    br\\nanch\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  labels    k\\n==v\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
}

// The scenario's name, the run's and a workload's error and a gate's explanation are stored
// texts too (an error may quote what a child wrote): shown escaped, no line forged, nothing
// coloured. A line break in an error or an explanation starts a line indented under the text's
// first, so that no line of it starts where the listing's own lines do. Before, they were
// printed as stored.
TEST_F(RunDetailText, StoredNamesErrorsAndExplanationsAreShownEscaped) {
  store::RunDetail d = sample_run();
  d.run.scenario = "quick\x1b[31mstart";
  d.run.error = "worker 0 said:\nerror: forged\x1b[0m";
  d.workloads[1].error = "died\r\nrun 9  scenario forged";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "absolute";
  g.verdict = "error";
  g.severity = "critical";
  g.explanation = "not collected\n\x1b]0;title\x07";
  const std::string text = render_run_detail(d, {g});
  EXPECT_NE(text.find("run 4  scenario quick\\x1b[31mstart  status failed (exit 3)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  error     worker 0 said:\n            error: forged\\x1b[0m\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  error: died\n         run 9  scenario forged\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("not collected\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  \\x1b]0;title\\x07\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_EQ(text.find("\nerror: forged"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nrun 9"), std::string::npos) << text;
}

// An error that ends with a child's stderr (Error::text(): "; its stderr ends with:" and its
// last lines) and a gate explanation over several lines read as the terminal printed them at
// run time, each line under the first; before, `runs show` printed them as one line with a
// literal \n between the child's lines.
TEST_F(RunDetailText, AnErrorOrExplanationOverSeveralLinesIsShownLineByLine) {
  store::RunDetail d = sample_run();
  d.run.error =
      "workers did not start: worker 0 exited with status 1 before it was ready; its stderr ends "
      "with:\nfirst line\n\nthird line\n";
  d.workloads[1].error = "worker 1 exited with status 1; its stderr ends with:\nbad\r\nworse";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "absolute";
  g.verdict = "error";
  g.severity = "critical";
  g.explanation = "the router stopped; its stderr ends with:\npanic\nat line 3";
  const std::string text = render_run_detail(d, {g});
  EXPECT_NE(text.find("  error     workers did not start: worker 0 exited with status 1 before "
                      "it was ready; its stderr ends with:\n"
                      "            first line\n"
                      "\n"
                      "            third line\n"
                      "  started   "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  error: worker 1 exited with status 1; its stderr ends with:\n"
                      "         bad\n"
                      "         worse\n"
                      "  no repetitions measured\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  VERDICT  SEVERITY  WORKLOAD  METRIC       OBSERVED  THRESHOLD  "
                      "EXPLANATION\n"
                      "  error    critical  hello     latency.p99         -          -  "
                      "the router stopped; its stderr ends with:\n"
                      "                                                                 panic\n"
                      "                                                                 at line "
                      "3\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\\n"), std::string::npos) << text;
}

TEST_F(RunDetailText, EachRepetitionShowsItsFiguresErrorsByKindAndFlags) {
  const std::string text = render_run_detail(sample_run(), {});
  EXPECT_NE(text.find("workload hello  protocol http1  status ok  params abcdef012345\n"
                      "  load from: 10.0.0.2,10.0.0.3\n"),
            std::string::npos)
      << text;
  // Figures as the run's own tables wrote them: a whole rate, latencies without trailing zeros.
  EXPECT_NE(text.find("  REP  OPS/S  MB/S  P50  P90  P99  P99.9  MAX  "
                      "ERRORS                  FLAGS\n"
                      "    1  12346  2.50  1ms  2ms  3ms    4ms  5ms  "
                      "5 (status=2,timeout=3)  worker_saturated\n"),
            std::string::npos)
      << text;
}

// A repetition's errors cell is its kinds' sum, "at least N" where it stopped at 2^64 - 1
// (results::count_text): the errors_total column holds at most 2^63 - 1, as every count the
// store writes, where the kinds keep theirs whole (before: 9223372036854775807 beside two
// kinds of 2^63).
TEST_F(RunDetailText, TheErrorsCellIsTheSumOfTheKindsAtLeastWhereItStopped) {
  store::RunDetail d = sample_run();
  store::StoredRepetition& rep = d.workloads[0].repetitions[0];
  rep.errors_total = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  rep.errors = {{"status", uint64_t{1} << 62}, {"timeout", uint64_t{1} << 63}};
  std::string text = render_run_detail(d, {});
  EXPECT_NE(text.find("  13835058055282163712 (status=4611686018427387904,"
                      "timeout=9223372036854775808)  worker_saturated\n"),
            std::string::npos)
      << text;
  rep.errors = {{"status", uint64_t{1} << 63}, {"timeout", uint64_t{1} << 63}};
  text = render_run_detail(d, {});
  EXPECT_NE(text.find("  at least 18446744073709551615 (status=9223372036854775808,"
                      "timeout=9223372036854775808)  worker_saturated\n"),
            std::string::npos)
      << text;
}

TEST_F(RunDetailText, AFailedWorkloadShowsItsErrorAndThatNothingWasMeasured) {
  const std::string text = render_run_detail(sample_run(), {});
  EXPECT_NE(text.find("workload echo [big]  protocol http1  status failed  params \n"
                      "  error: worker 1 died\n"
                      "  no repetitions measured\n"),
            std::string::npos)
      << text;
}

TEST_F(RunDetailText, WhatTheWorkersCouldNotMeasureIsNamedUnderTheTable) {
  store::RunDetail run = sample_run();
  EXPECT_EQ(render_run_detail(run, {}).find("not measured"), std::string::npos);
  store::StoredRepetition second = run.workloads[0].repetitions[0];
  second.index = 1;
  run.workloads[0].repetitions[0].not_measured = {"cpu", "bytes_sent"};
  second.not_measured = {"bytes_sent", "data_window"};
  run.workloads[0].repetitions.push_back(second);
  const std::string text = render_run_detail(run, {});
  EXPECT_NE(text.find("worker_saturated\n  not measured: bytes_sent, cpu, data_window\n"),
            std::string::npos)
      << text;
}

TEST_F(RunDetailText, GateVerdictsShowObservedAndThresholdInTheMetricsUnit) {
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "absolute";
  g.threshold = 0.005;
  g.observed = 0.0031;
  g.verdict = "pass";
  g.severity = "critical";
  g.explanation = "p99 3.1ms <= 5ms";
  store::GateRecord missing = g;
  missing.metric = "throughput.rps";
  missing.observed.reset();
  missing.threshold = 10000;
  missing.verdict = "error";
  missing.explanation = "not collected";
  const std::string text = render_run_detail(sample_run(), {g, missing});
  EXPECT_NE(text.find("gates (latest evaluation)\n"
                      "  VERDICT  SEVERITY  WORKLOAD  METRIC          OBSERVED    THRESHOLD  "
                      "EXPLANATION\n"
                      "  pass     critical  hello     latency.p99        3.1ms          5ms  "
                      "p99 3.1ms <= 5ms\n"
                      "  error    critical  hello     throughput.rps         -  10000 ops/s  "
                      "not collected\n"),
            std::string::npos)
      << text;
}

TEST_F(RunDetailText, ARunWithoutGateResultsSaysSo) {
  EXPECT_NE(render_run_detail(sample_run(), {}).find("gates: never evaluated for this run"),
            std::string::npos);
}

// `runs show` says why the router ended sessions in a window, as the run's terminal did under
// its table, and who the workers said they were (their Describe answers) beside the binaries:
// both stored from schema version 22. A run stored before says neither was recorded.
TEST_F(RunDetailText, TheSessionsTheRouterEndedAndTheWorkersDescribeAreShown) {
  store::RunDetail d = sample_run();
  store::StoredWorkload& rpc = d.workloads[0];
  rpc.name = "rpc";
  rpc.protocol = "wamp_rpc";
  rpc.worker_name = "kv-worker";
  rpc.worker_version = "1.2";
  rpc.repetitions[0].errors = {{"protocol", 3}};
  rpc.repetitions[0].sessions_ended = std::vector<store::StoredSessionsEnded>{
      {0, "ABORT wamp.close.system_shutdown: going down\\n", 2}, {1, "GOODBYE \x1b[31m", 1}};
  const std::string text = render_run_detail(d, {});
  EXPECT_NE(text.find("binaries  not recorded (none started here, or stored before schema "
                      "version 19)\n"
                      "workers (as their Describe answered)\n"
                      "  kv-worker, version 1.2 (workload rpc)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  sessions the router ended during the window (counted as protocol errors: "
                      "one per operation outstanding, one where none was):\n"
                      "    rep 1 worker 0: 2 sessions ABORT wamp.close.system_shutdown: going "
                      "down\\n\n"
                      "    rep 1 worker 1: 1 session GOODBYE \\x1b[31m\n"),
            std::string::npos)
      << text;

  rpc.worker_name.reset();
  rpc.worker_version.reset();
  rpc.repetitions[0].sessions_ended.reset();
  const std::string before = render_run_detail(d, {});
  EXPECT_NE(before.find("workers   Describe not recorded (no workload reached its workers, or "
                        "stored before schema version 22)\n"),
            std::string::npos)
      << before;
  EXPECT_NE(before.find("  sessions the router ended during the window: not stored (a run "
                        "stored before schema version 22; some of its protocol errors may be "
                        "such ends)\n"),
            std::string::npos)
      << before;
}

// runs show gives each workload's workers and the threads the scenario asked of each, and where
// the workers said they run others (schema version 24) what they run; a workload stored before
// says their own threads were not stored.
TEST_F(RunDetailText, TheThreadsTheWorkersRunAreShownBesideTheScenarios) {
  store::RunDetail d = sample_run();
  store::StoredWorkload& w = d.workloads[0];
  w.params_json = R"({"workers": 2, "threads": 4})";
  w.worker_threads = std::vector<int64_t>{2, 2};
  EXPECT_NE(render_run_detail(d, {}).find(
                "  workers: 2 worker(s) x 4 thread(s) (the workers run 2 each)\n"),
            std::string::npos)
      << render_run_detail(d, {});
  w.worker_threads = std::vector<int64_t>{4, 4};
  EXPECT_NE(render_run_detail(d, {}).find("  workers: 2 worker(s) x 4 thread(s)\n"),
            std::string::npos)
      << render_run_detail(d, {});
  // Ready.threads 0: the worker did not say, never "runs 0".
  w.worker_threads = std::vector<int64_t>{0, 0};
  EXPECT_NE(render_run_detail(d, {}).find("  workers: 2 worker(s) x 4 thread(s) (the workers did "
                                          "not report their threads)\n"),
            std::string::npos)
      << render_run_detail(d, {});
  w.worker_threads.reset();
  EXPECT_NE(render_run_detail(d, {}).find(
                "  workers: 2 worker(s) x 4 thread(s) (the threads each worker ran not stored: "
                "a run stored before schema version 24)\n"),
            std::string::npos)
      << render_run_detail(d, {});
}

}  // namespace
}  // namespace benchgate::history
