// Times Store::baseline_history (k = 10) over a store holding 100,000 runs of one series, all
// in the baseline: the query a relative gate makes for every gated metric. The goal is well
// under 50 ms per query. Also times the cases where one of the two walks baseline_history
// takes is long: a baseline holding only the series' 10 oldest runs, and a testbed whose only
// baseline runs are the 10 oldest of the whole baseline.
//
// The fill copies one real stored run (written through the Store API) with INSERT ... SELECT
// in a single transaction, so the rows are exactly what the orchestrator writes.
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"
#include "orchestrator/store/workload_params.h"

namespace bs = benchgate::store;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "gate_history_bench: %s\n", what.c_str());
  std::exit(1);
}

benchgate::results::WorkloadResult make_workload(const benchgate::scenario::Workload& spec) {
  benchgate::results::WorkloadResult w;
  w.spec = spec;
  for (uint32_t i = 0; i < 5; ++i) {
    benchgate::results::Repetition r;
    r.index = i;
    r.duration_ns = 3'000'000'000;
    r.data_window_ns = 2'990'000'000;
    r.successes = 300'000 + i;
    r.operations = r.successes;
    r.bytes_received = r.successes * 120;
    for (int v = 1; v <= 2000; ++v) r.latency.record(20'000 + v * 37);
    r.worker_cpu_utilization = 0.5;
    w.latency.add(r.latency);
    w.repetitions.push_back(std::move(r));
  }
  return w;
}

// Writes one real run through the API and returns its id.
int64_t template_run(bs::Store& store, const bs::Testbed& testbed,
                     const benchgate::scenario::Workload& spec) {
  bs::RunInfo info;
  info.scenario = "history";
  info.scenario_text = "name = \"history\"\n";
  info.commit = "0000000000000000000000000000000000000000";
  info.branch = "main";
  info.testbed = testbed;
  auto run = store.begin_run(info);
  if (!run) die(run.message());
  if (auto ok = store.store_workload(*run, make_workload(spec)); !ok) die(ok.message());
  if (auto ok = store.finish_run(*run, "ok", 0); !ok) die(ok.message());
  return *run;
}

// Copies run `from` (its workload and repetitions) `count` times into baseline `baseline`.
void clone_runs(bs::sqlite::Database& db, int64_t from, int count, const std::string& baseline) {
  auto run = db.prepare(
      "INSERT INTO runs (scenario, scenario_text, scenario_hash, started_at, finished_at, status, "
      "exit_code, commit_id, branch, labels, testbed_id, owner) "
      "SELECT scenario, scenario_text, scenario_hash, started_at + ?2, finished_at + ?2, status, "
      "exit_code, printf('%040d', ?2), branch, labels, testbed_id, owner FROM runs WHERE id = ?1");
  auto workload = db.prepare(
      "INSERT INTO workloads (run_id, name, variant, protocol, params, params_hash, status, error, "
      "repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median, "
      "p50_ns_median, p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median, errors_total, "
      "flags, latency_hdr) SELECT ?2, name, variant, protocol, params, params_hash, status, error, "
      "repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median, "
      "p50_ns_median, p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median, errors_total, "
      "flags, latency_hdr FROM workloads WHERE run_id = ?1");
  auto reps = db.prepare(
      "INSERT INTO repetitions (workload_id, idx, start_ns, duration_ns, data_window_ns, "
      "operations, successes, errors_total, errors_by_kind, bytes_sent, bytes_received, "
      "late_sends, unsent, ops_per_s, bytes_per_s, p50_ns, p75_ns, p90_ns, p95_ns, p99_ns, "
      "p999_ns, max_ns, mean_ns, latency_hdr, service_time_hdr, worker_cpu_s, "
      "worker_cpu_utilization, router_requests, router_cpu_s, router_rss_bytes, "
      "router_handling_hdr, flags) SELECT ?2, r.idx, r.start_ns, r.duration_ns, "
      "r.data_window_ns, r.operations, r.successes, r.errors_total, r.errors_by_kind, "
      "r.bytes_sent, r.bytes_received, r.late_sends, r.unsent, "
      "r.ops_per_s * (1 + (?3 % 7) / 100.0), r.bytes_per_s, r.p50_ns, r.p75_ns, r.p90_ns, "
      "r.p95_ns, r.p99_ns, r.p999_ns, r.max_ns, r.mean_ns, r.latency_hdr, r.service_time_hdr, "
      "r.worker_cpu_s, r.worker_cpu_utilization, r.router_requests, r.router_cpu_s, "
      "r.router_rss_bytes, r.router_handling_hdr, r.flags "
      "FROM repetitions r JOIN workloads w ON w.id = r.workload_id WHERE w.run_id = ?1");
  // The workload's figures (schema 8): a run without them is no history for a gate.
  auto figures = db.prepare(
      "INSERT INTO workload_figures (workload_id, metric, value) SELECT ?2, f.metric, f.value "
      "FROM workload_figures f JOIN workloads w ON w.id = f.workload_id WHERE w.run_id = ?1");
  auto member = db.prepare("INSERT INTO baselines (name, run_id, added_at) VALUES (?1, ?2, 0)");
  for (auto* stmt : {&run, &workload, &reps, &figures, &member}) {
    if (!*stmt) die(stmt->message());
  }
  for (int i = 1; i <= count; ++i) {
    run->reset();
    run->bind(1, from).bind(2, static_cast<int64_t>(i));
    if (auto ok = run->run(); !ok) die(ok.message());
    const int64_t run_id = db.last_insert_rowid();
    workload->reset();
    workload->bind(1, from).bind(2, run_id);
    if (auto ok = workload->run(); !ok) die(ok.message());
    const int64_t workload_id = db.last_insert_rowid();
    reps->reset();
    reps->bind(1, from).bind(2, workload_id).bind(3, static_cast<int64_t>(i));
    if (auto ok = reps->run(); !ok) die(ok.message());
    figures->reset();
    figures->bind(1, from).bind(2, workload_id);
    if (auto ok = figures->run(); !ok) die(ok.message());
    member->reset();
    member->bind(1, baseline).bind(2, run_id);
    if (auto ok = member->run(); !ok) die(ok.message());
  }
}

struct Timing {
  double median_ms, min_ms, max_ms;
  size_t runs_returned;
};

Timing time_history(bs::Store& store, const bs::HistoryQuery& q, int repeats) {
  std::vector<double> ms;
  size_t returned = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    auto history = store.baseline_history(q);
    ms.push_back(ms_since(start));
    if (!history) die(history.message());
    returned = history->size();
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), returned};
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 100'000;
  int repeats = 21;
  constexpr const char* kUsage =
      "usage: gate_history_bench [--runs N] [--repeats N]\n"
      "  fills a store of N runs (default 100000) of one series in a temporary folder and times\n"
      "  each baseline_history case --repeats times (default 21)\n";
  for (int i = 1; i < argc; i += 2) {
    const bool value = i + 1 < argc;
    if (std::strcmp(argv[i], "--runs") == 0 && value) {
      runs = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--repeats") == 0 && value) {
      repeats = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "gate_history_bench: unexpected argument '%s'\n%s", argv[i], kUsage);
      return 2;
    }
  }
  if (runs < 10 || repeats < 1) die("--runs must be >= 10 and --repeats >= 1");

  std::string folder = (std::filesystem::temp_directory_path() / "gate_history_XXXXXX").string();
  if (!mkdtemp(folder.data())) die("cannot create a temporary folder");
  const std::string path = folder + "/history.db";
  auto opened = bs::Store::open(path);
  if (!opened) die(opened.message());
  bs::Store& store = **opened;

  const bs::Testbed here = bs::detect_testbed();
  bs::Testbed other = here;
  other.host += "-other";
  benchgate::scenario::Workload spec;
  spec.name = "http_hello";
  spec.connections = 32;

  // Oldest first: 10 runs of another testbed, then the main testbed's series.
  const auto fill_start = Clock::now();
  const int64_t other_template = template_run(store, other, spec);
  const int64_t main_template = template_run(store, here, spec);
  {
    auto tx = bs::sqlite::Transaction::begin(store.database());
    if (!tx) die(tx.message());
    clone_runs(store.database(), other_template, 10, "main");
    clone_runs(store.database(), main_template, runs, "main");
    if (auto ok = tx->commit(); !ok) die(ok.message());
  }
  // A second baseline holding only the 10 oldest runs of the series.
  if (auto ok = store.database().exec(
          "INSERT INTO baselines (name, run_id, added_at) SELECT 'v1', b.run_id, 0 "
          "FROM baselines b JOIN runs r ON r.id = b.run_id WHERE b.name = 'main' AND "
          "r.testbed_id = (SELECT testbed_id FROM runs ORDER BY id DESC LIMIT 1) "
          "ORDER BY b.run_id LIMIT 10");
      !ok) {
    die(ok.message());
  }
  if (auto ok = store.database().exec("ANALYZE"); !ok) die(ok.message());
  const double fill_s = ms_since(fill_start) / 1000;

  auto detail = store.get_run(main_template);
  auto other_detail = store.get_run(other_template);
  if (!detail || !other_detail) die("template runs vanished");
  bs::HistoryQuery q;
  q.baseline = "main";
  q.testbed_id = detail->run.testbed_id;
  q.scenario = "history";
  q.workload = "http_hello";
  q.params_hash = bs::workload_params_hash(spec);
  q.metric = "throughput.rps";
  q.k = 10;
  const Timing dense = time_history(store, q, repeats);
  q.metric = "latency.p99";
  const Timing latency = time_history(store, q, repeats);
  q.metric = "throughput.rps";
  q.baseline = "v1";
  const Timing sparse = time_history(store, q, repeats);
  q.baseline = "main";
  q.testbed_id = other_detail->run.testbed_id;
  const Timing other_testbed = time_history(store, q, repeats);

  std::error_code ec;
  const auto bytes =
      std::filesystem::file_size(path, ec) + std::filesystem::file_size(path + "-wal", ec);
  std::printf(
      "gate_history_bench: host=%s cpu=\"%s\" cores=%u build=%s compiler=\"%s\" sqlite=%s\n",
      here.host.c_str(), here.cpu_model.c_str(), here.cores, BENCHGATE_BUILD_TYPE,
      here.compiler.c_str(), sqlite3_libversion());
  std::printf(
      "fill: %d runs x 5 repetitions + 10 other-testbed runs in one transaction: %.1f s, "
      "database %.0f MB\n",
      runs, fill_s, static_cast<double>(bytes) / 1e6);
  // Every case has 10 usable runs: a query that finds fewer timed another question (a fill
  // the store no longer takes as history), and is no figure.
  bool complete = true;
  auto line = [&](const char* what, const Timing& t) {
    const bool found = t.runs_returned == static_cast<size_t>(q.k);
    complete = complete && found;
    std::printf(
        "baseline_history k=10 %-38s median %.3f ms (min %.3f, max %.3f, %d repeats, "
        "%zu runs returned) goal < 50 ms: %s\n",
        what, t.median_ms, t.min_ms, t.max_ms, repeats, t.runs_returned,
        !found             ? "not measured (fewer runs than k)"
        : t.median_ms < 50 ? "met"
                           : "MISSED");
  };
  line("throughput.rps, newest runs", dense);
  line("latency.p99, newest runs", latency);
  line("baseline of the 10 oldest runs only", sparse);
  line("other testbed: 10 oldest baseline runs", other_testbed);

  opened->reset();
  std::filesystem::remove_all(folder, ec);
  return complete ? 0 : 1;
}
