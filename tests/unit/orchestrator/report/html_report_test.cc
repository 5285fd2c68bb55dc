// The HTML report's charts: what they sample, how long series are reduced, escaping, and the
// size of the file for a large run (docs/REPORTS.md).
#include "orchestrator/report/html_report.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <sstream>

#include "common/units/units.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/svg_chart.h"
#include "orchestrator/report/terminal_report.h"

namespace benchgate::report {
namespace {

TEST(HtmlReport, TheSpectrumSamples101PercentilesFromZeroTo99999OnTheLogAxis) {
  const auto ps = spectrum_percentiles();
  ASSERT_EQ(ps.size(), 101u);
  EXPECT_DOUBLE_EQ(ps.front(), 0);
  EXPECT_NEAR(ps[20], 90, 1e-9);
  EXPECT_NEAR(ps[40], 99, 1e-9);
  EXPECT_NEAR(ps.back(), 99.999, 1e-9);
  HdrHistogram h;
  for (int64_t v = 1; v <= 100'000; ++v) h.record(v * 10);
  const auto curve = spectrum_curve(h);
  ASSERT_EQ(curve.size(), 101u);
  // The same function the terminal and JSON reports call for p99.
  EXPECT_DOUBLE_EQ(curve[40].x, 2.0);
  EXPECT_EQ(curve[40].y, static_cast<double>(h.value_at_percentile(99)));
  EXPECT_TRUE(spectrum_curve(HdrHistogram()).empty());
}

TEST(HtmlReport, DecimationKeepsEachBucketsMinimumAndMaximumInOrder) {
  std::vector<svg::Point> points;
  for (int i = 0; i < 100'000; ++i) points.push_back({static_cast<double>(i), 100.0});
  points[51'234].y = 5000;  // a spike
  points[77'777].y = 1;     // a stall
  const auto reduced = svg::decimate_min_max(points, 600);
  EXPECT_LE(reduced.size(), 1200u);
  bool spike = false, stall = false;
  for (size_t i = 0; i < reduced.size(); ++i) {
    spike = spike || reduced[i].y == 5000;
    stall = stall || reduced[i].y == 1;
    if (i > 0) EXPECT_LT(reduced[i - 1].x, reduced[i].x);
  }
  EXPECT_TRUE(spike);
  EXPECT_TRUE(stall);
  // A short series is drawn as it is.
  std::vector<svg::Point> few(points.begin(), points.begin() + 1200);
  EXPECT_EQ(svg::decimate_min_max(few, 600).size(), 1200u);
}

TEST(HtmlReport, NamesFromScenarioFilesAreEscaped) {
  svg::Chart chart;
  chart.kind = "k\"ind";
  chart.title = "<script>alert(1)</script> & 'x'";
  chart.series.push_back({"a<b", svg::Style::kLine, 0, {{0, 1}, {1, 2}}, ""});
  const std::string out = svg::render(chart);
  EXPECT_EQ(out.find("<script>"), std::string::npos);
  EXPECT_NE(out.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;x&#39;"), std::string::npos);
  EXPECT_NE(out.find("data-series=\"a&lt;b\" data-points=\"2\""), std::string::npos);
  EXPECT_NE(out.find("data-chart=\"k&quot;ind\""), std::string::npos);
  EXPECT_EQ(escape(std::string("a\x01z")), "a z");
}

TEST(HtmlReport, ALogAxisLeavesOutWhatItCannotDraw) {
  svg::Chart chart;
  chart.kind = "latency";
  chart.y.log = true;
  chart.series.push_back({"s", svg::Style::kLine, 0, {{0, 0}, {1, 10}, {2, 100}}, ""});
  EXPECT_NE(svg::render(chart).find("data-points=\"2\""), std::string::npos);
}

// A run of 20 workloads, each with 3 repetitions of 10 minutes (a point per second), 4
// workers, a baseline, 3 gated metrics with 20 runs of history; one workload has a window
// of 100,000 seconds.
HtmlRun large_run() {
  std::mt19937_64 random(7);
  HtmlRun run;
  run.run.id = 42;
  run.run.scenario = "large";
  run.run.status = "ok";
  run.baseline = "main";
  for (int w = 0; w < 20; ++w) {
    results::WorkloadResult workload;
    workload.spec.name = "workload_" + std::to_string(w);
    const int seconds = w == 0 ? 100'000 : 600;
    for (uint32_t r = 0; r < 3; ++r) {
      results::Repetition rep;
      rep.index = r;
      rep.start_unix_ns = int64_t{r} * (seconds + 1) * 1'000'000'000;
      rep.duration_ns = int64_t{seconds} * 1'000'000'000;
      rep.successes = 1'000'000;
      rep.operations = rep.successes;
      for (int i = 0; i < 20'000; ++i) {
        rep.latency.record(static_cast<int64_t>(10'000 + random() % 5'000'000));
      }
      for (int s = 0; s < seconds; ++s) {
        const auto p50 = static_cast<int64_t>(20'000 + random() % 1000);
        rep.timeline.push_back({static_cast<uint32_t>(s),
                                9000.0 + static_cast<double>(random() % 2000), random() % 3, p50,
                                p50 * 5, p50 * 50});
      }
      for (uint32_t k = 0; k < 4; ++k) {
        rep.workers.push_back({k, 250'000, 250'000, 0, 2500, 90'000, 900'000, 0.5});
      }
      workload.repetitions.push_back(std::move(rep));
      workload.latency.add(workload.repetitions.back().latency);
    }
    BaselineSpectrum baseline{"main", {1, 2, 3}, workload.latency};
    run.spectra[{workload.spec.name, "default"}] = baseline;
    for (const char* metric : {"throughput.rps", "latency.p99", "errors.count"}) {
      run.gates.push_back(store::GateRecord{0,
                                            workload.spec.name,
                                            "default",
                                            metric,
                                            "absolute",
                                            1.0,
                                            0.5,
                                            "",
                                            {},
                                            std::nullopt,
                                            -0.5,
                                            std::nullopt,
                                            std::nullopt,
                                            "absolute",
                                            "pass",
                                            "critical",
                                            "median within max"});
      MetricHistory history{workload.spec.name, "default", metric, {}};
      for (int64_t id = 42; id > 22; --id) {
        history.runs.push_back({id, id * 1000, "abc", "main", {1.0, 1.1, 0.9}, {"main"}, 1.0});
      }
      run.history.push_back(std::move(history));
    }
    run.result.workloads.push_back(std::move(workload));
  }
  return run;
}

TEST(HtmlReport, ATwentyWorkloadRunWithLongWindowsStaysUnderFiveMegabytes) {
  const std::string html = html_document({large_run()});
  EXPECT_LT(html.size(), 5u * 1024 * 1024) << html.size();
  // The 100,000-second window is reduced to two points per pixel column in each series.
  const size_t first = html.find("data-chart=\"throughput\"");
  ASSERT_NE(first, std::string::npos);
  const size_t end = html.find("</svg>", first);
  const std::string chart = html.substr(first, end - first);
  size_t at = 0;
  int series = 0;
  while ((at = chart.find("data-points=\"", at)) != std::string::npos) {
    at += 13;
    EXPECT_LE(std::stoul(chart.substr(at)), 2u * svg::kPlotWidth);
    ++series;
  }
  EXPECT_EQ(series, 3);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// A sweep of three points draws them with the fitted line, and a comparison is a table row of
// the ratio analysis.h computes (the same figures as the SWEEP| and COMPARE| lines).
TEST(HtmlReport, SweepsAndComparisonsComeFromTheAnalysisFunctions) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  for (uint64_t n : {1, 2, 4}) {
    results::WorkloadResult w;
    w.spec.name = "grow@connections=" + std::to_string(n);
    w.spec.sweep_of = "grow";
    w.spec.sweep_parameter = "connections";
    w.spec.sweep_value = n;
    results::Repetition rep;
    rep.duration_ns = 1'000'000'000;
    rep.successes = 100;
    rep.data_window_ns = 1'000'000'000;
    for (int i = 0; i < 100; ++i) rep.latency.record(static_cast<int64_t>(n) * 10'000);
    w.repetitions.push_back(rep);
    w.latency.add(rep.latency);
    run.result.workloads.push_back(std::move(w));
  }
  const std::string html = html_document({run});
  const auto s = sweeps(run.result);
  ASSERT_EQ(s.size(), 1u);
  ASSERT_TRUE(s[0].fit.has_value());
  EXPECT_NE(html.find("data-chart=\"sweep\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"measured p50\" data-points=\"3\""), std::string::npos);
  EXPECT_NE(html.find(fmt::format("fit {:.4g} + {:.4g} n", s[0].fit->a, s[0].fit->b)),
            std::string::npos);
  EXPECT_EQ(html.find("<h2>Comparisons</h2>"), std::string::npos);  // none in this run
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

TEST(HtmlReport, EveryFlagTheMeasurementRaisesHasPlainWords) {
  for (const char* flag : {"worker_saturated", "worker_cpu_starved", "start_skew",
                           "latency_clamped", "throughput_span", "router_count_mismatch",
                           "rate_not_kept", "process_stopped", "degraded"}) {
    EXPECT_EQ(flag_text(flag).find("no words"), std::string::npos) << flag;
  }
  EXPECT_NE(flag_text("worker_cpu_starved").find("waited for a CPU"), std::string::npos);
  EXPECT_NE(flag_text("something_new").find("no words"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// A change gate's effect is d in log space, as a relative gate's, not a distance beyond a bound.
TEST(HtmlReport, AChangeGatesEffectIsInLogSpace) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "change";
  g.observed = 0.002;
  g.threshold = 0.00101;
  g.effect = 0.6931;
  g.method = "e-divisive";
  g.verdict = "fail";
  g.severity = "critical";
  run.gates.push_back(g);
  const std::string html = html_document({run});
  EXPECT_NE(html.find("d = +0.6931 (log)"), std::string::npos);
  EXPECT_EQ(html.find("beyond the bound"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// A comparison draws its repetitions in the order they ran with each pair joined, so the
// alternation (A B, B A, A B, B A) shows, and each pair's ratio beside the ratio of the
// medians and its interval, the figures of the comparison table.
TEST(HtmlReport, AComparisonDrawsEachPairInTheOrderItRanAndTheRatiosWithTheirInterval) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.variants = {"a", "b"};
  for (const std::string variant : {"a", "b"}) {
    results::WorkloadResult w;
    w.spec.name = "hello";
    w.variant = variant;
    for (uint32_t r = 0; r < 4; ++r) {
      results::Repetition rep;
      rep.index = r;
      // engine/alternation.h: forward on even repetitions, reversed on odd ones.
      const bool runs_first = (variant == "a") == (r % 2 == 0);
      rep.start_unix_ns = (int64_t{20} * r + (runs_first ? 0 : 10)) * 1'000'000'000;
      rep.duration_ns = 1'000'000'000;
      rep.data_window_ns = 1'000'000'000;
      rep.successes = (variant == "a" ? 1000 : 1100) + 10 * r;
      w.repetitions.push_back(rep);
    }
    run.result.workloads.push_back(std::move(w));
  }
  const std::string html = html_document({run});
  for (const char* pair :
       {"pair 1: a then b", "pair 2: b then a", "pair 3: a then b", "pair 4: b then a"}) {
    EXPECT_NE(html.find(fmt::format("data-series=\"{}\" data-points=\"2\"", pair)),
              std::string::npos)
        << pair;
  }
  EXPECT_NE(html.find("data-series=\"a\" data-points=\"4\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"b\" data-points=\"4\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"ratio\""), std::string::npos);
  EXPECT_NE(html.find("data-series=\"ratio of each pair\" data-points=\"4\""), std::string::npos);
  const auto c = comparisons(run.result);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(
      html.find(fmt::format("data-series=\"median / median {:.3f}\"", c[0].ratio.value_or(0))),
      std::string::npos);
  ASSERT_TRUE(c[0].ci_low.has_value());
  EXPECT_NE(html.find(fmt::format("data-series=\"95% CI {:.3f}\"", *c[0].ci_low)),
            std::string::npos);
}

// A history marks each change point inside its window of runs, between the runs it separates.
TEST(HtmlReport, AHistoryMarksTheChangePointsInsideItsRuns) {
  MetricHistory h{"hello", "default", "throughput.rps", {}, {}};
  for (int64_t id = 10; id >= 1; --id) {
    const double figure = id > 5 ? 900.0 : 1000.0;
    h.runs.push_back({id, id * 1000, "c", "main", {figure}, {}, figure});
  }
  store::StoredChangePoint inside;
  inside.run_id = 6;
  inside.previous_run_id = 5;
  inside.change = -0.1;
  store::StoredChangePoint before;  // its first run after is the oldest shown: out of window
  before.run_id = 1;
  before.previous_run_id = 0;
  h.changes = {inside, before};
  const std::string chart = history_chart(h, "");
  size_t markers = 0;
  for (size_t at = 0; (at = chart.find("class=\"marker\" data-marker=", at)) != std::string::npos;
       ++at) {
    ++markers;
  }
  EXPECT_EQ(markers, 1u);
  EXPECT_NE(chart.find("data-marker=\"change -10.0% at run 6\""), std::string::npos);
}

// The y pixel of each point of the polyline named `series` in `chart`, left to right.
std::vector<double> polyline_ys(const std::string& chart, const std::string& series) {
  std::vector<double> ys;
  const size_t at = chart.find("data-series=\"" + series + "\"");
  if (at == std::string::npos) return ys;
  const size_t from = chart.find(" points=\"", at) + 9;
  const size_t to = chart.find('"', from);
  std::istringstream points(chart.substr(from, to - from));
  for (std::string point; points >> point;)
    ys.push_back(std::stod(point.substr(point.find(',') + 1)));
  return ys;
}

// A history point is the run's figure (for latency the merged p99), as every other output and
// the change points show it: here each run's figure rises while the median of its repetitions'
// values falls, and the chart rises (a smaller y is higher).
TEST(HtmlReport, AHistoryDrawsEachRunsFigureNotTheMedianOfItsRepetitions) {
  MetricHistory h{"hello", "default", "latency.p99", {}, {}};
  for (int64_t id = 3; id >= 1; --id) {
    store::SeriesRun run;
    run.run_id = id;
    run.values = {0.004 - 0.001 * id, 0.004 - 0.001 * id, 0.010};
    run.figure = 0.010 * id;
    h.runs.push_back(run);
  }
  const std::string chart = history_chart(h, "");
  const std::vector<double> ys = polyline_ys(chart, "figure");
  ASSERT_EQ(ys.size(), 3u) << chart;
  EXPECT_GT(ys[0], ys[1]);
  EXPECT_GT(ys[1], ys[2]);
  EXPECT_NE(chart.find("each run&#39;s figure"), std::string::npos);
}

// The gate table's interval column: the stored interval of d, else "-" with the reason.
TEST(HtmlReport, TheGateTableShowsTheEffectsIntervalOrSaysWhyThereIsNone) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord t;
  t.workload = "hello";
  t.metric = "throughput.rps";
  t.kind = "relative";
  t.effect = 0.01;
  t.p_value = 0.2;
  t.method = "t-test";
  t.verdict = "pass";
  t.severity = "critical";
  t.effect_low = -0.01;
  t.effect_high = 0.03;
  t.effect_confidence = 0.98;
  store::GateRecord older = t;  // evaluated before the interval was stored
  older.effect_low = older.effect_high = older.effect_confidence = std::nullopt;
  store::GateRecord absolute = t;
  absolute.kind = "absolute";
  absolute.method = "absolute";
  absolute.p_value = std::nullopt;
  absolute.effect_low = absolute.effect_high = absolute.effect_confidence = std::nullopt;
  run.gates = {t, older, absolute};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<td class=\"ci\">[-0.0100, +0.0300] (98%)</td>"), std::string::npos);
  EXPECT_NE(html.find("not stored: evaluated before schema version 12"), std::string::npos);
  EXPECT_NE(html.find("-<span class=\"why\"> an absolute gate compares"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// An open-loop workload shows, under each repetition's row, the diagnostics the terminal prints
// there and the JSON carries (uncorrected service time, late sends, unsent), "not measured"
// where a repetition has no service-time histogram; below the table the terminal's count line.
TEST(HtmlReport, AnOpenLoopRepetitionShowsItsServiceTimeLateSendsAndUnsent) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  results::WorkloadResult w;
  w.spec.name = "open";
  w.spec.rate = 1000;
  w.spec.connections = 2;
  w.spec.in_flight = 1;
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.operations = rep.successes = 1000;
    rep.latency.record(200'000);
    rep.router.collected = true;
    rep.router.requests = 1000;
    if (i == 0) {
      rep.service_time.emplace();
      rep.service_time->record(50'000);
      rep.late_sends = 7;
      rep.unsent = 3;
    } else {
      rep.not_measured.insert("service_time");
    }
    w.repetitions.push_back(rep);
  }
  w.latency.record(200'000);
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_NE(html.find(escape(open_loop_text(w.repetitions[0]))), std::string::npos);
  EXPECT_NE(html.find("late sends 7, unwritten at the window&#39;s end 3"), std::string::npos)
      << html;
  EXPECT_NE(html.find("service time: not measured"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"counts\">requests: 2000 sent by workers, 2000 counted by the "
                      "router</p>"),
            std::string::npos);
  // A closed-loop workload has no such row.
  run.result.workloads.front().spec.rate = 0;
  EXPECT_EQ(html_document({run}).find("service time"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// A worker's clock offset is in the unit formatting of its RTT and start skew, signed, not in
// seconds to six decimals; the start skew (achieved start less the shared one) is signed too, as
// on the terminal.
TEST(HtmlReport, AWorkersClockOffsetIsFormattedAsItsRttAndSkew) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  results::WorkloadResult w;
  w.spec.name = "hello";
  results::Repetition rep;
  rep.duration_ns = 1'000'000'000;
  rep.latency.record(100'000);
  results::WorkerShare share;
  share.host = "local";
  share.clock_offset_ns = -8'000;
  share.rtt_ns = 50'000;
  share.start_skew_ns = 12'000;
  rep.workers.push_back(share);
  share.worker = 1;
  share.clock_offset_ns = 250'000;
  rep.workers.push_back(share);
  w.repetitions.push_back(rep);
  w.latency.record(100'000);
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_EQ(html.find("0.000008 s"), std::string::npos);
  EXPECT_NE(
      html.find("<td>-" + format_duration_ns(8'000) + "</td><td>" + format_duration_ns(50'000) +
                "</td><td>+" + format_duration_ns(12'000) + "</td>"),
      std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>+" + format_duration_ns(250'000) + "</td>"), std::string::npos);
}

// A long run error is shown whole, wrapped (a path has no space to break at), never cut.
TEST(HtmlReport, ALongRunErrorIsShownWholeAndWrapped) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  std::string error = "cannot start worker: ";
  for (int i = 0; i < 40; ++i) error += "/a-rather-long-folder-name";
  error += "/worker: No such file or directory";
  run.run.error = error;
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<p class=\"flag\">" + escape(error) + "</p>"), std::string::npos);
  EXPECT_NE(html.find("p.flag { overflow-wrap: anywhere;"), std::string::npos);
}

// An absolute gate's effect says how far inside or beyond its bound the figure lies: in the
// metric's unit (three digits), and the observed figure as a share of the bound, so 101us
// against a 1s max is not read as "1s" with nothing else.
TEST(HtmlReport, AnAbsoluteGatesEffectSaysHowFarInsideTheBound) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "absolute";
  g.method = "absolute";
  g.verdict = "pass";
  g.severity = "critical";
  g.observed = 101e-6;
  g.threshold = 1.0;
  g.effect = 101e-6 - 1.0;
  store::GateRecord beyond = g;
  beyond.verdict = "fail";
  beyond.observed = 1.5;
  beyond.effect = 0.5;
  // Far beyond: the share is a plain number as the tables write one, not "2.29e+03%".
  store::GateRecord far = beyond;
  far.observed = 22.9;
  far.effect = 21.9;
  run.gates = {g, beyond, far};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("1s inside the bound (observed 0.0101% of it)"), std::string::npos) << html;
  EXPECT_NE(html.find("500ms beyond the bound (observed 150% of it)"), std::string::npos) << html;
  EXPECT_NE(html.find("21.9s beyond the bound (observed 2290% of it)"), std::string::npos) << html;
  EXPECT_EQ(html.find("e+03%"), std::string::npos) << html;
}

// A handshakes.rate gate's observed figure and threshold are handshakes per second, as the
// terminal's gate table and the Markdown summary write them.
TEST(HtmlReport, AHandshakesRateGateSaysHandshakesPerSecond) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "handshakes.rate";
  g.kind = "absolute";
  g.method = "absolute";
  g.verdict = "pass";
  g.severity = "critical";
  g.observed = 1234;
  g.threshold = 1000;
  g.effect = -234;  // inside the bound: positive is worse
  run.gates = {g};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<td>1234 handshakes/s</td><td>1000 handshakes/s</td>"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("k ops/s"), std::string::npos) << html;
}

// Workers report progress every 500 ms: a window shorter than that ends before its first report
// and has no timeline point. The report says so, not that the run is old or its workers silent.
TEST(HtmlReport, AWindowShorterThanTheProgressIntervalSaysWhyItHasNoTimeline) {
  results::WorkloadResult w;
  w.spec.name = "short";
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.start_unix_ns = i * 1'000'000'000LL;
    rep.duration_ns = rep.data_window_ns = 300'000'000;
    rep.successes = rep.operations = 300;
    w.repetitions.push_back(rep);
  }
  const std::string short_windows = timeline_charts(w);
  EXPECT_NE(short_windows.find("Timeline: none (every window was shorter than the 500 ms interval "
                               "at which the workers report progress"),
            std::string::npos)
      << short_windows;
  EXPECT_EQ(short_windows.find("schema version 7"), std::string::npos) << short_windows;
  // A window long enough for a report that has no point: stored before the timeline was.
  w.repetitions[1].duration_ns = 2'000'000'000;
  EXPECT_NE(timeline_charts(w).find("Timeline: not stored (the run was stored before schema "
                                    "version 7"),
            std::string::npos)
      << timeline_charts(w);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// The verdict cell holds the verdict and, for a change gate's rerun, its confirmation; the
// explanation has a cell of its own (the verdict cell once repeated the explanation after the
// verdict, "pass0 (summed over 4 repetitions) within max 0", and dropped the confirmation).
TEST(HtmlReport, TheVerdictCellHoldsTheVerdictAndItsConfirmationNotTheExplanation) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "errors.count";
  g.kind = "absolute";
  g.method = "absolute";
  g.verdict = "pass";
  g.severity = "critical";
  g.observed = 0;
  g.threshold = 0;
  g.effect = 0;
  g.explanation = "0 (summed over 4 repetitions) within max 0";
  store::GateRecord confirmed = g;
  confirmed.kind = "change";
  confirmed.verdict = "fail";
  confirmed.confirmation = "confirmed";
  run.gates = {g, confirmed};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<td class=\"text verdict-pass\">pass</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"text verdict-fail\">fail" +
                      escape(gates::confirmation_suffix("confirmed")) + "</td>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("pass0 (summed"), std::string::npos) << html;
  EXPECT_NE(
      html.find("<td class=\"text explanation\">0 (summed over 4 repetitions) within max 0</td>"),
      std::string::npos)
      << html;
}

// An underpowered gate is flagged in every output (docs/GATES.md): the HTML verdict cell reads
// as the terminal's, Markdown's and `runs show`'s, from one definition.
TEST(HtmlReport, AnUnderpoweredGatesVerdictCellSaysSo) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.variant = "new";
  g.metric = "throughput.rps";
  g.kind = "relative";
  g.baseline = "old";
  g.method = "paired-signed-rank";
  g.verdict = "fail";
  g.severity = "critical";
  g.underpowered = true;
  store::GateRecord inconclusive = g;
  inconclusive.verdict = "inconclusive";
  run.gates = {g, inconclusive};
  const std::string html = html_document({run});
  EXPECT_EQ(gates::verdict_text("fail", true, ""), "fail, underpowered");
  EXPECT_NE(html.find("<td class=\"text verdict-fail\">fail, underpowered</td>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"text verdict-inconclusive\">inconclusive, underpowered</td>"),
            std::string::npos)
      << html;
}

// The note under the gate table says what each method's interval is (docs/REPORTS.md): the
// t-test's from its standard error, a signed-rank gate's the distribution-free one at the
// confidence it achieves; a method not in the table is not described.
TEST(HtmlReport, TheGateTablesNoteDescribesTheIntervalOfEachMethodInIt) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.variant = "new";
  g.metric = "throughput.rps";
  g.kind = "relative";
  g.baseline = "old";
  g.method = "paired-signed-rank";
  g.verdict = "pass";
  g.severity = "critical";
  run.gates = {g};
  std::string html = html_document({run});
  EXPECT_NE(html.find("distribution-free"), std::string::npos) << html;
  EXPECT_NE(html.find("at the confidence it achieves"), std::string::npos) << html;
  EXPECT_EQ(html.find("standard error"), std::string::npos) << html;
  EXPECT_EQ(html.find("paired-t gate"), std::string::npos) << html;

  store::GateRecord t = g;
  t.method = "t-test";
  store::GateRecord paired_t = g;
  paired_t.method = "paired-t";
  run.gates = {t, paired_t};
  html = html_document({run});
  EXPECT_NE(html.find("standard error and degrees of freedom"), std::string::npos) << html;
  EXPECT_NE(html.find("paired-t gate"), std::string::npos) << html;
  EXPECT_EQ(html.find("distribution-free"), std::string::npos) << html;
}

// An explanation of several lines (a router's stderr tail after "its stderr ends with:") keeps
// its line breaks in the browser, as the terminal's indented lines and Markdown's <br> do.
TEST(HtmlReport, AMultiLineExplanationKeepsItsLineBreaks) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  store::GateRecord g;
  g.workload = "hello";
  g.metric = "errors.count";
  g.kind = "absolute";
  g.method = "absolute";
  g.verdict = "error";
  g.severity = "critical";
  g.explanation = "router exited; its stderr ends with:\nrouter: serving HTTP";
  run.gates = {g};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<td class=\"text explanation\">router exited; its stderr ends "
                      "with:\nrouter: serving HTTP</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("td.explanation { white-space: pre-wrap;"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// No spectrum, said for what it is: a tool that prints figures only (wrk, h2load), or a
// workload whose repetitions completed no success (the bundled worker sends histograms; they
// are empty), not "the workers printed figures only" for both.
TEST(HtmlReport, AMissingSpectrumSaysWhy) {
  auto run_of = [](const results::WorkloadResult& w) {
    HtmlRun run;
    run.run.id = 1;
    run.run.scenario = "s";
    run.result.workloads = {w};
    return run;
  };
  results::WorkloadResult tool;
  tool.spec.name = "wrk_hello";
  results::Repetition tool_rep;
  tool_rep.successes = tool_rep.operations = 1000;
  tool_rep.duration_ns = 1'000'000'000;
  tool_rep.tool_latency = results::ToolLatency{"wrk 4.2.0",  std::nullopt, 200'000,
                                               std::nullopt, 7'000'000,    {{"50", 150'000}}};
  tool.repetitions.push_back(tool_rep);
  const std::string printed = html_document({run_of(tool)});
  EXPECT_NE(printed.find("Spectrum: none (wrk 4.2.0 printed latency figures only, no "
                         "histogram)."),
            std::string::npos)
      << printed;

  results::WorkloadResult failing;
  failing.spec.name = "all_500";
  results::Repetition rep;
  rep.operations = 1000;
  rep.errors["status"] = 1000;
  rep.duration_ns = 1'000'000'000;
  failing.repetitions.push_back(rep);
  const std::string html = html_document({run_of(failing)});
  EXPECT_NE(html.find("Spectrum: none (no repetition completed a success, and latency is of "
                      "successes only)."),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("printed figures only"), std::string::npos) << html;
}

// The HTML report's errors by kind sum the repetitions as the terminal does, stopping at
// UINT64_MAX (results::saturated_sum): two repetitions of 2^63 do not read 0, and read as at
// least that (results::count_text).
TEST(HtmlReport, ErrorKindsSummedOverRepetitionsDoNotWrap) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  results::WorkloadResult w;
  w.spec.name = "failing";
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.operations = uint64_t{1} << 63;
    rep.errors["status"] = uint64_t{1} << 63;
    w.repetitions.push_back(rep);
  }
  run.result.workloads.push_back(w);
  const std::string html = html_document({run});
  EXPECT_NE(html.find("errors by kind: status=at least 18446744073709551615</p>"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace benchgate::report
