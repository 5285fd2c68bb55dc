// Reading what the HTML report shows from the store (html_report.h).
#include <set>

#include "orchestrator/report/html_report.h"
#include "orchestrator/report/stored_run.h"
#include "orchestrator/store/store.h"

namespace benchgate::report {
namespace {

// Whether `g` is a paired gate (docs/GATES.md, "Paired gates"): its `baseline` names the
// variant of this run it was judged against, not a stored baseline. Compared, its method says
// so; otherwise (error, not_configured) it drew no stored run and names one of the run's
// variants.
bool judged_against_variant(const store::GateRecord& g, const std::set<std::string>& variants) {
  if (g.method.rfind("paired-", 0) == 0) return true;
  return g.baseline_runs.empty() && variants.count(g.baseline) != 0;
}

// The baseline a report draws against: the one asked for, else the first relative gate's that
// judged the run against a stored baseline (a paired gate's `against` variant is none).
std::string baseline_of(const std::vector<store::GateRecord>& gates, const std::string& asked,
                        const std::set<std::string>& variants) {
  if (!asked.empty()) return asked;
  for (const auto& g : gates) {
    if (!g.baseline.empty() && !judged_against_variant(g, variants)) return g.baseline;
  }
  return "";
}

// The metric a spectrum's baseline runs must have (any run that measured a latency histogram).
constexpr const char* kSpectrumMetric = "latency.p50";
// As many baseline runs as a relative gate uses (docs/GATES.md).
constexpr int kBaselineRuns = 10;

}  // namespace

Expected<std::vector<store::StoredChangePoint>> series_change_points(
    store::Store& store, const store::ChangeSeriesKey& series, int64_t through_run) {
  store::ChangeSeriesFilter filter;
  filter.through_run = through_run;
  filter.scenario = series.scenario;
  filter.workload = series.workload;
  filter.variant = series.variant;
  filter.metric = series.metric;
  filter.testbed_id = series.testbed_id;
  filter.submitted_by = series.submitted_by;
  auto found = store.change_points(filter, store::Store::stored_change_options());
  if (!found) return found.error();
  for (auto& s : *found) {
    if (s.key.params_hash == series.params_hash && s.key.workload == series.workload &&
        s.key.variant == series.variant && s.key.metric == series.metric) {
      return std::move(s.changes);
    }
  }
  return std::vector<store::StoredChangePoint>{};
}

Expected<HtmlRun> load_html_run(store::Store& store, int64_t run_id, const ReportOptions& options) {
  auto detail = store.get_run(run_id);
  if (!detail) return detail.error();
  auto gates = store.gate_results(run_id);
  if (!gates) return gates.error();
  HtmlRun out;
  out.run = detail->run;
  out.testbed = detail->testbed;
  out.binaries = detail->binaries;
  out.result = result_from_store(*detail);
  out.gates = std::move(*gates);
  std::set<std::string> variants;
  for (const auto& w : detail->workloads) {
    if (w.variant != "default") variants.insert(w.variant);  // "default": no [compare]
  }
  out.baseline = baseline_of(out.gates, options.baseline, variants);

  std::map<std::pair<std::string, std::string>, std::string> params;
  for (const auto& w : detail->workloads) params[{w.name, w.variant}] = w.params_hash;

  if (!out.baseline.empty()) {
    for (const auto& w : detail->workloads) {
      if (w.status != "ok") continue;
      store::HistoryQuery q{
          out.baseline, detail->run.testbed_id, detail->run.scenario, w.name,
          w.variant,    w.params_hash,          kSpectrumMetric,      kBaselineRuns};
      q.before_run = run_id;  // as the run's relative gates: the baseline runs it had
      auto runs = store.baseline_history(q);
      if (!runs) return runs.error();
      BaselineSpectrum spectrum;
      spectrum.name = out.baseline;
      for (const auto& r : *runs) {
        if (r.run_id == run_id) continue;  // the judged run is never its own baseline
        auto blobs = store.latency_histograms(r.run_id, w.name, w.variant);
        if (!blobs) return blobs.error();
        // A run whose samples would take the merge past INT64_MAX (HdrHistogram::add refuses
        // it) is left out whole, as its id is from the legend's list of the runs merged.
        HdrHistogram run_latency;
        bool any = false;
        bool fits = true;
        for (const auto& blob : *blobs) {
          auto h = HdrHistogram::decode(std::span(blob.data(), blob.size()));
          if (!h) continue;
          fits = fits && run_latency.add(*h);
          any = true;
        }
        if (any && fits && spectrum.merged.add(run_latency)) spectrum.run_ids.push_back(r.run_id);
      }
      if (spectrum.merged.total_count() > 0) out.spectra[{w.name, w.variant}] = std::move(spectrum);
    }
  }

  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const auto& g : out.gates) {
    if (!seen.insert({g.workload, g.variant, g.metric}).second) continue;
    auto it = params.find({g.workload, g.variant});
    if (it == params.end()) continue;  // the gate's workload was not stored
    store::HistoryQuery q{
        "",       detail->run.testbed_id, detail->run.scenario, g.workload, g.variant, it->second,
        g.metric, options.history_runs};
    // The history the run had: later runs are left out, so `report RUN` gives what `run --html`
    // wrote (docs/REPORTS.md).
    q.through_run = run_id;
    // The series the run is a point of: a client's run is charted with the clients' runs.
    q.submitted_by = store::submitted_by(detail->run.origin);
    auto runs = store.series_runs(q);
    if (!runs) {
      // A metric the store cannot chart (one computed outside the stored columns) has no
      // history; the chart says so rather than failing the report.
      out.history.push_back(MetricHistory{g.workload, g.variant, g.metric, {}, {}});
      continue;
    }
    MetricHistory h{g.workload, g.variant, g.metric, std::move(*runs), {}};
    auto changes = series_change_points(store,
                                        {detail->run.scenario, detail->run.testbed_id, g.workload,
                                         g.variant, it->second, g.metric, q.submitted_by},
                                        run_id);
    if (!changes) return changes.error();
    h.changes = std::move(*changes);
    out.history.push_back(std::move(h));
  }
  return out;
}

}  // namespace benchgate::report
