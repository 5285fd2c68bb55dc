#include "orchestrator/report/gate_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>

#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/latency_text.h"
#include "orchestrator/report/terminal_report.h"

namespace benchgate::report {
namespace {

using gates::Verdict;

std::string value_text(const std::optional<double>& value, const std::string& metric) {
  if (!value) return "-";
  const auto* info = gates::find_metric(metric);
  if (!info) return fmt::format("{:.4g}", *value);
  return gates::format_metric_value(*value, info->unit);
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// The workload with its variant, where it has one ("default" is a scenario without compare; a
// gate whose workload did not run names no variant for the pattern "*").
std::string workload_text(const gating::EvaluatedGate& g) {
  if (g.variant == "default" || g.variant.empty()) return g.workload;
  return g.workload + "[" + g.variant + "]";
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
// what a confirming rerun did (", confirmed by the rerun").
std::string verdict_text(const gating::EvaluatedGate& g) {
  std::string v(gates::to_string(g.outcome.verdict));
  if (g.outcome.underpowered) v += ", underpowered";
  return v + gates::confirmation_suffix(g.outcome.confirmation);
}

const char* severity(const gating::EvaluatedGate& g) {
  return g.outcome.severity == scenario::GateSeverity::kCritical ? "critical" : "warning";
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
  std::string out = "gates:\n";
  for (const auto& row : rows) {
    out += fmt::format("  {:<{}} {:<{}} {:<{}} {:<{}} {:>{}} {:>{}}  {}\n", row[0], width[0],
                       row[1], width[1], row[2], width[2], row[3], width[3], row[4], width[4],
                       row[5], width[5], row[6]);
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
      switch (g.outcome.verdict) {
        case Verdict::kPass:
          if (fails_underpowered) {
            ++suite_failures;
            cases += fmt::format("<failure type=\"underpowered\" message=\"{}\"/>", message);
          }
          break;
        case Verdict::kFail:
          ++suite_failures;
          cases += fmt::format("<failure type=\"fail\" message=\"{}\"/>", message);
          break;
        case Verdict::kError:
          ++suite_failures;
          cases += fmt::format("<failure type=\"error\" message=\"{}\"/>", message);
          break;
        case Verdict::kInconclusive:
          if (fails_underpowered) {
            ++suite_failures;
            cases += fmt::format("<failure type=\"underpowered\" message=\"{}\"/>", message);
            break;
          }
          [[fallthrough]];
        case Verdict::kNoBaseline:
        case Verdict::kNotConfigured:
          ++suite_skipped;
          cases += fmt::format("<skipped message=\"{}: {}\"/>", escape(verdict_text(g)), message);
          break;
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
    // The reason the store holds (runs.error), as the --json `error` says it.
    if (!report.run_error().empty()) {
      out += fmt::format("**Run error:** {}\n\n", md_escape(report.run_error()));
    }
    // A re-evaluation by `gate` has the stored run's verdicts, not its figures: no empty table.
    if (r.workloads.empty() && report.run_id) {
      // One line: the gate table's own blank line follows.
      out += fmt::format("Figures: `orchestrator runs show {}`.\n", report.run_id);
    } else {
      out +=
          "| workload | ops/s (median, min-max) | p50 | p99 | p99.9 | errors | flags | status |\n";
      out += "|---|---|---|---|---|---|---|---|\n";
    }
    for (const auto& w : r.workloads) {
      // As the terminal's table writes them.
      auto pct = [&](double p) { return latency_text(w.latency_at(p)); };
      const auto ops = w.ops_per_second();
      std::string flags;
      for (const auto& flag : w.flags()) flags += (flags.empty() ? "" : ", ") + flag;
      const std::string name =
          w.variant == "default" ? w.spec.name : w.spec.name + " [" + w.variant + "]";
      out += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_escape(name),
          w.repetitions.empty()
              ? std::string("not measured")
              : fmt::format("{:.0f} ({:.0f}-{:.0f})", ops.median, ops.min, ops.max),
          pct(50), pct(99), pct(99.9), w.error_count(), flags.empty() ? "-" : md_escape(flags),
          w.status == results::WorkloadStatus::kOk
              ? std::string("ok")
              : std::string(results::status_name(w.status)) + ": " + md_escape(w.error));
    }
    // Each open-loop repetition's diagnostics, as the terminal prints them under its row.
    std::string open_loop;
    for (const auto& w : r.workloads) {
      if (w.spec.rate <= 0) continue;
      const std::string name =
          w.variant == "default" ? w.spec.name : w.spec.name + " [" + w.variant + "]";
      for (const auto& rep : w.repetitions) {
        open_loop += fmt::format("- {} rep {}: {}\n", md_escape(name), rep.index + 1,
                                 md_escape(open_loop_text(rep)));
      }
    }
    if (!open_loop.empty()) out += "\nOpen loop, per repetition:\n\n" + open_loop;
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
                           md_escape(g.workload), md_escape(variant_text(g)), g.outcome.metric,
                           value_text(g.outcome.observed, g.outcome.metric),
                           value_text(g.outcome.threshold, g.outcome.metric),
                           md_escape(g.outcome.explanation));
      }
      if (const std::string strict = strict_failures_line(report.gates, report.strict);
          !strict.empty()) {
        out += "\n" + md_escape(strict) + "\n";
      }
    }
    out += "\n";
  }
  return out;
}

Expected<void> write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
    if (!out) return Error{"cannot write '" + path + "'"};
    out << text;
    if (!out.flush()) return Error{"cannot write '" + path + "'"};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Error{"cannot move '" + tmp + "' to '" + path + "'"};
  }
  return {};
}

}  // namespace benchgate::report
