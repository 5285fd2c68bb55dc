// The rows the result store writes and reads back, as plain structs. Times are Unix
// nanoseconds, latencies nanoseconds; metric values use the units gates use (seconds for
// latency). Nothing here knows SQLite.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate::store {

// The machine and build a run was measured on (docs/MEASUREMENT.md, "Environment").
struct Testbed {
  std::string host;
  std::string cpu_model;
  uint32_t cores = 0;
  std::string kernel;
  std::string governor = "unknown";
  std::string compiler;
  std::string build_flags;

  // SHA-256 (hex) over every field above; equal fingerprints are the same testbed.
  std::string fingerprint() const;

  bool operator==(const Testbed&) const = default;
};

// A binary the orchestrator started for a run, and which file it was (table run_binaries,
// schema version 19; docs/MEASUREMENT.md, "Measured binaries").
struct MeasuredBinary {
  // "router", "worker", "command", "command NAME" (a compared router) or "worker NAME" (a
  // [worker_impls.NAME] command)
  std::string role;
  std::string path;    // as resolved: absolute, symbolic links followed
  std::string origin;  // where the path came from (app::BinaryChoice::origin, or "command")
  // The file's GNU build-id (hex) where its ELF notes carry one; else the SHA-256 (hex) of the
  // file; neither where the file could not be read.
  std::optional<std::string> build_id;
  std::optional<std::string> sha256;
  // A command's arguments after its program, as the scenario wrote them, each quoted as a
  // shell would need it (shell_words): what tells two variants of one program apart
  // (`--inject-work-ns 3000`). nullopt for the router and the bundled worker, and for runs stored
  // before schema version 20; "" for a command without arguments.
  std::optional<std::string> arguments = std::nullopt;

  bool operator==(const MeasuredBinary&) const = default;
};

// What begin_run records before anything is measured.
struct RunInfo {
  std::string scenario;       // scenario name
  std::string scenario_text;  // the file's text as run
  std::string commit;         // of the project / system under test; may be empty
  std::string branch;
  std::map<std::string, std::string> labels;
  Testbed testbed;
  int64_t started_at_ns = 0;             // 0: now
  std::vector<MeasuredBinary> binaries;  // one per role
  std::string origin = "local";          // one of kRunOrigins
};

// Every status a stored run can have (`runs.status`): running while it runs; ok, failed or
// aborted (interrupted) when it ended; abandoned when a later open found its orchestrator gone.
inline constexpr std::array<std::string_view, 5> kRunStatuses = {"running", "ok", "failed",
                                                                 "aborted", "abandoned"};

// Who started a run (`runs.origin`, schema version 23): `orchestrator run` (local), one of
// `orchestrator serve`'s own scenarios (scheduled), or a client of serve (client). A run stored
// before version 23 has none (NULL, read as empty: nobody recorded it), and counts as the
// operator's (internal::series_side_sql). A client's runs are a series of their own.
inline constexpr std::array<std::string_view, 3> kRunOrigins = {"local", "scheduled", "client"};

// Whose runs a series holds (docs/GATES.md, "Series and baselines"): the operator's (origin
// local or scheduled) or those clients of `orchestrator serve` submitted (origin client). A
// client's run is never history of the operator's series, nor the operator's of a client's.
inline constexpr std::string_view kOperatorRuns = "operator";
inline constexpr std::string_view kClientRuns = "client";

// The side a run of `origin` (kRunOrigins) is on: kClientRuns or kOperatorRuns.
inline std::string submitted_by(std::string_view origin) {
  return std::string(origin == "client" ? kClientRuns : kOperatorRuns);
}

// One row of `runs`, as lists show it.
struct RunSummary {
  int64_t id = 0;
  std::string scenario;
  std::string status;  // one of kRunStatuses
  int64_t started_at_ns = 0;
  std::optional<int64_t> finished_at_ns;
  std::optional<int> exit_code;
  std::string commit;
  std::string branch;
  std::map<std::string, std::string> labels;
  int64_t testbed_id = 0;
  std::string error;             // why the run failed, when it says (schema version 3); else empty
  std::string origin = "local";  // one of kRunOrigins (schema version 23); empty: not recorded

  bool operator==(const RunSummary&) const = default;
};

// One second of a measured window (table timeline, schema version 7).
struct StoredSecond {
  uint32_t second = 0;
  double ops_per_s = 0;
  uint64_t errors = 0;
  std::optional<int64_t> p50_ns, p99_ns, max_ns;

  bool operator==(const StoredSecond&) const = default;
};

// One worker's own figures of a measured window (table worker_windows, schema version 7).
struct StoredWorkerShare {
  uint32_t worker = 0;
  uint64_t operations = 0;
  uint64_t successes = 0;
  uint64_t errors = 0;
  double ops_per_s = 0;
  std::optional<int64_t> p99_ns, max_ns;
  std::optional<double> cpu_utilization;
  // Schema version 14 (docs/MEASUREMENT.md "Clock offset and start skew"); nothing where not
  // measured and for runs stored before.
  std::optional<int64_t> p50_ns = std::nullopt;
  std::optional<std::string> host = std::nullopt;  // "local" or HOST:PORT
  std::optional<int64_t> clock_offset_ns = std::nullopt, rtt_ns = std::nullopt,
                         start_skew_ns = std::nullopt;

  bool operator==(const StoredWorkerShare&) const = default;
};

// The sessions one worker's peer ended in a window for one reason (repetitions.sessions_ended,
// results::SessionsEnded): the reason as reports show it, escaped and bounded.
struct StoredSessionsEnded {
  int64_t worker = 0;
  std::string reason;
  uint64_t sessions = 0;

  bool operator==(const StoredSessionsEnded&) const = default;
};

// One stored repetition with every figure.
struct StoredRepetition {
  uint32_t index = 0;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  // Nothing where the workers did not measure it (worker adapters), never zero.
  std::optional<int64_t> data_window_ns;
  uint64_t operations = 0;
  uint64_t successes = 0;
  uint64_t errors_total = 0;
  std::map<std::string, uint64_t> errors;  // by kind
  std::optional<uint64_t> bytes_sent;      // nothing when not measured
  std::optional<uint64_t> bytes_received;  // nothing when not measured
  uint64_t late_sends = 0;
  uint64_t unsent = 0;
  double ops_per_s = 0;
  std::optional<double> bytes_per_s;  // nothing when the workers did not measure bytes
  // Nothing when not measured (an empty histogram, a figure a tool did not print), never zero.
  std::optional<int64_t> p50_ns, p75_ns, p90_ns, p95_ns, p99_ns, p999_ns, max_ns;
  std::optional<double> mean_ns;
  std::vector<uint8_t> latency_hdr;  // HdrHistogram V2 compressed
  std::optional<std::vector<uint8_t>> service_time_hdr;
  std::optional<double> worker_cpu_s;  // nothing when not measured
  std::optional<double> worker_cpu_utilization;
  bool router_collected = false;  // the router counted requests (router_requests)
  uint64_t router_requests = 0;
  bool router_sampled = false;  // its CPU and RSS were measured (router_cpu_s, _rss_bytes)
  double router_cpu_s = 0;
  uint64_t router_rss_bytes = 0;
  std::optional<std::vector<uint8_t>> router_handling_hdr;
  std::map<std::string, uint64_t> router_metrics;  // counter deltas
  std::vector<std::string> flags;
  std::vector<std::string> stopped;  // who was stopped during the window (flag process_stopped)
  // docs/MEASUREMENT.md; nothing where the workers did not report them.
  std::optional<uint64_t> window_successes;
  std::optional<double> payload_bytes_per_s;
  std::optional<int64_t> start_skew_ns;
  std::optional<int64_t> start_spread_ns;  // schema version 15
  std::optional<double> worker_cpu_wait_share;
  uint64_t latency_clamped = 0;
  std::vector<std::string> not_measured;
  std::optional<std::string> tool_latency_json;  // a worker adapter's printed figures
  // Connections and TLS (schema version 13, docs/MEASUREMENT.md "Connections and TLS");
  // nothing where not measured (a WAMP workload, an adapter, cleartext for the TLS fields).
  std::optional<uint64_t> connections, handshakes;
  std::optional<int64_t> connect_p50_ns, connect_p99_ns, tls_handshake_p50_ns, tls_handshake_p99_ns,
      ttfb_p50_ns, ttfb_p99_ns;
  std::optional<std::string> tls_version, tls_cipher, alpn;
  std::optional<uint64_t> requested_streams, effective_streams;  // http2 only
  // Schema version 14: new_connection_per_request's connections set up inside the window, and
  // the TLS handshakes that resumed a session where results::resumed_handshakes reports them
  // (nothing where the workload keeps its connections, nothing for cleartext; a row stored
  // before that rule holds a count there too, docs/MEASUREMENT.md "Handshakes per second").
  std::optional<uint64_t> window_connections, resumed;
  // Schema version 16: a wamp_transfer workload's sums (results::TransferSums); nothing for
  // other workloads.
  std::optional<uint64_t> transfers, transfer_data_bytes, transfer_lifecycle_bytes;
  std::optional<int64_t> transfer_data_ns, transfer_lifecycle_ns;
  // Also 16: WAMP session establishment (connect to WELCOME); nothing for HTTP.
  std::optional<uint64_t> sessions;
  std::optional<int64_t> session_setup_p50_ns, session_setup_p99_ns;
  // Schema version 21: the setup histograms themselves (HdrHistogram V2 compressed), which a
  // workload's figures over its repetitions are percentiles of: connect, TLS handshake and first
  // byte wherever `connections` is stored, the sessions' wherever `sessions` is (an empty one
  // when none was set up); and a worker callee's invocations per session (wamp_rpc with
  // callee = "worker"). Nothing for a run stored before.
  std::optional<std::vector<uint8_t>> connect_hdr, tls_handshake_hdr, ttfb_hdr, session_setup_hdr;
  std::optional<std::vector<int64_t>> callee_invocations;
  // Schema version 22: the sessions the workers' peer ended in the window (a router's ABORT or
  // GOODBYE), results::Repetition::sessions_ended; empty: none. Nothing for a run stored before.
  std::optional<std::vector<StoredSessionsEnded>> sessions_ended;
  // Empty for runs stored before schema version 7.
  std::vector<StoredSecond> timeline;
  std::vector<StoredWorkerShare> workers;

  bool operator==(const StoredRepetition&) const = default;
};

struct StoredWorkload {
  int64_t id = 0;
  std::string name;
  std::string variant;
  std::string protocol;
  std::string params_json;
  std::string params_hash;
  std::string status;  // ok | failed | not_configured | interrupted
  std::string error;
  // "local" or the workers' hosts (schema version 15); nothing for runs stored before.
  std::optional<std::string> load_from;
  // What its workers answered to Describe (schema version 22; results::WorkloadResult's
  // worker_name and worker_version); nothing where none answered, or for runs stored before.
  std::optional<std::string> worker_name, worker_version;
  // Each worker's Ready.threads in worker order (schema version 24; results::WorkloadResult's
  // worker_threads); nothing where no worker was ready, or for runs stored before.
  std::optional<std::vector<int64_t>> worker_threads;
  // The sweep it is one value of (schema version 26; scenario::Workload's sweep_of,
  // sweep_parameter and sweep_value); nothing for a workload of no sweep, or for runs stored
  // before.
  std::optional<std::string> sweep_of, sweep_parameter;
  std::optional<uint64_t> sweep_value;
  // The summary over repetitions as the store keeps it (workloads table): medians of the
  // repetitions' figures (min and max of throughput), nothing where not measured.
  int64_t repetition_count = 0;
  std::optional<double> ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median;
  std::optional<double> p50_ns_median, p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median;
  uint64_t errors_total = 0;
  std::vector<std::string> flags;                   // every repetition's flags, sorted
  std::optional<std::vector<uint8_t>> latency_hdr;  // every repetition merged; none when empty
  // Its figure of each gate metric that was measured (workload_figures), as gates judge it.
  std::map<std::string, double> figures;
  std::vector<StoredRepetition> repetitions;

  bool operator==(const StoredWorkload&) const = default;
};

struct RunDetail {
  RunSummary run;
  std::string scenario_text;
  std::string scenario_hash;
  Testbed testbed;
  std::vector<StoredWorkload> workloads;
  // In role order; empty for runs stored before schema version 19 (not recorded).
  std::vector<MeasuredBinary> binaries;

  bool operator==(const RunDetail&) const = default;
};

// One gate verdict with every input it used (docs/GATES.md, "Verdicts").
struct GateRecord {
  int gate_index = 0;  // position in the scenario's gate list
  std::string workload;
  std::string variant = "default";
  std::string metric;
  std::string kind;  // absolute | relative
  std::optional<double> threshold;
  std::optional<double> observed;
  std::string baseline;  // baseline name of a relative gate
  std::vector<int64_t> baseline_runs;
  std::optional<double> baseline_centre;
  std::optional<double> effect;
  std::optional<double> p_value;
  std::optional<double> alpha;
  std::string method;
  std::string verdict;   // pass | fail | inconclusive | no_baseline | error
  std::string severity;  // critical | warning
  std::string explanation;
  std::optional<bool> underpowered;  // relative gates that were compared
  std::optional<double> detectable;  // smallest detectable regression (a fraction)
  // The effect's interval (gates/effect_interval.h), two-sided at effect_confidence; nothing
  // where the method gives none and for evaluations stored before schema version 12.
  std::optional<double> effect_low;
  std::optional<double> effect_high;
  std::optional<double> effect_confidence;
  // Change gates with confirm = 1 that needed a rerun: confirmed | cleared | failed, and the
  // rerun's figure and p-value; nothing otherwise (schema 0011).
  std::optional<std::string> confirmation;
  std::optional<double> confirmation_observed;
  std::optional<double> confirmation_p_value;

  bool operator==(const GateRecord&) const = default;
};

struct BaselineEntry {
  std::string name;
  int64_t run_id = 0;
  int64_t added_at_ns = 0;
  std::string scenario;
  std::string commit;
  int64_t started_at_ns = 0;

  bool operator==(const BaselineEntry&) const = default;
};

// One series of one baseline on one testbed (docs/GATES.md, "Series and baselines").
struct HistoryQuery {
  std::string baseline;
  int64_t testbed_id = 0;
  std::string scenario;
  std::string workload;
  std::string variant = "default";
  std::string params_hash;
  std::string metric;  // as docs/SCENARIOS.md names it
  int k = 10;
  // Two bounds on the run ids, each read by one function only (the other ignores it).
  // Read by Store::baseline_history only: only runs stored before this one, excluded (a
  // smaller id: ids increase with start time), so that a run judged again (`orchestrator gate
  // RUN`) sees the history it had; 0: every run.
  int64_t before_run = 0;
  // Read by Store::series_runs only: only runs up to and including this one (the history a
  // report of this run shows, the same whenever the report is made); 0: every run.
  int64_t through_run = 0;
  // Read by Store::series_runs only: whose runs (kOperatorRuns, kClientRuns). A baseline's
  // runs are history of relative gates whoever submitted them: only the operator adds a
  // client's run to one (serve --allow-promote).
  std::string submitted_by = std::string(kOperatorRuns);
};

// One finished run of a series (any baseline) with its per-repetition values of the metric,
// its figure and the baselines it belongs to, for the report's history charts.
struct SeriesRun {
  int64_t run_id = 0;
  int64_t started_at_ns = 0;
  std::string commit;
  std::string branch;
  std::vector<double> values;
  std::vector<std::string> baselines;  // names, sorted
  // The run's figure of the metric (workload_figures, results::metric_figure): what its report
  // prints, its gates judge and its change points analyse.
  double figure = 0;
};

// One baseline run of a series with its figure (workload_figures) and its per-repetition
// values of the metric.
struct HistoryRun {
  int64_t run_id = 0;
  int64_t started_at_ns = 0;
  std::string commit;
  double figure = 0;
  std::vector<double> values;
};

// One series for change-point detection (docs/GATES.md, "Change points"): a metric of one
// workload definition on one testbed, over its finished 'ok' runs of one side.
struct ChangeSeriesKey {
  std::string scenario;
  int64_t testbed_id = 0;
  std::string workload;
  std::string variant = "default";
  std::string params_hash;
  std::string metric;
  std::string submitted_by = std::string(kOperatorRuns);  // kOperatorRuns or kClientRuns

  bool operator==(const ChangeSeriesKey&) const = default;
};

// One series of one testbed, as calibrations are kept (docs/GATES.md, "Calibration").
struct SeriesKey {
  int64_t testbed_id = 0;
  std::string scenario;
  std::string workload;
  std::string variant = "default";
  std::string params_hash;
  std::string metric;

  bool operator==(const SeriesKey&) const = default;
};

// Which series `history changes` looks at; empty (0) fields match everything. With a branch,
// the series holds only that branch's runs.
struct ChangeSeriesFilter {
  std::string scenario;
  std::string workload;
  std::string variant;
  std::string metric;
  std::string branch;
  int64_t testbed_id = 0;
  // The series up to and including this run only (the change points a report of that run
  // shows, whenever it is made); 0: every run.
  int64_t through_run = 0;
  // kOperatorRuns or kClientRuns: that side's series only; empty: both.
  std::string submitted_by;
};

// A change point with the runs around it.
struct StoredChangePoint {
  int64_t run_id = 0;           // the first run after the change
  int64_t previous_run_id = 0;  // the last run before it
  std::string commit;           // of run_id
  std::string previous_commit;  // of previous_run_id: the change is in previous..commit
  int64_t started_at_ns = 0;    // of run_id
  int64_t position = 0;         // of run_id in the series, 0-based
  int64_t runs_before = 0;      // the runs compared on either side
  int64_t runs_after = 0;
  double median_before = 0;
  double median_after = 0;
  std::optional<double> change;  // gates::relative_change; nothing from 0 to another value
  std::optional<double> change_low, change_high;  // 95% interval; nothing when unbounded
  double p_value = 1;

  bool operator==(const StoredChangePoint&) const = default;
};

struct SeriesChanges {
  ChangeSeriesKey key;
  std::string testbed_host;
  int64_t points = 0;       // runs in the series
  bool from_store = false;  // true: read from change_points; false: computed now
  std::vector<StoredChangePoint> changes;
};

// What `orchestrator calibrate` measured for one series: the between-run noise of its figure
// over an A/A series of runs, and the smallest regression a relative gate can detect.
struct CalibrationRecord {
  SeriesKey series;
  int64_t calibrated_at_ns = 0;
  // The newest run stored when the calibration was: only runs with a larger id are judged with
  // it (Store::calibration). 0 when storing: the store fills it in.
  int64_t last_run_id = 0;
  int runs = 0;
  std::vector<int64_t> run_ids;
  double mean = 0;    // base units
  double cv = 0;      // standard deviation / mean of the figure
  double log_sd = 0;  // standard deviation in the gates' log space
  double alpha = 0.01;
  double detectable_1 = 0;  // with 1 baseline run (a fraction: 0.05 = 5%)
  double detectable_5 = 0;  // with 5 baseline runs

  bool operator==(const CalibrationRecord&) const = default;
};

}  // namespace benchgate::store
