#include "orchestrator/workers/result_checks.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <span>
#include <string_view>

#include "common/histogram/hdr_histogram.h"
#include "common/util/shown_list.h"
#include "common/workload/error_kinds.h"

namespace benchgate::workers {
namespace {

// Clocks of one host agree, but the worker may start its window a little before the shared
// instant (it rounds, or its sleep wakes early) and a result travels after the drain.
constexpr int64_t kEarlyStartNs = 50'000'000;
constexpr int64_t kLateResultNs = 2'000'000'000;

std::string ns(int64_t value) { return std::to_string(value) + " ns"; }

// Text a worker sent (a tool's name, a percentile key, an error kind, a not_measured name) as
// these messages quote it: cut after ShownList::kItemBytes bytes ("..." then) and escaped as
// shown_text() does (common/util/shown_text.h), so that it can neither forge nor colour a line
// of the terminal or the report, nor run on unbounded. A list of such names is a ShownList:
// the first ShownList::kItems of them, then how many more.
std::string shown(std::string_view text) { return shown_cut(text, ShownList::kItemBytes); }

bool declared(const v1::WindowResult& result, std::string_view field) {
  for (const std::string& name : result.not_measured()) {
    if (name == field) return true;
  }
  return false;
}

// Names a worker may list in not_measured (worker.proto): fields it could not fill, and
// errors.KIND for an error kind it cannot detect.
constexpr const char* kNotMeasuredFields[] = {"bytes_sent", "bytes_received", "data_window",
                                              "latency",    "service_time",   "cpu",
                                              "late_sends", "unsent",         "payload_bytes"};

bool known_not_measured(const std::string& name) {
  for (const char* field : kNotMeasuredFields) {
    if (name == field) return true;
  }
  return name.rfind("errors.", 0) == 0 && error_kinds::known(std::string_view(name).substr(7));
}

std::string joined(const google::protobuf::RepeatedPtrField<std::string>& names) {
  ShownList list;
  for (const std::string& name : names) list.add(name);
  return list.empty() ? "none" : list.text();
}

// A worker that wraps a tool without histograms declares `latency` not measured and gives the
// tool's own figures instead.
void check_tool_latency(const v1::WindowResult& result, const std::string& w,
                        std::vector<RuleOutcome>& out) {
  const v1::ToolLatency& tool = result.tool_latency();
  const bool any = tool.has_min_ns() || tool.has_mean_ns() || tool.has_stdev_ns() ||
                   tool.has_max_ns() || !tool.percentiles_ns().empty();
  const std::string order = check_tool_latency_order(tool);
  out.push_back({w + "latency not measured as a histogram: tool_latency names the tool and "
                     "gives its figures in order (min <= p50 <= p99 <= ... <= max)",
                 !tool.tool().empty() && (any || result.successes() == 0) && order.empty() &&
                     result.latency().hdr_v2_compressed().empty(),
                 "tool '" + shown(tool.tool()) + "', " +
                     std::to_string(tool.percentiles_ns().size()) + " percentiles" +
                     (tool.has_mean_ns() ? ", mean" : "") + (tool.has_max_ns() ? ", max" : "") +
                     (order.empty() ? "" : "; " + order)});
}

}  // namespace

std::string check_tool_latency_order(const v1::ToolLatency& tool) {
  const std::string of = "tool_latency of '" + shown(tool.tool()) + "'";
  // The percentiles by number: as strings "100" would come before "50".
  std::vector<std::pair<double, std::string>> percentiles;
  for (const auto& [key, value] : tool.percentiles_ns()) {
    double percentile = 0;
    const char* end = key.data() + key.size();
    const auto parsed = std::from_chars(key.data(), end, percentile);
    if (parsed.ec != std::errc() || parsed.ptr != end || !(percentile > 0 && percentile <= 100)) {
      return of + ": '" + shown(key) + "' is no percentile (a number above 0, at most 100)";
    }
    percentiles.emplace_back(percentile, key);
  }
  std::sort(percentiles.begin(), percentiles.end());
  // Every figure the order covers, in its order.
  std::vector<std::pair<std::string, int64_t>> figures;
  if (tool.has_min_ns()) figures.emplace_back("min", tool.min_ns());
  for (const auto& [percentile, key] : percentiles) {
    figures.emplace_back("p" + shown(key), tool.percentiles_ns().at(key));
  }
  if (tool.has_max_ns()) figures.emplace_back("max", tool.max_ns());
  for (const auto& [name, value] : figures) {
    if (value < 0) return of + ": " + name + " " + ns(value) + " is negative";
  }
  for (size_t i = 1; i < figures.size(); ++i) {
    const auto& [lower, below] = figures[i - 1];
    const auto& [higher, value] = figures[i];
    if (value < below) {
      return of + " is out of order: " + higher + " " + ns(value) + " < " + lower + " " + ns(below);
    }
  }
  return {};
}

std::string check_counts(const v1::WindowResult& result) {
  if (result.successes() <= result.operations()) return {};
  return "successes " + std::to_string(result.successes()) + " > operations " +
         std::to_string(result.operations());
}

namespace {

// `value` as an instant relative to the window: "1796636994 ns, 1796636994837749997 ns before
// the window's start instant". The distance in unsigned arithmetic, as far_from() takes it: a
// worker may send any int64 (INT64_MIN, INT64_MAX), whose signed difference would overflow.
std::string instant(const char* field, int64_t value, const WindowFacts& window) {
  const auto start = static_cast<uint64_t>(window.start_at_unix_ns);
  const auto end = start + static_cast<uint64_t>(std::max<int64_t>(window.duration_ns, 0));
  const auto at = static_cast<uint64_t>(value);
  std::string where = value < window.start_at_unix_ns
                          ? std::to_string(start - at) + " ns before the window's start"
                          : std::to_string(at - end) + " ns after the window's end";
  return std::string(field) + " " + std::to_string(value) + " is " + where +
         ", more than 1 h (ns since the Unix epoch, CLOCK_REALTIME?)";
}

bool far_from(int64_t value, const WindowFacts& window) {
  // As differences in unsigned arithmetic: any int64 pair subtracts without overflow.
  const auto start = static_cast<uint64_t>(window.start_at_unix_ns);
  const auto end = start + static_cast<uint64_t>(std::max<int64_t>(window.duration_ns, 0));
  const auto at = static_cast<uint64_t>(value);
  const auto slack = static_cast<uint64_t>(kClockDisagreementNs);
  if (value < window.start_at_unix_ns) return start - at > slack;
  return value > static_cast<int64_t>(end) && at - end > slack;
}

}  // namespace

std::string check_data_window_instants(const v1::WindowResult& result, const WindowFacts& window) {
  const int64_t first = result.first_send_unix_ns();
  const int64_t last = result.last_receive_unix_ns();
  if (declared(result, "data_window")) {
    if (first == 0 && last == 0) return {};
    return "data_window is declared not measured, but first_send_unix_ns is " +
           std::to_string(first) + " and last_receive_unix_ns " + std::to_string(last) +
           " (left 0 when not measured)";
  }
  if (first != 0 && far_from(first, window)) return instant("first_send_unix_ns", first, window);
  if (last != 0 && far_from(last, window)) return instant("last_receive_unix_ns", last, window);
  if (result.successes() == 0) return {};
  if (first == 0 || last == 0) {
    return "first_send_unix_ns " + std::to_string(first) + ", last_receive_unix_ns " +
           std::to_string(last) + ": " + std::to_string(result.successes()) +
           " successes were sent and received, but an instant is missing (0)";
  }
  if (last < first) {
    return "last_receive_unix_ns " + std::to_string(last) + " < first_send_unix_ns " +
           std::to_string(first) + " (the data window ends before it begins)";
  }
  return {};
}

namespace {

// A worker-clock instant far from the window, as instant() tells a Unix one, and the unit it
// was likely sent in when scaled to ns it lies in the window: only then, so that a value that
// is merely wrong is not blamed on a unit.
std::string worker_clock_instant(const char* field, int64_t value, const WindowFacts& window) {
  WindowFacts on_worker = window;
  on_worker.start_at_unix_ns = window.start_at_worker_ns;
  const auto start = static_cast<uint64_t>(on_worker.start_at_unix_ns);
  const auto end = start + static_cast<uint64_t>(std::max<int64_t>(window.duration_ns, 0));
  const auto at = static_cast<uint64_t>(value);
  std::string text = std::string(field) + " " + std::to_string(value) + " is " +
                     (value < on_worker.start_at_unix_ns
                          ? std::to_string(start - at) + " ns before the window's start"
                          : std::to_string(at - end) + " ns after the window's end") +
                     " on the worker's clock (start_at_worker_ns " +
                     std::to_string(window.start_at_worker_ns) + "), more than 1 h";
  const std::pair<int64_t, const char*> units[] = {
      {1'000, "microseconds"}, {1'000'000, "milliseconds"}, {1'000'000'000, "seconds"}};
  for (const auto& [scale, unit] : units) {
    if (value <= 0 || value > std::numeric_limits<int64_t>::max() / scale) continue;
    if (!far_from(value * scale, on_worker)) {
      return text + "; x " + std::to_string(scale) + " it lies in the window: " + unit +
             ", not nanoseconds?";
    }
  }
  return text + " (ns of the clock start_at_worker_ns is on, CLOCK_MONOTONIC?)";
}

}  // namespace

std::string check_started(const v1::WindowResult& result, const WindowFacts& window) {
  const int64_t started = result.started_unix_ns();
  if (started != 0 && far_from(started, window)) return instant("started_unix_ns", started, window);
  const int64_t on_worker = result.started_worker_ns();
  if (window.start_at_worker_ns == 0 || on_worker == 0) return {};
  WindowFacts worker_window = window;
  worker_window.start_at_unix_ns = window.start_at_worker_ns;
  if (!far_from(on_worker, worker_window)) return {};
  return worker_clock_instant("started_worker_ns", on_worker, window);
}

std::string check_cpu(const v1::WindowResult& result) {
  if (declared(result, "cpu")) return {};
  const std::pair<const char*, int64_t> process[] = {{"cpu_user_ns", result.cpu_user_ns()},
                                                     {"cpu_system_ns", result.cpu_system_ns()}};
  for (const auto& [field, value] : process) {
    if (value < 0) return std::string(field) + " " + ns(value) + " is negative";
  }
  if (result.wall_ns() <= 0) {
    return "wall_ns " + ns(result.wall_ns()) +
           " is not above 0 (the window's wall time, which the CPU is a share of)";
  }
  if (result.threads() < 1) {
    return "threads 0: no load thread, though the CPU is measured (declare `cpu` not measured)";
  }
  for (int i = 0; i < result.thread_cpu_size(); ++i) {
    const v1::ThreadCpu& thread = result.thread_cpu(i);
    const std::string name = "thread_cpu[" + std::to_string(i) + "].";
    if (thread.cpu_ns() < 0) return name + "cpu_ns " + ns(thread.cpu_ns()) + " is negative";
    if (thread.wall_ns() < 0) return name + "wall_ns " + ns(thread.wall_ns()) + " is negative";
    if (thread.has_run_delay_ns() && thread.run_delay_ns() < 0) {
      return name + "run_delay_ns " + ns(thread.run_delay_ns()) + " is negative";
    }
    if (thread.cpu_ns() - thread.wall_ns() > kThreadCpuSlackNs) {
      return name + "cpu_ns " + ns(thread.cpu_ns()) + " exceeds its wall_ns " +
             ns(thread.wall_ns()) +
             " by more than 10 ms (a thread runs on one CPU at a time; 10 ms: a CPU clock's "
             "coarsest tick)";
    }
  }
  return {};
}

std::string check_bytes_received(const v1::WindowResult& result) {
  if (declared(result, "bytes_received") || result.bytes_received() >= result.successes()) {
    return {};
  }
  return "bytes_received " + std::to_string(result.bytes_received()) + " < successes " +
         std::to_string(result.successes()) +
         " (every success reads its answer: at least one byte each)";
}

std::string check_latency_count(const v1::WindowResult& result, int64_t samples) {
  if (result.has_tool_latency() || samples == static_cast<int64_t>(result.successes())) return {};
  return "latency holds " + std::to_string(samples) + " samples but successes are " +
         std::to_string(result.successes()) + " (one sample per success)";
}

std::string check_progress(const v1::Progress& progress, uint32_t window) {
  if (progress.window() != window) {
    return "progress names window " + std::to_string(progress.window());
  }
  if (progress.interval_ns() < 0) {
    return "progress interval_ns " + ns(progress.interval_ns()) + " is negative";
  }
  return {};
}

std::string OneResultPerWindow::take(uint32_t window, uint32_t running, bool between) {
  if (answered(window)) {
    return "a malformed result: a second result for window " + std::to_string(window);
  }
  if (window != running || between) {
    return "a result for window " + std::to_string(window) + " while window " +
           std::to_string(running) + " was running";
  }
  answered_.insert(window);
  return {};
}

std::string check_ready(const v1::Ready& ready, uint32_t asked) {
  if (ready.connections() >= asked) return {};
  return "ready counts " + std::to_string(ready.connections()) + " connections of the " +
         std::to_string(asked) + " asked (ready comes once every connection is established)";
}

std::string check_result(const v1::WindowResult& result, const WindowFacts& window) {
  std::string problem = check_counts(result);
  if (problem.empty()) problem = check_error_kinds(result);
  if (problem.empty()) problem = check_not_measured(result);
  if (problem.empty()) problem = check_error_total(result);
  if (problem.empty()) problem = check_in_window(result);
  if (problem.empty() && result.has_tool_latency()) {
    problem = check_tool_latency_order(result.tool_latency());
  }
  if (problem.empty()) problem = check_data_window_instants(result, window);
  if (problem.empty()) problem = check_started(result, window);
  if (problem.empty()) problem = check_cpu(result);
  if (problem.empty()) problem = check_bytes_received(result);
  if (problem.empty()) return {};
  return "in window " + std::to_string(window.index) + ", " + problem;
}

std::string check_error_total(const v1::WindowResult& result) {
  if (result.successes() > result.operations()) return {};  // a rule of its own
  const uint64_t failed = result.operations() - result.successes();
  uint64_t total = 0;  // up to `failed` only, so that huge counts cannot wrap around to few
  for (const auto& [kind, count] : result.errors()) total += std::min(count, failed - total);
  if (total >= failed) return {};
  for (const std::string& name : result.not_measured()) {
    if (name.rfind("errors.", 0) == 0) return {};  // the shortfall is the undetected kinds'
  }
  return "errors add up to " + std::to_string(total) + " but " + std::to_string(failed) + " of " +
         std::to_string(result.operations()) +
         " operations failed (operations - successes); every failed operation counts one error";
}

std::string check_error_kinds(const v1::WindowResult& result) {
  ShownList unknown;
  for (const auto& [kind, count] : result.errors()) {
    if (!error_kinds::known(kind)) unknown.add(kind);
  }
  for (const std::string& name : result.not_measured()) {
    if (name.rfind("errors.", 0) == 0 && !error_kinds::known(std::string_view(name).substr(7))) {
      unknown.add(name, " in not_measured");
    }
  }
  if (!unknown.empty()) {
    return "errors of a kind the protocol does not define: " + unknown.text() +
           " (the kinds: " + error_kinds::listed() + ")";
  }
  for (const auto& [kind, count] : result.errors()) {
    if (count > 0 && declared(result, "errors." + kind)) {
      return "errors." + kind + " is declared not measured but counts " + std::to_string(count);
    }
  }
  return {};
}

std::string check_not_measured(const v1::WindowResult& result) {
  ShownList unknown;
  for (const std::string& name : result.not_measured()) {
    if (!known_not_measured(name)) unknown.add(name);
  }
  if (unknown.empty()) return {};
  std::string fields;
  for (const char* field : kNotMeasuredFields) fields += std::string(field) + ", ";
  return "not_measured names no field a worker may leave unmeasured: " + unknown.text() +
         " (the fields: " + fields + "errors.KIND)";
}

std::string check_in_window(const v1::WindowResult& result) {
  if (!result.has_in_window()) return {};
  const v1::InWindow& in = result.in_window();
  if (in.successes() > result.successes()) {
    return "in_window.successes " + std::to_string(in.successes()) + " exceed successes " +
           std::to_string(result.successes());
  }
  if (declared(result, "bytes_received")) return {};
  if (in.bytes_received() > result.bytes_received()) {
    return "in_window.bytes_received " + std::to_string(in.bytes_received()) +
           " exceed bytes_received " + std::to_string(result.bytes_received());
  }
  if (!declared(result, "payload_bytes") && in.payload_bytes() > in.bytes_received()) {
    return "in_window.payload_bytes " + std::to_string(in.payload_bytes()) +
           " exceed in_window.bytes_received " + std::to_string(in.bytes_received()) +
           " (the payload is read in those bytes)";
  }
  return {};
}

Expected<HdrHistogram> decode_histogram(const std::string& encoded) {
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size());
  // The layout first: counts made for another one need not even fit the declared one.
  if (auto layout = HdrHistogram::decode_layout(bytes);
      layout && *layout != HdrHistogram().layout()) {
    return Error{"layout is " + std::to_string(layout->lowest) + ".." +
                 std::to_string(layout->highest) + " ns with " +
                 std::to_string(layout->significant_digits) +
                 " digits, not 1..3600000000000 ns with 3 digits"};
  }
  return HdrHistogram::decode(bytes);
}

std::string check_histogram(const v1::Histogram& histogram, int64_t& count) {
  count = 0;
  const std::string& blob = histogram.hdr_v2_compressed();
  if (blob.empty()) return {};
  auto decoded = decode_histogram(blob);
  if (!decoded) return decoded.message();
  count = decoded->total_count();
  return {};
}

namespace {

void check_latency_histogram(const v1::WindowResult& result, const std::string& w,
                             std::vector<RuleOutcome>& out) {
  int64_t count = 0;
  std::string problem = check_histogram(result.latency(), count);
  out.push_back(
      {w + "latency histogram is HdrHistogram V2 (1 ns..1 h, 3 digits)",
       problem.empty() && !result.latency().hdr_v2_compressed().empty(),
       problem.empty()
           ? (result.latency().hdr_v2_compressed().empty()
                  ? "empty, although there were successes"
                  : std::to_string(result.latency().hdr_v2_compressed().size()) + " bytes")
           : problem});
  const std::string per_success = check_latency_count(result, count);
  out.push_back({w + "latency count equals successes", problem.empty() && per_success.empty(),
                 per_success.empty() ? "histogram holds " + std::to_string(count) + ", successes " +
                                           std::to_string(result.successes())
                                     : per_success});
}

// Stricter than check_data_window_instants(): worker-check's worker shares its host's clock,
// so the data window must lie inside the window and its drain, give or take kEarlyStartNs
// before and kLateResultNs after.
void check_data_window(const v1::WindowResult& result, const WindowFacts& window,
                       const std::string& w, std::vector<RuleOutcome>& out) {
  const std::string rule = w + "data window lies inside the window and its drain";
  const int64_t first = result.first_send_unix_ns();
  const int64_t last = result.last_receive_unix_ns();
  if (result.operations() == 0 && first == 0 && last == 0) {
    out.push_back({rule, true, "none: no request was written (0 operations)"});
    return;
  }
  if (std::string problem = check_data_window_instants(result, window); !problem.empty()) {
    out.push_back({rule, false, problem});
    return;
  }
  const int64_t earliest = window.start_at_unix_ns - kEarlyStartNs;
  const int64_t latest =
      window.start_at_unix_ns + window.duration_ns + window.drain_timeout_ns + kLateResultNs;
  const bool window_ok = first >= earliest &&
                         first <= window.start_at_unix_ns + window.duration_ns && last >= first &&
                         last <= latest;
  out.push_back({rule, window_ok,
                 "first send " + ns(first - window.start_at_unix_ns) + ", last receive " +
                     ns(last - window.start_at_unix_ns) + " after the start instant (window " +
                     ns(window.duration_ns) + ")"});
}

// started_unix_ns, when reported: on worker-check's one host, from kEarlyStartNs before the
// start instant to the window's end (a worker that got the command late starts at once).
void check_start(const v1::WindowResult& result, const WindowFacts& window, const std::string& w,
                 std::vector<RuleOutcome>& out) {
  const std::string rule = w + "started_unix_ns (when reported) lies inside the window";
  const int64_t started = result.started_unix_ns();
  if (started == 0) {
    out.push_back({rule, true, "not reported"});
    return;
  }
  if (std::string problem = check_started(result, window); !problem.empty()) {
    out.push_back({rule, false, problem});
    return;
  }
  out.push_back({rule,
                 started >= window.start_at_unix_ns - kEarlyStartNs &&
                     started <= window.start_at_unix_ns + window.duration_ns,
                 ns(started - window.start_at_unix_ns) + " after the start instant"});
}

}  // namespace

std::vector<RuleOutcome> check_window_result(const v1::WindowResult& result,
                                             const WindowFacts& window) {
  std::vector<RuleOutcome> out;
  const std::string w = "window " + std::to_string(window.index) + ": ";
  out.push_back({w + "result carries the window's index", result.window() == window.index,
                 "got " + std::to_string(result.window())});
  const std::string counts = check_counts(result);
  out.push_back({w + "operations > 0 and successes <= operations",
                 result.operations() > 0 && counts.empty(),
                 counts.empty() ? std::to_string(result.operations()) + " operations, " +
                                      std::to_string(result.successes()) + " successes"
                                : counts});
  const std::string error_total = check_error_total(result);
  uint64_t errors = 0;  // saturating: a worker's huge counts must not wrap around to few
  for (const auto& [kind, count] : result.errors()) {
    errors += std::min(count, std::numeric_limits<uint64_t>::max() - errors);
  }
  out.push_back({w + "errors add up to at least operations - successes (unless an error kind is "
                     "declared not measured)",
                 error_total.empty(),
                 error_total.empty()
                     ? std::to_string(errors) + " errors, " +
                           std::to_string(result.operations() -
                                          std::min(result.successes(), result.operations())) +
                           " operations failed"
                     : error_total});

  const std::string kinds = check_error_kinds(result);
  out.push_back({w + "errors are counted under the protocol's kinds", kinds.empty(),
                 kinds.empty() ? std::to_string(result.errors().size()) + " kinds" : kinds});
  const std::string in_window = check_in_window(result);
  out.push_back({w + "in_window holds no more than the whole window (successes, bytes_received), "
                     "and no more payload than its bytes",
                 in_window.empty(),
                 !in_window.empty() ? in_window
                 : !result.has_in_window()
                     ? "absent"
                     : std::to_string(result.in_window().successes()) + " of " +
                           std::to_string(result.successes()) + " successes in the window"});

  const std::string not_measured = check_not_measured(result);
  out.push_back({w + "not_measured names known fields", not_measured.empty(),
                 "declared: " + joined(result.not_measured()) +
                     (not_measured.empty() ? "" : "; " + not_measured)});

  if (declared(result, "latency")) {
    check_tool_latency(result, w, out);
  } else {
    check_latency_histogram(result, w, out);
  }
  if (declared(result, "data_window")) {
    out.push_back({w + "data window: declared not measured, left 0",
                   result.first_send_unix_ns() == 0 && result.last_receive_unix_ns() == 0,
                   "first send " + ns(result.first_send_unix_ns()) + ", last receive " +
                       ns(result.last_receive_unix_ns())});
  } else {
    check_data_window(result, window, w, out);
  }
  check_start(result, window, w, out);

  // Beyond check_cpu(): worker-check's window of load used some CPU (a short window of little
  // load may read 0 on a coarse CPU clock, which `run` therefore accepts).
  const bool cpu_declared = declared(result, "cpu");
  const std::string cpu = check_cpu(result);
  // Each on its own: both may be near INT64_MAX, and their sum would overflow.
  const bool cpu_ok =
      cpu.empty() && (cpu_declared || result.cpu_user_ns() > 0 || result.cpu_system_ns() > 0);
  out.push_back(
      {w + "CPU fields present (cpu_user_ns, cpu_system_ns, wall_ns, threads) and possible "
           "(none negative, no thread's CPU above its wall time)",
       cpu_ok,
       cpu_declared
           ? "declared not measured"
           : "user " + ns(result.cpu_user_ns()) + ", system " + ns(result.cpu_system_ns()) +
                 ", wall " + ns(result.wall_ns()) + ", threads " +
                 std::to_string(result.threads()) + (cpu.empty() ? "" : "; " + cpu)});
  // Beyond check_bytes_received(): worker-check's workload writes and answers requests in every
  // window, so both counts are above 0 (an open-loop window of not_sent errors only need not be).
  const bool sent_ok = declared(result, "bytes_sent") || result.bytes_sent() > 0;
  const bool received_ok = declared(result, "bytes_received") || result.bytes_received() > 0;
  const std::string per_success = check_bytes_received(result);
  out.push_back({w + "bytes counted (unless declared not measured), at least one received per "
                     "success",
                 sent_ok && received_ok && per_success.empty(),
                 std::to_string(result.bytes_sent()) + " sent, " +
                     std::to_string(result.bytes_received()) + " received" +
                     (per_success.empty() ? "" : "; " + per_success)});
  return out;
}

}  // namespace benchgate::workers
