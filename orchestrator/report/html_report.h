// The self-contained HTML report (`run --html`, `orchestrator report RUN`): one file with
// every chart as inline SVG and its CSS inline, no script and nothing fetched when viewed, fit
// to print. Every chart and how its numbers are computed: docs/REPORTS.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/histogram/hdr_histogram.h"
#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/svg_chart.h"
#include "orchestrator/store/records.h"

namespace benchgate::store {
class Store;
}

namespace benchgate::report {

// The baseline a workload's spectrum is drawn against: the latest runs of the baseline that
// a relative gate would use (same testbed, series, params hash), their repetitions merged.
struct BaselineSpectrum {
  std::string name;
  std::vector<int64_t> run_ids;
  HdrHistogram merged;
};

// One gated metric's history on the run's testbed (store::Store::series_runs), newest first,
// with the change points found in the series (store::Store::change_points, docs/GATES.md
// "Change points"): the series up to and including the reported run, so that a report of a
// past run is the same whenever it is made.
struct MetricHistory {
  std::string workload;
  std::string variant;
  std::string metric;
  std::vector<store::SeriesRun> runs;
  std::vector<store::StoredChangePoint> changes;
};

// The change points of one series (testbed, scenario, workload, variant, params hash,
// metric) as `history changes` reports them; nothing when the series has none. With
// `through_run`, those of the series up to and including that run (a past run's report).
Expected<std::vector<store::StoredChangePoint>> series_change_points(
    store::Store& store, const store::ChangeSeriesKey& series, int64_t through_run = 0);

// Everything one run's report shows.
struct HtmlRun {
  store::RunSummary run;
  store::Testbed testbed;
  std::vector<store::MeasuredBinary> binaries;  // the run's (store::RunDetail::binaries)
  engine::ScenarioResult result;         // stored_run.h: the same figures as terminal and JSON
  std::vector<store::GateRecord> gates;  // the latest stored evaluation
  std::string baseline;                  // "" when there is none to draw against
  std::map<std::pair<std::string, std::string>, BaselineSpectrum> spectra;  // (name, variant)
  std::vector<MetricHistory> history;
};

struct ReportOptions {
  std::string baseline;   // "": the baseline of the scenario's first relative gate, if any
  int history_runs = 20;  // runs per history chart
};

// Reads one stored run with its baseline spectra and gated metrics' histories.
Expected<HtmlRun> load_html_run(store::Store& store, int64_t run_id, const ReportOptions& options);

// The whole document for one or more runs; `nav` (markup) is placed at the top of the body.
std::string html_document(const std::vector<HtmlRun>& runs, const std::string& nav = "");

// A page of the same style around `body` (markup), for the pages `orchestrator serve` adds.
std::string html_page(const std::string& title, const std::string& body,
                      const std::string& head_extra = "");

// One metric's history as a chart; runs in `baseline` (any baseline when empty) are squares,
// each change point a vertical line at the first run after it (drawn where that run is in
// the chart's window of runs).
std::string history_chart(const MetricHistory& history, const std::string& baseline);

// --- The figures behind the charts, public so that tests check them. ---

// The percentiles a spectrum samples: t = 0, 0.05, ..., 5 on the axis x = log10(1 / (1 - p)),
// that is p = 100 * (1 - 10^-t), from 0 to 99.999.
std::vector<double> spectrum_percentiles();
// One curve: (t, latency in ns) for each percentile; nothing for an empty histogram.
std::vector<svg::Point> spectrum_curve(const HdrHistogram& histogram);

// One point per second of each measured window (results::TimelineSecond, built by
// engine/timeline.h), placed on one axis: seconds since the first repetition started, at the
// end of each second.
struct TimelinePoint {
  double t_s = 0;
  uint32_t repetition = 0;  // 0-based
  double ops_per_second = 0;
  std::optional<int64_t> p50_ns;
  std::optional<int64_t> p99_ns;
  std::optional<int64_t> max_ns;
  uint64_t errors = 0;
};
std::vector<TimelinePoint> timeline(const results::WorkloadResult& workload);

// The per-second timelines of a workload (throughput, latency, errors), as the report draws
// them; the live page draws the running workload's with the same function.
std::string timeline_charts(const results::WorkloadResult& workload);

// A flag in plain words.
std::string flag_text(const std::string& flag);

}  // namespace benchgate::report
