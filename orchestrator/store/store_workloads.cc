// Storing one workload: its row, a summary over repetitions, every repetition with its
// histograms, and the router's counter deltas, all in one transaction.
#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "orchestrator/store/metric_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::store {
namespace {

using namespace internal;  // NOLINT(google-build-using-namespace)

// Figures of one repetition as stored; the definitions are those of results::Repetition
// (successes and received bytes over the data window).
struct RepetitionFigures {
  uint64_t errors = 0;
  double ops_per_s = 0;
  std::optional<double> bytes_per_s;  // nothing when the workers did not measure bytes
  std::optional<int64_t> p50, p75, p90, p95, p99, p999, max;
  std::optional<double> mean;
};

RepetitionFigures figures_of(const results::Repetition& rep) {
  RepetitionFigures f;
  for (const auto& [kind, count] : rep.errors) f.errors += count;
  f.ops_per_s = rep.ops_per_second();
  if (rep.measured("bytes_received")) f.bytes_per_s = rep.bytes_per_second();
  // From the histogram, or only the figures a tool printed (the others stay NULL).
  f.p50 = rep.latency_at(50);
  f.p75 = rep.latency_at(75);
  f.p90 = rep.latency_at(90);
  f.p95 = rep.latency_at(95);
  f.p99 = rep.latency_at(99);
  f.p999 = rep.latency_at(99.9);
  f.max = rep.latency_at(100);
  f.mean = rep.latency_mean();
  return f;
}

std::optional<std::string> tool_latency_json(const results::Repetition& rep) {
  if (!rep.tool_latency) return std::nullopt;
  const results::ToolLatency& t = *rep.tool_latency;
  nlohmann::json j = {{"tool", t.tool}, {"percentiles_ns", t.percentiles_ns}};
  if (t.min_ns) j["min_ns"] = *t.min_ns;
  if (t.mean_ns) j["mean_ns"] = *t.mean_ns;
  if (t.stdev_ns) j["stdev_ns"] = *t.stdev_ns;
  if (t.max_ns) j["max_ns"] = *t.max_ns;
  return j.dump();
}

// A counter the workers measured, or NULL.
std::optional<int64_t> if_measured(const results::Repetition& rep, std::string_view field,
                                   uint64_t value) {
  if (!rep.measured(field)) return std::nullopt;
  return as_int(value);
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median over the repetitions where the figure was measured.
std::optional<double> median_of(const std::vector<RepetitionFigures>& all,
                                std::optional<int64_t> RepetitionFigures::*field) {
  std::vector<double> v;
  for (const auto& f : all) {
    if (f.*field) v.push_back(static_cast<double>(*(f.*field)));
  }
  return median(std::move(v));
}

std::optional<std::vector<uint8_t>> encoded(const std::optional<HdrHistogram>& h) {
  if (!h) return std::nullopt;
  return h->encode_compressed();
}

void bind_optional_blob(sqlite::Statement& s, int index,
                        const std::optional<std::vector<uint8_t>>& bytes) {
  if (bytes) {
    s.bind_blob(index, *bytes);
  } else {
    s.bind_null(index);
  }
}

}  // namespace

Expected<void> Store::store_workload(int64_t run, const results::WorkloadResult& workload) {
  const std::string context =
      "storing workload '" + workload.spec.name + "' of run " + std::to_string(run);
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };

  std::vector<RepetitionFigures> figures;
  figures.reserve(workload.repetitions.size());
  for (const auto& rep : workload.repetitions) figures.push_back(figures_of(rep));
  std::vector<double> ops, bytes;
  uint64_t errors_total = 0;
  std::set<std::string> flags;
  for (size_t i = 0; i < figures.size(); ++i) {
    ops.push_back(figures[i].ops_per_s);
    if (figures[i].bytes_per_s) bytes.push_back(*figures[i].bytes_per_s);
    errors_total += figures[i].errors;
    flags.insert(workload.repetitions[i].flags.begin(), workload.repetitions[i].flags.end());
  }

  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  auto status = run_status(run);
  if (!status) return fail(status.message());
  if (*status != "running") return fail("the run is not running (status " + *status + ")");

  auto insert_workload = db_->prepare(
      "INSERT INTO workloads (run_id, name, variant, protocol, params, params_hash, status, "
      "error, repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max, "
      "bytes_per_s_median, p50_ns_median, p90_ns_median, p99_ns_median, p999_ns_median, "
      "max_ns_median, errors_total, flags, latency_hdr) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21)");
  if (!insert_workload) return fail(insert_workload.message());
  sqlite::Statement& w = *insert_workload;
  const std::string params = workload_params_json(workload.spec);
  w.bind(1, run)
      .bind(2, workload.spec.name)
      .bind(3, workload.variant)
      .bind(4, protocol_name(workload.spec.protocol))
      .bind(5, params)
      .bind(6, workload_params_hash(workload.spec))
      .bind(7, std::string_view(results::status_name(workload.status)))
      .bind(8, workload.error)
      .bind(9, static_cast<int64_t>(workload.repetitions.size()))
      .bind(10, median(ops))
      .bind(11,
            ops.empty() ? std::nullopt : std::optional(*std::min_element(ops.begin(), ops.end())))
      .bind(12,
            ops.empty() ? std::nullopt : std::optional(*std::max_element(ops.begin(), ops.end())))
      // A median over only some repetitions would not be the workload's: all or nothing.
      .bind(13, bytes.size() == figures.size() ? median(bytes) : std::nullopt)
      .bind(14, median_of(figures, &RepetitionFigures::p50))
      .bind(15, median_of(figures, &RepetitionFigures::p90))
      .bind(16, median_of(figures, &RepetitionFigures::p99))
      .bind(17, median_of(figures, &RepetitionFigures::p999))
      .bind(18, median_of(figures, &RepetitionFigures::max))
      .bind(19, as_int(errors_total))
      .bind(20, to_json(std::vector<std::string>(flags.begin(), flags.end())));
  if (workload.latency.total_count() > 0) {
    w.bind_blob(21, workload.latency.encode_compressed());
  } else {
    w.bind_null(21);
  }
  if (auto ok = w.run(); !ok) return fail(ok.message());
  const int64_t workload_id = db_->last_insert_rowid();

  // The workload's figures, as reports print them and gates judge them.
  auto insert_figure =
      db_->prepare("INSERT INTO workload_figures (workload_id, metric, value) VALUES (?1, ?2, ?3)");
  if (!insert_figure) return fail(insert_figure.message());
  for (std::string_view metric : stored_metric_names()) {
    auto figure = results::metric_figure(workload, std::string(metric));
    if (!figure || !std::isfinite(*figure)) continue;
    insert_figure->reset();
    insert_figure->bind(1, workload_id).bind(2, metric).bind(3, *figure);
    if (auto ok = insert_figure->run(); !ok) {
      return fail("figure " + std::string(metric) + ": " + ok.message());
    }
  }

  auto insert_rep = db_->prepare(
      "INSERT INTO repetitions (workload_id, idx, start_ns, duration_ns, data_window_ns, "
      "operations, successes, errors_total, errors_by_kind, bytes_sent, bytes_received, "
      "late_sends, unsent, ops_per_s, bytes_per_s, p50_ns, p75_ns, p90_ns, p95_ns, p99_ns, "
      "p999_ns, max_ns, mean_ns, latency_hdr, service_time_hdr, worker_cpu_s, "
      "worker_cpu_utilization, router_requests, router_cpu_s, router_rss_bytes, "
      "router_handling_hdr, flags, not_measured, tool_latency, stopped, window_successes, "
      "payload_bytes_per_s, start_skew_ns, worker_cpu_wait_share, latency_clamped) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
      "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, "
      "?37, ?38, ?39, ?40)");
  auto insert_metric =
      db_->prepare("INSERT INTO router_metrics (repetition_id, name, value) VALUES (?1, ?2, ?3)");
  auto insert_second = db_->prepare(
      "INSERT INTO timeline (repetition_id, second, ops_per_s, errors, p50_ns, p99_ns, max_ns) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  auto insert_share = db_->prepare(
      "INSERT INTO worker_windows (repetition_id, worker, operations, successes, errors_total, "
      "ops_per_s, p99_ns, max_ns, cpu_utilization) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!insert_rep || !insert_metric || !insert_second || !insert_share) {
    return fail(db_->last_error());
  }
  for (size_t i = 0; i < workload.repetitions.size(); ++i) {
    const results::Repetition& rep = workload.repetitions[i];
    const RepetitionFigures& f = figures[i];
    sqlite::Statement& s = *insert_rep;
    s.reset();
    s.bind(1, workload_id)
        .bind(2, static_cast<int64_t>(rep.index))
        .bind(3, rep.start_unix_ns)
        .bind(4, rep.duration_ns)
        .bind(5, rep.measured("data_window") ? std::optional(rep.data_window_ns) : std::nullopt)
        .bind(6, as_int(rep.operations))
        .bind(7, as_int(rep.successes))
        .bind(8, as_int(f.errors))
        .bind(9, to_json(rep.errors))
        .bind(10, if_measured(rep, "bytes_sent", rep.bytes_sent))
        .bind(11, if_measured(rep, "bytes_received", rep.bytes_received))
        .bind(12, as_int(rep.late_sends))
        .bind(13, as_int(rep.unsent))
        .bind(14, f.ops_per_s)
        .bind(15, f.bytes_per_s)
        .bind(16, f.p50)
        .bind(17, f.p75)
        .bind(18, f.p90)
        .bind(19, f.p95)
        .bind(20, f.p99)
        .bind(21, f.p999)
        .bind(22, f.max)
        .bind(23, f.mean)
        .bind_blob(24, rep.latency.encode_compressed());
    bind_optional_blob(s, 25, encoded(rep.service_time));
    if (rep.measured("cpu")) {
      s.bind(26, rep.worker_cpu_seconds).bind(27, rep.worker_cpu_utilization);
    } else {
      s.bind_null(26).bind_null(27);
    }
    if (rep.router.collected) {
      s.bind(28, as_int(rep.router.requests));
      bind_optional_blob(s, 31, encoded(rep.router.handling));
    } else {
      s.bind_null(28).bind_null(31);
    }
    if (rep.router.sampled) {
      s.bind(29, rep.router.cpu_seconds).bind(30, as_int(rep.router.rss_bytes));
    } else {
      s.bind_null(29).bind_null(30);
    }
    s.bind(32, to_json(rep.flags))
        .bind(33,
              to_json(std::vector<std::string>(rep.not_measured.begin(), rep.not_measured.end())));
    if (auto tool = tool_latency_json(rep)) {
      s.bind(34, std::string_view(*tool));
    } else {
      s.bind_null(34);
    }
    s.bind(35, to_json(rep.stopped));
    s.bind(36, rep.in_window ? std::optional(as_int(rep.window_successes)) : std::nullopt)
        .bind(37, rep.payload_bytes_per_second())
        .bind(38, rep.max_start_skew_ns())
        .bind(39, rep.worker_cpu_wait_share)
        .bind(40, as_int(rep.latency_clamped));
    if (auto ok = s.run(); !ok) {
      return fail("repetition " + std::to_string(rep.index) + ": " + ok.message());
    }
    const int64_t rep_id = db_->last_insert_rowid();
    for (const results::TimelineSecond& second : rep.timeline) {
      insert_second->reset();
      insert_second->bind(1, rep_id)
          .bind(2, static_cast<int64_t>(second.second))
          .bind(3, second.ops_per_second)
          .bind(4, as_int(second.errors))
          .bind(5, second.p50_ns)
          .bind(6, second.p99_ns)
          .bind(7, second.max_ns);
      if (auto ok = insert_second->run(); !ok) return fail("timeline: " + ok.message());
    }
    for (const results::WorkerShare& share : rep.workers) {
      insert_share->reset();
      insert_share->bind(1, rep_id)
          .bind(2, static_cast<int64_t>(share.worker))
          .bind(3, as_int(share.operations))
          .bind(4, as_int(share.successes))
          .bind(5, as_int(share.errors))
          .bind(6, share.ops_per_second)
          .bind(7, share.p99_ns)
          .bind(8, share.max_ns)
          .bind(9, share.cpu_utilization);
      if (auto ok = insert_share->run(); !ok) return fail("worker share: " + ok.message());
    }
    if (!rep.router.collected) continue;
    for (const auto& [name, value] : rep.router.counter_deltas) {
      insert_metric->reset();
      insert_metric->bind(1, rep_id).bind(2, name).bind(3, as_int(value));
      if (auto ok = insert_metric->run(); !ok) {
        return fail("router metric '" + name + "': " + ok.message());
      }
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

}  // namespace benchgate::store
