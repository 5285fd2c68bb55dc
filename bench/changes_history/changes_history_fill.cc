// changes_history_fill DB [--runs N]: writes a store of N runs (default 100,000) of one
// workload for bench/history_changes.sh, then brings its change points up to date as a
// database that saw every run land would have them, and times that.
//
// One run is written through the Store API; the others copy it with INSERT ... SELECT in one
// transaction, so the rows are what the orchestrator writes. Each copy's medians and figures
// (workload_figures, the points of a series) are the template's times a level and 1% noise: the
// level changes by 5 to 10% every 10,000 runs, so the series have change points to find and report.
// Then one more run is stored through the API and brought in as `orchestrator run` does after every
// run (update_change_points), and that is timed too: the cost a run pays for the analysis of a
// 100,000-run series.
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/testbed.h"

namespace bs = benchgate::store;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "changes_history_fill: %s\n", what.c_str());
  std::exit(1);
}

benchgate::results::WorkloadResult make_workload() {
  benchgate::results::WorkloadResult w;
  w.spec.name = "http_hello";
  w.spec.connections = 32;
  for (uint32_t i = 0; i < 5; ++i) {
    benchgate::results::Repetition r;
    r.index = i;
    r.duration_ns = 3'000'000'000;
    r.data_window_ns = 3'000'000'000;
    r.successes = 300'000;
    r.operations = r.successes;
    r.bytes_sent = r.successes * 40;
    r.bytes_received = r.successes * 120;
    for (int v = 1; v <= 2000; ++v) r.latency.record(20'000 + v * 37);
    r.worker_cpu_seconds = 1.5;
    r.worker_cpu_utilization = 0.5;
    w.latency.add(r.latency);
    w.repetitions.push_back(std::move(r));
  }
  return w;
}

int64_t store_run(bs::Store& store, const std::string& commit) {
  bs::RunInfo info;
  info.scenario = "history";
  info.scenario_text = "name = \"history\"\n";
  info.commit = commit;
  info.branch = "main";
  info.testbed = bs::detect_testbed();
  auto run = store.begin_run(info);
  if (!run) die(run.message());
  if (auto ok = store.store_workload(*run, make_workload()); !ok) die(ok.message());
  if (auto ok = store.finish_run(*run, "ok", 0); !ok) die(ok.message());
  return *run;
}

// Copies run `from` `count` times; copy i has throughput factor f(i) and latency 1 / f(i).
void clone_runs(bs::sqlite::Database& db, int64_t from, int count) {
  auto run = db.prepare(
      "INSERT INTO runs (scenario, scenario_text, scenario_hash, started_at, finished_at, status, "
      "exit_code, commit_id, branch, labels, testbed_id, owner) "
      "SELECT scenario, scenario_text, scenario_hash, started_at + ?2 * 60000000000, "
      "finished_at + ?2 * 60000000000, status, exit_code, printf('%040d', ?2), branch, labels, "
      "testbed_id, owner FROM runs WHERE id = ?1");
  auto workload = db.prepare(
      "INSERT INTO workloads (run_id, name, variant, protocol, params, params_hash, status, error, "
      "repetition_count, ops_per_s_median, ops_per_s_min, ops_per_s_max, bytes_per_s_median, "
      "p50_ns_median, p90_ns_median, p99_ns_median, p999_ns_median, max_ns_median, errors_total, "
      "flags, latency_hdr) SELECT ?2, name, variant, protocol, params, params_hash, status, error, "
      "repetition_count, ops_per_s_median * ?3, ops_per_s_min * ?3, ops_per_s_max * ?3, "
      "bytes_per_s_median * ?3, p50_ns_median / ?3, p90_ns_median / ?3, p99_ns_median / ?3, "
      "p999_ns_median / ?3, max_ns_median / ?3, errors_total, flags, latency_hdr "
      "FROM workloads WHERE run_id = ?1");
  // The figures, scaled as the medians are: a series' points are these.
  auto figures = db.prepare(
      "INSERT INTO workload_figures (workload_id, metric, value) SELECT ?2, f.metric, "
      "CASE WHEN f.metric LIKE 'throughput.%' THEN f.value * ?3 "
      "WHEN f.metric LIKE 'latency.%' THEN f.value / ?3 ELSE f.value END "
      "FROM workload_figures f JOIN workloads w ON w.id = f.workload_id WHERE w.run_id = ?1");
  if (!run) die(run.message());
  if (!workload) die(workload.message());
  if (!figures) die(figures.message());
  std::mt19937_64 gen(20261201);
  std::normal_distribution<double> noise(0, 0.01);
  for (int i = 1; i <= count; ++i) {
    // Level: alternately 7% down and back up every 10,000 runs.
    const double level = (i / 10'000) % 2 == 1 ? 0.93 : 1.0;
    run->reset();
    run->bind(1, from).bind(2, static_cast<int64_t>(i));
    if (auto ok = run->run(); !ok) die(ok.message());
    const int64_t run_id = db.last_insert_rowid();
    workload->reset();
    const double factor = level * (1 + noise(gen));
    workload->bind(1, from).bind(2, run_id).bind(3, factor);
    if (auto ok = workload->run(); !ok) die(ok.message());
    figures->reset();
    figures->bind(1, from).bind(2, db.last_insert_rowid()).bind(3, factor);
    if (auto ok = figures->run(); !ok) die(ok.message());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: changes_history_fill DB [--runs N]");
  const std::string path = argv[1];
  int runs = 100'000;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
  }
  if (runs < 2) die("--runs must be 2 or more");
  if (std::filesystem::exists(path)) die(path + " already exists; give a new file");
  auto opened = bs::Store::open(path);
  if (!opened) die(opened.message());
  bs::Store& store = **opened;

  const auto fill_start = Clock::now();
  const int64_t first = store_run(store, std::string(40, '0'));
  {
    auto tx = bs::sqlite::Transaction::begin(store.database());
    if (!tx) die(tx.message());
    clone_runs(store.database(), first, runs - 2);
    if (auto ok = tx->commit(); !ok) die(ok.message());
  }
  if (auto ok = store.database().exec("ANALYZE"); !ok) die(ok.message());
  const double fill_s = seconds_since(fill_start);

  const auto analyse_start = Clock::now();
  if (auto ok = store.update_all_change_points(); !ok) die(ok.message());
  const double analyse_s = seconds_since(analyse_start);

  // The last run lands as `orchestrator run` stores one.
  const int64_t last = store_run(store, std::string(40, 'f'));
  const auto hook_start = Clock::now();
  if (auto ok = store.update_change_points(last); !ok) die(ok.message());
  const double hook_s = seconds_since(hook_start);

  auto stored = store.database().prepare("SELECT count(*) FROM change_points");
  if (!stored) die(stored.message());
  auto row = stored->step();
  if (!row || !*row) die("counting change points");
  std::printf("fill: %d runs of 1 workload (%zu series) in %.1f s\n", runs,
              bs::Store::change_metrics().size(), fill_s);
  std::printf("analysis of every series, once: %.1f s, %lld change points stored\n", analyse_s,
              static_cast<long long>(stored->int64(0)));
  std::printf("one more run landing (update_change_points, %zu series of %d runs): %.3f s\n",
              bs::Store::change_metrics().size(), runs, hook_s);
  return 0;
}
