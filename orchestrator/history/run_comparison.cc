// Benchstat-style comparison of two stored runs (run_comparison.h).
#include "orchestrator/history/run_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "common/util/shown_text.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/history/text_table.h"
#include "orchestrator/report/workload_title.h"
#include "orchestrator/store/binary_identity.h"
#include "orchestrator/store/definition_differences.h"

namespace benchgate::history {
namespace {

// "hello [old]", as every report names a workload's variant (report/workload_title.h).
std::string workload_label(const std::string& name, const std::string& variant) {
  return report::workload_title(name, variant);
}

const WorkloadSamples* find(const RunSamples& run, const WorkloadSamples& like) {
  for (const WorkloadSamples& w : run.workloads) {
    if (w.name == like.name && w.variant == like.variant) return &w;
  }
  return nullptr;
}

std::optional<double> figure_of(const WorkloadSamples& w, const std::string& metric) {
  const auto found = w.figures.find(metric);
  if (found == w.figures.end()) return std::nullopt;
  return found->second;
}

MetricComparison compare_metric(std::string_view metric, const RunSamples& ra,
                                const WorkloadSamples& a, const RunSamples& rb,
                                const WorkloadSamples& b, double alpha, double confidence) {
  MetricComparison m;
  m.metric = std::string(metric);
  m.figure_a = figure_of(a, m.metric);
  m.figure_b = figure_of(b, m.metric);
  const auto va = a.values.find(m.metric);
  const auto vb = b.values.find(m.metric);
  const bool has_a = va != a.values.end() && !va->second.empty();
  const bool has_b = vb != b.values.end() && !vb->second.empty();
  // A run that did not collect the metric (no repetition values) has no figure of it either,
  // whatever it stored: the text shows "-" for it and for the change, the JSON null.
  if (!has_a) {
    m.missing_in.push_back(ra.run_id);
    m.figure_a.reset();
  }
  if (!has_b) {
    m.missing_in.push_back(rb.run_id);
    m.figure_b.reset();
  }
  if (!has_a || !has_b) return m;
  m.n_a = va->second.size();
  m.n_b = vb->second.size();
  m.stats = gates::compare_samples(va->second, vb->second, confidence, alpha);
  return m;
}

// A gates::relative_change as a signed percentage; "from 0" has none.
std::string change_text(double a, double b) {
  const double c = gates::relative_change(a, b);
  return std::isnan(c) ? "from 0" : format_percent(c);
}

// Whether the figures moved one way and the repetitions' medians, significantly, the other (a
// latency figure of the merged histogram up, the repetitions' own medians down): the test does
// not back the change printed.
bool directions_disagree(const MetricComparison& m) {
  if (!m.figure_a || !m.figure_b || !m.stats || !m.stats->significant) return false;
  return (*m.figure_b - *m.figure_a) * (m.stats->median_b - m.stats->median_a) < 0;
}

// The change column: the change of the figures, with "~" before it where the repetitions show
// no significant difference (benchstat's mark), or a significant one the other way: the change
// is printed all the same, for a reader to see its size. Equal figures (0 to 0 included) that
// the repetitions do not show apart are "=": unchanged, not a change too small to tell.
std::string format_change(const MetricComparison& m) {
  std::string change = "-";  // a figure not stored
  if (m.figure_a && m.figure_b) change = change_text(*m.figure_a, *m.figure_b);
  if (m.stats->significant && !directions_disagree(m)) return change;
  if (m.figure_a && m.figure_b && *m.figure_a == *m.figure_b) return "=";
  return change == "-" ? "~" : "~ " + change;
}

// The note on each metric whose figures and repetitions' medians changed opposite ways.
std::vector<std::string> direction_notes(const WorkloadComparison& w) {
  std::vector<std::string> out;
  for (const MetricComparison& m : w.metrics) {
    if (!directions_disagree(m)) continue;
    out.push_back(fmt::format(
        "{}: the figures changed by {} but the repetitions' medians by {} (p={:.3f}): the "
        "change is marked ~, as the repetitions do not show it",
        m.metric, change_text(*m.figure_a, *m.figure_b),
        change_text(m.stats->median_a, m.stats->median_b), m.stats->p_value));
  }
  return out;
}

std::string format_figure(const std::string& metric, const std::optional<double>& figure) {
  return figure ? format_metric(metric, *figure) : "not stored";
}

// The smallest n with n + n repetitions that can give a p below alpha, and the smallest m with
// n_a + m that can (`runs` bounds the search).
size_t repetitions_that_can(double alpha, size_t fixed, size_t runs = 10000) {
  for (size_t m = 1; m <= runs; ++m) {
    if (gates::mann_whitney_smallest_p(fixed == 0 ? m : fixed, m) < alpha) return m;
  }
  return 0;
}

// "3+3 repetitions cannot show a significant change at alpha 0.05 (the smallest two-sided p
// they can give is 0.100); 4+4 can, or 3+5": for each pair of sample sizes of the workload's
// metrics whose best p is not below alpha, each change of theirs prints "~" whatever its size.
std::vector<std::string> too_few_notes(const WorkloadComparison& w, const RunComparison& c) {
  std::vector<std::pair<size_t, size_t>> sizes;
  for (const MetricComparison& m : w.metrics) {
    if (!m.stats) continue;
    const std::pair<size_t, size_t> n{m.n_a, m.n_b};
    if (gates::mann_whitney_smallest_p(n.first, n.second) < c.alpha) continue;
    if (std::find(sizes.begin(), sizes.end(), n) == sizes.end()) sizes.push_back(n);
  }
  std::vector<std::string> notes;
  for (const auto& [n_a, n_b] : sizes) {
    std::string note = fmt::format(
        "{}+{} repetitions cannot show a significant change at alpha {:g} (the smallest "
        "two-sided p they can give is {:.3f}): every change is \"~\" whatever its size",
        n_a, n_b, c.alpha, gates::mann_whitney_smallest_p(n_a, n_b));
    const size_t equal = repetitions_that_can(c.alpha, 0);
    const size_t more = repetitions_that_can(c.alpha, n_a);
    if (equal > 0) {
      note += fmt::format("; {}+{} can", equal, equal);
      if (more > 0 && n_a != equal) note += fmt::format(", or {}+{}", n_a, more);
    }
    notes.push_back(std::move(note));
  }
  return notes;
}

std::string format_interval(const gates::SampleComparison& s) {
  if (!s.interval_bounded) return s.median_a == 0 ? "-" : "too few samples";
  return fmt::format("[{}, {}]", format_percent(s.change_low), format_percent(s.change_high));
}

// Why a run's figures may not be a whole run's: a run still running, or one that ended
// otherwise than ok (store::kRunStatuses); nothing for an ok run.
std::optional<std::string> status_note(int64_t run, const std::string& status) {
  if (status == "ok") return std::nullopt;
  if (status == "running") {
    return fmt::format("run {} is still running: its figures are those stored so far", run);
  }
  if (status == "aborted") {
    return fmt::format(
        "run {} was aborted (interrupted): a workload it had not finished measuring is failed or "
        "missing",
        run);
  }
  if (status == "abandoned") {
    return fmt::format(
        "run {} was abandoned (its orchestrator stopped before the run ended): its figures are "
        "those stored before",
        run);
  }
  if (status == "failed") {
    return fmt::format("run {} failed: its figures are those stored before it failed", run);
  }
  return fmt::format("run {} has status {}: it did not end ok", run, status);
}

// Every note of one workload, as the text prints them after "note: " and JSON lists them.
std::vector<std::string> workload_notes(const RunComparison& c, const WorkloadComparison& w) {
  std::vector<std::string> notes;
  if (w.definitions_differ && !w.definition_changes.empty()) {
    notes.push_back(fmt::format("definitions differ in {}; the figures are not one series",
                                fmt::join(w.definition_changes, ", ")));
  } else if (w.definitions_differ) {
    notes.push_back(
        "definitions differ (the workload's resolved parameters changed between the runs); the "
        "figures are not one series");
  }
  for (const std::string& note : w.notes) notes.push_back(note);
  for (std::string& note : too_few_notes(w, c)) notes.push_back(std::move(note));
  for (std::string& note : direction_notes(w)) notes.push_back(std::move(note));
  return notes;
}

const store::MeasuredBinary* router_of(const std::vector<store::MeasuredBinary>& binaries) {
  for (const store::MeasuredBinary& b : binaries) {
    if (b.role == "router") return &b;
  }
  return nullptr;
}

// "PATH, build-id HEX": one router as a note names it.
std::string router_text(const store::MeasuredBinary& b) {
  return shown_text(b.path) + ", " + store::identity_text(b);
}

// The note on the two runs' routers (docs/MEASUREMENT.md, "Measured binaries"), when both
// recorded theirs: one given by --router-bin or $BENCHGATE_ROUTER_BIN and one bundled, or two
// different files under the same commit. A run's commit is its working folder's (or --commit's),
// not necessarily the router's.
std::optional<std::string> router_note(const RunComparison& c) {
  const store::MeasuredBinary* a = router_of(c.binaries_a);
  const store::MeasuredBinary* b = router_of(c.binaries_b);
  if (a == nullptr || b == nullptr) return std::nullopt;
  const bool same_commit = !c.commit_a.empty() && c.commit_a == c.commit_b;
  const bool bundled_a = store::bundled_origin(a->origin);
  if (bundled_a != store::bundled_origin(b->origin)) {
    const auto& [given, given_run, bundled, bundled_run] =
        bundled_a ? std::tuple{*b, c.run_b, *a, c.run_a} : std::tuple{*a, c.run_a, *b, c.run_b};
    std::string note = fmt::format(
        "run {} measured a router given by {} ({}), run {} the bundled router ({})", given_run,
        shown_text(given.origin), router_text(given), bundled_run, router_text(bundled));
    if (store::same_identity(given, bundled)) note += "; the two are one build by their identity";
    if (same_commit) {
      note += fmt::format(
          "; both carry commit {}, which is the working folder's, not necessarily the router's",
          shown_text(c.commit_a));
    }
    return note;
  }
  if (same_commit && (a->build_id || a->sha256) && (b->build_id || b->sha256) &&
      !store::same_identity(*a, *b)) {
    return fmt::format(
        "runs {} and {} carry the same commit {} but measured different router binaries (run {}: "
        "{}; run {}: {}); part of any difference may be the router",
        c.run_a, c.run_b, shown_text(c.commit_a), c.run_a, router_text(*a), c.run_b,
        router_text(*b));
  }
  return std::nullopt;
}

// The notes on the two runs as a whole: different testbeds, different routers, a run that did
// not end ok, different scenarios.
std::vector<std::string> run_notes(const RunComparison& c) {
  std::vector<std::string> notes;
  if (c.testbeds_differ) {
    notes.push_back(fmt::format(
        "the runs were measured on different testbeds (run {} on {}, run {} on {}); part of any "
        "difference may be the machine",
        c.run_a, or_dash(c.host_a), c.run_b, or_dash(c.host_b)));
  }
  if (auto note = router_note(c)) notes.push_back(std::move(*note));
  for (const auto& [run, status] :
       {std::pair{c.run_a, c.status_a}, std::pair{c.run_b, c.status_b}}) {
    if (auto note = status_note(run, status)) notes.push_back(std::move(*note));
  }
  if (c.scenario_a != c.scenario_b) {
    notes.push_back(fmt::format(
        "the runs are of different scenarios (run {} of {}, run {} of {}); only workloads of the "
        "same name are compared, and they need not measure the same thing",
        c.run_a, or_dash(c.scenario_a), c.run_b, or_dash(c.scenario_b)));
  }
  return notes;
}

std::string workload_section(const RunComparison& c, const WorkloadComparison& w) {
  std::string out = fmt::format("\nworkload {}\n", workload_label(w.name, w.variant));
  for (const std::string& note : workload_notes(c, w)) out += "  note: " + note + "\n";
  TextTable table({"METRIC", fmt::format("RUN {}", c.run_a), fmt::format("RUN {}", c.run_b),
                   "CHANGE", fmt::format("{:g}% INTERVAL", c.confidence * 100), "P", "N"},
                  "  ");
  table.align(1, TextTable::Align::kRight).align(2, TextTable::Align::kRight);
  table.align(3, TextTable::Align::kRight);
  for (const MetricComparison& m : w.metrics) {
    if (!m.stats) {
      std::vector<std::string> runs;
      for (int64_t id : m.missing_in) runs.push_back(std::to_string(id));
      // The run that measured it shows its figure; the one that did not, "-".
      const auto side = [&](int64_t run, const std::optional<double>& figure) {
        return std::find(m.missing_in.begin(), m.missing_in.end(), run) != m.missing_in.end()
                   ? std::string("-")
                   : format_figure(m.metric, figure);
      };
      table.add_row({m.metric, side(c.run_a, m.figure_a), side(c.run_b, m.figure_b), "-",
                     "not collected in run " + fmt::format("{}", fmt::join(runs, " and "))});
      continue;
    }
    const gates::SampleComparison& s = *m.stats;
    table.add_row({m.metric, format_figure(m.metric, m.figure_a),
                   format_figure(m.metric, m.figure_b), format_change(m), format_interval(s),
                   fmt::format("p={:.3f}", s.p_value), fmt::format("n={}+{}", m.n_a, m.n_b)});
  }
  return out + table.render();
}

}  // namespace

RunComparison compare_runs(const RunSamples& a, const RunSamples& b, double alpha,
                           double confidence) {
  RunComparison c;
  c.run_a = a.run_id;
  c.run_b = b.run_id;
  c.alpha = alpha;
  c.confidence = confidence;
  c.testbeds_differ = a.testbed_fingerprint != b.testbed_fingerprint;
  c.host_a = a.testbed_host;
  c.host_b = b.testbed_host;
  c.scenario_a = a.scenario;
  c.scenario_b = b.scenario;
  c.status_a = a.status;
  c.status_b = b.status;
  c.commit_a = a.commit;
  c.commit_b = b.commit;
  c.binaries_a = a.binaries;
  c.binaries_b = b.binaries;
  for (const WorkloadSamples& wa : a.workloads) {
    const WorkloadSamples* wb = find(b, wa);
    if (wb == nullptr) {
      c.only_in_a.push_back(workload_label(wa.name, wa.variant));
      continue;
    }
    WorkloadComparison w;
    w.name = wa.name;
    w.variant = wa.variant;
    w.definitions_differ = wa.params_hash != wb->params_hash;
    if (w.definitions_differ) {
      w.definition_changes = store::definition_differences(wa.params_json, wb->params_json,
                                                           fmt::format("run {}", a.run_id),
                                                           fmt::format("run {}", b.run_id));
    }
    for (const auto& [run, samples] : {std::pair{a.run_id, &wa}, std::pair{b.run_id, wb}}) {
      if (samples->status == "ok") continue;
      std::string note = fmt::format("{} in run {}", samples->status, run);
      // A stored reason may start with its kind already ("not_configured: worker 'h2load':
      // ...", as the JSON report and the store keep it): the note says it once.
      std::string_view why = samples->error;
      if (const std::string kind = samples->status + ": "; why.starts_with(kind)) {
        why.remove_prefix(kind.size());
      }
      if (!why.empty()) note += ": " + std::string(why);
      w.notes.push_back(std::move(note));
    }
    for (std::string_view metric : kCompareMetrics) {
      w.metrics.push_back(compare_metric(metric, a, wa, b, *wb, alpha, confidence));
    }
    c.workloads.push_back(std::move(w));
  }
  for (const WorkloadSamples& wb : b.workloads) {
    if (find(a, wb) == nullptr) c.only_in_b.push_back(workload_label(wb.name, wb.variant));
  }
  return c;
}

std::string render_comparison(const RunComparison& c) {
  std::string out = fmt::format(
      "run {0} (old) against run {1} (new)\n"
      "  RUN {0}, RUN {1}: each run's figures, as its RESULT lines, reports and gates give them\n"
      "    (throughput: the median of the repetitions; latency: the histogram of every\n"
      "    repetition merged; errors: summed)\n"
      "  CHANGE: run {1}'s figure against run {0}'s; \"~\" before it: the repetitions show no\n"
      "    significant difference at alpha {3:g} (or one the other way, which a note names)\n"
      "  {2:g}% INTERVAL, P, N: over the repetitions' own values: the interval of the change of\n"
      "    their medians, the two-sided Mann-Whitney p, the repetitions of each run\n",
      c.run_a, c.run_b, c.confidence * 100, c.alpha);
  for (const std::string& note : run_notes(c)) out += "note: " + note + "\n";
  for (const WorkloadComparison& w : c.workloads) out += workload_section(c, w);
  if (c.workloads.empty()) out += "\nno workload is present in both runs\n";
  if (!c.only_in_a.empty() || !c.only_in_b.empty()) out += "\n";
  for (const std::string& name : c.only_in_a) {
    out += fmt::format("only in run {}: workload {}\n", c.run_a, name);
  }
  for (const std::string& name : c.only_in_b) {
    out += fmt::format("only in run {}: workload {}\n", c.run_b, name);
  }
  return out;
}

namespace {

nlohmann::json number_or_null(std::optional<double> v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json metric_json(const MetricComparison& m) {
  std::optional<double> change;
  if (m.figure_a && m.figure_b) change = gates::relative_change(*m.figure_a, *m.figure_b);
  nlohmann::json j = {{"metric", m.metric},
                      {"figure_a", number_or_null(m.figure_a)},
                      {"figure_b", number_or_null(m.figure_b)},
                      {"change", number_or_null(change)},
                      {"missing_in", m.missing_in}};
  if (!m.stats) {
    j["significant"] = nullptr;
    j["change_low"] = nullptr;
    j["change_high"] = nullptr;
    j["p_value"] = nullptr;
    j["n_a"] = 0;
    j["n_b"] = 0;
    return j;
  }
  const gates::SampleComparison& s = *m.stats;
  // What the text marks without "~": significant, and the same way as the figures.
  j["significant"] = s.significant && !directions_disagree(m);
  j["change_low"] = s.interval_bounded ? number_or_null(s.change_low) : nlohmann::json(nullptr);
  j["change_high"] = s.interval_bounded ? number_or_null(s.change_high) : nlohmann::json(nullptr);
  j["p_value"] = s.p_value;
  j["n_a"] = m.n_a;
  j["n_b"] = m.n_b;
  return j;
}

}  // namespace

std::string render_comparison_json(const RunComparison& c) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const WorkloadComparison& w : c.workloads) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricComparison& m : w.metrics) metrics.push_back(metric_json(m));
    workloads.push_back({{"name", w.name},
                         {"variant", w.variant},
                         {"definitions_differ", w.definitions_differ},
                         {"definition_changes", w.definition_changes},
                         {"notes", workload_notes(c, w)},
                         {"metrics", std::move(metrics)}});
  }
  nlohmann::json doc = {{"run_a",
                         {{"id", c.run_a},
                          {"scenario", c.scenario_a},
                          {"status", c.status_a},
                          {"testbed_host", c.host_a},
                          {"commit", c.commit_a},
                          {"binaries", store::binaries_json(c.binaries_a)}}},
                        {"run_b",
                         {{"id", c.run_b},
                          {"scenario", c.scenario_b},
                          {"status", c.status_b},
                          {"testbed_host", c.host_b},
                          {"commit", c.commit_b},
                          {"binaries", store::binaries_json(c.binaries_b)}}},
                        {"alpha", c.alpha},
                        {"confidence", c.confidence},
                        {"testbeds_differ", c.testbeds_differ},
                        {"notes", run_notes(c)},
                        {"workloads", std::move(workloads)},
                        {"only_in_a", c.only_in_a},
                        {"only_in_b", c.only_in_b}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace benchgate::history
