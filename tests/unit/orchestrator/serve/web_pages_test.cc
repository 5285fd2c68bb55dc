// The `serve --http` runs list reads the runs a page at a time (orchestrator/serve/web_pages.cc):
// a run older than the latest page that matches the filters is found by the "older runs" link,
// never left out of every page; the link is there only when an older run is, and a `before`
// past the newest run reads as the newest page.
#include <gtest/gtest.h>

#include <string>

#include "executor_test_support.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/serve/live_run.h"
#include "orchestrator/serve/web_pages.h"

namespace benchgate::serve {
namespace {

using testing::ExecutorBench;

bool page_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --http is HOST:PORT by the parser every benchgate address is read by: "::1:0" and ":0" were
// split by hand before and left to CivetWeb (which served the pages then), "unix:PATH" named
// "civetweb could not bind it".
TEST(WebPagesAddress, AnAddressThatIsNotHostPortIsNamedWithItsReason) {
  ExecutorBench bench;
  auto start = [&bench](const std::string& address) {
    return WebPages::start(address, bench.db_path(), {}, bench.queue(), bench.executor().live())
        .message();
  };
  EXPECT_EQ(start("::1:0"),
            "--http ::1:0: cannot listen: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  EXPECT_EQ(start(":0"),
            "--http :0: cannot listen: its HOST is empty" +
                std::string(" (give 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT") +
                " or [::]:PORT for every interface)");
  EXPECT_EQ(start("unix:/nonexistent/pages.sock"),
            "--http unix:/nonexistent/pages.sock: cannot listen: a Unix socket is not taken "
            "here, only HOST:PORT");
  auto pages =
      WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), bench.executor().live());
  ASSERT_TRUE(pages) << pages.message();
  EXPECT_TRUE((*pages)->address().starts_with("127.0.0.1:")) << (*pages)->address();
  EXPECT_NE((*pages)->address(), "127.0.0.1:0");
}

TEST(WebPagesRunsList, AnOlderMatchingRunIsOnTheOlderPage) {
  ExecutorBench bench;
  // The oldest run failed; the 500 after it, as many as a page reads, went well.
  const store::RunInfo info = store::testing::test_run_info("s");
  for (int i = 0; i < 501; ++i) {
    auto run = bench.db().begin_run(info);
    ASSERT_TRUE(run) << run.message();
    ASSERT_TRUE(bench.db().finish_run(*run, i == 0 ? "failed" : "ok", i == 0 ? 3 : 0));
  }
  auto pages =
      WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), bench.executor().live());
  ASSERT_TRUE(pages) << pages.message();

  const WebPages::Page latest = (*pages)->get("/", "status=failed");
  EXPECT_EQ(latest.status, 200);
  EXPECT_FALSE(page_has(latest.body, "href=\"/runs/1\"")) << latest.body;
  EXPECT_TRUE(page_has(latest.body, "0 runs shown, of the latest 500 runs.")) << latest.body;
  EXPECT_TRUE(page_has(latest.body, "<a href=\"/?status=failed&amp;before=2\">older runs</a>"))
      << latest.body;

  const WebPages::Page older = (*pages)->get("/", "status=failed&before=2");
  EXPECT_EQ(older.status, 200);
  EXPECT_TRUE(page_has(older.body, "href=\"/runs/1\"")) << older.body;
  EXPECT_TRUE(page_has(older.body, "1 run shown, of the 1 run before run 2.")) << older.body;
  EXPECT_FALSE(page_has(older.body, "older runs")) << older.body;  // nothing before run 1
  EXPECT_TRUE(page_has(older.body, "<a href=\"/?status=failed\">newest runs</a>")) << older.body;

  // Of one scenario, the same.
  const WebPages::Page scenario = (*pages)->get("/", "scenario=s&before=3");
  EXPECT_TRUE(page_has(scenario.body, "2 runs shown, of the 2 runs of this scenario before run 3."))
      << scenario.body;

  // Exactly a page's worth of runs left (500 before run 501): no "older runs" link, which led to
  // an empty page before.
  const WebPages::Page last = (*pages)->get("/", "before=501");
  EXPECT_TRUE(page_has(last.body, "500 runs shown, of the 500 runs before run 501. <a"))
      << last.body;
  EXPECT_FALSE(page_has(last.body, "older runs")) << last.body;
  EXPECT_TRUE(page_has(last.body, "<a href=\"/\">newest runs</a>")) << last.body;

  // A `before` past the newest run (of the scenario, when one is given) is the newest page, not
  // "runs before run 999999" with a link to the newest runs.
  for (const char* query : {"before=999999", "before=502", "scenario=s&before=999999"}) {
    const WebPages::Page past = (*pages)->get("/", query);
    EXPECT_EQ(past.status, 200) << query;
    EXPECT_TRUE(page_has(past.body, "500 runs shown, of the latest 500 runs")) << past.body;
    EXPECT_TRUE(page_has(past.body, "before=2\">older runs</a>")) << past.body;
    EXPECT_FALSE(page_has(past.body, "before run")) << past.body;
    EXPECT_FALSE(page_has(past.body, "newest runs")) << past.body;
  }
  const WebPages::Page none = (*pages)->get("/", "scenario=other&before=7");
  EXPECT_TRUE(page_has(none.body, "0 runs shown, of the latest 0 runs of this scenario.</p>"))
      << none.body;

  for (const char* bad : {"before=x", "before=0", "before=-1", "before=1234567890123456789"}) {
    const WebPages::Page refused = (*pages)->get("/", bad);
    EXPECT_EQ(refused.status, 400) << bad;
    EXPECT_TRUE(page_has(refused.body, "is not a run id (a positive integer)")) << refused.body;
  }
}

// A run's page names each measured binary by its file name and build-id: it showed the bundled
// router's and worker's absolute paths, the operator's layout that README ("The service's
// folders") promises a client never sees.
TEST(WebPagesRun, AMeasuredBinaryIsShownByItsNameAndBuildIdNotItsFolder) {
  ExecutorBench bench;
  store::RunInfo info = store::testing::test_run_info("s");
  store::MeasuredBinary router{"router", "/srv/operator/bench/bin/router",
                               "next to the orchestrator", std::string("0a1b2c"), std::nullopt};
  store::MeasuredBinary worker{"worker", "/srv/operator/bench/bin/worker", "--worker-bin",
                               std::nullopt, std::string("ffee")};
  info.binaries = {router, worker};
  auto run = bench.db().begin_run(info);
  ASSERT_TRUE(run) << run.message();
  ASSERT_TRUE(bench.db().finish_run(*run, "ok", 0));
  auto pages =
      WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), bench.executor().live());
  ASSERT_TRUE(pages) << pages.message();
  const WebPages::Page page = (*pages)->get("/runs/" + std::to_string(*run), "");
  EXPECT_EQ(page.status, 200);
  EXPECT_FALSE(page_has(page.body, "/srv/operator")) << page.body;
  EXPECT_TRUE(page_has(page.body, "<td class=\"text\">router (build-id 0a1b2c, bundled)</td>"))
      << page.body;
  EXPECT_TRUE(
      page_has(page.body, "<td class=\"text\">worker (sha256 ffee, from --worker-bin)</td>"))
      << page.body;
}

// A client's submitted runs are a series of their own (docs/GATES.md, "Series and baselines"):
// the history page charts one side's runs (the latest run's, or the one asked for), a client's
// run page says whose it is, and another side is refused by name.
TEST(WebPagesHistory, TheOperatorsAndTheClientsRunsAreChartedApart) {
  ExecutorBench bench;
  std::vector<int64_t> runs;
  for (const char* origin : {"local", "client", "scheduled"}) {
    store::RunInfo info = store::testing::test_run_info("s");
    info.origin = origin;
    auto run = bench.db().begin_run(info);
    ASSERT_TRUE(run) << run.message();
    ASSERT_TRUE(bench.db().store_workload(*run, store::testing::test_workload("hello", 2)));
    ASSERT_TRUE(bench.db().finish_run(*run, "ok", 0));
    runs.push_back(*run);
  }
  auto pages =
      WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), bench.executor().live());
  ASSERT_TRUE(pages) << pages.message();
  auto linked = [](const WebPages::Page& page, int64_t run) {
    return page_has(page.body, "<a href=\"/runs/" + std::to_string(run) + "\">");
  };
  const std::string series = "scenario=s&workload=hello&metric=throughput.rps";
  // Without submitted_by: the series of the latest run, the scheduled one.
  for (const std::string& query : {series, series + "&submitted_by=operator"}) {
    const WebPages::Page operators = (*pages)->get("/history", query);
    EXPECT_EQ(operators.status, 200) << operators.body;
    EXPECT_TRUE(linked(operators, runs[0]) && linked(operators, runs[2])) << operators.body;
    EXPECT_FALSE(linked(operators, runs[1])) << operators.body;
    EXPECT_FALSE(page_has(operators.body, "(runs clients submitted)")) << operators.body;
  }
  const WebPages::Page clients = (*pages)->get("/history", series + "&submitted_by=client");
  EXPECT_EQ(clients.status, 200) << clients.body;
  EXPECT_TRUE(page_has(clients.body, "throughput.rps (runs clients submitted)</h1>"))
      << clients.body;
  EXPECT_TRUE(linked(clients, runs[1])) << clients.body;
  EXPECT_FALSE(linked(clients, runs[0]) || linked(clients, runs[2])) << clients.body;
  const WebPages::Page bad = (*pages)->get("/history", series + "&submitted_by=ci");
  EXPECT_EQ(bad.status, 400);
  EXPECT_TRUE(page_has(bad.body, "submitted_by must be &#39;operator&#39; or &#39;client&#39;"))
      << bad.body;

  const WebPages::Page page = (*pages)->get("/runs/" + std::to_string(runs[1]), "");
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(page_has(page.body,
                       "client (submitted to orchestrator serve; a point of the "
                       "clients&#39; series only)"))
      << page.body;
}

// The history page of one side finds that side's latest run with the workload however many of
// the other side's came after it: it read the scenario's newest 50 runs only, so after one
// operator's run and 51 clients' the operator's run page linked to a history page answering 400
// "no stored run ... that the operator started has workload 'hello'".
TEST(WebPagesHistory, TheOperatorsSeriesIsFoundBehindFiftyOneClientRuns) {
  ExecutorBench bench;
  std::vector<int64_t> runs;
  for (int i = 0; i < 52; ++i) {
    store::RunInfo info = store::testing::test_run_info("nightly");
    info.origin = i == 0 ? "local" : "client";
    auto run = bench.db().begin_run(info);
    ASSERT_TRUE(run) << run.message();
    ASSERT_TRUE(bench.db().store_workload(*run, store::testing::test_workload("hello", 2)));
    ASSERT_TRUE(bench.db().finish_run(*run, "ok", 0));
    runs.push_back(*run);
  }
  auto pages =
      WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), bench.executor().live());
  ASSERT_TRUE(pages) << pages.message();
  const std::string series = "scenario=nightly&workload=hello&metric=throughput.rps";
  const WebPages::Page operators = (*pages)->get("/history", series + "&submitted_by=operator");
  EXPECT_EQ(operators.status, 200) << operators.body;
  EXPECT_TRUE(page_has(operators.body, "<a href=\"/runs/" + std::to_string(runs[0]) + "\">"))
      << operators.body;
  EXPECT_FALSE(page_has(operators.body, "<a href=\"/runs/" + std::to_string(runs[1]) + "\">"))
      << operators.body;
  // A workload no run of the side has is still refused by name.
  const WebPages::Page none =
      (*pages)->get("/history", "scenario=nightly&workload=other&metric=throughput.rps");
  EXPECT_EQ(none.status, 400);
  EXPECT_TRUE(page_has(none.body,
                       "no stored run of scenario &#39;nightly&#39; has workload "
                       "&#39;other&#39;"))
      << none.body;
}

// The live page's progress writes the rate and the p99 as the terminal's progress line and the
// tables do (format_rate, format_duration_ns): it wrote the rate with "{:.0f}" by hand, so a
// workload at 2.5 ops/s read "2 ops/s now" there and "2.5" everywhere else.
TEST(WebPagesLive, TheProgressWritesTheRateAsEveryReportDoes) {
  ExecutorBench bench;
  LiveRun live;
  scenario::Scenario s;
  s.name = "slow";
  scenario::Workload w;
  w.name = "trickle";
  s.workloads = {w};
  engine::WindowInfo window;
  window.measured = true;
  window.repetition = 1;
  window.repetitions = 3;
  window.duration_ns = 10'000'000'000;
  live.scenario_started(s);
  live.workload_started(w);
  live.window_started(w, window);
  live.progress(w, window, 2.5, 0, 4'000'000'000);
  auto pages = WebPages::start("127.0.0.1:0", bench.db_path(), {}, bench.queue(), live);
  ASSERT_TRUE(pages) << pages.message();
  const WebPages::Page page = (*pages)->get("/live/fragment", "");
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(
      page_has(page.body, ", repetition 1 of 3, 4.0 s of 10.0 s, 2.5 ops/s now, p99 so far -</p>"))
      << page.body;
  live.progress(w, window, 12345.6, 7'050'000, 5'000'000'000);
  EXPECT_TRUE(page_has((*pages)->get("/live/fragment", "").body,
                       "5.0 s of 10.0 s, 12346 ops/s now, p99 so far 7.05ms</p>"));
}

}  // namespace
}  // namespace benchgate::serve
