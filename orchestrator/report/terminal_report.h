// What a person sees: a live progress line while a window runs (on a terminal), plain log
// lines otherwise, and after each workload a table of its repetitions with the summary.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/report/latency_text.h"

namespace benchgate::report {

class TerminalReport : public engine::RunObserver {
 public:
  // `out` receives tables and RESULT lines; `live` (stderr) the progress line and log lines.
  TerminalReport(std::FILE* out, std::FILE* live);

  void scenario_started(const scenario::Scenario&) override;
  void workload_started(const scenario::Workload&) override;
  void window_started(const scenario::Workload&, const engine::WindowInfo&) override;
  void progress(const scenario::Workload&, const engine::WindowInfo&, double ops_per_second,
                int64_t p99_ns, int64_t elapsed_ns) override;
  void window_finished(const scenario::Workload&, const engine::WindowInfo&,
                       const results::Repetition*) override;
  void workload_finished(const results::WorkloadResult&) override;
  void message(const std::string&) override;
  // One line on `out`, with the tables (what `serve` streams to its client as stdout).
  void print(const std::string& line);

 private:
  void clear_live_line();
  // " | workload 2/5, 12.0s elapsed, about 30.0s left": the whole run's progress, the time
  // left estimated from the windows still planned (warm-ups and repetitions, without the
  // start-up and drain around them).
  std::string run_progress(int64_t window_elapsed_ns) const;

  std::FILE* out_;
  std::FILE* live_;
  bool tty_;
  bool live_line_shown_ = false;
  std::string scenario_;
  size_t workloads_ = 0;  // in the scenario
  size_t workload_ = 0;   // 1-based: the one running
  std::string workload_name_;
  int64_t planned_ns_ = 0;  // every window of the scenario (each compared variant's too)
  int64_t done_ns_ = 0;     // windows finished
  std::chrono::steady_clock::time_point started_;
};

// An open-loop repetition's diagnostics, as the terminal prints them under its row and the
// HTML and Markdown reports show them (the JSON's `service_time`, `late_sends`, `unsent`):
// "service time p50 10.1us p99 55.6us (uncorrected), late sends 45, unwritten at the window's
// end 0 (sent in the drain, or not_sent)"; "service time: not measured" for a repetition without
// the uncorrected histogram (a worker that wraps a tool).
std::string open_loop_text(const results::Repetition& repetition);

// "errors by kind: status=3 timeout=2": every kind the workload's repetitions counted, summed
// (results::WorkloadResult::error_kinds; a capped sum "at least N", results::count_text), as
// the terminal and the HTML report write them; "" when none was counted.
std::string errors_by_kind_text(const results::WorkloadResult& workload);

// "requests: 300 sent by workers, 300 counted by the router" (for WAMP "calls: ... made by
// workers, ... routed by the router", "events: ... counted by workers (... received), ...
// delivered by the router": the operations, failures included, and the successes), with how
// many of the operations the router could not count ("(4 of them not_sent)", on WAMP "not_sent
// or refused by the router") and why the rest and the router's count differ where they do
// (results::router_count_mismatch), over every repetition; where the router did not count
// every repetition, the workers' count and "the router's count not measured (only the bundled
// router reports one)" (or "(missing from 1 of 3 repetitions)"); "" when no repetition was
// measured. A sum that stopped at 2^64 - 1 reads "at least"
// (results::count_text), and where either side's did the two are not compared ("(not compared:
// the workers' count reached 2^64 - 1, ...)").
std::string counts_text(const results::WorkloadResult& workload);

// The lines the terminal prints under a workload's table, which the HTML report shows too, from
// the stored run (each "  name: ..." and ending in a newline; "" when there is nothing to say;
// a figure a run stored before schema version 21 did not keep is said to be not stored):
// what a worker that wraps a tool could not measure, said in words ("not measured: ..."; the
// tables show "-" or the count of what it did measure there), from each repetition's
// not_measured and the tool's latency figures, which the Markdown summary shows too,
std::string not_measured_lines(const results::WorkloadResult& workload);
// TLS, HTTP/2 and connection setup (docs/MEASUREMENT.md, "Connections and TLS", "Handshakes per
// second"): one line each for what was measured, nothing for what was not,
std::string connection_lines(const results::WorkloadResult& workload);
// WAMP session establishment (docs/MEASUREMENT.md "Session establishment"),
std::string session_setup_line(const results::WorkloadResult& workload);
// and, for wamp_rpc with callee = "worker", how the calls were split over the callee sessions
// (the fewest and most invocations one session got, per repetition).
std::string callee_line(const results::WorkloadResult& workload);
// Why the router ended sessions in the middle of a window (each one a "protocol" error of the
// table), per repetition, worker and reason (results/sessions_ended_lines.h), which the
// terminal prints under the errors by kind; a run stored before schema version 22 with protocol
// errors says they are not stored.
std::string sessions_ended_lines(const results::WorkloadResult& workload);
// Who the workloads' workers said they were, a line per distinct Describe answer
// (results/described_workers.h: "kv-worker, version 1.2 (every workload)"), which the Markdown
// and HTML reports write beside the run's binaries, as `runs show` does; empty when no worker
// answered (or a run stored before schema version 22).
std::vector<std::string> described_workers(const std::vector<results::WorkloadResult>& workloads);

// The lines of `lines` (those above) without their indentation, empty ones left out: how the
// HTML report and the Markdown summary list the terminal's lines.
std::vector<std::string> unindented_lines(std::string_view lines);

// The table of one workload (repetitions and the median/min-max summary), as printed.
std::string workload_table(const results::WorkloadResult& workload);

}  // namespace benchgate::report
