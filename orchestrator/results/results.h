// The measured results of a run, as domain types: what the engine produces and what the
// report, the store and the gates consume. Nothing here knows gRPC, SQLite or Prometheus.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/histogram/hdr_histogram.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::results {

// a + b, or the end of T's range the sum would pass: the one rule for figures the workers
// reported summed beyond one window (repetitions, the timeline's seconds; each window's sums
// fit, engine/window_merge.cc refuses one that would not), which stop there rather than wrap
// round to a few. T is the first argument's type, so `saturated_sum(count, part)` keeps
// count's type whatever part's is.
template <typename T>
constexpr T saturated_sum(T a, std::type_identity_t<T> b) {
  static_assert(std::is_integral_v<T>);
  T out{};
  if (!__builtin_add_overflow(a, b, &out)) return out;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return std::numeric_limits<T>::min();
  }
  return std::numeric_limits<T>::max();
}

// Whether a count summed by saturated_sum stopped at UINT64_MAX: it may stand for any sum from
// there up (a count of exactly that is at least it too). The one rule for count_text and the
// JSON report's `errors_at_least`.
constexpr bool count_capped(uint64_t count) {
  return count == std::numeric_limits<uint64_t>::max();
}

// A count as text: a capped one (count_capped) reads "at least 18446744073709551615", every
// report's summed counts so (summary rows, errors by kind, the nothing-succeeded reason, the
// counts, connections, handshakes, sessions and callees lines); metric_figure's errors.count, a
// double sum, may be larger.
std::string count_text(uint64_t count);

// The router's own view of one measured window: differences of its counters between the
// snapshot before and the one after the window.
struct RouterWindow {
  bool collected = false;  // the router counted requests (`requests`; the bundled router only)
  // counter_deltas were read: the bundled router's counters, or a command's or external
  // system's from its [router] metrics endpoint (docs/MEASUREMENT.md, "The system under test's
  // counters").
  bool counters_collected = false;
  std::map<std::string, uint64_t> counter_deltas;  // "http_requests{route=/bench/hello,status=200}"
  uint64_t requests = 0;                           // sum of all request counters in the window
  // CPU and RSS were measured (the bundled router's own figures, or a spawned command's
  // process tree from /proc); false for an external system.
  bool sampled = false;
  double cpu_seconds = 0;                // user + system during the window
  uint64_t rss_bytes = 0;                // after the window
  std::optional<HdrHistogram> handling;  // server-side handling time (delta)
};

// Latency figures as an external tool printed them (the h2load and wrk worker adapters), in
// nanoseconds. A figure the tool did not give is absent, never 0. Percentiles are keyed as
// written in scenario metrics: "50", "75", "90", "99", "99.9".
struct ToolLatency {
  std::string tool;  // "h2load 1.52.0"
  std::optional<int64_t> min_ns;
  std::optional<int64_t> mean_ns;
  std::optional<int64_t> stdev_ns;
  std::optional<int64_t> max_ns;
  std::map<std::string, int64_t> percentiles_ns;
};

// The key of a percentile in ToolLatency::percentiles_ns: 50 -> "50", 99.9 -> "99.9".
std::string percentile_key(double percentile);

// The flag of a window in which a worker or the system under test was stopped.
inline constexpr std::string_view kProcessStopped = "process_stopped";
// The flag of a repetition measured without every worker of its workload: one was lost (its
// process died, its stream ended, it stopped answering) and on_worker_loss = "continue" let
// the others finish. Its figures describe less load than the workload asks for: it is never
// history for a baseline and gates do not judge it (docs/GATES.md, "Verdicts").
inline constexpr std::string_view kDegraded = "degraded";
// Flags in the one order every report writes them, a repetition's row and its workload's union
// alike: docs/MEASUREMENT.md's "Flags" table's (the engine raises them in another, and a union
// came out alphabetical). A flag the table does not name (a later build's, read from a store)
// comes after them, alphabetically; a repeated one once.
std::vector<std::string> ordered_flags(std::vector<std::string> flags);
// One second of a measured window, from the workers' progress intervals merged
// (engine/timeline.h says how).
struct TimelineSecond {
  uint32_t second = 0;            // [second, second + 1) s from the window's start
  double ops_per_second = 0;      // successful operations per second, summed over workers
  uint64_t errors = 0;            // failed operations in the second
  std::optional<int64_t> p50_ns;  // absent when no worker sent a histogram for the second
  std::optional<int64_t> p99_ns;
  std::optional<int64_t> max_ns;
};

// One worker's own figures of a measured window, before the workers are merged, with the
// definitions of Repetition (successes over the worker's data window).
struct WorkerShare {
  uint32_t worker = 0;
  uint64_t operations = 0;
  uint64_t successes = 0;
  uint64_t errors = 0;
  double ops_per_second = 0;
  std::optional<int64_t> p99_ns;  // absent: not measured (no histogram, no successes)
  std::optional<int64_t> max_ns;
  std::optional<double> cpu_utilization;         // absent when the worker did not measure CPU
  std::optional<int64_t> p50_ns = std::nullopt;  // absent as p99_ns
  // Where the worker ran: "local" (spawned, or at a loopback address) or its HOST:PORT.
  std::string host = {};
  // Its clock minus the orchestrator's and the round-trip time of the exchange before the
  // window (engine/start_sync.h); absent: not measured (a worker that does not answer).
  std::optional<int64_t> clock_offset_ns = std::nullopt;
  std::optional<int64_t> rtt_ns = std::nullopt;
  // Its achieved start on the orchestrator's clock minus the shared start; absent: the
  // worker did not report its start.
  std::optional<int64_t> start_skew_ns = std::nullopt;
};

// How the workers' connections were set up (worker.proto ConnectionSetup): those made since
// the previous measured window (the first: since the workload's streams began), merged.
struct ConnectionSetup {
  uint64_t connections = 0;
  uint64_t handshakes = 0;
  uint64_t resumed = 0;        // TLS handshakes in which the server resumed the offered session
  HdrHistogram connect;        // TCP connect (ns)
  HdrHistogram tls_handshake;  // TLS handshake (ns); empty for cleartext
  HdrHistogram ttfb;           // a connection's first request to its first response byte (ns)
};

// TLS as the server chose it (OpenSSL's names).
struct NegotiatedTls {
  std::string version;  // "TLSv1.3"
  std::string cipher;
  std::string alpn;  // "" when the server selected none
};

// wamp_transfer: sums over a window's verified transfers, every worker's (docs/MEASUREMENT.md
// "Transfer throughput"): data window (first chunk's arrival to the last one's, the chunks
// after the first) and lifecycle (TCP connect to the close after GOODBYE, every byte).
struct TransferSums {
  uint64_t transfers = 0;
  uint64_t data_bytes = 0;
  int64_t data_ns = 0;
  uint64_t lifecycle_bytes = 0;
  int64_t lifecycle_ns = 0;
  // 8 * bytes / ns; nullopt when no time was measured (no transfer, or one chunk each).
  std::optional<double> data_gbps() const;
  std::optional<double> lifecycle_gbps() const;
};

// The sessions a worker's peer ended in a window for one reason (worker.proto
// WindowResult.sessions_ended): WAMP, the router's ABORT or GOODBYE to a joined session, each
// also one "protocol" error.
struct SessionsEnded {
  uint32_t worker = 0;  // the worker's index in the workload
  // The peer's words as the worker quoted them ("ABORT wamp.close.system_shutdown: ..."), shown
  // escaped and bounded; "": the worker's sessions ended for reasons past its first 8.
  std::string reason;
  uint64_t sessions = 0;

  bool operator==(const SessionsEnded&) const = default;
};

// One measured window (a repetition), merged over every worker and thread.
struct Repetition {
  uint32_t index = 0;          // 0-based among measured windows
  int64_t start_unix_ns = 0;   // the shared start instant
  int64_t duration_ns = 0;     // configured window length (load sent during it)
  int64_t data_window_ns = 0;  // first send to last receive, over all workers (the span)
  // Of the window and completed or failed (closed loop: started in it; open loop: due in it).
  uint64_t operations = 0;
  uint64_t successes = 0;
  // What completed inside the window, which throughput counts (docs/MEASUREMENT.md
  // "Throughput"). in_window false: a worker did not report it; successes over the data
  // window stand in and the repetition is flagged "throughput_span".
  bool in_window = false;
  uint64_t window_successes = 0;
  uint64_t window_bytes_received = 0;
  uint64_t window_payload_bytes = 0;       // measured unless "payload_bytes" is in not_measured
  std::map<std::string, uint64_t> errors;  // by kind
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t late_sends = 0;  // open loop
  uint64_t unsent = 0;  // open loop: due in the window, unwritten at its end (sent in the drain)
  uint64_t events_expected = 0;              // wamp_pubsub: publications x subscribers
  uint64_t events_delivered = 0;             // wamp_pubsub: events the subscribers received
  HdrHistogram latency;                      // corrected latency (ns)
  std::optional<HdrHistogram> service_time;  // open loop: uncorrected (ns)
  double worker_cpu_seconds = 0;             // all workers, user + system
  // The busiest load thread's CPU over the window / the window (thread CPU clocks); from a
  // worker that reports no thread CPU, its process CPU / (wall * threads), drain included.
  double worker_cpu_utilization = 0;
  // The load thread that waited longest for a CPU: run delay / window; nullopt: not measured.
  std::optional<double> worker_cpu_wait_share;
  // Per worker, in the order of `workers`: the instant it started sending minus the shared
  // start instant (ns); empty unless every worker reported its start.
  std::vector<int64_t> worker_start_skew_ns;
  // A run stored before each worker's skew was (SQLite schema version 15) kept only the
  // largest: it, which max_start_skew_ns() answers while worker_start_skew_ns is empty. Never
  // set by a live run.
  std::optional<int64_t> stored_max_start_skew_ns;
  // From the earliest to the latest of the shared start and every worker's achieved start;
  // absent unless every worker reported its start. Past the workload's max_start_skew it
  // flags `start_skew`.
  std::optional<int64_t> start_spread_ns;
  uint64_t latency_clamped = 0;  // latencies above the histograms' highest trackable value
  RouterWindow router;
  std::vector<std::string> flags;  // "worker_saturated", "router_count_mismatch", ...
  // Who was stopped (SIGSTOP, a debugger) at some moment of the window, even if continued
  // before its end: "worker 0 (pid 4242)", "router (pid 4243)". Such a window is flagged
  // kProcessStopped, and gates do not judge its workload (docs/GATES.md, "Verdicts").
  std::vector<std::string> stopped;
  // Set, instead of `latency`, when the workers wrap a tool that prints no histogram.
  std::optional<ToolLatency> tool_latency;
  // Fields the workers could not measure in this window ("bytes_sent", "bytes_received",
  // "data_window", "service_time", "cpu"): reported "not measured", never as their zero.
  std::set<std::string> not_measured;
  // The window second by second, and each worker's share of it. Empty for runs stored
  // before schema version 7.
  std::vector<TimelineSecond> timeline;
  std::vector<WorkerShare> workers;
  // Set when every worker reported it (the bundled worker's HTTP drivers); absent: not measured.
  std::optional<ConnectionSetup> setup;
  std::optional<NegotiatedTls> tls;  // absent: cleartext, or not reported
  uint32_t requested_streams = 0;    // http2; 0: not http2 or not reported
  uint32_t effective_streams = 0;    // the fewest streams any worker's connection could use
  // Connections set up between the window's start and end, over every worker
  // (worker.proto WindowResult.window_connections); absent unless every worker reported setups.
  std::optional<uint64_t> window_connections;
  // wamp_transfer only: absent unless every worker reported it.
  std::optional<TransferSums> transfer;
  // wamp_rpc with callee = "worker": the INVOCATIONs each callee session got in the window,
  // every worker's sessions in worker order (worker.proto WindowResult.callee_invocations);
  // empty otherwise. With invoke = "roundrobin" over N sessions of one worker each gets
  // calls / N (the remainder to the first ones).
  std::vector<uint64_t> callee_invocations;
  // The sessions the workers' peer ended in the window, worker by worker, each worker's reasons
  // in the order they first came. Stored from schema version 22 (repetitions.sessions_ended); a
  // run stored before reads back none, with "sessions_ended" in not_stored where it could have
  // had some (a WAMP workload's repetition with protocol errors).
  std::vector<SessionsEnded> sessions_ended;
  // WAMP: every session set up since the previous repetition's result (the first: since the
  // workers connected), connect start to WELCOME; absent unless every worker reported it.
  std::optional<HdrHistogram> session_setup;
  // Read back from a run stored before SQLite schema version 21: what the run measured but the
  // store did not keep, which reports say is not stored, never "-" as if not measured: "setup"
  // (the connection setup histograms, of which it kept each repetition's p50 and p99; `setup`
  // holds the counts), "session_setup" (likewise; stored_sessions is the count) and
  // "callee_invocations"; before version 22, "sessions_ended". Never set by a live run.
  std::set<std::string> not_stored;
  std::optional<uint64_t> stored_sessions;

  bool measured(std::string_view field) const { return !not_measured.count(std::string(field)); }
  uint64_t error_count() const;
  // Successful operations completed inside the window per second of the window (when the
  // workers did not report in-window counts: successes per second of the data window, or of
  // the configured window when they could not measure the data window either).
  double ops_per_second() const;
  // Wire bytes read (responses, headers and framing included) per second, counted as
  // ops_per_second is.
  double bytes_per_second() const;
  // Payload bytes of the successes inside the window per second of the window; nullopt when
  // not measured.
  std::optional<double> payload_bytes_per_second() const;
  // The largest start skew of any worker (by magnitude); nullopt when none was reported (of a
  // run stored before schema version 15: stored_max_start_skew_ns).
  std::optional<int64_t> max_start_skew_ns() const;
  // A latency percentile (100 = max) of this window: from the histogram, or from the tool
  // when it printed exactly this figure; nothing when it was not measured, nor when the window
  // completed no success (has_latency_to_measure), whatever a tool printed.
  std::optional<int64_t> latency_at(double percentile) const;
  std::optional<double> latency_mean() const;
  // Whether this window completed a success: latency is of successes only, so a window that
  // completed none (every request answered 500, say) has no latency to measure, which is not
  // "not collected" (metric_values skips it, as the store does, metric_columns.h).
  bool has_latency_to_measure() const;
  // The tool's printed figures when they stand for latency: nullptr without them, or when the
  // window completed no success (a tool such as h2load times failed requests too).
  const ToolLatency* tool_latency_of_successes() const;
  // Worker `worker`'s (an index into `workers`) latency percentile, 50, 99 or 100 (max), as
  // every report's per-worker table gives it (terminal, HTML, JSON workers[]): its own
  // histogram's; where the repetition's only worker wraps a tool (no histogram), the tool's
  // figures, which are that worker's (latency_at: nothing unless the tool printed exactly this
  // figure and the window completed a success, tool_latency_of_successes); otherwise nothing
  // (not measured). With several workers wrapping tools only their union's figures are kept.
  std::optional<int64_t> worker_latency_at(size_t worker, double percentile) const;
  // The system under test's CPU seconds per request in this window: its CPU time over the
  // requests it counted, or over the workers' operations when it counts none (a command);
  // nothing when its CPU was not measured or nothing was served.
  std::optional<double> router_cpu_per_request() const;
  // window_connections per second of the configured window: a new_connection_per_request
  // workload's handshakes/s (docs/MEASUREMENT.md, "Handshakes per second"); nothing when not
  // reported.
  std::optional<double> handshakes_per_second() const;
};

// A summary statistic over repetitions: median with minimum and maximum.
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};

// kNotConfigured: a compared variant whose program is not installed; never a number.
// kInterrupted: SIGINT or SIGTERM cut it short (not a failure of the workload); it keeps the
// repetitions it completed.
enum class WorkloadStatus { kOk, kFailed, kNotConfigured, kInterrupted };

// "ok", "failed", "not_configured", "interrupted" (as reports print it).
const char* status_name(WorkloadStatus status);

struct WorkloadResult {
  scenario::Workload spec;
  std::string variant = "default";
  WorkloadStatus status = WorkloadStatus::kOk;
  std::string error;  // why it failed, when it did
  // Where the load came from: "local" when every worker ran on this machine (spawned, or at a
  // loopback address), else the workers' hosts in worker order, comma-separated, "local" for
  // those on this machine. Empty: not known (a run stored before schema version 15).
  std::string load_from;
  // What its workers answered to Describe (docs/WORKER_PROTOCOL.md, "Describe"), each escaped and
  // cut (workers::described_as); workers that answered differently give each one's distinct
  // values, ", " between. Empty: no worker answered (the workload never reached its workers), or
  // a run stored before schema version 22.
  std::string worker_name;
  std::string worker_version;
  // The load threads each worker said it runs (Ready.threads), in worker order: not always the
  // scenario's `threads` (wamp_pubsub runs at most its publishers and subscribers, a tool adapter
  // the tool's). Empty: no worker was ready, or a run stored before schema version 24.
  std::vector<uint32_t> worker_threads;
  std::vector<Repetition> repetitions;
  HdrHistogram latency;  // every measured repetition merged (merge_latency)

  // Sets `latency` to every repetition's merged; empty where their samples sum past INT64_MAX
  // (each repetition's fit, their sum need not): no histogram holds them, and the merge of the
  // repetitions that fitted would pass for all of them.
  void merge_latency();

  // Figures over repetitions (median, min, max). Empty repetitions give zero spreads;
  // callers check repetitions.empty() before presenting them as measured.
  Spread ops_per_second() const;
  Spread bytes_per_second() const;
  // Median over repetitions; nullopt unless every repetition measured it.
  std::optional<Spread> payload_bytes_per_second() const;
  uint64_t error_count() const;
  // Each error kind's count over every repetition (saturated_sum), as the reports list them.
  std::map<std::string, uint64_t> error_kinds() const;
  std::vector<std::string> flags() const;  // union over repetitions
  bool degraded() const;                   // a repetition is flagged kDegraded
  // Whether every repetition measured `field` (see Repetition::not_measured).
  bool measured(std::string_view field) const;
  // The tool whose printed figures stand for latency ("" when the workers sent histograms).
  std::string latency_tool() const;
  // A latency percentile (100 = max) over all repetitions: from the merged histogram; with
  // tool figures, the median of the repetitions' figures (the max of their max), and nothing
  // unless every repetition has it.
  std::optional<int64_t> latency_at(double percentile) const;
  std::optional<double> latency_mean() const;
  // Connection setup of every repetition merged; nullopt unless every repetition measured it,
  // or where the repetitions' samples of one histogram sum past INT64_MAX.
  std::optional<ConnectionSetup> setup() const;
  // TLS the server chose in the last repetition that reported it; nullopt: cleartext.
  std::optional<NegotiatedTls> tls() const;
  // http2: streams asked for, and the fewest a connection could use over the repetitions
  // (0: not http2).
  uint32_t requested_streams() const;
  uint32_t effective_streams() const;
  // new_connection_per_request only: handshakes/s over the repetitions (median, min, max),
  // nullopt unless every repetition reported its window's connections.
  std::optional<Spread> handshakes_per_second() const;
  // wamp_transfer: Gbit/s over the data window and over the lifecycle (median, min, max over
  // the repetitions); nullopt unless every repetition measured it.
  std::optional<Spread> transfer_data_gbps() const;
  std::optional<Spread> transfer_lifecycle_gbps() const;
  // WAMP: every repetition's session setups merged; nullopt unless every repetition has them
  // and their samples sum within INT64_MAX.
  std::optional<HdrHistogram> session_setup() const;
};

// Every value of a named metric (as gates and docs/SCENARIOS.md name them) per repetition, or
// nullopt when the metric was not collected for this workload. A repetition with nothing to
// measure is left out (latency: no success; connect.p99 and the other setup percentiles, no
// connection set up; session_setup.p99, no session): the metric is then not collected only
// when no repetition has it.
std::optional<std::vector<double>> metric_values(const WorkloadResult& workload,
                                                 const std::string& metric);

// One value of metric_values with the repetition it is of (Repetition::index), which a skipped
// repetition makes differ from its position: a paired gate pairs two variants' windows by it.
struct RepetitionValue {
  uint32_t repetition = 0;
  double value = 0;
  bool operator==(const RepetitionValue&) const = default;
};
// metric_values with the repetition of each value.
std::optional<std::vector<RepetitionValue>> metric_values_by_repetition(
    const WorkloadResult& workload, const std::string& metric);

// The workload's figure of a named metric, as every report prints it (docs/GATES.md, "What a gate
// judges"): the median over repetitions of throughput, latency from the histogram of every
// repetition merged (the tool's figures as latency_at gives them), errors summed (errors.rate:
// all errors over all operations), router CPU over all requests, the peak router RSS and the
// busiest worker's CPU utilization. Absolute gates judge it, relative gates compare it, the
// terminal, RESULT lines, JSON and the store print it. nullopt when not collected.
std::optional<double> metric_figure(const WorkloadResult& workload, const std::string& metric);

// Why this workload is not history of its series, or "" when it is (docs/GATES.md, "Series
// and baselines"): it did not finish ok ("it failed"), or a repetition was measured while a
// process was stopped ("repetition 2 was measured while worker 0 (pid 4242) was stopped (flag
// process_stopped)") or without every worker ("repetition 2 was measured without every worker
// (flag degraded)"). The rule of the stored history (store::internal::
// history_workload_condition), for what is judged in memory: `orchestrator calibrate`.
std::string not_history_reason(const WorkloadResult& workload);

// Why `metric` was not measured for this workload when its workers could not measure it (a
// worker adapter's tool that did not print the figure, a field in not_measured), else "".
std::string not_measured_reason(const WorkloadResult& workload, const std::string& metric);

// Why `metric`, though it has a value, counts only part of what it names, else "": errors.count
// and errors.rate of a workload whose workers declared an error kind not measured
// (`errors.connect` from the h2load adapter, whose failed connects are counted nowhere). The
// value is a lower bound; a gate on it is an error, never a pass (docs/GATES.md).
std::string partly_measured_reason(const WorkloadResult& workload, const std::string& metric);

}  // namespace benchgate::results
