// One stored run for a person to read (run_detail.h).
#include "orchestrator/history/run_detail.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>

#include "common/units/units.h"
#include "common/util/shown_text.h"
#include "common/util/text_lines.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/history/text_table.h"
#include "orchestrator/report/workload_shape.h"
#include "orchestrator/report/workload_title.h"
#include "orchestrator/results/described_workers.h"
#include "orchestrator/results/results.h"
#include "orchestrator/results/sessions_ended_lines.h"
#include "orchestrator/store/binary_identity.h"

namespace benchgate::history {
namespace {

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// Every stored text below (names, errors, explanations, kinds, flags) is shown through
// shown_text, as or_dash, short_commit and format_labels show theirs: a run stored before `run`
// and the service refused control characters, or an error quoting what a child wrote, must
// neither forge a line nor colour the terminal. A text of several lines goes through
// shown_lines (common/util/shown_text.h), as `run --server` prints a job's output.

// "5 (status=2,timeout=3)": the total with its kinds, so a reader sees what failed. The total
// is the kinds' sum (results::saturated_sum, "at least N" where it stopped, results::count_text):
// the errors_total column stops at 2^63 - 1, as every count the store writes, where the kinds'
// JSON keeps each count whole, so a total read from the column could be less than its kinds.
std::string format_errors(const store::StoredRepetition& rep) {
  std::vector<std::string> kinds;
  uint64_t total = 0;
  for (const auto& [kind, count] : rep.errors) {
    total = results::saturated_sum(total, count);
    if (count > 0) kinds.push_back(fmt::format("{}={}", shown_text(kind), count));
  }
  if (kinds.empty()) return results::count_text(rep.errors_total);
  return fmt::format("{} ({})", results::count_text(total), join(kinds, ","));
}

std::string header(const store::RunDetail& d) {
  const store::RunSummary& r = d.run;
  std::string out = fmt::format("run {}  scenario {}  status {}", r.id, shown_text(r.scenario),
                                shown_text(r.status));
  if (r.exit_code) out += fmt::format(" (exit {})", *r.exit_code);
  out += "\n";
  if (!r.error.empty()) {
    out += fmt::format("  error     {}\n", shown_lines(r.error, std::string(12, ' ')));
  }
  out += fmt::format("  started   {}\n", format_local_time(r.started_at_ns));
  if (auto took = run_took(r.status, r.started_at_ns, r.finished_at_ns)) {
    out += fmt::format("  finished  {} (took {})\n", format_local_time(*r.finished_at_ns), *took);
  } else if (r.finished_at_ns) {
    // Abandoned: when it ended is not known, only when a later orchestrator found it gone.
    out += fmt::format("  finished  - (killed; marked abandoned at {})\n",
                       format_local_time(*r.finished_at_ns));
  } else {
    out += "  finished  -\n";
  }
  out += fmt::format("  commit    {}\n", or_dash(r.commit));
  out += fmt::format("  branch    {}\n", or_dash(r.branch));
  out += fmt::format("  labels    {}\n", format_labels(r.labels));
  out += fmt::format("  origin    {}\n", origin_text(r.origin));
  const store::Testbed& t = d.testbed;
  out += fmt::format("testbed {}\n", r.testbed_id);
  out += fmt::format("  host      {}\n", or_dash(t.host));
  out += fmt::format("  cpu       {}\n", or_dash(t.cpu_model));
  out += fmt::format("  cores     {}\n", t.cores);
  out += fmt::format("  kernel    {}\n", or_dash(t.kernel));
  out += fmt::format("  governor  {}\n", or_dash(t.governor));
  out += fmt::format("  compiler  {}\n", or_dash(t.compiler));
  out += fmt::format("  flags     {}\n", or_dash(t.build_flags));
  // Which files were measured (docs/MEASUREMENT.md, "Measured binaries").
  if (d.binaries.empty()) {
    out += "binaries  not recorded (none started here, or stored before schema version 19)\n";
  } else {
    out += "binaries\n";
    for (const store::MeasuredBinary& b : d.binaries) {
      out += fmt::format("  {}\n", shown_text(store::binary_line(b)));
    }
  }
  // Who the workers said they were (their Describe answers, schema version 22).
  std::vector<results::WorkloadDescribed> answers;
  for (const store::StoredWorkload& w : d.workloads) {
    answers.push_back({shown_text(report::workload_title(w.name, w.variant)),
                       shown_text(w.worker_name.value_or("")),
                       shown_text(w.worker_version.value_or(""))});
  }
  const std::vector<std::string> described = results::described_workers(answers);
  if (described.empty()) {
    if (!d.workloads.empty()) {
      out +=
          "workers   Describe not recorded (no workload reached its workers, or stored before "
          "schema version 22)\n";
    }
  } else {
    out += "workers (as their Describe answered)\n";
    for (const std::string& line : described) out += "  " + line + "\n";
  }
  return out;
}

// Why the router ended sessions in a window, as the run's terminal said it under its table.
std::string sessions_ended(const store::StoredWorkload& w) {
  results::SessionsEndedByRepetition by_repetition;
  bool not_stored = false;
  for (const store::StoredRepetition& rep : w.repetitions) {
    if (!rep.sessions_ended) {
      // A WAMP window's protocol errors may be such ends, stored from schema version 22.
      const auto protocol_errors = rep.errors.find("protocol");
      not_stored =
          not_stored || (w.protocol.rfind("wamp", 0) == 0 && protocol_errors != rep.errors.end() &&
                         protocol_errors->second > 0);
      continue;
    }
    std::vector<results::SessionsEnded> ends;
    for (const store::StoredSessionsEnded& e : *rep.sessions_ended) {
      ends.push_back({static_cast<uint32_t>(e.worker), shown_text(e.reason), e.sessions});
    }
    by_repetition.emplace_back(rep.index, std::move(ends));
  }
  return results::sessions_ended_lines(by_repetition, not_stored);
}

// "  workers: 2 worker(s) x 4 thread(s) (the workers run 2 each)": the workers and threads the
// scenario asked (the stored parameters) and, where they differ, those the workers said they
// run (schema version 24), as the run's own reports said (report::workers_text).
std::string workers_line(const store::StoredWorkload& w) {
  const auto params = nlohmann::json::parse(w.params_json, nullptr, false);
  if (!params.is_object() || !params.contains("workers") || !params.contains("threads") ||
      !params["workers"].is_number_unsigned() || !params["threads"].is_number_unsigned()) {
    return "";
  }
  scenario::Workload asked;
  asked.workers = params["workers"].get<uint32_t>();
  asked.threads = params["threads"].get<uint32_t>();
  std::vector<uint32_t> ran;
  for (const int64_t threads : w.worker_threads.value_or(std::vector<int64_t>{})) {
    ran.push_back(static_cast<uint32_t>(std::clamp<int64_t>(threads, 0, UINT32_MAX)));
  }
  std::string line = "  workers: " + report::workers_text(asked, ran);
  if (!w.worker_threads && !w.repetitions.empty()) {
    line += " (the threads each worker ran not stored: a run stored before schema version 24)";
  }
  return line + "\n";
}

std::string workload(const store::StoredWorkload& w) {
  // "hello [old]", as every report names a workload's variant (report/workload_title.h).
  std::string out = "\nworkload " + shown_text(report::workload_title(w.name, w.variant));
  out += fmt::format("  protocol {}  status {}  params {}\n", shown_text(w.protocol),
                     shown_text(w.status), shown_text(w.params_hash.substr(0, 12)));
  if (!w.error.empty()) {
    out += fmt::format("  error: {}\n", shown_lines(w.error, std::string(9, ' ')));
  }
  // Where the load came from (docs/MEASUREMENT.md); runs stored before schema version 15 say
  // nothing rather than a guess.
  if (w.load_from) out += fmt::format("  load from: {}\n", shown_text(*w.load_from));
  out += workers_line(w);
  if (w.repetitions.empty()) return out + "  no repetitions measured\n";
  TextTable table({"REP", "OPS/S", "MB/S", "P50", "P90", "P99", "P99.9", "MAX", "ERRORS", "FLAGS"},
                  "  ");
  for (size_t c = 0; c <= 7; ++c) table.align(c, TextTable::Align::kRight);
  for (const store::StoredRepetition& rep : w.repetitions) {
    // A rate and a data rate as the run's own tables wrote them (common/units/units.h).
    table.add_row({std::to_string(rep.index + 1), format_rate(rep.ops_per_s),
                   rep.bytes_per_s ? format_megabytes_per_second(*rep.bytes_per_s) : "-",
                   format_latency_ns(rep.p50_ns), format_latency_ns(rep.p90_ns),
                   format_latency_ns(rep.p99_ns), format_latency_ns(rep.p999_ns),
                   format_latency_ns(rep.max_ns), format_errors(rep),
                   shown_text(join(results::ordered_flags(rep.flags), ","))});
  }
  out += table.render();
  // What the workers could not measure, as the run's own terminal report names it: the
  // table shows "-" there.
  std::set<std::string> fields;
  for (const store::StoredRepetition& rep : w.repetitions) {
    fields.insert(rep.not_measured.begin(), rep.not_measured.end());
  }
  if (!fields.empty()) {
    out += "  not measured: " +
           shown_text(join(std::vector<std::string>(fields.begin(), fields.end()), ", "));
    out += "\n";
  }
  return out + sessions_ended(w);
}

std::string gate_table(const std::vector<store::GateRecord>& gates) {
  if (gates.empty()) return "\ngates: never evaluated for this run\n";
  TextTable table(
      {"VERDICT", "SEVERITY", "WORKLOAD", "METRIC", "OBSERVED", "THRESHOLD", "EXPLANATION"}, "  ");
  table.align(4, TextTable::Align::kRight).align(5, TextTable::Align::kRight);
  for (const store::GateRecord& g : gates) {
    // "hello [cand]", as every report names a workload's variant (report/workload_title.h).
    const std::string workload_name = shown_text(report::workload_title(g.workload, g.variant));
    const std::string verdict = shown_text(gates::verdict_text(
        g.verdict, g.underpowered.value_or(false), g.confirmation.value_or("")));
    table.add_row({verdict, shown_text(g.severity), workload_name, shown_text(g.metric),
                   format_gate_value(g.metric, g.observed),
                   format_gate_value(g.metric, g.threshold), shown_lines(g.explanation, "")});
  }
  return "\ngates (latest evaluation)\n" + table.render();
}

}  // namespace

std::string format_gate_value(const std::string& metric, const std::optional<double>& value) {
  return value ? format_metric(metric, *value) : "-";
}

std::string render_run_detail(const store::RunDetail& run,
                              const std::vector<store::GateRecord>& gates) {
  std::string out = header(run);
  if (run.workloads.empty()) out += "\nno workloads stored\n";
  for (const store::StoredWorkload& w : run.workloads) out += workload(w);
  return out + gate_table(gates);
}

}  // namespace benchgate::history
