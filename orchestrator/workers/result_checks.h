// The contract rules a worker's WindowResult must satisfy (docs/WORKER_PROTOCOL.md, "What a
// result must contain"), as pure functions so `orchestrator worker-check` and tests share them.
// Their messages quote what a worker sent (a tool's name, a percentile key, an error kind, a
// not_measured name) cut after 200 bytes ("..." then) and escaped as common/util/shown_text.h
// escapes, so that a worker's text can neither forge nor colour a line, nor run on unbounded.
#pragma once

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
};

struct RuleOutcome {
  std::string rule;  // "histogram decodes", ...
  bool passed = false;
  std::string detail;  // what was seen
};

// Every rule for one window's result, in a fixed order.
std::vector<RuleOutcome> check_window_result(const v1::WindowResult& result,
                                             const WindowFacts& window);

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
