#include "orchestrator/report/gate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "common/util/text_lines.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/latency_text.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/summary_row.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/report/workload_shape.h"
#include "orchestrator/report/workload_title.h"
#include "orchestrator/store/binary_identity.h"

namespace benchgate::report {
namespace {

using gates::Verdict;

std::string value_text(const std::optional<double>& value, const std::string& metric) {
  if (!value) return "-";
  const auto* info = gates::find_metric(metric);
  if (!info) return fmt::format("{:.4g}", *value);
  return gates::format_metric_value(*value, info->unit);
}

// The workload with its variant, where it has one ("default" is a scenario without compare; a
// gate whose workload did not run names no variant for the pattern "*"), as the terminal's
// workload tables write it: "hello [cand]".
std::string workload_text(const gating::EvaluatedGate& g) {
  return workload_title(g.workload, g.variant);
}

// The Markdown table's variant column: "-" where no variant is named (a gate whose workload did
// not run, for every variant).
std::string variant_text(const gating::EvaluatedGate& g) {
  return g.variant.empty() ? std::string("-") : g.variant;
}

// One name per testcase: two variants of one gate are two names.
std::string gate_name(const gating::EvaluatedGate& g) {
  return fmt::format("{} {} (gate #{})", workload_text(g), g.outcome.metric, g.gate_index + 1);
}

// The verdict, with ", underpowered" when the gate could not detect twice its allowance and
// what a confirming rerun did (", confirmed by the rerun"), as every output writes it.
std::string verdict_text(const gating::EvaluatedGate& g) {
  return gates::verdict_text(gates::to_string(g.outcome.verdict), g.outcome.underpowered,
                             g.outcome.confirmation);
}

const char* severity(const gating::EvaluatedGate& g) {
  return g.outcome.severity == scenario::GateSeverity::kCritical ? "critical" : "warning";
}

// A [compare] scenario's throughput ratios: the figures of the terminal's `compare` lines, the
// HTML and the JSON (analysis.h), written as they write them.
std::string comparisons_markdown(const engine::ScenarioResult& result) {
  const auto cs = comparisons(result);
  if (cs.empty()) return "";
  std::string out =
      "\nComparisons (throughput, variant / baseline):\n\n| workload | variant / baseline | "
      "ratio | 95% CI | pairs min-max | variant ops/s | baseline ops/s | status |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cs) {
    const ComparisonText t = comparison_text(c);
    out +=
        fmt::format("| {} | {} / {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(c.workload),
                    markdown_cell(c.variant), markdown_cell(c.baseline), t.ratio, t.interval,
                    t.pairs, t.variant_rps, t.baseline_rps, c.status);
  }
  return out;
}

// A sweep's model of its cost (p50 of every repetition merged) against the swept parameter, as
// the terminal's `sweep` lines and the HTML write it (analysis.h).
std::string sweeps_markdown(const engine::ScenarioResult& result) {
  const auto ss = sweeps(result);
  if (ss.empty()) return "";
  std::string out =
      "\nSweeps (cost: p50 of every repetition merged, in microseconds):\n\n| workload | "
      "variant | over | points | model | R^2 | growth exponent | worst pair |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : ss) {
    const SweepText t = sweep_text(s);
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(s.workload),
                       markdown_cell(s.variant), markdown_cell(sweep_axis(s.parameter)), s.n.size(),
                       s.fit ? markdown_cell(t.model) : "fewer than two measured points, no model",
                       t.r2, t.exponent, t.worst);
  }
  for (const auto& s : ss) {
    if (s.left_out.empty()) continue;
    out += fmt::format("\n{} [{}]: left out of the fit: {}\n", markdown_cell(s.workload),
                       markdown_cell(s.variant), markdown_cell(left_out_text(s)));
  }
  return out;
}

// Whether a Markdown row stands for several repetitions (a median with its min-max), so that its
// table's ops/s column is headed as such; a table of single repetitions has their figures alone.
bool any_of_several_repetitions(const std::vector<results::WorkloadResult>& workloads) {
  return std::any_of(workloads.begin(), workloads.end(), [](const results::WorkloadResult& w) {
    return !w.repetitions.empty() && !summary_row_is_single(w.repetitions.size());
  });
}

// What each figure of the Markdown table's rows is, in the words of the terminal's line under
// its summary row (summary_row_definition), for the rows this table has: several repetitions
// summed up, a single one repeated, and why a row has no latency where one has none. "" when no
// workload was measured (every row says "not measured").
std::string markdown_rows_definition(const std::vector<results::WorkloadResult>& workloads) {
  bool single = false;
  bool tool_latency = false;  // a worker adapter's tool printed it: no histogram to merge
  std::vector<std::string> no_latency;
  for (const auto& w : workloads) {
    if (w.repetitions.empty()) continue;
    const std::string why = summary_row_no_latency(w);
    if (summary_row_is_single(w.repetitions.size())) {
      single = true;
    } else if (why.empty() && w.latency.total_count() == 0 && !w.latency_tool().empty()) {
      tool_latency = true;
    }
    if (!why.empty() && std::find(no_latency.begin(), no_latency.end(), why) == no_latency.end()) {
      no_latency.push_back(why);
    }
  }
  std::string out;
  if (any_of_several_repetitions(workloads)) {
    out = "Each row sums up a workload's repetitions as the terminal's \"" +
          std::string(kSummaryRowLabel) +
          "\" row does: ops/s the median (min-max), latency from their histograms merged" +
          (tool_latency ? " (where a tool such as wrk or h2load printed it: the median of its "
                          "figures, max the largest)"
                        : "") +
          ", errors summed";
    if (single) out += "; a row of a single repetition repeats its figures, with no range";
  } else if (single) {
    out =
        "Each workload had a single repetition: its row repeats that repetition's figures, as "
        "the terminal's \"" +
        std::string(kSummaryRowLabel) + "\" row does";
  } else {
    return "";
  }
  std::string reasons;
  for (const std::string& why : no_latency) reasons += (reasons.empty() ? "" : " or ") + why;
  if (!reasons.empty()) out += "; a latency of \"-\" is none (" + reasons + ")";
  return "\n" + out + ".\n";
}

}  // namespace

std::string gates_table(const std::vector<gating::EvaluatedGate>& gates) {
  if (gates.empty()) return {};
  // Columns as wide as their longest cell (at least the usual width), so that a long workload
  // or metric name ("worker.cpu_utilization", "wamp_rpc_large@size=65536") keeps the table
  // aligned.
  using Row = std::array<std::string, 7>;
  std::vector<Row> rows;
  rows.push_back(
      Row{"verdict", "severity", "workload", "metric", "observed", "threshold", "explanation"});
  for (const auto& g : gates) {
    rows.push_back(Row{verdict_text(g), severity(g), workload_text(g), g.outcome.metric,
                       value_text(g.outcome.observed, g.outcome.metric),
                       value_text(g.outcome.threshold, g.outcome.metric), g.outcome.explanation});
  }
  std::array<size_t, 6> width = {13, 8, 24, 16, 12, 12};
  for (const auto& row : rows) {
    for (size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  // Where the explanation starts: a multi-line explanation (a process's stderr tail) goes on
  // under it, so that every row's columns stay readable and the next row starts at column 2.
  // (The row's format: two spaces, six columns with a space between each, two spaces.)
  size_t column = 2 + 5 + 2;
  for (size_t c = 0; c < width.size(); ++c) column += width[c];
  const std::string indent(column, ' ');
  std::string out = "gates:\n";
  for (const auto& row : rows) {
    // Its lines as the Markdown cell and `runs show` split them (text_lines); an empty one
    // stays empty, as in `runs show`, not a line of spaces.
    std::string explanation;
    bool first = true;
    for (const std::string_view line : text_lines(row[6])) {
      if (!first) explanation += "\n" + (line.empty() ? std::string() : indent);
      first = false;
      explanation += line;
    }
    out += fmt::format("  {:<{}} {:<{}} {:<{}} {:<{}} {:>{}} {:>{}}  {}\n", row[0], width[0],
                       row[1], width[1], row[2], width[2], row[3], width[3], row[4], width[4],
                       row[5], width[5], explanation);
  }
  return out;
}

std::string strict_failures_line(const std::vector<gating::EvaluatedGate>& gates, bool strict) {
  if (!strict) return {};
  std::string named;
  size_t count = 0;
  for (const auto& g : gates) {
    if (!gates::fails_only_when_strict(g.outcome)) continue;
    named += (count++ == 0 ? "" : ", ") + gate_name(g) + " [" + verdict_text(g) + "]";
  }
  if (count == 0) return {};
  return fmt::format(
      "strict: --strict fails the run for {} critical gate{} that would not fail it otherwise "
      "(inconclusive, no_baseline, not_configured and underpowered verdicts fail with it): {}\n",
      count, count == 1 ? "" : "s", named);
}

std::string junit_xml(const std::vector<ScenarioReport>& reports) {
  size_t tests = 0, failures = 0, skipped = 0;
  std::string suites;
  for (const auto& report : reports) {
    size_t suite_tests = 0, suite_failures = 0, suite_skipped = 0;
    std::string cases;
    // The run itself is a testcase, so a pipeline sees a crashed run even without gates.
    ++suite_tests;
    // `time` only where it was measured: the run's own duration (none for a re-evaluation by
    // `gate`, and none for gates, which are decided in no measurable time of their own).
    const std::string time =
        report.duration_ns > 0
            ? fmt::format(" time=\"{:.3f}\"", static_cast<double>(report.duration_ns) / 1e9)
            : std::string();
    cases += fmt::format("    <testcase classname=\"benchgate.{}\" name=\"run\"{}>",
                         escape(report.result.scenario), time);
    // It fails with the reason the store holds (runs.error, the --json `error`): a run that
    // did not complete, and one that exits 3 all the same (a critical gate that is an error,
    // an interrupt after it measured, a refused promotion) says why.
    if (!report.result.ok() || !report.run_error().empty()) {
      ++suite_failures;
      cases += fmt::format("<failure type=\"error\" message=\"{}\"/>", escape(report.run_error()));
    }
    cases += "</testcase>\n";
    for (const auto& g : report.gates) {
      ++suite_tests;
      cases += fmt::format("    <testcase classname=\"benchgate.{}\" name=\"{}\">",
                           escape(report.result.scenario), escape(gate_name(g)));
      const std::string message = escape(g.outcome.explanation);
      const bool fails_underpowered = g.outcome.underpowered && g.outcome.fail_when_underpowered;
      if (report.strict && gates::fails_only_when_strict(g.outcome)) {
        // A skipped testcase would read as harmless while --strict fails the run for it.
        ++suite_failures;
        cases += fmt::format("<failure type=\"strict\" message=\"{}: {}\"/></testcase>\n",
                             escape(verdict_text(g) + " fails the run with --strict"), message);
        continue;
      }
      // What would fail the run if the gate were critical (gates::exit_code_for).
      std::string failure;
      switch (g.outcome.verdict) {
        case Verdict::kPass:
        case Verdict::kInconclusive:
          if (fails_underpowered) failure = "underpowered";
          break;
        case Verdict::kFail:
          failure = "fail";
          break;
        case Verdict::kError:
          failure = "error";
          break;
        case Verdict::kNoBaseline:
        case Verdict::kNotConfigured:
          break;
      }
      if (!failure.empty() && g.outcome.severity != scenario::GateSeverity::kCritical) {
        // A warning gate never fails the run (its exit code comes from critical gates only), so
        // it is no failure here either: a passed testcase that says what it found in its
        // standard output, which Jenkins and GitLab show with the test.
        cases += fmt::format(
            "<system-out>warning gate {}: {} (a warning: it does not fail the run)</system-out>",
            escape(verdict_text(g)), message);
      } else if (!failure.empty()) {
        ++suite_failures;
        cases += fmt::format("<failure type=\"{}\" message=\"{}\"/>", failure, message);
      } else if (g.outcome.verdict != Verdict::kPass) {
        ++suite_skipped;
        cases += fmt::format("<skipped message=\"{}: {}\"/>", escape(verdict_text(g)), message);
      } else if (g.outcome.underpowered) {
        // A pass that could not have caught twice its allowance: it passes, and says what it
        // found as a failing warning gate does, or it would read as a plain pass.
        cases += fmt::format(
            "<system-out>{} gate {}: {} (a pass that could not have detected a regression of "
            "twice its allowance)</system-out>",
            severity(g), escape(verdict_text(g)), message);
      }
      cases += "</testcase>\n";
    }
    suites += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}"
        "  </testsuite>\n",
        escape(report.result.scenario), suite_tests, suite_failures, suite_skipped, cases);
    tests += suite_tests;
    failures += suite_failures;
    skipped += suite_skipped;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"benchgate\" tests=\"{}\" "
      "failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}</testsuites>\n",
      tests, failures, skipped, suites);
}

std::string markdown_summary(const std::vector<ScenarioReport>& reports) {
  std::string out = "## benchgate results\n\n";
  for (const auto& report : reports) {
    const auto& r = report.result;
    out += fmt::format("### {} {}\n\n", r.scenario,
                       report.run_id ? fmt::format("(run {})", report.run_id) : std::string());
    // Which files were measured (docs/MEASUREMENT.md, "Measured binaries").
    for (const store::MeasuredBinary& b : report.binaries) {
      out += "- " + markdown_cell(store::binary_line(b)) + "\n";
    }
    // Who the workers said they were (their Describe answers), beside the binaries.
    const std::vector<std::string> described = described_workers(r.workloads);
    for (const std::string& line : described) {
      out += "- workers: " + markdown_cell(line) + "\n";
    }
    if (!report.binaries.empty() || !described.empty()) out += "\n";
    // The reason the store holds (runs.error), as the --json `error` says it.
    if (!report.run_error().empty()) {
      out += fmt::format("**Run error:** {}\n\n", markdown_cell(report.run_error()));
    }
    // A re-evaluation by `gate` has the stored run's verdicts, not its figures: no empty table.
    if (r.workloads.empty() && report.run_id) {
      // One line: the gate table's own blank line follows.
      out += fmt::format("Figures: `orchestrator runs show {}`.\n", report.run_id);
    } else {
      out += fmt::format(
          "| workload | {} | p50 | p99 | p99.9 | errors | flags | status |\n",
          any_of_several_repetitions(r.workloads) ? "ops/s (median, min-max)" : "ops/s");
      out += "|---|---|---|---|---|---|---|---|\n";
    }
    for (const auto& w : r.workloads) {
      // As the terminal's table writes them.
      auto pct = [&](double p) { return latency_text(w.latency_at(p)); };
      std::string flags;
      for (const auto& flag : w.flags()) flags += (flags.empty() ? "" : ", ") + flag;
      // "-" where nothing was measured, as the RESULT line's errors=.
      const auto errors = measured_errors(w);
      out += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
          markdown_cell(workload_title(w.spec.name, w.variant)),
          w.repetitions.empty() ? std::string("not measured") : summary_row_ops(w), pct(50),
          pct(99), pct(99.9), errors ? results::count_text(*errors) : "-",
          flags.empty() ? "-" : markdown_cell(flags),
          w.status == results::WorkloadStatus::kOk
              ? std::string("ok")
              : std::string(results::status_name(w.status)) + ": " + markdown_cell(w.error));
    }
    // What each figure of a row is: the terminal's and the HTML report's summary row, whose
    // definition this is for every row (the ops/s min-max, of several repetitions, is in its cell).
    out += markdown_rows_definition(r.workloads);
    // Each workload's load (workload_load, the terminal's and the HTML report's header) and what
    // its workers could not measure (not_measured_lines: the terminal's words under its table),
    // so that a tool's unmeasured figure never passes for the 0 or "-" in its row.
    std::string loads;
    std::string not_measured;
    for (const auto& w : r.workloads) {
      const std::string name = markdown_cell(workload_title(w.spec.name, w.variant));
      loads += fmt::format("- {}: {}, {}, {}\n", name, markdown_cell(workload_load(w.spec)),
                           workers_text(w.spec, w.worker_threads), load_model_text(w.spec));
      for (const std::string& line : unindented_lines(not_measured_lines(w))) {
        not_measured += fmt::format("- {}: {}\n", name, markdown_cell(line));
      }
    }
    if (!loads.empty()) out += "\nLoad, per workload:\n\n" + loads;
    if (!not_measured.empty()) out += "\nNot measured, per workload:\n\n" + not_measured;
    // Each open-loop repetition's diagnostics, as the terminal prints them under its row.
    std::string open_loop;
    for (const auto& w : r.workloads) {
      if (w.spec.rate <= 0) continue;
      const std::string name = workload_title(w.spec.name, w.variant);
      for (const auto& rep : w.repetitions) {
        open_loop += fmt::format("- {} rep {}: {}\n", markdown_cell(name), rep.index + 1,
                                 markdown_cell(open_loop_text(rep)));
      }
    }
    if (!open_loop.empty()) out += "\nOpen loop, per repetition:\n\n" + open_loop;
    out += comparisons_markdown(r) + sweeps_markdown(r);
    if (!report.gates.empty()) {
      out +=
          "\n| verdict | severity | workload | variant | metric | observed | threshold | "
          "explanation |\n";
      out += "|---|---|---|---|---|---|---|---|\n";
      for (const auto& g : report.gates) {
        const std::string verdict = verdict_text(g);
        const bool plain = g.outcome.verdict == Verdict::kPass && !g.outcome.underpowered &&
                           g.outcome.confirmation.empty();
        out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                           plain ? verdict : fmt::format("**{}**", verdict), severity(g),
                           markdown_cell(g.workload), markdown_cell(variant_text(g)),
                           g.outcome.metric, value_text(g.outcome.observed, g.outcome.metric),
                           value_text(g.outcome.threshold, g.outcome.metric),
                           markdown_cell(g.outcome.explanation));
      }
      if (const std::string strict = strict_failures_line(report.gates, report.strict);
          !strict.empty()) {
        out += "\n" + markdown_cell(strict) + "\n";
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace benchgate::report
