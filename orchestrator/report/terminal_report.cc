#include "orchestrator/report/terminal_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "common/units/units.h"
#include "common/util/text_lines.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/report/summary_row.h"
#include "orchestrator/report/workload_shape.h"
#include "orchestrator/report/workload_title.h"
#include "orchestrator/results/described_workers.h"
#include "orchestrator/results/resumption.h"
#include "orchestrator/results/router_count.h"
#include "orchestrator/results/sessions_ended_lines.h"

namespace benchgate::report {
namespace {

// "  FAILED: why": a reason of several lines (one that ends with a stopped process's stderr
// tail) goes on indented under its first line, as the gate table indents an explanation, so
// that no quoted line starts at column 0 and passes for the orchestrator's own output.
std::string status_line(std::string_view label, std::string_view why) {
  const std::string indent(2 + label.size() + 2, ' ');
  std::string out = fmt::format("  {}: ", label);
  bool first = true;
  for (const std::string_view line : text_lines(why)) {
    if (!first) out += "\n" + (line.empty() ? std::string() : indent);
    first = false;
    out += line;
  }
  return out + "\n";
}

std::string phase(const engine::WindowInfo& info) {
  return info.measured ? fmt::format("rep {}/{}", info.repetition, info.repetitions) : "warm-up";
}

// A percentile of a histogram as latency_text writes it; "-" for an empty one.
std::string latency(const HdrHistogram& h, double percentile) {
  if (h.total_count() == 0) return "-";
  return latency_text(percentile >= 100 ? h.max() : h.value_at_percentile(percentile));
}

std::string megabytes(const results::Repetition& rep) {
  return rep.measured("bytes_received") ? format_megabytes_per_second(rep.bytes_per_second()) : "-";
}

std::string router_cpu_per_op(const results::Repetition& rep) {
  auto per_request = rep.router_cpu_per_request();
  return per_request ? format_duration_ns(*per_request * 1e9) : "-";
}

std::string join(const std::vector<std::string>& items, const char* separator = ",") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// A row of a workload's table; the flags column last, so a row without flags would end in
// spaces: they are cut.
template <typename... Columns>
std::string table_row(const Columns&... columns) {
  std::string row = fmt::format(
      "  {:<10} {:>12} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>10}  {}", columns...);
  row.erase(row.find_last_not_of(' ') + 1);
  return row + "\n";
}

// One row per worker and repetition: where it ran, its own figures and its clock.
constexpr const char* kWorkerRow =
    "    {:<7} {:>6} {:<21} {:>10} {:>9} {:>9} {:>5} {:>9} {:>9} {:>9}\n";

// Each worker's share of every repetition (docs/MEASUREMENT.md "Clock offset and start skew"),
// so that one slow or skewed host shows beside the merged figure.
std::string worker_rows(const results::WorkloadResult& w) {
  std::string out = "  per worker:\n";
  out += fmt::format(kWorkerRow, "", "worker", "host", "ops/s", "p50", "p99", "cpu", "offset",
                     "rtt", "skew");
  for (const auto& rep : w.repetitions) {
    for (size_t i = 0; i < rep.workers.size(); ++i) {
      const results::WorkerShare& share = rep.workers[i];
      // Its latency as every report's per-worker table gives it (Repetition::worker_latency_at:
      // a tool's figures for the only worker that wraps one).
      out += fmt::format(
          kWorkerRow, fmt::format("rep {}", rep.index + 1), share.worker,
          share.host.empty() ? "-" : share.host, rate_text(share.ops_per_second),
          latency_text(rep.worker_latency_at(i, 50)), latency_text(rep.worker_latency_at(i, 99)),
          share.cpu_utilization ? fmt::format("{:.0f}%", *share.cpu_utilization * 100) : "-",
          signed_latency_text(share.clock_offset_ns), latency_text(share.rtt_ns),
          signed_latency_text(share.start_skew_ns));
    }
    if (rep.start_spread_ns) {
      out += fmt::format("    {:<7} start spread {} (bound {})\n",
                         fmt::format("rep {}", rep.index + 1), latency_text(rep.start_spread_ns),
                         latency_text(w.spec.max_start_skew_ns));
    }
  }
  return out;
}

}  // namespace

// From 100 MB/s on, the table also states the data rate in Gbit/s.
static constexpr double kGbitLineBytesPerSecond = 100e6;

// Whether a repetition of `w` was read back from a store that did not keep `what`
// (results::Repetition::not_stored).
static bool not_stored(const results::WorkloadResult& w, const char* what) {
  return std::any_of(
      w.repetitions.begin(), w.repetitions.end(),
      [&](const results::Repetition& rep) { return rep.not_stored.count(what) > 0; });
}

// What a run stored before schema version 21 did not keep of a setup.
static constexpr const char* kPercentilesNotStored =
    "percentiles not stored (a run stored before schema version 21 kept each repetition's p50 "
    "and p99 only)";

std::string callee_line(const results::WorkloadResult& w) {
  if (not_stored(w, "callee_invocations")) {
    return "  callees: invocations per session not stored (a run stored before schema version "
           "21)\n";
  }
  if (w.repetitions.empty() || w.repetitions.front().callee_invocations.empty()) return "";
  uint64_t all = 0;
  std::string ranges;
  for (const auto& rep : w.repetitions) {
    if (rep.callee_invocations.empty()) continue;
    const auto [fewest, most] =
        std::minmax_element(rep.callee_invocations.begin(), rep.callee_invocations.end());
    for (const uint64_t n : rep.callee_invocations) all = results::saturated_sum(all, n);
    ranges += fmt::format("{}{}-{}", ranges.empty() ? "" : ", ", *fewest, *most);
  }
  return fmt::format(
      "  callees: {} session(s) (invoke {}), {} invocations; per session, by repetition: {}\n",
      w.repetitions.front().callee_invocations.size(), w.spec.wamp.invoke, results::count_text(all),
      ranges);
}

std::string not_measured_lines(const results::WorkloadResult& w) {
  std::string out;
  const std::string tool = w.latency_tool();
  if (!tool.empty()) {
    std::vector<std::string> missing;
    for (const auto& [name, p] : std::vector<std::pair<const char*, double>>{
             {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"max", 100}}) {
      if (!w.latency_at(p)) missing.push_back(name);
    }
    auto mean = w.latency_mean();
    out += fmt::format("  latency as {} printed it (no histogram): mean {}{}\n", tool,
                       mean ? format_duration_ns(*mean) : "not measured",
                       missing.empty() ? "" : "; not measured: " + join(missing, " "));
  }
  std::set<std::string> fields;
  for (const auto& rep : w.repetitions)
    fields.insert(rep.not_measured.begin(), rep.not_measured.end());
  if (!fields.empty()) {
    std::string list;
    for (const auto& field : fields) list += (list.empty() ? "" : ", ") + field;
    out += "  not measured: " + list;
    if (fields.count("data_window")) out += " (ops/s over the configured window)";
    out += "\n";
  }
  return out;
}

std::vector<std::string> unindented_lines(std::string_view lines) {
  std::vector<std::string> out;
  for (std::string_view line : text_lines(lines)) {
    while (line.starts_with(' ')) line.remove_prefix(1);
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

// Why the two counts differ, so that a difference is never left unexplained: operations in
// flight when a window opens or closes are counted by one side only (a worker adapter's tool
// counts only what it completed), which the engine allows per window; beyond that a window is
// flagged router_count_mismatch.
static std::string count_difference(const results::WorkloadResult& w, uint64_t workers,
                                    uint64_t router, size_t mismatched_windows) {
  // The engine's bound (scenario::Workload::operations_in_flight), so that the two agree.
  const uint64_t in_flight = w.spec.operations_in_flight();
  const bool workers_capped = results::count_capped(workers);
  if (workers_capped || results::count_capped(router)) {
    // A capped sum stands for any count from 2^64 - 1 up (results::count_capped): a difference
    // taken from it, or their being equal, would be made up. Each window's own check stands.
    const char* capped = workers == router ? "both counts"
                         : workers_capped  ? "the workers' count"
                                           : "the router's count";
    const std::string flagged = mismatched_windows == 0
                                    ? ""
                                    : fmt::format("; router_count_mismatch in {} of {} windows",
                                                  mismatched_windows, w.repetitions.size());
    return fmt::format(" (not compared: {} reached 2^64 - 1, where a sum over repetitions stops{})",
                       capped, flagged);
  }
  if (workers == router) return "";
  const uint64_t apart = workers > router ? workers - router : router - workers;
  if (mismatched_windows > 0) {
    return fmt::format(
        " ({} apart: router_count_mismatch in {} of {} windows, more than the {} "
        "in flight)",
        apart, mismatched_windows, w.repetitions.size(), in_flight);
  }
  return fmt::format(
      " ({} apart over {} windows, within the {} in flight at each window's "
      "edges, counted by one side only)",
      apart, w.repetitions.size(), in_flight);
}

std::string session_setup_line(const results::WorkloadResult& w) {
  const auto sessions = w.session_setup();
  if (!sessions && not_stored(w, "session_setup")) {
    uint64_t count = 0;
    for (const auto& rep : w.repetitions) {
      count = results::saturated_sum(count, rep.stored_sessions.value_or(0));
    }
    if (count == 0) return "";
    return fmt::format("  sessions: {} set up; connect to WELCOME {}\n", results::count_text(count),
                       kPercentilesNotStored);
  }
  if (!sessions || sessions->total_count() == 0) return "";
  // docs/MEASUREMENT.md "Session establishment": TCP connect to WELCOME. Its latencies written
  // as the connection line's.
  return fmt::format("  sessions: {} set up; connect to WELCOME p50 {} p99 {}\n",
                     sessions->total_count(), latency(*sessions, 50), latency(*sessions, 99));
}

std::string connection_lines(const results::WorkloadResult& w) {
  std::string out;
  if (const auto tls = w.tls()) {
    out += fmt::format("  tls: {} {}, alpn {} (as the server chose)\n", tls->version, tls->cipher,
                       tls->alpn.empty() ? "none" : tls->alpn);
  }
  if (const uint32_t requested = w.requested_streams(); requested > 0) {
    const uint32_t effective = w.effective_streams();
    out += fmt::format(
        "  streams: {} per connection asked, {} effective (the server's "
        "SETTINGS_MAX_CONCURRENT_STREAMS)\n",
        requested, effective > 0 ? std::to_string(effective) : "-");
  }
  const auto setup = w.setup();
  if (setup && setup->connections > 0) {
    out += fmt::format("  connections: {} set up", results::count_text(setup->connections));
    if (not_stored(w, "setup")) {
      out += fmt::format("; connect, TLS handshake and first byte {}", kPercentilesNotStored);
    } else {
      out += fmt::format("; connect p50 {} p99 {}", latency(setup->connect, 50),
                         latency(setup->connect, 99));
    }
    if (setup->tls_handshake.total_count() > 0) {
      out += fmt::format("; TLS handshake p50 {} p99 {}", latency(setup->tls_handshake, 50),
                         latency(setup->tls_handshake, 99));
    }
    if (setup->ttfb.total_count() > 0) {
      out += fmt::format("; first byte p50 {} p99 {}", latency(setup->ttfb, 50),
                         latency(setup->ttfb, 99));
    }
    out += "\n";
    if (const auto rate = w.handshakes_per_second()) {
      out += fmt::format(
          "  handshakes: {}/s (median; min-max {}-{}), a new "
          "connection per request",
          rate_text(rate->median), rate_text(rate->min), rate_text(rate->max));
      if (setup->handshakes > 0) {
        out += fmt::format("; {} of {} TLS handshakes resumed", results::count_text(setup->resumed),
                           results::count_text(setup->handshakes));
      }
      out += "\n";
      return out;
    }
  }
  // Where no handshakes line says it (WAMP over TLS among them: its handshakes are counted, its
  // sessions timed only as a whole).
  if (const auto resumed =
          setup ? results::resumed_handshakes(w.spec, *setup) : std::optional<uint64_t>()) {
    out += fmt::format("  resumed: {} of {} TLS handshakes\n", results::count_text(*resumed),
                       results::count_text(setup->handshakes));
  }
  return out;
}

std::string open_loop_text(const results::Repetition& rep) {
  if (!rep.service_time) return "service time: not measured";
  return fmt::format(
      "service time p50 {} p99 {} (uncorrected), late sends {}, unwritten at the window's end {} "
      "(sent in the drain, or not_sent)",
      latency(*rep.service_time, 50), latency(*rep.service_time, 99), rep.late_sends, rep.unsent);
}

std::string errors_by_kind_text(const results::WorkloadResult& w) {
  std::string list;
  for (const auto& [kind, count] : w.error_kinds()) {
    list += fmt::format(" {}={}", kind, results::count_text(count));
  }
  return list.empty() ? "" : "errors by kind:" + list;
}

std::string counts_text(const results::WorkloadResult& w) {
  uint64_t router_requests = 0;
  uint64_t worker_operations = 0;
  uint64_t worker_successes = 0;
  uint64_t worker_countable = 0;  // compared with the router's (results/router_count.h)
  uint64_t uncounted = 0;         // what the router never counted: not sent, or (WAMP) refused
  size_t router_counted = 0;      // repetitions the router counted
  size_t mismatched = 0;
  for (const auto& rep : w.repetitions) {
    router_requests = results::saturated_sum(router_requests, rep.router.requests);
    worker_operations = results::saturated_sum(worker_operations, rep.operations);
    worker_successes = results::saturated_sum(worker_successes, rep.successes);
    worker_countable =
        results::saturated_sum(worker_countable, results::router_countable_operations(w.spec, rep));
    uncounted =
        results::saturated_sum(uncounted, results::router_uncounted_operations(w.spec, rep));
    router_counted += rep.router.collected;
    for (const auto& flag : rep.flags) mismatched += flag == "router_count_mismatch";
  }
  if (w.repetitions.empty()) return "";
  // The uncounted summed as such, never the operations less the countable: a capped sum of
  // operations less another sum would say fewer than the errors by kind count.
  const bool http = scenario::is_http(w.spec.protocol);
  const std::string not_counted =
      uncounted == 0 ? ""
                     : fmt::format("{} of them {}", results::count_text(uncounted),
                                   http ? "not_sent" : "not_sent or refused by the router");
  // The sums as text: a capped one "at least N" (results::count_text).
  const std::string operations = results::count_text(worker_operations);
  // The router's side: its count and why it differs, or, where it did not count every
  // repetition, that it was not measured and why (a sum over some repetitions compared with the
  // workers' over all would read as a difference that is not one).
  const auto router_side = [&](std::string_view counted_as) {
    const size_t reps = w.repetitions.size();
    if (router_counted == reps) {
      return fmt::format("{} {} by the router{}", results::count_text(router_requests), counted_as,
                         count_difference(w, worker_countable, router_requests, mismatched));
    }
    if (router_counted == 0) {
      return std::string("the router's count not measured (only the bundled router reports one)");
    }
    return fmt::format("the router's count not measured (missing from {} of {} repetitions)",
                       reps - router_counted, reps);
  };
  if (w.spec.protocol == scenario::Protocol::kWampPubSub) {
    // The operations are the events the workers expected, failures included (a refused
    // publication's, a lost one); those received intact are the successes.
    return fmt::format("events: {} counted by workers ({} received{}{}), {}", operations,
                       results::count_text(worker_successes), not_counted.empty() ? "" : ", ",
                       not_counted, router_side("delivered"));
  }
  const std::string aside = not_counted.empty() ? "" : " (" + not_counted + ")";
  if (http) {
    return fmt::format("requests: {} sent by workers{}, {}", operations, aside,
                       router_side("counted"));
  }
  return fmt::format("calls: {} made by workers{}, {}", operations, aside, router_side("routed"));
}

std::vector<std::string> described_workers(const std::vector<results::WorkloadResult>& workloads) {
  std::vector<results::WorkloadDescribed> answers;
  for (const auto& w : workloads) {
    answers.push_back({workload_title(w.spec.name, w.variant), w.worker_name, w.worker_version});
  }
  return results::described_workers(answers);
}

std::string sessions_ended_lines(const results::WorkloadResult& w) {
  results::SessionsEndedByRepetition by_repetition;
  for (const auto& rep : w.repetitions) by_repetition.emplace_back(rep.index, rep.sessions_ended);
  return results::sessions_ended_lines(by_repetition, not_stored(w, "sessions_ended"));
}

std::string workload_table(const results::WorkloadResult& w) {
  std::string out;
  // "hello [cand]", as every report names a workload's variant.
  const std::string title = workload_title(w.spec.name, w.variant);
  // What it sends and how much at once (workload_load: HTTP/2's streams, wamp_pubsub's
  // publishers and subscribers) and how it is paced (load_model_text), as the HTML report and
  // the Markdown summary write it.
  out += fmt::format("{}: {}, {}, {}\n", title, workload_load(w.spec),
                     workers_text(w.spec, w.worker_threads), load_model_text(w.spec));
  out += table_row("", "ops/s", "MB/s", "p50", "p90", "p99", "p99.9", "max", "errors", "router/op",
                   "flags");
  for (const auto& rep : w.repetitions) {
    out += table_row(fmt::format("rep {}", rep.index + 1), rate_text(rep.ops_per_second()),
                     megabytes(rep), latency_text(rep.latency_at(50)),
                     latency_text(rep.latency_at(90)), latency_text(rep.latency_at(99)),
                     latency_text(rep.latency_at(99.9)), latency_text(rep.latency_at(100)),
                     results::count_text(rep.error_count()), router_cpu_per_op(rep),
                     join(results::ordered_flags(rep.flags)));
    // Every open-loop repetition's diagnostics, "service time: not measured" included, as the
    // HTML report and the Markdown summary give them.
    if (w.spec.rate > 0) out += fmt::format("  {:<10} {}\n", "", open_loop_text(rep));
  }
  if (!w.repetitions.empty()) {
    auto ops = w.ops_per_second();
    auto mb = w.bytes_per_second();
    out += table_row(kSummaryRowLabel, rate_text(ops.median),
                     w.measured("bytes_received") ? format_megabytes_per_second(mb.median) : "-",
                     latency_text(w.latency_at(50)), latency_text(w.latency_at(90)),
                     latency_text(w.latency_at(99)), latency_text(w.latency_at(99.9)),
                     latency_text(w.latency_at(100)), results::count_text(w.error_count()), "",
                     join(w.flags()));
    // Under the row, what each of its figures is (the ops/s min-max among them), indented as
    // an open-loop repetition's diagnostics.
    out += fmt::format(
        "  {:<10} {}\n", "",
        summary_row_definition(w.repetitions.size(), summary_row_ops_range(w),
                               w.latency.total_count() > 0 ? std::string() : w.latency_tool(),
                               summary_row_no_latency(w)));
    if (const std::string counts = counts_text(w); !counts.empty()) out += "  " + counts + "\n";
    out += not_measured_lines(w);
    out += connection_lines(w);
    out += session_setup_line(w);
    out += callee_line(w);
    if (w.spec.protocol == scenario::Protocol::kWampTransfer ||
        (w.spec.protocol == scenario::Protocol::kWampRpc && w.transfer_lifecycle_gbps())) {
      // docs/MEASUREMENT.md "Transfer throughput": per transfer, over its data window and over
      // its whole session lifecycle. The unit goes with a figure: a rate no transfer gave
      // (every call failed) reads "not measured", not "not measured Gbit/s".
      auto rate = [](const std::optional<results::Spread>& s) {
        return s ? fmt::format("{:.3f} Gbit/s", s->median) : std::string("not measured");
      };
      out += fmt::format("  transfer: {} over the data window, {} over the lifecycle\n",
                         rate(w.transfer_data_gbps()), rate(w.transfer_lifecycle_gbps()));
    }
    // Large payloads are judged in bits per second.
    if (mb.median >= kGbitLineBytesPerSecond) {
      out += fmt::format("  throughput: {:.3f} Gbit/s on the wire (median of {} MB/s)\n",
                         mb.median * 8 / 1e9, format_megabytes_per_second(mb.median));
    }
    if (auto payload = w.payload_bytes_per_second(); payload && w.measured("bytes_received")) {
      out += fmt::format("  bytes: {} MB/s of payload, {} MB/s on the wire (median)\n",
                         format_megabytes_per_second(payload->median),
                         format_megabytes_per_second(mb.median));
    }
    std::string skews;
    for (const auto& rep : w.repetitions) {
      const bool flagged = std::count(rep.flags.begin(), rep.flags.end(), "start_skew") > 0;
      if (auto skew = rep.max_start_skew_ns(); skew && flagged) {
        skews += fmt::format(" rep {} {}", rep.index + 1, latency_text(*skew));
      }
    }
    if (!skews.empty())
      out += "  start skew (the worker furthest from the shared start):" + skews + "\n";
    if (!w.load_from.empty()) {
      out += "  load from: " + w.load_from +
             (w.load_from == "local" ? " (every worker on this machine)\n" : "\n");
    }
    bool several = false;
    for (const auto& rep : w.repetitions) several = several || rep.workers.size() > 1;
    if (several) out += worker_rows(w);
  }
  if (w.status == results::WorkloadStatus::kFailed) {
    out += status_line("FAILED", w.error);
  }
  if (w.status == results::WorkloadStatus::kInterrupted) {
    out += status_line("INTERRUPTED", w.error);
  }
  if (w.status == results::WorkloadStatus::kNotConfigured) {
    // The stored reason starts with its kind ("not_configured: ...", what the JSON report and
    // the store keep); the line's own prefix says it already.
    constexpr std::string_view kKind = "not_configured: ";
    std::string_view why = w.error;
    if (why.starts_with(kKind)) why.remove_prefix(kKind.size());
    out += fmt::format("  NOT CONFIGURED (no figures): {}\n", why);
  }
  if (!w.repetitions.empty()) {
    // Error kinds in full, so a non-zero count is never a mystery.
    if (const std::string kinds = errors_by_kind_text(w); !kinds.empty()) {
      out += "  " + kinds + "\n";
    }
    out += sessions_ended_lines(w);
  }
  return out;
}

TerminalReport::TerminalReport(std::FILE* out, std::FILE* live)
    : out_(out), live_(live), tty_(::isatty(::fileno(live)) == 1) {}

void TerminalReport::clear_live_line() {
  if (live_line_shown_) {
    std::fputs("\r\033[2K", live_);
    live_line_shown_ = false;
  }
}

void TerminalReport::scenario_started(const scenario::Scenario& scenario) {
  scenario_ = scenario.name;
  workloads_ = scenario.workloads.size();
  workload_ = 0;
  workload_name_.clear();
  done_ns_ = 0;
  planned_ns_ = 0;
  const size_t variants = std::max<size_t>(
      1, std::max(scenario.compare_routers.size(), scenario.compare_workers.size()));
  for (const auto& w : scenario.workloads) {
    planned_ns_ += static_cast<int64_t>(variants) *
                   (w.warmup_ns + static_cast<int64_t>(w.repetitions) * w.duration_ns);
  }
  started_ = std::chrono::steady_clock::now();
  clear_live_line();
  std::fprintf(out_, "scenario %s (%s)\n", scenario.name.c_str(), scenario.path.c_str());
  std::fflush(out_);
}

void TerminalReport::workload_started(const scenario::Workload& workload) {
  if (!tty_) {
    std::fprintf(live_, "[%s] %s: starting\n", scenario_.c_str(), workload.name.c_str());
    std::fflush(live_);
  }
}

std::string TerminalReport::run_progress(int64_t window_elapsed_ns) const {
  const auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - started_)
                           .count();
  const int64_t left = std::max<int64_t>(0, planned_ns_ - done_ns_ - window_elapsed_ns);
  return fmt::format(" | workload {}/{}, {:.1f}s elapsed, about {:.1f}s left", workload_,
                     workloads_, static_cast<double>(elapsed) / 1e9,
                     static_cast<double>(left) / 1e9);
}

void TerminalReport::window_started(const scenario::Workload& workload,
                                    const engine::WindowInfo& info) {
  if (workload.name != workload_name_) {
    workload_name_ = workload.name;
    ++workload_;
  }
  if (tty_) {
    clear_live_line();
    std::fprintf(live_, "[%s] %s %s  starting%s", scenario_.c_str(), workload.name.c_str(),
                 phase(info).c_str(), run_progress(0).c_str());
    live_line_shown_ = true;
  } else {
    std::fprintf(live_, "[%s] %s %s: started (%s)\n", scenario_.c_str(), workload.name.c_str(),
                 phase(info).c_str(),
                 format_duration_ns(static_cast<double>(info.duration_ns)).c_str());
  }
  std::fflush(live_);
}

void TerminalReport::progress(const scenario::Workload& workload, const engine::WindowInfo& info,
                              double ops_per_second, int64_t p99_ns, int64_t elapsed_ns) {
  if (!tty_) return;
  clear_live_line();
  // The rate and the p99 as the workload's table writes them (rate_text, latency_text); a p99
  // of 0 is none measured yet.
  std::string line =
      fmt::format("[{}] {} {}  {:.1f}s/{:.1f}s  {} ops/s  p99 {}{}", scenario_, workload.name,
                  phase(info), static_cast<double>(elapsed_ns) / 1e9,
                  static_cast<double>(info.duration_ns) / 1e9, rate_text(ops_per_second),
                  latency_text(p99_ns > 0 ? std::optional<int64_t>(p99_ns) : std::nullopt),
                  run_progress(std::clamp<int64_t>(elapsed_ns, 0, info.duration_ns)));
  std::fputs(line.c_str(), live_);
  live_line_shown_ = true;
  std::fflush(live_);
}

void TerminalReport::window_finished(const scenario::Workload& workload,
                                     const engine::WindowInfo& info,
                                     const results::Repetition* rep) {
  done_ns_ += info.duration_ns;
  if (tty_ || !rep) return;
  std::fprintf(live_, "[%s] %s %s: %s ops/s, p99 %s, errors %s\n", scenario_.c_str(),
               workload.name.c_str(), phase(info).c_str(), rate_text(rep->ops_per_second()).c_str(),
               latency_text(rep->latency_at(99)).c_str(),
               results::count_text(rep->error_count()).c_str());
  std::fflush(live_);
}

void TerminalReport::workload_finished(const results::WorkloadResult& workload) {
  clear_live_line();
  std::fputs(workload_table(workload).c_str(), out_);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void TerminalReport::message(const std::string& text) {
  clear_live_line();
  std::fprintf(live_, "%s\n", text.c_str());
  std::fflush(live_);
}

void TerminalReport::print(const std::string& line) {
  clear_live_line();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace benchgate::report
