// Storing one workload: its row, a summary over repetitions, every repetition with its
// histograms, and the router's counter deltas, all in one transaction.
#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "orchestrator/results/resumption.h"
#include "orchestrator/store/metric_columns.h"
#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::store {
namespace {

std::optional<std::string> tool_latency_json(const results::Repetition& rep) {
  if (!rep.tool_latency) return std::nullopt;
  const results::ToolLatency& t = *rep.tool_latency;
  nlohmann::json j = {{"tool", t.tool}, {"percentiles_ns", t.percentiles_ns}};
  if (t.min_ns) j["min_ns"] = *t.min_ns;
  if (t.mean_ns) j["mean_ns"] = *t.mean_ns;
  if (t.stdev_ns) j["stdev_ns"] = *t.stdev_ns;
  if (t.max_ns) j["max_ns"] = *t.max_ns;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A counter the workers measured, or nothing.
std::optional<uint64_t> if_measured(const results::Repetition& rep, std::string_view field,
                                    uint64_t value) {
  if (!rep.measured(field)) return std::nullopt;
  return value;
}

std::optional<std::vector<uint8_t>> encoded(const std::optional<HdrHistogram>& h) {
  if (!h) return std::nullopt;
  return h->encode_compressed();
}

// One repetition of `spec` as stored; the figures' definitions are those of
// results::Repetition (successes and received bytes over the data window). A workload that set
// up a connection per request has the window's connections as its handshakes (stored only then:
// handshakes.rate reads them); `resumed` is stored where results::resumed_handshakes reports it.
StoredRepetition stored_repetition(const results::Repetition& rep, const scenario::Workload& spec) {
  StoredRepetition r;
  r.index = rep.index;
  r.start_ns = rep.start_unix_ns;
  r.duration_ns = rep.duration_ns;
  if (rep.measured("data_window")) r.data_window_ns = rep.data_window_ns;
  r.operations = rep.operations;
  r.successes = rep.successes;
  for (const auto& [kind, count] : rep.errors) {
    r.errors_total = results::saturated_sum(r.errors_total, count);
  }
  r.errors = rep.errors;
  r.bytes_sent = if_measured(rep, "bytes_sent", rep.bytes_sent);
  r.bytes_received = if_measured(rep, "bytes_received", rep.bytes_received);
  r.late_sends = rep.late_sends;
  r.unsent = rep.unsent;
  r.ops_per_s = rep.ops_per_second();
  if (rep.measured("bytes_received")) r.bytes_per_s = rep.bytes_per_second();
  // From the histogram, or only the figures a tool printed (the others stay NULL).
  r.p50_ns = rep.latency_at(50);
  r.p75_ns = rep.latency_at(75);
  r.p90_ns = rep.latency_at(90);
  r.p95_ns = rep.latency_at(95);
  r.p99_ns = rep.latency_at(99);
  r.p999_ns = rep.latency_at(99.9);
  r.max_ns = rep.latency_at(100);
  r.mean_ns = rep.latency_mean();
  r.latency_hdr = rep.latency.encode_compressed();
  r.service_time_hdr = encoded(rep.service_time);
  if (rep.measured("cpu")) {
    r.worker_cpu_s = rep.worker_cpu_seconds;
    r.worker_cpu_utilization = rep.worker_cpu_utilization;
  }
  r.router_collected = rep.router.collected;
  if (rep.router.collected) {
    r.router_requests = rep.router.requests;
    r.router_handling_hdr = encoded(rep.router.handling);
  }
  if (rep.router.counters_collected) r.router_metrics = rep.router.counter_deltas;
  r.router_sampled = rep.router.sampled;
  if (rep.router.sampled) {
    r.router_cpu_s = rep.router.cpu_seconds;
    r.router_rss_bytes = rep.router.rss_bytes;
  }
  r.flags = rep.flags;
  r.stopped = rep.stopped;
  if (rep.in_window) r.window_successes = rep.window_successes;
  r.payload_bytes_per_s = rep.payload_bytes_per_second();
  r.start_skew_ns = rep.max_start_skew_ns();
  r.worker_cpu_wait_share = rep.worker_cpu_wait_share;
  r.latency_clamped = rep.latency_clamped;
  r.not_measured.assign(rep.not_measured.begin(), rep.not_measured.end());
  r.tool_latency_json = tool_latency_json(rep);
  if (rep.setup) {
    // A percentile of a setup histogram; nothing when nothing was recorded (never 0).
    auto at = [](const HdrHistogram& h, double p) -> std::optional<int64_t> {
      if (h.total_count() == 0) return std::nullopt;
      return h.value_at_percentile(p);
    };
    r.connections = rep.setup->connections;
    r.handshakes = rep.setup->handshakes;
    // The one rule of the RESULT line, the JSON report and /metrics (docs/MEASUREMENT.md
    // "Handshakes per second"): a count where the workload reconnects per operation over TLS,
    // NULL where it keeps its connections (resumption never asked) and for cleartext.
    r.resumed = results::resumed_handshakes(spec, *rep.setup);
    if (spec.new_connection_per_request) r.window_connections = rep.window_connections;
    r.connect_p50_ns = at(rep.setup->connect, 50);
    r.connect_p99_ns = at(rep.setup->connect, 99);
    r.tls_handshake_p50_ns = at(rep.setup->tls_handshake, 50);
    r.tls_handshake_p99_ns = at(rep.setup->tls_handshake, 99);
    r.ttfb_p50_ns = at(rep.setup->ttfb, 50);
    r.ttfb_p99_ns = at(rep.setup->ttfb, 99);
    // The histograms too (schema version 21): the workload's figures are of every repetition's
    // merged, which no repetition's p50 and p99 give back.
    r.connect_hdr = rep.setup->connect.encode_compressed();
    r.tls_handshake_hdr = rep.setup->tls_handshake.encode_compressed();
    r.ttfb_hdr = rep.setup->ttfb.encode_compressed();
  }
  if (rep.session_setup) {
    r.sessions = static_cast<uint64_t>(rep.session_setup->total_count());
    if (rep.session_setup->total_count() > 0) {
      r.session_setup_p50_ns = rep.session_setup->value_at_percentile(50);
      r.session_setup_p99_ns = rep.session_setup->value_at_percentile(99);
    }
    r.session_setup_hdr = rep.session_setup->encode_compressed();
  }
  if (!rep.callee_invocations.empty()) {
    r.callee_invocations.emplace();
    for (const uint64_t n : rep.callee_invocations) {
      r.callee_invocations->push_back(static_cast<int64_t>(n));
    }
  }
  // Why the router ended sessions (schema version 22): "[]" for none, so that a run stored
  // before, NULL, reads back as not stored.
  r.sessions_ended.emplace();
  for (const results::SessionsEnded& e : rep.sessions_ended) {
    r.sessions_ended->push_back({e.worker, e.reason, e.sessions});
  }
  if (rep.transfer) {
    r.transfers = rep.transfer->transfers;
    r.transfer_data_bytes = rep.transfer->data_bytes;
    r.transfer_data_ns = rep.transfer->data_ns;
    r.transfer_lifecycle_bytes = rep.transfer->lifecycle_bytes;
    r.transfer_lifecycle_ns = rep.transfer->lifecycle_ns;
  }
  if (rep.tls) {
    r.tls_version = rep.tls->version;
    r.tls_cipher = rep.tls->cipher;
    r.alpn = rep.tls->alpn;
  }
  if (rep.requested_streams > 0) {
    r.requested_streams = rep.requested_streams;
    if (rep.effective_streams > 0) r.effective_streams = rep.effective_streams;
  }
  for (const results::TimelineSecond& t : rep.timeline) {
    r.timeline.push_back({t.second, t.ops_per_second, t.errors, t.p50_ns, t.p99_ns, t.max_ns});
  }
  r.start_spread_ns = rep.start_spread_ns;
  for (const results::WorkerShare& w : rep.workers) {
    StoredWorkerShare share;
    share.worker = w.worker;
    share.operations = w.operations;
    share.successes = w.successes;
    share.errors = w.errors;
    share.ops_per_s = w.ops_per_second;
    share.p99_ns = w.p99_ns;
    share.max_ns = w.max_ns;
    share.cpu_utilization = w.cpu_utilization;
    share.p50_ns = w.p50_ns;
    if (!w.host.empty()) share.host = w.host;
    share.clock_offset_ns = w.clock_offset_ns;
    share.rtt_ns = w.rtt_ns;
    share.start_skew_ns = w.start_skew_ns;
    r.workers.push_back(std::move(share));
  }
  return r;
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median over the repetitions where the figure was measured.
std::optional<double> median_of(const std::vector<StoredRepetition>& reps,
                                std::optional<int64_t> StoredRepetition::*field) {
  std::vector<double> v;
  for (const auto& r : reps) {
    if (r.*field) v.push_back(static_cast<double>(*(r.*field)));
  }
  return median(std::move(v));
}

template <typename R>
Expected<sqlite::Statement> prepare_insert(sqlite::Database& db, std::string_view table,
                                           std::span<const std::string_view> kept,
                                           columns::Columns<R> columns) {
  return db.prepare(columns::insert_sql(table, kept, columns));
}

}  // namespace

namespace internal {

StoredWorkload stored_workload(const results::WorkloadResult& workload) {
  StoredWorkload w;
  w.name = workload.spec.name;
  w.variant = workload.variant;
  w.protocol = protocol_name(workload.spec.protocol);
  w.params_json = workload_params_json(workload.spec);
  w.params_hash = workload_params_hash(workload.spec);
  w.status = results::status_name(workload.status);
  w.error = workload.error;
  if (!workload.load_from.empty()) w.load_from = workload.load_from;
  if (!workload.worker_name.empty()) w.worker_name = workload.worker_name;
  if (!workload.worker_version.empty()) w.worker_version = workload.worker_version;
  if (!workload.worker_threads.empty()) {
    w.worker_threads.emplace(workload.worker_threads.begin(), workload.worker_threads.end());
  }
  if (!workload.spec.sweep_of.empty()) {
    w.sweep_of = workload.spec.sweep_of;
    w.sweep_parameter = workload.spec.sweep_parameter;
    w.sweep_value = workload.spec.sweep_value;
  }
  std::set<std::string> flags;
  for (const results::Repetition& rep : workload.repetitions) {
    w.repetitions.push_back(stored_repetition(rep, workload.spec));
    flags.insert(rep.flags.begin(), rep.flags.end());
  }
  w.repetition_count = static_cast<int64_t>(w.repetitions.size());
  std::vector<double> ops, bytes;
  for (const StoredRepetition& r : w.repetitions) {
    ops.push_back(r.ops_per_s);
    if (r.bytes_per_s) bytes.push_back(*r.bytes_per_s);
    // Over repetitions a sum may pass 2^64 - 1: it stops there, as every report's does, where
    // it wrapped (two repetitions of 2^63 errors stored 0 in workloads.errors_total).
    w.errors_total = results::saturated_sum(w.errors_total, r.errors_total);
  }
  w.ops_per_s_median = median(ops);
  if (!ops.empty()) {
    w.ops_per_s_min = *std::min_element(ops.begin(), ops.end());
    w.ops_per_s_max = *std::max_element(ops.begin(), ops.end());
  }
  // A median over only some repetitions would not be the workload's: all or nothing.
  if (bytes.size() == w.repetitions.size()) w.bytes_per_s_median = median(bytes);
  w.p50_ns_median = median_of(w.repetitions, &StoredRepetition::p50_ns);
  w.p90_ns_median = median_of(w.repetitions, &StoredRepetition::p90_ns);
  w.p99_ns_median = median_of(w.repetitions, &StoredRepetition::p99_ns);
  w.p999_ns_median = median_of(w.repetitions, &StoredRepetition::p999_ns);
  w.max_ns_median = median_of(w.repetitions, &StoredRepetition::max_ns);
  w.flags = results::ordered_flags({flags.begin(), flags.end()});
  if (workload.latency.total_count() > 0) w.latency_hdr = workload.latency.encode_compressed();
  // The workload's figures, as reports print them and gates judge them.
  for (std::string_view metric : stored_metric_names()) {
    auto figure = results::metric_figure(workload, std::string(metric));
    if (figure && std::isfinite(*figure)) w.figures[std::string(metric)] = *figure;
  }
  return w;
}

}  // namespace internal

Expected<void> Store::store_workload(int64_t run, const results::WorkloadResult& workload) {
  const std::string context =
      "storing workload '" + workload.spec.name + "' of run " + std::to_string(run);
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };
  const StoredWorkload stored = internal::stored_workload(workload);

  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  auto status = run_status(run);
  if (!status) return fail(status.message());
  if (*status != "running") return fail("the run is not running (status " + *status + ")");

  auto insert_workload =
      prepare_insert(*db_, "workloads", columns::kWorkloadKept, columns::workload_columns());
  if (!insert_workload) return fail(insert_workload.message());
  sqlite::Statement& w = *insert_workload;
  w.bind(w.parameter(":run_id"), run);
  columns::bind_record(w, columns::workload_columns(), stored);
  if (auto ok = w.run(); !ok) return fail(ok.message());
  const int64_t workload_id = db_->last_insert_rowid();

  auto insert_figure =
      prepare_insert(*db_, "workload_figures", columns::kFigureKept, columns::figure_columns());
  if (!insert_figure) return fail(insert_figure.message());
  for (const auto& [metric, value] : stored.figures) {
    sqlite::Statement& f = *insert_figure;
    f.reset();
    f.bind(f.parameter(":workload_id"), workload_id);
    columns::bind_record(f, columns::figure_columns(), WorkloadFigure{metric, value});
    if (auto ok = f.run(); !ok) return fail("figure " + metric + ": " + ok.message());
  }

  auto insert_rep =
      prepare_insert(*db_, "repetitions", columns::kRepetitionKept, columns::repetition_columns());
  auto insert_metric = prepare_insert(*db_, "router_metrics", columns::kPerRepetitionKept,
                                      columns::router_counter_columns());
  auto insert_second =
      prepare_insert(*db_, "timeline", columns::kPerRepetitionKept, columns::timeline_columns());
  auto insert_share = prepare_insert(*db_, "worker_windows", columns::kPerRepetitionKept,
                                     columns::worker_window_columns());
  if (!insert_rep || !insert_metric || !insert_second || !insert_share) {
    return fail(db_->last_error());
  }
  for (const StoredRepetition& rep : stored.repetitions) {
    sqlite::Statement& s = *insert_rep;
    s.reset();
    s.bind(s.parameter(":workload_id"), workload_id);
    columns::bind_record(s, columns::repetition_columns(), rep);
    if (auto ok = s.run(); !ok) {
      return fail("repetition " + std::to_string(rep.index) + ": " + ok.message());
    }
    const int64_t rep_id = db_->last_insert_rowid();
    // Each child row of the repetition: its key, then the record's columns.
    auto insert_child = [&](sqlite::Statement& child, auto table, const auto& record) {
      child.reset();
      child.bind(child.parameter(":repetition_id"), rep_id);
      columns::bind_record(child, table, record);
      return child.run();
    };
    for (const StoredSecond& second : rep.timeline) {
      if (auto ok = insert_child(*insert_second, columns::timeline_columns(), second); !ok) {
        return fail("timeline: " + ok.message());
      }
    }
    for (const StoredWorkerShare& share : rep.workers) {
      if (auto ok = insert_child(*insert_share, columns::worker_window_columns(), share); !ok) {
        return fail("worker share: " + ok.message());
      }
    }
    for (const auto& [name, value] : rep.router_metrics) {
      if (auto ok = insert_child(*insert_metric, columns::router_counter_columns(),
                                 RouterCounter{name, value});
          !ok) {
        return fail("router metric '" + name + "': " + ok.message());
      }
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

}  // namespace benchgate::store
