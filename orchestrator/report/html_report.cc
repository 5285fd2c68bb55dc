// Rendering the HTML report (html_report.h). Figures come from the same functions as the
// terminal and JSON reports: results::Repetition / WorkloadResult, analysis.h, the stored
// gate records; nothing here defines a figure of its own except what a chart samples.
#include "orchestrator/report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "common/command_line/version.h"
#include "common/units/units.h"
#include "common/util/text_lines.h"
#include "orchestrator/engine/timeline.h"
#include "orchestrator/gates/effect_interval.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/statistics.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/history/run_detail.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/latency_text.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/report/summary_row.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/report/workload_shape.h"
#include "orchestrator/report/workload_title.h"
#include "orchestrator/store/binary_identity.h"

namespace benchgate::report {
namespace {

std::string joined(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string title_of(const results::WorkloadResult& w) {
  return workload_title(w.spec.name, w.variant);
}

std::string anchor(const std::string& text) {
  std::string out = "w-";
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

const char* kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; color: #111; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h3 { font-size: 1.1em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: 0.4em 0 0.8em; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; vertical-align: top; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
.verdict-pass { color: #006d2c; font-weight: bold; }
.verdict-fail, .verdict-error { color: #b30000; font-weight: bold; }
.verdict-inconclusive, .verdict-no_baseline { color: #8a5a00; font-weight: bold; }
.note { color: #555; }
td.ci span.why { display: block; color: #555; font-size: 0.85em; text-align: left; max-width: 16em; }
.flag { color: #8a5a00; }
p.flag { overflow-wrap: anywhere; white-space: pre-wrap; }
td.explanation { white-space: pre-wrap; overflow-wrap: anywhere; }
.workload { break-inside: avoid-page; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 0.3em 0; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #222; }
svg.chart text.title { font-weight: bold; font-size: 12px; }
svg.chart rect.frame { fill: none; stroke: #999; }
svg.chart rect.band { fill: #eef3fb; }
svg.chart text.band { fill: #667; }
svg.chart line.grid { stroke: #e4e4e4; }
svg.chart polyline.series, svg.chart .legend line { fill: none; stroke-width: 1.8; }
svg.chart .faint { stroke-width: 1; stroke-opacity: 0.35; }
svg.chart .dashed { stroke-dasharray: 6 3; }
svg.chart line.fit { stroke: #555; stroke-width: 1.2; stroke-dasharray: 2 2; }
svg.chart rect.marked { fill: #d55e00; }
svg.chart line.marker { stroke: #cc79a7; stroke-width: 1.5; stroke-dasharray: 4 2; }
svg.chart text.marker { fill: #8b3a6b; }
@media print { body { max-width: none; margin: 0; } h2 { break-after: avoid; } a { color: inherit; text-decoration: none; } }
)css";

std::string figures_table(const results::WorkloadResult& w) {
  std::string out =
      "<table class=\"figures\"><tr><th class=\"text\"></th><th>ops/s</th><th>MB/s</th>"
      "<th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>errors</th>"
      "<th>router/op</th><th class=\"text\">flags</th></tr>\n";
  auto row = [&](const std::string& name, const std::string& ops, const std::string& mb, auto&& at,
                 const std::string& errors, const std::string& router_per_op,
                 const std::vector<std::string>& flags) {
    out += fmt::format(
        "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td></tr>\n",
        escape(name), ops, mb, latency_text(at(50)), latency_text(at(90)), latency_text(at(99)),
        latency_text(at(99.9)), latency_text(at(100)), errors, router_per_op,
        escape(joined(flags)));
  };
  for (const auto& rep : w.repetitions) {
    // As the terminal's column: the router's CPU time per request of the window, "-" when its
    // CPU was not measured.
    const auto per_request = rep.router_cpu_per_request();
    row(
        fmt::format("rep {}", rep.index + 1), rate_text(rep.ops_per_second()),
        rep.measured("bytes_received") ? format_megabytes_per_second(rep.bytes_per_second()) : "-",
        [&](double p) { return rep.latency_at(p); }, results::count_text(rep.error_count()),
        per_request ? format_duration_ns(*per_request * 1e9) : "-",
        results::ordered_flags(rep.flags));
    // An open-loop repetition's diagnostics under its row, as the terminal prints them.
    if (w.spec.rate > 0) {
      out += fmt::format(
          "<tr class=\"open-loop\"><td class=\"text\"></td><td colspan=\"10\" "
          "class=\"text\">{}</td></tr>\n",
          escape(open_loop_text(rep)));
    }
  }
  if (!w.repetitions.empty()) {
    row(
        kSummaryRowLabel, summary_row_ops(w),
        w.measured("bytes_received") ? format_megabytes_per_second(w.bytes_per_second().median)
                                     : "-",
        [&](double p) { return w.latency_at(p); }, results::count_text(w.error_count()), "",
        w.flags());
    // What each of its figures is, under it, as the terminal writes it.
    out += fmt::format(
        "<tr class=\"summary-definition\"><td class=\"text\"></td><td colspan=\"10\" "
        "class=\"text\">{}</td></tr>\n",
        escape(
            summary_row_definition(w.repetitions.size(), summary_row_ops_range(w),
                                   w.latency.total_count() > 0 ? std::string() : w.latency_tool(),
                                   summary_row_no_latency(w))));
  }
  return out + "</table>\n";
}

svg::Axis latency_axis(const std::string& label) {
  svg::Axis a;
  a.label = label;
  a.log = true;
  a.format = [](double ns) { return format_duration_ns(ns); };
  return a;
}

std::string spectrum_chart(const results::WorkloadResult& w, const BaselineSpectrum* baseline) {
  svg::Chart chart;
  chart.kind = "spectrum";
  chart.title = "percentile spectrum: " + title_of(w);
  chart.x.label = "percentile (axis: log10 of 1 / (1 - p))";
  chart.x.min = 0;
  chart.x.max = 5;
  chart.x.ticks = {{0, "0"}, {1, "90"}, {2, "99"}, {3, "99.9"}, {4, "99.99"}, {5, "99.999"}};
  chart.y = latency_axis("latency");
  for (const auto& rep : w.repetitions) {
    if (rep.latency.total_count() == 0) continue;
    chart.series.push_back(svg::Series{fmt::format("rep {}", rep.index + 1), svg::Style::kFaintLine,
                                       0, spectrum_curve(rep.latency), "each repetition"});
  }
  chart.series.push_back(svg::Series{
      "this run (repetitions merged)", svg::Style::kLine, 0, spectrum_curve(w.latency), {}});
  if (baseline) {
    std::vector<std::string> ids;
    for (int64_t id : baseline->run_ids) ids.push_back(std::to_string(id));
    chart.series.push_back(
        svg::Series{fmt::format("baseline {} (runs {})", baseline->name, joined(ids, ",")),
                    svg::Style::kDashed,
                    1,
                    spectrum_curve(baseline->merged),
                    {}});
  }
  return svg::render(chart);
}

std::vector<svg::Point> decimated(std::vector<svg::Point> points) {
  return svg::decimate_min_max(points, svg::kPlotWidth);
}

std::string timeline_charts_of(const results::WorkloadResult& w) {
  const auto points = timeline(w);
  if (points.empty()) {
    // The workers report progress every 500 ms: a shorter window ends before its first report,
    // which is why it has no point, whatever the schema.
    bool short_windows = !w.repetitions.empty();
    for (const auto& rep : w.repetitions) {
      short_windows = short_windows && rep.duration_ns < engine::kProgressIntervalNs;
    }
    if (short_windows) {
      return fmt::format(
          "<p class=\"note\">Timeline: none (every window was shorter than the {} ms interval "
          "at which the workers report progress, so none has a point).</p>\n",
          engine::kProgressIntervalNs / 1'000'000);
    }
    return "<p class=\"note\">Timeline: not stored (the run was stored before schema version 7, "
           "or the workers sent no progress).</p>\n";
  }
  std::vector<std::pair<std::pair<double, double>, std::string>> bands;
  const int64_t first = w.repetitions.front().start_unix_ns;
  for (const auto& rep : w.repetitions) {
    const double a = static_cast<double>(rep.start_unix_ns - first) / 1e9;
    bands.push_back({{a, a + static_cast<double>(rep.duration_ns) / 1e9},
                     fmt::format("rep {}", rep.index + 1)});
  }
  // One polyline per repetition and figure, so the gaps between windows are not drawn over.
  auto per_rep = [&](auto&& value, const std::string& name, svg::Style style, int colour,
                     svg::Chart& chart) {
    for (const auto& rep : w.repetitions) {
      std::vector<svg::Point> series;
      for (const auto& p : points) {
        if (p.repetition != rep.index) continue;
        if (auto v = value(p)) series.push_back({p.t_s, *v});
      }
      chart.series.push_back(svg::Series{fmt::format("{} (rep {})", name, rep.index + 1), style,
                                         colour, decimated(std::move(series)), name});
    }
  };
  svg::Chart ops;
  ops.kind = "throughput";
  ops.title = "ops/s per second: " + title_of(w);
  ops.x.label = "seconds since the first repetition started";
  ops.y.label = "ops/s";
  ops.bands = bands;
  per_rep([](const TimelinePoint& p) { return std::optional<double>(p.ops_per_second); }, "ops/s",
          svg::Style::kLine, 0, ops);
  svg::Chart lat;
  lat.kind = "latency";
  lat.title = "latency per second: " + title_of(w);
  lat.x.label = ops.x.label;
  lat.y = latency_axis("latency");
  lat.bands = bands;
  auto as_double = [](std::optional<int64_t> v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  per_rep([&](const TimelinePoint& p) { return as_double(p.p50_ns); }, "p50", svg::Style::kLine, 2,
          lat);
  per_rep([&](const TimelinePoint& p) { return as_double(p.p99_ns); }, "p99", svg::Style::kLine, 0,
          lat);
  per_rep([&](const TimelinePoint& p) { return as_double(p.max_ns); }, "max", svg::Style::kDashed,
          1, lat);
  svg::Chart errors;
  errors.kind = "errors";
  errors.title = "errors per second: " + title_of(w);
  errors.x.label = ops.x.label;
  errors.y.label = "errors";
  errors.bands = bands;
  per_rep(
      [](const TimelinePoint& p) { return std::optional<double>(static_cast<double>(p.errors)); },
      "errors", svg::Style::kLine, 1, errors);
  return svg::render(ops) + svg::render(lat) + svg::render(errors);
}

std::string workers_table(const results::WorkloadResult& w) {
  bool any = false;
  for (const auto& rep : w.repetitions) any = any || !rep.workers.empty();
  if (!any) {
    return "<p class=\"note\">Per worker: not stored (the run was stored before schema version "
           "4).</p>\n";
  }
  std::string out =
      "<table class=\"workers\"><tr><th class=\"text\">repetition</th><th>worker</th>"
      "<th class=\"text\">host</th><th>ops/s</th><th>share</th><th>p50</th><th>p99</th>"
      "<th>max</th><th>errors</th><th>CPU</th><th>clock offset</th><th>RTT</th>"
      "<th>start skew</th></tr>\n";
  // Clock figures not measured (a worker that does not answer the exchange) are "-"; the
  // offset signed, as the terminal's per-worker table writes it (signed_latency_text).
  for (const auto& rep : w.repetitions) {
    double total = 0;
    for (const auto& s : rep.workers) total += s.ops_per_second;
    // A worker's latency as every report's per-worker table gives it
    // (Repetition::worker_latency_at: a tool's figures for the only worker that wraps one).
    for (size_t i = 0; i < rep.workers.size(); ++i) {
      const results::WorkerShare& s = rep.workers[i];
      out += fmt::format(
          "<tr><td class=\"text\">rep {}</td><td>{}</td><td class=\"text\">{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td></tr>\n",
          rep.index + 1, s.worker, escape(s.host.empty() ? "-" : s.host),
          rate_text(s.ops_per_second),
          total > 0 ? fmt::format("{:.1f}%", 100 * s.ops_per_second / total) : "-",
          latency_text(rep.worker_latency_at(i, 50)), latency_text(rep.worker_latency_at(i, 99)),
          latency_text(rep.worker_latency_at(i, 100)), s.errors,
          s.cpu_utilization ? fmt::format("{:.0f}%", 100 * *s.cpu_utilization) : "-",
          signed_latency_text(s.clock_offset_ns), latency_text(s.rtt_ns),
          signed_latency_text(s.start_skew_ns));
    }
    if (rep.start_spread_ns) {
      out += fmt::format(
          "<tr><td class=\"text\">rep {}</td><td colspan=\"12\" class=\"text\">start spread {} "
          "(bound {})</td></tr>\n",
          rep.index + 1, latency_text(rep.start_spread_ns),
          latency_text(std::optional<int64_t>(w.spec.max_start_skew_ns)));
    }
  }
  return out + "</table>\n";
}

// Why a workload has no percentile spectrum: a tool that prints figures, not a histogram (wrk,
// h2load), or no repetition that completed a success (latency is of successes only, so the
// bundled worker's histograms are empty).
std::string no_spectrum_reason(const results::WorkloadResult& w) {
  if (const std::string tool = w.latency_tool(); !tool.empty()) {
    return "Spectrum: none (" + tool + " printed latency figures only, no histogram).";
  }
  const bool successes = std::any_of(w.repetitions.begin(), w.repetitions.end(),
                                     [](const auto& rep) { return rep.has_latency_to_measure(); });
  if (!successes) {
    return "Spectrum: none (no repetition completed a success, and latency is of successes "
           "only).";
  }
  return "Spectrum: none (the workers sent no latency histogram).";
}

std::string workload_section(const results::WorkloadResult& w, const HtmlRun& run) {
  const std::string title = title_of(w);
  std::string out = fmt::format("<section class=\"workload\" id=\"{}\">\n<h3>{}</h3>\n",
                                escape(anchor(title)), escape(title));
  // What it sends and how much at once as the terminal's header writes it (workload_load:
  // HTTP/2's streams, wamp_pubsub's publishers and subscribers), after the protocol, which a
  // WAMP workload's load names itself.
  out += fmt::format("<p>{}{} &#183; {} &#183; {} &#183; status <b>{}</b></p>\n",
                     scenario::is_http(w.spec.protocol)
                         ? std::string(scenario::to_string(w.spec.protocol)) + " &#183; "
                         : std::string(),
                     escape(workload_load(w.spec)), escape(workers_text(w.spec, w.worker_threads)),
                     escape(load_model_text(w.spec)), results::status_name(w.status));
  if (!w.load_from.empty()) {
    out += fmt::format("<p>load from <b>{}</b>{}</p>\n", escape(w.load_from),
                       w.load_from == "local" ? " (every worker on this machine)" : "");
  }
  if (!w.error.empty()) out += fmt::format("<p class=\"flag\">{}</p>\n", escape(w.error));
  if (w.repetitions.empty())
    return out + "<p class=\"note\">No repetition measured.</p>\n</section>\n";
  out += figures_table(w);
  if (const std::string counts = counts_text(w); !counts.empty()) {
    out += fmt::format("<p class=\"counts\">{}</p>\n", escape(counts));
  }
  // The terminal's lines under its table (terminal_report.h), one paragraph each: what the
  // workers could not measure (a tool's error kinds and latency figures), so that a 0 or "-" in
  // the table never stands alone; TLS, streams and connection setup; WAMP sessions; the
  // callees' split. The stored run holds their figures (stored_run.h: the setup histograms and
  // callees from schema version 21; the lines of a run stored before say what it did not keep).
  const std::string not_measured =
      not_measured_lines(w) + connection_lines(w) + session_setup_line(w) + callee_line(w);
  for (const std::string& line : unindented_lines(not_measured)) {
    out += fmt::format("<p class=\"detail\">{}</p>\n", escape(line));
  }
  const auto flags = w.flags();
  if (!flags.empty()) {
    out += "<ul class=\"flags\">";
    for (const auto& f : flags) {
      out += fmt::format("<li class=\"flag\"><b>{}</b>: {}</li>", escape(f), escape(flag_text(f)));
    }
    out += "</ul>\n";
  }
  if (const std::string kinds = errors_by_kind_text(w); !kinds.empty()) {
    out += fmt::format("<p class=\"errors\">{}</p>\n", escape(kinds));
  }
  // Why the router ended sessions, as the terminal says under its errors by kind (stored from
  // schema version 22).
  for (const std::string& line : unindented_lines(sessions_ended_lines(w))) {
    out += fmt::format("<p class=\"detail\">{}</p>\n", escape(line));
  }
  if (w.latency.total_count() > 0) {
    auto it = run.spectra.find({w.spec.name, w.variant});
    out += spectrum_chart(w, it == run.spectra.end() ? nullptr : &it->second);
    if (!run.baseline.empty() && it == run.spectra.end()) {
      out += fmt::format(
          "<p class=\"note\">Baseline '{}' has no run of this workload on this "
          "testbed: no baseline curve.</p>\n",
          escape(run.baseline));
    }
  } else {
    out += "<p class=\"note\">" + escape(no_spectrum_reason(w)) + "</p>\n";
  }
  out += timeline_charts_of(w);
  out += workers_table(w);
  return out + "</section>\n";
}

// The effect's interval in the effect's own units (d, log space), or "-" with the reason.
std::string interval_cell(const store::GateRecord& g) {
  if (g.effect_low && g.effect_high) {
    return escape(fmt::format("[{:+.4f}, {:+.4f}]", *g.effect_low, *g.effect_high)) +
           (g.effect_confidence ? fmt::format(" ({:.0f}%)", 100 * *g.effect_confidence) : "");
  }
  std::string why(gates::why_no_interval(g.method, g.p_value.has_value()));
  if (why.empty()) why = "not stored: evaluated before schema version 12";
  return "-<span class=\"why\"> " + escape(why) + "</span>";
}

// The note under the gate table: what the interval of each method in the table is
// (docs/REPORTS.md, "Gates"), then how the p-value reads.
std::string interval_note(const std::vector<store::GateRecord>& gates) {
  bool t = false, paired_t = false, signed_rank = false;
  for (const auto& g : gates) {
    t = t || g.method == "t-test" || g.method == "nested-t" || g.method == "calibrated-t";
    paired_t = paired_t || g.method == "paired-t";
    signed_rank = signed_rank || g.method == "paired-signed-rank";
  }
  std::string note;
  if (t) {
    note +=
        "The interval of a relative gate's effect d (t-test, nested-t, calibrated-t) comes from "
        "the standard error and degrees of freedom its t-test used, two-sided at 1 - 2 alpha: it "
        "lies above 0 exactly when the p-value before Holm's correction is below alpha. ";
  }
  if (paired_t) {
    note +=
        "A paired-t gate's interval is d +- t(1 - alpha, n - 1) * s / sqrt(n) over the log "
        "ratios of its n pairs, two-sided at 1 - 2 alpha: it lies above 0 exactly when the "
        "p-value before Holm's correction is below alpha. ";
  }
  if (signed_rank) {
    note +=
        "A paired-signed-rank gate's interval is the distribution-free one of its "
        "Hodges-Lehmann effect, from the Walsh averages of its pairs' log ratios, at the "
        "confidence it achieves (at least 1 - 2 alpha, printed beside it): its lower end lies "
        "above 0 when the p-value before Holm's correction is at most alpha (exactly so without "
        "ties and zeros). ";
  }
  return note + "The p-value is Holm-adjusted across the run's gates.";
}

std::string gates_section(const HtmlRun& run) {
  if (run.gates.empty()) return "<h2>Gates</h2>\n<p class=\"note\">No gate evaluated.</p>\n";
  std::string out =
      "<h2>Gates</h2>\n<table class=\"gates\"><tr><th class=\"text\">verdict</th>"
      "<th class=\"text\">severity</th><th class=\"text\">workload</th><th "
      "class=\"text\">metric</th><th>observed</th><th>threshold</th><th>effect</th><th>CI of "
      "the effect</th><th>p-value</th><th class=\"text\">method</th><th "
      "class=\"text\">explanation</th></tr>\n";
  for (const auto& g : run.gates) {
    const std::string workload = workload_title(g.workload, g.variant);
    std::string effect = "-";
    if (g.effect) {
      // Relative and change gates store d in log space (positive is worse); absolute gates the
      // distance beyond the bound in the metric's unit (docs/GATES.md).
      if (g.kind == "relative" || g.kind == "change") {
        effect = fmt::format("d = {:+.4f} (log)", *g.effect);
      } else if (*g.effect == 0) {
        effect = "at the bound";
      } else {
        // The distance in the metric's unit (three digits: 101us against a 1s max is "1.00s
        // inside"), so also the observed figure as a share of the bound, which tells them apart.
        effect = history::format_gate_value(g.metric, std::abs(*g.effect)) +
                 (*g.effect > 0 ? " beyond the bound" : " inside the bound");
        if (g.observed && g.threshold && *g.threshold != 0) {
          // A plain number as the tables write one (format_rate: whole from 10 on, three
          // significant digits under it): "2290%", "0.0101%", never "2.29e+03%".
          effect += " (observed " + format_rate(100 * *g.observed / *g.threshold) + "% of it)";
        }
      }
    }
    out += fmt::format(
        "<tr><td class=\"text verdict-{0}\">{11}</td><td class=\"text\">{1}</td><td "
        "class=\"text\">{2}</td><td class=\"text\">{3}</td><td>{4}</td><td>{5}</td><td>{6}</td>"
        "<td class=\"ci\">{7}</td><td>{8}</td><td class=\"text\">{9}</td><td "
        "class=\"text explanation\">{10}</td></tr>\n",
        escape(g.verdict), escape(g.severity), escape(workload), escape(g.metric),
        escape(history::format_gate_value(g.metric, g.observed)),
        escape(history::format_gate_value(g.metric, g.threshold)), escape(effect), interval_cell(g),
        g.p_value ? fmt::format("{:.3g}", *g.p_value) : "-", escape(g.method),
        escape(g.explanation),
        escape(gates::verdict_text(g.verdict, g.underpowered.value_or(false),
                                   g.confirmation.value_or(""))));
  }
  out += "</table>\n<p class=\"note\">" + escape(interval_note(run.gates)) + "</p>\n";
  return out;
}

const results::WorkloadResult* find_workload(const engine::ScenarioResult& result,
                                             const std::string& name, const std::string& variant) {
  for (const auto& w : result.workloads) {
    if (w.spec.name == name && w.variant == variant) return &w;
  }
  return nullptr;
}

// A comparison's repetitions in the order they ran, each pair (repetition i of both variants,
// adjacent in time) joined, so the alternation (A B, B A, ...) shows; then each pair's ratio
// with the ratio of the medians and its interval (analysis.h, the figures of the table).
std::string pairs_charts(const engine::ScenarioResult& result, const VariantComparison& c) {
  const auto* a = find_workload(result, c.workload, c.baseline);
  const auto* b = find_workload(result, c.workload, c.variant);
  if (!a || !b || a->repetitions.empty() || b->repetitions.empty()) return "";
  int64_t first = a->repetitions.front().start_unix_ns;
  for (const auto* w : {a, b}) {
    for (const auto& rep : w->repetitions) first = std::min(first, rep.start_unix_ns);
  }
  auto at = [&](const results::Repetition& rep) {
    return static_cast<double>(rep.start_unix_ns - first) / 1e9;
  };
  svg::Chart pairs;
  pairs.kind = "pairs";
  pairs.title =
      fmt::format("{}: {} and {} in the order they ran", c.workload, c.baseline, c.variant);
  pairs.x.label = "seconds since the first repetition started (each at its start)";
  pairs.y.label = "ops/s";
  svg::Series sa{c.baseline, svg::Style::kPoints, 0, {}, ""};
  svg::Series sb{c.variant, svg::Style::kPoints, 1, {}, ""};
  for (const auto& rep : a->repetitions) sa.points.push_back({at(rep), rep.ops_per_second()});
  for (const auto& rep : b->repetitions) sb.points.push_back({at(rep), rep.ops_per_second()});
  const size_t n = std::min(a->repetitions.size(), b->repetitions.size());
  svg::Chart ratios;
  ratios.kind = "ratio";
  ratios.title = fmt::format("{}: {} / {} per pair", c.workload, c.variant, c.baseline);
  ratios.x.label = "pair";
  ratios.x.integer = true;
  ratios.x.min = 0.5;
  ratios.x.max = static_cast<double>(n) + 0.5;
  ratios.y.label = "ops/s ratio";
  svg::Series per_pair{"ratio of each pair", svg::Style::kPoints, 1, {}, ""};
  for (size_t i = 0; i < n; ++i) {
    const auto& ra = a->repetitions[i];
    const auto& rb = b->repetitions[i];
    const bool a_first = ra.start_unix_ns <= rb.start_unix_ns;
    svg::Series link{fmt::format("pair {}: {} then {}", i + 1, a_first ? c.baseline : c.variant,
                                 a_first ? c.variant : c.baseline),
                     svg::Style::kLine,
                     6,
                     {},
                     "pair (adjacent in time)"};
    const svg::Point pa{at(ra), ra.ops_per_second()};
    const svg::Point pb{at(rb), rb.ops_per_second()};
    link.points = a_first ? std::vector<svg::Point>{pa, pb} : std::vector<svg::Point>{pb, pa};
    pairs.series.push_back(std::move(link));
    if (ra.ops_per_second() > 0) {
      per_pair.points.push_back(
          {static_cast<double>(i + 1), rb.ops_per_second() / ra.ops_per_second()});
    }
  }
  pairs.series.push_back(std::move(sa));
  pairs.series.push_back(std::move(sb));
  ratios.series.push_back(std::move(per_pair));
  const double x0 = 0.5;
  const double x1 = static_cast<double>(n) + 0.5;
  if (c.ratio) {
    ratios.lines.push_back(
        {x0, *c.ratio, x1, *c.ratio, fmt::format("median / median {:.3f}", *c.ratio)});
  }
  if (c.ci_low && c.ci_high) {
    ratios.lines.push_back({x0, *c.ci_low, x1, *c.ci_low, fmt::format("95% CI {:.3f}", *c.ci_low)});
    ratios.lines.push_back({x0, *c.ci_high, x1, *c.ci_high, fmt::format("to {:.3f}", *c.ci_high)});
  }
  return svg::render(pairs) + svg::render(ratios);
}

std::string comparisons_section(const engine::ScenarioResult& result) {
  const auto cs = comparisons(result);
  if (cs.empty()) return "";
  std::string out =
      "<h2>Comparisons</h2>\n<table class=\"comparisons\"><tr><th class=\"text\">workload</th>"
      "<th class=\"text\">variant / baseline</th><th>ratio</th><th>95% CI</th><th>pairs "
      "min-max</th><th>variant ops/s</th><th>baseline ops/s</th><th "
      "class=\"text\">status</th></tr>\n";
  for (const auto& c : cs) {
    const ComparisonText t = comparison_text(c);
    out += fmt::format(
        "<tr><td class=\"text\">{}</td><td class=\"text\">{} / {}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td></tr>\n",
        escape(c.workload), escape(c.variant), escape(c.baseline), t.ratio, t.interval, t.pairs,
        t.variant_rps, t.baseline_rps, escape(c.status));
  }
  out += "</table>\n";
  for (const auto& c : cs) {
    if (c.status == "ok") out += pairs_charts(result, c);
  }
  return out;
}

std::string sweeps_section(const engine::ScenarioResult& result) {
  const auto ss = sweeps(result);
  if (ss.empty()) return "";
  std::string out = "<h2>Sweeps</h2>\n";
  for (const auto& s : ss) {
    svg::Chart chart;
    chart.kind = "sweep";
    chart.title = fmt::format("sweep {} [{}]: p50 against {}", s.workload, s.variant,
                              sweep_axis(s.parameter));
    chart.x.label = sweep_axis(s.parameter);
    chart.y.label = "p50 (us)";
    svg::Series points{"measured p50", svg::Style::kPoints, 0, {}, {}};
    for (size_t i = 0; i < s.n.size(); ++i) points.points.push_back({s.n[i], s.cost_us[i]});
    chart.series.push_back(std::move(points));
    if (s.fit && !s.n.empty()) {
      const auto [lo, hi] = std::minmax_element(s.n.begin(), s.n.end());
      chart.lines.push_back(
          {*lo, s.fit->a + s.fit->b * *lo, *hi, s.fit->a + s.fit->b * *hi,
           fmt::format("fit {:.4g} + {:.4g} n (R^2 {:.3f})", s.fit->a, s.fit->b, s.fit->r2)});
    }
    out += svg::render(chart);
    out += fmt::format("<p>{}</p>\n",
                       s.growth ? escape("growth exponent " + sweep_text(s).exponent +
                                         ", worst pair " + sweep_text(s).worst)
                                : std::string("fewer than two measured points: no growth class"));
    if (!s.left_out.empty()) {
      out += fmt::format("<p>{}</p>\n", escape("left out of the fit: " + left_out_text(s)));
    }
  }
  return out;
}

std::string history_section(const HtmlRun& run) {
  if (run.history.empty()) return "";
  std::string out = "<h2>History of the gated metrics on this testbed</h2>\n";
  for (const auto& h : run.history) out += history_chart(h, run.baseline);
  return out;
}

std::string header_section(const HtmlRun& run) {
  const store::RunSummary& r = run.run;
  const store::Testbed& t = run.testbed;
  const auto took = history::run_took(r.status, r.started_at_ns, r.finished_at_ns);
  std::string out = fmt::format(
      "<h1>{} &#8212; run {}</h1>\n<p>status <b>{}</b>{} &#183; started {}{}</p>\n",
      escape(r.scenario), r.id, escape(r.status),
      r.exit_code ? fmt::format(" (exit {})", *r.exit_code) : "",
      escape(history::format_local_time(r.started_at_ns)), took ? escape(" · took " + *took) : "");
  if (!r.error.empty()) out += fmt::format("<p class=\"flag\">{}</p>\n", escape(r.error));
  out += "<table class=\"testbed\">";
  auto row = [&](const std::string& key, const std::string& value) {
    out += fmt::format("<tr><th class=\"text\">{}</th><td class=\"text\">{}</td></tr>", escape(key),
                       escape(value));
  };
  row("commit", history::or_dash(r.commit));
  row("branch", history::or_dash(r.branch));
  row("labels", history::format_labels(r.labels));
  row("testbed", std::to_string(r.testbed_id));
  row("host", history::or_dash(t.host));
  row("cpu", fmt::format("{} ({} cores)", history::or_dash(t.cpu_model), t.cores));
  row("kernel", history::or_dash(t.kernel));
  row("governor", history::or_dash(t.governor));
  row("compiler", history::or_dash(t.compiler));
  row("build flags", history::or_dash(t.build_flags));
  // Which files were measured (docs/MEASUREMENT.md, "Measured binaries"): "PATH (build-id HEX,
  // from --router-bin)" under its role.
  for (const store::MeasuredBinary& b : run.binaries) {
    row(b.role, store::binary_line(b).substr(b.role.size() + 2));
  }
  if (run.binaries.empty()) row("binaries", "not recorded");
  // Who the workers said they were: their Describe answers (schema version 22).
  for (const std::string& line : described_workers(run.result.workloads)) row("workers", line);
  row("baseline drawn", run.baseline.empty() ? "-" : run.baseline);
  out += "</table>\n";
  return out;
}

std::string run_section(const HtmlRun& run) {
  std::string out = fmt::format("<article class=\"run\" data-run=\"{}\">\n", run.run.id);
  out += header_section(run);
  out += gates_section(run);
  out += "<h2>Workloads</h2>\n<ul class=\"toc\">";
  for (const auto& w : run.result.workloads) {
    const std::string title = title_of(w);
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>", escape(anchor(title)), escape(title));
  }
  out += "</ul>\n";
  for (const auto& w : run.result.workloads) out += workload_section(w, run);
  out += comparisons_section(run.result);
  out += sweeps_section(run.result);
  out += history_section(run);
  return out + "</article>\n";
}

}  // namespace

std::string history_chart(const MetricHistory& h, const std::string& baseline) {
  const gates::MetricInfo* info = gates::find_metric(h.metric);
  const std::string title = workload_title(h.workload, h.variant) + " " + h.metric;
  if (h.runs.empty())
    return fmt::format("<p class=\"note\">{}: no stored history.</p>\n", escape(title));
  svg::Chart chart;
  chart.kind = "history";
  chart.title = fmt::format("{}: last {} runs (each run's figure, as its report shows it)", title,
                            h.runs.size());
  chart.x.label = "run id";
  chart.x.integer = true;
  chart.y.label = h.metric;
  if (info && info->unit == gates::UnitKind::kSeconds) {
    chart.y.format = [](double s) { return format_duration_ns(s * 1e9); };
  }
  svg::Series runs{"run", svg::Style::kPoints, 0, {}, ""};
  std::vector<svg::Point> line;
  size_t marked = 0;
  for (auto it = h.runs.rbegin(); it != h.runs.rend(); ++it) {
    // The run's own figure (for latency the merged histogram's percentile), the one every
    // other output and the change points show, not a median of its repetitions' values.
    const double figure = it->figure;
    const bool in_baseline = baseline.empty()
                                 ? !it->baselines.empty()
                                 : std::find(it->baselines.begin(), it->baselines.end(),
                                             baseline) != it->baselines.end();
    marked += in_baseline;
    runs.points.push_back({static_cast<double>(it->run_id), figure, in_baseline});
    line.push_back({static_cast<double>(it->run_id), figure});
  }
  chart.series.push_back(svg::Series{"figure", svg::Style::kLine, 5, std::move(line), ""});
  // A change point lies between the last run before it and the first after; drawn when the
  // first run after it is in the window of runs shown.
  const int64_t oldest = h.runs.back().run_id;
  const int64_t newest = h.runs.front().run_id;
  for (const auto& c : h.changes) {
    if (c.run_id <= oldest || c.run_id > newest) continue;
    chart.markers.push_back(
        {static_cast<double>(c.previous_run_id + c.run_id) / 2,
         c.change ? fmt::format("change {:+.1f}% at run {}", 100 * *c.change, c.run_id)
                  : fmt::format("change at run {}", c.run_id)});
  }
  runs.name =
      fmt::format("runs (squares: {} in baseline {})", marked, baseline.empty() ? "any" : baseline);
  chart.series.push_back(std::move(runs));
  return svg::render(chart);
}

std::string timeline_charts(const results::WorkloadResult& workload) {
  return timeline_charts_of(workload);
}

std::vector<double> spectrum_percentiles() {
  std::vector<double> out;
  for (int i = 0; i <= 100; ++i) out.push_back(100 * (1 - std::pow(10, -0.05 * i)));
  return out;
}

std::vector<svg::Point> spectrum_curve(const HdrHistogram& h) {
  std::vector<svg::Point> out;
  if (h.total_count() == 0) return out;
  const auto ps = spectrum_percentiles();
  for (size_t i = 0; i < ps.size(); ++i) {
    out.push_back(
        {0.05 * static_cast<double>(i), static_cast<double>(h.value_at_percentile(ps[i]))});
  }
  return out;
}

std::vector<TimelinePoint> timeline(const results::WorkloadResult& w) {
  std::vector<TimelinePoint> out;
  if (w.repetitions.empty()) return out;
  const int64_t first = w.repetitions.front().start_unix_ns;
  for (const auto& rep : w.repetitions) {
    const double offset = static_cast<double>(rep.start_unix_ns - first) / 1e9;
    for (const auto& s : rep.timeline) {
      out.push_back(TimelinePoint{offset + static_cast<double>(s.second + 1), rep.index,
                                  s.ops_per_second, s.p50_ns, s.p99_ns, s.max_ns, s.errors});
    }
  }
  return out;
}

std::string flag_text(const std::string& flag) {
  // The words of docs/MEASUREMENT.md's table of flags.
  static const std::map<std::string, std::string> kWords = {
      {"worker_saturated",
       "a load thread was on a CPU for 90% or more of the window: the figures may measure the "
       "load generator, not the server"},
      {"worker_cpu_starved",
       "a load thread waited for a CPU for 5% or more of the window: the load generator was "
       "short of CPU"},
      {"start_skew",
       "the workers' starts and the shared start instant spanned more than the workload's "
       "max_start_skew (default 1 ms)"},
      {"latency_clamped", "a latency was above the histogram's highest trackable value (1 h)"},
      {"throughput_span",
       "a worker sent no in-window counts; throughput is counted over the span (first send to "
       "last receive)"},
      {"router_count_mismatch",
       "the router's count and the workers' differ by more than connections x in_flight"},
      {"rate_not_kept",
       "open loop: more than 1% of the schedule's requests were written more than 1 ms late, or "
       "more than 1% were still unwritten at the window's end: the load generator or the server "
       "fell behind the rate asked for (the latency stays corrected)"},
      {"process_stopped",
       "a worker or the system under test was stopped (SIGSTOP, a debugger) during the window; "
       "gates do not judge the workload"},
      {"degraded",
       "a worker was lost and on_worker_loss = \"continue\" let the others finish: less load "
       "than the workload asks for; never a baseline, gates do not judge the workload"},
  };
  auto it = kWords.find(flag);
  return it != kWords.end() ? it->second
                            : "a flag this report has no words for (docs/MEASUREMENT.md)";
}

std::string html_page(const std::string& title, const std::string& body,
                      const std::string& head_extra) {
  return fmt::format(
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width\"/>\n"
      "{}<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n{}"
      "<p class=\"note\">Written by benchgate {}. Every chart and how its numbers are computed: "
      "docs/REPORTS.md.</p>\n</body>\n</html>\n",
      head_extra, escape(title), kStyle, body, command_line::version());
}

std::string html_document(const std::vector<HtmlRun>& runs, const std::string& nav) {
  std::string title = "benchgate report";
  if (runs.size() == 1) {
    title += fmt::format(": {} run {}", runs.front().run.scenario, runs.front().run.id);
  }
  std::string body = nav;
  for (const auto& run : runs) body += run_section(run);
  return html_page(title, body);
}

}  // namespace benchgate::report
