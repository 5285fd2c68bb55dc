// The contract rules a worker's WindowResult must satisfy (docs/WORKER_PROTOCOL.md, "What a
// result must contain"), as pure functions so `orchestrator worker-check` and tests share them.
// Their messages quote what a worker sent (a tool's name, a percentile key, an error kind, a
// not_measured name) cut after 200 bytes ("..." then) and escaped as common/util/shown_text.h
// escapes, and list at most 10 such names ("and N more" then; common/util/shown_list.h), so
// that a worker's text can neither forge nor colour a line, nor run on unbounded.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/histogram/hdr_histogram.h"

namespace benchgate::workers {

struct WindowFacts {
  uint32_t index = 0;
  int64_t start_at_unix_ns = 0;
  int64_t duration_ns = 0;
  int64_t drain_timeout_ns = 0;
  // The start instant on the worker's own CLOCK_MONOTONIC, sent to a worker that takes part in
  // the clock exchange (Window.start_at_worker_ns); 0: none sent.
  int64_t start_at_worker_ns = 0;
};

struct RuleOutcome {
  std::string rule;  // "histogram decodes", ...
  bool passed = false;
  std::string detail;  // what was seen
};

// Every rule worker-check applies to one window's result, in a fixed order: those of
// check_result() and check_latency_count() (`run`'s too), and the stricter ones only
// worker-check's own workload allows (docs/WORKER_PROTOCOL.md "What a result must contain":
// operations > 0, bytes and CPU above 0, the data window and the start inside the window).
std::vector<RuleOutcome> check_window_result(const v1::WindowResult& result,
                                             const WindowFacts& window);

// Every rule a result must obey whatever the workload and wherever the worker runs, in the
// order check_window_result() lists them: "" when it holds, else the first broken one as "in
// window W, <field>: <what>" (W = window.index). `run` refuses such a window naming the worker
// ("worker N sent a malformed result: in window W, ..."; engine/window_merge.cc), worker-check
// fails its rule. `window.drain_timeout_ns` is not used: the instants a worker reports on
// CLOCK_REALTIME are judged against the window within kClockDisagreementNs, which covers any
// drain, so that a remote worker's clock may disagree with the orchestrator's.
std::string check_result(const v1::WindowResult& result, const WindowFacts& window);

// How far before the window's start instant, or after its end, an instant a worker reports on
// CLOCK_REALTIME (started_unix_ns, first_send_unix_ns, last_receive_unix_ns) may lie before it
// is refused: 1 h, far more than the drain (seconds) and than two hosts' clocks disagree while
// NTP keeps them (milliseconds; the start itself is set on each worker's clock by the clock
// exchange, docs/MEASUREMENT.md "Clock offset and start skew"). An instant in another unit
// than ns (s, ms, us) lies decades away.
inline constexpr int64_t kClockDisagreementNs = 3'600'000'000'000;

// How much more CPU a load thread may report than the wall time of its window: one tick of a
// 100 Hz scheduler clock (10 ms), the coarsest granularity a thread CPU clock has.
inline constexpr int64_t kThreadCpuSlackNs = 10'000'000;

// The single rules check_result() is made of, each "" when it holds, else what is wrong, naming
// the field (no window prefix).
// successes <= operations.
std::string check_counts(const v1::WindowResult& result);
// The data window (unless `data_window` is declared not measured, when both instants are 0):
// each instant reported (not 0) within kClockDisagreementNs of the window, and with a success,
// both reported and the last receive not before the first send.
std::string check_data_window_instants(const v1::WindowResult& result, const WindowFacts& window);
// started_unix_ns, when reported (not 0), within kClockDisagreementNs of the window; and
// started_worker_ns, when reported to a worker sent window.start_at_worker_ns, within
// kClockDisagreementNs of the window on that clock (the clock exchange measured the offset, so
// the hour is far more than either clock's error). A worker clock's value that is not ns is
// named so when scaled to ns it lies in the window ("...; x 1000000 it lies in the window:
// milliseconds, not nanoseconds?"); one of a clock read less than an hour after its epoch
// (a machine booted less than an hour ago) lies within the hour either way, and is taken.
std::string check_started(const v1::WindowResult& result, const WindowFacts& window);
// Unless `cpu` is declared not measured: cpu_user_ns, cpu_system_ns not negative, wall_ns
// above 0 and threads at least 1 (the utilisation cpu / (wall x threads) needs them); each
// thread_cpu entry's cpu_ns, wall_ns and run_delay_ns not negative and its cpu_ns at most its
// wall_ns + kThreadCpuSlackNs (a thread runs on one CPU at a time).
std::string check_cpu(const v1::WindowResult& result);
// Unless `bytes_received` is declared not measured: at least one byte received per success
// (every protocol's answer, an HTTP status line, an HTTP/2 frame, a WAMP message, is bytes).
std::string check_bytes_received(const v1::WindowResult& result);

// A latency histogram of `samples` samples for the result's successes: one sample per success
// (unless the result gives a tool's figures instead). "" when it holds, else what is wrong.
// Apart from check_result(): the histogram is decoded where it is used.
std::string check_latency_count(const v1::WindowResult& result, int64_t samples);

// A Progress event of window `window`: it names that window and its interval_ns is not
// negative. "" when it holds, else what is wrong. Its errors may exceed its operations: they
// include the failures that belong to no operation (a failed reconnect), as a result's do.
std::string check_progress(const v1::Progress& progress, uint32_t window);

// One result per window (docs/WORKER_PROTOCOL.md "The Run stream"): the results of one Run
// stream, held to it by `run` and worker-check alike, so that both say the same of a result
// that comes out of turn.
class OneResultPerWindow {
 public:
  // A result naming window `window` that came while window `running` ran (`between`: in the
  // clock exchange before it, where no result is due). "" when it is that window's first, now
  // taken; else what the worker sent, after "worker N sent " (`run`) or "the worker sent "
  // (worker-check): "a malformed result: a second result for window X" for a window it answered
  // already, wherever the second comes, else "a result for window X while window W was
  // running".
  std::string take(uint32_t window, uint32_t running, bool between = false);
  // Whether a result of window `window` was taken.
  bool answered(uint32_t window) const { return answered_.count(window) > 0; }

 private:
  std::set<uint32_t> answered_;
};

// A Ready answering a spec of `asked` connections: every one of them established (more: a
// worker may count sessions of its own beside them, as the bundled one's WAMP callees). ""
// when it holds, else what is wrong.
std::string check_ready(const v1::Ready& ready, uint32_t asked);

// The rules a result must obey within itself, whatever the window: "" when it holds, else
// what contradicts what, naming the fields. worker-check fails the rule; `run` refuses the
// window naming the worker (engine/window_merge.cc), so such a result never becomes a figure.
//
// Every failed operation counts one error under one kind (docs/MEASUREMENT.md "Operations,
// successes and errors"), so the errors add up to at least operations - successes (more when
// a failure belonged to no operation), unless an error kind is declared not measured
// (`errors.KIND` in not_measured): the failures the worker could not detect are then missing.
std::string check_error_total(const v1::WindowResult& result);

// The errors are counted under the protocol's kinds only (common/workload/error_kinds.h), and
// an `errors.KIND` in not_measured names one of them and counts none.
std::string check_error_kinds(const v1::WindowResult& result);

// not_measured names fields a worker may leave unmeasured (`bytes_sent`, `latency`, ...,
// `errors.KIND`; docs/WORKER_PROTOCOL.md), nothing else: "" when it does, else the names that
// are no such field, and the fields.
std::string check_not_measured(const v1::WindowResult& result);

// What completed inside the window is part of what completed (docs/MEASUREMENT.md
// "Throughput"): in_window.successes <= successes, in_window.bytes_received <= bytes_received,
// and the payload of those successes was read in those bytes, in_window.payload_bytes <=
// in_window.bytes_received (each byte rule where its fields are measured).
std::string check_in_window(const v1::WindowResult& result);

// A tool's printed latency figures (ToolLatency, from a worker that wraps a tool without
// histograms) hold together as a histogram's do: none negative, every key a percentile (a
// number above 0, at most 100), and min <= each percentile <= max with a higher percentile
// never below a lower one (p50 <= p90 <= p99 <= p99.9, the keys ordered as numbers). "" when
// they do, else the first two figures out of order ("tool_latency of 'wrk 4.2.0' is out of
// order: p99 1500 ns < p50 2000 ns"). worker-check fails the tool_latency rule with it; `run`
// refuses the window naming the worker and the window (engine/window_merge.cc).
std::string check_tool_latency_order(const v1::ToolLatency& tool);

// A Histogram field: empty, or an HdrHistogram V2 encoding with benchgate's layout
// (1 ns .. 1 h, 3 digits). Returns "" when it conforms, else why not; `count` gets the total.
std::string check_histogram(const v1::Histogram& histogram, int64_t& count);

// A histogram's encoding decoded only in benchgate's layout, the layout read from the header
// before any count (counts made for another layout need not even fit the one declared): the
// histogram, or why not ("layout is 1..1000000000 ns with 2 digits, not 1..3600000000000 ns
// with 3 digits", or why it does not decode). What a worker's progress and the router's
// handling histogram are read with; check_histogram says the same of a result's.
Expected<HdrHistogram> decode_histogram(const std::string& encoded);

}  // namespace benchgate::workers
